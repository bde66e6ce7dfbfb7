// kjudge-case: task=level1/relu expect=pass
/* Red team, class 24 (forged times), CPU: a constructor inside the
 * worker's dlopen points kjudge-worker's `clock_gettime` GOT slot (image
 * from the auxiliary vector, slot from its relocations, raw mprotect) at a
 * clock that stands still while the candidate runs: the worker's own
 * measurement of each call (worker_ns in its OK reply) reads 1 ns whatever
 * the work took.  The work is honest but padded with a busy loop, so a
 * judge that believed the worker's figure would report a large speedup.
 * CPU times come from the judge's own clock around the call, so the forged
 * figure changes nothing: pass, at the honest (slow) speed. */
#include <elf.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

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

static volatile int frozen;
static volatile long frozen_ns;

static int hook_clock_gettime(int id, struct timespec *ts)
{
	long r;

	if (frozen) { /* the clock the worker reads after the call: 1 ns later */
		frozen = 0;
		ts->tv_sec = frozen_ns / 1000000000L;
		ts->tv_nsec = frozen_ns % 1000000000L + 1;
		return 0;
	}
	r = sc(228 /* clock_gettime */, id, (long)ts, 0, 0, 0, 0);
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	frozen_ns = ts->tv_sec * 1000000000L + ts->tv_nsec;
	return 0;
}

__attribute__((constructor)) static void install(void)
{
	uintptr_t b = exe_base();

	if (b)
		got_hook(b, "clock_gettime", (void *)hook_clock_gettime);
}

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	volatile float sink = 0;

	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
	for (int64_t i = 0; i < 2 * B * D; i++) /* slow on purpose */
		sink += 1.0f;
	/* the worker read the clock just before the call (frozen_ns); its next
	 * read, right after, is answered from there */
	frozen = 1;
}
