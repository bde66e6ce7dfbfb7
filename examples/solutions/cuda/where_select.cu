// kjudge-case: task=level1/where_select expect=pass
/* y = m ? a : b over B*N elements of one shape, as one flat map.  When m is
 * 4-byte and a, b, y are 16-byte aligned, every thread handles four groups
 * of four elements per step (one 32-bit word of m, one float4 of a and of b),
 * all loads issued before the stores; the last B*N % 4 elements, and every
 * element of unaligned buffers, go through a scalar loop.  All streams use
 * evict-first hints (__ldcs/__stcs): nothing is read twice.  Both a and b
 * are loaded whole: with a random mask nearly every 32-byte sector of both
 * is needed anyway, so skipping the unselected operand saves no DRAM
 * traffic.  The eager baseline is one where kernel of 4-byte words and
 * 1-byte mask loads with per-row broadcast offsets; the bytes are the same
 * (13 per element), so the gain is only from 16-byte accesses and more
 * loads in flight: expect ~1.05-1.2x, not more. */
#include "kjudge_cuda.h"

#define THREADS 256
#define UNROLL 4

static __device__ __forceinline__ float4 sel4(uint32_t m, float4 a, float4 b)
{
	float4 r;

	/* bool bytes are 0 or 1; any nonzero byte is true */
	r.x = (m & 0x000000ffu) ? a.x : b.x;
	r.y = (m & 0x0000ff00u) ? a.y : b.y;
	r.z = (m & 0x00ff0000u) ? a.z : b.z;
	r.w = (m & 0xff000000u) ? a.w : b.w;
	return r;
}

/* Groups of four elements [0, n4): block-stride over tiles of
 * THREADS * UNROLL groups. */
__global__ void __launch_bounds__(THREADS) where_vec(const uint32_t* __restrict__ m, const float4* __restrict__ a,
						     const float4* __restrict__ b, float4* __restrict__ y, int64_t n4)
{
	int64_t tiles = (n4 + THREADS * UNROLL - 1) / (THREADS * UNROLL);

	for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
		int64_t base = t * (THREADS * UNROLL) + threadIdx.x;
		uint32_t mm[UNROLL] = {};
		float4 va[UNROLL] = {}, vb[UNROLL] = {};

#pragma unroll
		for (int u = 0; u < UNROLL; u++) {
			int64_t i = base + u * THREADS;

			if (i < n4) {
				mm[u] = __ldcs(m + i);
				va[u] = __ldcs(a + i);
				vb[u] = __ldcs(b + i);
			}
		}
#pragma unroll
		for (int u = 0; u < UNROLL; u++) {
			int64_t i = base + u * THREADS;

			if (i < n4)
				__stcs(y + i, sel4(mm[u], va[u], vb[u]));
		}
	}
}

/* Elements [from, n) one at a time. */
__global__ void __launch_bounds__(THREADS) where_scalar(const unsigned char* __restrict__ m,
							const float* __restrict__ a, const float* __restrict__ b,
							float* __restrict__ y, int64_t from, int64_t n)
{
	int64_t stride = (int64_t)gridDim.x * THREADS;

	for (int64_t i = from + (int64_t)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride)
		y[i] = __ldg(m + i) ? __ldg(a + i) : __ldg(b + i);
}

extern "C" void where_select(const bool* m, const float* a, const float* b, float* y, int64_t B, int64_t N,
			     cudaStream_t stream)
{
	const unsigned char* mb = reinterpret_cast<const unsigned char*>(m);
	int64_t n = B * N, n4 = 0;

	if (n <= 0)
		return;
	if ((((uintptr_t)a | (uintptr_t)b | (uintptr_t)y) & 15) == 0 && ((uintptr_t)m & 3) == 0)
		n4 = n / 4;
	if (n4 > 0) {
		int64_t tiles = (n4 + THREADS * UNROLL - 1) / (THREADS * UNROLL);
		unsigned grid = (unsigned)(tiles < (1 << 20) ? tiles : (1 << 20));

		where_vec<<<grid, THREADS, 0, stream>>>(reinterpret_cast<const uint32_t*>(mb),
							reinterpret_cast<const float4*>(a),
							reinterpret_cast<const float4*>(b), reinterpret_cast<float4*>(y),
							n4);
	}
	if (n4 * 4 < n) {
		int64_t rest = n - n4 * 4, blocks = (rest + THREADS - 1) / THREADS;

		where_scalar<<<(unsigned)(blocks < 65535 ? blocks : 65535), THREADS, 0, stream>>>(mb, a, b, y, n4 * 4,
												  n);
	}
}
