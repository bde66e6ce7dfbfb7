// kjudge-case: task=trace/llama/prefill_causal_attention_bf16 expect=pass
/* Causal prefill attention, 4 query heads per KV head (head h reads KV head
 * h / 4), top-left aligned mask (query i sees keys j <= i), scale
 * 1/sqrt(128) as the task states it.  Scores, softmax and the weighted sum
 * in double; one rounding to bf16. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "kjudge_cpu.h"

void prefill_causal_attention_bf16(const kj_bfloat16 *q, const kj_bfloat16 *k,
				   const kj_bfloat16 *v, kj_bfloat16 *o, int64_t B, int64_t KV,
				   int64_t S, int64_t D, int64_t T)
{
	const double scale = 0.088388347648318440;
	const int64_t H = KV * 4;
	double *p = malloc((size_t)T * sizeof(double));

	if (!p)
		return;
	for (int64_t b = 0; b < B; b++)
		for (int64_t h = 0; h < H; h++)
			for (int64_t s = 0; s < S; s++) {
				const kj_bfloat16 *qr = q + ((b * H + h) * S + s) * D;
				const kj_bfloat16 *kb = k + (b * KV + h / 4) * T * D;
				const kj_bfloat16 *vb = v + (b * KV + h / 4) * T * D;
				kj_bfloat16 *orow = o + ((b * H + h) * S + s) * D;
				int64_t n = s + 1 < T ? s + 1 : T;
				double mx = -INFINITY, sum = 0.0;

				for (int64_t t = 0; t < n; t++) {
					double acc = 0.0;

					for (int64_t d = 0; d < D; d++)
						acc += (double)kj_bfloat16_to_float(qr[d]) *
						       kj_bfloat16_to_float(kb[t * D + d]);
					p[t] = acc * scale;
					if (p[t] > mx)
						mx = p[t];
				}
				for (int64_t t = 0; t < n; t++) {
					p[t] = exp(p[t] - mx);
					sum += p[t];
				}
				for (int64_t d = 0; d < D; d++) {
					double acc = 0.0;

					for (int64_t t = 0; t < n; t++)
						acc += p[t] * kj_bfloat16_to_float(vb[t * D + d]);
					orow[d] = kj_float_to_bfloat16((float)(acc / sum));
				}
			}
	free(p);
}
