// kjudge-case: task=level1/matmul_square expect=pass flag=fallback
/* Red team, class 27 (hidden library): reference BLAS's sgemm_ does the
 * whole matmul, and the object names neither dlopen nor dlsym nor any
 * BLAS routine (the static policy rejects the first two and flags the
 * last).  From the address of getpid (allowed) it walks back to libc's ELF
 * header and looks dlopen and dlsym up in libc's dynamic symbol table
 * through DT_GNU_HASH, then loads libblas.so.3 (by soname, else by the
 * paths Debian's alternatives point to) and calls sgemm_ on the transposed
 * problem (row-major C = A B is column-major C^T = B^T A^T).  The result is
 * right, but it is a library's, not a kernel: the judge must name it.  The
 * library is loaded in a constructor, while dlopen runs the candidate in
 * (after the load no open or executable mapping is allowed on the CPU
 * track: 27_dlopen_dlclose_per_call.c), and stays mapped: the judge reads
 * the worker's /proc/PID/maps after LOAD and after every call and flags a
 * mapped BLAS (fallback; rejected under --policy strict, t25_redteam.sh).
 * If no BLAS can be loaded the case computes its own product and the
 * missing flag fails the header. */
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
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
typedef void (*sgemm_fn)(const char *, const char *, const int *, const int *, const int *, const float *,
			 const float *, const int *, const float *, const int *, const float *, float *,
			 const int *, size_t, size_t);

static sgemm_fn find_sgemm(void)
{
	static const char *const paths[] = {"libblas.so.3", "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3",
					    "/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3", NULL};
	uintptr_t libc = image_of((const void *)&getpid);
	dlopen_fn op = libc ? (dlopen_fn)elf_sym(libc, "dlopen") : NULL;
	dlsym_fn sy = libc ? (dlsym_fn)elf_sym(libc, "dlsym") : NULL;

	for (int i = 0; op && sy && paths[i]; i++) {
		void *h = op(paths[i], 2 /* RTLD_NOW */);

		if (h)
			return (sgemm_fn)sy(h, "sgemm_");
	}
	fprintf(stderr, "27: no BLAS (dlopen %p, dlsym %p)\n", (void *)op, (void *)sy);
	return NULL;
}

static sgemm_fn gemm;

__attribute__((constructor)) static void load_blas(void)
{
	gemm = find_sgemm();
}

void matmul_square(const float *a, const float *b, float *c, int64_t N)
{
	const float one = 1.0f, zero = 0.0f;
	int n = (int)N;

	if (gemm) {
		gemm("N", "N", &n, &n, &n, &one, b, &n, a, &n, &zero, c, &n, 1, 1);
		return;
	}
	for (int64_t i = 0; i < N; i++)
		for (int64_t j = 0; j < N; j++) {
			double s = 0;

			for (int64_t k = 0; k < N; k++)
				s += (double)a[i * N + k] * b[k * N + j];
			c[i * N + j] = (float)s;
		}
}
