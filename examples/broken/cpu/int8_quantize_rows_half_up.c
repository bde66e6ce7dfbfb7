// kjudge-case: task=level1/int8_quantize_rows expect=mismatch
/* Broken: the per-row int8 quantizer rounding with lroundf (halves away
 * from zero) instead of halves to even.  It differs only where x / s is
 * exactly k + 1/2 in float: rare, but with the judge's default seeds one
 * turns up on check shape M=17 K=4097 (seed 3), and the exact comparison
 * of the i8 output must catch that one element. */
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
		for (int64_t k = 0; k < K; k++)
			q[m * K + k] = (int8_t)(sc > 0.0f ? lroundf(xr[k] / sc) : 0);
	}
}
