// kjudge-case: task=trace/llama/decode_cat_bf16 expect=pass
/* The KV-cache append of a decode step: per (batch, head) the S cached rows
 * of a, then the new row of b; bits copied as they are. */
#include <stdint.h>
#include <string.h>

#include "kjudge_cpu.h"

void decode_cat_bf16(const kj_bfloat16 *a, const kj_bfloat16 *b, kj_bfloat16 *y, int64_t B,
		     int64_t H, int64_t S, int64_t D)
{
	for (int64_t bh = 0; bh < B * H; bh++) {
		kj_bfloat16 *out = y + bh * (S + 1) * D;

		memcpy(out, a + bh * S * D, (size_t)(S * D) * sizeof(*a));
		memcpy(out + S * D, b + bh * D, (size_t)D * sizeof(*b));
	}
}
