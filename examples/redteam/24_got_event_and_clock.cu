// kjudge-case: task=level1/relu expect=pass flag=timing_gap
/* Red team, class 24 (forged device times), CUDA, both of the worker's
 * clocks: GOT hooks (constructor, auxiliary vector, raw mprotect) on
 * kjudge-worker's cudaEventElapsedTime and clock_gettime.  Each call
 * computes a believable time for its shape, 8 bytes per element at 3 TB/s
 * (just above the H200's roofline, so faster_than_roofline does not fire),
 * and after the candidate returns the worker's monotonic clock reads "the
 * call's start + that time", so the event time and the device-wide sync
 * bound the worker reports agree with each other and fit in the judge's
 * round trip.  The kernel is honest relu followed by 10 ms of waiting on
 * the same stream: a worker-side check sees a call about 8 times faster
 * than it was.  The judge's own wall clock around the call is the bound:
 * the reported time is far below it, flagged timing_gap and timed by the
 * bound, pass at the honest (slow) speed. */
#include <elf.h>
#include <errno.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kjudge_cuda.h"

static long sc(long n, long a, long b, long c, long d = 0, long e = 0, long f = 0)
{
	long r;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	__asm__ volatile("syscall" : "=a"(r) : "0"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return r;
}

/* kjudge-worker's load address: AT_PHDR minus PT_PHDR's address */
static uintptr_t exe_base(void)
{
	char **e = environ;
	const Elf64_auxv_t *av;
	const Elf64_Phdr *ph = NULL;
	long n = 0;

	while (*e)
		e++;
	for (av = (const Elf64_auxv_t *)(e + 1); av->a_type != AT_NULL; av++) {
		if (av->a_type == AT_PHDR)
			ph = (const Elf64_Phdr *)av->a_un.a_val;
		if (av->a_type == AT_PHNUM)
			n = (long)av->a_un.a_val;
	}
	for (long i = 0; ph && i < n; i++)
		if (ph[i].p_type == PT_PHDR)
			return (uintptr_t)ph - ph[i].p_vaddr;
	return 0;
}

/* Points the worker's GOT slot for `name` at fn (any relocation table). */
static int got_hook(uintptr_t base, const char* name, void* fn)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(base + eh->e_phoff);
	const Elf64_Dyn *dy = NULL;
	const Elf64_Sym *sym = NULL;
	const char *str = NULL;
	const Elf64_Rela *rel[2] = {NULL, NULL};
	size_t relsz[2] = {0, 0};

	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_DYNAMIC)
			dy = (const Elf64_Dyn *)(base + ph[i].p_vaddr);
	for (; dy && dy->d_tag != DT_NULL; dy++) {
		uintptr_t a = dy->d_un.d_ptr < base ? base + dy->d_un.d_ptr : dy->d_un.d_ptr;
		switch (dy->d_tag) {
		case DT_SYMTAB: sym = (const Elf64_Sym *)a; break;
		case DT_STRTAB: str = (const char *)a; break;
		case DT_JMPREL: rel[0] = (const Elf64_Rela *)a; break;
		case DT_PLTRELSZ: relsz[0] = dy->d_un.d_val; break;
		case DT_RELA: rel[1] = (const Elf64_Rela *)a; break;
		case DT_RELASZ: relsz[1] = dy->d_un.d_val; break;
		}
	}
	for (int t = 0; t < 2 && sym && str; t++)
		for (size_t k = 0; rel[t] && k < relsz[t] / sizeof(Elf64_Rela); k++) {
			const Elf64_Rela *r = &rel[t][k];
			uint32_t ty = (uint32_t)ELF64_R_TYPE(r->r_info);
			void **slot = (void **)(base + r->r_offset);

			if ((ty != R_X86_64_JUMP_SLOT && ty != R_X86_64_GLOB_DAT) ||
			    strcmp(str + sym[ELF64_R_SYM(r->r_info)].st_name, name))
				continue;
			sc(10 /* mprotect */, (long)((uintptr_t)slot & ~(uintptr_t)0xfff), 0x1000, 3, 0, 0, 0);
			*slot = fn;
			return 1;
		}
	return 0;
}

static volatile int frozen;
static volatile long last_ns, fake_ns;

static int fake_clock(clockid_t id, struct timespec* ts)
{
	long r;

	/* the worker reads its clock twice after the call; a few more reads
	 * and the real clock is back, whatever the worker does */
	if (frozen && frozen++ < 6) {
		ts->tv_sec = fake_ns / 1000000000L;
		ts->tv_nsec = fake_ns % 1000000000L;
		fake_ns += 100;
		return 0;
	}
	r = sc(228 /* clock_gettime */, id, (long)ts, 0);
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	last_ns = ts->tv_sec * 1000000000L + ts->tv_nsec;
	return 0;
}

static volatile float claim_ms;

static cudaError_t fake_elapsed(float* ms, cudaEvent_t a, cudaEvent_t b)
{
	(void)a;
	(void)b;
	*ms = claim_ms;
	frozen = 0; /* the worker is past its clocks for this call */
	return cudaSuccess;
}

__attribute__((constructor)) static void install(void)
{
	uintptr_t b = exe_base();

	if (b) {
		got_hook(b, "clock_gettime", (void*)fake_clock);
		got_hook(b, "cudaEventElapsedTime", (void*)fake_elapsed);
	}
}

__global__ void relu_k(const float* x, float* y, int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

/* one thread that waits `ns` nanoseconds of the GPU's global timer */
__global__ void spin_k(unsigned long long ns)
{
	unsigned long long t0, t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
	do
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	while (t - t0 < ns);
}

extern "C" void relu(const float* x, float* y, int64_t B, int64_t D, cudaStream_t stream)
{
	int64_t n = B * D;
	double ms = 8.0 * (double)n / 3.0e9; /* bytes / (3 TB/s), in ms */

	relu_k<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, y, n);
	spin_k<<<1, 1, 0, stream>>>(10000000ull);
	/* last_ns is the worker's reading just before it called us */
	claim_ms = (float)(ms > 0.001 ? ms : 0.001);
	fake_ns = last_ns + (long)(claim_ms * 1e6);
	frozen = 1;
}
