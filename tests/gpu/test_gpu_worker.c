/*
 * The CUDA track of the worker: the judge's device arena reaches the
 * candidate through CUDA IPC and the judge reads the outputs back itself;
 * timed calls report event and device-wide times; an illegal address is an
 * ERROR naming the cudaError and ends the worker; a hung kernel is a
 * timeout; work left on the legacy default stream shows as a gap between
 * the two times; after each failure a new worker works.  The candidates are
 * one .cu file compiled with kj_compile (nvcc) at test time.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kjudge/compile.h"
#include "kjudge/gpu.h"
#include "kjudge/sandbox.h"
#include "tap.h"

static const char src_cand[] =
	"#include \"kjudge_cuda.h\"\n"
	"static __device__ __forceinline__ uint64_t gtimer(void)\n"
	"{ uint64_t t; asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t)); return t; }\n"
	"__global__ void add_k(const float *a, const float *b, float *y, int64_t n)\n"
	"{ int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a[i] + b[i]; }\n"
	"extern \"C\" void add(const float *a, const float *b, float *y, int64_t n, cudaStream_t s)\n"
	"{ add_k<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(a, b, y, n); }\n"
	"__global__ void oob_k(float *y) { y[(int64_t)1 << 40] = 1.0f; }\n"
	"extern \"C\" void oob(float *y, cudaStream_t s) { oob_k<<<1, 1, 0, s>>>(y); }\n"
	"__global__ void forever_k(volatile int *flag) { while (*flag == 0) { } }\n"
	"extern \"C\" void forever(int *flag, cudaStream_t s) { forever_k<<<1, 1, 0, s>>>(flag); }\n"
	"__global__ void wait_k(uint64_t ns)\n"
	"{ uint64_t t0 = gtimer(); while (gtimer() - t0 < ns) __nanosleep(1000); }\n"
	"extern \"C\" void stream0(cudaStream_t s) { (void)s; wait_k<<<1, 1, 0, 0>>>(20000000ull); }\n"
	"extern \"C\" void sleep5(cudaStream_t s) { wait_k<<<1, 1, 0, s>>>(5000000ull); }\n";

#define ARENA_BYTES ((size_t)1 << 20)
#define N 4099
/* a, b, y at 256-byte aligned offsets */
static const uint64_t off_abc[3] = {0, 16640, 33280};

static char worker_path[4096], scratch[600], dir[256], so_path[4096];
static kj_gpu *g;
static void *arena;
static unsigned char handle[64];
static int device;

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Starts a CUDA worker with the arena open.  Returns 0 or -1 (reported). */
static int start(struct kj_worker *w, const char *when)
{
	struct kj_worker_opts o;
	struct kj_err err;

	memset(&o, 0, sizeof(o));
	o.worker_path = worker_path;
	o.scratch_dir = scratch;
	o.cuda = 1;
	o.device = device;
	kj_err_init(&err);
	if (kj_worker_start(w, &o, &err)) {
		ok(0, "%s: a CUDA worker starts (%s)", when, err.msg);
		return -1;
	}
	if (kj_worker_arena_cuda(w, handle, ARENA_BYTES, &err)) {
		ok(0, "%s: the worker opens the device arena (%s)", when, err.msg);
		kj_worker_stop(w);
		return -1;
	}
	return 0;
}

static int load(struct kj_worker *w, const char *sym, int nptr, int ndim)
{
	struct kj_call_result res;
	struct kj_err err;

	kj_err_init(&err);
	if (kj_worker_load(w, so_path, sym, nptr, ndim, 60, &res, &err) || res.status != KJ_CALL_OK) {
		printf("# LOAD %s: %s %s\n", sym, err.msg, res.msg);
		return -1;
	}
	return 0;
}

/* Fills a and b, poisons y, calls add; returns the number of wrong y[i]
 * read back from the device arena, or -1 when the call failed. */
static int64_t add_once(struct kj_worker *w, int timed, struct kj_call_result *res)
{
	static float a[N], b[N], y[N];
	const int64_t n = N;
	struct kj_err err;
	int64_t i, bad = 0;
	char *base = arena;

	kj_err_init(&err);
	for (i = 0; i < n; i++) {
		a[i] = (float)i * 0.5f + (float)timed;
		b[i] = (float)(n - i) * 0.25f;
		y[i] = NAN;
	}
	if (kj_gpu_copy(g, base + off_abc[0], a, sizeof(a), 0, &err) ||
	    kj_gpu_copy(g, base + off_abc[1], b, sizeof(b), 0, &err) ||
	    kj_gpu_copy(g, base + off_abc[2], y, sizeof(y), 0, &err)) {
		printf("# copy in: %s\n", err.msg);
		return -1;
	}
	/* the judge flushes the L2 from its own context before a timed call */
	if (timed && (kj_gpu_l2_flush(g, &err) || kj_gpu_sync(g, &err))) {
		printf("# flush: %s\n", err.msg);
		return -1;
	}
	if (kj_worker_call(w, off_abc, 3, &n, 1, 60, res, &err) || res->status != KJ_CALL_OK) {
		printf("# add: %s %s\n", err.msg, res->msg);
		return -1;
	}
	if (kj_gpu_copy(g, y, base + off_abc[2], sizeof(y), 1, &err)) {
		printf("# copy out: %s\n", err.msg);
		return -1;
	}
	for (i = 0; i < n; i++)
		bad += y[i] != a[i] + b[i];
	return bad;
}

static void round_trip(const char *when)
{
	struct kj_worker w;
	struct kj_call_result res;

	if (start(&w, when))
		return;
	if (load(&w, "add", 3, 1)) {
		ok(0, "%s: a new worker loads add", when);
		kj_worker_stop(&w);
		return;
	}
	is_int(add_once(&w, 0, &res), 0, "%s: a new worker computes y = a + b on the device", when);
	kj_worker_stop(&w);
}

/* Before LOAD: SETUP makes the context, PROBE runs the whole call path
 * with nothing called (the judge's trusted floor); after LOAD both are
 * refused, the candidate being in the process by then. */
static void test_setup_probe(void)
{
	struct kj_worker w;
	struct kj_call_result res;
	struct kj_err err;
	const int64_t n = N;

	if (start(&w, "probe"))
		return;
	kj_err_init(&err);
	kj_worker_setup(&w, 60, &res, &err);
	is_int(res.status, KJ_CALL_OK, "SETUP before LOAD makes the context (%s)", res.msg);
	kj_worker_probe(&w, off_abc, 3, &n, 1, 60, &res, &err);
	is_int(res.status, KJ_CALL_OK, "PROBE with add's arguments runs the call path (%s)", res.msg);
	ok(res.gpu_ns >= 0 && res.gpu_ns < 1000000 && res.judge_ns > 0,
	   "with nothing called: gpu_ns %lld, round trip %lld ns", (long long)res.gpu_ns,
	   (long long)res.judge_ns);
	kj_worker_probe_train(&w, off_abc, 3, &n, 1, 32, 60, &res, &err);
	is_int(res.status, KJ_CALL_OK, "an empty train of 32 runs before LOAD (%s)", res.msg);
	ok(load(&w, "add", 3, 1) == 0, "then LOAD add");
	kj_worker_probe(&w, off_abc, 3, &n, 1, 60, &res, &err);
	is_int(res.status, KJ_CALL_ERROR, "PROBE after LOAD is refused");
	kj_worker_stop(&w);
}

static void test_add_and_times(void)
{
	struct kj_worker w;
	struct kj_call_result res;
	struct kj_err err;
	uint64_t off[3];
	const int64_t n = N;

	if (start(&w, "add"))
		return;
	ok(load(&w, "add", 3, 1) == 0, "LOAD add on the CUDA track");
	is_int(add_once(&w, 0, &res), 0, "every y[i] == a[i] + b[i], read back by the judge");
	ok(res.cuda_error == 0 && res.gpu_ns >= 0 && res.devsync_ns >= 0,
	   "an untimed call reports gpu_ns %lld and devsync_ns %lld", (long long)res.gpu_ns,
	   (long long)res.devsync_ns);
	is_int(add_once(&w, 1, &res), 0, "a timed call (L2 flushed first) computes the same sums");
	ok(res.gpu_ns > 0, "a timed call reports gpu_ns > 0 (%lld)", (long long)res.gpu_ns);
	ok(res.devsync_ns >= res.gpu_ns - 50000, "devsync_ns %lld >= gpu_ns %lld - 50 us",
	   (long long)res.devsync_ns, (long long)res.gpu_ns);
	ok(res.judge_ns >= res.devsync_ns, "judge_ns %lld encloses devsync_ns",
	   (long long)res.judge_ns);

	memcpy(off, off_abc, sizeof(off));
	off[2] = ARENA_BYTES;
	kj_err_init(&err);
	kj_worker_call(&w, off, 3, &n, 1, 30, &res, &err);
	is_int(res.status, KJ_CALL_ERROR, "an offset at the device arena's end is refused");
	like(res.msg, "outside the device arena", "and the worker says why");
	is_int(res.cuda_error, 0, "that is no CUDA error");
	is_int(w.dead, 0, "and the worker stays alive");

	ok(load(&w, "sleep5", 0, 0) == 0, "LOAD sleep5");
	kj_worker_call(&w, NULL, 0, NULL, 0, 30, &res, &err);
	is_int(res.status, KJ_CALL_OK, "a 5 ms kernel on the given stream runs (%s)", res.msg);
	ok(res.gpu_ns >= 4500000 && res.gpu_ns <= 50000000,
	   "its gpu_ns %lld is within [4.5, 50] ms", (long long)res.gpu_ns);
	ok(res.devsync_ns >= res.gpu_ns - 50000, "and devsync_ns %lld is not below it",
	   (long long)res.devsync_ns);

	ok(load(&w, "stream0", 0, 0) == 0, "LOAD stream0");
	kj_worker_call(&w, NULL, 0, NULL, 0, 30, &res, &err);
	is_int(res.status, KJ_CALL_OK, "work on the legacy default stream runs (%s)", res.msg);
	ok(res.devsync_ns > res.gpu_ns + 10000000,
	   "20 ms left on stream 0 shows: devsync_ns %lld > gpu_ns %lld + 10 ms",
	   (long long)res.devsync_ns, (long long)res.gpu_ns);

	is_int(kj_worker_arena_cuda(&w, NULL, 0, &err), 0, "a 0-byte ARENA_CUDA closes the arena");
	is_int(w.cuda_arena_size, 0, "and the judge records no device arena");
	ok(load(&w, "add", 3, 1) == 0, "LOAD add again");
	kj_worker_call(&w, off_abc, 3, &n, 1, 30, &res, &err);
	is_int(res.status, KJ_CALL_ERROR, "with no device arena a pointer argument is refused");
	like(res.msg, "outside the device arena (0 bytes)", "and the worker says why");
	kj_worker_stop(&w);
}

/* A train: reps calls between one pair of events, call r on the arguments
 * stride bytes past call r-1's; every call's outputs land in its own copy,
 * and a train whose last call would pass the arena's end is refused. */
static void test_train(void)
{
	enum { REPS = 3, STRIDE = 65536 };
	static float a[N], b[N], y[N];
	struct kj_worker w;
	struct kj_call_result res;
	struct kj_err err;
	const int64_t n = N;
	char *base = arena;
	int64_t bad = 0;
	int r, i, copied = 1;

	if (start(&w, "train"))
		return;
	ok(load(&w, "add", 3, 1) == 0, "train: LOAD add");
	kj_err_init(&err);
	for (r = 0; r < REPS && copied; r++) {
		for (i = 0; i < N; i++) {
			a[i] = (float)(i + 1000 * r);
			b[i] = (float)r * 0.5f;
			y[i] = NAN;
		}
		copied = !kj_gpu_copy(g, base + r * STRIDE + off_abc[0], a, sizeof(a), 0, &err) &&
			 !kj_gpu_copy(g, base + r * STRIDE + off_abc[1], b, sizeof(b), 0, &err) &&
			 !kj_gpu_copy(g, base + r * STRIDE + off_abc[2], y, sizeof(y), 0, &err);
	}
	ok(copied, "three copies of the arguments, %d bytes apart (%s)", STRIDE, err.msg);
	kj_worker_train(&w, off_abc, 3, &n, 1, REPS, STRIDE, 60, &res, &err);
	is_int(res.status, KJ_CALL_OK, "a train of %d calls runs (%s %s)", REPS, err.msg, res.msg);
	ok(res.gpu_ns > 0 && res.judge_ns >= res.gpu_ns, "it reports one event time %lld within its round trip %lld",
	   (long long)res.gpu_ns, (long long)res.judge_ns);
	for (r = 0; r < REPS; r++) {
		if (kj_gpu_copy(g, y, base + r * STRIDE + off_abc[2], sizeof(y), 1, &err)) {
			bad = -1;
			break;
		}
		for (i = 0; i < N; i++)
			bad += y[i] != (float)(i + 1000 * r) + (float)r * 0.5f;
	}
	is_int(bad, 0, "each call of the train summed its own copy (wrong elements over the three)");
	kj_worker_train(&w, off_abc, 3, &n, 1, 20, STRIDE, 60, &res, &err);
	is_int(res.status, KJ_CALL_ERROR, "a train of 20 that would end past the 1 MiB arena is refused");
	like(res.msg, "outside the device arena", "and the worker says why");
	is_int(w.dead, 0, "and the worker stays alive");
	kj_worker_stop(&w);
}

static void test_illegal_address(void)
{
	struct kj_worker w;
	struct kj_call_result res;
	struct kj_err err;
	uint64_t off = off_abc[2];
	int rc;

	if (start(&w, "oob"))
		return;
	ok(load(&w, "oob", 1, 0) == 0, "LOAD oob");
	kj_err_init(&err);
	rc = kj_worker_call(&w, &off, 1, NULL, 0, 30, &res, &err);
	is_int(rc, 0, "oob: the exchange is not a judge error");
	is_str(kj_call_status_name(res.status), "error", "oob: a write at index 2^40 is an ERROR");
	like(res.msg, "CUDA error cudaError", "oob: the message names the cudaError (%s)", res.msg);
	ok(res.cuda_error != 0, "oob: cuda_error is set (%d)", res.cuda_error);
	is_int(w.dead, 1, "oob: the worker is dead after a CUDA error");
	kj_worker_nop(&w, 30, &res, &err);
	ok(res.status == KJ_CALL_EXITED && res.exit_code == 5,
	   "oob: the worker exited with status 5 (%s)", res.msg);
	kj_worker_stop(&w);
	round_trip("after an illegal address");
}

static void test_hang(void)
{
	struct kj_worker w;
	struct kj_call_result res;
	struct kj_err err;
	uint64_t off = off_abc[2];
	int zero = 0;
	int64_t t0, t1;

	if (start(&w, "forever"))
		return;
	ok(load(&w, "forever", 1, 0) == 0, "LOAD forever");
	kj_err_init(&err);
	kj_gpu_copy(g, (char *)arena + off, &zero, sizeof(zero), 0, &err);
	t0 = now_ns();
	kj_worker_call(&w, &off, 1, NULL, 0, 3, &res, &err);
	t1 = now_ns();
	is_str(kj_call_status_name(res.status), "timeout", "an endless kernel is a timeout");
	like(res.msg, "no reply within 3 s", "and the message says so");
	ok(t1 - t0 < 13000000000LL, "the watchdog ended it in %.2f s (limit 3 s)",
	   (double)(t1 - t0) * 1e-9);
	is_int(w.dead, 1, "the hung worker is dead");
	kj_worker_stop(&w);
	is_int(kj_gpu_sync(g, &err), 0, "the judge's own context is unharmed (%s)", err.msg);
	round_trip("after a killed hung kernel");
}

int main(void)
{
	struct kj_compile_opts co;
	struct kj_compile_result cr;
	struct kj_err err;
	const char *b = getenv("KJ_BUILD");
	char cmd[600];

	if (!kj_gpu_available()) {
		printf("1..0 # SKIP no CUDA device\n");
		return 0;
	}
	kj_err_init(&err);
	snprintf(worker_path, sizeof(worker_path), "%s/kjudge-worker", b && *b ? b : "build");
	snprintf(dir, sizeof(dir), "/tmp/kjudge-test-gpu-worker-XXXXXX");
	if (!mkdtemp(dir)) {
		ok(0, "cannot make a temporary directory: %s", strerror(errno));
		return done_testing();
	}
	snprintf(scratch, sizeof(scratch), "%s/scratch", dir);
	if (!ok(access(worker_path, X_OK) == 0, "worker executable %s exists", worker_path))
		return done_testing();
	if (!ok(kj_gpu_open(0, &g, &err) == 0, "the judge opens device 0 (%s)", err.msg))
		return done_testing();
	device = kj_gpu_get_info(g)->device;
	printf("# %s, %s, L2 %zu bytes\n", kj_gpu_get_info(g)->name, kj_gpu_get_info(g)->arch,
	       kj_gpu_get_info(g)->l2_bytes);

	memset(&co, 0, sizeof(co));
	co.backend = KJ_BACKEND_CUDA;
	co.cache_dir = dir;
	co.include_dir = "include/candidate";
	co.arch = kj_gpu_get_info(g)->arch;
	co.timeout_s = 180;
	memset(&cr, 0, sizeof(cr));
	if (kj_compile(src_cand, sizeof(src_cand) - 1, &co, &cr, &err) || !cr.ok) {
		ok(0, "the test candidates compile with nvcc (%s)", err.msg);
		printf("# %s\n", cr.log ? cr.log : "");
		kj_compile_result_release(&cr);
		return done_testing();
	}
	ok(1, "the test candidates compile with nvcc (%.1f s)", cr.seconds);
	snprintf(so_path, sizeof(so_path), "%s", cr.so_path);
	kj_compile_result_release(&cr);

	if (!ok(kj_gpu_alloc(g, ARENA_BYTES, &arena, &err) == 0, "a 1 MiB device arena (%s)",
		err.msg) ||
	    !ok(kj_gpu_ipc_handle(g, arena, handle, &err) == 0, "its IPC handle (%s)", err.msg))
		return done_testing();

	test_setup_probe();
	test_add_and_times();
	test_train();
	test_illegal_address();
	test_hang();

	kj_gpu_free(g, arena);
	kj_gpu_close(g);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", dir);
	return done_testing();
}
