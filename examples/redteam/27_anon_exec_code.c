// kjudge-case: task=level1/relu expect=pass flag=fallback
/* Red team, class 27 (hidden library), CPU: the work runs in code no file
 * backs.  A constructor (it runs while LOAD dlopens the object, before the
 * worker's filter forbids new executable mappings) maps an anonymous page
 * read-write-execute with a raw mmap system call (the object imports no
 * mmap for the symbol policy to see) and writes into it, byte by byte, the
 * x86-64 machine code of a ReLU loop; relu() calls it there.  The page
 * could as well hold a whole library read from anywhere: the judge must
 * say so.  It reads the worker's /proc/PID/maps after LOAD and after every
 * call, and an executable mapping that no file backs is "code loaded by
 * hand": fallback (rejected under --policy strict: "the worker had
 * anonymous executable memory mapped after a call", judged by hand; t25
 * does not run this case yet).  Where
 * the page cannot be had (not x86-64) the case computes in C, and the
 * missing flag fails its header. */
#include <stdint.h>

typedef void (*relu_fn)(const float *x, float *y, int64_t n);
static relu_fn code;

/* relu over n floats, System V: rdi x, rsi y, rdx n */
static const unsigned char relu_x86_64[] = {
	0x31, 0xc0,                   /* xor eax, eax */
	0x0f, 0x57, 0xc9,             /* xorps xmm1, xmm1 */
	0x48, 0x39, 0xd0,             /* loop: cmp rax, rdx */
	0x7d, 0x13,                   /* jge done */
	0xf3, 0x0f, 0x10, 0x04, 0x87, /* movss xmm0, [rdi + rax * 4] */
	0xf3, 0x0f, 0x5f, 0xc1,       /* maxss xmm0, xmm1 */
	0xf3, 0x0f, 0x11, 0x04, 0x86, /* movss [rsi + rax * 4], xmm0 */
	0x48, 0xff, 0xc0,             /* inc rax */
	0xeb, 0xe8,                   /* jmp loop */
	0xc3,                         /* done: ret */
};

__attribute__((constructor)) static void load(void)
{
#if defined(__x86_64__)
	long r;
	register long r10 __asm__("r10") = 0x22; /* MAP_PRIVATE | MAP_ANONYMOUS */
	register long r8 __asm__("r8") = -1;
	register long r9 __asm__("r9") = 0;
	/* mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, ...) */
	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "0"(9L), "D"(0L), "S"(4096L), "d"(7L), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	if (r < 0 && r > -4096)
		return;
	for (unsigned i = 0; i < sizeof(relu_x86_64); i++)
		((volatile unsigned char *)r)[i] = relu_x86_64[i];
	code = (relu_fn)r;
#endif
}

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	int64_t n = B * D;
	if (code) {
		code(x, y, n);
		return;
	}
	for (int64_t i = 0; i < n; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
