// kjudge-case: task=level1/huber_loss expect=pass
/* Mean Huber loss (delta 1) in two launches and one read of the inputs:
 * each block of a grid sized to fill the device sums its grid-stride share
 * with float4 loads (float per thread, then a warp-shuffle and shared-memory
 * tree) into a partial slot; one block then adds the partials in a fixed
 * order in double and divides by the count.  No atomics, so the result is
 * the same on every run.  The partials live in a static device array: calls
 * run in order on the one stream. */
#include "kjudge_cuda.h"

#define THREADS 512
#define MAX_BLOCKS 1024

static __device__ double partials[MAX_BLOCKS];

static __device__ __forceinline__ float huber(float p, float t)
{
	float d = fabsf(p - t);

	return d < 1.0f ? 0.5f * d * d : d - 0.5f;
}

static __device__ __forceinline__ float block_sum(float v)
{
	__shared__ float red[THREADS / 32];
	int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;

	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	if (lane == 0)
		red[warp] = v;
	__syncthreads();
	v = 0.0f;
	if (warp == 0) {
		v = lane < THREADS / 32 ? red[lane] : 0.0f;
		for (int o = 16; o > 0; o >>= 1)
			v += __shfl_xor_sync(0xffffffffu, v, o);
	}
	return v;
}

__global__ void __launch_bounds__(THREADS) huber_part(const float* __restrict__ p, const float* __restrict__ t,
						      int64_t n, int vec)
{
	int64_t tid = (int64_t)blockIdx.x * THREADS + threadIdx.x, stride = (int64_t)gridDim.x * THREADS;
	int64_t start = 0;
	float s = 0.0f;

	if (vec) {
		const float4* p4 = reinterpret_cast<const float4*>(p);
		const float4* t4 = reinterpret_cast<const float4*>(t);
		int64_t n4 = n / 4;

		for (int64_t i = tid; i < n4; i += stride) {
			float4 a = __ldg(p4 + i), b = __ldg(t4 + i);

			s += huber(a.x, b.x) + huber(a.y, b.y) + huber(a.z, b.z) + huber(a.w, b.w);
		}
		start = n4 * 4;
	}
	for (int64_t i = start + tid; i < n; i += stride)
		s += huber(p[i], t[i]);
	s = block_sum(s);
	if (threadIdx.x == 0)
		partials[blockIdx.x] = (double)s;
}

__global__ void __launch_bounds__(32) huber_final(float* loss, int nparts, int64_t n)
{
	double s = 0.0;

	for (int i = threadIdx.x; i < nparts; i += 32)
		s += partials[i];
	for (int o = 16; o > 0; o >>= 1)
		s += __shfl_xor_sync(0xffffffffu, s, o);
	if (threadIdx.x == 0)
		loss[0] = (float)(s / (double)n);
}

extern "C" void huber_loss(const float* pred, const float* target, float* loss, int64_t B, int64_t D,
			   cudaStream_t stream)
{
	int64_t n = B * D;
	int dev = 0, sms = 132, vec = (((uintptr_t)pred | (uintptr_t)target) & 15) == 0;
	int64_t want;
	int blocks;

	cudaGetDevice(&dev);
	cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
	want = (n / 4 + THREADS - 1) / THREADS;
	blocks = (int)(want < 4 * sms ? want : 4 * sms);
	if (blocks > MAX_BLOCKS)
		blocks = MAX_BLOCKS;
	if (blocks < 1)
		blocks = 1;
	huber_part<<<blocks, THREADS, 0, stream>>>(pred, target, n, vec);
	huber_final<<<1, 32, 0, stream>>>(loss, blocks, n);
}
