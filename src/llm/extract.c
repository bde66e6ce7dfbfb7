/*
 * The code block of a model's answer.  Models wrap the file in a Markdown
 * fence, often after prose and sometimes after a sketch in another block, so
 * the pick is: blocks in a C-family language (or none), those that mention
 * the function's name first, then the longest, then the last one.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "kjudge/llm.h"

struct block {
	const char *start; /* first byte of the body */
	size_t len;
	int closed, mentions;
};

static int lang_ok(const char *info, size_t n)
{
	static const char *const ok[] = { "c", "cpp", "c++", "cc", "cxx", "cu", "cuda", "h", "hpp", "objective-c" };
	char w[32];
	size_t k = 0;
	/* the first word of the info string, lower case */
	while (n && (*info == ' ' || *info == '\t'))
		info++, n--;
	while (k < n && k + 1 < sizeof(w) && !isspace((unsigned char)info[k]) && info[k] != '{') {
		w[k] = (char)tolower((unsigned char)info[k]);
		k++;
	}
	w[k] = 0;
	if (!k)
		return 1;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (!strcmp(w, ok[i]))
			return 1;
	return 0;
}

/* A fence line: up to 3 spaces, then 3 or more backticks.  Returns the
 * number of backticks (0: not a fence) and the info string after them. */
static int fence_at(const char *line, const char *eol, const char **info)
{
	const char *p = line;
	int ticks = 0;
	while (p < eol && *p == ' ' && p - line < 3)
		p++;
	while (p < eol && *p == '`') {
		p++;
		ticks++;
	}
	if (ticks < 3)
		return 0;
	*info = p;
	return ticks;
}

static int mentions(const char *s, size_t n, const char *sym)
{
	size_t l = sym ? strlen(sym) : 0;
	if (!l)
		return 0;
	for (size_t i = 0; i + l <= n; i++)
		if (!memcmp(s + i, sym, l) && (i == 0 || !(isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_')) &&
		    (i + l == n || !(isalnum((unsigned char)s[i + l]) || s[i + l] == '_')))
			return 1;
	return 0;
}

static int nonblank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isspace((unsigned char)s[i]))
			return 1;
	return 0;
}

int kj_llm_extract_code(const char *answer, const char *symbol, char **code, size_t *len,
			struct kj_err *err)
{
	struct block best = { 0 }, b;
	const char *p = answer, *info;
	int have = 0;
	*code = NULL;
	while (*p) {
		const char *eol = strchr(p, '\n'), *body, *q;
		int ticks;
		if (!eol)
			eol = p + strlen(p);
		ticks = fence_at(p, eol, &info);
		if (!ticks || memchr(info, '`', (size_t)(eol - info))) {
			p = *eol ? eol + 1 : eol;
			continue;
		}
		/* an opening fence: find its closing one */
		body = *eol ? eol + 1 : eol;
		q = body;
		memset(&b, 0, sizeof(b));
		b.start = body;
		b.len = strlen(body);
		while (*q) {
			const char *qe = strchr(q, '\n'), *qi;
			int t;
			if (!qe)
				qe = q + strlen(q);
			t = fence_at(q, qe, &qi);
			if (t >= ticks && !nonblank(qi, (size_t)(qe - qi))) {
				b.len = (size_t)(q - body);
				b.closed = 1;
				q = *qe ? qe + 1 : qe;
				break;
			}
			q = *qe ? qe + 1 : qe;
		}
		if (!b.closed)
			q = body + b.len;
		if (lang_ok(info, (size_t)(eol - info)) && nonblank(b.start, b.len)) {
			b.mentions = mentions(b.start, b.len, symbol);
			if (!have || (b.closed != best.closed ? b.closed
							      : b.mentions != best.mentions ? b.mentions
											    : b.len >= best.len)) {
				best = b;
				have = 1;
			}
		}
		p = q;
	}
	if (!have)
		return kj_err_set(err, KJ_E_NOTFOUND, "no code block in the answer");
	*code = malloc(best.len + 1);
	if (!*code)
		return kj_err_set(err, KJ_E_NOMEM, "out of memory");
	memcpy(*code, best.start, best.len);
	(*code)[best.len] = 0;
	if (len)
		*len = best.len;
	return 0;
}
