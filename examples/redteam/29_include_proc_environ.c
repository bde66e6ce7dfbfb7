// kjudge-case: task=level1/relu expect=compile_error
/* Red team, class 29 (the judge's secrets at compile time): the compiler
 * inherits an environment, and the preprocessor's /proc/self/environ is
 * that environment; included, a toolchain that read /proc files to the end
 * would fail with the judge's KJUDGE_SEED_SECRET, database URLs and API keys
 * quoted in the compile log the verdict carries (GCC 12 and clang 14 size a
 * regular file by stat(), so they read nothing from /proc and compiled this).
 * The compiler's jail has no /proc at all, and its environment is a fixed
 * one the judge writes: the include is a missing file, a compile_error whose
 * log names only the path (t25_redteam.sh also checks that a marker in the
 * judge's environment never reaches the verdict). */
#include "/proc/self/environ"
#include <stdint.h>

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
