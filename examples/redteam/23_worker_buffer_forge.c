// kjudge-case: task=level1/relu expect=mismatch
/* Red team, class 23 (forged early reply), without hooking the receive
 * side: the current CALL's sequence number is read out of kjudge-worker's
 * own memory.  The worker keeps each request in a static buffer; the
 * candidate scans the worker's writable segments (found from the auxiliary
 * vector and the program headers) for a CALL whose counts and dims are
 * this call's (type 4, 2 pointers, 2 dims, dims B and D, wire.h's layout)
 * and takes its sequence number.  A GOT hook on the worker's `send`
 * (installed by a constructor, raw mprotect) swallows the worker's own
 * reply to a forged request.  On the bench shape it computes half of the
 * output, sends the forged OK on fd 3 (raw sendto) and computes the rest;
 * the judge stops its clock at the forgery.  A judge that snapshots the
 * outputs when the reply arrives (the worker frozen) loses the second
 * half: mismatch, as 23_got_forge_early_ok.c. */
#include <elf.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

extern char **environ;

static long sc(long n, long a, long b, long c, long d, long e, long f)
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
static int got_hook(uintptr_t base, const char *name, void *fn)
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

static volatile uint32_t forged_seq;

static long hook_send(int fd, const void *buf, size_t len, int flags)
{
	long r;

	if (len >= 8 && forged_seq && ((const uint32_t *)buf)[1] == forged_seq) {
		forged_seq = 0;
		return (long)len;
	}
	r = sc(44 /* sendto */, fd, (long)buf, (long)len, flags, 0, 0);
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

static uintptr_t worker;

__attribute__((constructor)) static void install(void)
{
	worker = exe_base();
	if (worker)
		got_hook(worker, "send", (void *)hook_send);
}

/* the worker's copy of this CALL: type 4, seq, nptr 2, ndim 2, ..., dims at 544 (wire v5) */
static uint32_t current_seq(int64_t B, int64_t D)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)worker;
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(worker + eh->e_phoff);

	for (int i = 0; i < eh->e_phnum; i++) {
		const unsigned char *p, *end;

		if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_W))
			continue;
		p = (const unsigned char *)((worker + ph[i].p_vaddr) & ~(uintptr_t)7);
		end = (const unsigned char *)(worker + ph[i].p_vaddr + ph[i].p_memsz) - 792;
		for (; p <= end; p += 8) {
			const uint32_t *u = (const uint32_t *)p;
			const int64_t *dims = (const int64_t *)(p + 544);

			if (u[0] == 4 && u[1] && u[2] == 2 && u[3] == 2 && dims[0] == B && dims[1] == D)
				return u[1];
		}
	}
	return 0;
}

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	/* OK: type 0x100, seq, worker_ns, gpu_ns, devsync_ns (wire.h) */
	struct { uint32_t type, seq; int64_t worker_ns, gpu_ns, devsync_ns; } ok = {0x100, 0, 1000, -1, -1};
	int64_t n = B * D, cut = n >= (1 << 20) ? n / 2 : n, i;

	for (i = 0; i < cut; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
	if (worker && (ok.seq = current_seq(B, D)) != 0 &&
	    sc(44, 3, (long)&ok, sizeof(ok), 0x4000 /* MSG_NOSIGNAL */, 0, 0) == (long)sizeof(ok))
		forged_seq = ok.seq;
	for (; i < n; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
