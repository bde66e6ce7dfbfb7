/*
 * Internal to the report module: a growing text buffer that remembers an
 * allocation failure (so that rendering code checks once, at the end), and
 * the renderers of each format.
 */
#ifndef KJ_REPORT_INTERNAL_H
#define KJ_REPORT_INTERNAL_H

#include <jansson.h>
#include <stddef.h>

#include "kjudge/report.h"

struct kjr_buf {
	char *s;
	size_t len, cap;
	int oom;
};

void kjr_printf(struct kjr_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void kjr_puts(struct kjr_buf *b, const char *s);
/* s with & < > " ' escaped for HTML text and attributes. */
void kjr_html(struct kjr_buf *b, const char *s);
/* Hands the text to *out (0), or frees it and returns KJ_E_NOMEM. */
int kjr_finish(struct kjr_buf *b, char **out, struct kj_err *err);
void kjr_release(struct kjr_buf *b);

/* A figure for a table: "%.*f" of x, or "-" when x is NAN. */
const char *kjr_fmt(char *buf, size_t size, double x, int digits);
/* A share as a percentage with one decimal, or "-". */
const char *kjr_pct(char *buf, size_t size, double x);

/* The kjudge.report/1 object; NULL when out of memory. */
json_t *kjr_report_json(const kj_score_run *r, const kj_score_summary *s);
int kjr_render_md(const kj_score_run *r, const kj_score_summary *s, struct kjr_buf *b);
int kjr_render_html(const kj_score_run *r, const kj_score_summary *s, struct kjr_buf *b);

#endif
