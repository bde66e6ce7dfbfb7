// kjudge-case: task=level1/relu expect=runtime_error
/* Red team, class 19 (output flood): writes megabytes of "debug output" to
 * stderr on every call, to fill the judge's memory or disk with logs.  The
 * judge keeps 64 KiB of the worker's output and kills the worker once it
 * has offered more than the flood limit (4 MiB): runtime_error. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	static char line[4096];

	memset(line, 'z', sizeof(line) - 1);
	for (int i = 0; i < 4096; i++)
		fputs(line, stderr);
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
