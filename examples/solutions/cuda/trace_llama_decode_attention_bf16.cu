// kjudge-case: task=trace/llama/decode_attention_bf16 expect=pass
/* Decode attention with grouped KV heads (query head h reads KV head h / G),
 * non-causal, scale 1/sqrt(128) as the task states it.  One block per query
 * row: scores into shared memory (T floats, dynamic), max and sum by block
 * reduction, then each thread owns output columns.  Float throughout. */
#include "kjudge_cuda.h"

#define THREADS 256

__device__ float block_reduce(float v, float* red, bool is_max)
{
	red[threadIdx.x] = v;
	__syncthreads();
	for (int s = THREADS / 2; s > 0; s /= 2) {
		if (threadIdx.x < s)
			red[threadIdx.x] = is_max ? fmaxf(red[threadIdx.x], red[threadIdx.x + s])
						  : red[threadIdx.x] + red[threadIdx.x + s];
		__syncthreads();
	}
	float r = red[0];
	__syncthreads();
	return r;
}

__global__ void attn_row(const __nv_bfloat16* __restrict__ q, const __nv_bfloat16* __restrict__ k,
			 const __nv_bfloat16* __restrict__ v, __nv_bfloat16* __restrict__ o,
			 int64_t KV, int64_t G, int64_t S, int64_t D, int64_t T)
{
	extern __shared__ float p[];
	__shared__ float red[THREADS];
	const float scale = 0.088388347648318447f;
	int64_t row = blockIdx.x;             /* (b, h, s) */
	int64_t bh = row / S, h = bh % (KV * G), b = bh / (KV * G);
	const __nv_bfloat16* qr = q + row * D;
	const __nv_bfloat16* kb = k + (b * KV + h / G) * T * D;
	const __nv_bfloat16* vb = v + (b * KV + h / G) * T * D;
	float mx = -INFINITY, sum = 0.0f;

	for (int64_t t = threadIdx.x; t < T; t += THREADS) {
		float acc = 0.0f;

		for (int64_t d = 0; d < D; d++)
			acc = fmaf(__bfloat162float(qr[d]), __bfloat162float(kb[t * D + d]), acc);
		p[t] = acc * scale;
		mx = fmaxf(mx, p[t]);
	}
	mx = block_reduce(mx, red, true);
	for (int64_t t = threadIdx.x; t < T; t += THREADS) {
		p[t] = __expf(p[t] - mx);
		sum += p[t];
	}
	sum = block_reduce(sum, red, false);
	for (int64_t d = threadIdx.x; d < D; d += THREADS) {
		float acc = 0.0f;

		for (int64_t t = 0; t < T; t++)
			acc = fmaf(p[t], __bfloat162float(vb[t * D + d]), acc);
		o[row * D + d] = __float2bfloat16_rn(acc / sum);
	}
}

extern "C" void decode_attention_bf16(const __nv_bfloat16* q, const __nv_bfloat16* k,
				      const __nv_bfloat16* v, __nv_bfloat16* o, int64_t B, int64_t KV,
				      int64_t G, int64_t S, int64_t D, int64_t T, cudaStream_t stream)
{
	int64_t rows = B * KV * G * S;

	if (rows > 0)
		attn_row<<<(unsigned)rows, THREADS, (size_t)T * sizeof(float), stream>>>(q, k, v, o, KV, G, S, D, T);
}
