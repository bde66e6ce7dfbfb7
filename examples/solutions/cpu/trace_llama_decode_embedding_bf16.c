// kjudge-case: task=trace/llama/decode_embedding_bf16 expect=pass
/* Token embedding of a decode step: row idx[i] of the table, copied. */
#include <stdint.h>
#include <string.h>

#include "kjudge_cpu.h"

void decode_embedding_bf16(const int64_t *idx, const kj_bfloat16 *w, kj_bfloat16 *y, int64_t N,
			   int64_t V, int64_t D)
{
	for (int64_t i = 0; i < N; i++) {
		int64_t r = idx[i];

		if (r < 0 || r >= V)
			r = 0;
		memcpy(y + i * D, w + r * D, (size_t)D * sizeof(*w));
	}
}
