/*
 * Long rows of the float baseline's p-norm and normalize (ops_norm_rows.cu):
 * rows of len contiguous elements read as 16-byte words whatever their
 * alignment (a scalar head up to the row's first 16-byte boundary, the
 * body in words, a scalar tail), several words in flight per thread, a
 * block per row, or for normalize a cluster of blocks per row holding it in
 * shared memory.  ops_norm.cu's pnorm_rows and normalize_run call them
 * before their element kernels; the reference (double buffers) keeps those.
 * Overloads for the three float element types; nothing is allocated.
 */
#ifndef KJ_OPS_NORM_ROWS_H
#define KJ_OPS_NORM_ROWS_H

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "ops/cuda/gpu_internal.h"

/* y[r] = (sum_j |x[r, j]|^p)^(1/p) for rows of len >= 1024 (kind: a
 * kjm_pkind of table_d.h, p the exponent for KJM_PANY); in float, the
 * terms of a row added in a fixed order (deterministic).  Sets *handled to
 * 0 without launching for shorter rows; else *handled = 1 and returns 0,
 * or KJ_E_CUDA with err set when the launch failed. */
int kj_rows_pnorm(kj_gpu *g, const float *x, float *y, int64_t rows, int64_t len, int kind, float p,
		  int *handled, struct kj_err *err);
int kj_rows_pnorm(kj_gpu *g, const __half *x, __half *y, int64_t rows, int64_t len, int kind, float p,
		  int *handled, struct kj_err *err);
int kj_rows_pnorm(kj_gpu *g, const __nv_bfloat16 *x, __nv_bfloat16 *y, int64_t rows, int64_t len,
		  int kind, float p, int *handled, struct kj_err *err);

/* y[r, j] = x[r, j] / max(nrm[r], eps) (a NaN norm kept), the division in
 * float, for rows of len >= 1024 when x and y have the same alignment
 * modulo 16 bytes.  *handled and the result as kj_rows_pnorm. */
int kj_rows_div(kj_gpu *g, const float *x, float *y, const float *nrm, int64_t rows, int64_t len,
		float eps, int *handled, struct kj_err *err);
int kj_rows_div(kj_gpu *g, const __half *x, __half *y, const __half *nrm, int64_t rows, int64_t len,
		float eps, int *handled, struct kj_err *err);
int kj_rows_div(kj_gpu *g, const __nv_bfloat16 *x, __nv_bfloat16 *y, const __nv_bfloat16 *nrm,
		int64_t rows, int64_t len, float eps, int *handled, struct kj_err *err);

/* y = normalize(x) over rows of len elements in one kernel (x read once:
 * rows_normalize_k) for rows of 16 KB to 1 MB when x and y share their
 * alignment modulo 16 bytes, the device has thread-block clusters (cc >=
 * 9), a cluster fits, and KJ_NORM_CLUSTER is not 0; kind, p as
 * kj_rows_pnorm, eps the clamp of the norm.  *handled and the result as
 * kj_rows_pnorm (KJ_E_CUDA also when setting the kernel's shared memory
 * failed). */
int kj_rows_normalize(kj_gpu *g, const float *x, float *y, int64_t rows, int64_t len, int kind,
		      float p, float eps, int *handled, struct kj_err *err);
int kj_rows_normalize(kj_gpu *g, const __half *x, __half *y, int64_t rows, int64_t len, int kind,
		      float p, float eps, int *handled, struct kj_err *err);
int kj_rows_normalize(kj_gpu *g, const __nv_bfloat16 *x, __nv_bfloat16 *y, int64_t rows,
		      int64_t len, int kind, float p, float eps, int *handled, struct kj_err *err);

#endif
