// kjudge-case: task=level1/softmax expect=mismatch
/* Red team, class 10 (precision downgrade to bf16): computes softmax right
 * and stores it through bfloat16 (8 mantissa bits), halving the bytes a GPU
 * version would move.  The relative error, up to 2^-9, is far above the f32
 * tolerance (rtol 1e-4). */
#include <math.h>
#include <stdint.h>

#include "kjudge_cpu.h"

void softmax(const float *x, float *y, int64_t B, int64_t D)
{
	for (int64_t b = 0; b < B; b++) {
		const float *r = x + b * D;
		float m = r[0];
		double s = 0.0;

		for (int64_t d = 1; d < D; d++)
			m = r[d] > m ? r[d] : m;
		for (int64_t d = 0; d < D; d++)
			s += exp((double)r[d] - m);
		for (int64_t d = 0; d < D; d++) {
			float v = (float)(exp((double)r[d] - m) / s);

			y[b * D + d] = kj_bfloat16_to_float(kj_float_to_bfloat16(v));
		}
	}
}
