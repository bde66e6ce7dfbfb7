// kjudge-case: task=level1/relu expect=rejected
/* Red team, class 7 (background thread): starts a thread that writes the
 * output after the call returns, so a timer around the call sees almost
 * nothing.  The static symbol policy rejects pthread_create (and the
 * worker's seccomp filter would still let threads run, so this stays a
 * static rule). */
#include <pthread.h>
#include <stdint.h>

struct job {
	const float *x;
	float *y;
	int64_t n;
};

static struct job job;

static void *work(void *p)
{
	struct job *j = p;

	for (int64_t i = 0; i < j->n; i++)
		j->y[i] = j->x[i] > 0.0f ? j->x[i] : 0.0f;
	return NULL;
}

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	pthread_t t;

	job.x = x;
	job.y = y;
	job.n = B * D;
	if (pthread_create(&t, NULL, work, &job) == 0)
		pthread_detach(t);
}
