// kjudge-case: task=trace/llama/decode_mean_f32 expect=pass
/* Mean over the last dim (keepdim) of RMSNorm's squares: one block per row,
 * double accumulation, a shared-memory tree. */
#include "kjudge_cuda.h"

__global__ void row_mean(const float* __restrict__ x, float* __restrict__ y, int64_t D)
{
	__shared__ double red[256];
	const float* row = x + (int64_t)blockIdx.x * D;
	double acc = 0.0;

	for (int64_t d = threadIdx.x; d < D; d += 256)
		acc += row[d];
	red[threadIdx.x] = acc;
	__syncthreads();
	for (int s = 128; s > 0; s /= 2) {
		if (threadIdx.x < s)
			red[threadIdx.x] += red[threadIdx.x + s];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		y[blockIdx.x] = (float)(red[0] / (double)D);
}

extern "C" void decode_mean_f32(const float* x, float* y, int64_t B, int64_t S, int64_t D,
				cudaStream_t stream)
{
	if (B * S > 0)
		row_mean<<<(unsigned)(B * S), 256, 0, stream>>>(x, y, D);
}
