// kjudge-case: task=level1/relu expect=crash
/* Red team, class 8 (harness patching through the result channel): fd 3 in
 * the worker is the protocol socket.  The raw `write`/`send` symbols are
 * rejected statically and the seccomp filter refuses write(2) on fd 3, so
 * this sends a forged OK reply ("done in 1 ns") with an inline `syscall`
 * instruction (sendto), invisible to the symbol table, before doing the
 * work.  The judge believes a reply only for its exact size, type and
 * sequence number, and a second reply to one request is a protocol
 * violation, so either the forgery or the real reply that follows is caught
 * and the verdict is crash. */
#include <stddef.h>
#include <stdint.h>

struct forged_ok {
	uint32_t type, seq;
	int64_t worker_ns, gpu_ns, devsync_ns;
};

static long raw_sendto(int fd, const void *buf, size_t len)
{
#if defined(__x86_64__)
	long ret;
	register long r10 __asm__("r10") = 0x4000; /* MSG_NOSIGNAL */
	register long r8 __asm__("r8") = 0;
	register long r9 __asm__("r9") = 0;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"(44L), "D"((long)fd), "S"(buf), "d"(len), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
#else
	(void)fd;
	(void)buf;
	(void)len;
	__builtin_trap(); /* the forgery is written for x86-64 */
#endif
}

static uint32_t guess = 1;

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	struct forged_ok m = {0x100, guess++, 1, 1, 1};

	raw_sendto(3, &m, sizeof(m));
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
