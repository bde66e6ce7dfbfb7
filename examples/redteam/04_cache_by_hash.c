// kjudge-case: task=level1/matmul_square expect=pass
/* Red team, class 4 (output caching by a cheap content hash): keys a small
 * cache on N and 16 sampled elements of a and b, computes honestly on a miss
 * and replays on a hit.  Its answers are always right, so the verdict is
 * pass: what it would corrupt is timing.  Every timed call gets inputs
 * drawn from a seed never used before, so the cache never hits and the
 * candidate is timed doing the work (speedup ~0.37x on the CPU track, where
 * a replaying cache had shown a memcpy's time before fresh inputs). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS 8
#define PROBES 16

static struct {
	int64_t n;
	uint64_t key;
	float *c;
} cache[SLOTS];
static int next_slot;

static uint64_t sample_hash(const float *a, const float *b, int64_t n)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)n;
	int64_t nn = n * n;

	for (int i = 0; i < PROBES; i++) {
		int64_t k = (int64_t)((uint64_t)i * 2654435761u % (uint64_t)nn);
		uint32_t u, v;

		memcpy(&u, &a[k], 4);
		memcpy(&v, &b[k], 4);
		h = (h ^ u) * 1099511628211ull;
		h = (h ^ v) * 1099511628211ull;
	}
	return h;
}

void matmul_square(const float *a, const float *b, float *c, int64_t N)
{
	uint64_t key = sample_hash(a, b, N);
	size_t bytes = (size_t)(N * N) * sizeof(float);
	int i;

	for (i = 0; i < SLOTS; i++)
		if (cache[i].c && cache[i].n == N && cache[i].key == key) {
			memcpy(c, cache[i].c, bytes);
			return;
		}
	for (int64_t r = 0; r < N; r++)
		for (int64_t j = 0; j < N; j++) {
			double s = 0.0;

			for (int64_t k = 0; k < N; k++)
				s += (double)a[r * N + k] * b[k * N + j];
			c[r * N + j] = (float)s;
		}
	i = next_slot;
	next_slot = (next_slot + 1) % SLOTS;
	free(cache[i].c);
	cache[i].c = malloc(bytes);
	if (cache[i].c) {
		memcpy(cache[i].c, c, bytes);
		cache[i].n = N;
		cache[i].key = key;
	}
}
