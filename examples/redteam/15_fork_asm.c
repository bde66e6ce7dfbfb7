// kjudge-case: task=level1/relu expect=crash
/* Red team, class 15 (escaping the worker): forks through an inline `syscall`
 * instruction (fork, number 57 on x86-64), which no symbol table shows.  The
 * worker's seccomp filter kills the process on fork, vfork and clone without
 * CLONE_THREAD (SIGSYS): a crash verdict naming "bad system call", and no
 * child outlives the call. */
#include <stdint.h>

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	long pid = -1;

#if defined(__x86_64__)
	__asm__ volatile("syscall" : "=a"(pid) : "0"(57L) : "rcx", "r11", "memory");
	if (pid == 0) /* the child, were it ever to run: leave at once */
		__asm__ volatile("syscall" : : "a"(231L), "D"(0L) : "rcx", "r11", "memory");
#endif
	(void)pid;
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
