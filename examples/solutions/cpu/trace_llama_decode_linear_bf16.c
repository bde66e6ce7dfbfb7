// kjudge-case: task=trace/llama/decode_linear_bf16 expect=pass
/* nn.Linear on bf16 as the Llama trace ran it (decode phase): y = x @ w^T,
 * products of the widened inputs summed in double, one rounding to bf16. */
#include <stdint.h>

#include "kjudge_cpu.h"

void decode_linear_bf16(const kj_bfloat16 *x, const kj_bfloat16 *w, kj_bfloat16 *y, int64_t M,
		       int64_t K, int64_t N)
{
	for (int64_t m = 0; m < M; m++) {
		const kj_bfloat16 *xr = x + m * K;

		for (int64_t n = 0; n < N; n++) {
			const kj_bfloat16 *wr = w + n * K;
			double acc = 0.0;

			for (int64_t k = 0; k < K; k++)
				acc += (double)kj_bfloat16_to_float(xr[k]) * kj_bfloat16_to_float(wr[k]);
			y[m * N + n] = kj_float_to_bfloat16((float)acc);
		}
	}
}
