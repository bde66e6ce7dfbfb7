/*
 * The CUDA side of the compile cache and the symbol policy: real nvcc runs
 * (the toolkit is on every kjudge build machine; nothing here needs a GPU).
 * Without nvcc on PATH the test says it skips, with the reason.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kjudge/compile.h"
#include "tap.h"

static const char add_src[] =
	"#include \"kjudge_cuda.h\"\n"
	"__global__ void k(const float* a, const float* b, float* c, int64_t n) {\n"
	"  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;\n"
	"  if (i < n) c[i] = a[i] + b[i];\n"
	"}\n"
	"extern \"C\" void add(const float* a, const float* b, float* c, int64_t N, cudaStream_t s) {\n"
	"  k<<<(unsigned)((N + 255) / 256), 256, 0, s>>>(a, b, c, N);\n"
	"}\n";

static const char stream_src[] =
	"#include \"kjudge_cuda.h\"\n"
	"extern \"C\" void add(const float* a, const float* b, float* c, int64_t N, cudaStream_t s) {\n"
	"  cudaStream_t mine; cudaStreamCreate(&mine); (void)a; (void)b; (void)c; (void)N; (void)s;\n"
	"}\n";

static const char cublas_src[] =
	"#include \"kjudge_cuda.h\"\n"
	"extern \"C\" int cublasSgemm_v2(void*, int, int, int, int, int, const float*, const float*, int,\n"
	"                                const float*, int, const float*, float*, int);\n"
	"extern \"C\" void add(const float* a, const float* b, float* c, int64_t N, cudaStream_t s) {\n"
	"  float one = 1; cublasSgemm_v2(0, 0, 0, (int)N, 1, 1, &one, a, 1, b, 1, &one, c, 1); (void)s;\n"
	"}\n";

static const char bad_src[] = "#include \"kjudge_cuda.h\"\nextern \"C\" void add( { }\n";

int main(void)
{
	struct kj_compile_opts o;
	struct kj_compile_result r;
	struct kj_symcheck sc;
	struct kj_err e;
	char dir[] = "/tmp/kjcuda.XXXXXX", key[65];
	if (system("command -v nvcc >/dev/null 2>&1") != 0) {
		printf("1..0 # SKIP nvcc is not on PATH: the CUDA compile path cannot be tested here\n");
		return 0;
	}
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	memset(&o, 0, sizeof(o));
	o.backend = KJ_BACKEND_CUDA;
	o.cache_dir = dir;
	o.include_dir = "include/candidate";
	o.timeout_s = 120;

	memset(&r, 0, sizeof(r));
	kj_err_init(&e);
	is_int(kj_compile(add_src, strlen(add_src), &o, &r, &e), 0, "nvcc compiles a kernel: %s", e.msg);
	ok(r.ok && !r.cached, "a fresh object, built by nvcc");
	like(r.so_path, "/cuda/", "cached under the cuda backend");
	memcpy(key, r.key, sizeof(key));
	is_int(kj_symcheck_so(r.so_path, KJ_BACKEND_CUDA, &sc, &e), 0, "symbols can be read");
	is_int(sc.verdict, 0, "a plain kernel launch is allowed (%s)", sc.reason);
	kj_compile_result_release(&r);

	memset(&r, 0, sizeof(r));
	is_int(kj_compile(add_src, strlen(add_src), &o, &r, &e), 0, "second compile");
	ok(r.ok && r.cached, "the second compile is a cache hit");
	is_str(r.key, key, "with the same key");
	kj_compile_result_release(&r);

	o.arch = "sm_80";
	memset(&r, 0, sizeof(r));
	is_int(kj_compile(add_src, strlen(add_src), &o, &r, &e), 0, "compile for sm_80");
	ok(r.ok && !r.cached && strcmp(r.key, key) != 0, "another arch is another key");
	kj_compile_result_release(&r);
	o.arch = NULL;

	memset(&r, 0, sizeof(r));
	is_int(kj_compile(stream_src, strlen(stream_src), &o, &r, &e), 0, "stream candidate compiles");
	is_int(kj_symcheck_so(r.so_path, KJ_BACKEND_CUDA, &sc, &e), 0, "symbols read");
	is_int(sc.verdict, 2, "creating a stream is rejected");
	like(sc.reason, "cudaStreamCreate", "the reason names cudaStreamCreate");
	kj_compile_result_release(&r);

	memset(&r, 0, sizeof(r));
	is_int(kj_compile(cublas_src, strlen(cublas_src), &o, &r, &e), 0, "cuBLAS candidate compiles");
	is_int(kj_symcheck_so(r.so_path, KJ_BACKEND_CUDA, &sc, &e), 0, "symbols read");
	is_int(sc.verdict, 1, "calling cuBLAS is flagged as a fallback");
	like(sc.libs, "cuBLAS", "the fallback names cuBLAS");
	kj_compile_result_release(&r);

	memset(&r, 0, sizeof(r));
	is_int(kj_compile(bad_src, strlen(bad_src), &o, &r, &e), 0, "a broken source is the candidate's fault");
	ok(!r.ok, "it does not compile");
	like(r.log, "error", "nvcc's error is in the log");
	kj_compile_result_release(&r);

	{
		char cmd[128];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", dir);
	}
	return done_testing();
}
