/*
 * Internals of the judge's GPU context, shared by the CUDA sources in
 * src/ops/cuda/ (never included from C).  One kj_gpu owns a device, a
 * non-blocking stream, cuBLAS and cuBLASLt handles with a workspace, and an
 * L2-flush buffer.  KJ_CUDA_CHECK turns a failed runtime call into a
 * struct kj_err naming the call, the CUDA error name and where.
 */
#ifndef KJ_GPU_INTERNAL_H
#define KJ_GPU_INTERNAL_H

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

extern "C" {
#include "kjudge/gpu.h"
#include "kjudge/ops.h"
}

struct kj_gpu {
	int device;
	cudaStream_t stream;
	cublasHandle_t blas;
	cublasLtHandle_t lt;
	void *workspace; /* cuBLASLt workspace */
	size_t workspace_bytes;
	void *l2buf;     /* 2x L2 bytes, written to flush the L2 */
	size_t l2buf_bytes;
	cudaEvent_t ev0, ev1;
	void *scratch;   /* small device scratch for reductions (compare, equal) */
	size_t scratch_bytes;
	kj_gpu_info info;
	void *dnn;       /* cuDNN handle, plans and scratch of ops_conv.cu, made on first
	                    use; kj_gpu_close releases it (kj_cuda_dnn_release) */
	void *attn;      /* cuDNN attention plans of ops_attn_cudnn.cu, made on first use;
	                    kj_gpu_close releases them (kj_cuda_attn_release) */
	const char *sdpa_path; /* route of the last 16-bit sdpa (static string), or NULL */
	int tf32;        /* 1 while the executor runs the baseline of a task that allows
	                    TF32 (`tf32 allowed`): f32 GEMMs and convs may use TF32 tensor
	                    cores (kj_f32_compute, ops_conv.cu); 0 otherwise: strict f32 */
	void *big;       /* an op's large scratch (kj_gpu_big), grown on demand, kept */
	size_t big_bytes;
	void **live;     /* kj_gpu_alloc buffers not yet freed: kj_gpu_close frees them */
	void (*on_close)(kj_gpu *g, void *ctx); /* kj_gpu_on_close's hook, or NULL */
	void *on_close_ctx;
	size_t nlive, live_cap;
};

/* The cuBLAS compute type of a float GEMM whose operands are of dtype dt:
 * TF32 tensor cores for f32 while g->tf32 is set (a task that allows TF32,
 * as PyTorch with torch.backends.cuda.matmul.allow_tf32 = True), else f32
 * accumulation under the default math mode (never TF32). */
#define kj_f32_compute(g, dt) \
	((g)->tf32 && (dt) == KJ_F32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F)

#define KJ_CUDA_CHECK(err, call)                                                             \
	do {                                                                                 \
		cudaError_t kj_e_ = (call);                                                  \
		if (kj_e_ != cudaSuccess) {                                                  \
			int kj_rc_ = kj_err_set((err), KJ_E_CUDA, "%s failed: %s (%s)", #call,     \
						cudaGetErrorString(kj_e_), cudaGetErrorName(kj_e_)); \
			if (err)                                                             \
				(err)->vendor_status = (int)kj_e_;                           \
			return kj_rc_;                                                       \
		}                                                                            \
	} while (0)

#define KJ_CUBLAS_CHECK(err, call)                                                           \
	do {                                                                                 \
		cublasStatus_t kj_s_ = (call);                                               \
		if (kj_s_ != CUBLAS_STATUS_SUCCESS) {                                        \
			int kj_rc_ = kj_err_set((err), KJ_E_CUDA, "%s failed: %s", #call,           \
						cublasGetStatusString(kj_s_));               \
			if (err)                                                             \
				(err)->vendor_status = (int)kj_s_;                           \
			return kj_rc_;                                                       \
		}                                                                            \
	} while (0)

/* Frees g->dnn (ops_conv.cu); a no-op when it was never made. */
void kj_cuda_dnn_release(kj_gpu *g);
/* Frees g->attn (ops_attn_cudnn.cu); a no-op when it was never made. */
void kj_cuda_attn_release(kj_gpu *g);

/* Launch geometry for n elements, grid-stride kernels. */
static inline unsigned kj_grid_for(const kj_gpu *g, size_t n, unsigned block)
{
	size_t b = (n + block - 1) / block, cap = (size_t)g->info.sm_count * 32;
	if (b == 0)
		b = 1;
	return (unsigned)(b < cap ? b : cap);
}

/* One op's CUDA implementation: in[k]/out are device buffers holding the
 * operands in their dtypes (reference = 0) or as double (reference = 1).
 * Enqueues on g->stream.  Returns 0 or KJ_E_* with err set. */
typedef int (*kj_cuda_op_fn)(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
			     int reference, struct kj_err *err);
struct kj_cuda_op {
	const char *name;
	kj_cuda_op_fn fn;
};
/* The table of CUDA ops (ops_*.cu), looked up by name by the executor. */
kj_cuda_op_fn kj_cuda_op_find(const char *name);

/* g->big of at least `bytes` (grown on demand: the first, untimed call of
 * a shape pays the cudaMalloc, later ones reuse it; freed by kj_gpu_close).
 * Returns the buffer, or NULL when the device refused the memory (the CUDA
 * error cleared, so that the caller can take a route without it). */
void *kj_gpu_big(kj_gpu *g, size_t bytes);
/* *buf (of *have bytes) grown to at least `bytes`, kept when large enough;
 * the old buffer is freed after the stream drains.  0 when done, -1 when
 * cudaMalloc refused (error cleared, *buf NULL), else the cudaError_t of
 * the stream (*buf untouched). */
int kj_gpu_grow(kj_gpu *g, void **buf, size_t *have, size_t bytes);

#endif
