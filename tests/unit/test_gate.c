/*
 * The GPU timing gate (src/judge/gate.c): a hold alone never overlaps any
 * other hold, shared holds overlap each other, and once an evaluation waits
 * to hold it alone no new shared hold begins before it has had its turn.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "kjudge/judge.h"
#include "tap.h"

static kj_gpu_gate *gate;
static atomic_int in_shared, in_alone, overlap, max_shared;

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
	nanosleep(&ts, NULL);
}

static void *worker(void *arg)
{
	long id = (long)arg;
	for (int i = 0; i < 200; i++) {
		int alone = (i + id) % 3 == 0;
		kj_gpu_gate_enter(gate, alone);
		if (alone) {
			if (atomic_fetch_add(&in_alone, 1) != 0 || atomic_load(&in_shared) != 0)
				atomic_store(&overlap, 1);
			sleep_us(50);
			if (atomic_load(&in_shared) != 0)
				atomic_store(&overlap, 1);
			atomic_fetch_sub(&in_alone, 1);
		} else {
			int n = atomic_fetch_add(&in_shared, 1) + 1, m = atomic_load(&max_shared);
			while (n > m && !atomic_compare_exchange_weak(&max_shared, &m, n))
				;
			if (atomic_load(&in_alone) != 0)
				atomic_store(&overlap, 1);
			sleep_us(100);
			atomic_fetch_sub(&in_shared, 1);
		}
		kj_gpu_gate_leave(gate, alone);
	}
	return NULL;
}

/* ---- writers first ---- */

static atomic_int order[3], norder;

static void *late_shared(void *arg)
{
	(void)arg;
	kj_gpu_gate_enter(gate, 0);
	order[atomic_fetch_add(&norder, 1)] = 2;
	kj_gpu_gate_leave(gate, 0);
	return NULL;
}

static void *want_alone(void *arg)
{
	(void)arg;
	kj_gpu_gate_enter(gate, 1);
	order[atomic_fetch_add(&norder, 1)] = 1;
	kj_gpu_gate_leave(gate, 1);
	return NULL;
}

int main(void)
{
	pthread_t th[6], a, b;
	gate = kj_gpu_gate_new();
	ok(gate != NULL, "a gate is made");
	for (long i = 0; i < 6; i++)
		pthread_create(&th[i], NULL, worker, (void *)i);
	for (int i = 0; i < 6; i++)
		pthread_join(th[i], NULL);
	ok(atomic_load(&overlap) == 0, "no hold alone overlapped another hold (6 threads, 1200 holds)");
	ok(atomic_load(&max_shared) >= 2, "shared holds overlapped each other (at most %d at once)",
	   atomic_load(&max_shared));

	/* main holds it shared; one thread waits to hold it alone, then a
	 * second asks for a shared hold: the alone one goes first */
	kj_gpu_gate_enter(gate, 0);
	pthread_create(&a, NULL, want_alone, NULL);
	sleep_us(100000);
	pthread_create(&b, NULL, late_shared, NULL);
	sleep_us(100000);
	ok(atomic_load(&norder) == 0, "neither ran while the first shared hold lasted");
	kj_gpu_gate_leave(gate, 0);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	ok(atomic_load(&norder) == 2 && order[0] == 1 && order[1] == 2,
	   "the waiting alone hold went before the later shared one (order %d, %d)", order[0], order[1]);
	kj_gpu_gate_free(gate);
	return done_testing();
}
