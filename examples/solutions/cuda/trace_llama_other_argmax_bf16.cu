// kjudge-case: task=trace/llama/other_argmax_bf16 expect=pass
/* Greedy next token: argmax over the last dim, one block per row; the first
 * index wins ties and a NaN counts as the largest (PyTorch). */
#include "kjudge_cuda.h"

/* true when (v, i) beats (bv, bi) */
__device__ __forceinline__ bool better(float v, int64_t i, float bv, int64_t bi)
{
	bool vn = v != v, bn = bv != bv;

	if (bi < 0)
		return true;
	if (vn != bn)
		return vn;
	if (!vn && v != bv)
		return v > bv;
	return i < bi;
}

__global__ void row_argmax(const __nv_bfloat16* __restrict__ x, int64_t* __restrict__ y, int64_t D)
{
	__shared__ float sv[256];
	__shared__ int64_t si[256];
	const __nv_bfloat16* row = x + (int64_t)blockIdx.x * D;
	float bv = 0.0f;
	int64_t bi = -1;

	for (int64_t d = threadIdx.x; d < D; d += 256) {
		float v = __bfloat162float(row[d]);

		if (better(v, d, bv, bi)) {
			bv = v;
			bi = d;
		}
	}
	sv[threadIdx.x] = bv;
	si[threadIdx.x] = bi;
	__syncthreads();
	for (int s = 128; s > 0; s /= 2) {
		if (threadIdx.x < s && si[threadIdx.x + s] >= 0 &&
		    better(sv[threadIdx.x + s], si[threadIdx.x + s], sv[threadIdx.x], si[threadIdx.x])) {
			sv[threadIdx.x] = sv[threadIdx.x + s];
			si[threadIdx.x] = si[threadIdx.x + s];
		}
		__syncthreads();
	}
	if (threadIdx.x == 0)
		y[blockIdx.x] = si[0];
}

extern "C" void other_argmax_bf16(const __nv_bfloat16* x, int64_t* y, int64_t B, int64_t S, int64_t D,
				  cudaStream_t stream)
{
	if (B * S > 0)
		row_argmax<<<(unsigned)(B * S), 256, 0, stream>>>(x, y, D);
}
