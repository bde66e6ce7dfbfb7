/*
 * The worker's seccomp filter (src/worker/filter.c), seen from a candidate
 * on the CPU track: probe libraries that make forbidden system calls
 * directly (the static symbol policy is bypassed here on purpose: they are
 * loaded with the worker API, never through kj_symcheck_so) either kill the
 * worker with SIGSYS or get EPERM, what the allowlist does not name (a new
 * system call, a number no kernel has) gets EPERM, and the calls a kernel
 * needs (read-only opens, memory, signals to itself, its own limits and
 * priority) still work.  No thread may start on this track.  Probe libraries
 * are built with cc at test time; the worker comes from
 * $KJ_BUILD/kjudge-worker.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kjudge/sandbox.h"
#include "so_testlib.h"
#include "tap.h"

static char dir[256], worker_path[4096], scratch[512];

/* Each probe k(o) stores its results in o[] (int64 in the arena); a probe
 * that returns reports 1 in o[15] so a silently skipped call shows. */
#define PROBE_HEAD                                                                         \
	"#define _GNU_SOURCE\n#include <errno.h>\n#include <fcntl.h>\n#include <stdint.h>\n"  \
	"#include <signal.h>\n#include <unistd.h>\n#include <sched.h>\n#include <pthread.h>\n" \
	"#include <sys/syscall.h>\n#include <sys/socket.h>\n#include <sys/stat.h>\n"          \
	"#include <sys/resource.h>\n#include <sys/prctl.h>\n#include <sys/ioctl.h>\n"         \
	"#include <sys/mman.h>\n#include <sys/time.h>\n#include <sys/random.h>\n"             \
	"#include <time.h>\n"                                                                  \
	"static void put(int64_t *o, int i, long r) { o[i] = r; o[i + 1] = r < 0 ? errno : 0; }\n"

struct deadly {
	const char *name;
	const char *body; /* statements of k(int64_t *o) */
	const char *ctor; /* or NULL: code run at dlopen instead of in the call */
};

static const struct deadly deadly[] = {
	{"raw_fork", "syscall(SYS_fork);", NULL},
	{"libc_fork", "fork();", NULL},
	{"vfork_clone", "syscall(SYS_clone, (long)SIGCHLD, 0L, 0L, 0L, 0L);", NULL},
	{"execve", "char *a[] = {\"/bin/true\", 0}; execve(\"/bin/true\", a, a + 1);", NULL},
	{"ptrace", "syscall(SYS_ptrace, 16L /* PTRACE_ATTACH */, (long)getppid(), 0L, 0L);",
	 NULL},
	{"process_vm_readv", "syscall(SYS_process_vm_readv, (long)getppid(), 0L, 0L, 0L, 0L, 0L);",
	 NULL},
	{"io_uring", "syscall(SYS_io_uring_setup, 4L, 0L);", NULL},
	{"ctor_fork", "", "fork();"},
	/* no thread on the CPU track, however it is asked for (no stack is
	 * given: the call must not return) */
	{"raw_clone_thread",
	 "syscall(SYS_clone, (long)(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | "
	 "CLONE_THREAD | CLONE_SYSVSEM), 0L, 0L, 0L, 0L);",
	 NULL},
	/* the kernel would signal the judge on the socket's activity */
	{"fcntl_setown", "fcntl(3, F_SETOWN, getppid());", NULL},
	{"fcntl_setsig", "fcntl(3, F_SETSIG, SIGUSR1);", NULL},
	{"fcntl_o_async", "fcntl(3, F_SETFL, fcntl(3, F_GETFL) | O_ASYNC);", NULL},
	{"ioctl_fioasync", "int on = 1; ioctl(3, FIOASYNC, &on);", NULL},
	{"ioctl_tiocsti", "char c = 'x'; ioctl(0, TIOCSTI, &c);", NULL},
};

struct refused {
	const char *name;
	const char *body;
	int64_t want_errno; /* o[1] */
};

static const struct refused refused[] = {
	{"socket_inet", "put(o, 0, socket(AF_INET, SOCK_STREAM, 0));", EPERM},
	{"socket_unix", "put(o, 0, socket(AF_UNIX, SOCK_STREAM, 0));", EPERM},
	{"open_create", "put(o, 0, open(\"made-by-candidate\", O_WRONLY | O_CREAT, 0600));", EPERM},
	{"openat_append", "put(o, 0, openat(AT_FDCWD, \"existing\", O_WRONLY | O_APPEND));", EPERM},
	{"open_rdwr_cpu", "put(o, 0, open(\"existing\", O_RDWR));", EPERM},
	{"open_trunc", "put(o, 0, syscall(SYS_open, \"existing\", (long)O_TRUNC));", EPERM},
	{"unlink", "put(o, 0, unlink(\"existing\"));", EPERM},
	{"mkdir", "put(o, 0, mkdir(\"newdir\", 0700));", EPERM},
	{"kill_parent", "put(o, 0, kill(getppid(), 0));", EPERM},
	{"kill_group", "put(o, 0, kill(0, 0));", EPERM},
	{"tgkill_parent", "put(o, 0, syscall(SYS_tgkill, (long)getppid(), (long)getppid(), 0L));",
	 EPERM},
	{"prlimit_parent",
	 "struct rlimit l; put(o, 0, prlimit(getppid(), RLIMIT_NOFILE, 0, &l));", EPERM},
	{"pdeathsig", "put(o, 0, prctl(PR_SET_PDEATHSIG, 0L, 0L, 0L, 0L));", EPERM},
	{"write_fd3", "put(o, 0, write(3, \"forged\", 6));", EPERM},
	{"clone3", "put(o, 0, syscall(SYS_clone3, 0L, 0L));", ENOSYS},
	{"setsid", "put(o, 0, setsid());", EPERM},
	{"memfd", "put(o, 0, syscall(SYS_memfd_create, \"x\", 0L));", EPERM},
	/* the kernel reads an int's low 32 bits only: this is fd 3 */
	{"write_fd3_high", "put(o, 0, syscall(SYS_write, 3L | (1L << 32), \"forged\", 6L));", EPERM},
	{"sendto_stdout", "put(o, 0, sendto(1, \"x\", 1, 0, 0, 0));", EPERM},
	{"socketpair", "int sv[2]; put(o, 0, socketpair(AF_UNIX, SOCK_STREAM, 0, sv));", EPERM},
	/* others' priority, or every process of the user's (PRIO_USER, 0) */
	{"setpriority_pid1", "put(o, 0, setpriority(PRIO_PROCESS, 1, 19));", EPERM},
	{"setpriority_parent", "put(o, 0, setpriority(PRIO_PROCESS, getppid(), 19));", EPERM},
	{"setpriority_user", "put(o, 0, setpriority(PRIO_USER, 0, 19));", EPERM},
	{"sched_idle_pid1",
	 "struct sched_param p = {0}; put(o, 0, sched_setscheduler(1, SCHED_IDLE, &p));", EPERM},
	{"dumpable", "put(o, 0, prctl(PR_SET_DUMPABLE, 0L, 0L, 0L, 0L));", EPERM},
	/* a timer's signal would run candidate code outside the judged call */
	{"timer_create",
	 "timer_t t; put(o, 0, syscall(SYS_timer_create, (long)CLOCK_MONOTONIC, 0L, &t));", EPERM},
	{"setitimer", "struct itimerval v = {{0, 0}, {1, 0}}; put(o, 0, setitimer(ITIMER_REAL, &v, 0));",
	 EPERM},
	{"alarm", "put(o, 0, syscall(SYS_alarm, 1L));", EPERM},
	{"timerfd", "put(o, 0, syscall(SYS_timerfd_create, (long)CLOCK_MONOTONIC, 0L));", EPERM},
	/* a lock on a file the judge uses would stall it (here stdin,
	 * /dev/null read-only, where the kernel would grant one) */
	{"fcntl_lock",
	 "struct flock l = {.l_type = F_RDLCK, .l_whence = SEEK_SET}; put(o, 0, fcntl(0, F_SETLK, &l));",
	 EPERM},
	/* not in the allowlist: a system call newer than libseccomp's tables
	 * (462, mseal, Linux 6.10) and a number no kernel has */
	{"syscall_462", "put(o, 0, syscall(462L, 0L, 0L, 0L));", EPERM},
	{"syscall_1000", "put(o, 0, syscall(1000L));", EPERM},
};

/* What must keep working under the filter.  A read-only open and an
 * executable mapping are tried in the constructor, under the allowlist
 * alone: once the candidate is loaded the CPU worker stacks a second filter
 * that refuses both.  Its own nice value may only go up, so 5 or above. */
static const char src_allowed[] = PROBE_HEAD
	"static int ctor_open, ctor_exec;\n"
	"__attribute__((constructor)) static void init(void) {\n"
	"  char c; void *m; int fd = open(\"/proc/self/status\", O_RDONLY | O_CLOEXEC);\n"
	"  ctor_open = fd >= 0 && read(fd, &c, 1) == 1;\n"
	"  if (fd >= 0) close(fd);\n"
	"  m = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);\n"
	"  ctor_exec = m != MAP_FAILED && mprotect(m, 4096, PROT_READ | PROT_EXEC) == 0 && munmap(m, 4096) == 0;\n"
	"}\n"
	"void k(int64_t *o) {\n"
	"  struct rlimit l; struct timespec ts = {0, 1000}; cpu_set_t cs; int n, p[2]; char c;\n"
	"  void *m;\n"
	"  o[0] = ctor_open;\n"
	"  o[1] = kill(getpid(), 0) == 0 && syscall(SYS_tgkill, (long)getpid(), (long)gettid(), 0L) == 0;\n"
	"  o[2] = getrlimit(RLIMIT_NOFILE, &l) == 0 && l.rlim_cur == 64;\n"
	"  o[3] = prctl(PR_GET_NO_NEW_PRIVS, 0L, 0L, 0L, 0L);\n"
	"  o[4] = write(1, \"\", 0) == 0;\n"
	"  errno = 0; n = getpriority(PRIO_PROCESS, 0); if (n < 5) n = 5;\n"
	"  o[5] = errno == 0 && setpriority(PRIO_PROCESS, 0, n) == 0 && getpriority(PRIO_PROCESS, 0) == n;\n"
	"  m = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);\n"
	"  o[6] = ctor_exec && m != MAP_FAILED && mprotect(m, 4096, PROT_READ) == 0 && munmap(m, 4096) == 0;\n"
	"  o[7] = pipe2(p, O_CLOEXEC) == 0 && fcntl(p[0], F_SETFL, O_NONBLOCK) == 0 &&\n"
	"         ioctl(p[0], FIONREAD, &n) == 0 && n == 0;\n"
	"  o[8] = sched_getaffinity(0, sizeof(cs), &cs) == 0 && prctl(PR_SET_NAME, \"probe\", 0L, 0L, 0L) == 0;\n"
	"  o[9] = nanosleep(&ts, 0) == 0 && getrandom(&c, 1, 0) == 1;\n"
	"  o[15] = 1;\n"
	"}\n";

/* pthread_create on the CPU track: clone3 gets ENOSYS, glibc falls back to
 * clone, and that kills the worker before any thread exists.  o[] lives in
 * the judge's arena, so it shows how far the probe got. */
static const char src_thread[] = PROBE_HEAD
	"static void *thr(void *p) { *(volatile int64_t *)p = 42; return p; }\n"
	"void k(int64_t *o) {\n"
	"  pthread_t t;\n"
	"  o[0] = 1;\n"
	"  o[2] = pthread_create(&t, 0, thr, &o[1]);\n"
	"  if (o[2] == 0) pthread_join(t, 0);\n"
	"  o[15] = 1;\n"
	"}\n";

/* raise() goes through tgkill to this process: allowed, so it dies of it. */
static const char src_raise[] = PROBE_HEAD "void k(int64_t *o) { (void)o; raise(SIGKILL); }\n";

static int build_lib(const char *name, const char *src)
{
	return kjt_build_so(dir, name, src, "-lpthread");
}

static int build_probe(const char *name, const char *body, const char *ctor)
{
	char src[4096];
	snprintf(src, sizeof(src),
		 "%s%s%s%s"
		 "void k(int64_t *o) { %s o[15] = 1; }\n",
		 PROBE_HEAD, ctor ? "__attribute__((constructor)) static void init(void) { " : "",
		 ctor ? ctor : "", ctor ? " }\n" : "", body);
	return build_lib(name, src);
}

static const char *lib(const char *name)
{
	return kjt_so_path(dir, name);
}

/* Starts a worker in the scratch folder, loads name.so and maps a 128-byte
 * arena.  Returns 1 when the load exchange happened (ld says how it went). */
static int start_load(struct kj_worker *w, const char *name, struct kj_call_result *ld)
{
	struct kj_worker_opts o;
	struct kj_err err;

	memset(&o, 0, sizeof(o));
	o.worker_path = worker_path;
	o.scratch_dir = scratch;
	kj_err_init(&err);
	if (kj_worker_start(w, &o, &err) != 0) {
		printf("# %s: worker did not start: %s\n", name, err.msg);
		return 0;
	}
	if (kj_worker_load(w, lib(name), "k", 1, 0, 30, ld, &err) != 0) {
		printf("# %s: load failed in the judge: %s\n", name, err.msg);
		kj_worker_stop(w);
		return 0;
	}
	if (ld->status == KJ_CALL_OK && kj_worker_arena(w, 128, &err) != 0) {
		printf("# %s: arena failed: %s\n", name, err.msg);
		kj_worker_stop(w);
		return 0;
	}
	if (w->arena)
		memset(w->arena, 0, 128);
	return 1;
}

/* Loads and calls name.so once; res gets the call's (or the load's) result. */
static int run_probe(const char *name, struct kj_call_result *res, int64_t out[16],
		     struct kj_worker *w)
{
	struct kj_call_result ld;
	struct kj_err err;
	uint64_t off = 0;

	kj_err_init(&err);
	if (!start_load(w, name, &ld))
		return 0;
	if (ld.status != KJ_CALL_OK) {
		*res = ld;
		return 1;
	}
	if (kj_worker_call(w, &off, 1, NULL, 0, 30, res, &err) != 0) {
		printf("# %s: call failed in the judge: %s\n", name, err.msg);
		return 0;
	}
	if (w->arena)
		memcpy(out, w->arena, 16 * sizeof(int64_t));
	return 1;
}

int main(void)
{
	const char *b = getenv("KJ_BUILD");
	struct kj_worker w;
	struct kj_call_result res;
	int64_t o[16];
	char path[600];
	FILE *f;
	size_t i;

	snprintf(worker_path, sizeof(worker_path), "%s/kjudge-worker", b && *b ? b : "build");
	snprintf(dir, sizeof(dir), "/tmp/kjudge-test-sandbox-XXXXXX");
	if (!mkdtemp(dir)) {
		ok(0, "cannot make a temporary directory: %s", strerror(errno));
		return done_testing();
	}
	snprintf(scratch, sizeof(scratch), "%s/scratch", dir);
	if (!ok(access(worker_path, X_OK) == 0, "worker executable %s exists", worker_path))
		return done_testing();
	/* a file the probes try to open for writing, truncate or delete */
	mkdir(scratch, 0700);
	snprintf(path, sizeof(path), "%s/existing", scratch);
	f = fopen(path, "w");
	if (f) {
		fputs("judge data\n", f);
		fclose(f);
	}

	ok(build_lib("allowed", src_allowed) == 0, "allowed probe builds");
	memset(o, 0, sizeof(o));
	if (run_probe("allowed", &res, o, &w)) {
		is_int(res.status, KJ_CALL_OK, "allowed: the call returns (%s)", res.msg);
		is_int(o[0], 1, "allowed: a read-only open and read work (at load)");
		is_int(o[1], 1, "allowed: kill and tgkill to itself work");
		is_int(o[2], 1, "allowed: getrlimit (prlimit64 on itself) works");
		is_int(o[3], 1, "allowed: prctl(PR_GET_NO_NEW_PRIVS) works and is set");
		is_int(o[4], 1, "allowed: write to stdout works");
		is_int(o[5], 1, "allowed: setpriority(PRIO_PROCESS, 0, 5 or more) works");
		is_int(o[6], 1, "allowed: mmap, mprotect and munmap work (PROT_EXEC at load)");
		is_int(o[7], 1, "allowed: pipe2, fcntl(F_SETFL, O_NONBLOCK) and ioctl(FIONREAD) work");
		is_int(o[8], 1, "allowed: sched_getaffinity(0) and prctl(PR_SET_NAME) work");
		is_int(o[9], 1, "allowed: nanosleep and getrandom work");
		is_int(o[15], 1, "allowed: the probe ran to its end");
		kj_worker_stop(&w);
	}

	for (i = 0; i < sizeof(deadly) / sizeof(deadly[0]); i++) {
		const struct deadly *d = &deadly[i];
		if (!ok(build_probe(d->name, d->body, d->ctor) == 0, "%s: probe builds", d->name))
			continue;
		memset(o, 0, sizeof(o));
		if (!ok(run_probe(d->name, &res, o, &w), "%s: the exchange happens", d->name))
			continue;
		is_int(res.status, KJ_CALL_SIGNALED, "%s: the worker is killed (%s)", d->name, res.msg);
		is_int(res.signo, SIGSYS, "%s: by SIGSYS", d->name);
		like(res.msg, "bad system call (SIGSYS)", "%s: the message names SIGSYS", d->name);
		kj_worker_stop(&w);
	}

	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		const struct refused *r = &refused[i];
		if (!ok(build_probe(r->name, r->body, NULL) == 0, "%s: probe builds", r->name))
			continue;
		memset(o, 0, sizeof(o));
		if (!ok(run_probe(r->name, &res, o, &w), "%s: the exchange happens", r->name))
			continue;
		is_int(res.status, KJ_CALL_OK, "%s: the call returns (%s)", r->name, res.msg);
		is_int(o[0], -1, "%s: the system call fails", r->name);
		is_int(o[1], r->want_errno, "%s: with errno %d", r->name, (int)r->want_errno);
		is_int(o[15], 1, "%s: the probe ran to its end", r->name);
		kj_worker_stop(&w);
	}

	snprintf(path, sizeof(path), "%s/made-by-candidate", scratch);
	ok(access(path, F_OK) != 0, "no file was created in the scratch folder");
	snprintf(path, sizeof(path), "%s/newdir", scratch);
	ok(access(path, F_OK) != 0, "no folder was created in the scratch folder");
	snprintf(path, sizeof(path), "%s/existing", scratch);
	f = fopen(path, "r");
	{
		static char line[64];
		const char *got = line;
		if (f) {
			if (!fgets(line, sizeof(line), f))
				line[0] = '\0';
			fclose(f);
		}
		is_str(got, "judge data\n", "the existing file is neither truncated nor deleted");
	}

	ok(build_lib("thread", src_thread) == 0, "thread probe builds");
	memset(o, 0, sizeof(o));
	if (run_probe("thread", &res, o, &w)) {
		is_int(res.status, KJ_CALL_SIGNALED, "pthread_create: the worker is killed (%s)", res.msg);
		is_int(res.signo, SIGSYS, "pthread_create: by SIGSYS");
		is_int(o[0], 1, "pthread_create: the probe was running");
		ok(o[1] != 42, "pthread_create: the thread never ran");
		is_int(o[15], 0, "pthread_create: the probe did not go on");
		kj_worker_stop(&w);
	}

	ok(build_lib("raise", src_raise) == 0, "raise probe builds");
	memset(o, 0, sizeof(o));
	if (run_probe("raise", &res, o, &w)) {
		is_int(res.status, KJ_CALL_SIGNALED, "raise(SIGKILL): the worker dies (%s)", res.msg);
		is_int(res.signo, SIGKILL, "raise(SIGKILL): of SIGKILL (signals to itself pass)");
		kj_worker_stop(&w);
	}

	/* after all of that, a fresh worker still works */
	memset(o, 0, sizeof(o));
	if (run_probe("allowed", &res, o, &w)) {
		is_int(res.status, KJ_CALL_OK, "a fresh worker works afterwards");
		is_int(o[0], 1, "a fresh worker opens files afterwards");
		kj_worker_stop(&w);
	}
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	if (system(path) != 0)
		printf("# could not remove %s\n", dir);
	return done_testing();
}
