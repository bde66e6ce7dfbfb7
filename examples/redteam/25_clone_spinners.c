// kjudge-case: task=level1/relu expect=crash
/* Red team, class 25 (starving the baseline) with raw clone threads: the
 * judge times its own eager baseline on the CPU between (or after) the
 * candidate's calls, while the worker sits idle.  The first call starts one
 * spinning thread per CPU it may run on (at most 4) with a raw clone system
 * call in inline assembly (no thread symbol for the static policy).  The
 * spinners burn CPU whenever no call is running and sleep on a futex during
 * the candidate's own calls, so the judge's baseline and reference work
 * compete for the machine and the candidate's calls do not: a larger
 * speedup for the same honest work.  The new design kills any clone after
 * the load (SIGSYS: crash); it also stops the worker between calls and
 * times the baseline while no candidate process runs. */
#include <stdint.h>
#include <stdlib.h>

#define CLONE_THREAD_FLAGS 0x250f00L /* VM FS FILES SIGHAND THREAD SYSVSEM CHILD_CLEARTID */

static volatile int in_call;

static long sc(long n, long a, long b, long c)
{
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "0"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
	return r;
}

static void spin(void *arg)
{
	(void)arg;
	for (;;) {
		if (in_call) {
			register long r10 __asm__("r10") = 0;
			long r;

			__asm__ volatile("syscall" : "=a"(r) : "0"(202L), "D"(&in_call), "S"(0L /* FUTEX_WAIT */), "d"(1L), "r"(r10)
					 : "rcx", "r11", "memory");
			continue;
		}
		for (volatile int k = 0; k < 100000; k++)
			;
	}
}

/* clone(flags, stack, NULL, ctid, 0): the child pops its argument and
 * function from its new stack, calls it and ends with exit(0) (this thread
 * only); the parent gets the child's tid */
static long clone_thread(void (*fn)(void *), void *arg, char *stack_top, volatile int *ctid)
{
	void **sp = (void **)((uintptr_t)stack_top & ~(uintptr_t)15);
	register long r10 __asm__("r10") = (long)ctid;
	register long r8 __asm__("r8") = 0;
	long r;

	*--sp = (void *)fn;
	*--sp = arg;
	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "xor %%ebp, %%ebp\n\t"
			 "pop %%rdi\n\t"
			 "pop %%rax\n\t"
			 "call *%%rax\n\t"
			 "mov $60, %%eax\n\t"
			 "xor %%edi, %%edi\n\t"
			 "syscall\n\t"
			 "ud2\n"
			 "1:"
			 : "=a"(r)
			 : "0"(56L), "D"(CLONE_THREAD_FLAGS), "S"(sp), "d"(0L), "r"(r10), "r"(r8)
			 : "rcx", "r11", "memory");
	return r;
}

static void start_spinners(void)
{
	unsigned long mask[16] = {0};
	long n = 0, bytes = sc(204 /* sched_getaffinity */, 0, sizeof(mask), (long)mask);
	static volatile int ctid[4];

	for (long i = 0; bytes > 0 && i < bytes * 8; i++)
		n += (mask[i / 64] >> (i % 64)) & 1;
	for (long i = 0; i < n && i < 4; i++) {
		char *stack = malloc(1 << 16);

		if (stack)
			clone_thread(spin, NULL, stack + (1 << 16), &ctid[i]);
	}
}

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	static int started;

	in_call = 1;
	if (!started++)
		start_spinners();
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
	in_call = 0;
	sc(202 /* futex */, (long)&in_call, 1 /* FUTEX_WAKE */, 64);
}
