// kjudge-case: task=level1/relu expect=rejected
/* Broken: does the work on a second thread (the background-thread hack);
 * the symbol policy rejects pthread_create. */
#include <pthread.h>
#include <stdint.h>

struct job {
	const float *x;
	float *y;
	int64_t n;
};

static void *work(void *arg)
{
	struct job *j = arg;

	for (int64_t i = 0; i < j->n; i++)
		j->y[i] = j->x[i] > 0.0f ? j->x[i] : 0.0f;
	return NULL;
}

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	struct job j = { x, y, B * D };
	pthread_t t;

	if (pthread_create(&t, NULL, work, &j) == 0)
		pthread_join(t, NULL);
}
