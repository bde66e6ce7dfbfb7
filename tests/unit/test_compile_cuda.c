/*
 * The CUDA side of the compile cache and the symbol policy: real nvcc runs
 * (the toolkit is on every kjudge build machine; nothing here needs a GPU).
 * The two-chain build (nvcc's steps, the host's front end and the device's
 * chain at once) against one nvcc call: the same kernels, the same errors,
 * the same wall-clock limit.  Without nvcc on PATH the test says it skips,
 * with the reason.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kjudge/fsutil.h"
#include "kjudge/compile.h"
#include "sass_testlib.h"
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

/* A syntax error that only the device's compile sees (line 5)... */
static const char dev_err_src[] =
	"#include \"kjudge_cuda.h\"\n"
	"__global__ void k(float* y, int64_t n) {\n"
	"  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;\n"
	"#ifdef __CUDA_ARCH__\n"
	"  if (i < n) y[i] = 1.0f +;\n"
	"#endif\n"
	"}\n"
	"extern \"C\" void relu(const float* x, float* y, int64_t n, cudaStream_t s) {\n"
	"  k<<<1, 32, 0, s>>>(y, n); (void)x;\n"
	"}\n";

/* ... and one in host code (line 4). */
static const char host_err_src[] =
	"#include \"kjudge_cuda.h\"\n"
	"__global__ void k(float* y) { y[threadIdx.x] = 1.0f; }\n"
	"extern \"C\" void relu(const float* x, float* y, int64_t n, cudaStream_t s) {\n"
	"  k<<<1, 32, 0, s>>>(y) (void)x; (void)n;\n"
	"}\n";

/* Warnings from both sides: the host's preprocessing and the device's
 * chain each have their own to say (a #warning for each side, variables
 * unused in a kernel and in host code). */
static const char warn_src[] =
	"#include \"kjudge_cuda.h\"\n"
	"__global__ void k(float* y) { int unused_in_kernel; y[threadIdx.x] = 1.0f; }\n"
	"#ifdef __CUDA_ARCH__\n"
	"#warning \"device side\"\n"
	"#else\n"
	"#warning \"host side\"\n"
	"#endif\n"
	"extern \"C\" void relu(const float* x, float* y, int64_t n, cudaStream_t s) {\n"
	"  int unused_in_host; k<<<1, 32, 0, s>>>(y); (void)x; (void)n;\n"
	"}\n";

static void write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	chmod(path, mode);
}

/* Builds src both ways (one nvcc call, then the two chains) into one and two. */
static void build_both(const char *src, struct kj_compile_opts *o, struct kj_compile_result *one,
		       struct kj_compile_result *two, struct kj_err *e)
{
	memset(one, 0, sizeof(*one));
	memset(two, 0, sizeof(*two));
	o->one_nvcc = 1;
	if (kj_compile(src, strlen(src), o, one, e))
		printf("# one nvcc call: %s\n", e->msg);
	o->one_nvcc = 0;
	if (kj_compile(src, strlen(src), o, two, e))
		printf("# two chains: %s\n", e->msg);
}

/* The same candidates built both ways have the same kernels, byte for byte. */
static void test_same_kernels(struct kj_compile_opts *o)
{
	static const char *const files[] = {"examples/solutions/cuda/softmax.cu",
					    "examples/solutions/cuda/fp8_block_gemm.cu",
					    "examples/solutions/cuda/layer_norm.cu"};
	struct kj_compile_result one, two;
	struct kj_err e;
	size_t i;
	int n = 0, same;

	kj_err_init(&e);
	o->no_cache = 1;
	build_both(add_src, o, &one, &two, &e);
	ok(one.ok && two.ok && !one.cached && !two.cached, "add: built by one nvcc call and by the two chains");
	ok(strcmp(one.key, two.key) != 0, "the two ways are two cache keys");
	same = kjt_sass_same(one.so_path, two.so_path, &n);
	ok(same, "add: the same kernels both ways (%d)", n);
	kj_compile_result_release(&one);
	kj_compile_result_release(&two);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *src = kj_read_file(files[i], NULL);
		if (!ok(src != NULL, "read %s", files[i]))
			continue;
		build_both(src, o, &one, &two, &e);
		ok(one.ok && two.ok, "%s: built both ways", files[i]);
		n = 0;
		same = kjt_sass_same(one.so_path, two.so_path, &n);
		ok(same, "%s: the same kernels both ways (%d)", files[i], n);
		kj_compile_result_release(&one);
		kj_compile_result_release(&two);
		free(src);
	}
	o->no_cache = 0;
}

/* A syntax error is the candidate's compile_error with its file and line,
 * and the log is the one nvcc gives, whichever chain finds it; so are the
 * warnings of a candidate that compiles. */
static void test_errors(struct kj_compile_opts *o)
{
	struct kj_compile_result one, two;
	struct kj_err e;

	kj_err_init(&e);
	build_both(dev_err_src, o, &one, &two, &e);
	ok(!one.ok && !two.ok, "a syntax error in device code does not compile");
	like(two.log, "cand.cu(5): error", "the two chains' log names the file and line of the device code");
	is_str(two.log, one.log ? one.log : "", "and is the log of one nvcc call");
	kj_compile_result_release(&one);
	kj_compile_result_release(&two);

	build_both(host_err_src, o, &one, &two, &e);
	ok(!one.ok && !two.ok, "a syntax error in host code does not compile");
	like(two.log, "cand.cu(4): error", "the two chains' log names the file and line of the host code");
	is_str(two.log, one.log ? one.log : "", "and is the log of one nvcc call");
	kj_compile_result_release(&one);
	kj_compile_result_release(&two);

	build_both(warn_src, o, &one, &two, &e);
	ok(one.ok && two.ok, "a candidate with warnings on both sides compiles");
	like(two.log, "device side", "the device's warning is in the log");
	like(two.log, "host side", "and the host's");
	ok(two.log && strstr(two.log, "host side") && strstr(two.log, "device side") &&
	   strstr(two.log, "host side") < strstr(two.log, "device side"), "the host's first, as nvcc prints them");
	is_str(two.log, one.log ? one.log : "", "the log of one nvcc call, byte for byte");
	kj_compile_result_release(&one);
	kj_compile_result_release(&two);
}

/* A wrapper nvcc in dir/fake (a folder the jail shows read-only): the
 * real one, whose --dryrun plan goes through the sed expression edit, and
 * which notes each call ("plan" or "build") in dir/fake/calls when it can
 * write there (out of the jail).  Sets KJ_NVCC to it. */
static void fake_nvcc(const char *dir, const char *edit)
{
	char fake[600], path[700], text[3000], real[512] = "";
	FILE *p = popen("command -v nvcc", "r");

	if (p) {
		if (fgets(real, sizeof(real), p))
			real[strcspn(real, "\n")] = '\0';
		pclose(p);
	}
	snprintf(fake, sizeof(fake), "%s/fake", dir);
	mkdir(fake, 0755);
	snprintf(path, sizeof(path), "%s/nvcc", fake);
	snprintf(text, sizeof(text),
		 "#!/bin/sh\n"
		 "case \" $* \" in\n"
		 "*\" --version \"*) exec '%s' \"$@\" ;;\n"
		 "*\" --dryrun \"*) { echo plan >> '%s/calls'; } 2>/dev/null\n"
		 "  '%s' \"$@\" 2>&1 | sed '%s' >&2 ;;\n"
		 "*) { echo build >> '%s/calls'; } 2>/dev/null; exec '%s' \"$@\" ;;\n"
		 "esac\n",
		 real, fake, real, edit, fake, real);
	write_file(path, text, 0755);
	snprintf(path, sizeof(path), "%s/calls", fake);
	unlink(path);
	snprintf(path, sizeof(path), "%s/nvcc", fake);
	setenv("KJ_NVCC", path, 1);
}

/* The calls the wrapper noted, "plan build " say. */
static void fake_calls(const char *dir, char *out, size_t n)
{
	char path[700], *t, *c;
	snprintf(path, sizeof(path), "%s/fake/calls", dir);
	t = kj_read_file(path, NULL);
	snprintf(out, n, "%s", t ? t : "");
	for (c = out; *c; c++)
		if (*c == '\n')
			*c = ' ';
	free(t);
}

/* A plan that is not the expected shape, and module ids that differ, are
 * built by one nvcc call, into the same kernels. */
static void test_fallback(struct kj_compile_opts *o, const char *dir)
{
	struct kj_compile_result one, r;
	struct kj_err e;
	char buf[256];
	const char *calls = buf;
	int n = 0, same;

	kj_err_init(&e);
	o->no_cache = 1;
	o->unconfined = 1;
	unsetenv("KJ_NVCC");
	memset(&one, 0, sizeof(one));
	o->one_nvcc = 1;
	is_int(kj_compile(add_src, strlen(add_src), o, &one, &e), 0, "the reference, by one nvcc call (%s)", e.msg);
	o->one_nvcc = 0;

	fake_nvcc(dir, "1i nvcc says something else first");
	memset(&r, 0, sizeof(r));
	is_int(kj_compile(add_src, strlen(add_src), o, &r, &e), 0, "a plan with a line that is not a step (%s)", e.msg);
	fake_calls(dir, buf, sizeof(buf));
	is_str(calls, "plan build ", "is built by one nvcc call");
	same = r.ok && kjt_sass_same(one.so_path, r.so_path, &n);
	ok(same, "into the same kernels (%d)", n);
	kj_compile_result_release(&r);

	/* cicc told another path for the source makes another id */
	fake_nvcc(dir, "/cicc/s|--orig_src_path_name \"|--orig_src_path_name \"/elsewhere|");
	memset(&r, 0, sizeof(r));
	is_int(kj_compile(add_src, strlen(add_src), o, &r, &e), 0, "module ids that differ (%s)", e.msg);
	fake_calls(dir, buf, sizeof(buf));
	is_str(calls, "plan build ", "are built again by one nvcc call");
	same = r.ok && kjt_sass_same(one.so_path, r.so_path, &n);
	ok(same, "into the same kernels (%d)", n);
	ok(r.log && !strstr(r.log, "module ids"), "and the log is that build's");
	kj_compile_result_release(&r);

	fake_nvcc(dir, "");
	memset(&r, 0, sizeof(r));
	is_int(kj_compile(add_src, strlen(add_src), o, &r, &e), 0, "an unchanged plan (%s)", e.msg);
	fake_calls(dir, buf, sizeof(buf));
	is_str(calls, "plan ", "is built by the two chains, without nvcc");
	kj_compile_result_release(&r);
	kj_compile_result_release(&one);
	unsetenv("KJ_NVCC");
	o->unconfined = 0;
	o->no_cache = 0;
}

/* A device chain that hangs (a cicc that sleeps, put in nvcc's plan by a
 * wrapper nvcc) is stopped by the wall clock, in the jail and out of it,
 * and leaves no process behind. */
static void test_hang(struct kj_compile_opts *o, const char *dir)
{
	struct kj_compile_result r;
	struct kj_err e;
	char path[700], text[1600], pidfile[700], edit[800];
	long pid = 0;
	int unconfined;

	snprintf(edit, sizeof(edit), "s|^#\\$ CICC_PATH=.*|#$ CICC_PATH=%s/fake|", dir);
	fake_nvcc(dir, edit);
	snprintf(pidfile, sizeof(pidfile), "%s/fake/cicc.pid", dir);
	snprintf(path, sizeof(path), "%s/fake/cicc", dir);
	snprintf(text, sizeof(text), "#!/bin/sh\necho \"$$\" > '%s' 2>/dev/null\nexec sleep 600\n", pidfile);
	write_file(path, text, 0755);
	o->timeout_s = 4;
	o->no_cache = 1;
	for (unconfined = 0; unconfined <= 1; unconfined++) {
		o->unconfined = unconfined;
		unlink(pidfile);
		memset(&r, 0, sizeof(r));
		kj_err_init(&e);
		is_int(kj_compile(add_src, strlen(add_src), o, &r, &e), 0, "%s: a hanging cicc is not a judge error (%s)",
		       unconfined ? "unconfined" : "jailed", e.msg);
		ok(!r.ok, "the build fails");
		like(r.limit, "wall-clock limit", "stopped by the wall clock (%s)", r.limit);
		kj_compile_result_release(&r);
		if (unconfined) {
			char *t = kj_read_file(pidfile, NULL);
			int gone = 0, i;
			pid = t ? atol(t) : 0;
			free(t);
			ok(pid > 0, "the fake cicc ran (pid %ld)", pid);
			/* killed with its group; reaped by init a moment later */
			for (i = 0; i < 200 && pid > 0 && !gone; i++) {
				char st[64], buf[256] = "";
				FILE *f;
				snprintf(st, sizeof(st), "/proc/%ld/stat", pid);
				f = fopen(st, "r");
				if (!f || !fgets(buf, sizeof(buf), f) || strstr(buf, ") Z "))
					gone = 1;
				if (f)
					fclose(f);
				if (!gone)
					nanosleep(&(struct timespec){0, 10000000}, NULL);
			}
			ok(gone, "and is gone (or a zombie) once the build returns");
		}
	}
	o->unconfined = 0;
	o->no_cache = 0;
	o->timeout_s = 120;
	unsetenv("KJ_NVCC");
}

int main(void)
{
	struct kj_compile_opts o;
	struct kj_compile_result r;
	struct kj_symcheck sc;
	struct kj_err e;
	char dir[] = "/tmp/kjcuda.XXXXXX", key[65], so[4096];
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

	memcpy(so, r.so_path, sizeof(so));
	memset(&r, 0, sizeof(r));
	is_int(kj_compile(add_src, strlen(add_src), &o, &r, &e), 0, "second compile");
	ok(r.ok && r.cached, "the second compile is a cache hit");
	is_str(r.key, key, "with the same key");
	is_str(r.so_path, so, "and the same object");
	ok(r.seconds == 0, "and no compiler run");
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

	test_same_kernels(&o);
	test_errors(&o);
	test_fallback(&o, dir);
	test_hang(&o, dir);

	{
		char cmd[128];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", dir);
	}
	return done_testing();
}
