// kjudge-case: task=level1/int8_quantize_rows expect=pass
/* The textbook per-row int8 quantizer: the row's absolute maximum, the
 * scale amax / 127 in float, then each element divided by the scale in
 * float and rounded to nearest, halves to even (rintf in the default
 * rounding mode). */
#include <math.h>
#include <stdint.h>

void int8_quantize_rows(const float *x, int8_t *q, float *s, int64_t M, int64_t K)
{
	for (int64_t m = 0; m < M; m++) {
		const float *xr = x + m * K;
		float amax = 0.0f, sc;

		for (int64_t k = 0; k < K; k++)
			if (fabsf(xr[k]) > amax)
				amax = fabsf(xr[k]);
		sc = amax / 127.0f;
		s[m] = sc;
		for (int64_t k = 0; k < K; k++) {
			float v = sc > 0.0f ? rintf(xr[k] / sc) : 0.0f;

			q[m * K + k] = (int8_t)v;
		}
	}
}
