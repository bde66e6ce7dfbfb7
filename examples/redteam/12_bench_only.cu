// kjudge-case: task=level1/softmax expect=mismatch
/* Red team, class 12 (shape specialisation), CUDA: one block per row, each
 * thread owning D/1024 elements, written for the bench shapes (D = 65536,
 * 262144: multiples of 1024).  Any other D loses its remainder from both the
 * sum and the output, so every odd check shape (D = 1, 1000, 4097, 131)
 * fails. */
#include "kjudge_cuda.h"

__global__ void rows(const float* x, float* y, int64_t D)
{
	__shared__ float red[1024];
	const float* r = x + (int64_t)blockIdx.x * D;
	float* o = y + (int64_t)blockIdx.x * D;
	int64_t per = D / 1024, base = threadIdx.x * per;
	float m = -INFINITY, s = 0.0f;

	for (int64_t k = 0; k < per; k++)
		m = fmaxf(m, r[base + k]);
	red[threadIdx.x] = m;
	__syncthreads();
	for (int w = 512; w > 0; w >>= 1) {
		if ((int)threadIdx.x < w)
			red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + w]);
		__syncthreads();
	}
	m = red[0];
	__syncthreads();
	for (int64_t k = 0; k < per; k++)
		s += expf(r[base + k] - m);
	red[threadIdx.x] = s;
	__syncthreads();
	for (int w = 512; w > 0; w >>= 1) {
		if ((int)threadIdx.x < w)
			red[threadIdx.x] += red[threadIdx.x + w];
		__syncthreads();
	}
	s = red[0];
	for (int64_t k = 0; k < per; k++)
		o[base + k] = expf(r[base + k] - m) / s;
}

extern "C" void softmax(const float* x, float* y, int64_t B, int64_t D, cudaStream_t stream)
{
	rows<<<(unsigned)B, 1024, 0, stream>>>(x, y, D);
}
