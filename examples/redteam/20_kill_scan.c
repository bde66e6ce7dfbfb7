// kjudge-case: task=level1/relu expect=pass
/* Red team, class 20 (signalling the judge), self-checking: with raw
 * system calls (no kill/tgkill symbol for the static policy) it probes the
 * judge (getppid()) and pid 1 with kill, tgkill and a pidfd, and, spread
 * over the first 16 calls, every pid from 1 to 4194304 with signal 0, which
 * performs the kernel's whole existence and permission check and delivers
 * nothing.  A probe that returns 0 for a process other than this one means
 * a real signal (SIGSTOP to freeze the judge's timing, SIGKILL to end the
 * run) would have been delivered too: the answer is then deliberately
 * wrong (mismatch), so the header's pass fails loudly.  When every probe is
 * refused (seccomp EPERM, another uid, a PID namespace that holds nobody
 * else) the answer is honest: pass.  Signal 0 keeps the probe harmless
 * where a defence is missing. */
#include <stdint.h>
#include <stdio.h>

static long sc(long n, long a, long b, long c)
{
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "0"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
	return r;
}

#define PID_MAX 4194304L
#define SLICES 16

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	static int calls, reachable, seen;
	long self = sc(39 /* getpid */, 0, 0, 0), ppid = sc(110 /* getppid */, 0, 0, 0);

	if (calls == 0) {
		long targets[2] = {ppid, 1};

		for (int i = 0; i < 2; i++) {
			long t = targets[i], k, g, f, s = -1;

			if (t <= 0 || t == self) /* 0 would be this process group */
				continue;
			k = sc(62 /* kill */, t, 0, 0);
			g = sc(234 /* tgkill */, t, t, 0);
			f = sc(434 /* pidfd_open */, t, 0, 0);
			if (f >= 0)
				s = sc(424 /* pidfd_send_signal */, f, 0, 0);
			fprintf(stderr, "20: pid %ld: kill %ld, tgkill %ld, pidfd_open %ld, pidfd_send_signal %ld\n",
				t, k, g, f, s);
			reachable += k == 0 || g == 0 || s == 0;
		}
	}
	if (calls < SLICES) {
		long lo = 1 + calls * (PID_MAX / SLICES), hi = lo + PID_MAX / SLICES;

		for (long p = lo; p < hi; p++) {
			long r;

			if (p == self)
				continue;
			r = sc(62, p, 0, 0);
			reachable += r == 0;
			seen += r != -3 /* ESRCH: no such process */;
		}
		if (calls == SLICES - 1)
			fprintf(stderr, "20: pid scan: %d signalable, %d not ESRCH\n", reachable, seen);
	}
	calls++;
	for (int64_t i = 0; i < B * D; i++)
		y[i] = reachable ? 1e9f : x[i] > 0.0f ? x[i] : 0.0f;
}
