// kjudge-case: task=level1/int8_attention expect=mismatch
/* Broken: the textbook quantized attention without the per-key scale sk
 * (a kernel that applies only the query's scale, as if the keys were
 * quantized per tensor with scale 1).  The scores grow ~200x, the softmax
 * turns one-hot, and the output misses the cosine and L1 criteria. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "kjudge_cpu.h"

void int8_attention(const int8_t *qq, const int8_t *kq, const float *sq, const float *sk,
		    const kj_half *v, kj_half *o, int64_t B, int64_t L, int64_t E, int64_t S,
		    int64_t Ev)
{
	(void)sk;
	float *p = malloc((size_t)S * sizeof(float));
	float *acc = malloc((size_t)Ev * sizeof(float));

	if (!p || !acc) {
		free(p);
		free(acc);
		return;
	}
	for (int64_t b = 0; b < B; b++) {
		for (int64_t l = 0; l < L; l++) {
			const int8_t *qr = qq + (b * L + l) * E;
			float mx = -INFINITY, sum = 0.0f;

			for (int64_t s = 0; s < S; s++) {
				const int8_t *kr = kq + (b * S + s) * E;
				int32_t dot = 0;

				for (int64_t e = 0; e < E; e++)
					dot += (int32_t)qr[e] * (int32_t)kr[e];
				p[s] = (float)dot * sq[b * L + l];
				if (p[s] > mx)
					mx = p[s];
			}
			for (int64_t s = 0; s < S; s++) {
				p[s] = expf(p[s] - mx);
				sum += p[s];
			}
			for (int64_t e = 0; e < Ev; e++)
				acc[e] = 0.0f;
			for (int64_t s = 0; s < S; s++) {
				float w = kj_half_to_float(kj_float_to_half(p[s] / sum));
				const kj_half *vr = v + (b * S + s) * Ev;

				for (int64_t e = 0; e < Ev; e++)
					acc[e] += w * kj_half_to_float(vr[e]);
			}
			for (int64_t e = 0; e < Ev; e++)
				o[(b * L + l) * Ev + e] = kj_float_to_half(acc[e]);
		}
	}
	free(p);
	free(acc);
}
