// kjudge-case: task=level1/matmul_square expect=rejected
/* Red team, class 9 (library fallback through dlopen), CUDA: loads
 * libcublas.so at run time and finds cublasSgemm_v2 with dlsym, so that no
 * cuBLAS name appears among the object's undefined symbols and the fallback
 * would go unflagged.  dlopen and dlsym are rejected by the symbol policy. */
#include <dlfcn.h>

#include "kjudge_cuda.h"

typedef int (*create_fn)(void**);
typedef int (*stream_fn)(void*, cudaStream_t);
typedef int (*sgemm_fn)(void*, int, int, int, int, int, const float*, const float*, int,
			const float*, int, const float*, float*, int);

extern "C" void matmul_square(const float* a, const float* b, float* c, int64_t N, cudaStream_t stream)
{
	static void* h;
	static void* handle;
	const float one = 1.0f, zero = 0.0f;
	int n = (int)N;

	if (!h)
		h = dlopen("libcublas.so", RTLD_NOW);
	if (!h)
		return;
	if (!handle)
		((create_fn)dlsym(h, "cublasCreate_v2"))(&handle);
	((stream_fn)dlsym(h, "cublasSetStream_v2"))(handle, stream);
	((sgemm_fn)dlsym(h, "cublasSgemm_v2"))(handle, 0, 0, n, n, n, &one, b, n, a, n, &zero, c, n);
}
