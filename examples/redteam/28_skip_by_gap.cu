// kjudge-case: task=level1/relu expect=mismatch
/* Red team, class 28 (skipping unchecked timed calls), CUDA, by a timing
 * side channel that no secret seed hides: the judge computes a verified
 * call's fp64 reference before sending the CALL (and compares after the
 * reply), so the host time between the worker's reply and the next request
 * is longer before a verified call.  GOT hooks on kjudge-worker's `send`
 * and `recvmsg` (constructor, auxiliary vector, raw mprotect) stamp both
 * with rdtsc and read each CALL's timed flag and dims.  Timed calls 0 and 1
 * of a shape are always verified: the gap before call 1 calibrates; a
 * later call whose gap is under 0.65 of it is taken for unverified and
 * gets no work.  If no such call shows by call 6 (every call verified
 * alike), it gambles on one call in 4.  Where every timed call is checked,
 * at least cheaply, a skipped call keeps its NaN sentinels: mismatch
 * (t10_cuda_cases.sh runs with perf). */
#include <elf.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
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

/* The judge's CALLs as the worker receives them (wire.h, v5: type, seq,
 * nptr, ndim, flags at 16, reps at 20, stride at 24, off[64] at 32,
 * dims[32] at 544).  A call is timed when its flags say so (bit 0: the
 * worker flushes the L2 first) or, where the flag is gone, when the
 * correctness stage's 32 calls on level1/relu are over (4 check and 2
 * bench shapes, 5 seeds, 2 determinism reruns); `it` counts timed calls
 * per shape, as the judge's timing loop does. */
static volatile int timed, it = -1;
static long ncalls, last_b, last_d;

static void note_call(const unsigned char* m)
{
	uint32_t flags;
	int64_t dims[2];

	memcpy(&flags, m + 16, 4);
	memcpy(dims, m + 544, 16);
	timed = (flags & 1) || ++ncalls > 32;
	if (!timed)
		return;
	if (dims[0] != last_b || dims[1] != last_d)
		it = -1;
	last_b = dims[0];
	last_d = dims[1];
	it++;
}

static uint64_t tsc(void)
{
	uint32_t lo, hi;

	asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

static volatile uint64_t replied, calib, gap;
static volatile int saw_short;

static ssize_t hook_recvmsg(int fd, struct msghdr* mh, int flags)
{
	long r = sc(47 /* recvmsg */, fd, (long)mh, flags);

	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	if (r >= 792 && mh->msg_iovlen && ((const uint32_t*)mh->msg_iov[0].iov_base)[0] == 4) {
		gap = replied ? tsc() - replied : 0;
		note_call((const unsigned char*)mh->msg_iov[0].iov_base);
	}
	return r;
}

static ssize_t hook_send(int fd, const void* buf, size_t len, int flags)
{
	long r = sc(44 /* sendto */, fd, (long)buf, (long)len, flags, 0, 0);

	replied = tsc();
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

__attribute__((constructor)) static void install(void)
{
	uintptr_t b = exe_base();

	if (b) {
		got_hook(b, "recvmsg", (void*)hook_recvmsg);
		got_hook(b, "send", (void*)hook_send);
	}
}

__global__ void relu_k(const float* x, float* y, int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

extern "C" void relu(const float* x, float* y, int64_t B, int64_t D, cudaStream_t stream)
{
	int64_t n = B * D;
	int skip = 0;

	if (timed && it == 0)
		saw_short = 0;
	if (timed && it == 1)
		calib = gap;
	if (timed && it >= 2 && calib) {
		if (gap < calib * 65 / 100)
			skip = saw_short = 1;
		else if (!saw_short && it >= 6)
			skip = it % 4 == 3;
	}
	if (skip)
		return;
	relu_k<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, y, n);
}
