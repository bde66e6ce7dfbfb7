/*
 * The jail: where every process that runs or builds candidate code lives
 * (kjudge-worker on both tracks, the Python worker and whatever it starts,
 * cc and nvcc).  It is bubblewrap (Debian's package `bubblewrap`; `bwrap` on
 * PATH, or $KJ_BWRAP) with new user, PID, mount, IPC, network, UTS and
 * cgroup namespaces, no nested user namespaces, and death with its parent.
 * The mount namespace holds, read-only, /usr (with the /bin, /lib...
 * symlinks or folders of the host), /etc/ld.so.cache and /etc/alternatives
 * (the loader's cache and the toolkit's symlinks), a private /dev (plus the
 * NVIDIA device files when asked), a /proc of its own PID namespace, a small
 * /tmp, the folders on $LD_LIBRARY_PATH when asked, the caller's extra paths
 * (staged as hard links or copies under a folder the judge owns, so a judge
 * running as root can bind them for an unprivileged uid), and one folder
 * read-write: the scratch folder, at KJ_JAIL_SCRATCH, the working directory.
 * Nothing else: no store, no cache, no home, no /sys, no other candidate's
 * files, no /proc of the judge.  A judge running as root starts the jail as
 * uid/gid 65534 (nobody), so the sandbox is an unprivileged uid outside its
 * namespace too ($KJ_SANDBOX_UID=keep keeps the judge's uid).
 *
 * Unconfined (the caller's explicit choice: --unsafe-no-sandbox, or profiling
 * with KJUDGE_PROFILE=1) runs the command itself, in the scratch folder.
 *
 * Ownership: kj_jail_prepare() allocates the argv and opens descriptors in
 * the parent; kj_jail_child_*() run in the child between fork and exec and
 * are async-signal-safe; kj_jail_release() frees in the parent.
 */
#ifndef KJUDGE_JAIL_H
#define KJUDGE_JAIL_H

#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "kjudge/err.h"

#define KJ_JAIL_SCRATCH "/scratch"
#define KJ_JAIL_STAGE "/kj"          /* where staged extra files appear */
/* where a Python candidate's build caches appear, in its build step and in
 * its worker alike: Triton's cache records its files by absolute path */
#define KJ_JAIL_BUILD "/kjbuild"
#define KJ_JAIL_MAX_PATHS 24
#define KJ_JAIL_UID 65534            /* the uid a root judge drops to */

struct kj_jail_path {
	const char *host;  /* a host file or folder */
	const char *inner; /* where it appears: NULL for the same path (folders), an
			    * absolute path (folders: bound there), or a name under
			    * KJ_JAIL_STAGE for a staged file ("cand.so") */
	int rw;            /* folders only: read-write (the Python build cache) */
};

struct kj_jail {
	int unconfined;    /* no namespaces at all */
	const char *scratch; /* host folder, read-write at KJ_JAIL_SCRATCH and the cwd; made by
			      * the caller, handed to the sandbox's uid here */
	struct kj_jail_path paths[KJ_JAIL_MAX_PATHS];
	int npaths;
	int gpu;           /* the NVIDIA device files */
	int library_path;  /* every absolute folder on $LD_LIBRARY_PATH, read-only */
	int info;          /* report the sandbox's pid 1 on a pipe (kj_jail_exec.info_r) */
	size_t tmp_bytes;  /* size of the private /tmp, 0 = 256 MiB */
	int no_proc;       /* no /proc at all (compilers: an #include of /proc/self/... fails) */
};

struct kj_jail_exec {
	const char *path;    /* what execve runs: bwrap, or the command itself */
	char **argv;         /* NULL-terminated, owned */
	int nfd;             /* descriptors that must be open at exec */
	int fd_src[KJ_JAIL_MAX_PATHS + 8]; /* the parent's (O_PATH or pipe, close-on-exec) */
	int fd_dst[KJ_JAIL_MAX_PATHS + 8]; /* their numbers at exec: first_fd, first_fd + 1... */
	int first_fd;
	int info_r;          /* read end of the --info-fd pipe, or -1 */
	int drop;            /* setresuid/setresgid to uid/gid before exec */
	uid_t uid;
	gid_t gid;
	int unconfined;
	char stage[4096];    /* the staging folder of this jail ("" when none) */
	char *mem;           /* strings behind argv */
};

/* Whether untrusted code can be confined here: 0, or KJ_E_UNSUPPORTED with
 * a message that names what is missing (bwrap, user namespaces) and what to
 * do.  Tries bwrap once per process and remembers the answer. */
int kj_jail_available(struct kj_err *err);

/* "bubblewrap 0.8.0 as uid 65534" (or "unavailable"): for logs and --version. */
const char *kj_jail_describe(void);

/* Prepares the exec of cmd (a NULL-terminated argv whose [0] is the program:
 * an absolute path, or a name under KJ_JAIL_STAGE when staged) in the jail.
 * The child's own descriptors are 0 .. first_fd - 1; the jail's land from
 * first_fd up.  Creates the staging folder beside the scratch folder, hands
 * the scratch folder to the sandbox's uid, opens what must be passed.
 * Returns 0, or an error with err set (bwrap missing: KJ_E_UNSUPPORTED). */
int kj_jail_prepare(struct kj_jail_exec *x, const struct kj_jail *j, const char *const *cmd,
		    int first_fd, struct kj_err *err);

/* In the child, first of all: lifts the jail's descriptors out of the way
 * of the caller's dup2s (to 100 and up).  Returns 0 or -1 (errno). */
int kj_jail_child_lift(struct kj_jail_exec *x);
/* In the child, after the caller's own descriptors are in place: moves the
 * jail's to first_fd.. and closes every descriptor above them but the
 * `keep` right after them (the caller's close-on-exec error pipe, say, put
 * at first_fd + nfd before this call).  0 or -1. */
int kj_jail_child_place(struct kj_jail_exec *x, int keep);
/* In the child, last before exec, after the caller's other limits: an
 * empty capability bounding set (unless bwrap must keep the judge's root
 * to map the sandbox's uid: a jail that does not drop it, under a root
 * judge; bwrap gives the sandbox none), no ambient capabilities, the uid
 * drop, then *nproc as RLIMIT_NPROC (when nproc is given and the uid was
 * dropped: only then is the count the sandbox's alone) and no new
 * privileges.  0 or -1 (errno). */
int kj_jail_child_drop(const struct kj_jail_exec *x, const struct rlimit *nproc);

/* In the parent after fork: closes the child's ends. */
void kj_jail_parent_after_fork(struct kj_jail_exec *x);

/* Reads the sandbox's pid 1 (as the judge sees it) from the --info-fd pipe,
 * waiting up to timeout_s; then the host pid of its first child (the
 * command).  Returns the pid, or -1. */
pid_t kj_jail_command_pid(struct kj_jail_exec *x, double timeout_s);

/* Stages a host file after the jail started (the staging folder is bound
 * as a folder, so new entries show inside): inner gets the path the
 * sandbox sees it at (the host path itself when unconfined).  Returns 0 or
 * an error. */
int kj_jail_stage(struct kj_jail_exec *x, const char *host, const char *name, char *inner,
		  size_t len, struct kj_err *err);

/* Closes descriptors, removes the staging folder, frees. Safe twice. */
void kj_jail_release(struct kj_jail_exec *x);

/* bwrap passes the command's death by a signal on as exit status 128 + the
 * signal: the wait status as the command's own (a no-op when unconfined). */
int kj_jail_wait_status(const struct kj_jail_exec *x, int status);

#endif
