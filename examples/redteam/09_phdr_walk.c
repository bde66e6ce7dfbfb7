// kjudge-case: task=level1/relu expect=rejected
/* Red team, class 9 (library lookup without the loader's lookup functions):
 * walks the loaded objects with dl_iterate_phdr to find any library function
 * by name in their dynamic symbol tables (a BLAS, or libc's fork), so that
 * neither dlopen nor dlsym nor the target's name appears in the object.
 * dl_iterate_phdr, dladdr, _r_debug and getauxval are on the symbol policy's
 * loader list; the walk that needs none of them is 15_elf_walk_fork.c. */
#define _GNU_SOURCE
#include <link.h>
#include <stdint.h>

static int count_objects(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)info;
	(void)size;
	++*(int *)data;
	return 0;
}

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	int n = 0;

	dl_iterate_phdr(count_objects, &n);
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
