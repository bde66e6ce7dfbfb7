// kjudge-case: task=level2/rmsnorm_cast_f16 expect=pass
/* RMSNorm with weight in double, rounded to float then to f16 (the f32
 * intermediate of the task, then the cast). */
#include <math.h>
#include <stdint.h>

#include "kjudge_cpu.h"

void rmsnorm_cast_f16(const float *x, const float *w, kj_half *y, int64_t N, int64_t D)
{
	for (int64_t r = 0; r < N; r++) {
		const float *xr = x + r * D;
		kj_half *yr = y + r * D;
		double ss = 0.0, inv;

		for (int64_t j = 0; j < D; j++)
			ss += (double)xr[j] * xr[j];
		inv = 1.0 / sqrt(ss / (double)D + 1e-6);
		for (int64_t j = 0; j < D; j++)
			yr[j] = kj_float_to_half((float)(xr[j] * inv * w[j]));
	}
}
