// kjudge-case: task=trace/llama/decode_embedding_bf16 expect=pass
/* Token embedding: row idx[i] of the table, one block per token. */
#include "kjudge_cuda.h"

__global__ void embed_rows(const int64_t* __restrict__ idx, const __nv_bfloat16* __restrict__ w,
			   __nv_bfloat16* __restrict__ y, int64_t D)
{
	const __nv_bfloat16* src = w + idx[blockIdx.x] * D;
	__nv_bfloat16* dst = y + (int64_t)blockIdx.x * D;

	for (int64_t d = threadIdx.x; d < D; d += blockDim.x)
		dst[d] = src[d];
}

extern "C" void decode_embedding_bf16(const int64_t* idx, const __nv_bfloat16* w, __nv_bfloat16* y,
				      int64_t N, int64_t V, int64_t D, cudaStream_t stream)
{
	if (N > 0)
		embed_rows<<<(unsigned)N, 256, 0, stream>>>(idx, w, y, D);
}
