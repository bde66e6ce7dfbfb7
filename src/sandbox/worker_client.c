/*
 * The judge's side of a kjudge-worker: see include/kjudge/sandbox.h for the
 * contract and docs/worker-protocol.md for the exchange.  Everything here
 * assumes the worker is hostile: a reply is believed only for its type and
 * sequence number, times come from the judge's clock, and the worker's fate
 * comes from waitpid().
 */
#include "kjudge/fsutil.h"
#include "kjudge/jail.h"
#include "kjudge/sandbox.h"
#include "kjudge/rlimit.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <dirent.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sandbox/wire.h"

_Static_assert(KJ_WORKER_MAX_PTR == KJ_WIRE_MAX_PTR && KJ_WORKER_MAX_DIM == KJ_WIRE_MAX_DIM,
	       "the public call limits are the protocol's");

#define DEF_CPU_S 60.0
#define DEF_AS ((size_t)8 << 30)
#define DEF_FSIZE ((size_t)1 << 20)
#define DEF_LOG_CAP ((size_t)64 << 10)
#define DEF_FLOOD ((size_t)4 << 20)
#define DEF_TIMEOUT_S 60.0
#define HELLO_TIMEOUT_S 30.0
#define ARENA_TIMEOUT_S 30.0
/* AddressSanitizer reserves terabytes of address space at start-up; in a
 * sanitizer build (`make asan` builds the worker the same way) RLIMIT_AS
 * would stop every worker, so it is left off there. */
#if defined(__SANITIZE_ADDRESS__)
#define KJ_ASAN_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KJ_ASAN_BUILD 1
#endif
#endif
#ifndef KJ_ASAN_BUILD
#define KJ_ASAN_BUILD 0
#endif

/* How long a spinning judge polls without sleeping (opts.spin). */
#define SPIN_NS 1000000000LL

/* How long a worker that closed its socket gets to finish dying. */
#define EXIT_GRACE_NS 2000000000LL

/* Sequence numbers are unique per process, not per worker, so no counter
 * lives in struct kj_worker; 0 is HELLO's.  Atomic: workers of several
 * threads draw from it. */
static atomic_uint_fast32_t kj_wire_seq;

static uint32_t next_seq(void)
{
	uint32_t s;
	do
		s = (uint32_t)atomic_fetch_add(&kj_wire_seq, 1) + 1;
	while (s == 0);
	return s;
}

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

const char *kj_signal_desc(int signo)
{
	switch (signo) {
	case SIGSEGV:
		return "segmentation fault (SIGSEGV)";
	case SIGBUS:
		return "bus error (SIGBUS)";
	case SIGFPE:
		return "arithmetic exception (SIGFPE)";
	case SIGILL:
		return "illegal instruction (SIGILL)";
	case SIGABRT:
		return "aborted (SIGABRT)";
	case SIGKILL:
		return "killed (SIGKILL)";
	case SIGXCPU:
		return "CPU time limit exceeded (SIGXCPU)";
	case SIGXFSZ:
		return "file size limit exceeded (SIGXFSZ)";
	case SIGPIPE:
		return "broken pipe (SIGPIPE)";
	case SIGTERM:
		return "terminated (SIGTERM)";
	case SIGINT:
		return "interrupted (SIGINT)";
	case SIGTRAP:
		return "trace/breakpoint trap (SIGTRAP)";
	case SIGSYS:
		return "bad system call (SIGSYS)";
	case SIGALRM:
		return "alarm clock (SIGALRM)";
	}
	return "unexpected signal";
}

const char *kj_call_status_name(kj_call_status s)
{
	switch (s) {
	case KJ_CALL_OK:
		return "ok";
	case KJ_CALL_TIMEOUT:
		return "timeout";
	case KJ_CALL_SIGNALED:
		return "signaled";
	case KJ_CALL_EXITED:
		return "exited";
	case KJ_CALL_FLOOD:
		return "flood";
	case KJ_CALL_ERROR:
		return "error";
	case KJ_CALL_PROTOCOL:
		return "protocol";
	}
	return "unknown";
}

static void res_init(struct kj_call_result *res)
{
	memset(res, 0, sizeof(*res));
	res->gpu_ns = -1;
	res->devsync_ns = -1;
}

/* Kills the whole group while the leader is still unreaped (alive or a
 * zombie), so its pid cannot have been reused as a group id, then reaps. */
static int drain_log(struct kj_worker *w);

static void reap(struct kj_worker *w)
{
	int st;
	if (w->dead || w->pid <= 0)
		return;
	kill(-w->pid, SIGKILL);
	kill(w->pid, SIGKILL);
	while (waitpid(w->pid, &st, 0) < 0) {
		if (errno != EINTR) {
			st = SIGKILL; /* lost child (SIGCHLD ignored): record a kill */
			break;
		}
	}
	w->status = w->jx ? kj_jail_wait_status(w->jx, st) : st;
	w->dead = 1;
	w->frozen = 0;
	drain_log(w);
}

/* Moves what the worker wrote into the log; returns 1 at end of file. */
static int drain_log(struct kj_worker *w)
{
	char chunk[16384];
	ssize_t n;
	if (w->logfd < 0)
		return 1;
	for (;;) {
		n = read(w->logfd, chunk, sizeof(chunk));
		if (n > 0) {
			kj_capbuf_add(&w->log, chunk, (size_t)n);
			if (w->log.total > w->opts.flood_limit)
				return 0;
			continue;
		}
		if (n == 0)
			return 1;
		if (errno == EINTR)
			continue;
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : 1;
	}
}

static int flooded(const struct kj_worker *w)
{
	return w->log.total > w->opts.flood_limit;
}

/* Describes a reaped worker's end in res. */
static void describe_death(const struct kj_worker *w, struct kj_call_result *res, const char *when)
{
	if (WIFSIGNALED(w->status)) {
		res->status = KJ_CALL_SIGNALED;
		res->signo = WTERMSIG(w->status);
		res->rejected_syscall = res->signo == SIGSYS;
		snprintf(res->msg, sizeof(res->msg), "worker died%s: %s", when,
			 kj_signal_desc(res->signo));
	} else {
		res->status = KJ_CALL_EXITED;
		res->exit_code = WIFEXITED(w->status) ? WEXITSTATUS(w->status) : -1;
		snprintf(res->msg, sizeof(res->msg), "worker exited with status %d%s",
			 res->exit_code, when);
	}
}

static void fail_flood(struct kj_worker *w, struct kj_call_result *res)
{
	reap(w);
	res->status = KJ_CALL_FLOOD;
	snprintf(res->msg, sizeof(res->msg),
		 "worker wrote more than %zu bytes of output; killed", w->opts.flood_limit);
}

static void fail_protocol(struct kj_worker *w, struct kj_call_result *res, const char *what)
{
	reap(w);
	res->status = KJ_CALL_PROTOCOL;
	snprintf(res->msg, sizeof(res->msg), "protocol violation: %s; worker killed", what);
}

/* The socket reached end of file or was reset: the worker is dying, or the
 * candidate closed fd 3.  Gives it a grace period to exit on its own (still
 * draining its output), then kills it. */
static void on_hangup(struct kj_worker *w, struct kj_call_result *res)
{
	int64_t end = now_ns() + EXIT_GRACE_NS;
	siginfo_t si;
	struct pollfd p;

	for (;;) {
		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)w->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
		    si.si_pid == w->pid)
			break;
		if (now_ns() >= end) {
			fail_protocol(w, res, "worker closed the protocol socket but kept running");
			return;
		}
		p.fd = w->logfd;
		p.events = POLLIN;
		p.revents = 0;
		if (poll(&p, w->logfd >= 0 ? 1 : 0, 10) > 0 && drain_log(w) && w->logfd >= 0) {
			close(w->logfd);
			w->logfd = -1;
		}
		if (flooded(w)) {
			fail_flood(w, res);
			return;
		}
	}
	reap(w);
	drain_log(w);
	describe_death(w, res, " during the call");
}

/* An ERROR carrying a CUDA error promises that the worker exits next (its
 * context is unusable).  Gives it the grace period to do so, draining its
 * output, then reaps it either way: the worker is dead from here on. */
static void await_exit(struct kj_worker *w)
{
	int64_t end = now_ns() + EXIT_GRACE_NS;
	siginfo_t si;
	struct pollfd p;

	while (now_ns() < end) {
		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)w->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
		    si.si_pid == w->pid)
			break;
		p.fd = w->logfd;
		p.events = POLLIN;
		p.revents = 0;
		if (poll(&p, w->logfd >= 0 ? 1 : 0, 10) > 0 && drain_log(w) && w->logfd >= 0) {
			close(w->logfd);
			w->logfd = -1;
		}
	}
	reap(w);
}

/* Waits until deadline for one reply of exactly its size carrying seq,
 * draining the log all along.  On success res->status is OK or ERROR and
 * *reply holds the message; otherwise the worker is dead and res says why. */
static void await_reply(struct kj_worker *w, uint32_t seq, int64_t deadline,
			union kj_wire_msg *reply, struct kj_call_result *res)
{
	struct pollfd p[2];
	int64_t left, spin_end = w->opts.spin ? now_ns() + SPIN_NS : 0;
	ssize_t n;
	size_t want;
	int nfd, ms;

	for (;;) {
		left = deadline - now_ns();
		if (left <= 0) {
			reap(w);
			res->status = KJ_CALL_TIMEOUT;
			snprintf(res->msg, sizeof(res->msg),
				 "no reply in time; worker killed by the watchdog");
			return;
		}
		ms = (int)((left + 999999) / 1000000);
		/* spinning: look without sleeping until the spin time is over */
		if (spin_end && now_ns() < spin_end)
			ms = 0;
		p[0].fd = w->sock;
		p[0].events = POLLIN;
		p[0].revents = 0;
		p[1].fd = w->logfd;
		p[1].events = POLLIN;
		p[1].revents = 0;
		nfd = w->logfd >= 0 ? 2 : 1;
		if (poll(p, (nfds_t)nfd, ms) < 0) {
			if (errno == EINTR)
				continue;
			fail_protocol(w, res, "poll failed on the worker's channels");
			return;
		}
		if (nfd == 2 && p[1].revents) {
			if (drain_log(w)) {
				close(w->logfd);
				w->logfd = -1;
			}
			if (flooded(w)) {
				fail_flood(w, res);
				return;
			}
		}
		if (!p[0].revents)
			continue;
		n = recv(w->sock, reply, sizeof(*reply), MSG_DONTWAIT | MSG_TRUNC);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			continue;
		res->judge_ns = now_ns();
		if (n == 0 || (n < 0 && errno == ECONNRESET)) {
			on_hangup(w, res);
			return;
		}
		if (n < 0) {
			fail_protocol(w, res, "cannot read the protocol socket");
			return;
		}
		want = (size_t)n >= sizeof(reply->h) ? kj_wire_size(reply->h.type) : 0;
		if (want == 0 || (size_t)n != want) {
			fail_protocol(w, res, "malformed reply");
			return;
		}
		if (reply->h.seq != seq) {
			fail_protocol(w, res, "reply does not answer the request (sequence number)");
			return;
		}
		if (seq == 0 ? reply->h.type != KJ_WIRE_HELLO :
			       reply->h.type != KJ_WIRE_OK && reply->h.type != KJ_WIRE_ERROR) {
			fail_protocol(w, res, "unexpected message type");
			return;
		}
		drain_log(w);
		if (flooded(w)) {
			fail_flood(w, res);
			return;
		}
		res->status = reply->h.type == KJ_WIRE_ERROR ? KJ_CALL_ERROR : KJ_CALL_OK;
		return;
	}
}

static double effective_timeout(double t)
{
	return t > 0 ? t : DEF_TIMEOUT_S;
}

/* ---- freezing ----
 *
 * A worker started with opts.freeze is stopped (SIGSTOP, which it can
 * neither catch nor ignore) from each reply to the next request.  The judge
 * waits until every thread of it shows as stopped in /proc before it goes
 * on: from then on the candidate gets no CPU time, so it can neither finish
 * work after a forged early reply while its outputs are checked, nor
 * prepare the next answer while the judge writes the next inputs, nor run
 * while the judge times its own baseline. */

#define FREEZE_TIMEOUT_NS 2000000000LL

/* 1 when every thread of pid is stopped (or already dead), 0 when one still
 * runs, -1 when the process is gone. */
static int all_stopped(pid_t pid)
{
	char path[96], buf[512];
	struct dirent *e;
	DIR *d;
	int any = 0, stopped = 1;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (!(d = opendir(path)))
		return -1;
	while ((e = readdir(d))) {
		const char *rp;
		ssize_t n;
		int fd;
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.20s/stat", (int)pid, e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue; /* the thread ended meanwhile */
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		any = 1;
		/* "pid (comm) S ...": comm may hold anything, the state follows the last ')' */
		rp = strrchr(buf, ')');
		if (!rp || rp[1] != ' ' || !strchr("TtZX", rp[2])) {
			stopped = 0;
			break;
		}
	}
	closedir(d);
	return any ? stopped : -1;
}

static int freeze(struct kj_worker *w)
{
	int64_t end;
	if (w->frozen || w->dead || w->wpid <= 0)
		return 0;
	if (kill(w->wpid, SIGSTOP) < 0)
		return errno == ESRCH ? 0 : -1;
	end = now_ns() + FREEZE_TIMEOUT_NS;
	for (int spins = 0;; spins++) {
		int r = all_stopped(w->wpid);
		if (r != 0)
			break;
		if (now_ns() > end)
			return -1;
		if (spins > 200)
			usleep(50);
	}
	w->frozen = 1;
	return 0;
}

static void thaw(struct kj_worker *w)
{
	if (!w->frozen)
		return;
	kill(w->wpid, SIGCONT);
	w->frozen = 0;
}

/* Sends one request (with fd as SCM_RIGHTS when >= 0) and waits for its
 * reply.  Returns 0 with res filled in every case where the worker, not the
 * judge, is at fault. */
static int exchange(struct kj_worker *w, void *msg, size_t len, int fd, double timeout_s,
		    union kj_wire_msg *reply, struct kj_call_result *res, struct kj_err *err)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct kj_wire_hdr *h = msg;
	struct msghdr mh;
	struct iovec iov;
	struct cmsghdr *cm;
	union kj_wire_msg stale;
	int64_t t0;
	ssize_t n;

	res_init(res);
	if (w->dead) {
		describe_death(w, res, " before this call (worker is gone)");
		return 0;
	}
	if (w->pid <= 0 || w->sock < 0)
		return kj_err_set(err, KJ_E_USAGE, "worker was not started");
	/* Anything already waiting is a second answer to an earlier request,
	 * e.g. an early OK forged by the candidate. */
	n = recv(w->sock, &stale, sizeof(stale), MSG_DONTWAIT | MSG_TRUNC);
	if (n == 0 || (n < 0 && errno == ECONNRESET)) {
		on_hangup(w, res);
		return 0;
	}
	if (n > 0) {
		fail_protocol(w, res, "unsolicited message from the worker");
		return 0;
	}
	h->seq = next_seq();

	iov.iov_base = msg;
	iov.iov_len = len;
	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	if (fd >= 0) {
		memset(&ctl, 0, sizeof(ctl));
		mh.msg_control = ctl.buf;
		mh.msg_controllen = sizeof(ctl.buf);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	}
	t0 = now_ns();
	thaw(w);
	do
		n = sendmsg(w->sock, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	if (n < 0 && (errno == EPIPE || errno == ECONNRESET)) {
		on_hangup(w, res);
		return 0;
	}
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
		fail_protocol(w, res, "worker does not read its requests");
		return 0;
	}
	if (n < 0)
		return kj_err_sys(err, "cannot send to worker %d", (int)w->pid);
	if ((size_t)n != len) {
		fail_protocol(w, res, "request was cut short");
		return 0;
	}
	await_reply(w, h->seq, t0 + (int64_t)(effective_timeout(timeout_s) * 1e9), reply, res);
	/* stopped from the reply on: whatever the candidate still meant to do
	 * waits until the next request (res->judge_ns was taken at the reply) */
	if (w->opts.freeze && (res->status == KJ_CALL_OK || res->status == KJ_CALL_ERROR) &&
	    freeze(w) < 0)
		fail_protocol(w, res, "the worker did not stop after its reply");
	if (res->status == KJ_CALL_TIMEOUT)
		snprintf(res->msg, sizeof(res->msg),
			 "no reply within %.3g s; worker killed by the watchdog",
			 effective_timeout(timeout_s));
	if (res->status == KJ_CALL_OK || res->status == KJ_CALL_ERROR) {
		res->judge_ns -= t0;
		if (res->status == KJ_CALL_OK) {
			res->worker_ns = reply->ok.worker_ns;
			res->gpu_ns = reply->ok.gpu_ns;
			res->devsync_ns = reply->ok.devsync_ns;
		} else {
			reply->error.text[KJ_WIRE_TEXT_MAX - 1] = '\0';
			snprintf(res->msg, sizeof(res->msg), "%s", reply->error.text);
			res->cuda_error = reply->error.cuda_error;
			if (res->cuda_error)
				await_exit(w);
		}
	} else {
		res->judge_ns = 0;
	}
	return 0;
}


/* While any worker lives, the judge is non-dumpable: another process of the
 * same user may then neither ptrace it nor open its /proc/<pid>/mem, maps or
 * fd entries, so a worker that reaches the kernel without the symbol policy
 * and the seccomp filter (a read-only open is allowed) still cannot read the
 * reference outputs out of the judge.  The flag is process-wide; it is
 * restored when the last worker is stopped, so core dumps and debuggers
 * (and LeakSanitizer at exit) work as before outside judging. */
static pthread_mutex_t guard_lock = PTHREAD_MUTEX_INITIALIZER;
static int guard_workers, guard_saved = -1; /* under guard_lock */

static void guard_acquire(void)
{
	pthread_mutex_lock(&guard_lock);
	if (guard_workers++ == 0) {
		guard_saved = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	}
	pthread_mutex_unlock(&guard_lock);
}

static void guard_release(void)
{
	pthread_mutex_lock(&guard_lock);
	if (guard_workers > 0 && --guard_workers == 0 && guard_saved > 0)
		prctl(PR_SET_DUMPABLE, guard_saved, 0, 0, 0);
	pthread_mutex_unlock(&guard_lock);
}

/* Only async-signal-safe calls from here to exec: the judge may have threads. */
static void child_die(const char *what)
{
	char num[16], *p = num + sizeof(num);
	int e = errno;
	ssize_t r;
	*--p = '\0';
	do
		*--p = (char)('0' + e % 10);
	while ((e /= 10) && p > num);
	r = write(2, "kjudge: worker setup failed: ", 29);
	r = write(2, what, strlen(what));
	r = write(2, " (errno ", 8);
	r = write(2, p, strlen(p));
	r = write(2, ")\n", 2);
	(void)r;
	_exit(127);
}

struct child_plan {
	const char *dir;    /* unconfined: the scratch folder to change into */
	struct kj_jail_exec *jx;
	char *envp[20];     /* NULL-terminated */
	char *const *penv;  /* profile mode: the judge's environment instead */
	int sock, logw;
	pid_t parent;
	struct rlimit cpu, as, fsize, core, nofile, nproc;
	int set_as, set_nproc;
};

/* Between fork and exec: descriptors (0 /dev/null, 1 and 2 the log pipe, 3
 * the protocol socket, then the jail's), process group, death with the
 * judge, no new privileges, no capabilities, default signals, limits, the
 * sandbox's uid, exec of bwrap (or of the worker itself when unconfined). */
static void child_run(struct child_plan *c)
{
	struct sigaction sa;
	sigset_t none;
	int s, l, nul, sig;

	/* Lift every descriptor that must survive above the ones dup2 writes,
	 * so that no dup2 below overwrites another; until fd 2 is the log pipe
	 * a failure stays silent (the library never prints on the judge's
	 * stderr). */
	if (kj_jail_child_lift(c->jx) < 0)
		_exit(127);
	s = fcntl(c->sock, F_DUPFD, 100);
	l = fcntl(c->logw, F_DUPFD, 100);
	nul = open("/dev/null", O_RDONLY);
	if (s < 0 || l < 0 || nul < 0)
		_exit(127);
	if (dup2(nul, 0) < 0 || dup2(l, 1) < 0 || dup2(l, 2) < 0 || dup2(s, KJ_WIRE_FD) < 0)
		_exit(127);
	if (kj_jail_child_place(c->jx, 0) < 0)
		child_die("passing descriptors to the sandbox");
	if (setpgid(0, 0) < 0)
		child_die("setpgid");
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		child_die("PR_SET_PDEATHSIG");
	if (getppid() != c->parent)
		_exit(127);
	/* The judge's ignored or blocked signals would survive exec and could
	 * stop SIGXCPU or SIGPIPE from ending a runaway worker. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (sig = 1; sig < NSIG; sig++)
		sigaction(sig, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (c->jx->unconfined && chdir(c->dir) < 0)
		child_die("chdir to the scratch directory");
	if (setrlimit(RLIMIT_CPU, &c->cpu) < 0)
		child_die("RLIMIT_CPU");
	if (c->set_as && setrlimit(RLIMIT_AS, &c->as) < 0)
		child_die("RLIMIT_AS");
	if (setrlimit(RLIMIT_FSIZE, &c->fsize) < 0)
		child_die("RLIMIT_FSIZE");
	if (setrlimit(RLIMIT_CORE, &c->core) < 0)
		child_die("RLIMIT_CORE");
	if (setrlimit(RLIMIT_NOFILE, &c->nofile) < 0)
		child_die("RLIMIT_NOFILE");
	/* capabilities, the sandbox's uid, its process count (all jails of
	 * that uid together), no new privileges */
	if (kj_jail_child_drop(c->jx, c->set_nproc ? &c->nproc : NULL) < 0)
		child_die("switching to the sandbox's uid");
	execve(c->jx->path, c->jx->argv, c->penv ? c->penv : c->envp);
	child_die("exec of the worker");
}

int kj_worker_profile_mode(void)
{
	const char *p = getenv("KJUDGE_PROFILE");
	return p && !strcmp(p, "1");
}

/* The worker gets a minimal environment: what the loader, the CUDA driver
 * and the sanitizers need, never the judge's own variables (API keys for
 * model endpoints, database URLs).  HOME and TMPDIR point at the scratch
 * folder. */
static void plan_env(struct child_plan *c, char *buf, size_t len, const char *scratch,
		     const char *cuda_uuid)
{
	/* NVLink multicast stays off wherever the judge's machine asks for it
	 * (a program that uses it can take a shared host's GPUs down);
	 * KJ_SECCOMP_SURVEY is a developer's switch of the worker's filter */
	static const char *const keep[] = { "PATH", "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES",
					    "CUDA_DEVICE_ORDER", "ASAN_OPTIONS", "UBSAN_OPTIONS",
					    "LSAN_OPTIONS", "LANG", "NCCL_NVLS_ENABLE",
					    "TORCH_SYMM_MEM_DISABLE_MULTICAST", "NVSHMEM_DISABLE_NVLS",
					    "KJ_SECCOMP_SURVEY", NULL };
	size_t off = 0;
	int n = 0;
	for (int i = 0; keep[i]; i++) {
		const char *v = getenv(keep[i]);
		int w;
		if (cuda_uuid && !strcmp(keep[i], "CUDA_VISIBLE_DEVICES"))
			v = cuda_uuid;
		if (!v)
			continue;
		w = snprintf(buf + off, len - off, "%s=%s", keep[i], v);
		if (w < 0 || (size_t)w >= len - off)
			continue;
		c->envp[n++] = buf + off;
		off += (size_t)w + 1;
	}
	/* USER and LOGNAME: the sandbox has no /etc/passwd to look the uid up in */
	for (int i = 0; i < 4; i++) {
		static const char *const names[] = { "HOME", "TMPDIR", "USER", "LOGNAME" };
		int w = snprintf(buf + off, len - off, "%s=%s", names[i], i < 2 ? scratch : "kjudge");
		if (w < 0 || (size_t)w >= len - off)
			break;
		c->envp[n++] = buf + off;
		off += (size_t)w + 1;
	}
	c->envp[n] = NULL;
}

/* A lowered hard limit cannot be raised again by an unprivileged process, so
 * the hard limits equal the soft ones except for CPU, where one more second
 * turns an ignored SIGXCPU into SIGKILL. */
static void plan_limits(struct child_plan *c, const struct kj_worker_opts *o, char *note, size_t cap)
{
	rlim_t cpu = (rlim_t)ceil(o->cpu_limit_s);
	if (cpu < 1)
		cpu = 1;
	c->cpu.rlim_cur = cpu;
	c->cpu.rlim_max = cpu + 1;
	c->as.rlim_cur = c->as.rlim_max = (rlim_t)o->as_limit;
	c->set_as = !o->cuda && !KJ_ASAN_BUILD;
	c->fsize.rlim_cur = c->fsize.rlim_max = (rlim_t)o->fsize_limit;
	c->core.rlim_cur = c->core.rlim_max = 0;
	c->nofile.rlim_cur = c->nofile.rlim_max = 64;
	/* all jails of the sandbox's uid together: a Python candidate can fork */
	c->nproc.rlim_cur = c->nproc.rlim_max = 4096;
	c->set_nproc = 1;
	/* profiling: a profiler's injected library keeps buffers in files and
	 * shared memory and opens descriptors of its own, so the worker keeps
	 * the judge's own file-size and descriptor limits (ncu stopped with
	 * "LaunchFailed" in the worker, not in the judge, on the H200) */
	if (kj_worker_profile_mode()) {
		if (getrlimit(RLIMIT_FSIZE, &c->fsize) < 0)
			c->fsize.rlim_cur = c->fsize.rlim_max = (rlim_t)o->fsize_limit;
		if (getrlimit(RLIMIT_NOFILE, &c->nofile) < 0)
			c->nofile.rlim_cur = c->nofile.rlim_max = 64;
	}
	/* under the caller's hard limits, which no setrlimit can pass */
	kj_rlimit_fit(RLIMIT_CPU, &c->cpu, note, cap);
	if (c->set_as)
		kj_rlimit_fit(RLIMIT_AS, &c->as, note, cap);
	kj_rlimit_fit(RLIMIT_FSIZE, &c->fsize, note, cap);
	kj_rlimit_fit(RLIMIT_NOFILE, &c->nofile, note, cap);
	kj_rlimit_fit(RLIMIT_NPROC, &c->nproc, note, cap);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

int kj_worker_start(struct kj_worker *w, const struct kj_worker_opts *o, struct kj_err *err)
{
	struct child_plan c;
	struct kj_jail dj;
	const struct kj_jail *jail;
	char envbuf[8192], abspath[PATH_MAX], scratch_in[PATH_MAX];
	const char *cmd_default[3];
	const char *const *cmd;
	struct kj_call_result res;
	union kj_wire_msg hello;
	int sv[2] = {-1, -1}, lp[2] = {-1, -1}, fl, rc, unconfined;
	pid_t pid;

	memset(w, 0, sizeof(*w));
	w->sock = w->logfd = w->arena_fd = -1;
	if (!o || !o->worker_path || !o->scratch_dir) {
		kj_capbuf_init(&w->log, DEF_LOG_CAP);
		return kj_err_set(err, KJ_E_USAGE, "worker path and scratch directory are required");
	}
	w->opts = *o;
	if (w->opts.cpu_limit_s <= 0)
		w->opts.cpu_limit_s = DEF_CPU_S;
	if (!w->opts.as_limit)
		w->opts.as_limit = DEF_AS;
	if (!w->opts.fsize_limit)
		w->opts.fsize_limit = DEF_FSIZE;
	if (!w->opts.log_cap)
		w->opts.log_cap = DEF_LOG_CAP;
	if (!w->opts.flood_limit)
		w->opts.flood_limit = DEF_FLOOD;
	kj_capbuf_init(&w->log, w->opts.log_cap);
	/* profiling injects a tool's library into the worker: it runs as the
	 * judge does, unconfined (the verdicts say so) */
	unconfined = o->unconfined || kj_worker_profile_mode();
	w->opts.jail = NULL; /* the caller's jail lives only through this call */

	if (kj_mkdir_p(o->scratch_dir) < 0)
		return kj_err_sys(err, "cannot create scratch directory '%s'", o->scratch_dir);
	/* The child changes into the scratch folder before exec, so a
	 * relative path is resolved here. */
	if (o->worker_path[0] == '/' || !realpath(o->worker_path, abspath))
		snprintf(abspath, sizeof(abspath), "%s", o->worker_path);
	if (o->jail) {
		jail = o->jail;
		cmd = o->argv;
		if (!cmd)
			return kj_err_set(err, KJ_E_USAGE, "a worker with its own jail needs its argv");
	} else {
		/* the C worker: its binary staged, the folders its libraries may
		 * come from, the GPU */
		memset(&dj, 0, sizeof(dj));
		dj.paths[0].host = abspath;
		dj.paths[0].inner = "kjudge-worker";
		dj.npaths = 1;
		dj.library_path = 1;
		dj.gpu = o->cuda;
		jail = &dj;
		cmd_default[0] = unconfined ? abspath : KJ_JAIL_STAGE "/kjudge-worker";
		cmd_default[1] = NULL;
		cmd = o->argv ? o->argv : cmd_default;
	}
	{
		struct kj_jail jl = *jail;
		jl.unconfined = unconfined;
		jl.scratch = o->scratch_dir;
		jl.info = !unconfined;
		w->jx = calloc(1, sizeof(*w->jx));
		if (!w->jx)
			return kj_err_set(err, KJ_E_NOMEM, "out of memory");
		w->jx->info_r = -1;
		/* the worker's own descriptors are 0-3: the jail's start at 4 */
		if ((rc = kj_jail_prepare(w->jx, &jl, cmd, KJ_WIRE_FD + 1, err))) {
			free(w->jx);
			w->jx = NULL;
			return rc;
		}
		/* unconfined, the executable is the worker (or the interpreter)
		 * itself, whatever argv[0] says */
		if (unconfined)
			w->jx->path = abspath;
	}
	snprintf(scratch_in, sizeof(scratch_in), "%s", unconfined ? o->scratch_dir : KJ_JAIL_SCRATCH);

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		kj_err_sys(err, "cannot create the worker socket");
		goto fail_early;
	}
	if (pipe2(lp, O_CLOEXEC) < 0) {
		kj_err_sys(err, "cannot create the worker log pipe");
		close(sv[0]);
		close(sv[1]);
		goto fail_early;
	}

	memset(&c, 0, sizeof(c));
	c.dir = o->scratch_dir;
	c.jx = w->jx;
	/* one GPU per worker, named by UUID (unambiguous whatever the judge's
	 * own CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER say) */
	w->masked = o->cuda && o->cuda_uuid && !strncmp(o->cuda_uuid, "GPU-", 4) &&
		    !kj_worker_profile_mode();
	plan_env(&c, envbuf, sizeof(envbuf), scratch_in, w->masked ? o->cuda_uuid : NULL);
	if (kj_worker_profile_mode())
		c.penv = environ;
	c.sock = sv[1];
	c.logw = lp[1];
	c.parent = getpid();
	plan_limits(&c, &w->opts, w->limits, sizeof(w->limits));

	guard_acquire();
	pid = fork();
	if (pid < 0) {
		guard_release();
		kj_err_sys(err, "cannot fork the worker");
		close(sv[0]);
		close(sv[1]);
		close(lp[0]);
		close(lp[1]);
		goto fail_early;
	}
	if (pid == 0)
		child_run(&c);
	/* Also from this side, so a kill(-pid) right away cannot miss. */
	setpgid(pid, pid);
	kj_jail_parent_after_fork(w->jx);
	close(sv[1]);
	close(lp[1]);
	w->pid = pid;
	w->wpid = unconfined ? pid : -1;
	w->sock = sv[0];
	w->logfd = lp[0];
	fl = fcntl(w->logfd, F_GETFL);
	fcntl(w->logfd, F_SETFL, fl | O_NONBLOCK);

	res_init(&res);
	await_reply(w, 0, now_ns() + (int64_t)(HELLO_TIMEOUT_S * 1e9), &hello, &res);
	/* inside the jail the worker is pid 2 of its own namespace (bwrap's
	 * reaper is pid 1) */
	if (res.status == KJ_CALL_OK &&
	    (hello.hello.version != KJ_WIRE_VERSION ||
	     hello.hello.pid != (unconfined ? (uint32_t)pid : 2u)))
		fail_protocol(w, &res, "HELLO names another version or process");
	if (res.status == KJ_CALL_OK && !unconfined) {
		w->wpid = kj_jail_command_pid(w->jx, 5.0);
		if (w->wpid <= 0)
			fail_protocol(w, &res, "the worker's process is not where the sandbox said");
	}
	if (res.status == KJ_CALL_OK && w->opts.freeze && freeze(w) < 0)
		fail_protocol(w, &res, "the worker did not stop when asked");
	if (res.status != KJ_CALL_OK) {
		if (res.status == KJ_CALL_TIMEOUT)
			snprintf(res.msg, sizeof(res.msg), "no HELLO within %.0f s", HELLO_TIMEOUT_S);
		kj_err_set(err, KJ_E_WORKER, "worker '%s' did not start: %s%s%.300s",
			   o->worker_path, res.msg, w->log.len ? "; output: " : "", w->log.buf);
		kj_worker_stop(w);
		return KJ_E_WORKER;
	}
	return 0;
fail_early:
	kj_jail_release(w->jx);
	free(w->jx);
	w->jx = NULL;
	return KJ_E_SYS;
}

int kj_worker_load(struct kj_worker *w, const char *so_path, const char *symbol, int nptr,
		   int ndim, double timeout_s, struct kj_call_result *res, struct kj_err *err)
{
	struct kj_wire_load m;
	union kj_wire_msg reply;
	char staged[PATH_MAX];
	size_t pl, sl;

	res_init(res);
	if (!so_path || !symbol)
		return kj_err_set(err, KJ_E_USAGE, "load needs a shared object and a symbol");
	pl = strlen(so_path);
	sl = strlen(symbol);
	if (pl >= KJ_WIRE_PATH_MAX || sl >= KJ_WIRE_SYM_MAX || sl == 0)
		return kj_err_set(err, KJ_E_USAGE, "path or symbol name too long or empty: '%s'",
				  symbol);
	if (nptr < 0 || nptr > KJ_WIRE_MAX_PTR || ndim < 0 || ndim > KJ_WIRE_MAX_DIM)
		return kj_err_set(err, KJ_E_USAGE,
				  "%d pointer and %d dimension arguments: at most %d and %d",
				  nptr, ndim, KJ_WIRE_MAX_PTR, KJ_WIRE_MAX_DIM);
	/* the object enters the jail as a read-only staged file */
	/* a missing file goes on to the worker by its path, and its dlopen
	 * says so */
	if (w->jx && !w->jx->unconfined && access(so_path, F_OK) == 0) {
		const char *base = strrchr(so_path, '/'), *ext;
		char name[96];
		int rc;
		base = base ? base + 1 : so_path;
		ext = strrchr(base, '.');
		snprintf(name, sizeof(name), "load%d%s", w->nstaged++, ext && strlen(ext) < 16 ? ext : "");
		if ((rc = kj_jail_stage(w->jx, so_path, name, staged, sizeof(staged), err)))
			return rc;
		so_path = staged;
		pl = strlen(so_path);
	}
	memset(&m, 0, sizeof(m));
	m.h.type = KJ_WIRE_LOAD;
	m.nptr = (uint32_t)nptr;
	m.ndim = (uint32_t)ndim;
	m.cuda = w->opts.cuda ? 1 : 0;
	m.device = w->masked ? 0 : w->opts.device;
	memcpy(m.path, so_path, pl + 1);
	memcpy(m.symbol, symbol, sl + 1);
	return exchange(w, &m, sizeof(m), -1, timeout_s, &reply, res, err);
}

static void unmap_arena(struct kj_worker *w)
{
	if (w->arena && w->arena_size)
		munmap(w->arena, w->arena_size);
	w->arena = NULL;
	w->arena_size = 0;
	close_fd(&w->arena_fd);
}

int kj_worker_arena(struct kj_worker *w, size_t bytes, struct kj_err *err)
{
	struct kj_wire_arena m;
	struct kj_call_result res;
	union kj_wire_msg reply;
	void *p = NULL;
	int fd = -1, rc;

	if (w->dead) {
		res_init(&res);
		describe_death(w, &res, " before the arena was set up");
		return kj_err_set(err, KJ_E_WORKER, "%s", res.msg);
	}
	unmap_arena(w);
	if (bytes) {
		fd = memfd_create("kj-arena", MFD_CLOEXEC | MFD_ALLOW_SEALING);
		if (fd < 0)
			return kj_err_sys(err, "cannot create a %zu-byte arena", bytes);
		/* sealed before the worker sees it: a worker that shrank it would
		 * make the judge's next touch of the missing pages a SIGBUS */
		if (ftruncate(fd, (off_t)bytes) < 0 ||
		    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0) {
			kj_err_sys(err, "cannot size and seal the %zu-byte arena", bytes);
			close(fd);
			return KJ_E_SYS;
		}
		p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED) {
			kj_err_sys(err, "cannot map the %zu-byte arena", bytes);
			close(fd);
			return KJ_E_SYS;
		}
	}
	w->arena = p;
	w->arena_size = bytes;
	w->arena_fd = fd;

	memset(&m, 0, sizeof(m));
	m.h.type = KJ_WIRE_ARENA;
	m.size = bytes;
	rc = exchange(w, &m, sizeof(m), fd, ARENA_TIMEOUT_S, &reply, &res, err);
	if (rc)
		return rc;
	if (res.status != KJ_CALL_OK)
		return kj_err_set(err, KJ_E_WORKER, "worker could not map the arena: %s", res.msg);
	return 0;
}

int kj_worker_arena_cuda(struct kj_worker *w, const unsigned char handle[64], size_t bytes,
			 struct kj_err *err)
{
	struct kj_wire_arena_cuda m;
	struct kj_call_result res;
	union kj_wire_msg reply;
	int rc;

	if (bytes && !handle)
		return kj_err_set(err, KJ_E_USAGE, "a device arena of %zu bytes needs its IPC handle",
				  bytes);
	if (w->dead) {
		res_init(&res);
		describe_death(w, &res, " before the device arena was set up");
		return kj_err_set(err, KJ_E_WORKER, "%s", res.msg);
	}
	w->cuda_arena_size = 0;
	memset(&m, 0, sizeof(m));
	m.h.type = KJ_WIRE_ARENA_CUDA;
	m.size = bytes;
	m.device = w->masked ? 0 : w->opts.device;
	if (bytes)
		memcpy(m.handle, handle, KJ_WIRE_IPC_HANDLE);
	rc = exchange(w, &m, sizeof(m), -1, ARENA_TIMEOUT_S, &reply, &res, err);
	if (rc)
		return rc;
	if (res.status != KJ_CALL_OK)
		return kj_err_set(err, KJ_E_WORKER, "worker could not open the device arena: %s",
				  res.msg);
	w->cuda_arena_size = bytes;
	return 0;
}

static int call_like(struct kj_worker *w, uint32_t type, const uint64_t *off, int nptr,
		     const int64_t *dims, int ndim, uint32_t reps, uint64_t stride, double timeout_s,
		     struct kj_call_result *res, struct kj_err *err)
{
	struct kj_wire_call m;
	union kj_wire_msg reply;
	int rc;

	res_init(res);
	if (nptr < 0 || nptr > KJ_WIRE_MAX_PTR || ndim < 0 || ndim > KJ_WIRE_MAX_DIM ||
	    (nptr && !off) || (ndim && !dims))
		return kj_err_set(err, KJ_E_USAGE,
				  "%d pointer and %d dimension arguments: at most %d and %d",
				  nptr, ndim, KJ_WIRE_MAX_PTR, KJ_WIRE_MAX_DIM);
	memset(&m, 0, sizeof(m));
	m.h.type = type;
	m.nptr = (uint32_t)nptr;
	m.ndim = (uint32_t)ndim;
	m.reps = reps;
	m.stride = stride;
	if (nptr)
		memcpy(m.off, off, sizeof(*off) * (size_t)nptr);
	if (ndim)
		memcpy(m.dims, dims, sizeof(*dims) * (size_t)ndim);
	rc = exchange(w, &m, sizeof(m), -1, timeout_s, &reply, res, err);
	if (rc || res->status != KJ_CALL_OK || !w->opts.cuda)
		return rc;
	/* The worker's interval lies inside the judge's round trip on the same
	 * clock; event time may drift from it by a clock's tolerance only. */
	if (res->devsync_ns < 0 || res->devsync_ns > res->judge_ns || res->gpu_ns < 0 ||
	    res->gpu_ns > res->judge_ns + res->judge_ns / 1000) {
		fail_protocol(w, res, "reported times do not fit in the call's round trip");
		res->judge_ns = 0;
		res->gpu_ns = res->devsync_ns = -1;
	}
	return 0;
}

int kj_worker_call(struct kj_worker *w, const uint64_t *off, int nptr, const int64_t *dims,
		   int ndim, double timeout_s, struct kj_call_result *res, struct kj_err *err)
{
	return call_like(w, KJ_WIRE_CALL, off, nptr, dims, ndim, 1, 0, timeout_s, res, err);
}

int kj_worker_train(struct kj_worker *w, const uint64_t *off, int nptr, const int64_t *dims,
		    int ndim, int reps, uint64_t stride, double timeout_s, struct kj_call_result *res,
		    struct kj_err *err)
{
	if (reps < 1 || !w->opts.cuda)
		return kj_err_set(err, KJ_E_USAGE, "a train is %d calls on the %s track: only CUDA workers "
				  "run trains of one call or more", reps, w->opts.cuda ? "CUDA" : "CPU");
	return call_like(w, KJ_WIRE_CALL, off, nptr, dims, ndim, (uint32_t)reps, stride, timeout_s, res, err);
}

int kj_worker_probe(struct kj_worker *w, const uint64_t *off, int nptr, const int64_t *dims,
		    int ndim, double timeout_s, struct kj_call_result *res, struct kj_err *err)
{
	return call_like(w, KJ_WIRE_PROBE, off, nptr, dims, ndim, 1, 0, timeout_s, res, err);
}

int kj_worker_probe_train(struct kj_worker *w, const uint64_t *off, int nptr, const int64_t *dims,
			  int ndim, int reps, double timeout_s, struct kj_call_result *res, struct kj_err *err)
{
	if (reps < 1 || !w->opts.cuda)
		return kj_err_set(err, KJ_E_USAGE, "an empty train is for CUDA workers");
	return call_like(w, KJ_WIRE_PROBE, off, nptr, dims, ndim, (uint32_t)reps, 0, timeout_s, res, err);
}

int kj_worker_setup(struct kj_worker *w, double timeout_s, struct kj_call_result *res,
		    struct kj_err *err)
{
	struct kj_wire_setup m;
	union kj_wire_msg reply;

	memset(&m, 0, sizeof(m));
	m.h.type = KJ_WIRE_SETUP;
	m.cuda = w->opts.cuda ? 1 : 0;
	m.device = w->masked ? 0 : w->opts.device;
	return exchange(w, &m, sizeof(m), -1, timeout_s, &reply, res, err);
}

int kj_worker_read_maps(struct kj_worker *w, struct kj_capbuf *out)
{
	char path[64], buf[16384];
	ssize_t n;
	int fd;

	if (w->dead || w->wpid <= 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)w->wpid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
		if (n > 0)
			kj_capbuf_add(out, buf, (size_t)n);
	close(fd);
	return 0;
}

int kj_worker_nop(struct kj_worker *w, double timeout_s, struct kj_call_result *res,
		  struct kj_err *err)
{
	struct kj_wire_nop m;
	union kj_wire_msg reply;

	memset(&m, 0, sizeof(m));
	m.h.type = KJ_WIRE_NOP;
	return exchange(w, &m, sizeof(m), -1, timeout_s, &reply, res, err);
}

void kj_worker_stop(struct kj_worker *w)
{
	reap(w);
	if (w->jx) {
		kj_jail_release(w->jx);
		free(w->jx);
		w->jx = NULL;
	}
	unmap_arena(w);
	/* the socket is open exactly from fork to the first stop */
	if (w->sock >= 0)
		guard_release();
	close_fd(&w->sock);
	close_fd(&w->logfd);
	kj_capbuf_release(&w->log);
}
