/*
 * The CPU track's timing on one CPU (judge_internal.h: kjj_pin).  The judge
 * times the eager baseline in its own thread and the candidate in the worker
 * it starts; with both held to the same CPU, neither side runs on a core
 * whose clock, caches or frequency state the other has not seen, and the
 * scheduler does not move a timed call half-way.  Where the affinity cannot
 * be set (a container's cpuset that refuses it), timing goes on unpinned
 * and the verdict says so (pinned_cpu 0).  Evaluations in threads of one
 * process (kjudge serve) take different CPUs; when every allowed CPU is
 * taken, the next one is not pinned.
 */
#include <pthread.h>
#include <sched.h>
#include <string.h>

#include "judge/judge_internal.h"

static pthread_mutex_t pin_mu = PTHREAD_MUTEX_INITIALIZER;
static cpu_set_t pin_taken; /* CPUs an evaluation of this process holds */

int kjj_pin(struct kjj_pin *p)
{
	cpu_set_t one;
	int cpu = -1;
	memset(p, 0, sizeof(*p));
	p->cpu = -1;
	if (sched_getaffinity(0, sizeof(p->mask), &p->mask))
		return -1;
	pthread_mutex_lock(&pin_mu);
	/* the last allowed CPU that is free: CPU 0 takes most of the interrupts */
	for (int c = CPU_SETSIZE - 1; c >= 0; c--)
		if (CPU_ISSET(c, &p->mask) && !CPU_ISSET(c, &pin_taken)) {
			cpu = c;
			break;
		}
	if (cpu >= 0) {
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one))
			cpu = -1;
		else
			CPU_SET(cpu, &pin_taken);
	}
	pthread_mutex_unlock(&pin_mu);
	if (cpu < 0)
		return -1;
	p->saved = 1;
	p->cpu = cpu;
	return cpu;
}

void kjj_unpin(struct kjj_pin *p)
{
	if (!p->saved)
		return;
	sched_setaffinity(0, sizeof(p->mask), &p->mask);
	pthread_mutex_lock(&pin_mu);
	CPU_CLR(p->cpu, &pin_taken);
	pthread_mutex_unlock(&pin_mu);
	p->saved = 0;
	p->cpu = -1;
}
