// kjudge-case: task=trace/llama/decode_cat_bf16 expect=pass
/* The KV-cache append: per (batch, head) the S rows of a, then the one row
 * of b, copied as bits. */
#include "kjudge_cuda.h"

__global__ void kv_append(const __nv_bfloat16* __restrict__ a, const __nv_bfloat16* __restrict__ b,
			  __nv_bfloat16* __restrict__ y, int64_t n, int64_t S, int64_t D)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x, rows = (S + 1) * D;

	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
		int64_t bh = i / rows, r = i % rows;

		y[i] = r < S * D ? a[bh * S * D + r] : b[bh * D + (r - S * D)];
	}
}

extern "C" void decode_cat_bf16(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* y,
				int64_t B, int64_t H, int64_t S, int64_t D, cudaStream_t stream)
{
	int64_t n = B * H * (S + 1) * D, g = (n + 255) / 256;

	if (n > 0)
		kv_append<<<(unsigned)(g > 16384 ? 16384 : g), 256, 0, stream>>>(a, b, y, n, S, D);
}
