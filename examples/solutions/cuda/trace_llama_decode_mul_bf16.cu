// kjudge-case: task=trace/llama/decode_mul_bf16 expect=pass
/* The rotary product a [B, H, S, D] * b [1, 1, S, D]: each product of the
 * widened values rounded once to bf16. */
#include "kjudge_cuda.h"

__global__ void mul_bcast(const __nv_bfloat16* __restrict__ a, const __nv_bfloat16* __restrict__ b,
			  __nv_bfloat16* __restrict__ y, int64_t n, int64_t sd)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x;

	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		y[i] = __float2bfloat16_rn(__bfloat162float(a[i]) * __bfloat162float(b[i % sd]));
}

extern "C" void decode_mul_bf16(const __nv_bfloat16* a, const __nv_bfloat16* b, __nv_bfloat16* y,
				int64_t B, int64_t H, int64_t S, int64_t D, cudaStream_t stream)
{
	int64_t n = B * H * S * D, g = (n + 255) / 256;

	if (n > 0)
		mul_bcast<<<(unsigned)(g > 16384 ? 16384 : g), 256, 0, stream>>>(a, b, y, n, S * D);
}
