/*
 * cuDNN's fused attention for the 16-bit eager baseline's sdpa
 * (ops_attn_cudnn.cu), and the choice between it and the own fused kernel
 * of ops_attn.cu.  Only for the CUDA sources in src/ops/cuda/.
 *
 * The plans live in g->attn (made on first use, freed by
 * kj_cuda_attn_release from kj_gpu_close).  g->sdpa_path names the route
 * the last 16-bit sdpa of g took (kj_gpu_sdpa_path).
 */
#ifndef KJ_OPS_ATTN_CUDNN_H
#define KJ_OPS_ATTN_CUDNN_H

#include "ops/cuda/gpu_internal.h"

extern "C" {
#include "ops/table_d.h"
}

/* KJ_SDPA_PATH in the environment: unset (or anything else) lets the
 * baseline choose; "cudnn", "fused" or "gemm" forces that route where it
 * applies (cuDNN where it takes the shape, the fused kernel where
 * fa_supported, the GEMM path always), the decode kernel included.
 * KJ_SDPA_DEBUG=1 prints one stderr line per shape when its route is
 * decided (cuDNN's refusal and why, or both timings). */
enum { KJ_SDPA_AUTO = 0, KJ_SDPA_FORCE_CUDNN, KJ_SDPA_FORCE_FUSED, KJ_SDPA_FORCE_GEMM };
int kj_sdpa_path_forced(void);

/* o = sdpa(q, k, v) through a cuDNN fused-attention plan: q [batch, L, E],
 * k and v [batch, S, E], o [batch, L, E], contiguous, dtype dt (f16 or
 * bf16), E == Ev, E % 8 == 0, E <= 128, causal top-left or none, scale
 * a->scale.  The plan of the shape is built on its first call and cached in
 * g->attn; a shape that cuDNN refuses (graph, heuristics or plan) is
 * remembered and never retried.  *handled = 1 when it enqueued the op on
 * g->stream; *handled = 0 (and 0 returned) when cuDNN does not serve the
 * shape, so the caller takes another route.  Returns KJ_E_* with err set
 * only for CUDA failures (the stream may then be unusable).  Prints nothing
 * unless KJ_SDPA_DEBUG is set. */
int kj_sdpa_cudnn(kj_gpu *g, kj_dtype dt, const kjm_attn *a, const void *const *in, void *out,
		  int *handled, struct kj_err *err);

/* The own fused kernel of ops_attn.cu for a shape it serves. */
typedef int (*kj_sdpa_fused_fn)(kj_gpu *g, const kjm_attn *a, const void *const *in, void *out,
				struct kj_err *err);

/* The 16-bit sdpa's choice for a shape that cuDNN serves: with KJ_SDPA_PATH
 * =cudnn, cuDNN; else on the shape's first call both cuDNN and fused (the
 * own kernel for the shape, named fused_name: "fused" or "decode"; when not
 * NULL) are timed with events on g->stream (a warm-up, then the median of 3
 * runs each) and the faster is kept for the shape's later calls; without
 * fused, cuDNN.  Enqueues the op (*handled = 1, g->sdpa_path set) or does
 * nothing (*handled = 0) when cuDNN does not serve the shape.  Returns 0 or
 * KJ_E_* with err set. */
int kj_sdpa_cudnn_pick(kj_gpu *g, kj_dtype dt, const kjm_attn *a, const void *const *in, void *out,
		       kj_sdpa_fused_fn fused, const char *fused_name, int *handled, struct kj_err *err);

#endif
