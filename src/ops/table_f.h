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
 *   grid_sample(input, grid, mode="bilinear", padding_mode="zeros",
 *               align_corners=False)
 *       F.grid_sample for input [N, C, H, W] and grid [N, Ho, Wo, 2] (x
 *       along W, y along H, in [-1, 1] inside the image): out [N, C, Ho, Wo];
 *       modes "bilinear" and "nearest" (round half to even), padding
 *       "zeros", "border" and "reflection".  The coordinate arithmetic is in the kernel's
 *       own precision (double for the oracle and the reference, float for
 *       the baselines), with kjf_gs_* below.
 *
 * The helpers are static inline and marked __host__ __device__ under nvcc,
 * so the CPU kernels (src/ops/cpu/linalg2_impl.h) and the CUDA ones
 * (src/ops/cuda/ops_linalg.cu, ops_resample.cu) share them.  Nothing here
 * allocates.
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

#define KJ_OPS_F_KERNELS(X) X(linalg_solve_triangular) X(linalg_cholesky) X(interpolate) \
	X(grid_sample)

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
#define KJF_GS_MODE 0
#define KJF_GS_PAD 1
#define KJF_GS_ALIGN 2

/* interpolate modes */
enum { KJF_NEAREST = 0, KJF_BILINEAR = 1 };
/* grid_sample padding modes */
enum { KJF_PAD_ZEROS = 0, KJF_PAD_BORDER = 1, KJF_PAD_REFLECTION = 2 };

/* The padding mode of a grid_sample node (KJF_PAD_*), or -1 for an unknown
 * one. */
static inline int kjf_gs_pad(const kj_bnode *n)
{
	const char *p = kjo_attr(n, KJF_GS_PAD)->s;
	if (!strcmp(p, "zeros"))
		return KJF_PAD_ZEROS;
	if (!strcmp(p, "border"))
		return KJF_PAD_BORDER;
	if (!strcmp(p, "reflection"))
		return KJF_PAD_REFLECTION;
	return -1;
}

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

/* grid_sample: the pixel coordinate of a normalised grid value g along an
 * extent `size` (PyTorch's grid_sampler_compute_source_index: unnormalise,
 * then for "border" clip to [0, size - 1], for "reflection" reflect about
 * the image's edges (align_corners=True: the outer pixel centres, else the
 * outer pixel edges) and clip), written once per precision.  Every product
 * is rounded on its own (no fused multiply-add: the C build uses
 * -ffp-contract=off, the CUDA code __fmul_rn and friends through KJF_*), so
 * the CPU and CUDA kernels of one precision compute the same coordinate bit
 * for bit, and nearest's rounding of a tie cannot differ between them.
 * "border" and "reflection" give a value in [0, size - 1]; a NaN coordinate
 * becomes 0 there (fmax). */
#ifdef __CUDA_ARCH__
#define KJF_FADD(a, b) __fadd_rn((a), (b))
#define KJF_DMUL(a, b) __dmul_rn((a), (b))
#define KJF_DADD(a, b) __dadd_rn((a), (b))
#else
#define KJF_FADD(a, b) ((a) + (b))
#define KJF_DMUL(a, b) ((a) * (b))
#define KJF_DADD(a, b) ((a) + (b))
#endif

/* reflect_coordinates: c folded into [lo, hi] = [twice_lo / 2, twice_hi / 2]
 * by reflections at both ends (the parity of the number of spans crossed
 * picks the direction). */
KJ_HD static inline float kjf_gs_reflect_f(float c, float twice_lo, float twice_hi)
{
	float lo, span, extra, flips;
	if (twice_lo == twice_hi)
		return 0.0f;
	lo = twice_lo / 2.0f;
	span = (twice_hi - twice_lo) / 2.0f;
	c = fabsf(c - lo);
	extra = fmodf(c, span);
	flips = floorf(c / span);
	return fmodf(flips, 2.0f) == 0.0f ? extra + lo : (span - extra) + lo;
}

KJ_HD static inline double kjf_gs_reflect_d(double c, double twice_lo, double twice_hi)
{
	double lo, span, extra, flips;
	if (twice_lo == twice_hi)
		return 0.0;
	lo = twice_lo / 2.0;
	span = (twice_hi - twice_lo) / 2.0;
	c = fabs(c - lo);
	extra = fmod(c, span);
	flips = floor(c / span);
	return fmod(flips, 2.0) == 0.0 ? extra + lo : (span - extra) + lo;
}

KJ_HD static inline float kjf_gs_coord_f(float g, int64_t size, int align, int pad)
{
	float c, s = (float)size;
	if (align)
		c = KJF_FMUL(KJF_FADD(g, 1.0f) / 2.0f, s - 1.0f);
	else
		c = KJF_FADD(KJF_FMUL(KJF_FADD(g, 1.0f), s), -1.0f) / 2.0f;
	if (pad == KJF_PAD_REFLECTION)
		c = align ? kjf_gs_reflect_f(c, 0.0f, 2.0f * (s - 1.0f))
			  : kjf_gs_reflect_f(c, -1.0f, 2.0f * s - 1.0f);
	if (pad != KJF_PAD_ZEROS)
		c = fminf(fmaxf(c, 0.0f), s - 1.0f);
	return c;
}

KJ_HD static inline double kjf_gs_coord_d(double g, int64_t size, int align, int pad)
{
	double c, s = (double)size;
	if (align)
		c = KJF_DMUL(KJF_DADD(g, 1.0) / 2.0, s - 1.0);
	else
		c = KJF_DADD(KJF_DMUL(KJF_DADD(g, 1.0), s), -1.0) / 2.0;
	if (pad == KJF_PAD_REFLECTION)
		c = align ? kjf_gs_reflect_d(c, 0.0, 2.0 * (s - 1.0))
			  : kjf_gs_reflect_d(c, -1.0, 2.0 * s - 1.0);
	if (pad != KJF_PAD_ZEROS)
		c = fmin(fmax(c, 0.0), s - 1.0);
	return c;
}

/* A coordinate's floor (bilinear) or nearest pixel as an int64 without
 * overflow: a value beyond [-2, size + 1] (or NaN) is replaced by -2, whose
 * taps all lie outside the image, as are those of any such value (PyTorch
 * maps non-finite and huge coordinates to -100 likewise). */
KJ_HD static inline int kjf_gs_in_range(double c, int64_t size)
{
	return c >= -2.0 && c <= (double)size + 1.0;
}

#endif
