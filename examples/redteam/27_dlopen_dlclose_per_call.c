// kjudge-case: task=level1/matmul_square expect=mismatch
/* Red team, class 27 (hidden library), transient: as
 * 27_elf_walk_dlopen_blas.c (dlopen, dlsym and now dlclose looked up in
 * libc's dynamic symbol table through DT_GNU_HASH, from the address of
 * getpid), but every call loads libblas.so.3, runs sgemm_ and unloads it
 * again before returning.  Between calls nothing of BLAS is mapped, so a
 * judge that reads the worker's /proc/PID/maps only after each call never
 * sees it.  On the CPU track the worker refuses every open and every
 * executable mapping once the candidate is loaded (a second seccomp
 * filter), so the load in the call fails.  The case then has no answer
 * and writes nothing: a defended judge gives mismatch, an open one a pass
 * that no flag names. */
#include <elf.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

/* The ELF image holding p (page walk back to its header), and a symbol of
 * its dynamic table looked up through DT_GNU_HASH, as the loader would. */
static uintptr_t image_of(const void *p)
{
	uintptr_t a = (uintptr_t)p & ~(uintptr_t)0xfff;

	for (int i = 0; i < 1 << 16; i++, a -= 0x1000)
		if (!memcmp((const void *)a, ELFMAG, SELFMAG))
			return a;
	return 0;
}

static void *elf_sym(uintptr_t base, const char *name)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(base + eh->e_phoff);
	const Elf64_Dyn *dy = NULL;
	const Elf64_Sym *sym = NULL;
	const char *str = NULL;
	const uint32_t *gh = NULL, *bucket, *chain;
	uint32_t h = 5381, i;

	for (int k = 0; k < eh->e_phnum; k++)
		if (ph[k].p_type == PT_DYNAMIC)
			dy = (const Elf64_Dyn *)(base + ph[k].p_vaddr);
	for (; dy && dy->d_tag != DT_NULL; dy++) {
		uintptr_t a = dy->d_un.d_ptr < base ? base + dy->d_un.d_ptr : dy->d_un.d_ptr;
		if (dy->d_tag == DT_SYMTAB)
			sym = (const Elf64_Sym *)a;
		else if (dy->d_tag == DT_STRTAB)
			str = (const char *)a;
		else if (dy->d_tag == DT_GNU_HASH)
			gh = (const uint32_t *)a;
	}
	if (!sym || !str || !gh)
		return NULL;
	for (const char *c = name; *c; c++)
		h = h * 33 + (unsigned char)*c;
	/* nbuckets, symoffset, bloom words (64-bit), shift; buckets; chains */
	bucket = gh + 4 + 2 * gh[2];
	chain = bucket + gh[0];
	for (i = bucket[h % gh[0]]; i >= gh[1]; i++) {
		uint32_t h2 = chain[i - gh[1]];
		if ((h | 1) == (h2 | 1) && sym[i].st_value && !strcmp(str + sym[i].st_name, name))
			return (void *)(base + sym[i].st_value);
		if (h2 & 1)
			break;
	}
	return NULL;
}

typedef void *(*dlopen_fn)(const char *, int);
typedef void *(*dlsym_fn)(void *, const char *);
typedef int (*dlclose_fn)(void *);
typedef void (*sgemm_fn)(const char *, const char *, const int *, const int *, const int *, const float *,
			 const float *, const int *, const float *, const int *, const float *, float *,
			 const int *, size_t, size_t);

void matmul_square(const float *a, const float *b, float *c, int64_t N)
{
	static const char *const paths[] = {"libblas.so.3", "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3",
					    "/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3", NULL};
	static dlopen_fn op;
	static dlsym_fn sy;
	static dlclose_fn cl;
	const float one = 1.0f, zero = 0.0f;
	int n = (int)N;
	void *h = NULL;
	sgemm_fn gemm = NULL;

	if (!op) {
		uintptr_t libc = image_of((const void *)&getpid);

		op = libc ? (dlopen_fn)elf_sym(libc, "dlopen") : NULL;
		sy = libc ? (dlsym_fn)elf_sym(libc, "dlsym") : NULL;
		cl = libc ? (dlclose_fn)elf_sym(libc, "dlclose") : NULL;
	}
	for (int i = 0; op && sy && cl && !h && paths[i]; i++)
		h = op(paths[i], 2 /* RTLD_NOW */);
	if (h)
		gemm = (sgemm_fn)sy(h, "sgemm_");
	if (gemm) {
		gemm("N", "N", &n, &n, &n, &one, b, &n, a, &n, &zero, c, &n, 1, 1);
		cl(h);
		return;
	}
	if (h)
		cl(h);
	/* no library to be had: no answer either */
}
