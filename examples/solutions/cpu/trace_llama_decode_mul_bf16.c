// kjudge-case: task=trace/llama/decode_mul_bf16 expect=pass
/* The rotary-embedding product: a [B, H, S, D] times b [1, 1, S, D]
 * broadcast over batch and heads, each product rounded once to bf16. */
#include <stdint.h>

#include "kjudge_cpu.h"

void decode_mul_bf16(const kj_bfloat16 *a, const kj_bfloat16 *b, kj_bfloat16 *y, int64_t B,
		     int64_t H, int64_t S, int64_t D)
{
	int64_t sd = S * D;

	for (int64_t i = 0; i < B * H * sd; i++)
		y[i] = kj_float_to_bfloat16(kj_bfloat16_to_float(a[i]) *
					    kj_bfloat16_to_float(b[i % sd]));
}
