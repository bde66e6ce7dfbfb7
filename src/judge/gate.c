/*
 * A device's timing gate (include/kjudge/judge.h): evaluations that share a
 * GPU hold it shared for their untimed GPU work and alone for their timed
 * work, so that no timed call, baseline time or floor probe ever runs beside
 * other GPU work of this process or of a worker it started.  A readers-
 * writer lock with the writers first: once an evaluation asks to time, no
 * new shared holder enters until it has timed, so the timed side cannot
 * starve behind a stream of correctness work.
 */
#include <pthread.h>
#include <stdlib.h>

#include "kjudge/judge.h"

struct kj_gpu_gate {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int shared;       /* holders of the shared side */
	int alone;        /* 1 while an evaluation holds it alone */
	int waiting;      /* evaluations waiting to hold it alone */
};

kj_gpu_gate *kj_gpu_gate_new(void)
{
	kj_gpu_gate *g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->cv, NULL);
	return g;
}

void kj_gpu_gate_free(kj_gpu_gate *g)
{
	if (!g)
		return;
	pthread_mutex_destroy(&g->mu);
	pthread_cond_destroy(&g->cv);
	free(g);
}

void kj_gpu_gate_enter(kj_gpu_gate *g, int alone)
{
	pthread_mutex_lock(&g->mu);
	if (alone) {
		g->waiting++;
		while (g->alone || g->shared)
			pthread_cond_wait(&g->cv, &g->mu);
		g->waiting--;
		g->alone = 1;
	} else {
		while (g->alone || g->waiting)
			pthread_cond_wait(&g->cv, &g->mu);
		g->shared++;
	}
	pthread_mutex_unlock(&g->mu);
}

void kj_gpu_gate_leave(kj_gpu_gate *g, int alone)
{
	pthread_mutex_lock(&g->mu);
	if (alone)
		g->alone = 0;
	else
		g->shared--;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
}
