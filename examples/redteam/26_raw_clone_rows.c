// kjudge-case: task=level1/relu expect=crash
/* Red team, class 26 (threads without thread symbols): splits relu's rows
 * over two threads without pthread_create, thrd_create or OpenMP (all
 * rejected by name).  The second thread is a raw clone system call in
 * inline assembly (CLONE_VM|CLONE_THREAD|..., its own malloc'd stack, no
 * TLS of its own: it touches nothing but the rows it is given), joined
 * with CLONE_CHILD_CLEARTID and a raw futex wait, so all of the work is
 * still inside the call: the answer is right and the time is halved on
 * two cores.  Threads are what the symbol policy forbids on the CPU track;
 * the seccomp allowlist of the new design kills any clone after the load
 * (SIGSYS: crash, "bad system call (SIGSYS)"). */
#include <stdint.h>
#include <stdlib.h>

#define CLONE_THREAD_FLAGS 0x250f00L /* VM FS FILES SIGHAND THREAD SYSVSEM CHILD_CLEARTID */

struct part {
	const float *x;
	float *y;
	int64_t n;
};

static void relu_part(void *arg)
{
	struct part *p = arg;

	for (int64_t i = 0; i < p->n; i++)
		p->y[i] = p->x[i] > 0.0f ? p->x[i] : 0.0f;
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

static void join(volatile int *ctid)
{
	int v;

	while ((v = *ctid) != 0) {
		register long r10 __asm__("r10") = 0;
		long r;

		__asm__ volatile("syscall" : "=a"(r) : "0"(202L), "D"(ctid), "S"(0L /* FUTEX_WAIT */), "d"((long)v), "r"(r10)
				 : "rcx", "r11", "memory");
	}
}

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	static char *stack;
	volatile int ctid = 1;
	int64_t half = B / 2 * D;
	struct part lo = {x, y, half}, hi = {x + half, y + half, B * D - half};

	if (!stack)
		stack = malloc(1 << 16);
	if (half == 0 || !stack || clone_thread(relu_part, &hi, stack + (1 << 16), &ctid) <= 0) {
		relu_part(&lo);
		relu_part(&hi);
		return;
	}
	relu_part(&lo);
	join(&ctid);
}
