// kjudge-case: task=level2/sgd_momentum_step expect=pass
/* One SGD step with momentum in a single pass: for every element
 *   buf_new = 0.9 * buf + (g + 0.01 * p);  p_new = p - 0.01 * buf_new
 * in float, in the task's order of operations.  The eager baseline runs six
 * kernels (three scalar multiplies, two adds, one subtract) and moves 60
 * bytes per element through memory (each op reads its operands and writes
 * its result); this reads p, g and buf once and writes both outputs once, 20
 * bytes per element, so it should be ~3x faster on the memory-bound bench
 * shapes.  When every buffer is 16-byte aligned, each thread handles two
 * float4 groups per step, all loads issued before the stores, with
 * evict-first hints (nothing is read twice); the last N % 4 elements, and
 * every element of unaligned buffers, go through a scalar loop. */
#include "kjudge_cuda.h"

#define THREADS 256
#define UNROLL 2
#define TILE (THREADS * UNROLL)

static __device__ __forceinline__ void step1(float p, float g, float b, float* pn, float* bn)
{
	float nb = b * 0.9f + (g + p * 0.01f);

	*bn = nb;
	*pn = p - nb * 0.01f;
}

__global__ void __launch_bounds__(THREADS) sgd_vec(const float4* __restrict__ p, const float4* __restrict__ g,
						   const float4* __restrict__ buf, float4* __restrict__ p_new,
						   float4* __restrict__ buf_new, int64_t n4)
{
	int64_t tiles = (n4 + TILE - 1) / TILE;

	for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
		int64_t base = t * TILE + threadIdx.x;
		float4 vp[UNROLL] = {}, vg[UNROLL] = {}, vb[UNROLL] = {};

#pragma unroll
		for (int u = 0; u < UNROLL; u++) {
			int64_t i = base + u * THREADS;

			if (i < n4) {
				vp[u] = __ldcs(p + i);
				vg[u] = __ldcs(g + i);
				vb[u] = __ldcs(buf + i);
			}
		}
#pragma unroll
		for (int u = 0; u < UNROLL; u++) {
			int64_t i = base + u * THREADS;
			float4 rp, rb;

			if (i >= n4)
				continue;
			step1(vp[u].x, vg[u].x, vb[u].x, &rp.x, &rb.x);
			step1(vp[u].y, vg[u].y, vb[u].y, &rp.y, &rb.y);
			step1(vp[u].z, vg[u].z, vb[u].z, &rp.z, &rb.z);
			step1(vp[u].w, vg[u].w, vb[u].w, &rp.w, &rb.w);
			__stcs(p_new + i, rp);
			__stcs(buf_new + i, rb);
		}
	}
}

/* Elements [from, n) one at a time. */
__global__ void __launch_bounds__(THREADS) sgd_scalar(const float* __restrict__ p, const float* __restrict__ g,
						      const float* __restrict__ buf, float* __restrict__ p_new,
						      float* __restrict__ buf_new, int64_t from, int64_t n)
{
	int64_t stride = (int64_t)gridDim.x * THREADS;

	for (int64_t i = from + (int64_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride)
		step1(__ldg(p + i), __ldg(g + i), __ldg(buf + i), p_new + i, buf_new + i);
}

extern "C" void sgd_momentum_step(const float* p, const float* g, const float* buf, float* p_new, float* buf_new,
				  int64_t N, cudaStream_t stream)
{
	uintptr_t all = (uintptr_t)p | (uintptr_t)g | (uintptr_t)buf | (uintptr_t)p_new | (uintptr_t)buf_new;
	int64_t n4 = (all & 15) == 0 ? N / 4 : 0;

	if (N <= 0)
		return;
	if (n4 > 0) {
		int64_t tiles = (n4 + TILE - 1) / TILE;
		unsigned grid = (unsigned)(tiles < (1 << 20) ? tiles : (1 << 20));

		sgd_vec<<<grid, THREADS, 0, stream>>>(
			reinterpret_cast<const float4*>(p), reinterpret_cast<const float4*>(g),
			reinterpret_cast<const float4*>(buf), reinterpret_cast<float4*>(p_new),
			reinterpret_cast<float4*>(buf_new), n4);
	}
	if (n4 * 4 < N) {
		int64_t rest = N - n4 * 4, blocks = (rest + THREADS - 1) / THREADS;

		sgd_scalar<<<(unsigned)(blocks < 65535 ? blocks : 65535), THREADS, 0, stream>>>(p, g, buf, p_new,
												buf_new, n4 * 4, N);
	}
}
