/*
 * kjudge-worker: the untrusted side.  The judge starts it with the protocol
 * socket as fd 3 (src/sandbox/wire.h, docs/worker-protocol.md), stdout and
 * stderr on a capped pipe, limits and a watchdog.  It loads one candidate
 * shared object, maps the arena the judge sends, and calls the candidate
 * through libffi with arena pointers and dims.  Nothing here is trusted by
 * the judge: the candidate runs in this address space and may change any of
 * it.  The worker itself never writes to stdout or stderr (they belong to the
 * candidate's log); its own troubles end it with a documented exit status.
 */
#include <dlfcn.h>
#include <errno.h>
#include <ffi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/wire.h"

enum {
	EXIT_DONE = 0,      /* the judge closed the socket */
	EXIT_NOT_JUDGED = 2, /* fd 3 is not a socket: started by hand */
	EXIT_BAD_REQUEST = 3, /* malformed request from the judge */
	EXIT_NO_REPLY = 4,  /* a reply could not be sent */
};

#define MAX_ARGS (KJ_WIRE_MAX_PTR + KJ_WIRE_MAX_DIM + 1)

struct worker {
	void *fn;
	int loaded;
	uint32_t nptr, ndim, cuda;
	ffi_cif cif;
	ffi_type *types[MAX_ARGS];
	unsigned char *arena;
	uint64_t arena_size;
};

/* Read by AddressSanitizer at start-up in a sanitizer build (never called
 * otherwise): a candidate's crash must reach the judge as the signal it is,
 * not as a sanitizer report and exit status 1. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0:"
	       "detect_leaks=0";
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

static void reply_ok(uint32_t seq, int64_t ns)
{
	struct kj_wire_ok m;
	memset(&m, 0, sizeof(m));
	m.h.type = KJ_WIRE_OK;
	m.h.seq = seq;
	m.worker_ns = ns;
	send_msg(&m, sizeof(m));
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
	for (i = 0; i < m->nptr; i++) {
		if (m->off[i] >= w->arena_size) {
			reply_error(m->h.seq,
				    "argument %u: offset %llu is outside the arena (%llu bytes)", i,
				    (unsigned long long)m->off[i], (unsigned long long)w->arena_size);
			return;
		}
		ptrs[i] = w->arena + m->off[i];
		vals[n++] = &ptrs[i];
	}
	for (i = 0; i < m->ndim; i++) {
		dims[i] = m->dims[i];
		vals[n++] = &dims[i];
	}
	if (w->cuda) {
		ptrs[KJ_WIRE_MAX_PTR] = NULL;
		vals[n++] = &ptrs[KJ_WIRE_MAX_PTR];
	}
	t0 = now_ns();
	ffi_call(&w->cif, FFI_FN(w->fn), NULL, vals);
	t1 = now_ns();
	reply_ok(m->h.seq, t1 - t0);
}

/* Receives one request; *fd gets a passed descriptor (or -1).  Extra
 * descriptors are closed: only ARENA may carry one. */
static ssize_t recv_msg(union kj_wire_msg *m, int *fd)
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
	do
		n = recvmsg(KJ_WIRE_FD, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
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
	memset(&hello, 0, sizeof(hello));
	hello.h.type = KJ_WIRE_HELLO;
	hello.version = KJ_WIRE_VERSION;
	hello.pid = (uint32_t)getpid();
	send_msg(&hello, sizeof(hello));

	for (;;) {
		n = recv_msg(&m, &fd);
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
		case KJ_WIRE_NOP:
			reply_ok(m.h.seq, 0);
			break;
		default:
			_exit(EXIT_BAD_REQUEST);
		}
	}
}
