/* The growing text buffer of src/llm (llm_internal.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llm/llm_internal.h"

void kjl_init(struct kjl_buf *b)
{
	memset(b, 0, sizeof(*b));
}

static int reserve(struct kjl_buf *b, size_t extra)
{
	size_t want;
	char *ns;
	if (b->oom)
		return -1;
	want = b->len + extra + 1;
	if (want <= b->cap)
		return 0;
	if (want < 2 * b->cap)
		want = 2 * b->cap;
	if (want < 256)
		want = 256;
	ns = realloc(b->s, want);
	if (!ns) {
		b->oom = 1;
		return -1;
	}
	b->s = ns;
	b->cap = want;
	return 0;
}

void kjl_putn(struct kjl_buf *b, const char *s, size_t n)
{
	if (reserve(b, n))
		return;
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = 0;
}

void kjl_puts(struct kjl_buf *b, const char *s)
{
	kjl_putn(b, s, strlen(s));
}

void kjl_printf(struct kjl_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || reserve(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

int kjl_finish(struct kjl_buf *b, char **out, struct kj_err *err)
{
	if (!b->oom && reserve(b, 0) == 0) {
		*out = b->s;
		kjl_init(b);
		return 0;
	}
	kjl_release(b);
	return kj_err_set(err, KJ_E_NOMEM, "out of memory rendering text");
}

void kjl_release(struct kjl_buf *b)
{
	free(b->s);
	kjl_init(b);
}
