/*
 * The Python worker's seccomp filter (include/kjudge/python.h): a denylist,
 * built here with libseccomp and handed to the worker as raw BPF, which the
 * worker installs on all its threads at the end of its trusted SETUP, before
 * any code of the candidate exists in it.  And the judge's own check that
 * it is on.
 *
 * A denylist, where the C worker's filter (src/worker/filter.c) is an
 * allowlist: the C worker runs a shared object and the CUDA runtime, whose
 * system calls were surveyed; the Python worker runs CPython, torch, cupy,
 * Triton and whatever torch operators and libraries a candidate calls, whose
 * needs nobody has surveyed on the GPU and which change with every release.
 * An allowlist that misses one call breaks honest candidates at random; a
 * denylist of what no timed call needs (new processes and programs, network
 * sockets, other processes' memory, namespaces, mounts, kernel interfaces
 * that widen the attack surface: bpf, perf events, keyrings, io_uring,
 * userfaultfd) cannot.  What it lets through is what the jail already
 * confines: files (read-only binds but scratch, /tmp and the candidate's own
 * build cache), signals (its own PID namespace), the GPU.
 *
 * Refusals are EPERM, not a kill: Python turns them into a PermissionError
 * at the candidate's line, and the worker names the blocked action (its
 * audit hook).  clone3 answers ENOSYS, so that glibc falls back to clone,
 * where the flags can be read (a BPF filter cannot read clone3's struct).
 * A system call of another ABI (int 0x80, x32) kills the process: the
 * denylist speaks only of the native one.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "kjudge/err.h"
#include "kjudge/python.h"

/* Refused with EPERM whatever the arguments: programs, processes (fork and
 * vfork; clone below), other processes' memory, namespaces and mounts, and
 * kernel interfaces a timed call has no use for.  Names, not SCMP_SYS(), so
 * that a call this libseccomp or architecture lacks is skipped at run time
 * rather than breaking the build. */
static const char *const py_deny[] = {
	"execve", "execveat", "fork", "vfork",
	"ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp",
	"mount", "umount2", "pivot_root", "chroot", "unshare", "setns",
	"move_mount", "open_tree", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
	"bpf", "perf_event_open", "keyctl", "add_key", "request_key",
	"io_uring_setup", "io_uring_enter", "io_uring_register", "userfaultfd",
	"kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
	"open_by_handle_at", "name_to_handle_at", "acct", "swapon", "swapoff", "reboot",
	"quotactl", "settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
	"sethostname", "setdomainname", "syslog", "iopl", "ioperm",
};

/* Adds one rule for the system call called name; one this architecture or
 * libseccomp does not know is skipped.  Returns 0 or a negative errno. */
static int deny(scmp_filter_ctx ctx, uint32_t act, const char *name, unsigned n, const struct scmp_arg_cmp *c)
{
	int nr = seccomp_syscall_resolve_name(name);
	if (nr == __NR_SCMP_ERROR || nr < 0)
		return 0;
	return seccomp_rule_add_array(ctx, act, nr, n, c);
}

/* The filter, or NULL with err set. */
static scmp_filter_ctx build(struct kj_err *err)
{
	const uint32_t eperm = SCMP_ACT_ERRNO(EPERM);
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	struct scmp_arg_cmp c;
	int rc;
	size_t i;
	if (!ctx) {
		kj_err_set(err, KJ_E_INTERNAL, "cannot set up the Python worker's seccomp filter");
		return NULL;
	}
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	for (i = 0; !rc && i < sizeof(py_deny) / sizeof(py_deny[0]); i++)
		rc = deny(ctx, eperm, py_deny[i], 0, NULL);
	/* clone: threads (CLONE_THREAD set) only; a new process is refused */
	memset(&c, 0, sizeof(c));
	c.arg = 0;
	c.op = SCMP_CMP_MASKED_EQ;
	c.datum_a = CLONE_THREAD;
	c.datum_b = 0;
	if (!rc)
		rc = deny(ctx, eperm, "clone", 1, &c);
	if (!rc)
		rc = deny(ctx, SCMP_ACT_ERRNO(ENOSYS), "clone3", 0, NULL);
	/* sockets: AF_UNIX only (no network, no netlink, no raw packets).  A
	 * forged high half of the domain is refused too: it is no AF_UNIX. */
	memset(&c, 0, sizeof(c));
	c.arg = 0;
	c.op = SCMP_CMP_NE;
	c.datum_a = AF_UNIX;
	if (!rc)
		rc = deny(ctx, eperm, "socket", 1, &c);
	if (!rc)
		rc = deny(ctx, eperm, "socketpair", 1, &c);
	if (rc) {
		seccomp_release(ctx);
		kj_err_set(err, KJ_E_INTERNAL, "cannot build the Python worker's seccomp filter: %s", strerror(-rc));
		return NULL;
	}
	return ctx;
}

int kj_py_filter_export(int fd, struct kj_err *err)
{
	scmp_filter_ctx ctx = build(err);
	int rc;
	if (!ctx)
		return KJ_E_INTERNAL;
	rc = seccomp_export_bpf(ctx, fd);
	seccomp_release(ctx);
	if (rc)
		return kj_err_set(err, KJ_E_IO, "cannot write the Python worker's seccomp filter: %s", strerror(-rc));
	return 0;
}

/* "Seccomp:\t2" in one status file: 1 when filtered, 0 when not, -1 when
 * the file cannot be read (the thread has just ended). */
static int status_filtered(const char *path, int *mode)
{
	char line[256];
	FILE *f = fopen(path, "r");
	*mode = -1;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Seccomp:", 8)) {
			*mode = atoi(line + 8);
			break;
		}
	fclose(f);
	return *mode == 2 ? 1 : 0;
}

int kj_py_filter_on(pid_t pid, char *why, size_t len)
{
	char path[128];
	struct dirent *e;
	int mode, rc, threads = 0;
	DIR *d;
	/* every thread: a filter installed without TSYNC would leave the CUDA
	 * driver's and torch's threads without it */
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	if (!(d = opendir(path))) {
		snprintf(why, len, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.20s/status", (int)pid, e->d_name);
		rc = status_filtered(path, &mode);
		if (rc < 0)
			continue; /* a thread that has just ended */
		threads++;
		if (rc == 0) {
			snprintf(why, len, "thread %s of process %d has Seccomp: %d in its status, not 2 (a filter)",
				 e->d_name, (int)pid, mode);
			closedir(d);
			return 0;
		}
	}
	closedir(d);
	if (threads == 0) {
		snprintf(why, len, "process %d has no thread to read", (int)pid);
		return -1;
	}
	return 1;
}
