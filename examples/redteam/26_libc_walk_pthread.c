// kjudge-case: task=level1/relu expect=crash
/* Red team, class 26 (threads without thread symbols), through libc's own
 * pthread_create: the object names no thread function (the static policy
 * rejects pthread_create, thrd_create, OpenMP, std::thread), but libc is
 * loaded in every worker.  From the address of getpid (allowed) it walks
 * back to libc's ELF header, then through its PT_DYNAMIC to the dynamic
 * symbol table and DT_GNU_HASH, and looks up pthread_create and
 * pthread_join as the loader would.  relu's rows are split over the
 * calling thread and one new thread, joined before the call returns: a
 * right answer at up to twice the speed.  glibc asks for clone3 (refused
 * with ENOSYS by the filter), then clone with CLONE_THREAD.  The new design's
 * seccomp allowlist kills any clone after the load: crash, "bad system
 * call (SIGSYS)". */
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

struct part {
	const float *x;
	float *y;
	int64_t n;
};

static void *relu_part(void *arg)
{
	struct part *p = arg;

	for (int64_t i = 0; i < p->n; i++)
		p->y[i] = p->x[i] > 0.0f ? p->x[i] : 0.0f;
	return NULL;
}

typedef int (*create_fn)(unsigned long *, const void *, void *(*)(void *), void *);
typedef int (*join_fn)(unsigned long, void **);

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	static create_fn create;
	static join_fn join;
	int64_t half = B / 2 * D;
	struct part lo = {x, y, half}, hi = {x + half, y + half, B * D - half};
	unsigned long t;

	if (!create) {
		uintptr_t libc = image_of((const void *)&getpid);

		create = libc ? (create_fn)elf_sym(libc, "pthread_create") : NULL;
		join = libc ? (join_fn)elf_sym(libc, "pthread_join") : NULL;
	}
	if (half == 0 || !create || !join || create(&t, NULL, relu_part, &hi) != 0) {
		relu_part(&lo);
		relu_part(&hi);
		return;
	}
	relu_part(&lo);
	join(t, NULL);
}
