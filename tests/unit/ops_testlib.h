/*
 * Helpers shared by the op-table unit tests (test_ops_a.c .. test_ops_d.c):
 * building a kj_bnode by hand (op lookup, operands, attributes), running
 * the shape rule and the fp64 oracle with the message captured in `msg`,
 * comparing results, and measuring how far the f32 baseline (cpu32) is from
 * the oracle (cpu64).  Header-only like tap.h (which it includes); nothing
 * here keeps memory past a call.
 */
#ifndef KJ_OPS_TESTLIB_H
#define KJ_OPS_TESTLIB_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kjudge/ops.h"
#include "ops/op_util.h"
#include "tap.h"

#define KJT_MSGLEN 512

/* The last message of infer/cpu64/cpu32.  A pointer, not the array: tap.h's
 * is_str() tests its argument for NULL. */
static char kjt_msgbuf[KJT_MSGLEN];
__attribute__((unused)) static char *msg = kjt_msgbuf;

static inline const char *got(void)
{
	return msg;
}

/* The op called `name` in table tab[0..cnt), or NULL. */
static inline const kj_op *kjt_find(const kj_op *tab, int cnt, const char *name)
{
	for (int i = 0; i < cnt; i++)
		if (strcmp(tab[i].name, name) == 0)
			return &tab[i];
	return NULL;
}

/* Resets n to a node of op (may be NULL: then no operands) with the first
 * `ntensors` of its tensor params present, the rest absent. */
static inline void kjt_node(kj_bnode *n, const kj_op *op, int ntensors)
{
	memset(n, 0, sizeof *n);
	n->op = op;
	for (int p = 0; op && p < op->nparams; p++)
		if (op->params[p].kind == KJ_ATTR_TENSOR) {
			n->present[n->nin] = n->nin < ntensors;
			n->nin++;
		}
}

/* Operand k: dtype and shape d[0..rank). */
static inline void tin(kj_bnode *n, int k, kj_dtype dt, int rank, const int64_t *d)
{
	n->in[k].dtype = dt;
	n->in[k].shape.rank = rank;
	for (int i = 0; i < rank; i++)
		n->in[k].shape.d[i] = d[i];
}

static inline void attr_i(kj_bnode *n, int k, int64_t v)
{
	n->attr[k].kind = KJ_ATTR_INT;
	n->attr[k].i = v;
}

static inline void attr_b(kj_bnode *n, int k, int v)
{
	n->attr[k].kind = KJ_ATTR_BOOL;
	n->attr[k].i = v;
}

static inline void attr_f(kj_bnode *n, int k, double v)
{
	n->attr[k].kind = KJ_ATTR_FLOAT;
	n->attr[k].f = v;
}

static inline void attr_s(kj_bnode *n, int k, const char *s)
{
	n->attr[k].kind = KJ_ATTR_STR;
	snprintf(n->attr[k].s, sizeof n->attr[k].s, "%s", s);
}

static inline void attr_ints(kj_bnode *n, int k, int cnt, const int64_t *v)
{
	n->attr[k].kind = KJ_ATTR_INTS;
	n->attr[k].n = cnt;
	for (int i = 0; i < cnt; i++)
		n->attr[k].ints[i] = v[i];
}

/* The shape rule; 0, or -1 with msg set. */
static inline int infer(kj_bnode *n)
{
	msg[0] = '\0';
	return n->op->infer(n, msg, KJT_MSGLEN);
}

/* infer, then the oracle; -1 from either with msg set. */
static inline int run64(kj_bnode *n, const double *const *in, double *out)
{
	if (infer(n))
		return -1;
	return n->op->cpu64(n, in, out, msg, KJT_MSGLEN);
}

static inline int shape_is(const kj_tinfo *t, int rank, const int64_t *d)
{
	if (t->shape.rank != rank)
		return 0;
	for (int i = 0; i < rank; i++)
		if (t->shape.d[i] != d[i])
			return 0;
	return 1;
}

/* 1 if every g[i] is near(want[i], tol); else 0, after a diagnostic line
 * naming the first element that is not. */
static inline int all_near(const double *g, const double *want, int cnt, double tol)
{
	for (int i = 0; i < cnt; i++)
		if (!near(g[i], want[i], tol)) {
			printf("#   [%d] got %.17g, want %.17g\n", i, g[i], want[i]);
			return 0;
		}
	return 1;
}

/* Runs the shape rule, then both kernels on in[k] (cnt[k] doubles, given
 * to cpu32 converted to float; a NULL in[k] stays NULL) and returns the
 * largest |f32 - f64| / (1 + |f64|): INFINITY if anything fails or a NaN
 * turns up. */
static inline double kjt_worst(kj_bnode *n, const double *const *in, int nin,
			       const int64_t *cnt)
{
	int64_t m;
	double *o64, worst = 0;
	float *o32, *f[KJ_MAX_OPERANDS] = {0};
	const float *fc[KJ_MAX_OPERANDS] = {0};
	if (infer(n))
		return INFINITY;
	m = kjo_numel(&n->out.shape);
	o64 = calloc((size_t)m + 1, sizeof *o64);
	o32 = calloc((size_t)m + 1, sizeof *o32);
	for (int k = 0; k < nin; k++) {
		if (!in[k])
			continue;
		f[k] = calloc((size_t)cnt[k] + 1, sizeof(float));
		for (int64_t i = 0; i < cnt[k]; i++)
			f[k][i] = (float)in[k][i];
		fc[k] = f[k];
	}
	if (n->op->cpu64(n, in, o64, msg, KJT_MSGLEN) ||
	    n->op->cpu32(n, fc, o32, msg, KJT_MSGLEN))
		worst = INFINITY;
	for (int64_t i = 0; i < m && worst < INFINITY; i++) {
		double e = fabs((double)o32[i] - o64[i]) / (1 + fabs(o64[i]));
		if (!(e <= worst))
			worst = isnan(e) ? INFINITY : e;
	}
	for (int k = 0; k < nin; k++)
		free(f[k]);
	free(o64);
	free(o32);
	return worst;
}

#endif
