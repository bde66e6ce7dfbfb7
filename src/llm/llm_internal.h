/*
 * Internal to src/llm: a growing text buffer that remembers an allocation
 * failure, so that rendering code checks once, at the end.
 */
#ifndef KJ_LLM_INTERNAL_H
#define KJ_LLM_INTERNAL_H

#include <stddef.h>

#include "kjudge/err.h"

struct kjl_buf {
	char *s;
	size_t len, cap;
	int oom;
};

void kjl_init(struct kjl_buf *b);
void kjl_printf(struct kjl_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void kjl_putn(struct kjl_buf *b, const char *s, size_t n);
void kjl_puts(struct kjl_buf *b, const char *s);
/* Hands the text to *out (0), or frees it and returns KJ_E_NOMEM. */
int kjl_finish(struct kjl_buf *b, char **out, struct kj_err *err);
void kjl_release(struct kjl_buf *b);

#endif
