// kjudge-case: task=level1/w4a16_gemm expect=pass
/* The textbook W4A16 kernel: each packed row is dequantized once (low
 * nibble first, both nibbles sign-extended from 4 bits, times the group's
 * scale, rounded to f16 as the weight a f16 GEMM would read), then the row
 * of y is a float dot product with every row of x, rounded to f16. */
#include <stdint.h>
#include <stdlib.h>

#include "kjudge_cpu.h"

/* A two's complement int4 in the low 4 bits of v. */
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
	float *xf = malloc((size_t)(M * K) * sizeof(float));

	if (!w || !xf) {
		free(w);
		free(xf);
		return;
	}
	for (int64_t i = 0; i < M * K; i++)
		xf[i] = kj_half_to_float(x[i]);
	for (int64_t n = 0; n < N; n++) {
		for (int64_t g = 0; g < NG; g++) {
			float sc = kj_half_to_float(s[n * NG + g]);

			for (int64_t j = 0; j < H; j++) {
				unsigned b = (uint8_t)wp[n * NG * H + g * H + j];
				int64_t k = g * 2 * H + 2 * j;

				w[k] = kj_half_to_float(kj_float_to_half((float)int4_at(b) * sc));
				w[k + 1] = kj_half_to_float(kj_float_to_half((float)int4_at(b >> 4) * sc));
			}
		}
		for (int64_t m = 0; m < M; m++) {
			const float *xr = xf + m * K;
			float acc = 0.0f;

			for (int64_t k = 0; k < K; k++)
				acc += xr[k] * w[k];
			y[m * N + n] = kj_float_to_half(acc);
		}
	}
	free(w);
	free(xf);
}
