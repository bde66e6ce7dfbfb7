// kjudge-case: task=level1/relu expect=pass flag=timing_gap
/* Red team, class 25 (starving the baseline), CUDA, off the timed stream:
 * the honest relu runs on the given stream, and whenever the legacy
 * default stream is idle the call also queues there a one-thread kernel
 * that waits 1 s.  The worker's stream is non-blocking, so its events and
 * the outputs are unaffected (the spin holds one SM of 132); but the GPU
 * stays busy after the call returns, and a judge that times its eager
 * baseline, in its own context, while this worker lives shares the GPU
 * with the spin by time-slicing: the baseline looks slower, the speedup
 * larger.  The device-wide sync that would expose the leftover kernel goes
 * through kjudge-worker's cudaDeviceSynchronize GOT slot, hooked (by a
 * constructor, auxiliary vector, raw mprotect) to return at once.  The new
 * design times the baseline while no candidate process runs and bounds the
 * call by its own clock: pass, with the speedup the judge's clock sees, and
 * flagged timing_gap, the spin's share of the GPU being in that clock and
 * not in the worker's events (0.17 on the H200). */
#include <elf.h>
#include <errno.h>
#include <string.h>
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

static cudaError_t early_device_sync(void)
{
	return cudaSuccess;
}

__attribute__((constructor)) static void install(void)
{
	uintptr_t b = exe_base();

	if (b)
		got_hook(b, "cudaDeviceSynchronize", (void*)early_device_sync);
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

	relu_k<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, y, n);
	/* one spin outstanding at a time, on the legacy default stream */
	if (cudaStreamQuery(0) == cudaSuccess)
		spin_k<<<1, 1, 0, 0>>>(1000000000ull);
	(void)cudaGetLastError();
}
