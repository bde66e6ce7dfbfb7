// kjudge-case: task=level1/matmul_square expect=call_error flag=fallback
/* Red team, class 9 (library fallback by linking): declares cblas_sgemm and
 * calls it.  The symbol policy flags the fallback (BLAS) on the built object;
 * the worker links no BLAS, so the unresolved symbol then stops the load
 * (dlopen RTLD_NOW) and the verdict is call_error, still carrying the
 * fallback flag and its library.  With --policy strict it is rejected
 * before the load (tests/cli/t25_redteam.sh). */
#include <stdint.h>

void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a,
		 int lda, const float *b, int ldb, float beta, float *c, int ldc);

void matmul_square(const float *a, const float *b, float *c, int64_t N)
{
	int n = (int)N;

	cblas_sgemm(101 /* row major */, 111, 111, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
}
