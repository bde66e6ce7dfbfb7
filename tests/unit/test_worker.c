/*
 * The worker and its judge-side client: a round trip computes the right
 * numbers in the judge's view of the arena, every way a candidate can break
 * the worker gives its exact status, and after each one a new worker works.
 * Test libraries are compiled with cc at test time; the worker comes from
 * $KJ_BUILD/kjudge-worker (default build/kjudge-worker).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kjudge/gpu.h"
#include "kjudge/jail.h"
#include "kjudge/sandbox.h"
#include "sandbox/wire.h"
#include "so_testlib.h"
#include "tap.h"

static char dir[256], worker_path[4096], scratch[512];

static const char src_add[] =
	"#include <stdint.h>\n"
	"#include <stdio.h>\n"
	"void add(const float *a, const float *b, float *y, int64_t n)\n"
	"{ for (int64_t i = 0; i < n; i++) y[i] = a[i] + b[i]; }\n"
	"void dims3(int64_t *o, int64_t a, int64_t b, int64_t c) { o[0] = a; o[1] = b; o[2] = c; }\n"
	"void hello(void) { fputs(\"0123456789abcdefghijklmnopqrstuvwxyz0123456789ABCD\", stdout);"
	" fflush(stdout); }\n";
static const char src_probe[] =
	"#define _GNU_SOURCE\n"
	"#include <stdint.h>\n#include <fcntl.h>\n#include <unistd.h>\n#include <string.h>\n"
	"#include <sys/resource.h>\n#include <sys/prctl.h>\n"
	"static int64_t lim(int r) { struct rlimit l; getrlimit(r, &l); return (int64_t)l.rlim_cur; }\n"
	"void probe(int64_t *o, char *cwd) {\n"
	"  int fd, n = 0;\n"
	"  o[0] = lim(RLIMIT_NOFILE); o[1] = lim(RLIMIT_CORE); o[2] = lim(RLIMIT_FSIZE);\n"
	"  o[3] = lim(RLIMIT_AS); o[4] = lim(RLIMIT_CPU); o[5] = getpgid(0) == getpid();\n"
	"  o[6] = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);\n"
	"  for (fd = 4; fd < 64; fd++) n += fcntl(fd, F_GETFD) >= 0;\n"
	"  o[7] = n; o[8] = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);\n"
	"  if (!getcwd(cwd, 1024)) memcpy(cwd, \"?\", 2);\n"
	"}\n";
static const char src_segv[] = "static int *volatile p; void k(void) { *p = 1; }\n";
static const char src_abort[] = "#include <stdlib.h>\nvoid k(void) { abort(); }\n";
static const char src_loop[] = "void k(void) { volatile unsigned long x = 0; for (;;) x++; }\n";
static const char src_exit0[] = "#include <stdlib.h>\nvoid k(void) { exit(0); }\n";
static const char src_flood[] =
	"#include <stdio.h>\n#include <string.h>\n"
	"void k(void) { static char b[65536]; int i; memset(b, 'x', sizeof(b));\n"
	"  for (i = 0; i < 160; i++) fwrite(b, 1, sizeof(b), stdout); fflush(stdout); }\n";
static const char src_sleeper[] = "#include <unistd.h>\nvoid k(void) { sleep(10); }\n";

static int build_lib(const char *name, const char *src)
{
	return kjt_build_so(dir, name, src, "");
}

static const char *lib(const char *name)
{
	return kjt_so_path(dir, name);
}

static void base_opts(struct kj_worker_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->worker_path = worker_path;
	o->scratch_dir = scratch;
}

/* The soft limit named `what` (e.g. "Max address space") of a process, read
 * from /proc: -1 for unlimited, -2 when it cannot be read. */
static int64_t proc_limit(pid_t pid, const char *what)
{
	char path[64], line[256];
	int64_t v = -2;
	size_t k = strlen(what);
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/limits", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -2;
	while (fgets(line, sizeof(line), f)) {
		const char *p = line + k;
		if (strncmp(line, what, k) != 0 || *p != ' ')
			continue;
		while (*p == ' ')
			p++;
		v = strncmp(p, "unlimited", 9) == 0 ? -1 : strtoll(p, NULL, 10);
		break;
	}
	fclose(f);
	return v;
}

/* Starts a fresh worker and checks an add of n floats through the arena. */
static int round_trip(const char *when)
{
	struct kj_worker_opts o;
	struct kj_worker w;
	struct kj_call_result res;
	struct kj_err err;
	const int64_t n = 1000;
	uint64_t off[3] = {0, 4000, 8000};
	float *a, *b, *y;
	int64_t i, bad = 0;
	int good = 1;

	base_opts(&o);
	kj_err_init(&err);
	if (kj_worker_start(&w, &o, &err) != 0) {
		ok(0, "%s: a new worker starts (%s)", when, err.msg);
		return 0;
	}
	good &= kj_worker_load(&w, lib("add"), "add", 3, 1, 30, &res, &err) == 0 &&
		res.status == KJ_CALL_OK;
	good &= kj_worker_arena(&w, 12000, &err) == 0;
	if (good) {
		a = (float *)w.arena;
		b = a + n;
		y = b + n;
		for (i = 0; i < n; i++) {
			a[i] = (float)i * 0.5f;
			b[i] = (float)(n - i) * 0.25f;
			y[i] = NAN;
		}
		good &= kj_worker_call(&w, off, 3, &n, 1, 30, &res, &err) == 0 &&
			res.status == KJ_CALL_OK;
		for (i = 0; i < n; i++)
			bad += y[i] != a[i] + b[i];
		good &= bad == 0;
	}
	ok(good, "%s: a new worker computes y = a + b in the arena", when);
	kj_worker_stop(&w);
	return good;
}

struct broken_case {
	const char *name;
	const char *src;
	double timeout_s, cpu_limit_s;
	kj_call_status status;
	int signo, exit_code;
	const char *msg;
};

static void run_broken(const struct broken_case *c)
{
	struct kj_worker_opts o;
	struct kj_worker w;
	struct kj_call_result res;
	struct kj_err err;
	int rc;

	base_opts(&o);
	o.cpu_limit_s = c->cpu_limit_s;
	o.flood_limit = (size_t)1 << 20;
	o.log_cap = 1000;
	kj_err_init(&err);
	rc = kj_worker_start(&w, &o, &err);
	is_int(rc, 0, "%s: worker starts", c->name);
	if (rc)
		return;
	kj_worker_load(&w, lib(c->name), "k", 0, 0, 30, &res, &err);
	is_int(res.status, KJ_CALL_OK, "%s: loads", c->name);
	rc = kj_worker_call(&w, NULL, 0, NULL, 0, c->timeout_s, &res, &err);
	is_int(rc, 0, "%s: the exchange is not a judge error", c->name);
	is_str(kj_call_status_name(res.status), kj_call_status_name(c->status),
	       "%s: status %s", c->name, kj_call_status_name(c->status));
	if (c->status == KJ_CALL_SIGNALED)
		is_int(res.signo, c->signo, "%s: signal %d", c->name, c->signo);
	if (c->status == KJ_CALL_EXITED)
		is_int(res.exit_code, c->exit_code, "%s: exit code %d", c->name, c->exit_code);
	like(res.msg, c->msg, "%s: message says '%s'", c->name, c->msg);
	is_int(w.dead, 1, "%s: worker marked dead", c->name);
	if (c->status == KJ_CALL_FLOOD) {
		is_int(w.log.len, 1000, "flood: log keeps log_cap bytes");
		ok(w.log.total > ((size_t)1 << 20), "flood: log counts past the flood limit (%zu)",
		   w.log.total);
		is_int(w.log.buf[999], 'x', "flood: kept bytes are the candidate's");
	}
	rc = kj_worker_nop(&w, 30, &res, &err);
	ok(rc == 0 && (res.status == KJ_CALL_SIGNALED || res.status == KJ_CALL_EXITED),
	   "%s: a later call fails fast as %s", c->name, kj_call_status_name(res.status));
	kj_worker_stop(&w);
	kj_worker_stop(&w);
	round_trip(c->name);
}

static void test_round_trip(void)
{
	struct kj_worker_opts o;
	struct kj_worker w;
	struct kj_call_result res;
	struct kj_err err;
	const int64_t n = 4099;
	uint64_t off[3];
	int64_t dims[3] = {7, -3, (int64_t)1 << 40}, *d;
	float *a, *b, *y;
	int64_t i, bad = 0;

	base_opts(&o);
	kj_err_init(&err);
	if (!is_int(kj_worker_start(&w, &o, &err), 0, "worker starts")) {
		printf("# %s\n", err.msg);
		return;
	}
	ok(w.pid > 0 && w.sock >= 0 && w.logfd >= 0 && !w.dead, "worker has a pid and channels");

	is_int(kj_worker_nop(&w, 30, &res, &err), 0, "NOP exchange");
	is_int(res.status, KJ_CALL_OK, "NOP is OK");
	ok(res.judge_ns > 0, "NOP has a judge-side time");

	kj_worker_load(&w, lib("add"), "add", 3, 1, 30, &res, &err);
	is_int(res.status, KJ_CALL_OK, "LOAD add");
	is_int(kj_worker_arena(&w, (size_t)n * 12, &err), 0, "ARENA of %lld bytes", (long long)n * 12);
	is_int(w.arena_size, n * 12, "judge maps the whole arena");
	a = (float *)w.arena;
	b = a + n;
	y = b + n;
	for (i = 0; i < n; i++) {
		a[i] = (float)i * 0.5f;
		b[i] = (float)(n - i) * 0.25f;
		y[i] = NAN;
	}
	off[0] = 0;
	off[1] = (uint64_t)n * 4;
	off[2] = (uint64_t)n * 8;
	is_int(kj_worker_call(&w, off, 3, &n, 1, 30, &res, &err), 0, "CALL exchange");
	is_int(res.status, KJ_CALL_OK, "CALL is OK (%s)", res.msg);
	for (i = 0; i < n; i++)
		bad += y[i] != a[i] + b[i];
	is_int(bad, 0, "every y[i] == a[i] + b[i] in the judge's view");
	is_near(y[4098], 2049.25, 0, "y[4098] is 2049 + 0.25");
	ok(res.judge_ns > 0 && res.judge_ns >= res.worker_ns,
	   "judge time %lld ns encloses the worker's %lld ns", (long long)res.judge_ns,
	   (long long)res.worker_ns);

	/* Once the calls have begun no code comes in on the CPU track (the
	 * post-load filter refuses opens): a second LOAD fails. */
	kj_worker_load(&w, lib("add"), "dims3", 1, 3, 30, &res, &err);
	is_int(res.status, KJ_CALL_ERROR, "a LOAD after the first CALL is refused");
	like(res.msg, "Operation not permitted", "the object cannot even be opened (%s)", res.msg);
	kj_worker_stop(&w);
	if (!is_int(kj_worker_start(&w, &o, &err), 0, "a second worker starts")) {
		printf("# %s\n", err.msg);
		return;
	}

	/* A second arena replaces the first on both sides. */
	is_int(kj_worker_arena(&w, 12000, &err), 0, "an arena");
	is_int(kj_worker_arena(&w, 64, &err), 0, "a new 64-byte arena");
	kj_worker_load(&w, lib("add"), "dims3", 1, 3, 30, &res, &err);
	is_int(res.status, KJ_CALL_OK, "LOAD dims3");
	off[0] = 8;
	kj_worker_call(&w, off, 1, dims, 3, 30, &res, &err);
	is_int(res.status, KJ_CALL_OK, "CALL dims3");
	d = (int64_t *)((char *)w.arena + 8);
	ok(d[0] == 7 && d[1] == -3 && d[2] == ((int64_t)1 << 40), "dims arrive in order and intact");

	off[0] = 64;
	kj_worker_call(&w, off, 1, dims, 3, 30, &res, &err);
	is_int(res.status, KJ_CALL_ERROR, "an offset at the arena's end is refused");
	like(res.msg, "outside the arena", "and the worker says why");
	kj_worker_call(&w, off, 2, dims, 3, 30, &res, &err);
	is_int(res.status, KJ_CALL_ERROR, "a CALL with other counts than the LOAD is refused");
	like(res.msg, "LOAD said 1 and 3", "and the worker names the counts");

	kj_worker_stop(&w);
	if (!is_int(kj_worker_start(&w, &o, &err), 0, "a third worker starts")) {
		printf("# %s\n", err.msg);
		return;
	}
	kj_worker_load(&w, lib("add"), "nosuch", 0, 0, 30, &res, &err);
	is_int(res.status, KJ_CALL_ERROR, "a missing symbol is an ERROR");
	like(res.msg, "undefined symbol: nosuch", "with dlerror's text");
	kj_worker_call(&w, off, 1, dims, 3, 30, &res, &err);
	is_int(res.status, KJ_CALL_ERROR, "after a failed LOAD nothing is callable");
	like(res.msg, "CALL before a successful LOAD", "and the worker says so");
	kj_worker_load(&w, lib("nothere"), "k", 0, 0, 30, &res, &err);
	is_int(res.status, KJ_CALL_ERROR, "a missing object is an ERROR");
	like(res.msg, "cannot open shared object file", "with dlerror's text");
	is_int(w.dead, 0, "errors leave the worker alive");
	kj_worker_nop(&w, 30, &res, &err);
	is_int(res.status, KJ_CALL_OK, "and it still answers");
	is_int(kj_worker_load(&w, lib("add"), "add", KJ_WIRE_MAX_PTR + 1, 0, 30, &res, &err),
	       KJ_E_USAGE, "%d pointer arguments are a usage error", KJ_WIRE_MAX_PTR + 1);
	is_int(kj_worker_load(&w, lib("add"), "add", 0, KJ_WIRE_MAX_DIM + 1, 30, &res, &err),
	       KJ_E_USAGE, "%d dimension arguments are a usage error", KJ_WIRE_MAX_DIM + 1);
	kj_worker_stop(&w);
	is_int(w.sock, -1, "stop closes the socket");
	kj_worker_stop(&w);
	ok(1, "stop twice is safe");
}

/* The source of many(): 63 float inputs a0..a62, an output y and 32 dims
 * d0..d31 (the protocol's maximum of each); y[i] = sum_k (k + 1) * a_k[i]
 * for i < d0, then y[d0 + j] = d_j. */
static int build_many(void)
{
	static char src[16384];
	size_t o = 0;
	int k;

	o += (size_t)snprintf(src + o, sizeof(src) - o, "#include <stdint.h>\nvoid many(");
	for (k = 0; k < KJ_WIRE_MAX_PTR - 1; k++)
		o += (size_t)snprintf(src + o, sizeof(src) - o, "const float *a%d, ", k);
	o += (size_t)snprintf(src + o, sizeof(src) - o, "float *y");
	for (k = 0; k < KJ_WIRE_MAX_DIM; k++)
		o += (size_t)snprintf(src + o, sizeof(src) - o, ", int64_t d%d", k);
	o += (size_t)snprintf(src + o, sizeof(src) - o,
			      ")\n{\n\tconst float *a[] = { a0");
	for (k = 1; k < KJ_WIRE_MAX_PTR - 1; k++)
		o += (size_t)snprintf(src + o, sizeof(src) - o, ", a%d", k);
	o += (size_t)snprintf(src + o, sizeof(src) - o, " };\n\tint64_t d[] = { d0");
	for (k = 1; k < KJ_WIRE_MAX_DIM; k++)
		o += (size_t)snprintf(src + o, sizeof(src) - o, ", d%d", k);
	o += (size_t)snprintf(src + o, sizeof(src) - o,
			      " };\n\tfor (int64_t i = 0; i < d0; i++) {\n"
			      "\t\tfloat s = 0;\n"
			      "\t\tfor (int k = 0; k < %d; k++) s += (float)(k + 1) * a[k][i];\n"
			      "\t\ty[i] = s;\n\t}\n"
			      "\tfor (int j = 0; j < %d; j++) y[d0 + j] = (float)d[j];\n}\n",
			      KJ_WIRE_MAX_PTR - 1, KJ_WIRE_MAX_DIM);
	if (o >= sizeof(src))
		return -1;
	return build_lib("many", src);
}

/* A call with the protocol's maximum of pointer and dim arguments (wire v3:
 * 64 and 32) goes through libffi with every argument in its place. */
static void test_many_args(void)
{
	enum { NP = KJ_WIRE_MAX_PTR, ND = KJ_WIRE_MAX_DIM, N = 37 };
	struct kj_worker_opts o;
	struct kj_worker w;
	struct kj_call_result res;
	struct kj_err err;
	uint64_t off[NP];
	int64_t dims[ND], bad = 0, i;
	float *y;
	int k;

	if (!ok(build_many() == 0, "a function of %d pointers and %d dims compiles", NP, ND))
		return;
	base_opts(&o);
	kj_err_init(&err);
	if (kj_worker_start(&w, &o, &err)) {
		ok(0, "worker starts (%s)", err.msg);
		return;
	}
	kj_worker_load(&w, lib("many"), "many", NP, ND, 30, &res, &err);
	is_int(res.status, KJ_CALL_OK, "LOAD of %d + %d arguments (%s)", NP, ND, res.msg);
	/* every tensor in its own 256-byte slot: N floats of input; the output,
	 * N + ND floats, takes the last two */
	is_int(kj_worker_arena(&w, (size_t)(NP + 1) * 256, &err), 0, "arena of %d slots", NP + 1);
	for (k = 0; k < NP; k++) {
		float *a = (float *)((char *)w.arena + (size_t)k * 256);
		off[k] = (uint64_t)k * 256;
		for (i = 0; i < (k < NP - 1 ? N : N + ND); i++)
			a[i] = k < NP - 1 ? (float)((i + 2 * k) % 7) - 3.0f : NAN;
	}
	dims[0] = N;
	for (k = 1; k < ND; k++)
		dims[k] = (int64_t)1000 + 17 * k;
	kj_worker_call(&w, off, NP, dims, ND, 30, &res, &err);
	is_int(res.status, KJ_CALL_OK, "CALL with %d pointers and %d dims (%s)", NP, ND, res.msg);
	y = (float *)((char *)w.arena + (size_t)(NP - 1) * 256);
	for (i = 0; i < N; i++) {
		double want = 0;
		for (k = 0; k < NP - 1; k++)
			want += (double)(k + 1) * (double)(((i + 2 * k) % 7) - 3);
		bad += y[i] != (float)want;
	}
	is_int(bad, 0, "every y[i] = sum_k (k+1) a_k[i]: each pointer arrived in its place");
	for (k = 0; k < ND; k++)
		bad += y[N + k] != (float)dims[k];
	is_int(bad, 0, "every dim arrived in its place (d31 = %g)", (double)y[N + ND - 1]);
	kj_worker_call(&w, off, NP - 1, dims, ND, 30, &res, &err);
	is_int(res.status, KJ_CALL_ERROR, "a CALL with one pointer fewer than the LOAD is refused");
	kj_worker_stop(&w);
}

static void test_sandbox_setup(void)
{
	struct kj_worker_opts o;
	struct kj_worker w;
	struct kj_call_result res;
	struct kj_err err;
	uint64_t off[2] = {0, 128};
	int64_t *v;
	char want[PATH_MAX], *cwd;
#if defined(__SANITIZE_ADDRESS__)
	int64_t want_as = -1;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
	int64_t want_as = -1;
#else
	int64_t want_as = (int64_t)8 << 30;
#endif
#else
	int64_t want_as = (int64_t)8 << 30;
#endif

	base_opts(&o);
	kj_err_init(&err);
	if (kj_worker_start(&w, &o, &err)) {
		ok(0, "probe worker starts (%s)", err.msg);
		return;
	}
	kj_worker_arena(&w, 4096, &err);
	kj_worker_load(&w, lib("probe"), "probe", 2, 0, 30, &res, &err);
	kj_worker_call(&w, off, 2, NULL, 0, 30, &res, &err);
	is_int(res.status, KJ_CALL_OK, "probe runs");
	v = (int64_t *)w.arena;
	cwd = (char *)w.arena + 128;
	is_int(v[0], 64, "RLIMIT_NOFILE is 64");
	is_int(v[1], 0, "RLIMIT_CORE is 0");
	is_int(v[2], 1 << 20, "RLIMIT_FSIZE defaults to 1 MiB");
	is_int(v[3], want_as, "RLIMIT_AS defaults to 8 GiB (none in a sanitizer build)");
	is_int(v[4], 60, "RLIMIT_CPU defaults to 60 s");
	ok(w.wpid > 0 && getpgid(w.wpid) == w.pid,
	   "the worker is in the process group the judge kills (pgid %d, jail %d)", (int)getpgid(w.wpid),
	   (int)w.pid);
	is_int(v[6], 1, "no_new_privs is set");
	is_int(v[7], 0, "no descriptor above 3 is inherited");
	is_int(v[8], 1, "the worker stays dumpable");
	/* the jail binds the scratch folder at one fixed path */
	snprintf(want, sizeof(want), "%s", KJ_JAIL_SCRATCH);
	is_str(cwd, want, "the worker runs in the scratch directory");
	kj_worker_stop(&w);

	/* A CUDA worker's limits are read from /proc: loading a candidate
	 * into it needs a device. */
	base_opts(&o);
	o.cuda = 1;
	o.cpu_limit_s = 2.5;
	if (kj_worker_start(&w, &o, &err)) {
		ok(0, "cuda-mode worker starts (%s)", err.msg);
		return;
	}
	is_int(proc_limit(w.pid, "Max address space"), -1, "a CUDA worker has no RLIMIT_AS");
	is_int(proc_limit(w.pid, "Max cpu time"), 3, "a fractional CPU limit rounds up");
	is_int(proc_limit(w.pid, "Max open files"), 64, "a CUDA worker has RLIMIT_NOFILE 64");
	kj_worker_stop(&w);
}

/* The CUDA fields on the CPU track, and a CUDA LOAD where no device is. */
static void test_cuda_fields(void)
{
	struct kj_worker_opts o;
	struct kj_worker w;
	struct kj_call_result res;
	struct kj_err err;
	const int64_t n = 16;
	uint64_t off[3] = {0, 64, 128};
	unsigned char handle[64];
	float *y;
	int rc;

	is_int(KJ_WIRE_VERSION, 5, "the wire protocol is version 5");
	is_int(kj_wire_size(KJ_WIRE_ARENA_CUDA), 88, "ARENA_CUDA is 88 bytes");
	is_int(kj_wire_size(KJ_WIRE_CALL), 800, "CALL is 800 bytes (64 offsets, 32 dims, a train's reps and stride)");
	is_int(kj_wire_size(KJ_WIRE_OK), 32, "OK is 32 bytes (gpu_ns, devsync_ns added)");
	is_int(kj_wire_size(KJ_WIRE_ERROR), 492, "ERROR is 492 bytes (cuda_error added)");

	base_opts(&o);
	kj_err_init(&err);
	if (kj_worker_start(&w, &o, &err)) {
		ok(0, "worker starts (%s)", err.msg);
		return;
	}
	kj_worker_nop(&w, 30, &res, &err);
	ok(res.status == KJ_CALL_OK && res.gpu_ns == -1 && res.devsync_ns == -1 &&
	   res.cuda_error == 0, "NOP: gpu_ns -1, devsync_ns -1, cuda_error 0");
	kj_worker_arena(&w, 192, &err);
	kj_worker_load(&w, lib("add"), "add", 3, 1, 30, &res, &err);
	y = (float *)((char *)w.arena + 128);
	memset(w.arena, 0, 128);
	((float *)w.arena)[15] = 1.5f;
	((float *)w.arena + 16)[15] = 2.0f;
	rc = kj_worker_call(&w, off, 3, &n, 1, 30, &res, &err);
	ok(rc == 0 && res.status == KJ_CALL_OK, "a timed CPU call is OK (%s)", res.msg);
	is_near(y[15], 3.5, 0, "and computes y[15] = 1.5 + 2");
	ok(res.gpu_ns == -1 && res.devsync_ns == -1 && res.cuda_error == 0,
	   "a CPU call reports gpu_ns -1, devsync_ns -1, cuda_error 0 (got %lld %lld %d)",
	   (long long)res.gpu_ns, (long long)res.devsync_ns, res.cuda_error);
	memset(handle, 0, sizeof(handle));
	is_int(kj_worker_arena_cuda(&w, NULL, 64, &err), KJ_E_USAGE,
	       "a device arena without a handle is a usage error");
	kj_worker_stop(&w);

	if (kj_gpu_available()) {
		printf("# a CUDA device is present: tests/gpu/test_gpu_worker covers CUDA LOAD\n");
		return;
	}
	base_opts(&o);
	o.cuda = 1;
	if (kj_worker_start(&w, &o, &err)) {
		ok(0, "cuda-mode worker starts (%s)", err.msg);
		return;
	}
	kj_worker_load(&w, lib("add"), "add", 3, 1, 30, &res, &err);
	is_int(res.status, KJ_CALL_ERROR, "a CUDA LOAD without a device is an ERROR");
#ifdef KJ_HAVE_CUDA
	ok(res.cuda_error != 0, "it carries the cudaError_t (%d)", res.cuda_error);
	like(res.msg, "CUDA error cudaError", "and names it (%s)", res.msg);
	is_int(w.dead, 1, "a worker that reported a CUDA error is dead");
	kj_worker_nop(&w, 30, &res, &err);
	ok(res.status == KJ_CALL_EXITED && res.exit_code == 5,
	   "it exited with status 5 (%s)", res.msg);
#else
	like(res.msg, "this worker was built without CUDA", "a worker without CUDA says so");
	is_int(res.cuda_error, 0, "with no CUDA error number");
	is_int(w.dead, 0, "and stays alive");
#endif
	kj_worker_stop(&w);
	base_opts(&o);
	o.cuda = 1;
	if (kj_worker_start(&w, &o, &err)) {
		ok(0, "cuda-mode worker starts (%s)", err.msg);
		return;
	}
	rc = kj_worker_arena_cuda(&w, handle, 4096, &err);
	is_int(rc, KJ_E_WORKER, "a device arena without a device fails");
	like(err.msg, "could not open the device arena", "and says so (%s)", err.msg);
	kj_worker_stop(&w);
}

static void test_log_cap(void)
{
	struct kj_worker_opts o;
	struct kj_worker w;
	struct kj_call_result res;
	struct kj_err err;

	base_opts(&o);
	o.log_cap = 16;
	kj_err_init(&err);
	if (kj_worker_start(&w, &o, &err)) {
		ok(0, "log worker starts (%s)", err.msg);
		return;
	}
	kj_worker_load(&w, lib("add"), "hello", 0, 0, 30, &res, &err);
	kj_worker_call(&w, NULL, 0, NULL, 0, 30, &res, &err);
	is_int(res.status, KJ_CALL_OK, "a chatty call is OK");
	is_int(w.log.len, 16, "the log keeps log_cap bytes");
	is_int(w.log.total, 50, "and counts all 50");
	is_str(w.log.buf, "0123456789abcdef", "the kept bytes are the first ones");
	kj_worker_stop(&w);
}

static void test_capbuf(void)
{
	struct kj_capbuf b;
	kj_capbuf_init(&b, 5);
	is_str(b.buf, "", "an empty capbuf is an empty string");
	kj_capbuf_add(&b, "abc", 3);
	kj_capbuf_add(&b, "defg", 4);
	kj_capbuf_add(&b, "hi", 2);
	is_str(b.buf, "abcde", "capbuf keeps the first cap bytes");
	is_int(b.total, 9, "capbuf counts every byte");
	kj_capbuf_release(&b);
	is_int(b.len, 0, "release empties it");
	kj_capbuf_release(&b);
	is_str(b.buf, "", "release twice is safe");
}

static void test_bad_start(void)
{
	struct kj_worker_opts o;
	struct kj_worker w;
	struct kj_err err;
	char bad[600];

	snprintf(bad, sizeof(bad), "%s/no-such-worker", dir);
	base_opts(&o);
	o.worker_path = bad;
	kj_err_init(&err);
	ok(kj_worker_start(&w, &o, &err) != 0, "a missing worker executable fails");
	like(err.msg, "no-such-worker", "the error names it");
	like(err.msg, "No such file or directory", "and says why");
	kj_worker_stop(&w);
}

int main(void)
{
	static const struct broken_case cases[] = {
		{"segv", src_segv, 30, 0, KJ_CALL_SIGNALED, SIGSEGV, 0, "segmentation fault (SIGSEGV)"},
		{"abort", src_abort, 30, 0, KJ_CALL_SIGNALED, SIGABRT, 0, "SIGABRT"},
		{"loop", src_loop, 0.5, 0, KJ_CALL_TIMEOUT, 0, 0, "no reply within 0.5 s"},
		{"exit0", src_exit0, 30, 0, KJ_CALL_EXITED, 0, 0,
		 "worker exited with status 0 during the call"},
		{"flood", src_flood, 30, 0, KJ_CALL_FLOOD, 0, 0, "more than 1048576 bytes"},
		{"slow_cpu", src_loop, 30, 1, KJ_CALL_SIGNALED, SIGXCPU, 0,
		 "CPU time limit exceeded (SIGXCPU)"},
		{"sleeper", src_sleeper, 0.5, 0, KJ_CALL_TIMEOUT, 0, 0, "killed by the watchdog"},
	};
	const char *b = getenv("KJ_BUILD");
	size_t i;
	int built = 1;
	char cmd[600];

	snprintf(worker_path, sizeof(worker_path), "%s/kjudge-worker", b && *b ? b : "build");
	snprintf(dir, sizeof(dir), "/tmp/kjudge-test-worker-XXXXXX");
	if (!mkdtemp(dir)) {
		ok(0, "cannot make a temporary directory: %s", strerror(errno));
		return done_testing();
	}
	snprintf(scratch, sizeof(scratch), "%s/scratch/sub", dir);
	test_capbuf();
	if (!ok(access(worker_path, X_OK) == 0, "worker executable %s exists", worker_path))
		return done_testing();
	built &= build_lib("add", src_add) == 0;
	built &= build_lib("probe", src_probe) == 0;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		built &= build_lib(cases[i].name, cases[i].src) == 0;
	if (!ok(built, "test libraries compile with cc"))
		return done_testing();

	test_round_trip();
	test_many_args();
	test_sandbox_setup();
	test_log_cap();
	test_bad_start();
	test_cuda_fields();
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_broken(&cases[i]);

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", dir);
	return done_testing();
}
