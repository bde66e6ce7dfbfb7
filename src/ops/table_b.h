/*
 * The second half of the op registry: linear algebra (matmul, bmm, linear),
 * layout (transpose, permute, reshape, cast, copy), normalisation
 * (layer_norm, rms_norm) and losses (mse_loss, cross_entropy).
 *
 * kj_ops_b is a static table that registry.c concatenates with the first
 * half; nothing in it is allocated.  The kernels are written once in the
 * impl headers of src/ops/cpu/ and compiled twice (cpu64_b.c, cpu32_b.c);
 * their prototypes and the few precision-independent helpers that the shape
 * rules and the kernels share live here.
 */
#ifndef KJ_OPS_TABLE_B_H
#define KJ_OPS_TABLE_B_H

#include <string.h>

#include "kjudge/ops.h"
#include "ops/op_util.h"

extern const kj_op kj_ops_b[];
extern const int kj_ops_b_count;

#define KJ_OPS_B_KERNELS(X) \
	X(matmul) X(linear) X(transpose) X(permute) X(reshape) X(copy) \
	X(cast) X(layer_norm) X(rms_norm) X(mse_loss) X(cross_entropy)

#define KJ_OPS_B_DECL(k) \
	int kj_cpu64_##k(const kj_bnode *n, const double *const *in, double *out, \
			 char *msg, size_t msglen); \
	int kj_cpu32_##k(const kj_bnode *n, const float *const *in, float *out, \
			 char *msg, size_t msglen);
KJ_OPS_B_KERNELS(KJ_OPS_B_DECL)
#undef KJ_OPS_B_DECL

/* A dim that infer already checked, made non-negative (see kjo_norm_dim). */
static inline int kjb_norm_dim(int64_t d, int rank)
{
	int r = 0;
	kjo_norm_dim("", d, rank, &r, NULL, 0);
	return r;
}

/* An INTS attribute (or one INT) as a list; returns the count. */
static inline int kjb_ints(const kj_attr *a, const int64_t **v)
{
	if (a->kind == KJ_ATTR_INT) {
		*v = &a->i;
		return 1;
	}
	*v = a->ints;
	return a->kind == KJ_ATTR_INTS ? a->n : 0;
}

typedef enum { KJB_MEAN, KJB_SUM, KJB_NONE } kjb_reduction;

/* The reduction attribute (attr k): -1 for a string other than mean, sum,
 * none; not given means the default, "mean". */
static inline int kjb_reduction_of(const kj_bnode *n, int k)
{
	const kj_attr *a = kjo_attr(n, k);
	if (a->kind != KJ_ATTR_STR)
		return KJB_MEAN;
	if (!strcmp(a->s, "mean"))
		return KJB_MEAN;
	if (!strcmp(a->s, "sum"))
		return KJB_SUM;
	if (!strcmp(a->s, "none"))
		return KJB_NONE;
	return -1;
}

/* The machine epsilon of a float dtype (torch.finfo(dtype).eps). */
static inline double kjb_finfo_eps(kj_dtype t)
{
	if (t == KJ_F16)
		return 0.0009765625; /* 2^-10 */
	if (t == KJ_BF16)
		return 0.0078125; /* 2^-7 */
	return 1.1920928955078125e-07; /* 2^-23 */
}

/* The geometry of a (batched, broadcast) matrix product a @ b: out is
 * [bshape..., M, N] before 1-D operands drop their unit dim; batch matrix t
 * of the result reads matrix aoff(t) of a and boff(t) of b. */
typedef struct kjb_mm {
	int64_t M, K, K2, N, batch;
	int brank;
	int64_t bshape[KJ_MAX_RANK];
	int64_t astr[KJ_MAX_RANK], bstr[KJ_MAX_RANK]; /* in matrices; 0 broadcasts */
	int a1, b1; /* operand was 1-D */
	int bad_dim; /* batch dim (from the right, of bshape) that does not broadcast, or -1 */
} kjb_mm;

/* Fills g from the operand shapes; g->K != g->K2 or g->bad_dim >= 0 report
 * the two shape errors.  Both ranks must be >= 1. */
static inline void kjb_mm_geom(const kj_shape *a, const kj_shape *b, kjb_mm *g)
{
	int ra = a->rank >= 2 ? a->rank - 2 : 0, rb = b->rank >= 2 ? b->rank - 2 : 0;
	int64_t sa = 1, sb = 1;
	g->a1 = a->rank == 1;
	g->b1 = b->rank == 1;
	g->M = g->a1 ? 1 : a->d[a->rank - 2];
	g->K = a->d[a->rank - 1];
	g->K2 = g->b1 ? b->d[0] : b->d[b->rank - 2];
	g->N = g->b1 ? 1 : b->d[b->rank - 1];
	g->brank = ra > rb ? ra : rb;
	g->bad_dim = -1;
	g->batch = 1;
	for (int i = g->brank - 1; i >= 0; i--) {
		int ia = i - (g->brank - ra), ib = i - (g->brank - rb);
		int64_t da = ia >= 0 ? a->d[ia] : 1, db = ib >= 0 ? b->d[ib] : 1;
		if (da != db && da != 1 && db != 1 && g->bad_dim < 0)
			g->bad_dim = i;
		g->bshape[i] = da == 1 ? db : da;
		g->astr[i] = da == 1 ? 0 : sa;
		g->bstr[i] = db == 1 ? 0 : sb;
		sa *= da;
		sb *= db;
		g->batch *= g->bshape[i];
	}
}

#endif
