// kjudge-case: task=level1/relu expect=mismatch
/* Red team, class 23 (forged early reply), CUDA: as 23_got_forge_early_ok.c.
 * GOT hooks in kjudge-worker (constructor, auxiliary vector, raw mprotect):
 * `recvmsg` notes each request's type and sequence number, `send` drops
 * the worker's own reply to a request the candidate already answered.
 * Each call sends a well-formed OK for the current CALL on fd 3 (raw
 * sendto) claiming 2 us of device time and 2 us to the device-wide sync,
 * both inside the judge's round trip, and only then launches the kernel.
 * The judge takes the forged times and reads the outputs while the kernel
 * is still queued or running (the bench shapes move gigabytes).  A judge
 * that snapshots the outputs when the reply arrives loses the work:
 * mismatch. */
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

static volatile uint32_t req_type, req_seq, forged_seq;

static ssize_t hook_recvmsg(int fd, struct msghdr* mh, int flags)
{
	long r = sc(47 /* recvmsg */, fd, (long)mh, flags);

	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	if (r >= 8 && mh->msg_iovlen) {
		req_type = ((const uint32_t*)mh->msg_iov[0].iov_base)[0];
		req_seq = ((const uint32_t*)mh->msg_iov[0].iov_base)[1];
	}
	return r;
}

static ssize_t hook_send(int fd, const void* buf, size_t len, int flags)
{
	long r;

	if (len >= 8 && forged_seq && ((const uint32_t*)buf)[1] == forged_seq) {
		forged_seq = 0;
		return (ssize_t)len;
	}
	r = sc(44 /* sendto */, fd, (long)buf, (long)len, flags, 0, 0);
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
	/* OK: type 0x100, seq, worker_ns, gpu_ns, devsync_ns (wire.h) */
	struct { uint32_t type, seq; int64_t worker_ns, gpu_ns, devsync_ns; } ok = {0x100, 0, 1000, 2000, 2000};
	int64_t n = B * D;

	if (req_type == 4 /* CALL */ && req_seq) {
		ok.seq = req_seq;
		if (sc(44, 3, (long)&ok, sizeof(ok), 0x4000 /* MSG_NOSIGNAL */, 0, 0) == (long)sizeof(ok))
			forged_seq = req_seq;
	}
	relu_k<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, y, n);
}
