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
/* One CSV field (RFC 4180: quoted when it holds a comma, a quote or a line
 * end), then ",", or "\r\n" when last (tables.c). */
void kjr_csv_field(struct kjr_buf *b, const char *s, int last);
/* Hands the text to *out (0), or frees it and returns KJ_E_NOMEM. */
int kjr_finish(struct kjr_buf *b, char **out, struct kj_err *err);
void kjr_release(struct kjr_buf *b);

/* A figure for a table: "%.*f" of x, or "-" when x is NAN. */
const char *kjr_fmt(char *buf, size_t size, double x, int digits);
/* A share as a percentage with one decimal, or "-". */
const char *kjr_pct(char *buf, size_t size, double x);

/* "measured", "partly measured" or "not measured": the run's timing. */
const char *kjr_timing(const kj_score_summary *s);
/* s on one line (line ends as spaces), cut after max characters (UTF-8) with
 * "..." marking the cut; dst holds size >= 4 bytes. */
void kjr_trunc(char *dst, size_t size, const char *s, size_t max);
/* A candidate's speedup ("1.234", "not timed" for an untimed pass, "-"),
 * and its spread: "IQR/median of its times / of the baseline's", the
 * largest over its bench shapes, or "-". */
const char *kjr_speedup_cell(char *buf, size_t size, const struct kj_score_cand *c);
const char *kjr_spread_cell(char *buf, size_t size, const struct kj_score_cand *c);

/* The candidates of one task, summed up. */
struct kjr_task_row {
	const char *task, *category; /* point into the run */
	int level, candidates, judged, correct, timed;
	double speedup, sp_min, sp_max; /* geomean, min, max over timed passes; NAN none */
	double spread;                  /* the largest rel_iqr of those; NAN none */
	double sol;                     /* median SOL fraction of correct candidates; NAN */
	char failures[256];             /* "mismatch 2, crash 1" */
	char flags[256];                /* every flag seen, once */
	const struct kj_score_cand *first_fail; /* NULL when none failed */
	const struct kj_kb_origin *kb;          /* the KernelBench problem (level 0: none) */
};
/* "L1 #19_ReLU", the KernelBench problem of o, or "-". */
const char *kjr_kb_cell(char *buf, size_t size, const struct kj_kb_origin *o);
/* One row per task of r, sorted by task; *out is malloc'd.  0 or KJ_E_NOMEM. */
int kjr_task_rows(const kj_score_run *r, struct kjr_task_row **out, size_t *n);
/* Up to max correct timed candidates, slowest (lowest speedup) first. */
size_t kjr_slowest(const kj_score_run *r, const struct kj_score_cand **out, size_t max);

/* The run's manifest as (key, value) lines, in order; returns how many. */
struct kjr_item {
	char key[32];
	char val[512];
};
#define KJR_MAX_ITEMS 48
int kjr_manifest(const kj_score_run *r, const kj_score_summary *s, struct kjr_item *it, int max);

/* The kjudge.report/1 object; NULL when out of memory. */
json_t *kjr_report_json(const kj_score_run *r, const kj_score_summary *s);
int kjr_render_md(const kj_score_run *r, const kj_score_summary *s, struct kjr_buf *b);
int kjr_render_html(const kj_score_run *r, const kj_score_summary *s, struct kjr_buf *b);
int kjr_render_csv(const kj_score_run *r, const kj_score_summary *s, struct kjr_buf *b);

#endif
