// kjudge-case: task=level2/adamw_step expect=pass
/* One AdamW step (step 10, bias corrections folded into the task's
 * constants) in a single pass: for every element
 *   m_new = 0.9 * m + 0.1 * g;  v_new = 0.999 * v + g * g * 0.001
 *   p_new = 0.999 * p - m_new * 0.0153534 / (sqrt(v_new) * 10.0225 + 1e-8)
 * in float with IEEE sqrt and division (no fast-math), in the task's order
 * of operations.  The eager baseline runs fourteen kernels (scalar
 * multiplies, adds, g * g, sqrt, divide, subtract) and moves 132 bytes per
 * element through memory; this reads p, g, m and v once and writes the three
 * outputs once, 28 bytes per element, so it should be ~4.5x faster on the
 * memory-bound bench shapes.  When every buffer is 16-byte aligned, each
 * thread handles two float4 groups per step, all loads issued before the
 * stores, with evict-first hints (nothing is read twice); the last N % 4
 * elements, and every element of unaligned buffers, go through a scalar
 * loop. */
#include "kjudge_cuda.h"

#define THREADS 256
#define UNROLL 2
#define TILE (THREADS * UNROLL)

static __device__ __forceinline__ void step1(float p, float g, float m, float v, float* pn, float* mn, float* vn)
{
	float nm = m * 0.9f + g * 0.1f;
	float nv = v * 0.999f + g * g * 0.001f;

	*mn = nm;
	*vn = nv;
	*pn = p * 0.999f - nm * 0.015353399327876296f / (sqrtf(nv) * 10.022515922231536f + 1e-8f);
}

__global__ void __launch_bounds__(THREADS) adamw_vec(const float4* __restrict__ p, const float4* __restrict__ g,
						     const float4* __restrict__ m, const float4* __restrict__ v,
						     float4* __restrict__ p_new, float4* __restrict__ m_new,
						     float4* __restrict__ v_new, int64_t n4)
{
	int64_t tiles = (n4 + TILE - 1) / TILE;

	for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
		int64_t base = t * TILE + threadIdx.x;
		float4 vp[UNROLL] = {}, vg[UNROLL] = {}, vm[UNROLL] = {}, vv[UNROLL] = {};

#pragma unroll
		for (int u = 0; u < UNROLL; u++) {
			int64_t i = base + u * THREADS;

			if (i < n4) {
				vp[u] = __ldcs(p + i);
				vg[u] = __ldcs(g + i);
				vm[u] = __ldcs(m + i);
				vv[u] = __ldcs(v + i);
			}
		}
#pragma unroll
		for (int u = 0; u < UNROLL; u++) {
			int64_t i = base + u * THREADS;
			float4 rp, rm, rv;

			if (i >= n4)
				continue;
			step1(vp[u].x, vg[u].x, vm[u].x, vv[u].x, &rp.x, &rm.x, &rv.x);
			step1(vp[u].y, vg[u].y, vm[u].y, vv[u].y, &rp.y, &rm.y, &rv.y);
			step1(vp[u].z, vg[u].z, vm[u].z, vv[u].z, &rp.z, &rm.z, &rv.z);
			step1(vp[u].w, vg[u].w, vm[u].w, vv[u].w, &rp.w, &rm.w, &rv.w);
			__stcs(p_new + i, rp);
			__stcs(m_new + i, rm);
			__stcs(v_new + i, rv);
		}
	}
}

/* Elements [from, n) one at a time. */
__global__ void __launch_bounds__(THREADS) adamw_scalar(const float* __restrict__ p, const float* __restrict__ g,
							const float* __restrict__ m, const float* __restrict__ v,
							float* __restrict__ p_new, float* __restrict__ m_new,
							float* __restrict__ v_new, int64_t from, int64_t n)
{
	int64_t stride = (int64_t)gridDim.x * THREADS;

	for (int64_t i = from + (int64_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride)
		step1(__ldg(p + i), __ldg(g + i), __ldg(m + i), __ldg(v + i), p_new + i, m_new + i, v_new + i);
}

extern "C" void adamw_step(const float* p, const float* g, const float* m, const float* v, float* p_new,
			   float* m_new, float* v_new, int64_t N, cudaStream_t stream)
{
	uintptr_t all = (uintptr_t)p | (uintptr_t)g | (uintptr_t)m | (uintptr_t)v | (uintptr_t)p_new |
			(uintptr_t)m_new | (uintptr_t)v_new;
	int64_t n4 = (all & 15) == 0 ? N / 4 : 0;

	if (N <= 0)
		return;
	if (n4 > 0) {
		int64_t tiles = (n4 + TILE - 1) / TILE;
		unsigned grid = (unsigned)(tiles < (1 << 20) ? tiles : (1 << 20));

		adamw_vec<<<grid, THREADS, 0, stream>>>(
			reinterpret_cast<const float4*>(p), reinterpret_cast<const float4*>(g),
			reinterpret_cast<const float4*>(m), reinterpret_cast<const float4*>(v),
			reinterpret_cast<float4*>(p_new), reinterpret_cast<float4*>(m_new),
			reinterpret_cast<float4*>(v_new), n4);
	}
	if (n4 * 4 < N) {
		int64_t rest = N - n4 * 4, blocks = (rest + THREADS - 1) / THREADS;

		adamw_scalar<<<(unsigned)(blocks < 65535 ? blocks : 65535), THREADS, 0, stream>>>(
			p, g, m, v, p_new, m_new, v_new, n4 * 4, N);
	}
}
