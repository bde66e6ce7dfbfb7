/*
 * The sixth op table (table F): dense linear algebra beyond GEMM and spatial
 * resampling.
 *
 *   linalg_solve_triangular(A, B, upper, left=True, unitriangular=False)
 *       torch.linalg.solve_triangular: X with A X = B (left) or X A = B
 *       (right), A triangular [..., n, n] (only the triangle named by
 *       `upper` is read), B [..., n, k] (left) or [..., k, n] (right); the
 *       batch dims of A and B are equal (no broadcasting).
 *   linalg_cholesky(A, upper=False)
 *       torch.linalg.cholesky: the lower factor L of A = L L^T with a
 *       positive diagonal (or its transpose for upper=True); only A's lower
 *       triangle is read.
 *   interpolate(input, size, mode="nearest", align_corners=False)
 *       F.interpolate for [N, C, H, W] with an output size, modes "nearest"
 *       and "bilinear"; the source coordinates follow PyTorch's f32 formulas
 *       (kjf_* below), computed in float by every kernel so that the
 *       discontinuous nearest index agrees bit for bit.
 *
 * The helpers are static inline and marked __host__ __device__ under nvcc,
 * so the CPU kernels (src/ops/cpu/linalg2_impl.h) and the CUDA ones
 * (src/ops/cuda/ops_linalg2.cu) share them.  Nothing here allocates.
 */
#ifndef KJ_OPS_TABLE_F_H
#define KJ_OPS_TABLE_F_H

#include <math.h>
#include <stdint.h>

#include "core/rng_impl.h" /* KJ_HD */
#include "kjudge/ops.h"
#include "ops/op_util.h"

extern const kj_op kj_ops_f[];
extern const int kj_ops_f_count;

#define KJ_OPS_F_KERNELS(X) X(linalg_solve_triangular) X(linalg_cholesky) X(interpolate)

#define KJ_OPS_F_DECL(k) \
	int kj_cpu64_##k(const kj_bnode *n, const double *const *in, double *out, \
			 char *msg, size_t msglen); \
	int kj_cpu32_##k(const kj_bnode *n, const float *const *in, float *out, \
			 char *msg, size_t msglen);
KJ_OPS_F_KERNELS(KJ_OPS_F_DECL)
#undef KJ_OPS_F_DECL

/* Attribute positions (non-tensor params). */
#define KJF_TRSM_UPPER 0
#define KJF_TRSM_LEFT 1
#define KJF_TRSM_UNIT 2
#define KJF_CHOL_UPPER 0
#define KJF_INTERP_SIZE 0
#define KJF_INTERP_MODE 1
#define KJF_INTERP_ALIGN 2

/* interpolate modes */
enum { KJF_NEAREST = 0, KJF_BILINEAR = 1 };

/* The geometry of a solve: batch matrices, A n x n, B and X rows x cols. */
typedef struct kjf_trsm_geom {
	int64_t batch, n, k;
	int upper, left, unit;
} kjf_trsm_geom;

static inline void kjf_trsm_geom_of(const kj_bnode *n, kjf_trsm_geom *g)
{
	const kj_shape *a = &n->in[0].shape, *b = &n->in[1].shape;
	g->n = a->d[a->rank - 1];
	/* with n = 0 every matrix is empty: batch 1 keeps the loops trivial */
	g->batch = g->n ? kjo_numel(a) / (g->n * g->n) : 1;
	g->upper = (int)kjo_attr_i(n, KJF_TRSM_UPPER, 0) != 0;
	g->left = (int)kjo_attr_i(n, KJF_TRSM_LEFT, 1) != 0;
	g->unit = (int)kjo_attr_i(n, KJF_TRSM_UNIT, 0) != 0;
	g->k = g->left ? b->d[b->rank - 1] : b->d[b->rank - 2];
}

/* A float product rounded on its own, never fused into a following add (the
 * C build uses -ffp-contract=off; nvcc would contract without __fmul_rn). */
#ifdef __CUDA_ARCH__
#define KJF_FMUL(a, b) __fmul_rn((a), (b))
#else
#define KJF_FMUL(a, b) ((a) * (b))
#endif

/* interpolate: PyTorch's scale of one dim, in float (area_pixel_compute_scale
 * without scale_factor). */
KJ_HD static inline float kjf_scale(int64_t in, int64_t out, int align_corners)
{
	if (align_corners)
		return out > 1 ? (float)(in - 1) / (float)(out - 1) : 0.0f;
	return (float)in / (float)out;
}

/* nearest: min(floor(dst * scale), in - 1) in float, as PyTorch's
 * nearest_idx (its exact shortcuts for out == in and out == 2 in give the
 * same index). */
KJ_HD static inline int64_t kjf_nearest(int64_t dst, float scale, int64_t in)
{
	int64_t s = (int64_t)floorf(KJF_FMUL((float)dst, scale));
	return s < in - 1 ? s : in - 1;
}

/* bilinear: the source coordinate (area_pixel_compute_source_index, linear),
 * then the lower tap i0, the step to the upper tap (0 at the last row) and
 * the weight of the upper tap, all in float. */
KJ_HD static inline void kjf_linear_src(int64_t dst, float scale, int64_t in, int align_corners,
					int64_t *i0, int64_t *step, float *lambda)
{
	float src;
	if (align_corners) {
		src = KJF_FMUL(scale, (float)dst);
	} else {
		src = KJF_FMUL(scale, (float)dst + 0.5f) - 0.5f;
		if (src < 0.0f)
			src = 0.0f;
	}
	*i0 = (int64_t)src;
	*step = *i0 < in - 1 ? 1 : 0;
	*lambda = src - (float)*i0;
}

#endif
