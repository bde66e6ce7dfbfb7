// kjudge-case: task=serving/logits_argmax_f32 expect=pass
/* Greedy sampling: one pass per row keeping the first index of the largest
 * logit (a NaN, had there been one, counts as largest, as torch.argmax). */
#include <stdint.h>

void logits_argmax_f32(const float *logits, int64_t *idx, int64_t B, int64_t V)
{
	for (int64_t b = 0; b < B; b++) {
		const float *row = logits + b * V;
		int64_t best = 0;

		for (int64_t v = 1; v < V; v++) {
			if (row[best] != row[best])
				break;
			if (row[v] > row[best] || row[v] != row[v])
				best = v;
		}
		idx[b] = best;
	}
}
