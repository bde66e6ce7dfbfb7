// kjudge-case: task=level1/relu expect=rejected
/* Red team, class 14 (reading the answer): reads /proc/self/maps to find
 * mappings that might hold the reference outputs (KernelBench's no-op kernels
 * found the reference's tensors in the same process).  The symbol policy
 * rejects file access; and there is nothing to find: the reference lives in
 * the judge's process and the worker maps only its own inputs and outputs. */
#include <stdint.h>
#include <stdio.h>

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	if (f) {
		while (fgets(line, sizeof(line), f))
			;
		fclose(f);
	}
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
