/*
 * The judge's GPU side (trusted): one CUDA context in the judge process that
 * generates inputs (the same Philox streams as the CPU, bit for bit), runs the
 * eager baseline (task dtypes, cuBLAS/cuBLASLt for matmuls, own kernels
 * elsewhere) and the reference (every value in double, DGEMM), compares
 * outputs on the device, and measures the device (kj_gpu_calibrate).
 *
 * Everything here is C-callable; the implementation is CUDA C++ in
 * src/ops/cuda/ and exists only when the build found nvcc (KJ_HAVE_CUDA).
 * Without it every function returns KJ_E_UNSUPPORTED and
 * kj_gpu_available() returns 0.
 *
 * Ownership: kj_gpu_open() creates the context, kj_gpu_close() frees it and
 * everything allocated through it that is still live.  Device buffers from
 * kj_gpu_alloc() are freed with kj_gpu_free().  Work is enqueued on the
 * context's own stream; functions that return host values synchronise it.
 */
#ifndef KJUDGE_GPU_H
#define KJUDGE_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "kjudge/dtype.h"
#include "kjudge/err.h"
#include "kjudge/rng.h"
#include "kjudge/task.h"

typedef struct kj_gpu kj_gpu;

typedef struct kj_gpu_info {
	char name[128];       /* "NVIDIA H200" */
	int device;
	int cc_major, cc_minor;
	char arch[16];        /* "sm_90a" on Hopper (the a-variant for 9.0), else sm_XY */
	size_t l2_bytes;
	size_t mem_bytes;
	int sm_count;
	char uuid[48];        /* "GPU-xxxxxxxx-..." (40 chars) identifies the card for baselines/calibration */
} kj_gpu_info;

/* 1 when this build has CUDA and a device is usable. */
int kj_gpu_available(void);
int kj_gpu_open(int device, kj_gpu **out, struct kj_err *err);
void kj_gpu_close(kj_gpu *g);
const kj_gpu_info *kj_gpu_get_info(const kj_gpu *g);
/* fn(g, ctx) is called by kj_gpu_close first, while the context still
 * works: for state kept beside the context (the judge's reference cache,
 * src/judge/refcache.c) to free its device buffers.  One hook per context:
 * a later call replaces it; fn NULL removes it. */
void kj_gpu_on_close(kj_gpu *g, void (*fn)(kj_gpu *g, void *ctx), void *ctx);
/* The device's free and total memory now (cudaMemGetInfo). */
int kj_gpu_mem_info(kj_gpu *g, size_t *free_bytes, size_t *total_bytes, struct kj_err *err);

int kj_gpu_alloc(kj_gpu *g, size_t bytes, void **dptr, struct kj_err *err);
void kj_gpu_free(kj_gpu *g, void *dptr);
/* dir: 0 host->device, 1 device->host, 2 device->device; synchronous. */
int kj_gpu_copy(kj_gpu *g, void *dst, const void *src, size_t bytes, int dir, struct kj_err *err);
/* A device-to-device copy enqueued on the context's stream, not waited for:
 * ordered with the work enqueued there before and after (kj_gpu_sync). */
int kj_gpu_copy_d2d_async(kj_gpu *g, void *dst, const void *src, size_t bytes, struct kj_err *err);
/* The CUDA IPC handle (64 bytes) of an allocation from kj_gpu_alloc. */
int kj_gpu_ipc_handle(kj_gpu *g, void *dptr, unsigned char handle[64], struct kj_err *err);
int kj_gpu_sync(kj_gpu *g, struct kj_err *err);

/* kj_gen_fill on the device: bit-identical to the CPU. */
int kj_gpu_gen(kj_gpu *g, void *dptr, kj_dtype t, size_t n, const kj_dist *d,
	       const kj_outliers *outl, uint64_t seed, uint32_t tensor_id, struct kj_err *err);
/* Inputs for timed calls: the declared distribution (no outliers) drawn
 * fast, not bit-identical to the CPU (src/ops/cuda/gen_fast.cu); what it
 * cannot draw goes to kj_gpu_gen.  Enqueued, not waited for. */
int kj_gpu_gen_fast(kj_gpu *g, void *dptr, kj_dtype t, size_t n, const kj_dist *d, uint64_t seed,
		    uint32_t tensor_id, struct kj_err *err);
/* Converts n elements from src (type st) to dst (type dt), kj_store rules.
 * KJ_DTYPE_COUNT as a type means double (the reference's storage). */
#define KJ_F64 KJ_DTYPE_COUNT
int kj_gpu_convert(kj_gpu *g, const void *src, kj_dtype st, void *dst, kj_dtype dt, size_t n,
		   struct kj_err *err);
/* The judge's output sentinel (NaN patterns / INT_MIN / 0xaa), as on the CPU track. */
int kj_gpu_fill_sentinel(kj_gpu *g, void *dptr, kj_dtype t, size_t n, struct kj_err *err);
/* Byte comparison; *first_diff = -1 when equal, else the first differing byte. */
int kj_gpu_equal(kj_gpu *g, const void *a, const void *b, size_t bytes, int64_t *first_diff,
		 struct kj_err *err);

/* Elementwise comparison of got (dtype t) with a double reference, with the
 * rules of the CPU track (judge.c): floats |g-r| <= atol + rtol*|r|, NaN and
 * Inf must agree; integers exact against the reference rounded to t; bool
 * bytes must be 0 or 1.  got may be double (t == KJ_F64) to measure the
 * baseline.  Sums for cosine/L1/RMSE are over finite pairs. */
typedef struct kj_gpu_cmp {
	int64_t n, nbad, first_bad;
	int64_t nfbad;              /* of nbad, float elements with a NaN/Inf disagreement */
	double expected, got;       /* at first_bad */
	double max_abs, max_rel;
	double ratio;               /* the worst |g - r| / (atol + rtol |r|) over finite float
				     * pairs (0/0 is 0, x/0 inf): the error budget's measure */
	double dot, gg, rr, l1num, l1den, sq;
} kj_gpu_cmp;
int kj_gpu_compare(kj_gpu *g, kj_dtype t, const void *got, const double *ref, size_t n,
		   double atol, double rtol, kj_gpu_cmp *out, struct kj_err *err);

/* Executors of a bound task on the GPU.  reference=0: the eager baseline,
 * each value stored in its dtype, one kernel or library call per op;
 * reference=1: every value stored as double, fp64 arithmetic (DGEMM).
 * Buffers are allocated at init; the caller fills inputs/params
 * (kj_gpu_exec_buf) and reads outputs after kj_gpu_exec_run + kj_gpu_sync. */
typedef struct kj_gpu_exec kj_gpu_exec;
int kj_gpu_exec_init(kj_gpu *g, const kj_plan *p, int reference, kj_gpu_exec **out,
		     struct kj_err *err);
void *kj_gpu_exec_buf(kj_gpu_exec *x, int value);
/* Points value (not a view of another) at ptr, a device buffer the caller
 * owns and keeps alive while x runs on it; the views of it follow.  The
 * caller puts the executor's own buffer (kj_gpu_exec_buf before) back before
 * kj_gpu_exec_free.  -1 for a view, a bad value or a NULL ptr. */
int kj_gpu_exec_rebind(kj_gpu_exec *x, int value, void *ptr);
int kj_gpu_exec_run(kj_gpu_exec *x, struct kj_err *err); /* enqueues; async */
/* Runs every node once, synchronously, with an L2 flush first when flush is
 * set, and stores each node's time in node_ms[0..nnodes-1] (CUDA events
 * between nodes; the sum is the call's time). */
int kj_gpu_exec_profile(kj_gpu_exec *x, int flush, double *node_ms, struct kj_err *err);
void kj_gpu_exec_free(kj_gpu_exec *x);
/* 1 when op `name` has a CUDA implementation. */
int kj_gpu_has_op(const char *name);
/* The route the last 16-bit (f16/bf16) sdpa run on g took: "cudnn",
 * "fused", "gemm" or "decode"; "" before any.  A static string.  For tests
 * and debugging (KJ_SDPA_PATH forces a route, docs/baseline.md). */
const char *kj_gpu_sdpa_path(const kj_gpu *g);

/* Judge-side timing of the baseline: CUDA events on the context's stream
 * around exec_run, with the L2 flushed (a write of 2x L2) before each call. */
int kj_gpu_l2_flush(kj_gpu *g, struct kj_err *err);
int kj_gpu_time_exec(kj_gpu *g, kj_gpu_exec *x, int flush, double *ms, struct kj_err *err);
/* A train of the baseline: reps calls back to back between one pair of
 * events, the L2 flushed once before; call r runs with each of the nvals
 * values vals[k] at base + r * stride + off[k] (the caller's copies of the
 * inputs, and room for the outputs: no call finds another's data in the
 * cache unless the whole train fits in it).  *ms is the train's time over
 * reps; the executor's own buffers are back in place after. */
int kj_gpu_time_train(kj_gpu *g, kj_gpu_exec *x, int reps, int nvals, const int *vals, char *base,
		      size_t stride, const uint64_t *off, double *ms, struct kj_err *err);

/* Peaks measured on random data: copy bandwidth and dense GEMM rates. */
typedef struct kj_calib {
	char uuid[48], name[128];
	double copy_gbs;       /* device-to-device copy, GB/s (read + write bytes) */
	double read_gbs;       /* read-only stream (a reduction's traffic), GB/s */
	double fp64_tflops, fp32_tflops, tf32_tflops, fp16_tflops, bf16_tflops, int8_tops, fp8_tflops;
	double seconds;        /* how long calibration took */
} kj_calib;
int kj_gpu_calibrate(kj_gpu *g, kj_calib *out, struct kj_err *err);

#endif
