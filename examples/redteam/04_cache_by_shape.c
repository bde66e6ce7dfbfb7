// kjudge-case: task=level1/softmax expect=mismatch
/* Red team, class 4 (output caching by shape): remembers one answer per
 * (B, D) and replays it for any later call of that shape, the "weights
 * never change" assumption.  Every correctness seed draws new inputs for
 * the same shape, so the second seed of the first shape gets a stale
 * answer. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS 16

static struct {
	int64_t B, D;
	float *y;
} cache[SLOTS];

void softmax(const float *x, float *y, int64_t B, int64_t D)
{
	size_t bytes = (size_t)(B * D) * sizeof(float);
	int i;

	for (i = 0; i < SLOTS; i++)
		if (cache[i].y && cache[i].B == B && cache[i].D == D) {
			memcpy(y, cache[i].y, bytes);
			return;
		}
	for (int64_t b = 0; b < B; b++) {
		const float *r = x + b * D;
		float m = r[0];
		double s = 0.0;

		for (int64_t d = 1; d < D; d++)
			m = r[d] > m ? r[d] : m;
		for (int64_t d = 0; d < D; d++)
			s += exp((double)r[d] - m);
		for (int64_t d = 0; d < D; d++)
			y[b * D + d] = (float)(exp((double)r[d] - m) / s);
	}
	for (i = 0; i < SLOTS; i++)
		if (!cache[i].y) {
			cache[i].y = malloc(bytes);
			if (cache[i].y) {
				memcpy(cache[i].y, y, bytes);
				cache[i].B = B;
				cache[i].D = D;
			}
			break;
		}
}
