// kjudge-case: task=level1/relu expect=pass
/* Red team, class 29 (the judge's secrets at compile time): the compiler
 * inherits an environment, and the preprocessor's /proc/self/environ is
 * that environment; included, it would fail to compile with the judge's
 * KJUDGE_SEED_SECRET, database URLs and API keys quoted in the log the
 * verdict carries.  Measured with GCC 12 and clang 14: both preprocessors
 * size a regular file by stat(), and /proc files report 0 bytes, so the
 * include reads nothing and the candidate compiles and passes; the same
 * holds for .incbin.  The case guards that: a toolchain that read /proc
 * files to the end would turn it into a compile_error quoting the
 * environment, and the header's pass would fail (t25_redteam.sh also
 * checks that a marker in the judge's environment never reaches the
 * verdict). */
#include "/proc/self/environ"
#include <stdint.h>

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
