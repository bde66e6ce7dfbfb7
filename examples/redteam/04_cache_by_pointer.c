// kjudge-case: task=level1/matmul_square expect=mismatch
/* Red team, class 4 (output caching by pointer): keeps the last answer in
 * static storage of the shared object, keyed by the (a, b, c) pointers, and
 * replays it whenever the harness calls again with the same buffers (as a
 * benchmark loop reusing its tensors would).  The judge reuses its buffers
 * too, but gives every call fresh inputs (a new seed per correctness call,
 * rotated input sets in timed calls): the replay is wrong from seed 1 on. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const float *last_a, *last_b;
static float *last_c, *saved;
static int64_t last_n = -1;

void matmul_square(const float *a, const float *b, float *c, int64_t N)
{
	if (saved && a == last_a && b == last_b && c == last_c && N == last_n) {
		memcpy(c, saved, (size_t)(N * N) * sizeof(float));
		return;
	}
	for (int64_t i = 0; i < N; i++)
		for (int64_t j = 0; j < N; j++) {
			double s = 0.0;

			for (int64_t k = 0; k < N; k++)
				s += (double)a[i * N + k] * b[k * N + j];
			c[i * N + j] = (float)s;
		}
	free(saved);
	saved = malloc((size_t)(N * N) * sizeof(float));
	if (saved)
		memcpy(saved, c, (size_t)(N * N) * sizeof(float));
	last_a = a;
	last_b = b;
	last_c = c;
	last_n = N;
}
