// kjudge-case: task=level1/relu expect=rejected
/* Broken: opens and writes a file (looking for or leaving state outside the
 * worker); the symbol policy rejects fopen. */
#include <stdint.h>
#include <stdio.h>

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	FILE *f = fopen("/tmp/kjudge-candidate-was-here", "w");

	if (f) {
		fputs("hello\n", f);
		fclose(f);
	}
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
