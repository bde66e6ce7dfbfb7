// kjudge-case: task=level1/relu expect=rejected
/* Red team, class 7 (background thread through C11 <threads.h>): the same
 * as 07_pthread_finish_later.c with thrd_create, in case a policy only knew
 * the POSIX name.  Rejected by the symbol policy. */
#include <stdint.h>
#include <threads.h>

struct job {
	const float *x;
	float *y;
	int64_t n;
};

static struct job job;

static int work(void *p)
{
	struct job *j = p;

	for (int64_t i = 0; i < j->n; i++)
		j->y[i] = j->x[i] > 0.0f ? j->x[i] : 0.0f;
	return 0;
}

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	thrd_t t;

	job.x = x;
	job.y = y;
	job.n = B * D;
	if (thrd_create(&t, work, &job) == thrd_success)
		thrd_detach(t);
}
