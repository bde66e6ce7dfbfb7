/*
 * kjudge-worker: the untrusted side.  The judge starts it with the protocol
 * socket as fd 3 (src/sandbox/wire.h, docs/worker-protocol.md), stdout and
 * stderr on a capped pipe, limits and a watchdog.  It loads one candidate
 * shared object, maps the arena the judge sends, and calls the candidate
 * through libffi with arena pointers and dims.  Nothing here is trusted by
 * the judge: the candidate runs in this address space and may change any of
 * it.  The worker itself never writes to stdout or stderr (they belong to the
 * candidate's log); its own troubles end it with a documented exit status.
 *
 * CUDA track (a SETUP or LOAD with cuda set): one device, one non-blocking
 * stream that the candidate receives as its last argument, two events around
 * each call; the arena is the judge's device allocation, opened through CUDA
 * IPC, and the L2 flush before a timed call is the judge's.  Any CUDA error is fatal: the context is unusable after
 * most of them, so the worker reports it and exits, and the judge starts a
 * new worker.  Built without CUDA (no KJ_HAVE_CUDA), the worker refuses a
 * CUDA LOAD or ARENA_CUDA with an ERROR.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ffi.h>
#include <sched.h>
#include <seccomp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifdef KJ_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#include "kjudge/sandbox.h"
#include "sandbox/wire.h"
#include "worker/filter.h"

#ifdef KJ_HAVE_CUDA
_Static_assert(sizeof(cudaIpcMemHandle_t) == KJ_WIRE_IPC_HANDLE, "IPC handle size");
#endif

enum {
	EXIT_DONE = 0,      /* the judge closed the socket */
	EXIT_NOT_JUDGED = 2, /* fd 3 is not a socket: started by hand */
	EXIT_BAD_REQUEST = 3, /* malformed request from the judge */
	EXIT_NO_REPLY = 4,  /* a reply could not be sent */
	EXIT_CUDA = 5,      /* a CUDA error was reported (ERROR with cuda_error) */
};

#define MAX_ARGS (KJ_WIRE_MAX_PTR + KJ_WIRE_MAX_DIM + 1)

struct worker {
	void *fn;
	int loaded;
	int filtered;       /* the seccomp filter is in place (or the kernel refused it) */
	int postload;       /* CPU track: the post-load filter is in place (at the first CALL) */
	uint32_t nptr, ndim, cuda;
	ffi_cif cif;
	ffi_type *types[MAX_ARGS];
	unsigned char *arena;
	uint64_t arena_size;
	int cuda_ready;     /* device, stream, events and flush buffer exist */
	int32_t device;
	uint64_t ncalls;
#ifdef KJ_HAVE_CUDA
	cudaStream_t stream;
	cudaEvent_t ev0, ev1;
	unsigned char *darena; /* the judge's device arena, opened through IPC */
	uint64_t darena_size;
#endif
};

/* Read by AddressSanitizer at start-up in a sanitizer build (never called
 * otherwise): a candidate's crash must reach the judge as the signal it is,
 * not as a sanitizer report and exit status 1.  RLIMIT_AS is off in such a
 * build, so the allocator's own cap stands in for it: a huge malloc returns
 * NULL, as it would under the limit. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0:"
	       "detect_leaks=0:allocator_may_return_null=1:max_allocation_size_mb=8192";
}

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void send_msg(const void *m, size_t len)
{
	ssize_t n;
	do
		n = send(KJ_WIRE_FD, m, len, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)len)
		_exit(EXIT_NO_REPLY);
}

static void reply_ok_gpu(uint32_t seq, int64_t ns, int64_t gpu_ns, int64_t devsync_ns)
{
	struct kj_wire_ok m;
	memset(&m, 0, sizeof(m));
	m.h.type = KJ_WIRE_OK;
	m.h.seq = seq;
	m.worker_ns = ns;
	m.gpu_ns = gpu_ns;
	m.devsync_ns = devsync_ns;
	send_msg(&m, sizeof(m));
}

static void reply_ok(uint32_t seq, int64_t ns)
{
	reply_ok_gpu(seq, ns, -1, -1);
}

__attribute__((format(printf, 2, 3))) static void reply_error(uint32_t seq, const char *fmt, ...)
{
	struct kj_wire_error m;
	va_list ap;
	memset(&m, 0, sizeof(m));
	m.h.type = KJ_WIRE_ERROR;
	m.h.seq = seq;
	va_start(ap, fmt);
	vsnprintf(m.text, sizeof(m.text), fmt, ap);
	va_end(ap);
	send_msg(&m, sizeof(m));
}

#ifdef KJ_HAVE_CUDA
/* Reports a CUDA error and ends the worker: after an illegal address and its
 * kind the context cannot be used again, and a clean one per worker keeps
 * the rule simple for the judge.  `where` names a setup step; a call's error
 * is reported by name and text alone. */
__attribute__((noreturn)) static void cuda_fatal(uint32_t seq, cudaError_t e, const char *where)
{
	struct kj_wire_error m;
	memset(&m, 0, sizeof(m));
	m.h.type = KJ_WIRE_ERROR;
	m.h.seq = seq;
	m.cuda_error = (int32_t)e;
	if (where)
		snprintf(m.text, sizeof(m.text), "CUDA error %s: %s (in %s)", cudaGetErrorName(e),
			 cudaGetErrorString(e), where);
	else
		snprintf(m.text, sizeof(m.text), "CUDA error %s: %s", cudaGetErrorName(e),
			 cudaGetErrorString(e));
	send_msg(&m, sizeof(m));
	_exit(EXIT_CUDA);
}

#define CUDA_SETUP(seq, call)                                   \
	do {                                                    \
		cudaError_t e_ = (call);                        \
		if (e_ != cudaSuccess)                          \
			cuda_fatal((seq), e_, #call);           \
	} while (0)

/* Sets up device, stream and events once (the L2 flush before a timed
 * call is the judge's, from its own context).  Returns 0, or -1
 * after replying ERROR (another device than the one in use). */
static int cuda_setup(struct worker *w, uint32_t seq, int32_t device)
{
	if (w->cuda_ready) {
		if (device == w->device)
			return 0;
		reply_error(seq, "device %d asked for, but this worker uses device %d", (int)device,
			    (int)w->device);
		return -1;
	}
	CUDA_SETUP(seq, cudaSetDevice(device));
	CUDA_SETUP(seq, cudaStreamCreateWithFlags(&w->stream, cudaStreamNonBlocking));
	CUDA_SETUP(seq, cudaEventCreate(&w->ev0));
	CUDA_SETUP(seq, cudaEventCreate(&w->ev1));
	w->device = device;
	w->cuda_ready = 1;
	return 0;
}

static void do_arena_cuda(struct worker *w, struct kj_wire_arena_cuda *m)
{
	cudaIpcMemHandle_t h;
	void *p = NULL;
	int64_t t0 = now_ns();

	if (w->darena)
		CUDA_SETUP(m->h.seq, cudaIpcCloseMemHandle(w->darena));
	w->darena = NULL;
	w->darena_size = 0;
	if (m->size == 0) {
		reply_ok(m->h.seq, 0);
		return;
	}
	if (cuda_setup(w, m->h.seq, m->device))
		return;
	memcpy(&h, m->handle, sizeof(h));
	CUDA_SETUP(m->h.seq, cudaIpcOpenMemHandle(&p, h, cudaIpcMemLazyEnablePeerAccess));
	w->darena = p;
	w->darena_size = m->size;
	reply_ok(m->h.seq, now_ns() - t0);
}

/* The CUDA call: vals holds the pointer and dim arguments (n of them) and
 * has room for the stream; fn NULL is the judge's PROBE (the same path with
 * nothing called).  A train calls fn reps times, each call's pointers
 * (ptrs, which vals points at) stride bytes past the last's.  ev0..ev1 brackets the candidate's stream; devsync_ns
 * also covers work it left on any other stream of the device. */
static void cuda_call(struct worker *w, uint32_t seq, void *fn, void **vals, uint32_t n, void **ptrs,
		      uint32_t nptr, uint64_t stride, uint32_t reps)
{
	cudaStream_t stream = w->stream;
	cudaError_t e[4];
	float ms = 0;
	int64_t t0, tc0, tc1, t1;
	size_t i;

	vals[n] = &stream;
	(void)cudaGetLastError();
	w->ncalls++;
	t0 = now_ns();
	CUDA_SETUP(seq, cudaEventRecord(w->ev0, w->stream));
	tc0 = now_ns();
	for (uint32_t r = 0; fn && r < reps; r++) {
		if (r)
			for (i = 0; i < nptr; i++)
				ptrs[i] = (unsigned char *)ptrs[i] + stride;
		ffi_call(&w->cif, FFI_FN(fn), NULL, vals);
	}
	tc1 = now_ns();
	/* A candidate may have switched devices; the bounds are for ours. */
	e[0] = cudaSetDevice(w->device);
	e[1] = cudaEventRecord(w->ev1, w->stream);
	e[2] = cudaEventSynchronize(w->ev1);
	e[3] = cudaDeviceSynchronize();
	t1 = now_ns();
	for (i = 0; i < sizeof(e) / sizeof(e[0]); i++)
		if (e[i] != cudaSuccess)
			cuda_fatal(seq, e[i], NULL);
	e[0] = cudaGetLastError();
	if (e[0] != cudaSuccess)
		cuda_fatal(seq, e[0], NULL);
	CUDA_SETUP(seq, cudaEventElapsedTime(&ms, w->ev0, w->ev1));
	reply_ok_gpu(seq, tc1 - tc0, (int64_t)((double)ms * 1e6), t1 - t0);
}
#else
static int cuda_setup(struct worker *w, uint32_t seq, int32_t device)
{
	(void)w;
	(void)device;
	reply_error(seq, "this worker was built without CUDA");
	return -1;
}

static void do_arena_cuda(struct worker *w, struct kj_wire_arena_cuda *m)
{
	if (m->size == 0)
		reply_ok(m->h.seq, 0);
	else
		cuda_setup(w, m->h.seq, m->device);
}
#endif

/* ---- seccomp ----
 *
 * The allowlist (src/worker/filter.c) is installed once, at the first LOAD,
 * after the CUDA context exists (the driver opens its device files and
 * starts its threads then) and before dlopen (a candidate's constructors
 * run inside dlopen).  TSYNC puts every thread under it, the CUDA runtime's
 * included, since a host callback would run candidate code there.  A filter
 * that cannot be built or installed is an ERROR: a worker that silently ran
 * without the policy it was written to enforce would hide a bug. */
static int install_filter(struct worker *w, uint32_t seq, int cuda)
{
	const char *survey = getenv("KJ_SECCOMP_SURVEY");
	char why[256];

	if (w->filtered)
		return 0;
	if (kj_worker_profile_mode()) {
		/* profiling (KJUDGE_PROFILE=1, set by the judge's user): the
		 * profiler's injected library needs sockets and files */
		w->filtered = 1;
		return 0;
	}
	if (kjw_seccomp_install(cuda, survey && !strcmp(survey, "1"), (uint32_t)getpid(), why,
				sizeof(why)) < 0) {
		reply_error(seq, "%s", why);
		return -1;
	}
	w->filtered = 1;
	return 0;
}

/* CPU track, from the first CALL on: no more code may come in.  A
 * second filter (filters stack; the strictest answer wins) refuses every
 * open and every executable mapping, so a library found behind the symbol
 * policy's back can be neither opened nor mapped nor copied into memory and
 * made executable during a call (a library loaded and unloaded within one
 * call would never show in the memory map the judge reads after it).  It goes
 * in at the first CALL rather than at LOAD so that one worker may LOAD again
 * (the unit tests do; the judge loads once); no candidate code runs between
 * LOAD and that CALL on the CPU track (no threads, no timers), and what its
 * constructors mapped at load is still mapped when the judge reads the map
 * after LOAD.  An honest kernel opens no file and makes
 * no code.  The CUDA track keeps both: the driver opens device files and
 * maps code of its own. */
static int install_postload_filter(struct worker *w, uint32_t seq)
{
	const char *survey = getenv("KJ_SECCOMP_SURVEY");
	uint32_t act = survey && !strcmp(survey, "1") ? SCMP_ACT_LOG : SCMP_ACT_ERRNO(EPERM);
	scmp_filter_ctx ctx;
	int rc = 0;
	if (kj_worker_profile_mode())
		return 0;
	if (!(ctx = seccomp_init(SCMP_ACT_ALLOW))) {
		reply_error(seq, "cannot set up the post-load seccomp filter");
		return -1;
	}
	rc |= seccomp_rule_add(ctx, act, SCMP_SYS(open), 0);
	rc |= seccomp_rule_add(ctx, act, SCMP_SYS(openat), 0);
	rc |= seccomp_rule_add(ctx, act, SCMP_SYS(creat), 0);
	rc |= seccomp_rule_add(ctx, act, SCMP_SYS(openat2), 0);
	rc |= seccomp_rule_add(ctx, act, SCMP_SYS(mmap), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
	rc |= seccomp_rule_add(ctx, act, SCMP_SYS(mprotect), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
	rc |= seccomp_rule_add(ctx, act, SCMP_SYS(pkey_mprotect), 1,
			       SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
	rc |= seccomp_rule_add(ctx, act, SCMP_SYS(remap_file_pages), 0);
	if (!rc)
		rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
	if (!rc)
		rc = seccomp_load(ctx);
	seccomp_release(ctx);
	if (rc) {
		reply_error(seq, "cannot install the post-load seccomp filter: %s", strerror(-rc));
		return -1;
	}
	(void)w;
	return 0;
}

static void do_load(struct worker *w, struct kj_wire_load *m)
{
	void *h, *fn;
	const char *e;
	uint32_t i, n;
	int64_t t0 = now_ns(), t1;

	if (!memchr(m->path, '\0', sizeof(m->path)) || !memchr(m->symbol, '\0', sizeof(m->symbol)) ||
	    m->nptr > KJ_WIRE_MAX_PTR || m->ndim > KJ_WIRE_MAX_DIM) {
		reply_error(m->h.seq, "malformed LOAD request");
		return;
	}
	w->loaded = 0;
	if (m->cuda && cuda_setup(w, m->h.seq, m->device))
		return;
	if (install_filter(w, m->h.seq, (int)m->cuda))
		return;
	dlerror();
	h = dlopen(m->path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		e = dlerror();
		reply_error(m->h.seq, "cannot load '%s': %s", m->path, e ? e : "unknown error");
		return;
	}
	dlerror();
	fn = dlsym(h, m->symbol);
	e = dlerror();
	if (e || !fn) {
		reply_error(m->h.seq, "cannot find '%s': %s", m->symbol, e ? e : "symbol is NULL");
		return;
	}
	n = 0;
	for (i = 0; i < m->nptr; i++)
		w->types[n++] = &ffi_type_pointer;
	for (i = 0; i < m->ndim; i++)
		w->types[n++] = &ffi_type_sint64;
	if (m->cuda)
		w->types[n++] = &ffi_type_pointer;
	if (ffi_prep_cif(&w->cif, FFI_DEFAULT_ABI, n, &ffi_type_void, w->types) != FFI_OK) {
		reply_error(m->h.seq, "cannot prepare a call with %u arguments", n);
		return;
	}
	t1 = now_ns();
	w->fn = fn;
	w->nptr = m->nptr;
	w->ndim = m->ndim;
	w->cuda = m->cuda;
	w->loaded = 1;
	reply_ok(m->h.seq, t1 - t0);
}

static void do_arena(struct worker *w, struct kj_wire_arena *m, int fd)
{
	void *p;

	if (w->arena)
		munmap(w->arena, w->arena_size);
	w->arena = NULL;
	w->arena_size = 0;
	if (m->size == 0) {
		if (fd >= 0)
			close(fd);
		reply_ok(m->h.seq, 0);
		return;
	}
	if (fd < 0) {
		reply_error(m->h.seq, "ARENA of %llu bytes came without a file descriptor",
			    (unsigned long long)m->size);
		return;
	}
	p = mmap(NULL, (size_t)m->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		reply_error(m->h.seq, "cannot map the %llu-byte arena: %s",
			    (unsigned long long)m->size, strerror(errno));
		return;
	}
	w->arena = p;
	w->arena_size = m->size;
	reply_ok(m->h.seq, 0);
}

static void do_call(struct worker *w, struct kj_wire_call *m)
{
	void *ptrs[KJ_WIRE_MAX_PTR + 1];
	void *vals[MAX_ARGS];
	int64_t dims[KJ_WIRE_MAX_DIM];
	unsigned char *base = w->arena;
	uint64_t size = w->arena_size;
	int64_t t0, t1;
	uint32_t i, n = 0;

	if (!w->loaded) {
		reply_error(m->h.seq, "CALL before a successful LOAD");
		return;
	}
	if (m->nptr != w->nptr || m->ndim != w->ndim) {
		reply_error(m->h.seq, "CALL has %u pointers and %u dims, LOAD said %u and %u",
			    m->nptr, m->ndim, w->nptr, w->ndim);
		return;
	}
#ifdef KJ_HAVE_CUDA
	if (w->cuda) {
		base = w->darena;
		size = w->darena_size;
	}
#endif
	if (m->reps > 1 && !w->cuda) {
		reply_error(m->h.seq, "a train of %u calls is for the CUDA track", m->reps);
		return;
	}
	for (i = 0; i < m->nptr; i++) {
		/* the last call of a train has the highest offsets */
		uint64_t last = m->off[i], span;
		if (m->reps > 1 && (__builtin_mul_overflow((uint64_t)(m->reps - 1), m->stride, &span) ||
				    __builtin_add_overflow(last, span, &last)))
			last = UINT64_MAX;
		if (last >= size) {
			reply_error(m->h.seq,
				    "argument %u: offset %llu is outside the %sarena (%llu bytes)", i,
				    (unsigned long long)last, w->cuda ? "device " : "",
				    (unsigned long long)size);
			return;
		}
		ptrs[i] = base + m->off[i];
		vals[n++] = &ptrs[i];
	}
	for (i = 0; i < m->ndim; i++) {
		dims[i] = m->dims[i];
		vals[n++] = &dims[i];
	}
#ifdef KJ_HAVE_CUDA
	if (w->cuda) {
		cuda_call(w, m->h.seq, w->fn, vals, n, ptrs, m->nptr, m->stride, m->reps > 1 ? m->reps : 1);
		return;
	}
#endif
	if (!w->postload) {
		if (install_postload_filter(w, m->h.seq))
			return;
		w->postload = 1;
	}
	t0 = now_ns();
	ffi_call(&w->cif, FFI_FN(w->fn), NULL, vals);
	t1 = now_ns();
	reply_ok(m->h.seq, t1 - t0);
}

/* SETUP and PROBE: only before LOAD, when nothing of the candidate's is in
 * this process, so that what they measure is the judge's to trust. */
static void do_setup(struct worker *w, struct kj_wire_setup *m)
{
	if (w->loaded || w->filtered) {
		reply_error(m->h.seq, "SETUP after LOAD");
		return;
	}
	if (m->cuda && cuda_setup(w, m->h.seq, m->device))
		return;
	reply_ok(m->h.seq, 0);
}

/* A CALL with nothing called: the whole path (arguments checked against
 * the arena, events, synchronisation, reply) for the judge's floor. */
static void do_probe(struct worker *w, struct kj_wire_call *m)
{
	int64_t t0 = now_ns();
	if (w->loaded || w->filtered) {
		reply_error(m->h.seq, "PROBE after LOAD");
		return;
	}
	if (m->nptr > KJ_WIRE_MAX_PTR || m->ndim > KJ_WIRE_MAX_DIM) {
		reply_error(m->h.seq, "malformed PROBE");
		return;
	}
#ifdef KJ_HAVE_CUDA
	if (w->cuda_ready) {
		void *vals[MAX_ARGS];
		for (uint32_t i = 0; i < m->nptr; i++)
			if (m->off[i] >= w->darena_size) {
				reply_error(m->h.seq, "argument %u: offset %llu is outside the device arena", i,
					    (unsigned long long)m->off[i]);
				return;
			}
		cuda_call(w, m->h.seq, NULL, vals, m->nptr + m->ndim, NULL, 0, 0, 1);
		return;
	}
#endif
	reply_ok(m->h.seq, now_ns() - t0);
}

/* Receives one request; *fd gets a passed descriptor (or -1).  Extra
 * descriptors are closed: only ARENA may carry one. */
/* A CUDA worker waits for the next request awake for a while (SPIN_NS) after
 * each reply: the judge's bound on a call's time counts the worker's wake-up
 * too, and a process woken from a long sleep (in a virtual machine above
 * all) can take most of a millisecond to run again. */
#define SPIN_NS 200000000LL

static ssize_t recv_msg(union kj_wire_msg *m, int *fd, int spin)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * 4)];
		struct cmsghdr align;
	} ctl;
	struct msghdr mh;
	struct iovec iov;
	struct cmsghdr *cm;
	ssize_t n;
	size_t i, k;
	int got;

	*fd = -1;
	iov.iov_base = m;
	iov.iov_len = sizeof(*m);
	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = ctl.buf;
	mh.msg_controllen = sizeof(ctl.buf);
	if (spin) {
		int64_t end = now_ns() + SPIN_NS;
		do
			n = recvmsg(KJ_WIRE_FD, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
		while (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) && now_ns() < end);
		if (n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
			goto got;
	}
	do
		n = recvmsg(KJ_WIRE_FD, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
got:
	if (n < 0)
		return n;
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < k; i++) {
			memcpy(&got, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
			if (*fd < 0)
				*fd = got;
			else
				close(got);
		}
	}
	if (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC))
		_exit(EXIT_BAD_REQUEST);
	return n;
}

int main(void)
{
	static struct worker w;
	static union kj_wire_msg m;
	struct kj_wire_hello hello;
	struct stat st;
	ssize_t n;
	int fd;

	if (fstat(KJ_WIRE_FD, &st) < 0 || !S_ISSOCK(st.st_mode)) {
		fprintf(stderr, "kjudge-worker: started by the judge only (fd 3 is its socket)\n");
		return EXIT_NOT_JUDGED;
	}
	/* Only 0-3 are the worker's: anything else inherited (from the jail's
	 * set-up) must not reach the candidate. */
	if (close_range(KJ_WIRE_FD + 1, ~0U, 0) < 0)
		for (int k = KJ_WIRE_FD + 1; k < 1024; k++)
			close(k);
	memset(&hello, 0, sizeof(hello));
	hello.h.type = KJ_WIRE_HELLO;
	hello.version = KJ_WIRE_VERSION;
	hello.pid = (uint32_t)getpid();
	send_msg(&hello, sizeof(hello));

	for (;;) {
		n = recv_msg(&m, &fd, w.cuda_ready);
		if (n == 0)
			_exit(EXIT_DONE);
		if (n < (ssize_t)sizeof(m.h) || (size_t)n != kj_wire_size(m.h.type))
			_exit(EXIT_BAD_REQUEST);
		if (fd >= 0 && m.h.type != KJ_WIRE_ARENA) {
			close(fd);
			fd = -1;
		}
		switch (m.h.type) {
		case KJ_WIRE_LOAD:
			do_load(&w, &m.load);
			break;
		case KJ_WIRE_ARENA:
			do_arena(&w, &m.arena, fd);
			break;
		case KJ_WIRE_CALL:
			do_call(&w, &m.call);
			break;
		case KJ_WIRE_ARENA_CUDA:
			do_arena_cuda(&w, &m.arena_cuda);
			break;
		case KJ_WIRE_SETUP:
			do_setup(&w, &m.setup);
			break;
		case KJ_WIRE_PROBE:
			do_probe(&w, &m.call);
			break;
		case KJ_WIRE_NOP:
			reply_ok(m.h.seq, 0);
			break;
		default:
			_exit(EXIT_BAD_REQUEST);
		}
	}
}
