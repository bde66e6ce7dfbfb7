// kjudge-case: task=level1/fp8_block_gemm expect=mismatch
/* Broken: the textbook block-scaled fp8 GEMM that applies the weight
 * block's scale but forgets the activations' per-block scale sa: y is
 * ~8x too large (sa ~ U(0.05, 0.2)), which the relative L1 error fails
 * while the cosine alone (~0.97) might not tell. */
#include <stdint.h>
#include <stdlib.h>

#include "kjudge_cpu.h"

#define BLK 128

void fp8_block_gemm(const kj_fp8_e4m3 *a, const float *sa, const kj_fp8_e4m3 *b,
		    const float *sb, kj_bfloat16 *y, int64_t M, int64_t KB, int64_t NB)
{
	int64_t K = KB * BLK, N = NB * BLK;
	float *ar = malloc((size_t)K * sizeof(float)), *br = malloc((size_t)K * sizeof(float));

	(void)sa;
	if (!ar || !br) {
		free(ar);
		free(br);
		return;
	}
	for (int64_t m = 0; m < M; m++) {
		for (int64_t k = 0; k < K; k++)
			ar[k] = kj_fp8_e4m3_to_float(a[m * K + k]);
		for (int64_t n = 0; n < N; n++) {
			float acc = 0.0f;

			for (int64_t k = 0; k < K; k++)
				br[k] = kj_fp8_e4m3_to_float(b[n * K + k]);
			for (int64_t kb = 0; kb < KB; kb++) {
				float part = 0.0f;

				for (int64_t k = kb * BLK; k < (kb + 1) * BLK; k++)
					part += ar[k] * br[k];
				acc += part * sb[(n / BLK) * KB + kb];
			}
			y[m * N + n] = kj_float_to_bfloat16(acc);
		}
	}
	free(ar);
	free(br);
}
