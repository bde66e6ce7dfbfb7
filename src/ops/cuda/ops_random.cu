/*
 * CUDA baseline and fp64 reference of table E's random ops
 * (src/ops/table_e.h): rand_like and randn_like (the comparisons of table
 * E are in ops_elementwise.cu).
 *
 * rand_like: one thread per Philox4x32-10 block (four consecutive output
 * elements), the block computed by table_e.h's kje_rand_block (the same
 * integer code as the CPU kernels, so the bits agree), the four uniforms
 * written with one 16-byte store (two for the reference's doubles) when the
 * block is whole and the output 16-byte aligned (vec). The values are
 * multiples of 2^-24 below 1, exact in f32 and in double, so baseline and
 * reference agree bit for bit.
 *
 * randn_like: one thread per block (four elements: two Box-Muller pairs,
 * each giving its cosine and its sine), in float with logf, sqrtf and one
 * sincospif(2 u2) per pair (2 u2 is exact), the four values written as
 * rand_like's are (the reference: log, sqrt, sincospi in double).
 * Nothing here allocates.
 */
#include "ops/cuda/ops_common.cuh"

extern "C" {
#include "ops/table_e.h"
}

/* ---- rand_like ---- */

template <class T>
__global__ void rand_like_k(T *__restrict__ y, int64_t total, uint64_t seed, uint64_t offset,
			     int vec)
{
	int64_t nblk = (total + 3) / 4, stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t b = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; b < nblk; b += stride) {
		uint32_t w[4];
		T v[4];
		int64_t e = 4 * b;
		kje_rand_block(seed, offset + (uint64_t)b, w);
#pragma unroll
		for (int k = 0; k < 4; k++)
			v[k] = (T)(w[k] >> 8) * (T)KJE_2M24;
		if (vec && e + 4 <= total) {
			if (sizeof(T) == 4) {
				*(float4 *)(void *)(y + e) = make_float4((float)v[0], (float)v[1], (float)v[2],
									 (float)v[3]);
			} else {
				double2 *p = (double2 *)(void *)(y + e);
				p[0] = make_double2((double)v[0], (double)v[1]);
				p[1] = make_double2((double)v[2], (double)v[3]);
			}
		} else {
			for (int k = 0; e + k < total; k++)
				y[e + k] = v[k];
		}
	}
}

/* ---- randn_like ---- */

__device__ __forceinline__ void kje_sincos2pi(float u, float *s, float *c)
{
	sincospif(2.0f * u, s, c);
}
__device__ __forceinline__ void kje_sincos2pi(double u, double *s, double *c)
{
	sincospi(2.0 * u, s, c);
}

/* One thread per Philox block: elements 4b .. 4b + 3, pair p giving 4b + 2p
 * (its cosine) and 4b + 2p + 1 (its sine). */
template <class T>
__global__ void randn_like_k(T *__restrict__ y, int64_t total, uint64_t seed, uint64_t offset,
			      int vec)
{
	int64_t nblk = (total + 3) / 4, stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t b = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; b < nblk; b += stride) {
		uint32_t w[4];
		T v[4];
		int64_t e = 4 * b;
		kje_rand_block(seed, offset + (uint64_t)b, w);
#pragma unroll
		for (int p = 0; p < 2; p++) {
			uint32_t m1, m2;
			T r, sn, cs;
			kje_randn_pair(w, p, &m1, &m2);
			r = m_sqrt((T)-2 * m_log((T)m1 * (T)KJE_2M24));
			kje_sincos2pi((T)m2 * (T)KJE_2M24, &sn, &cs);
			v[2 * p] = r * cs;
			v[2 * p + 1] = r * sn;
		}
		if (vec && e + 4 <= total) {
			if (sizeof(T) == 4) {
				*(float4 *)(void *)(y + e) = make_float4((float)v[0], (float)v[1], (float)v[2],
									 (float)v[3]);
			} else {
				double2 *q = (double2 *)(void *)(y + e);
				q[0] = make_double2((double)v[0], (double)v[1]);
				q[1] = make_double2((double)v[2], (double)v[3]);
			}
		} else {
			for (int k = 0; e + k < total; k++)
				y[e + k] = v[k];
		}
	}
}

/* rand_like (normal 0) or randn_like (1): f32 of the output's shape (double
 * buffers in the reference), a thread per Philox block of 4 outputs. */
static int random_run(kj_gpu *g, const kj_bnode *n, void *out, int reference, int normal,
		      struct kj_err *err)
{
	const char *name = normal ? "randn_like" : "rand_like";
	int64_t total = kjo_numel(&n->out.shape), nblk = (total + 3) / 4;
	uint64_t seed = (uint64_t)kjo_attr_i(n, KJE_RAND_SEED, 0);
	uint64_t off = (uint64_t)kjo_attr_i(n, KJE_RAND_OFFSET, 0);
	int vec = kj_aligned16(out);
	unsigned blocks;
	if (total == 0)
		return 0;
	if (n->out.dtype != KJ_F32)
		return kj_err_set(err, KJ_E_UNSUPPORTED, "%s: output dtype %s (expected f32)", name,
				  kj_dtype_name(n->out.dtype));
	blocks = kj_blocks(g, nblk, 256);
	if (normal && reference)
		randn_like_k<double><<<blocks, 256, 0, g->stream>>>((double *)out, total, seed, off, vec);
	else if (normal)
		randn_like_k<float><<<blocks, 256, 0, g->stream>>>((float *)out, total, seed, off, vec);
	else if (reference)
		rand_like_k<double><<<blocks, 256, 0, g->stream>>>((double *)out, total, seed, off, vec);
	else
		rand_like_k<float><<<blocks, 256, 0, g->stream>>>((float *)out, total, seed, off, vec);
	KJ_LAUNCH_CHECK(err, name);
	return 0;
}

int kj_cuda_rand_like(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
		      int reference, struct kj_err *err)
{
	(void)in;
	return random_run(g, n, out, reference, 0, err);
}

int kj_cuda_randn_like(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
		       int reference, struct kj_err *err)
{
	(void)in;
	return random_run(g, n, out, reference, 1, err);
}
