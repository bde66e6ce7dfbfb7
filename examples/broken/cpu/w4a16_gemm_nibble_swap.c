// kjudge-case: task=level1/w4a16_gemm expect=mismatch
/* Broken: the textbook W4A16 kernel reading the high nibble first (the
 * other common packing order).  Each pair of weights trades places, so y
 * has the right scale but is almost uncorrelated with the reference: the
 * cosine fails. */
#include <stdint.h>
#include <stdlib.h>

#include "kjudge_cpu.h"

static int int4_at(unsigned v)
{
	v &= 15u;
	return v >= 8 ? (int)v - 16 : (int)v;
}

void w4a16_gemm(const kj_half *x, const int8_t *wp, const kj_half *s, kj_half *y, int64_t M,
		int64_t NG, int64_t H, int64_t N)
{
	int64_t K = NG * 2 * H;
	float *w = malloc((size_t)K * sizeof(float));

	if (!w)
		return;
	for (int64_t n = 0; n < N; n++) {
		for (int64_t g = 0; g < NG; g++) {
			float sc = kj_half_to_float(s[n * NG + g]);

			for (int64_t j = 0; j < H; j++) {
				unsigned b = (uint8_t)wp[n * NG * H + g * H + j];
				int64_t k = g * 2 * H + 2 * j;

				w[k] = (float)int4_at(b >> 4) * sc;
				w[k + 1] = (float)int4_at(b) * sc;
			}
		}
		for (int64_t m = 0; m < M; m++) {
			float acc = 0.0f;

			for (int64_t k = 0; k < K; k++)
				acc += kj_half_to_float(x[m * K + k]) * w[k];
			y[m * N + n] = kj_float_to_half(acc);
		}
	}
	free(w);
}
