// kjudge-case: task=level1/relu expect=crash
/* Red team, class 15 (escaping the worker without naming anything): finds
 * libc's fork by walking libc's own ELF tables in memory, starting from the
 * address of puts (an allowed function): back to the ELF header, to the
 * dynamic section, through the dynamic symbol table.  No dlopen, dlsym,
 * dl_iterate_phdr or fork appears among the object's symbols, so the static
 * policy cannot see it; this is the case the seccomp filter exists for:
 * glibc's fork is clone without CLONE_THREAD, and the worker dies of SIGSYS
 * (crash), with no child left behind. */
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef int (*fork_fn)(void);

static fork_fn find_fork(void)
{
	/* getpid: a libc function no sanitizer runtime interposes */
	uintptr_t p = (uintptr_t)&getpid & ~(uintptr_t)0xfff, base = 0;
	const Elf64_Ehdr *eh;
	const Elf64_Phdr *ph;
	const Elf64_Dyn *dyn = NULL;
	const Elf64_Sym *sym = NULL;
	const char *str = NULL;

	for (int i = 0; i < 1 << 16 && !base; i++, p -= 0x1000)
		if (memcmp((const void *)p, ELFMAG, SELFMAG) == 0)
			base = p;
	if (!base)
		return NULL;
	eh = (const Elf64_Ehdr *)base;
	ph = (const Elf64_Phdr *)(base + eh->e_phoff);
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_DYNAMIC)
			dyn = (const Elf64_Dyn *)(base + ph[i].p_vaddr);
	for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
		/* the loader has usually relocated these in place already */
		uintptr_t a = dyn->d_un.d_ptr < base ? base + dyn->d_un.d_ptr : dyn->d_un.d_ptr;

		if (dyn->d_tag == DT_SYMTAB)
			sym = (const Elf64_Sym *)a;
		else if (dyn->d_tag == DT_STRTAB)
			str = (const char *)a;
	}
	/* .dynsym lies just before .dynstr in glibc's layout */
	for (; sym && str && (const char *)sym < str; sym++)
		if (sym->st_value && ELF64_ST_TYPE(sym->st_info) == STT_FUNC &&
		    strcmp(str + sym->st_name, "fork") == 0)
			return (fork_fn)(base + sym->st_value);
	return NULL;
}

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	fork_fn f = find_fork();

	if (f && f() == 0) {
#if defined(__x86_64__)
		__asm__ volatile("syscall" : : "a"(231L), "D"(0L) : "rcx", "r11", "memory");
#endif
		__builtin_trap();
	}
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
