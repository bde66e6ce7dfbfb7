// kjudge-case: task=level1/masked_fill_scores expect=pass
/* y = mask ? -10000 : x, with one [S, S] bool mask broadcast over the B*H
 * planes of x [B, H, S, S].  The grid is 2-D: blockIdx.y walks the planes
 * (a stride loop past 65535), blockIdx.x a tile of 4 * 256 vectors of one
 * plane, so the mask offset is the offset inside the plane and no index is
 * ever divided.  When S is even (S*S % 4 == 0), x and y are 16-byte and the
 * mask 4-byte aligned, every thread moves four float4 of x with their four
 * mask words, all loads issued before the stores; otherwise four scalars.
 * x and y are streamed with evict-first hints (__ldcs/__stcs) so that the
 * mask (1 MB at S=1024, 16 MB at S=4096) stays in L2 across the planes.
 * The eager baseline is one masked_fill kernel of 4-byte words and 1-byte
 * mask loads with per-row broadcast offsets; the bytes are the same (x read,
 * y written: 8 per element), so the gain is only from 16-byte accesses and
 * more loads in flight: expect ~1.05-1.2x, not more. */
#include "kjudge_cuda.h"

#define THREADS 256
#define UNROLL 4
#define TILE (THREADS * UNROLL)

__global__ void __launch_bounds__(THREADS) mfill_vec(const float4* __restrict__ x, const uint32_t* __restrict__ mask,
						     float4* __restrict__ y, int64_t planes, int64_t L4)
{
	int64_t base = (int64_t)blockIdx.x * TILE + threadIdx.x;

	for (int64_t p = blockIdx.y; p < planes; p += gridDim.y) {
		const float4* xp = x + p * L4;
		float4* yp = y + p * L4;
		float4 v[UNROLL] = {};
		uint32_t m[UNROLL] = {};

#pragma unroll
		for (int u = 0; u < UNROLL; u++) {
			int64_t i = base + u * THREADS;

			if (i < L4) {
				v[u] = __ldcs(xp + i);
				m[u] = __ldg(mask + i);
			}
		}
#pragma unroll
		for (int u = 0; u < UNROLL; u++) {
			int64_t i = base + u * THREADS;

			if (i < L4) {
				float4 r = v[u];

				/* bool bytes are 0 or 1; any nonzero byte is true */
				if (m[u] & 0x000000ffu)
					r.x = -10000.0f;
				if (m[u] & 0x0000ff00u)
					r.y = -10000.0f;
				if (m[u] & 0x00ff0000u)
					r.z = -10000.0f;
				if (m[u] & 0xff000000u)
					r.w = -10000.0f;
				__stcs(yp + i, r);
			}
		}
	}
}

__global__ void __launch_bounds__(THREADS) mfill_scalar(const float* __restrict__ x, const bool* __restrict__ mask,
							float* __restrict__ y, int64_t planes, int64_t L)
{
	int64_t base = (int64_t)blockIdx.x * TILE + threadIdx.x;

	for (int64_t p = blockIdx.y; p < planes; p += gridDim.y) {
		const float* xp = x + p * L;
		float* yp = y + p * L;
		float v[UNROLL] = {};
		unsigned char m[UNROLL] = {};

#pragma unroll
		for (int u = 0; u < UNROLL; u++) {
			int64_t i = base + u * THREADS;

			if (i < L) {
				v[u] = __ldcs(xp + i);
				m[u] = __ldg(reinterpret_cast<const unsigned char*>(mask) + i);
			}
		}
#pragma unroll
		for (int u = 0; u < UNROLL; u++) {
			int64_t i = base + u * THREADS;

			if (i < L)
				__stcs(yp + i, m[u] ? -10000.0f : v[u]);
		}
	}
}

extern "C" void masked_fill_scores(const float* x, const bool* mask, float* y, int64_t B, int64_t H, int64_t S,
				   cudaStream_t stream)
{
	int64_t planes = B * H, L = S * S;
	unsigned gy;

	if (planes <= 0 || L <= 0)
		return;
	gy = (unsigned)(planes < 65535 ? planes : 65535);
	if (L % 4 == 0 && (((uintptr_t)x | (uintptr_t)y) & 15) == 0 && ((uintptr_t)mask & 3) == 0) {
		int64_t L4 = L / 4;
		unsigned gx = (unsigned)((L4 + TILE - 1) / TILE);

		mfill_vec<<<dim3(gx, gy), THREADS, 0, stream>>>(reinterpret_cast<const float4*>(x),
								reinterpret_cast<const uint32_t*>(mask),
								reinterpret_cast<float4*>(y), planes, L4);
	} else {
		unsigned gx = (unsigned)((L + TILE - 1) / TILE);

		mfill_scalar<<<dim3(gx, gy), THREADS, 0, stream>>>(x, mask, y, planes, L);
	}
}
