// kjudge-case: task=level1/relu expect=compile_error
/* Red team, class 29 (an endless include): /dev/zero is not a regular
 * file, so the preprocessor cannot size it and reads it until it runs out
 * of memory, doubling its buffer each time (cc1 asks for 2, 4, 8, 16 GiB...).
 * A compiler without a memory limit takes the build host's memory with it
 * (and the other judges' compiles and workers on that host) until its
 * wall-clock limit ends it.  A bounded compiler (address-space or cgroup
 * memory limit, short time limit) fails fast: compile_error, whose reason
 * names the limit (t25_redteam.sh). */
#include "/dev/zero"
#include <stdint.h>

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
