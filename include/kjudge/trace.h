/*
 * Trace-driven suites: turn a PyTorch profiler trace (the Chrome-trace JSON
 * that torch.profiler exports with record_shapes=True, plain or gzipped) into
 * a suite of kjudge tasks whose bench shapes are the shapes the model ran
 * and whose importance weights are their shares of the trace's GPU time, as
 * Atrex-Bench weighs its "hot shapes".  docs/suites.md describes the recipe.
 *
 * Three steps:
 *  1. kj_trace_load: every GPU kernel (cat "kernel") is attributed to the
 *     innermost aten op that launched it: the kernel's correlation id names
 *     its runtime launch (cat cuda_runtime / cuda_driver), and the innermost
 *     cpu_op on the launch's thread whose [ts, ts + dur] holds the launch is
 *     the operator (the kernel's "External id" names the same op in the
 *     traces we checked; it is the fallback when the launch is missing).
 *     The phase is the outermost user annotation (record_function) around
 *     the launch.  Kernel time is summed per (operator, input dims, input
 *     types, phase).
 *  2. kj_suite_build: each aggregate is mapped to a task (a level-1 task
 *     written in the task language with the trace's dtypes and broadcast
 *     structure; aggregates with the same computation share one task, one
 *     bench shape each) or listed as unmapped with the reason.
 *  3. kj_suite_write writes DIR/<task>.kt and the manifest DIR/suite.json
 *     (schema kjudge.suite/1: per task and per shape the weight, the share of
 *     the trace's GPU time and the signature of the computation);
 *     kj_suite_refresh rewrites only the weights of an existing suite from a
 *     new trace.  kj_suite_weights_load reads a manifest's task weights for
 *     weighted reports (kj_score_weigh).
 *
 * Ownership: kj_trace_load allocates a kj_trace (kj_trace_free), kj_suite_build
 * a kj_suite (kj_suite_free) that keeps no pointer into the trace.  Strings
 * returned in *out are malloc'd and freed by the caller.  Functions return 0
 * or a negative KJ_E_* code with the message in *err.
 *
 * Layer: trace.  It may use core, task and score.
 */
#ifndef KJUDGE_TRACE_H
#define KJUDGE_TRACE_H

#include <stddef.h>

#include "kjudge/err.h"
#include "kjudge/score.h"

/* One (operator, input dims, input types, phase) with its GPU time. */
struct kj_trace_agg {
	char *op;       /* "aten::mm"; "(no operator)" for kernels without one */
	char *dims;     /* compact JSON of the op's "Input Dims" */
	char *types;    /* compact JSON of its "Input type" */
	char *strides;  /* compact JSON of "Input Strides" ("null" when absent) */
	char *concrete; /* compact JSON of "Concrete Inputs" ("null" when absent) */
	char *phase;    /* "prefill", "decode", ...; "other" outside every phase,
			   "all" when the trace marks no phase */
	char *kernel;   /* the name of its first kernel */
	double us;      /* summed kernel time, microseconds */
	int kernels;
};

typedef struct kj_trace {
	char *path;
	int kernels;        /* GPU kernels (cat "kernel") */
	int cpu_ops;
	double total_us;    /* their summed duration: the trace's GPU time */
	int by_correlation; /* kernels attributed through their runtime launch */
	int by_external_id; /* ... through the External id only */
	int unattributed;   /* kernels with no operator */
	int nphases;
	char **phases;      /* phase names in order of first appearance */
	struct kj_trace_agg *agg; /* by time, largest first */
	size_t nagg;
} kj_trace;

/* Reads a trace (gzip-compressed or plain JSON).  Errors: KJ_E_IO (cannot
 * read, truncated gzip, empty file), KJ_E_PARSE (invalid JSON, with line,
 * column and byte offset; not a Chrome trace; no GPU kernels). */
int kj_trace_load(const char *path, kj_trace **out, struct kj_err *err);
void kj_trace_free(kj_trace *t);

/* ---- suites -------------------------------------------------------------- */

struct kj_suite_shape {
	char *bind;     /* "M=4 K=2048 N=5632" in the task's symbol order */
	double share;   /* of the trace's GPU time */
	double weight;  /* of the suite: the weights of all shapes sum to 1 */
	int kernels;
};

struct kj_suite_task {
	char *name;      /* "decode_linear_bf16": file name and task name */
	char *phase;
	char *op;        /* the aten operator */
	char *signature; /* declarations and statements: what the task computes */
	char *text;      /* the whole .kt file */
	double share, weight; /* sums over its shapes */
	struct kj_suite_shape *shapes; /* by share, largest first */
	int nshapes;
};

struct kj_suite_unmapped {
	char *op;
	char *reason;
	double share;
	int kernels;
};

typedef struct kj_suite {
	char *name;
	char *source;     /* the trace's file name */
	double total_us;
	int kernels;
	double min_share;
	double mapped_share;   /* covered by the suite's shapes */
	double below_share;    /* mappable but under min_share */
	double unmapped_share; /* no task: listed in unmapped */
	struct kj_suite_task *tasks; /* by share, largest first */
	int ntasks;
	int nshapes;
	struct kj_suite_unmapped *unmapped; /* per operator, by share */
	int nunmapped;
} kj_suite;

struct kj_suite_opts {
	const char *name;  /* suite name (NULL: "trace") */
	double min_share;  /* aggregates below this share of GPU time are left out */
};

/* Maps the aggregates of t to tasks.  Every generated task is parsed and
 * bound at its shapes before it is kept; one that does not load is listed
 * as unmapped with the parser's message.  Errors: KJ_E_NOMEM. */
int kj_suite_build(const kj_trace *t, const struct kj_suite_opts *o, kj_suite **out,
		   struct kj_err *err);
void kj_suite_free(kj_suite *s);

/* Writes DIR/<task>.kt for every task and DIR/suite.json.  An existing
 * manifest in DIR is an error (KJ_E_USAGE) unless force, which first removes
 * the .kt files that manifest lists. */
int kj_suite_write(const kj_suite *s, const char *dir, int force, struct kj_err *err);

/* The manifest of s (schema kjudge.suite/1) as JSON text. */
int kj_suite_manifest_json(const kj_suite *s, char **out, struct kj_err *err);

/* The summary of an import as JSON (schema kjudge.trace_import/1): figures
 * of the trace and of s, the tasks and the unmapped operators. */
int kj_suite_summary_json(const kj_trace *t, const kj_suite *s, const char *dir, char **out,
			  struct kj_err *err);

/* What a refresh did. */
struct kj_suite_refresh_info {
	int tasks, shapes;         /* in the suite */
	int shapes_found;          /* of those, present in the new trace */
	double covered_share;      /* of the new trace's GPU time, by the suite's shapes */
	int new_shapes;            /* mapped shapes of the new trace the suite lacks */
	double new_share;          /* their share */
};

/* Rewrites the weights of the suite in DIR (suite.json and the weight= of
 * each `bench` line of its .kt files; nothing else) from fresh, a suite
 * built from a new trace with min_share 0.  Shapes are matched by task
 * signature and phase, then binding; a shape absent from the new trace gets
 * weight 0 in the manifest and 1e-9 in its .kt file (weights there must be
 * > 0).  Errors: KJ_E_IO, KJ_E_PARSE (manifest), KJ_E_NOTFOUND (no shape of
 * the suite appears in the new trace), KJ_E_NOMEM. */
int kj_suite_refresh(const kj_suite *fresh, const char *dir, struct kj_suite_refresh_info *info,
		     struct kj_err *err);

/* Reads the task weights of a manifest (a suite.json file, or a folder
 * holding one) into w (kj_score_weights_release frees it).  Task names are
 * the manifest's "task" names; kj_score_weigh matches them with the last
 * path component of a run's task ids.  Errors: KJ_E_IO, KJ_E_PARSE. */
int kj_suite_weights_load(const char *path, struct kj_score_weights *w, struct kj_err *err);

#endif
