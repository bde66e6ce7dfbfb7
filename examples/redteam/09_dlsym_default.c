// kjudge-case: task=level1/matmul_square expect=rejected
/* Red team, class 9 (library fallback by symbol lookup): looks cblas_sgemm
 * up at run time with dlsym(RTLD_DEFAULT, ...) so that no BLAS name appears
 * among the object's undefined symbols.  The lookup itself (dlsym) is
 * rejected by the symbol policy. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>

typedef void (*sgemm_fn)(int, int, int, int, int, int, float, const float *, int, const float *,
			 int, float, float *, int);

void matmul_square(const float *a, const float *b, float *c, int64_t N)
{
	sgemm_fn f = (sgemm_fn)dlsym(RTLD_DEFAULT, "cblas_sgemm");
	int n = (int)N;

	if (f)
		f(101, 111, 111, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
}
