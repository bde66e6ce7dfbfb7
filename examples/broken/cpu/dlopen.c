// kjudge-case: task=level1/relu expect=rejected
/* Broken: loads a library at run time (library fallback through dlopen); the
 * symbol policy rejects dynamic loading. */
#include <dlfcn.h>
#include <stdint.h>

void relu(const float *x, float *y, int64_t B, int64_t D)
{
	void *h = dlopen("libm.so.6", RTLD_NOW);

	if (h)
		dlclose(h);
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
