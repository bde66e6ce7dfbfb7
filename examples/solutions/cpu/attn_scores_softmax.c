// kjudge-case: task=level2/attn_scores_softmax expect=pass
/* For each query row: scores q.k_t * 0.125 staged in the output row, then a
 * stable softmax in place with double sums. */
#include <math.h>
#include <stdint.h>

void attn_scores_softmax(const float *q, const float *k, float *p,
			 int64_t B, int64_t S, int64_t D, int64_t T)
{
	for (int64_t b = 0; b < B; b++) {
		const float *kb = k + b * T * D;

		for (int64_t s = 0; s < S; s++) {
			const float *qr = q + (b * S + s) * D;
			float *pr = p + (b * S + s) * T;
			double m = -INFINITY, sum = 0.0;

			for (int64_t t = 0; t < T; t++) {
				const float *kr = kb + t * D;
				double d = 0.0;

				for (int64_t j = 0; j < D; j++)
					d += (double)qr[j] * kr[j];
				pr[t] = (float)(d * 0.125);
				if (pr[t] > m)
					m = pr[t];
			}
			for (int64_t t = 0; t < T; t++)
				sum += exp(pr[t] - m);
			for (int64_t t = 0; t < T; t++)
				pr[t] = (float)(exp(pr[t] - m) / sum);
		}
	}
}
