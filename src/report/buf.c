/* The report module's text buffer and number formatting. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_internal.h"

static int reserve(struct kjr_buf *b, size_t extra)
{
	size_t cap;
	char *s;
	if (b->oom)
		return -1;
	if (b->len + extra + 1 <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 4096;
	while (cap < b->len + extra + 1)
		cap *= 2;
	s = realloc(b->s, cap);
	if (!s) {
		b->oom = 1;
		return -1;
	}
	b->s = s;
	b->cap = cap;
	return 0;
}

void kjr_printf(struct kjr_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;
	char small[256];
	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0 || reserve(b, (size_t)n))
		return;
	if ((size_t)n < sizeof(small)) {
		memcpy(b->s + b->len, small, (size_t)n + 1);
	} else {
		va_start(ap, fmt);
		vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
}

void kjr_puts(struct kjr_buf *b, const char *s)
{
	size_t n = strlen(s);
	if (reserve(b, n))
		return;
	memcpy(b->s + b->len, s, n + 1);
	b->len += n;
}

void kjr_html(struct kjr_buf *b, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			kjr_puts(b, "&amp;");
			break;
		case '<':
			kjr_puts(b, "&lt;");
			break;
		case '>':
			kjr_puts(b, "&gt;");
			break;
		case '"':
			kjr_puts(b, "&quot;");
			break;
		case '\'':
			kjr_puts(b, "&#39;");
			break;
		default: {
			char c[2] = { *s, 0 };
			kjr_puts(b, c);
		}
		}
	}
}

int kjr_finish(struct kjr_buf *b, char **out, struct kj_err *err)
{
	if (!b->oom)
		reserve(b, 0);
	if (b->oom) {
		kjr_release(b);
		*out = NULL;
		return kj_err_set(err, KJ_E_NOMEM, "out of memory rendering a report");
	}
	b->s[b->len] = 0;
	*out = b->s;
	b->s = NULL;
	b->len = b->cap = 0;
	return 0;
}

void kjr_release(struct kjr_buf *b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}

const char *kjr_fmt(char *buf, size_t size, double x, int digits)
{
	if (!isfinite(x))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.*f", digits, x);
	return buf;
}

const char *kjr_pct(char *buf, size_t size, double x)
{
	if (!isfinite(x))
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.1f%%", 100 * x);
	return buf;
}
