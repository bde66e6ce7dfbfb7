// kjudge-case: task=level1/matmul_f16 expect=pass
/* f16 GEMM: B is widened to float once into a scratch buffer, then i-k-j
 * with double accumulators and one rounding to f16 per output, as cuBLAS
 * accumulates wider than it stores.  Without the buffer (malloc failed) B is
 * widened on the fly, which is slower but gives the same result. */
#include <stdint.h>
#include <stdlib.h>

#include "kjudge_cpu.h"

#define CHUNK 256

void matmul_f16(const kj_half *a, const kj_half *b, kj_half *c, int64_t M, int64_t K, int64_t N)
{
	double acc[CHUNK];
	float *bf = malloc((size_t)(K * N) * sizeof(float));

	if (bf)
		for (int64_t i = 0; i < K * N; i++)
			bf[i] = kj_half_to_float(b[i]);
	for (int64_t i = 0; i < M; i++) {
		for (int64_t j0 = 0; j0 < N; j0 += CHUNK) {
			int64_t w = N - j0 < CHUNK ? N - j0 : CHUNK;

			for (int64_t j = 0; j < w; j++)
				acc[j] = 0.0;
			for (int64_t k = 0; k < K; k++) {
				double aik = kj_half_to_float(a[i * K + k]);
				int64_t off = k * N + j0;

				if (bf)
					for (int64_t j = 0; j < w; j++)
						acc[j] += aik * bf[off + j];
				else
					for (int64_t j = 0; j < w; j++)
						acc[j] += aik * kj_half_to_float(b[off + j]);
			}
			for (int64_t j = 0; j < w; j++)
				c[i * N + j0 + j] = kj_float_to_half((float)acc[j]);
		}
	}
	free(bf);
}
