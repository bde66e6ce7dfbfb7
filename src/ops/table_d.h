/*
 * The fourth op table (table D): attention (sdpa), indexing and layout
 * (embedding, cat, narrow, pad, flip, where, masked_fill, triu, tril), the
 * scan cumprod, normalisations with channel statistics (batch_norm,
 * group_norm, instance_norm), norms (norm, normalize, cosine_similarity)
 * and losses (kl_div, hinge_embedding_loss, huber_loss, smooth_l1_loss,
 * triplet_margin_loss).
 *
 * kj_ops_d is a static table that registry.c concatenates with the others;
 * nothing in it is allocated.  The CPU kernels are written once in
 * src/ops/cpu/misc_impl.h and compiled twice (cpu64_d.c, cpu32_d.c); the
 * CUDA ones are in src/ops/cuda/ by family (ops_attn.cu, ops_index.cu,
 * ops_scan.cu, ops_norm.cu, ops_loss.cu).  Their prototypes and the
 * precision-independent helpers that the shape rules, the CPU kernels and
 * the CUDA kernels share live here (static inline, no allocation).
 */
#ifndef KJ_OPS_TABLE_D_H
#define KJ_OPS_TABLE_D_H

#include <math.h>
#include <string.h>

#include "kjudge/ops.h"
#include "ops/op_util.h"

extern const kj_op kj_ops_d[];
extern const int kj_ops_d_count;

#define KJ_OPS_D_KERNELS(X) \
	X(sdpa) X(embedding) X(cat) X(narrow) X(pad) X(flip) X(where) X(masked_fill) \
	X(triu) X(tril) X(cumprod) X(batch_norm) X(group_norm) X(instance_norm) X(norm) \
	X(normalize) X(cosine_similarity) X(kl_div) X(hinge_embedding_loss) X(huber_loss) \
	X(smooth_l1_loss) X(triplet_margin_loss)

#define KJ_OPS_D_DECL(k) \
	int kj_cpu64_##k(const kj_bnode *n, const double *const *in, double *out, \
			 char *msg, size_t msglen); \
	int kj_cpu32_##k(const kj_bnode *n, const float *const *in, float *out, \
			 char *msg, size_t msglen);
KJ_OPS_D_KERNELS(KJ_OPS_D_DECL)
#undef KJ_OPS_D_DECL

/* Reductions of the losses (attr "reduction"); batchmean only for kl_div. */
typedef enum { KJM_MEAN, KJM_SUM, KJM_NONE, KJM_BATCHMEAN } kjm_reduction;

/* The reduction attribute (attr k): -1 for an unknown string; "batchmean"
 * only when `batchmean` is allowed. */
static inline int kjm_reduction_of(const kj_bnode *n, int k, int batchmean)
{
	const kj_attr *a = kjo_attr(n, k);
	if (a->kind != KJ_ATTR_STR || !strcmp(a->s, "mean"))
		return KJM_MEAN;
	if (!strcmp(a->s, "sum"))
		return KJM_SUM;
	if (!strcmp(a->s, "none"))
		return KJM_NONE;
	if (batchmean && !strcmp(a->s, "batchmean"))
		return KJM_BATCHMEAN;
	return -1;
}

/* A dim that infer already checked, made non-negative. */
static inline int kjm_dim(int64_t d, int rank)
{
	int r = 0;
	kjo_norm_dim("", d, rank, &r, NULL, 0);
	return r;
}

/* An INTS attribute (or one INT) as a list; returns the count. */
static inline int kjm_ints(const kj_attr *a, const int64_t **v)
{
	if (a->kind == KJ_ATTR_INT) {
		*v = &a->i;
		return 1;
	}
	*v = a->ints;
	return a->kind == KJ_ATTR_INTS ? a->n : 0;
}

/* ---- sdpa ---- */

/* The geometry of sdpa(q [..., L, E], k [..., S, E], v [..., S, Ev]). */
typedef struct kjm_attn {
	int64_t batch, L, S, E, Ev;
	int causal;
	double scale;
} kjm_attn;

/* attrs: 0 causal, 1 scale (None: 1/sqrt(E)). */
static inline void kjm_attn_geom(const kj_bnode *n, kjm_attn *g)
{
	const kj_shape *q = &n->in[0].shape, *v = &n->in[2].shape;
	int r = q->rank;
	g->batch = 1;
	for (int i = 0; i < r - 2; i++)
		g->batch *= q->d[i];
	g->L = q->d[r - 2];
	g->E = q->d[r - 1];
	g->S = n->in[1].shape.d[r - 2];
	g->Ev = v->d[r - 1];
	g->causal = (int)kjo_attr_i(n, 0, 0);
	g->scale = kjo_attr_given(n, 1) ? kjo_attr_f(n, 1, 1.0) : 1.0 / sqrt((double)g->E);
}

/* Keys row i attends to: all S, or j <= i under the causal mask (the
 * top-left aligned lower triangle, torch.tril(ones(L, S))). */
static inline int64_t kjm_attn_keys(const kjm_attn *g, int64_t i)
{
	if (!g->causal)
		return g->S;
	return i + 1 < g->S ? i + 1 : g->S;
}

/* ---- N-d helpers for the layout ops ---- */

/* cat's dim and the concatenated extent. */
static inline int kjm_cat_dim(const kj_bnode *n)
{
	return kjm_dim(kjo_attr_i(n, 0, 0), n->in[0].shape.rank);
}

/* narrow's (dim, start, length), start made non-negative. */
static inline void kjm_narrow(const kj_bnode *n, int *dim, int64_t *start, int64_t *length)
{
	const kj_shape *s = &n->in[0].shape;
	*dim = kjm_dim(kjo_attr_i(n, 0, 0), s->rank);
	*start = kjo_attr_i(n, 1, 0);
	if (*start < 0)
		*start += s->d[*dim];
	*length = kjo_attr_i(n, 2, 0);
}

/* pad: lo[i]/hi[i] added before/after dim i (negative crops). */
static inline void kjm_pad(const kj_bnode *n, int64_t lo[KJ_MAX_RANK], int64_t hi[KJ_MAX_RANK])
{
	const int64_t *p;
	int k = kjm_ints(kjo_attr(n, 0), &p), r = n->in[0].shape.rank;
	for (int i = 0; i < KJ_MAX_RANK; i++)
		lo[i] = hi[i] = 0;
	for (int j = 0; j + 1 < k; j += 2) {
		lo[r - 1 - j / 2] = p[j];
		hi[r - 1 - j / 2] = p[j + 1];
	}
}

/* flip: mask of the flipped dims. */
static inline unsigned kjm_flip_mask(const kj_bnode *n)
{
	const int64_t *d;
	int k = kjm_ints(kjo_attr(n, 0), &d), r = n->in[0].shape.rank;
	unsigned m = 0;
	for (int i = 0; i < k; i++)
		m |= 1u << kjm_dim(d[i], r);
	return m;
}

/* ---- channel normalisations ---- */

/* x [N, C, *]: N, C and the spatial size (1 for a 2-D input). */
static inline void kjm_nc(const kj_shape *s, int64_t *N, int64_t *C, int64_t *inner)
{
	*N = s->d[0];
	*C = s->rank > 1 ? s->d[1] : 1;
	*inner = 1;
	for (int i = 2; i < s->rank; i++)
		*inner *= s->d[i];
}

/* ---- norms and losses ---- */

/* The reduced dim of norm/cosine_similarity (-1 for every element). */
static inline int kjm_red_dim(const kj_bnode *n, int k)
{
	if (!kjo_attr_given(n, k))
		return -1;
	return kjm_dim(kjo_attr_i(n, k, 0), n->in[0].shape.rank);
}

/* |x|^p summed, then ^(1/p): how each term and the result are formed, with
 * p = 1 and p = 2 exact special cases (abs, square/sqrt) as PyTorch has. */
typedef enum { KJM_P1, KJM_P2, KJM_PANY } kjm_pkind;

static inline kjm_pkind kjm_pkind_of(double p)
{
	if (p == 1.0)
		return KJM_P1;
	if (p == 2.0)
		return KJM_P2;
	return KJM_PANY;
}

#endif
