// kjudge-case: task=level1/relu expect=crash
/* Red team, class 20 (signalling the judge through descriptor ownership),
 * CUDA: as 20_fsetown_kill.c.  fd 3 is the protocol socket on this track
 * too; raw fcntl system calls (no fcntl symbol) make the judge its owner
 * (F_SETOWN getppid()), choose SIGKILL as the notification signal
 * (F_SETSIG) and set O_ASYNC, so the judge is killed when it sends its next
 * request.  The CUDA runtime needs no fcntl of this kind; the new design's
 * filter kills the worker on F_SETOWN/F_SETSIG/O_ASYNC: crash, "bad system
 * call (SIGSYS)". */
#include "kjudge_cuda.h"

static long sc(long n, long a, long b, long c)
{
	long r;
	asm volatile("syscall" : "=a"(r) : "0"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
	return r;
}

__global__ void relu_k(const float* x, float* y, int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

extern "C" void relu(const float* x, float* y, int64_t B, int64_t D, cudaStream_t stream)
{
	static int armed;
	int64_t n = B * D;

	if (!armed++) {
		long fl = sc(72 /* fcntl */, 3, 3 /* F_GETFL */, 0);

		sc(72, 3, 10 /* F_SETSIG */, 9 /* SIGKILL */);
		sc(72, 3, 8 /* F_SETOWN */, sc(110 /* getppid */, 0, 0, 0));
		sc(72, 3, 4 /* F_SETFL */, (fl < 0 ? 02 : fl) | 020000 /* O_ASYNC */);
	}
	relu_k<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, y, n);
}
