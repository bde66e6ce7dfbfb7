/*
 * Inputs on the device, bit-identical to kj_gen_fill (src/core/rng.c): the
 * same rng_impl.h arithmetic, built with -fmad=false so that no product and
 * sum fuse, then stored with the rules of kj_store (dtype_dev.h).  Also the
 * type converter (kj_load then kj_store, double included) and the output
 * sentinels of the CPU track (judge.c).
 */
#include "ops/cuda/gpu_internal.h"
#include "ops/cuda/dtype_dev.h"

#include "core/rng_impl.h"

#define KJ_GEN_BLOCK 256

template <int T>
__global__ void gen_kernel(void *buf, size_t n, int kind, double a, double b, double prob,
			   double scale, uint64_t seed, uint32_t tensor_id)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	size_t stride = (size_t)gridDim.x * blockDim.x;

	for (; i < n; i += stride)
		kjd_store(T, buf, i, kj_ri_value(kind, a, b, prob, scale, seed, tensor_id, i));
}

template <int T>
static void gen_launch(kj_gpu *g, void *buf, size_t n, const kj_dist *d, double prob,
		       double scale, uint64_t seed, uint32_t tensor_id)
{
	gen_kernel<T><<<kj_grid_for(g, n, KJ_GEN_BLOCK), KJ_GEN_BLOCK, 0, g->stream>>>(
		buf, n, (int)d->kind, d->a, d->b, prob, scale, seed, tensor_id);
}

extern "C" int kj_gpu_gen(kj_gpu *g, void *dptr, kj_dtype t, size_t n, const kj_dist *d,
			  const kj_outliers *outl, uint64_t seed, uint32_t tensor_id,
			  struct kj_err *err)
{
	double prob = 0.0, scale = 1.0;

	if ((int)t < 0 || t >= KJ_DTYPE_COUNT)
		return kj_err_set(err, KJ_E_USAGE, "kj_gpu_gen: bad dtype %d", (int)t);
	if ((int)d->kind < 0 || d->kind >= KJ_DIST_COUNT)
		return kj_err_set(err, KJ_E_USAGE, "kj_gpu_gen: bad distribution %d", (int)d->kind);
	if (n == 0)
		return 0;
	/* as kj_gen_fill and kj_gen_value: outliers for float tensors only */
	if (outl && outl->prob > 0.0 && kj_dtype_is_float(t)) {
		prob = outl->prob;
		scale = outl->scale;
	}
	KJ_CUDA_CHECK(err, cudaSetDevice(g->device));
	switch (t) {
	case KJ_F32:
		gen_launch<KJ_F32>(g, dptr, n, d, prob, scale, seed, tensor_id);
		break;
	case KJ_F16:
		gen_launch<KJ_F16>(g, dptr, n, d, prob, scale, seed, tensor_id);
		break;
	case KJ_BF16:
		gen_launch<KJ_BF16>(g, dptr, n, d, prob, scale, seed, tensor_id);
		break;
	case KJ_I8:
		gen_launch<KJ_I8>(g, dptr, n, d, prob, scale, seed, tensor_id);
		break;
	case KJ_I32:
		gen_launch<KJ_I32>(g, dptr, n, d, prob, scale, seed, tensor_id);
		break;
	case KJ_I64:
		gen_launch<KJ_I64>(g, dptr, n, d, prob, scale, seed, tensor_id);
		break;
	case KJ_F8E4M3:
		gen_launch<KJ_F8E4M3>(g, dptr, n, d, prob, scale, seed, tensor_id);
		break;
	default:
		gen_launch<KJ_BOOL>(g, dptr, n, d, prob, scale, seed, tensor_id);
		break;
	}
	KJ_CUDA_CHECK(err, cudaGetLastError());
	return 0;
}

__global__ void convert_kernel(const void *src, int st, void *dst, int dt, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	size_t stride = (size_t)gridDim.x * blockDim.x;

	for (; i < n; i += stride)
		kjd_store(dt, dst, i, kjd_load(st, src, i));
}

extern "C" int kj_gpu_convert(kj_gpu *g, const void *src, kj_dtype st, void *dst, kj_dtype dt,
			      size_t n, struct kj_err *err)
{
	if ((int)st < 0 || (int)st > KJD_F64 || (int)dt < 0 || (int)dt > KJD_F64)
		return kj_err_set(err, KJ_E_USAGE, "kj_gpu_convert: bad dtype %d -> %d", (int)st,
				  (int)dt);
	if (n == 0)
		return 0;
	KJ_CUDA_CHECK(err, cudaSetDevice(g->device));
	convert_kernel<<<kj_grid_for(g, n, KJ_GEN_BLOCK), KJ_GEN_BLOCK, 0, g->stream>>>(
		src, (int)st, dst, (int)dt, n);
	KJ_CUDA_CHECK(err, cudaGetLastError());
	return 0;
}

template <typename W>
__global__ void fill_kernel(W *buf, size_t n, W v)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	size_t stride = (size_t)gridDim.x * blockDim.x;

	for (; i < n; i += stride)
		buf[i] = v;
}

template <typename W>
static void fill_launch(kj_gpu *g, void *buf, size_t n, W v)
{
	fill_kernel<W><<<kj_grid_for(g, n, KJ_GEN_BLOCK), KJ_GEN_BLOCK, 0, g->stream>>>(
		(W *)buf, n, v);
}

/* The patterns of fill_sentinel() in src/judge/judge.c: quiet NaNs with a
 * payload no arithmetic produces, and the most negative integers. */
extern "C" int kj_gpu_fill_sentinel(kj_gpu *g, void *dptr, kj_dtype t, size_t n,
				    struct kj_err *err)
{
	if ((int)t < 0 || t >= KJ_DTYPE_COUNT)
		return kj_err_set(err, KJ_E_USAGE, "kj_gpu_fill_sentinel: bad dtype %d", (int)t);
	if (n == 0)
		return 0;
	KJ_CUDA_CHECK(err, cudaSetDevice(g->device));
	switch (t) {
	case KJ_F32:
		fill_launch<uint32_t>(g, dptr, n, 0x7fc0deadu);
		break;
	case KJ_F16:
		fill_launch<uint16_t>(g, dptr, n, (uint16_t)0x7e5a);
		break;
	case KJ_BF16:
		fill_launch<uint16_t>(g, dptr, n, (uint16_t)0x7fda);
		break;
	case KJ_I8:
		KJ_CUDA_CHECK(err, cudaMemsetAsync(dptr, 0x80, n, g->stream));
		break;
	case KJ_F8E4M3: /* its one NaN pattern, as judge.c */
		KJ_CUDA_CHECK(err, cudaMemsetAsync(dptr, 0x7f, n, g->stream));
		break;
	case KJ_I32:
		fill_launch<uint32_t>(g, dptr, n, 0x80000000u);
		break;
	case KJ_I64:
		fill_launch<unsigned long long>(g, dptr, n, 0x8000000000000000ull);
		break;
	default:
		KJ_CUDA_CHECK(err, cudaMemsetAsync(dptr, 0xaa, n, g->stream));
		break;
	}
	KJ_CUDA_CHECK(err, cudaGetLastError());
	return 0;
}
