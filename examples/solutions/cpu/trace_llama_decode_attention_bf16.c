// kjudge-case: task=trace/llama/decode_attention_bf16 expect=pass
/* Decode-step attention with grouped KV heads: query head h = kv * G + g
 * attends to kv head kv (HF's repeat_kv order), non-causal, scale 1/sqrt(D)
 * as the task states it.  Scores, softmax and the weighted sum in double,
 * one rounding to bf16 at the end. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "kjudge_cpu.h"

void decode_attention_bf16(const kj_bfloat16 *q, const kj_bfloat16 *k, const kj_bfloat16 *v,
			   kj_bfloat16 *o, int64_t B, int64_t KV, int64_t G, int64_t S, int64_t D,
			   int64_t T)
{
	const double scale = 0.088388347648318440;
	double *p = malloc((size_t)T * sizeof(double));

	if (!p)
		return;
	for (int64_t b = 0; b < B; b++)
		for (int64_t h = 0; h < KV * G; h++)
			for (int64_t s = 0; s < S; s++) {
				const kj_bfloat16 *qr = q + ((b * KV * G + h) * S + s) * D;
				const kj_bfloat16 *kb = k + (b * KV + h / G) * T * D;
				const kj_bfloat16 *vb = v + (b * KV + h / G) * T * D;
				kj_bfloat16 *orow = o + ((b * KV * G + h) * S + s) * D;
				double mx = -INFINITY, sum = 0.0;

				for (int64_t t = 0; t < T; t++) {
					double acc = 0.0;

					for (int64_t d = 0; d < D; d++)
						acc += (double)kj_bfloat16_to_float(qr[d]) *
						       kj_bfloat16_to_float(kb[t * D + d]);
					p[t] = acc * scale;
					if (p[t] > mx)
						mx = p[t];
				}
				for (int64_t t = 0; t < T; t++) {
					p[t] = exp(p[t] - mx);
					sum += p[t];
				}
				for (int64_t d = 0; d < D; d++) {
					double acc = 0.0;

					for (int64_t t = 0; t < T; t++)
						acc += p[t] * kj_bfloat16_to_float(vb[t * D + d]);
					orow[d] = kj_float_to_bfloat16((float)(acc / sum));
				}
			}
	free(p);
}
