/*
 * Reports of a run's scores: Markdown (tables), JSON (schema kjudge.report/1,
 * docs/scores.md) and one self-contained HTML page whose charts are SVG drawn
 * here (fast_p against p, fast_p@k and @N curves, a speedup histogram, a
 * roofline plot, category bars): no script, no stylesheet or font from the
 * network.  Every format starts with the run's manifest (settings, devices,
 * dates) and has per-task and per-candidate tables; csv is the per-candidate
 * table alone, one row per candidate (docs/scores.md names the columns).
 * Also the text of `kjudge compare` and the JSONL of
 * `kjudge export-pairs`.
 *
 * Ownership: every function returns a malloc'd NUL-terminated text in *out
 * (the caller frees it) and 0, or KJ_E_NOMEM with *out NULL.  The inputs are
 * only read.
 *
 * Layer: report.  It may use core and score only.
 */
#ifndef KJUDGE_REPORT_H
#define KJUDGE_REPORT_H

#include "kjudge/err.h"
#include "kjudge/score.h"

enum kj_report_format { KJ_REPORT_MD, KJ_REPORT_JSON, KJ_REPORT_HTML, KJ_REPORT_CSV };

/* "md", "json", "html" or "csv"; returns 0, or KJ_E_USAGE for another name. */
int kj_report_format_parse(const char *name, enum kj_report_format *f);

/* The report of run r whose summary is s. */
int kj_report_render(const kj_score_run *r, const kj_score_summary *s, enum kj_report_format f,
		     char **out, struct kj_err *err);

/* The comparison of runs a and b: a table, or one JSON object when json. */
int kj_report_compare(const kj_score_run *a, const kj_score_run *b,
		      const struct kj_score_compare *c, int json, char **out, struct kj_err *err);

/* One JSON object per line per pair: {"kind": "fix" | "speedup", "task",
 * "model", "sample", "before": {...}, "after": {...}} with each side's
 * round, sha, status, stage, reason, speedup and source. */
int kj_report_pairs_jsonl(const struct kj_score_pair *p, size_t n, char **out,
			  struct kj_err *err);

/* Fills *o from about (NULL allowed); returns 1 when it names a KernelBench
 * problem, else 0 with *o zeroed. */
int kj_kernelbench_origin(const char *about, struct kj_kb_origin *o);

/* KernelBench's per-problem results of run r, one row per candidate: the
 * problem (c->kb), sample, compiled, correctness, runtime and ref runtime
 * (ms; the weighted geometric means over the timed bench shapes) and speedup
 * (kjudge's), beside the task, model, round, status, stage and flags.  f: md,
 * json (schema kjudge.kernelbench/1) or csv; html is KJ_E_USAGE. */
int kj_report_kernelbench(const kj_score_run *r, enum kj_report_format f, char **out, struct kj_err *err);

#endif
