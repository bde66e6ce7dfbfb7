/*
 * The judge's GPU context (include/kjudge/gpu.h): device, stream, cuBLAS and
 * cuBLASLt handles, the buffers every judge needs (Lt workspace, L2 flush,
 * reduction scratch), plain allocation, copies and IPC handles.  The
 * context remembers its live allocations so that kj_gpu_close can free what
 * a failed judge left behind.
 */
#include "ops/cuda/gpu_internal.h"
#include "kjudge/knobs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KJ_WORKSPACE_BYTES ((size_t)32 << 20)
/* Per-block partial sums of kj_gpu_compare: 4224 blocks (132 SMs x 32) of
 * 80 bytes fit with room for larger parts. */
#define KJ_SCRATCH_BYTES ((size_t)1 << 20)

extern "C" int kj_gpu_available(void)
{
	int n = 0;
	if (cudaGetDeviceCount(&n) != cudaSuccess) {
		cudaGetLastError();
		return 0;
	}
	return n > 0;
}

static void fill_info(kj_gpu_info *info, int device, const cudaDeviceProp *p)
{
	const unsigned char *u = (const unsigned char *)p->uuid.bytes;
	memset(info, 0, sizeof(*info));
	snprintf(info->name, sizeof(info->name), "%.127s", p->name);
	info->device = device;
	info->cc_major = p->major;
	info->cc_minor = p->minor;
	/* sm_90a unlocks wgmma/TMA; only 9.0 has an a-variant we build for */
	if (p->major == 9 && p->minor == 0)
		snprintf(info->arch, sizeof(info->arch), "sm_90a");
	else
		snprintf(info->arch, sizeof(info->arch), "sm_%d%d", p->major, p->minor);
	info->l2_bytes = (size_t)p->l2CacheSize;
	info->mem_bytes = p->totalGlobalMem;
	info->sm_count = p->multiProcessorCount;
	snprintf(info->uuid, sizeof(info->uuid),
		 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
		 u[13], u[14], u[15]);
}

static int open_inner(kj_gpu *g, int device, struct kj_err *err)
{
	cudaDeviceProp p;
	int n = 0;

	KJ_CUDA_CHECK(err, cudaGetDeviceCount(&n));
	if (device < 0 || device >= n)
		return kj_err_set(err, KJ_E_USAGE, "no CUDA device %d (this machine has %d)", device, n);
	KJ_CUDA_CHECK(err, cudaSetDevice(device));
	KJ_CUDA_CHECK(err, cudaGetDeviceProperties(&p, device));
	fill_info(&g->info, device, &p);
	g->device = device;

	KJ_CUDA_CHECK(err, cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking));
	KJ_CUBLAS_CHECK(err, cublasCreate(&g->blas));
	KJ_CUBLAS_CHECK(err, cublasSetStream(g->blas, g->stream));
	KJ_CUBLAS_CHECK(err, cublasLtCreate(&g->lt));
	KJ_CUDA_CHECK(err, cudaMalloc(&g->workspace, KJ_WORKSPACE_BYTES));
	g->workspace_bytes = KJ_WORKSPACE_BYTES;
	/* cuBLAS and cuBLASLt share it: both run on the one stream, in order */
	KJ_CUBLAS_CHECK(err, cublasSetWorkspace(g->blas, g->workspace, g->workspace_bytes));

	g->l2buf_bytes = 2 * (g->info.l2_bytes ? g->info.l2_bytes : ((size_t)64 << 20));
	KJ_CUDA_CHECK(err, cudaMalloc(&g->l2buf, g->l2buf_bytes));
	KJ_CUDA_CHECK(err, cudaEventCreate(&g->ev0));
	KJ_CUDA_CHECK(err, cudaEventCreate(&g->ev1));
	KJ_CUDA_CHECK(err, cudaMalloc(&g->scratch, KJ_SCRATCH_BYTES));
	g->scratch_bytes = KJ_SCRATCH_BYTES;
	return 0;
}

extern "C" int kj_gpu_open(int device, kj_gpu **out, struct kj_err *err)
{
	kj_gpu *g = (kj_gpu *)calloc(1, sizeof(*g));
	int rc;

	*out = NULL;
	if (!g)
		return kj_err_set(err, KJ_E_NOMEM, "out of memory for the GPU context");
	/* a knob the kernels would read as its default (out of range, unknown)
	 * is refused here, before any baseline is timed under its name */
	if ((rc = kj_knobs_check(err))) {
		free(g);
		return rc;
	}
	if ((rc = open_inner(g, device, err))) {
		kj_err_prefix(err, "cannot open CUDA device %d", device);
		kj_gpu_close(g);
		return rc;
	}
	*out = g;
	return 0;
}

/* Frees in the reverse order of open_inner; every member may be unset. */
extern "C" void kj_gpu_close(kj_gpu *g)
{
	size_t i;

	if (!g)
		return;
	cudaSetDevice(g->device);
	if (g->on_close)
		g->on_close(g, g->on_close_ctx);
	if (g->stream)
		cudaStreamSynchronize(g->stream);
	for (i = 0; i < g->nlive; i++)
		cudaFree(g->live[i]);
	free(g->live);
	kj_cuda_dnn_release(g);
	kj_cuda_attn_release(g);
	if (g->scratch)
		cudaFree(g->scratch);
	if (g->big)
		cudaFree(g->big);
	if (g->ev1)
		cudaEventDestroy(g->ev1);
	if (g->ev0)
		cudaEventDestroy(g->ev0);
	if (g->l2buf)
		cudaFree(g->l2buf);
	if (g->blas)
		cublasDestroy(g->blas);
	if (g->lt)
		cublasLtDestroy(g->lt);
	if (g->workspace)
		cudaFree(g->workspace);
	if (g->stream)
		cudaStreamDestroy(g->stream);
	/* a sticky error from a failed kernel must not leak into the next
	 * context's first check */
	cudaGetLastError();
	free(g);
}

extern "C" const kj_gpu_info *kj_gpu_get_info(const kj_gpu *g)
{
	return g ? &g->info : NULL;
}

extern "C" void kj_gpu_on_close(kj_gpu *g, void (*fn)(kj_gpu *g, void *ctx), void *ctx)
{
	g->on_close = fn;
	g->on_close_ctx = ctx;
}

extern "C" int kj_gpu_mem_info(kj_gpu *g, size_t *free_bytes, size_t *total_bytes, struct kj_err *err)
{
	*free_bytes = *total_bytes = 0;
	KJ_CUDA_CHECK(err, cudaSetDevice(g->device));
	KJ_CUDA_CHECK(err, cudaMemGetInfo(free_bytes, total_bytes));
	return 0;
}

extern "C" int kj_gpu_alloc(kj_gpu *g, size_t bytes, void **dptr, struct kj_err *err)
{
	void *p = NULL;
	cudaError_t e;

	*dptr = NULL;
	if (g->nlive == g->live_cap) {
		size_t cap = g->live_cap ? 2 * g->live_cap : 16;
		void **nl = (void **)realloc(g->live, cap * sizeof(*nl));
		if (!nl)
			return kj_err_set(err, KJ_E_NOMEM, "out of memory");
		g->live = nl;
		g->live_cap = cap;
	}
	KJ_CUDA_CHECK(err, cudaSetDevice(g->device));
	e = cudaMalloc(&p, bytes ? bytes : 1);
	if (e != cudaSuccess) {
		cudaGetLastError();
		kj_err_set(err, KJ_E_CUDA, "cannot allocate %zu bytes on %s (device %d): %s", bytes,
			   g->info.name, g->device, cudaGetErrorName(e));
		if (err)
			err->vendor_status = (int)e;
		return KJ_E_CUDA;
	}
	g->live[g->nlive++] = p;
	*dptr = p;
	return 0;
}

/* Unknown pointers are ignored: a second free after kj_gpu_close's sweep
 * must not reach cudaFree. */
extern "C" void kj_gpu_free(kj_gpu *g, void *dptr)
{
	size_t i;

	if (!g || !dptr)
		return;
	for (i = 0; i < g->nlive; i++) {
		if (g->live[i] == dptr) {
			cudaSetDevice(g->device);
			cudaFree(dptr);
			g->live[i] = g->live[--g->nlive];
			return;
		}
	}
}

extern "C" int kj_gpu_copy_d2d_async(kj_gpu *g, void *dst, const void *src, size_t bytes, struct kj_err *err)
{
	if (bytes == 0)
		return 0;
	KJ_CUDA_CHECK(err, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, g->stream));
	return 0;
}

extern "C" int kj_gpu_copy(kj_gpu *g, void *dst, const void *src, size_t bytes, int dir,
			   struct kj_err *err)
{
	static const cudaMemcpyKind kinds[3] = {
		cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice,
	};

	if (dir < 0 || dir > 2)
		return kj_err_set(err, KJ_E_USAGE, "bad copy direction %d", dir);
	if (bytes == 0)
		return 0;
	KJ_CUDA_CHECK(err, cudaSetDevice(g->device));
	KJ_CUDA_CHECK(err, cudaMemcpyAsync(dst, src, bytes, kinds[dir], g->stream));
	KJ_CUDA_CHECK(err, cudaStreamSynchronize(g->stream));
	return 0;
}

extern "C" int kj_gpu_ipc_handle(kj_gpu *g, void *dptr, unsigned char handle[64],
				 struct kj_err *err)
{
	cudaIpcMemHandle_t h;

	static_assert(sizeof(h) == 64, "CUDA IPC handles are 64 bytes");
	KJ_CUDA_CHECK(err, cudaSetDevice(g->device));
	KJ_CUDA_CHECK(err, cudaIpcGetMemHandle(&h, dptr));
	memcpy(handle, &h, sizeof(h));
	return 0;
}

extern "C" int kj_gpu_sync(kj_gpu *g, struct kj_err *err)
{
	KJ_CUDA_CHECK(err, cudaStreamSynchronize(g->stream));
	return 0;
}

int kj_gpu_grow(kj_gpu *g, void **buf, size_t *have, size_t bytes)
{
	cudaError_t e;
	if (bytes <= *have)
		return 0;
	if (*buf) {
		/* work queued on the stream may still use the old buffer */
		if ((e = cudaStreamSynchronize(g->stream)) != cudaSuccess)
			return (int)e;
		cudaFree(*buf);
		*buf = NULL;
		*have = 0;
	}
	if (cudaMalloc(buf, bytes) != cudaSuccess) {
		(void)cudaGetLastError();
		*buf = NULL;
		return -1;
	}
	*have = bytes;
	return 0;
}

void *kj_gpu_big(kj_gpu *g, size_t bytes)
{
	return kj_gpu_grow(g, &g->big, &g->big_bytes, bytes) ? NULL : g->big;
}
