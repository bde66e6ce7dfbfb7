/*
 * Inputs for timed calls: the task's declared distribution drawn fast, not
 * bit-identical to the CPU track.  The exact generator (gen_nofma.cu) spends
 * a counter-based block and a double-double log per element, so that a
 * correctness input is the same bits on both tracks; a timed call's inputs
 * only need to be fresh, of the declared distribution, and the same for the
 * reference that checks the call (which is computed from these very
 * buffers).  Here one Philox4x32-10 block gives four elements: Box-Muller in
 * single precision (both the cosine and the sine of each pair) for normal,
 * the 32-bit words scaled for uniform and kaiming, a 32-bit multiply-shift
 * for randint.  What this path cannot draw (spd matrices, randint ranges
 * above 2^32, outliers) falls back to the exact generator.
 */
#include "ops/cuda/gpu_internal.h"
#include "ops/cuda/dtype_dev.h"

#include "core/rng_impl.h"

#define KJ_GENF_BLOCK 256

template <int T>
__global__ void genf_kernel(void *buf, size_t n, int kind, double a, double b, uint64_t seed, uint32_t tensor_id)
{
	size_t q = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	size_t stride = (size_t)gridDim.x * blockDim.x;
	size_t nq = (n + 3) / 4;
	float fa = (float)a, fb = (float)b;
	int64_t lo = kj_ri_to_i64(a), hi = kj_ri_to_i64(b);
	uint64_t range = hi > lo ? (uint64_t)hi - (uint64_t)lo : 0;

	for (; q < nq; q += stride) {
		uint32_t w[4];
		float v[4];
		/* tensor_id's top bit set: never the exact generator's stream */
		kj_ri_block(seed, tensor_id | 0x80000000u, q, w);
		if (kind == KJ_RI_NORMAL) {
			for (int p = 0; p < 2; p++) {
				float u1 = ((float)w[2 * p] + 1.0f) * 2.3283064e-10f; /* (0, 1] */
				float u2 = (float)w[2 * p + 1] * 2.3283064e-10f;
				float r = sqrtf(-2.0f * __logf(u1)), s, c;
				sincospif(2.0f * u2, &s, &c);
				v[2 * p] = fa + fb * (r * c);
				v[2 * p + 1] = fa + fb * (r * s);
			}
		} else {
			for (int k = 0; k < 4; k++) {
				float u = (float)(w[k] >> 8) * 5.9604645e-8f; /* [0, 1), 24 bits */
				switch (kind) {
				case KJ_RI_UNIFORM:
					v[k] = fa + (fb - fa) * u;
					break;
				case KJ_RI_KAIMING:
					v[k] = -fa + 2.0f * fa * u;
					break;
				case KJ_RI_RANDINT:
					v[k] = 0; /* stored below as an integer */
					break;
				case KJ_RI_ONES:
					v[k] = 1.0f;
					break;
				default:
					v[k] = 0.0f;
					break;
				}
			}
		}
		for (int k = 0; k < 4; k++) {
			size_t i = 4 * q + (size_t)k;
			if (i >= n)
				break;
			if (kind == KJ_RI_RANDINT)
				kjd_store(T, buf, i,
					  range ? (double)(int64_t)((uint64_t)lo + (((uint64_t)w[k] * range) >> 32))
						: (double)lo);
			else
				kjd_store(T, buf, i, (double)v[k]);
		}
	}
}

template <int T>
static void genf_launch(kj_gpu *g, void *buf, size_t n, const kj_dist *d, uint64_t seed, uint32_t tensor_id)
{
	genf_kernel<T><<<kj_grid_for(g, (n + 3) / 4, KJ_GENF_BLOCK), KJ_GENF_BLOCK, 0, g->stream>>>(
		buf, n, (int)d->kind, d->a, d->b, seed, tensor_id);
}

extern "C" int kj_gpu_gen_fast(kj_gpu *g, void *dptr, kj_dtype t, size_t n, const kj_dist *d, uint64_t seed,
			       uint32_t tensor_id, struct kj_err *err)
{
	int kind = (int)d->kind;
	if ((int)t < 0 || t >= KJ_DTYPE_COUNT)
		return kj_err_set(err, KJ_E_USAGE, "kj_gpu_gen_fast: bad dtype %d", (int)t);
	if (kind == KJ_RI_SPD ||
	    (kind == KJ_RI_RANDINT && kj_ri_to_i64(d->b) > kj_ri_to_i64(d->a) &&
	     (uint64_t)kj_ri_to_i64(d->b) - (uint64_t)kj_ri_to_i64(d->a) > 4294967296ull) ||
	    (kind != KJ_RI_NORMAL && kind != KJ_RI_UNIFORM && kind != KJ_RI_KAIMING && kind != KJ_RI_RANDINT &&
	     kind != KJ_RI_ONES && kind != KJ_RI_ZEROS))
		return kj_gpu_gen(g, dptr, t, n, d, NULL, seed, tensor_id, err);
	if (n == 0)
		return 0;
	KJ_CUDA_CHECK(err, cudaSetDevice(g->device));
	switch (t) {
	case KJ_F32:
		genf_launch<KJ_F32>(g, dptr, n, d, seed, tensor_id);
		break;
	case KJ_F16:
		genf_launch<KJ_F16>(g, dptr, n, d, seed, tensor_id);
		break;
	case KJ_BF16:
		genf_launch<KJ_BF16>(g, dptr, n, d, seed, tensor_id);
		break;
	case KJ_I8:
		genf_launch<KJ_I8>(g, dptr, n, d, seed, tensor_id);
		break;
	case KJ_I32:
		genf_launch<KJ_I32>(g, dptr, n, d, seed, tensor_id);
		break;
	case KJ_I64:
		genf_launch<KJ_I64>(g, dptr, n, d, seed, tensor_id);
		break;
	case KJ_F8E4M3:
		genf_launch<KJ_F8E4M3>(g, dptr, n, d, seed, tensor_id);
		break;
	default:
		genf_launch<KJ_BOOL>(g, dptr, n, d, seed, tensor_id);
		break;
	}
	KJ_CUDA_CHECK(err, cudaGetLastError());
	return 0;
}
