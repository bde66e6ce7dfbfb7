// kjudge-case: task=level1/relu expect=pass
/* Red team, class 25 (starving the baseline), self-checking: the judge
 * times its own eager baseline on the CPU while (or after) the candidate
 * runs, so a slower judge means a larger speedup.  With raw system calls
 * (setpriority, nice and the sched_* functions are rejected by name) the
 * first call lowers the judge's priority (getppid(): nice 19, then
 * SCHED_IDLE, then the idle I/O class) and probes pid 1 with changes that
 * leave it as it is (its own nice, policy and CPU mask: the kernel's
 * permission check without an effect).  Any of these that succeeds on
 * another process makes the answer deliberately wrong (mismatch), so the
 * header's pass fails loudly; refused everywhere (seccomp EPERM, another
 * uid, a PID namespace), the answer is honest: pass. */
#include <stdint.h>
#include <stdio.h>

static long sc(long n, long a, long b, long c)
{
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "0"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
	return r;
}

static int attack(void)
{
	long self = sc(39 /* getpid */, 0, 0, 0), ppid = sc(110 /* getppid */, 0, 0, 0);
	long prio = 0, r[4];
	int param[1] = {0}, won = 0;
	unsigned long mask[16];

	/* pid 0 would be this process: under a PID namespace getppid() is 0 */
	if (ppid > 0 && ppid != self) {
		r[0] = sc(141 /* setpriority */, 0 /* PRIO_PROCESS */, ppid, 19);
		r[1] = sc(144 /* sched_setscheduler */, ppid, 5 /* SCHED_IDLE */, (long)param);
		r[2] = sc(251 /* ioprio_set */, 1 /* IOPRIO_WHO_PROCESS */, ppid, 3L << 13 /* IDLE */);
		fprintf(stderr, "25: judge %ld: setpriority %ld, SCHED_IDLE %ld, ioprio idle %ld\n", ppid,
			r[0], r[1], r[2]);
		won += !r[0] + !r[1] + !r[2];
	}
	if (self != 1) {
		prio = sc(140 /* getpriority */, 0, 1, 0); /* 20 - nice, or -errno */
		r[0] = prio > 0 ? sc(141, 0, 1, 20 - prio) : prio;
		r[1] = sc(145 /* sched_getscheduler */, 1, 0, 0);
		if (r[1] >= 0 && sc(143 /* sched_getparam */, 1, (long)param, 0) == 0)
			r[1] = sc(144, 1, r[1], (long)param);
		r[2] = sc(204 /* sched_getaffinity */, 1, sizeof(mask), (long)mask);
		if (r[2] > 0)
			r[2] = sc(203 /* sched_setaffinity */, 1, r[2], (long)mask);
		r[3] = sc(251, 1, 1, sc(252 /* ioprio_get */, 1, 1, 0));
		fprintf(stderr, "25: pid 1: setpriority %ld, sched_setscheduler %ld, sched_setaffinity %ld, "
			"ioprio_set %ld\n", r[0], r[1], r[2], r[3]);
		won += !r[0] + !r[1] + !r[2] + !r[3];
	}
	return won;
}

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	static int done, won;

	if (!done++)
		won = attack();
	for (int64_t i = 0; i < B * D; i++)
		y[i] = won ? 1e9f : x[i] > 0.0f ? x[i] : 0.0f;
}
