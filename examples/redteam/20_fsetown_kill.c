// kjudge-case: task=level1/relu expect=crash
/* Red team, class 20 (signalling the judge through descriptor ownership):
 * fd 3 is the worker's end of the protocol socket.  With raw fcntl system
 * calls (no fcntl symbol for the static policy) the candidate makes the
 * judge the socket's owner (F_SETOWN getppid()), picks SIGKILL as the
 * notification signal (F_SETSIG) and turns on O_ASYNC: the kernel then
 * signals the owner whenever the socket becomes readable, that is when the
 * judge sends its next request, and the judge dies inside its own sendmsg.
 * No kill(2) is ever made, so a filter on kill/tgkill does not see it.  The
 * new design kills the worker on F_SETOWN/F_SETSIG/O_ASYNC (SIGSYS: crash,
 * "bad system call (SIGSYS)"), before any owner is set. */
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
		long fl = sc(72 /* fcntl */, 3, 3 /* F_GETFL */, 0);

		sc(72, 3, 10 /* F_SETSIG */, 9 /* SIGKILL */);
		sc(72, 3, 8 /* F_SETOWN */, sc(110 /* getppid */, 0, 0, 0));
		sc(72, 3, 4 /* F_SETFL */, (fl < 0 ? 02 : fl) | 020000 /* O_ASYNC */);
	}
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
