// kjudge-case: task=level1/relu expect=pass
/* Red team, class 24 (forged times) through the vDSO, CPU: every clock read
 * in the worker (glibc's clock_gettime, gettimeofday) goes through the
 * kernel's vDSO page, which is mapped into the process and can be made
 * writable.  The first call finds it from the auxiliary vector
 * (AT_SYSINFO_EHDR, after environ's NULL), looks up __vdso_clock_gettime in
 * its dynamic symbol table, mprotects the page read-write-execute (raw
 * syscall) and replaces the function's first bytes with "store 0 s 0 ns,
 * return 0": the worker's own time of every later call reads 0 ns.  No
 * clock, mprotect or loader symbol is named.  The work is honest but padded
 * with a busy loop.  CPU times come from the judge's clock, in another
 * process whose vDSO is its own: the forged clock changes nothing, pass at
 * the honest (slow) speed. */
#include <elf.h>
#include <stdint.h>
#include <string.h>

extern char **environ;

static long sc(long n, long a, long b, long c)
{
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "0"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
	return r;
}

static void patch_vdso(void)
{
	static const unsigned char stub[] = {
		0x48, 0xc7, 0x06, 0, 0, 0, 0,       /* movq $0, (%rsi) */
		0x48, 0xc7, 0x46, 0x08, 0, 0, 0, 0, /* movq $0, 8(%rsi) */
		0x31, 0xc0, 0xc3,                   /* xor %eax, %eax; ret */
	};
	char **e = environ;
	const Elf64_auxv_t *av;
	uintptr_t base = 0, a;
	const Elf64_Ehdr *eh;
	const Elf64_Phdr *ph;
	const Elf64_Dyn *dy = NULL;
	const Elf64_Sym *sym = NULL;
	const char *str = NULL;

	while (*e)
		e++;
	for (av = (const Elf64_auxv_t *)(e + 1); av->a_type != AT_NULL; av++)
		if (av->a_type == AT_SYSINFO_EHDR)
			base = av->a_un.a_val;
	if (!base)
		return;
	eh = (const Elf64_Ehdr *)base;
	ph = (const Elf64_Phdr *)(base + eh->e_phoff);
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_DYNAMIC)
			dy = (const Elf64_Dyn *)(base + ph[i].p_offset);
	for (; dy && dy->d_tag != DT_NULL; dy++) {
		a = dy->d_un.d_ptr < base ? base + dy->d_un.d_ptr : dy->d_un.d_ptr;
		if (dy->d_tag == DT_SYMTAB)
			sym = (const Elf64_Sym *)a;
		else if (dy->d_tag == DT_STRTAB)
			str = (const char *)a;
	}
	for (; sym && str && (const char *)sym < str; sym++)
		if (sym->st_value && !strcmp(str + sym->st_name, "__vdso_clock_gettime")) {
			a = base + sym->st_value;
			if (sc(10 /* mprotect */, (long)(a & ~(uintptr_t)0xfff), 0x2000, 7) == 0)
				memcpy((void *)a, stub, sizeof(stub));
			return;
		}
}

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	static int patched;
	volatile float sink = 0;

	if (!patched++)
		patch_vdso();
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
	for (int64_t i = 0; i < 2 * B * D; i++) /* slow on purpose */
		sink += 1.0f;
}
