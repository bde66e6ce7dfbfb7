// kjudge-case: task=trace/llama/other_argmax_bf16 expect=pass
/* Greedy next-token choice: argmax over the vocabulary, first index on ties. */
#include <stdint.h>

#include "kjudge_cpu.h"

void other_argmax_bf16(const kj_bfloat16 *x, int64_t *y, int64_t B, int64_t S, int64_t D)
{
	for (int64_t r = 0; r < B * S; r++) {
		const kj_bfloat16 *row = x + r * D;
		float best = kj_bfloat16_to_float(row[0]);
		int64_t arg = 0;

		for (int64_t d = 1; d < D; d++) {
			float v = kj_bfloat16_to_float(row[d]);

			if (v > best || (v != v && best == best)) {
				best = v;
				arg = d;
			}
		}
		y[r] = arg;
	}
}
