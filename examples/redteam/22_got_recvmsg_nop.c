// kjudge-case: task=level1/relu expect=pass
/* Red team, class 22 (round-trip inflation), second route: the worker's
 * `recvmsg` GOT slot (found from the auxiliary vector, patched after a raw
 * mprotect, as in 22_got_send_delay.c) goes to a hook that reads each
 * request as it arrives and, when it is a NOP (type 5), sleeps 50 ms before
 * handing it to the worker, so only the judge's empty round trips are slow.
 * A floor taken from NOPs after the load would eat every CPU call (ms 0);
 * a floor measured before the candidate loads is untouched: pass, and the
 * perf entries keep ms > 0 and speedup > 0 (t25_redteam.sh). */
#include <elf.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
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

/* recvmsg(2) as glibc does it; a NOP is held back 50 ms */
static long hook_recvmsg(int fd, struct msghdr *mh, int flags)
{
	long r = sc(47 /* recvmsg */, fd, (long)mh, flags, 0, 0, 0);

	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	if (r >= 8 && mh->msg_iovlen && ((const uint32_t *)mh->msg_iov[0].iov_base)[0] == 5) {
		struct { long s, ns; } ts = {0, 50 * 1000 * 1000};
		sc(35 /* nanosleep */, (long)&ts, 0, 0, 0, 0, 0);
	}
	return r;
}

__attribute__((constructor)) static void install(void)
{
	uintptr_t b = exe_base();

	if (b)
		got_hook(b, "recvmsg", (void *)hook_recvmsg);
}

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
