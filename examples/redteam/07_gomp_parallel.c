// kjudge-case: task=level1/relu expect=rejected
/* Red team, class 7 (background threads through OpenMP): the judge compiles
 * without -fopenmp, so `#pragma omp parallel` would be ignored; this calls
 * the runtime that the pragma lowers to (GOMP_parallel) by hand.  Rejected
 * by the symbol policy's GOMP_ / __kmpc_ / omp_ prefixes. */
#include <stdint.h>

void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags);

struct job {
	const float *x;
	float *y;
	int64_t n;
};

static void body(void *p)
{
	struct job *j = p;

	for (int64_t i = 0; i < j->n; i++)
		j->y[i] = j->x[i] > 0.0f ? j->x[i] : 0.0f;
}

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	struct job j = {x, y, B * D};

	GOMP_parallel(body, &j, 1, 0);
}
