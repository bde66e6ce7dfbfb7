/*
 * The candidate compiler and its cache: a build lands under its key and
 * works, identical inputs never compile twice (a wrapper compiler counts its
 * runs), a change of source, header or compiler changes the key, a broken
 * candidate's failure is cached with its log, and a hanging compiler is
 * killed.  Runs from the repository root (it reads include/candidate).
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kjudge/compile.h"
#include "kjudge/hash.h"
#include "kjudge/jail.h"
#include "tap.h"

static char dir[256], cache[512], counter[512];

static const char good_src[] =
	"#include \"kjudge_cpu.h\"\n"
	"void add(const float *a, const float *b, float *y, int64_t n)\n"
	"{ for (int64_t i = 0; i < n; i++)\n"
	"    y[i] = kj_half_to_float(kj_float_to_half(a[i])) + b[i]; }\n";
static const char other_src[] =
	"#include \"kjudge_cpu.h\"\n"
	"void add(const float *a, const float *b, float *y, int64_t n)\n"
	"{ for (int64_t i = 0; i < n; i++) y[i] = a[i] + b[i]; }\n";
static const char bad_src[] = "void add(float *y) { y[0] = 1.0f }\n";

/* is_str() tests its argument for NULL, which warns for an array. */
static const char *str(const char *p)
{
	return p;
}

static int write_file(const char *path, const char *text, int mode)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	fclose(f);
	return chmod(path, (mode_t)mode);
}

static int runs(void)
{
	FILE *f = fopen(counter, "r");
	int n = 0, c;
	if (!f)
		return 0;
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

static int exists(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0;
}

/* The cache's behaviour is tested with the compiler run unconfined: the
 * wrapper compiler counts its runs in a file outside the build folder,
 * which the jail would not let it write.  test_jail() covers the jail. */
static void opts(struct kj_compile_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->backend = KJ_BACKEND_CPU;
	o->cache_dir = cache;
	o->include_dir = "include/candidate";
	o->unconfined = 1;
}

static int compile(const char *src, const struct kj_compile_opts *o, struct kj_compile_result *r,
		   struct kj_err *e)
{
	kj_err_init(e);
	return kj_compile(src, strlen(src), o, r, e);
}

static void test_sha(void)
{
	char h[65];
	kj_backend b;
	kj_sha256_hex("abc", 3, h);
	is_str(str(h), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "sha256(abc)");
	kj_sha256_hex("", 0, h);
	is_str(str(h), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", "sha256('')");
	is_str(kj_backend_name(KJ_BACKEND_CUDA), "cuda", "backend name cuda");
	ok(kj_backend_from_name("cpu", &b) == 0 && b == KJ_BACKEND_CPU, "backend from name cpu");
	is_int(kj_backend_from_name("gpu", &b), KJ_E_USAGE, "an unknown backend name is refused");
}

static int no_leftovers(void)
{
	DIR *d = opendir(cache);
	struct dirent *de;
	int n = 0;
	if (!d)
		return 0;
	while ((de = readdir(d)) != NULL)
		n += strncmp(de->d_name, "tmp-", 4) == 0;
	closedir(d);
	return n == 0;
}

/* Calls the built add() and checks one value. */
static int works(const char *so)
{
	void (*fn)(const float *, const float *, float *, int64_t);
	float a[3] = {1, 2, 3}, b[3] = {10, 20, 30}, y[3] = {0, 0, 0};
	void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return 0;
	*(void **)&fn = dlsym(h, "add");
	if (!fn)
		return 0;
	fn(a, b, y, 3);
	return y[0] == 11 && y[1] == 22 && y[2] == 33;
}

/* The compiler in the jail: it builds, it sees no host file outside the
 * toolchain (a marker file beside the cache, by its absolute path, stays
 * out of the log), and its limits stop it with a reason that names them. */
static void test_jail(void)
{
	struct kj_compile_opts o;
	struct kj_compile_result r;
	struct kj_err e;
	char secret[600], src[1400];
	struct kj_err je;

	kj_err_init(&je);
	if (kj_jail_available(&je)) {
		ok(0, "the jail works here (%s)", je.msg);
		return;
	}
	opts(&o);
	o.unconfined = 0;
	o.no_cache = 1;
	unsetenv("KJ_CC");
	is_int(compile(good_src, &o, &r, &e), 0, "a jailed compile runs (%s)", e.msg);
	ok(r.ok && works(r.so_path), "and its object computes add()");
	kj_compile_result_release(&r);

	snprintf(secret, sizeof(secret), "%s/host-secret.h", dir);
	write_file(secret, "int kj_marker_7f3a9 = 1; /* KJ-HOST-SECRET */\n", 0644);
	snprintf(src, sizeof(src), "#include \"%s\"\nint f(void) { return kj_marker_7f3a9; }\n", secret);
	compile(src, &o, &r, &e);
	is_int(r.ok, 0, "a host file outside the toolchain is not there to include");
	like(r.log, "No such file or directory", "the compiler says it is missing");
	ok(r.log && !strstr(r.log, "KJ-HOST-SECRET"), "and no byte of it reaches the log");
	kj_compile_result_release(&r);

	setenv("KJ_TEST_ENV_MARKER", "KJ-JUDGE-ENV-4c1e", 1);
	compile("#include \"/proc/self/environ\"\nint f(void) { return 0; }\n", &o, &r, &e);
	is_int(r.ok, 0, "the compiler's jail has no /proc: /proc/self/environ is not there to include");
	like(r.log, "/proc/self/environ: No such file or directory", "the compiler says it is missing");
	ok(r.log && !strstr(r.log, "KJ-JUDGE-ENV-4c1e"), "and nothing of the judge's environment is in the log");
	kj_compile_result_release(&r);
	unsetenv("KJ_TEST_ENV_MARKER");

	o.mem_limit = (size_t)256 << 20;
	compile("#include \"/dev/zero\"\n", &o, &r, &e);
	is_int(r.ok, 0, "an endless include fails");
	like(str(r.limit), "memory limit (256 MiB", "stopped by the memory limit, named (%s)", r.limit);
	like(r.log, "kjudge: the compiler ran out of its memory limit", "and the log says so");
	kj_compile_result_release(&r);
	o.mem_limit = 0;

	o.fsize_limit = (size_t)1 << 20;
	compile("__asm__(\".section .data\\n.fill 8388608, 1, 1\");\n"
		"int f(void) { return 0; }\n", &o, &r, &e);
	is_int(r.ok, 0, "an object past the file-size limit fails");
	like(str(r.limit), "file-size limit (1 MiB)", "stopped by the file-size limit, named (%s)", r.limit);
	kj_compile_result_release(&r);
}

int main(void)
{
	struct kj_compile_opts o;
	struct kj_compile_result r, r2;
	struct kj_err e;
	char path[1200], key1[65], key_fake[65], wrap[512], slow[512], inc2[512], text[1400];

	snprintf(dir, sizeof(dir), "/tmp/kjudge-test-compile-XXXXXX");
	if (!mkdtemp(dir)) {
		ok(0, "cannot make a temporary directory: %s", strerror(errno));
		return done_testing();
	}
	snprintf(cache, sizeof(cache), "%s/cache", dir);
	snprintf(counter, sizeof(counter), "%s/runs", dir);
	snprintf(wrap, sizeof(wrap), "%s/wrap-cc", dir);
	snprintf(slow, sizeof(slow), "%s/slow-cc", dir);
	snprintf(text, sizeof(text),
		 "#!/bin/sh\n[ \"$1\" = --version ] || echo run >> '%s'\nexec cc \"$@\"\n", counter);
	write_file(wrap, text, 0755);
	write_file(slow, "#!/bin/sh\n[ \"$1\" = --version ] && { echo fake-cc 1.0; exit 0; }\n"
			 "echo compiling slowly\nsleep 30\n", 0755);
	setenv("KJ_CC", wrap, 1);

	test_sha();

	opts(&o);
	is_int(compile(good_src, &o, &r, &e), 0, "compile runs");
	is_int(r.ok, 1, "a good candidate compiles");
	is_int(r.cached, 0, "the first build is not cached");
	is_int(runs(), 1, "the compiler ran once");
	is_int(strlen(r.key), 64, "the key is 64 hex characters");
	snprintf(path, sizeof(path), "%s/cpu/%.2s/%s.so", cache, r.key, r.key);
	is_str(str(r.so_path), path, "the object is at <cache>/cpu/<key[0:2]>/<key>.so");
	ok(exists(r.so_path), "the object exists");
	snprintf(path, sizeof(path), "%s/cpu/%.2s/%s.log", cache, r.key, r.key);
	ok(exists(path), "the log is kept beside it");
	ok(r.log != NULL, "a log string is returned");
	ok(works(r.so_path), "the object computes add()");
	memcpy(key1, r.key, sizeof(key1));
	kj_compile_result_release(&r);
	ok(r.log == NULL, "release frees the log");

	is_int(compile(good_src, &o, &r, &e), 0, "compile again");
	ok(r.ok && r.cached, "the second build comes from the cache");
	is_str(str(r.key), key1, "with the same key");
	is_near(r.seconds, 0, 0, "and no time spent compiling");
	is_int(runs(), 1, "the compiler did not run again");
	kj_compile_result_release(&r);

	o.no_cache = 1;
	compile(good_src, &o, &r, &e);
	ok(r.ok && !r.cached, "no_cache rebuilds");
	is_int(runs(), 2, "the compiler ran for no_cache");
	is_str(str(r.key), key1, "no_cache keeps the key");
	kj_compile_result_release(&r);
	o.no_cache = 0;

	compile(other_src, &o, &r, &e);
	ok(r.ok && !r.cached, "a different source builds");
	ok(strcmp(r.key, key1) != 0, "under a different key");
	kj_compile_result_release(&r);

	snprintf(inc2, sizeof(inc2), "%s/inc2", dir);
	mkdir(inc2, 0755);
	snprintf(path, sizeof(path), "cp include/candidate/kjudge_cpu.h %s/ && echo '/* v2 */' >> %s/kjudge_cpu.h",
		 inc2, inc2);
	if (system(path) != 0)
		printf("# could not copy the header\n");
	o.include_dir = inc2;
	compile(good_src, &o, &r, &e);
	ok(r.ok && !r.cached, "a changed header rebuilds");
	ok(strcmp(r.key, key1) != 0, "under a different key");
	kj_compile_result_release(&r);
	o.include_dir = "include/candidate";

	is_int(runs(), 4, "four compiler runs so far");
	is_int(compile(bad_src, &o, &r, &e), 0, "a broken candidate is not a judge error");
	is_int(r.ok, 0, "a syntax error does not compile");
	is_int(r.cached, 0, "the first failure is not cached");
	like(r.log, "error:", "the log has the compiler's error");
	like(r.log, "cand.c:1:", "naming the source by its relative name");
	ok(strstr(r.log, "kjudge-build-") == NULL, "without the build folder's name");
	snprintf(path, sizeof(path), "%s/cpu/%.2s/%s.fail", cache, r.key, r.key);
	ok(exists(path), "the failure is cached as <key>.fail");
	is_int(compile(bad_src, &o, &r2, &e), 0, "compile the broken candidate again");
	ok(!r2.ok && r2.cached, "the failure comes from the cache");
	is_str(r2.log, r.log, "with the same log");
	is_int(runs(), 5, "the compiler did not run for the cached failure");
	kj_compile_result_release(&r);
	kj_compile_result_release(&r2);

	o.log_cap = 40;
	compile("int f(void) { return x; }\n", &o, &r, &e);
	is_int(r.ok, 0, "another broken candidate");
	is_int(strlen(r.log), 40, "its log is capped at log_cap bytes");
	kj_compile_result_release(&r);
	o.log_cap = 0;

	setenv("KJ_CC", slow, 1);
	o.timeout_s = 1;
	o.log_cap = 10;
	is_int(compile(good_src, &o, &r, &e), 0, "a hanging compiler is not a judge error");
	is_int(r.ok, 0, "a timed-out build fails");
	like(r.log, "compiling ", "its output is kept up to log_cap");
	like(r.log, "ran past its 1 s wall-clock limit", "and the log says it timed out");
	memcpy(key_fake, r.key, sizeof(key_fake));
	ok(strcmp(key_fake, key1) != 0, "another compiler identity gives another key");
	snprintf(path, sizeof(path), "%s/cpu/%.2s/%s.fail", cache, r.key, r.key);
	ok(!exists(path), "a timeout is not cached as a failure");
	kj_compile_result_release(&r);
	o.timeout_s = 0;
	o.log_cap = 0;

	setenv("KJ_CC", "/nonexistent/cc", 1);
	is_int(compile(good_src, &o, &r, &e), KJ_E_NOTFOUND, "a missing compiler is a judge error");
	like(str(e.msg), "cannot run compiler '/nonexistent/cc'", "naming the compiler");
	kj_compile_result_release(&r);
	setenv("KJ_CC", wrap, 1);

	o.include_dir = dir;
	is_int(compile(good_src, &o, &r, &e), KJ_E_SYS, "a missing candidate header is a judge error");
	like(str(e.msg), "kjudge_cpu.h", "naming the header");
	o.include_dir = "include/candidate";

	o.backend = KJ_BACKEND_CUDA;
	o.arch = "compute_90; rm -rf /";
	is_int(compile(good_src, &o, &r, &e), KJ_E_USAGE, "a malformed CUDA arch is a usage error");
	like(str(e.msg), "bad CUDA architecture", "naming the arch");
	o.arch = NULL;
	o.backend = KJ_BACKEND_CPU;

	ok(no_leftovers(), "no build folder is left in the cache");
	setenv("KJ_CC", wrap, 1);
	test_jail();

	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	if (system(path) != 0)
		printf("# could not remove %s\n", dir);
	return done_testing();
}
