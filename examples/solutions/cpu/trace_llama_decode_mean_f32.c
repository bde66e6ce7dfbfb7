// kjudge-case: task=trace/llama/decode_mean_f32 expect=pass
/* The mean over the hidden dim of RMSNorm's squares (keepdim), in double. */
#include <stdint.h>

void decode_mean_f32(const float *x, float *y, int64_t B, int64_t S, int64_t D)
{
	for (int64_t r = 0; r < B * S; r++) {
		double acc = 0.0;

		for (int64_t d = 0; d < D; d++)
			acc += x[r * D + d];
		y[r] = (float)(acc / (double)D);
	}
}
