/*
 * kj_eval's single exit: an evaluation that ends early (a static rejection,
 * a compile error, a worker that cannot start, a task whose ABI the wire
 * cannot carry, a backend with no device here, a Python interpreter that is
 * missing) releases what it held.  Each case runs once to warm the
 * process's caches (the jail's check, the compile cache), then ROUNDS more
 * times, and after them this process has the descriptors, the heap bytes in
 * use (glibc's mallinfo2) and the folders under its private $TMPDIR
 * (scratch folders, compile folders) it had before.  Needs bwrap and cc for
 * the compile cases; $KJ_BUILD/kjudge-worker (default build/) for none:
 * the worker's path is what one case breaks.
 */
#include <dirent.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kjudge/gpu.h"
#include "kjudge/jail.h"
#include "kjudge/judge.h"
#include "kjudge/sandbox.h"
#include "kjudge/task.h"
#include "tap.h"

#define ROUNDS 6
/* heap growth allowed over ROUNDS evaluations after the warm-up: a leaked
 * verdict-sized or baseline-distance block is kilobytes */
#define HEAP_SLACK 256

static char tmpdir[256], cache[256];

static int count_entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int n = 0;
	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

/* Open descriptors, less the one opendir takes to count them. */
static int count_fds(void)
{
	return count_entries("/proc/self/fd") - 1;
}

static kj_task *parse(const char *text)
{
	struct kj_err err;
	kj_task *t = NULL;
	kj_err_init(&err);
	if (kj_task_parse(text, strlen(text), "exit.kt", &t, &err))
		printf("# %s\n", err.msg);
	return t;
}

struct ev_case {
	const char *name;
	const kj_task *t;
	const char *src;
	size_t len;
	kj_backend backend;
	const char *worker; /* NULL: the built one */
	int want_rc;        /* 0: a verdict; 1: an error */
	kj_status want;     /* the verdict's status, when want_rc is 0 */
};

static const char *worker_path(void)
{
	static char path[4096];
	const char *b = getenv("KJ_BUILD");
	snprintf(path, sizeof(path), "%s/kjudge-worker", b && *b ? b : "build");
	return path;
}

static int eval_once(const struct ev_case *c, kj_verdict *v, struct kj_err *err)
{
	struct kj_eval_opts o;
	kj_eval_opts_init(&o);
	o.backend = c->backend;
	o.no_perf = 1;
	o.seeds = 1;
	o.call_timeout_s = 2;
	o.cache_dir = cache;
	o.include_dir = "include/candidate";
	o.worker_path = c->worker ? c->worker : worker_path();
	kj_err_init(err);
	return kj_eval(c->t, c->src, c->len, &o, v, err);
}

static void run_case(const struct ev_case *c)
{
	kj_verdict v;
	struct kj_err err;
	int rc, fds, files, good = 1;
	size_t heap;
	/* the warm-up: the verdict is checked here */
	rc = eval_once(c, &v, &err);
	if (c->want_rc)
		ok(rc < 0, "%s: an error (rc %d: %s)", c->name, rc, err.msg);
	else
		ok(rc == 0 && v.status == c->want, "%s: verdict %s (rc %d%s%s)", c->name,
		   kj_status_name(v.status), rc, rc ? ": " : "", rc ? err.msg : "");
	kj_verdict_release(&v);
	fds = count_fds();
	files = count_entries(tmpdir);
	heap = mallinfo2().uordblks;
	for (int i = 0; i < ROUNDS; i++) {
		rc = eval_once(c, &v, &err);
		good &= c->want_rc ? rc < 0 : rc == 0 && v.status == c->want;
		kj_verdict_release(&v);
	}
	ok(good, "%s: the same outcome %d times", c->name, ROUNDS);
	ok(count_fds() == fds, "%s: no descriptor left open (%d before, %d after)", c->name, fds, count_fds());
	ok(count_entries(tmpdir) == files, "%s: no folder left in $TMPDIR (%d before, %d after)", c->name, files,
	   count_entries(tmpdir));
	ok(mallinfo2().uordblks <= heap + HEAP_SLACK, "%s: no heap left allocated (%zu bytes in use before, %zu after)",
	   c->name, heap, (size_t)mallinfo2().uordblks);
}

int main(void)
{
	static const char task_text[] = "task twice\nlevel 1\ncategory Math\nabout \"x\"\n"
					"input x: f32[N] ~ normal\noutput y: f32[N]\ny = x * 2.0\n"
					"check N=4\ncheck N=7\nbench N=64\n";
	static const char good_src[] = "#include <stdint.h>\n"
				       "void twice(const float *x, float *y, int64_t N)\n"
				       "{\n\tfor (int64_t i = 0; i < N; i++)\n\t\ty[i] = 2.0f * x[i];\n}\n";
	static const char bad_src[] = "void twice(const float *x, float *y, long N) { y[0] = x[0] +; }\n";
	static const char nul_src[] = "void twice(void) {}\n\0// after a NUL\n";
	char wide[16384];
	size_t off = 0;
	kj_task *t, *tw;
	struct kj_err err;
	const char *base = getenv("TMPDIR");

	snprintf(tmpdir, sizeof(tmpdir), "%s/kj-exit-XXXXXX", base && *base ? base : "/tmp");
	snprintf(cache, sizeof(cache), "%s/kj-exit-cache-XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(tmpdir) || !mkdtemp(cache)) {
		printf("1..0 # SKIP cannot create a temporary folder\n");
		return 0;
	}
	/* the judge's scratch and compile folders go here, nothing else */
	setenv("TMPDIR", tmpdir, 1);
	kj_err_init(&err);
	if (kj_jail_available(&err)) {
		printf("1..0 # SKIP no sandbox here: %s\n", err.msg);
		return 0;
	}
	/* a task with more tensors than a call carries */
	off += (size_t)snprintf(wide + off, sizeof(wide) - off, "task wide\nlevel 1\ncategory Math\nabout \"x\"\n");
	for (int i = 0; i <= KJ_WORKER_MAX_PTR; i++)
		off += (size_t)snprintf(wide + off, sizeof(wide) - off, "input x%d: f32[N] ~ normal\n", i);
	off += (size_t)snprintf(wide + off, sizeof(wide) - off, "output y: f32[N]\ny = x0");
	for (int i = 1; i <= KJ_WORKER_MAX_PTR; i++)
		off += (size_t)snprintf(wide + off, sizeof(wide) - off, " + x%d", i);
	snprintf(wide + off, sizeof(wide) - off, "\ncheck N=4\n");
	t = parse(task_text);
	tw = parse(wide);
	if (!ok(t != NULL && tw != NULL, "the tasks parse"))
		return done_testing();
	{
		const struct ev_case cases[] = {
			{ "a static rejection (a NUL byte)", t, nul_src, sizeof(nul_src) - 1, KJ_BACKEND_CPU, NULL, 0,
			  KJ_ST_REJECTED },
			{ "a compile error", t, bad_src, sizeof(bad_src) - 1, KJ_BACKEND_CPU, NULL, 0,
			  KJ_ST_COMPILE_ERROR },
			{ "a worker that is not there", t, good_src, sizeof(good_src) - 1, KJ_BACKEND_CPU,
			  "/nonexistent/kjudge-worker", 1, KJ_ST_PASS },
			{ "a task with more tensors than a call carries", tw, good_src, sizeof(good_src) - 1,
			  KJ_BACKEND_CPU, NULL, 1, KJ_ST_PASS },
			{ "an honest candidate (the whole sequence)", t, good_src, sizeof(good_src) - 1, KJ_BACKEND_CPU,
			  NULL, 0, KJ_ST_PASS },
		};
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
			run_case(&cases[i]);
		/* no CUDA device here: the CUDA backend stops at the device */
		if (!kj_gpu_available()) {
			const struct ev_case c = { "the CUDA backend with no device", t, good_src, sizeof(good_src) - 1,
						   KJ_BACKEND_CUDA, NULL, 1, KJ_ST_PASS };
			run_case(&c);
		}
		/* a Python interpreter that is not there: the Python kind's state
		 * is made, then released */
		{
			const struct ev_case c = { "a Python candidate with no interpreter", t, "x = 1\n", 6,
						   KJ_BACKEND_TRITON, NULL, 1, KJ_ST_PASS };
			setenv("KJ_PYTHON", "/nonexistent/python3", 1);
			run_case(&c);
			unsetenv("KJ_PYTHON");
		}
	}
	kj_task_free(t);
	kj_task_free(tw);
	rmdir(tmpdir);
	{
		char cmd[600];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", cache);
		if (system(cmd) != 0)
			printf("# cannot remove %s\n", cache);
	}
	return done_testing();
}
