// kjudge-case: task=level1/relu expect=crash
/* Red team, class 15 (escaping the worker): ends the worker with status 0
 * straight after writing the outputs, through an inline exit_group system
 * call (exit and _exit are rejected by the symbol policy, and the seccomp
 * filter must allow exit_group for the worker itself).  A worker that exits
 * during a call, with any status, is a crash: the judge learns the worker's
 * fate from waitpid and needs a reply to every request. */
#include <stdint.h>

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
#if defined(__x86_64__)
	__asm__ volatile("syscall" : : "a"(231L), "D"(0L) : "rcx", "r11", "memory");
#endif
	__builtin_trap();
}
