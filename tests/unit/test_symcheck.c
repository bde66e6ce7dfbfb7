/*
 * The symbol policy on real shared objects built with cc at test time: each
 * forbidden call is rejected with a reason naming it, library calls are
 * flagged with the library, and an honest kernel passes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kjudge/compile.h"
#include "tap.h"

static char dir[256];

/* Builds name.so from src; returns its path (static storage) or NULL. */
static const char *build(const char *name, const char *src)
{
	static char so[512];
	char c[512], cmd[1400];
	FILE *f;

	snprintf(c, sizeof(c), "%s/%s.c", dir, name);
	snprintf(so, sizeof(so), "%s/%s.so", dir, name);
	f = fopen(c, "w");
	if (!f)
		return NULL;
	fputs(src, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cc -std=gnu11 -O0 -shared -fPIC -o %s %s", so, c);
	return system(cmd) == 0 ? so : NULL;
}

struct sym_case {
	const char *name;
	const char *src;
	kj_backend backend;
	int verdict;
	const char *reason; /* substring of the reason */
	const char *libs;   /* exact libs */
};

static const struct sym_case cases[] = {
	{"fork", "#include <unistd.h>\nvoid k(void) { fork(); }\n", KJ_BACKEND_CPU, 2,
	 "calls fork: new processes are not allowed in a candidate", ""},
	{"thread",
	 "#include <pthread.h>\nstatic void *f(void *p) { return p; }\n"
	 "void k(void) { pthread_t t; pthread_create(&t, 0, f, 0); }\n",
	 KJ_BACKEND_CPU, 2, "calls pthread_create: threads are not allowed", ""},
	{"cblas",
	 "void cblas_sgemm(int, int, int, int, int, int, float, const float *, int,\n"
	 "  const float *, int, float, float *, int);\n"
	 "void k(const float *a, const float *b, float *c, int n)\n"
	 "{ cblas_sgemm(101, 111, 111, n, n, n, 1.f, a, n, b, n, 0.f, c, n); }\n",
	 KJ_BACKEND_CPU, 1, "calls cblas_sgemm: library fallback (BLAS)", "BLAS"},
	{"fortran",
	 "void dgemm_(const char *, const char *, const int *, const int *, const int *,\n"
	 "  const double *, const double *, const int *, const double *, const int *,\n"
	 "  const double *, double *, const int *);\n"
	 "void LAPACKE_dgesv(void);\n"
	 "void k(double *a, int n) { double one = 1, zero = 0;\n"
	 "  dgemm_(\"N\", \"N\", &n, &n, &n, &one, a, &n, a, &n, &zero, a, &n); LAPACKE_dgesv(); }\n",
	 KJ_BACKEND_CPU, 1, "library fallback", "BLAS,LAPACK"},
	{"lapacke", "void LAPACKE_sgesv(void);\nvoid k(void) { LAPACKE_sgesv(); }\n", KJ_BACKEND_CPU,
	 1, "calls LAPACKE_sgesv: library fallback (LAPACK) instead of a kernel", "LAPACK"},
	{"fortran_only", "void sgemv_(void);\nvoid isamax_(void);\n"
			 "void k(void) { sgemv_(); isamax_(); }\n",
	 KJ_BACKEND_CPU, 1, "library fallback (BLAS)", "BLAS"},
	{"dlopen", "#include <dlfcn.h>\nvoid k(void) { dlopen(\"libcblas.so\", RTLD_NOW); }\n",
	 KJ_BACKEND_CPU, 2, "calls dlopen: dynamic loading is not allowed", ""},
	{"clock",
	 "#include <time.h>\nlong k(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);"
	 " return t.tv_nsec; }\n",
	 KJ_BACKEND_CPU, 2, "calls clock_gettime: clocks and timers are not allowed", ""},
	{"fopen",
	 "#include <stdio.h>\nvoid k(void) { FILE *f = fopen(\"/proc/self/maps\", \"r\");"
	 " if (f) fclose(f); }\n",
	 KJ_BACKEND_CPU, 2, "calls fopen: file access is not allowed", ""},
	{"clean",
	 "#include <math.h>\n#include <stdlib.h>\n#include <string.h>\n#include <stdio.h>\n"
	 "void k(const float *x, float *y, long n) { float *t = malloc(n * sizeof(float));\n"
	 "  if (!t) abort(); memcpy(t, x, n * sizeof(float));\n"
	 "  for (long i = 0; i < n; i++) y[i] = expf(t[i]); free(t); printf(\"%ld\\n\", n); }\n",
	 KJ_BACKEND_CPU, 0, "", ""},
	{"atexit_cpu", "#include <stdlib.h>\nstatic void f(void) {}\nvoid k(void) { atexit(f); }\n",
	 KJ_BACKEND_CPU, 2, "a candidate may not run code at process exit", ""},
	{"atexit_cuda", "#include <stdlib.h>\nstatic void f(void) {}\nvoid k(void) { atexit(f); }\n",
	 KJ_BACKEND_CUDA, 0, "", ""},
	{"exit_cpu", "#include <stdlib.h>\nvoid k(int c) { if (c) exit(0); }\n", KJ_BACKEND_CPU, 2,
	 "calls exit: a candidate may not end the worker process", ""},
	/* nvcc's host body for an external __device__ function calls exit */
	{"exit_cuda", "#include <stdlib.h>\nvoid k(int c) { if (c) exit(0); }\n", KJ_BACKEND_CUDA, 0,
	 "", ""},
	{"stream",
	 "typedef struct st *cudaStream_t;\nint cudaStreamCreateWithFlags(cudaStream_t *, unsigned);\n"
	 "int cublasSgemm_v2(void);\n"
	 "void k(void) { cudaStream_t s; cublasSgemm_v2(); cudaStreamCreateWithFlags(&s, 1); }\n",
	 KJ_BACKEND_CUDA, 2,
	 "calls cudaStreamCreateWithFlags: a candidate must work on the stream it is given",
	 "cuBLAS"},
	{"interpose",
	 "#include <time.h>\nint clock_gettime(clockid_t c, struct timespec *t)"
	 " { (void)c; t->tv_sec = 0; t->tv_nsec = 0; return 0; }\n",
	 KJ_BACKEND_CPU, 2, "defines clock_gettime: a candidate may not replace library functions",
	 ""},
	{"gomp", "void GOMP_parallel(void (*)(void *), void *, unsigned, unsigned);\n"
		 "static void f(void *p) { (void)p; }\nvoid k(void) { GOMP_parallel(f, 0, 0, 0); }\n",
	 KJ_BACKEND_CPU, 2, "calls GOMP_parallel: threads are not allowed", ""},
	{"write", "#include <unistd.h>\nvoid k(void) { write(3, \"x\", 1); }\n", KJ_BACKEND_CPU, 2,
	 "calls write: raw file-descriptor I/O is not allowed", ""},
};

int main(void)
{
	struct kj_symcheck sc;
	struct kj_err err;
	size_t i;
	const char *so;
	char cmd[300];
	int rc;

	(void)near; /* tap.h's helper, unused here */
	snprintf(dir, sizeof(dir), "/tmp/kjudge-test-symcheck-XXXXXX");
	if (!mkdtemp(dir)) {
		ok(0, "cannot make a temporary directory: %s", strerror(errno));
		return done_testing();
	}
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct sym_case *c = &cases[i];
		so = build(c->name, c->src);
		if (!ok(so != NULL, "%s: test object builds", c->name))
			continue;
		kj_err_init(&err);
		rc = kj_symcheck_so(so, c->backend, &sc, &err);
		is_int(rc, 0, "%s: symcheck runs", c->name);
		is_int(sc.verdict, c->verdict, "%s: verdict %d", c->name, c->verdict);
		if (c->reason[0])
			like(sc.reason, c->reason, "%s: reason", c->name);
		else
			is_str(sc.reason, "", "%s: no reason", c->name);
		is_str(sc.libs, c->libs, "%s: libraries '%s'", c->name, c->libs);
	}

	so = build("clean2", "#include <math.h>\n#include <stdlib.h>\n#include <string.h>\n"
			     "void k(float *y, const float *x, long n) { void *t = malloc(n);\n"
			     "  memcpy(t, x, n); y[0] = expf(x[0]); free(t); }\n");
	if (so) {
		kj_symcheck_so(so, KJ_BACKEND_CPU, &sc, &err);
		ok(sc.nundef >= 4, "nundef counts expf, memcpy, malloc, free (%d)", sc.nundef);
	}

	kj_err_init(&err);
	snprintf(cmd, sizeof(cmd), "%s/fork.c", dir);
	is_int(kj_symcheck_so(cmd, KJ_BACKEND_CPU, &sc, &err), KJ_E_IO, "a C source is not ELF");
	like(err.msg, "is not an ELF object", "and the error says so");
	snprintf(cmd, sizeof(cmd), "%s/none.so", dir);
	is_int(kj_symcheck_so(cmd, KJ_BACKEND_CPU, &sc, &err), KJ_E_SYS, "a missing file fails");
	like(err.msg, "No such file or directory", "with the system's reason");

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", dir);
	return done_testing();
}
