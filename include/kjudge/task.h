/*
 * Tasks.  A task file (.kt) is parsed into a kj_task: its declarations
 * (inputs, params, outputs with dtypes and symbolic dims), a list of op
 * applications (nodes) lowered from single-assignment statements, and its
 * check/bench shape bindings.  Shapes are concrete only under a binding:
 * kj_plan_build() binds one shape list entry and runs shape/dtype inference,
 * giving every value its concrete shape and every node a kj_bnode the ops
 * can execute.  kj_task_load() builds the plan of every binding once, so a
 * task that loads is valid at all of its shapes.
 *
 * Ownership: kj_task_load() allocates everything the task holds;
 * kj_task_free() releases it.  A kj_plan owns its arrays; kj_plan_release().
 *
 * Layer: task.  It may use core and ops (a task names ops), nothing above.
 */
#ifndef KJUDGE_TASK_H
#define KJUDGE_TASK_H

#include <stddef.h>
#include <stdint.h>

#include "kjudge/err.h"
#include "kjudge/ops.h"
#include "kjudge/rng.h"

typedef struct kj_loc {
	int line, col;
} kj_loc;

typedef enum kj_expr_kind {
	KJ_X_INT,
	KJ_X_FLOAT,
	KJ_X_BOOL,
	KJ_X_STR,
	KJ_X_IDENT,
	KJ_X_BIN,  /* op is one of + - * / ^ (^ = **) */
	KJ_X_NEG,
	KJ_X_CALL, /* name(args), argnames[i] non-NULL for keyword args */
	KJ_X_LIST,
} kj_expr_kind;

typedef struct kj_expr {
	kj_expr_kind kind;
	kj_loc loc;
	char op;
	int64_t ival;
	double fval;
	char *name;
	int nargs;
	struct kj_expr **args;
	char **argnames;
} kj_expr;

typedef enum kj_value_kind {
	KJ_V_INPUT = 0,
	KJ_V_PARAM,
	KJ_V_OUTPUT,
	KJ_V_TEMP,
	KJ_V_CONST, /* a literal scalar operand */
} kj_value_kind;

typedef struct kj_value {
	char *name;
	kj_value_kind kind;
	kj_loc loc;
	/* declared (inputs, params, outputs) */
	kj_dtype dtype;
	int rank;
	kj_expr *dims[KJ_MAX_RANK];
	kj_dist_kind dist;
	kj_expr *dist_args[2]; /* NULL: the distribution's default */
	/* constants */
	double cval;
	kj_dtype cdtype; /* F32 for a float literal, I64 for int, BOOL */
	int assigned;    /* outputs/temps: defined by a statement */
} kj_value;

#define KJ_MAX_PARAMS (KJ_MAX_OPERANDS + KJ_MAX_ATTRS)

typedef struct kj_node {
	const kj_op *op;
	kj_loc loc;                 /* the op's call (or operator) position */
	int in[KJ_MAX_OPERANDS];    /* value index per tensor param, -1 absent */
	kj_loc in_loc[KJ_MAX_OPERANDS];
	kj_expr *attr[KJ_MAX_ATTRS]; /* per attribute param, NULL = default */
	int out;                    /* value index */
} kj_node;

typedef struct kj_binding {
	int64_t *val;   /* per dim symbol, in kj_task.syms order */
	double weight;  /* bench: weight; check: 0 */
	int bench;      /* 0 check, 1 bench (GPU), 2 bench cpu */
	kj_loc loc;
} kj_binding;

typedef struct kj_tol {
	int has_tol;
	double atol, rtol;
	int has_metric;
	double cos_min, l1_max, rmse_max; /* < 0 when not set */
} kj_tol;

typedef struct kj_task {
	char *path;     /* file it came from */
	char *id;       /* "level1/softmax" (path under tasks/ without .kt), or the path */
	char *name;     /* the `task` line: also the candidate's symbol */
	int level;
	char *category;
	char *about;
	int nvals;
	kj_value *vals;
	int nnodes;
	kj_node *nodes;
	int nsyms;
	char **syms;    /* dim symbols in order of first appearance in declarations */
	int nbind;
	kj_binding *binds;
	kj_tol tol;
	/* `tf32 allowed`: the CUDA baseline runs f32 matmuls and convolutions on
	 * TF32 tensor cores (PyTorch's cuDNN default), and the error budget is
	 * measured on that baseline; 0 (the default, or `tf32 strict`): strict
	 * f32.  Verdicts name it as baseline_math "tf32" or "strict-f32". */
	int tf32;
	int has_tf32; /* a tf32 line was given */
	/* a KernelBench problem file's task (kj_task_from_kernelbench), NULL for
	 * a .kt task: the problem's description as compact JSON (its path, init
	 * arguments, the forward's arguments with scalar values, the seed), which
	 * the reference worker and the candidate's worker read; owned */
	char *kb;
	/* owned expression pool */
	int nexprs, capexprs;
	kj_expr **exprs;
} kj_task;

/* Parses and validates text (len bytes) named `path` in messages.  Returns 0
 * with *out set (free with kj_task_free), or KJ_E_PARSE/KJ_E_TYPE with
 * err->msg "path:line:col: what was expected". */
int kj_task_parse(const char *text, size_t len, const char *path, kj_task **out,
		  struct kj_err *err);
/* Reads and parses a file. */
int kj_task_load(const char *path, kj_task **out, struct kj_err *err);
void kj_task_free(kj_task *t);

/* The task of a KernelBench problem file (docs/kernelbench.md, "KernelBench
 * problem files as tasks") from its description: the JSON line that
 * `kjudge_pyworker.py --describe PROBLEM` prints ({"ok": true, "problem":
 * path, "init": [...], "seed": S, "inputs": [{"tensor": true, "shape": [..],
 * "dtype": "float32", "min": .., "max": ..} | {"tensor": false, "value": v}],
 * "outputs": [{"shape": [..], "dtype": ..}]}).  The task has no op nodes:
 * tensor inputs x0.. (normal draws; integers drawn in the range the
 * problem's own get_inputs used), outputs y0.., one binding that is the
 * check and the bench shape (the problem's), no dim symbols, the judge's
 * tolerance by dtype, id "kernelbench/level1/19_ReLU" (the level from a
 * levelN folder in path, else "kernelbench/19_ReLU"), kb set.  Returns 0
 * with *out set (kj_task_free), or KJ_E_PARSE (not a description) /
 * KJ_E_UNSUPPORTED (a dtype or shape kjudge cannot judge) with err->msg
 * naming path and what is wrong. */
int kj_task_from_kernelbench(const char *json, const char *path, kj_task **out, struct kj_err *err);

/* Counts of declared tensors. */
int kj_task_count(const kj_task *t, kj_value_kind k);
/* The candidate's C prototype (no trailing newline); cuda selects the CUDA ABI.
 * Returns 0, or KJ_E_USAGE when it does not fit in len bytes (KJ_PROTO_MAX
 * holds any task the worker can call: 64 tensors and 32 dims of 255-character
 * names) and KJ_E_UNSUPPORTED for more than 64 tensors. */
#define KJ_PROTO_MAX 32768
int kj_task_prototype(const kj_task *t, int cuda, char *buf, size_t len);
/* Values passed to a candidate in ABI order: inputs+params (declaration
 * order) then outputs; fills idx (capacity cap) and returns the count. */
int kj_task_abi_values(const kj_task *t, int *idx, int cap);
/* "B=3 D=1000" for binding b. */
char *kj_binding_str(const kj_task *t, const kj_binding *b, char *buf, size_t len);

typedef struct kj_plan {
	const kj_task *task;
	int bind;         /* index into task->binds */
	kj_tinfo *vals;   /* per value */
	kj_bnode *nodes;  /* per node */
	kj_dist *dists;   /* per value: bound distribution (inputs/params) */
	double flops;     /* sum over nodes */
	double min_bytes; /* inputs + params + outputs bytes (compulsory traffic) */
	double op_bytes;  /* sum of per-op min bytes (unfused eager traffic) */
} kj_plan;

/* Binds binding `bind` and infers every value's shape/dtype.  Returns 0 or
 * KJ_E_TYPE with "path:line:col: message (check shape 2: B=3 D=1000)". */
int kj_plan_build(const kj_task *t, int bind, kj_plan *p, struct kj_err *err);
void kj_plan_release(kj_plan *p);

/* Evaluates integer expression e (dims, attrs) under binding values; used by
 * the plan builder.  Returns 0 or KJ_E_TYPE. */
int kj_expr_eval_int(const kj_task *t, const kj_expr *e, const int64_t *symval,
		     int64_t *out, struct kj_err *err);

#endif
