/*
 * The op registry.  One table holds every op of the task language: its
 * signature (tensor operands and named attributes, PyTorch's names and order),
 * its shape/dtype rule, its cost rule (FLOPs and minimum bytes), a one-line
 * statement of its semantics for prompts, and two CPU implementations compiled
 * from one source: the fp64 oracle (the truth, plain loops, every intermediate
 * in double) and the f32 eager baseline of the CPU track.
 *
 * Ops see only bound nodes (kj_bnode): concrete shapes and attribute values of
 * one shape binding of a task; they never see the parser's expressions.
 * Tensors given to an op are dense, row-major, contiguous.
 *
 * Layer: ops (ops.h knobs.h exec.h gpu.h).  It may use core and task (the
 * executors run a task's plan; task and ops use each other), nothing above.
 */
#ifndef KJUDGE_OPS_H
#define KJUDGE_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "kjudge/dtype.h"

#define KJ_MAX_RANK 8
#define KJ_MAX_OPERANDS 6
#define KJ_MAX_ATTRS 8

typedef struct kj_shape {
	int rank;
	int64_t d[KJ_MAX_RANK];
} kj_shape;

int64_t kj_shape_numel(const kj_shape *s); /* 1 for rank 0 */
int kj_shape_eq(const kj_shape *a, const kj_shape *b);
/* "[3, 1000]" into buf; returns buf */
char *kj_shape_str(const kj_shape *s, char *buf, size_t len);

/* What an op knows of one operand or result during inference.  label[i] is
 * the dim symbol the extent came from ("K"), or NULL: messages say "K=64". */
typedef struct kj_tinfo {
	kj_dtype dtype;
	int weak; /* a literal scalar: does not promote a tensor's dtype (PyTorch) */
	kj_shape shape;
	const char *label[KJ_MAX_RANK];
} kj_tinfo;

/* "K=64" or "64" for dim i of t, into buf; returns buf. */
char *kj_dim_str(const kj_tinfo *t, int i, char *buf, size_t len);

typedef enum kj_attr_kind {
	KJ_ATTR_NONE = 0, /* not given (optional attribute without default) */
	KJ_ATTR_INT,
	KJ_ATTR_FLOAT, /* accepts an int literal too */
	KJ_ATTR_BOOL,
	KJ_ATTR_INTS, /* a list of ints, or one int */
	KJ_ATTR_DTYPE,
	KJ_ATTR_STR,
	KJ_ATTR_TENSOR, /* only in signatures: a tensor operand */
} kj_attr_kind;

typedef struct kj_attr {
	kj_attr_kind kind;
	int64_t i;   /* INT, BOOL */
	double f;    /* FLOAT */
	int n;       /* INTS: count */
	int64_t ints[KJ_MAX_RANK];
	kj_dtype dt; /* DTYPE */
	char s[16];  /* STR */
	/* INTS: the dim symbol entry i came from ("B" in [B, 7]) or NULL, so
	 * that messages and results keep labels */
	const char *label[KJ_MAX_RANK];
} kj_attr;

/* One parameter of an op's signature.  An op's params are listed in
 * PyTorch's positional order, tensors and attributes mixed (layer_norm:
 * input, normalized_shape, weight, bias, eps); optional tensors (bias) may be
 * absent. */
typedef struct kj_param {
	const char *name;
	kj_attr_kind kind;
	int required;
	kj_attr def; /* default when not required; kind NONE = "None" */
} kj_param;

struct kj_op;

/* One application of an op under one shape binding. */
typedef struct kj_bnode {
	const struct kj_op *op;
	int nin;                     /* number of tensor params of the op */
	int present[KJ_MAX_OPERANDS]; /* 0 for an absent optional tensor */
	kj_tinfo in[KJ_MAX_OPERANDS]; /* the tensor params, in signature order */
	kj_attr attr[KJ_MAX_ATTRS];  /* the non-tensor params, in signature order
	                                (kind NONE when optional and not given) */
	kj_tinfo out;
} kj_bnode;

typedef struct kj_cost {
	double flops;     /* floating/integer operations, conventions in docs/ops.md */
	double min_bytes; /* bytes an ideal implementation must move: inputs + output */
} kj_cost;

/* CPU implementation: in[k] is operand k's data (NULL if absent), out the
 * result.  Returns 0 or -1 with a message in msg (only for data-dependent
 * failures such as an out-of-range target index). */
typedef int (*kj_cpu64_fn)(const kj_bnode *n, const double *const *in, double *out,
			    char *msg, size_t msglen);
typedef int (*kj_cpu32_fn)(const kj_bnode *n, const float *const *in, float *out,
			    char *msg, size_t msglen);

typedef struct kj_op {
	const char *name;
	const char *doc;    /* one line of semantics for prompts */
	int nparams;
	const kj_param *params; /* PyTorch's positional order */
	/* Shape/dtype rule: fills n->out from n->in and n->attr; returns 0, or -1
	 * with msg such as "matmul: inner dims K=64 and 32 differ". */
	int (*infer)(kj_bnode *n, char *msg, size_t msglen);
	void (*cost)(const kj_bnode *n, kj_cost *c);
	kj_cpu64_fn cpu64;
	kj_cpu32_fn cpu32;
	const char *notes; /* where semantics differ from PyTorch, or NULL */
} kj_op;

const kj_op *kj_op_find(const char *name);
/* The whole table, for listing and tests; *n gets its length. */
const kj_op *kj_op_table(int *n);
/* Index of attribute param `name` among the op's non-tensor params, or -1. */
int kj_op_attr_index(const kj_op *op, const char *name);
int kj_op_ntensor_params(const kj_op *op);

/* Infix operators of the language map to these op names. */
#define KJ_OP_ADD "add"
#define KJ_OP_SUB "sub"
#define KJ_OP_MUL "mul"
#define KJ_OP_DIV "div"
#define KJ_OP_NEG "neg"
#define KJ_OP_POW "pow"
#define KJ_OP_COPY "copy" /* y = x */

/* Binary-op helpers shared by the registry and the CUDA baseline. */
int kj_broadcast(const kj_tinfo *a, const kj_tinfo *b, kj_tinfo *out,
		 const char *opname, char *msg, size_t msglen);
kj_dtype kj_promote(const kj_tinfo *a, const kj_tinfo *b);

#endif
