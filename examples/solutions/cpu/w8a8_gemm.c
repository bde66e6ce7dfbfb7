// kjudge-case: task=level1/w8a8_gemm expect=pass
/* The textbook W8A8 kernel: int8 products summed exactly in int32, then the
 * sum dequantized in float by the row's activation scale and the column's
 * weight scale and rounded once to bf16. */
#include <stdint.h>

#include "kjudge_cpu.h"

void w8a8_gemm(const int8_t *xq, const int8_t *wq, const float *sx, const float *sw,
	       kj_bfloat16 *y, int64_t M, int64_t K, int64_t N)
{
	for (int64_t m = 0; m < M; m++) {
		const int8_t *xr = xq + m * K;

		for (int64_t n = 0; n < N; n++) {
			const int8_t *wr = wq + n * K;
			int32_t acc = 0;

			for (int64_t k = 0; k < K; k++)
				acc += (int32_t)xr[k] * (int32_t)wr[k];
			y[m * N + n] = kj_float_to_bfloat16((float)acc * sx[m] * sw[n]);
		}
	}
}
