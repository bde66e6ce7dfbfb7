/*
 * The candidate's seccomp filter (see filter.h): an allowlist with EPERM as
 * its default, a list of calls that kill, and argument checks.
 *
 * The second line of defence behind the static symbol policy, for code that
 * reaches the kernel without the loader: inline `syscall` instructions, or
 * libc functions found by walking ELF tables in memory.  Installed once, at
 * the first LOAD, after the CUDA context exists (the driver opens its device
 * files and starts its threads then) and before dlopen (a candidate's
 * constructors run inside dlopen).  TSYNC puts every thread under it, the
 * CUDA runtime's included, since a host callback would run candidate code
 * there.  docs/worker-protocol.md ("Seccomp") lists the policy; it must
 * agree with the tables below.
 *
 * An allowlist rather than a deny-list: a system call that a new kernel
 * adds, or that the old list forgot (io_submit writing to the protocol
 * socket, timers whose signals run candidate code between calls), is refused
 * until someone decides otherwise.  EPERM rather than a kill for what is
 * merely not listed, since libraries probe for features and cope with a
 * refusal; a kill where no honest kernel or runtime has a reason to make the
 * call while a candidate runs, so that the verdict names the attempt.
 *
 * Every argument comparison looks at the low 32 bits only, through a mask:
 * the kernel reads only those of an int argument (fd 0x100000003 is fd 3),
 * so a test on all 64 would let a forged high half through.  libseccomp
 * takes one comparison per argument in a rule and leaves the outcome of
 * rules that overlap with different actions unspecified, so the rules of one
 * system call never overlap: "anything but these values" is spelled as the
 * exact complement (sc_allow_except).
 */
#include "worker/filter.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sockios.h>
#include <sched.h>
#include <seccomp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include "sandbox/wire.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))
#define LOW32 0xffffffffu

#ifndef PR_SET_VMA
#define PR_SET_VMA 0x53564d41
#endif
/* The kernel's __O_TMPFILE bit alone: glibc's __O_TMPFILE also holds
 * O_DIRECTORY, which a read-only opendir() sets. */
#define KJW_O_TMPFILE_BIT 020000000

/* Never needed while a candidate runs: the process dies by SIGSYS.  clone is
 * handled apart (threads are allowed on the CUDA track). */
static const int sc_kill[] = {
	SCMP_SYS(fork), SCMP_SYS(vfork), SCMP_SYS(execve), SCMP_SYS(execveat),
	SCMP_SYS(ptrace), SCMP_SYS(process_vm_readv), SCMP_SYS(process_vm_writev),
	SCMP_SYS(mount), SCMP_SYS(umount2), SCMP_SYS(pivot_root), SCMP_SYS(chroot),
	SCMP_SYS(unshare), SCMP_SYS(setns), SCMP_SYS(setuid), SCMP_SYS(setgid),
	SCMP_SYS(setreuid), SCMP_SYS(setregid), SCMP_SYS(setresuid), SCMP_SYS(setresgid),
	SCMP_SYS(setfsuid), SCMP_SYS(setfsgid), SCMP_SYS(setgroups), SCMP_SYS(kexec_load),
	SCMP_SYS(kexec_file_load), SCMP_SYS(init_module), SCMP_SYS(finit_module),
	SCMP_SYS(delete_module), SCMP_SYS(bpf), SCMP_SYS(io_uring_setup),
	SCMP_SYS(io_uring_enter), SCMP_SYS(io_uring_register), SCMP_SYS(open_by_handle_at),
	SCMP_SYS(name_to_handle_at), SCMP_SYS(kcmp), SCMP_SYS(pidfd_getfd),
	SCMP_SYS(userfaultfd), SCMP_SYS(acct), SCMP_SYS(swapon), SCMP_SYS(swapoff),
	SCMP_SYS(reboot), SCMP_SYS(quotactl),
};

/* The ordinary life of a compute kernel, glibc, libffi and the worker
 * itself, on both tracks, whatever the arguments: reads and read-only
 * metadata, memory, futexes and signals within the process, identity and
 * clocks, waiting on its own descriptors. */
static const int sc_allow[] = {
	/* descriptors it already has, files by name read-only (opens below) */
	SCMP_SYS(read), SCMP_SYS(readv), SCMP_SYS(pread64), SCMP_SYS(preadv),
	SCMP_SYS(preadv2), SCMP_SYS(close), SCMP_SYS(close_range), SCMP_SYS(fstat),
	SCMP_SYS(newfstatat), SCMP_SYS(stat), SCMP_SYS(lstat), SCMP_SYS(statx),
	SCMP_SYS(statfs), SCMP_SYS(fstatfs), SCMP_SYS(lseek), SCMP_SYS(getdents64),
	SCMP_SYS(readlink), SCMP_SYS(readlinkat), SCMP_SYS(access), SCMP_SYS(faccessat),
	SCMP_SYS(faccessat2),
	/* memory: no PROT_EXEC rule, the CUDA JIT and libffi map code */
	SCMP_SYS(mmap), SCMP_SYS(munmap), SCMP_SYS(mremap), SCMP_SYS(mprotect),
	SCMP_SYS(madvise), SCMP_SYS(brk), SCMP_SYS(msync), SCMP_SYS(mincore),
	SCMP_SYS(mlock), SCMP_SYS(munlock),
	/* synchronisation and signals within the process (sending: below) */
	SCMP_SYS(futex),
#ifdef __SNR_futex_waitv
	SCMP_SYS(futex_waitv),
#endif
	SCMP_SYS(set_robust_list), SCMP_SYS(get_robust_list), SCMP_SYS(rseq),
	SCMP_SYS(membarrier), SCMP_SYS(rt_sigaction), SCMP_SYS(rt_sigprocmask),
	SCMP_SYS(rt_sigreturn), SCMP_SYS(sigaltstack), SCMP_SYS(rt_sigpending),
	SCMP_SYS(rt_sigsuspend), SCMP_SYS(rt_sigtimedwait),
	/* who and where it is */
	SCMP_SYS(getpid), SCMP_SYS(gettid), SCMP_SYS(getppid), SCMP_SYS(getuid),
	SCMP_SYS(geteuid), SCMP_SYS(getgid), SCMP_SYS(getegid), SCMP_SYS(getgroups),
	SCMP_SYS(getresuid), SCMP_SYS(getresgid), SCMP_SYS(getpgrp), SCMP_SYS(getpgid),
	SCMP_SYS(getsid), SCMP_SYS(uname), SCMP_SYS(getcwd), SCMP_SYS(getrlimit),
	SCMP_SYS(getcpu), SCMP_SYS(arch_prctl), SCMP_SYS(set_tid_address),
	/* by thread id, not 0: pthread_getattr_np asks it of the thread it
	 * describes and fails on a refusal (AddressSanitizer does so for every
	 * new thread); another process's CPU mask tells nothing worth hiding */
	SCMP_SYS(sched_getaffinity),
	/* clocks and sleeping; no timers (their signals would run candidate
	 * code outside the judged call) */
	SCMP_SYS(clock_gettime), SCMP_SYS(clock_getres), SCMP_SYS(clock_nanosleep),
	SCMP_SYS(gettimeofday), SCMP_SYS(time), SCMP_SYS(nanosleep), SCMP_SYS(sched_yield),
	SCMP_SYS(getrusage), SCMP_SYS(sysinfo), SCMP_SYS(times), SCMP_SYS(getrandom),
	/* the CUDA runtime asks these (SCHED_RR's range) when it makes a
	 * stream with a priority; they name no process */
	SCMP_SYS(sched_get_priority_max), SCMP_SYS(sched_get_priority_min),
	/* waiting on its own descriptors, and making more of its own */
	SCMP_SYS(poll), SCMP_SYS(ppoll), SCMP_SYS(select), SCMP_SYS(pselect6),
	SCMP_SYS(epoll_create1), SCMP_SYS(epoll_ctl), SCMP_SYS(epoll_wait),
	SCMP_SYS(epoll_pwait), SCMP_SYS(epoll_pwait2), SCMP_SYS(eventfd2), SCMP_SYS(pipe2),
	SCMP_SYS(dup), SCMP_SYS(dup2), SCMP_SYS(dup3),
	SCMP_SYS(exit), SCMP_SYS(exit_group), SCMP_SYS(restart_syscall),
};

/* The CUDA track adds what the driver does after its context exists: it
 * sizes and pins host memory of its own, and places it on NUMA nodes.
 * Nothing here reaches another process. */
static const int sc_allow_cuda[] = {
	SCMP_SYS(mlock2), SCMP_SYS(ftruncate), SCMP_SYS(fallocate),
	SCMP_SYS(get_mempolicy), SCMP_SYS(set_mempolicy), SCMP_SYS(mbind),
};

/* Signals to this process only (raise, abort, pthread_kill and the CUDA
 * runtime's own thread signals), never to the judge or anyone else: the
 * first argument is the worker's pid (tgid). */
static const int sc_self_pid[] = {
	SCMP_SYS(kill), SCMP_SYS(tkill), SCMP_SYS(tgkill), SCMP_SYS(rt_sigqueueinfo),
	SCMP_SYS(rt_tgsigqueueinfo),
};

/* Its own limits and scheduling only, named as pid 0 (as glibc's getrlimit,
 * setrlimit, nice and sched_* do): lowering the judge's limits would make
 * the judge fail, its priority would skew other candidates' times. */
static const int sc_pid_zero[] = {
	SCMP_SYS(prlimit64), SCMP_SYS(sched_setscheduler), SCMP_SYS(sched_setparam),
	SCMP_SYS(sched_setattr), SCMP_SYS(sched_setaffinity), SCMP_SYS(sched_getparam),
	SCMP_SYS(sched_getscheduler), SCMP_SYS(sched_getattr),
};

/* prctl options that read, or name a thread or a mapping.  The rest are
 * refused: PR_SET_PDEATHSIG ties the worker's life to the judge's,
 * PR_SET_DUMPABLE and PR_SET_PTRACER would open it to others, PR_SET_MM
 * rewrites what /proc says of it.  PR_SET_NO_NEW_PRIVS only ever sets a
 * flag the judge set at exec; libseccomp sets it before loading a filter. */
static const uint32_t sc_prctl_ok[] = {
	PR_SET_NAME, PR_GET_NAME, PR_GET_DUMPABLE, PR_SET_VMA, PR_GET_PDEATHSIG,
	PR_GET_SECCOMP, PR_CAPBSET_READ, PR_GET_NO_NEW_PRIVS, PR_GET_TIMERSLACK,
	PR_SET_NO_NEW_PRIVS,
};

/* seccomp operations: another filter (the worker stacks a stricter one on
 * the CPU track once the candidate is loaded) and libseccomp's queries.  A
 * filter can only narrow what the stack allows: the kernel runs every
 * filter and takes the strictest answer, so a candidate's own is harmless. */
static const uint32_t sc_seccomp_ok[] = {
	SECCOMP_SET_MODE_FILTER, SECCOMP_GET_ACTION_AVAIL, SECCOMP_GET_NOTIF_SIZES,
};

/* fd 3 is the protocol socket.  The worker itself sends (send is sendto)
 * and receives (recvmsg) on it; a candidate has no other socket, so these
 * are allowed there only.  write and friends are refused there so that a
 * forged reply cannot be written with them. */
static const int sc_fd3_only[] = {
	SCMP_SYS(sendto), SCMP_SYS(sendmsg), SCMP_SYS(recvfrom), SCMP_SYS(recvmsg),
};
static const int sc_not_fd3[] = {
	SCMP_SYS(write), SCMP_SYS(writev), SCMP_SYS(pwrite64),
};

/* fcntl commands on its own descriptors.  F_SETFL is allowed without
 * O_ASYNC only (below).  Record locks (F_SETLK, F_OFD_SETLK and their
 * waiting forms) are refused: a lock taken on a file the judge reads or
 * writes, its database among them, would stall the judge.  (The driver's
 * PTX JIT locks its cache index when one exists; refused, it goes on
 * without the cache, as seen on the H200.) */
static const uint32_t sc_fcntl_ok[] = {
	F_DUPFD, F_DUPFD_CLOEXEC, F_GETFD, F_SETFD, F_GETFL, F_GETLK, F_OFD_GETLK,
	F_GETOWN, F_GETOWN_EX, F_GETSIG, F_GETLEASE, F_GETPIPE_SZ, F_SETPIPE_SZ,
	F_GET_SEALS,
};
/* Commands that make the kernel signal a process of the caller's choosing
 * (the judge) when a descriptor changes. */
static const uint32_t sc_fcntl_kill[] = {
	F_SETOWN, F_SETOWN_EX, F_SETSIG, F_SETLEASE, F_NOTIFY,
};

/* ioctl requests that make the kernel signal another process or inject
 * input into a terminal: the fcntl ones above in ioctl form, TIOCSTI and
 * TIOCLINUX's selection paste (typing into the judge's terminal), a line
 * discipline (TIOCSETD), and taking over a terminal's foreground group or
 * the terminal itself (TIOCSPGRP, TIOCSCTTY), which stops the judge when
 * it runs in one.  Every other request is allowed: the driver's are many
 * and numbered by the driver. */
static const uint32_t sc_ioctl_kill[] = {
	FIOASYNC, FIOSETOWN, SIOCSPGRP, TIOCSTI, TIOCSETD, TIOCLINUX, TIOCSPGRP, TIOCSCTTY,
};

/* One comparison: (low 32 bits of argument arg) & mask == datum. */
static struct scmp_arg_cmp cmp32(unsigned arg, uint32_t mask, uint32_t datum)
{
	struct scmp_arg_cmp c;
	memset(&c, 0, sizeof(c));
	c.arg = arg;
	c.op = SCMP_CMP_MASKED_EQ;
	c.datum_a = mask;
	c.datum_b = datum;
	return c;
}

/* Adds one rule.  A system call this architecture does not have (a negative
 * pseudo number from libseccomp) is skipped, not an error.  Returns 0 or a
 * negative errno. */
static int sc_add(scmp_filter_ctx ctx, uint32_t act, int nr, unsigned n, const struct scmp_arg_cmp *c)
{
	if (nr < 0)
		return 0;
	return seccomp_rule_add_array(ctx, act, nr, n, c);
}

static int sc_add_all(scmp_filter_ctx ctx, uint32_t act, const int *nr, size_t n)
{
	int rc = 0;
	size_t i;
	for (i = 0; i < n && !rc; i++)
		rc = sc_add(ctx, act, nr[i], 0, NULL);
	return rc;
}

/* Allows nr when the low 32 bits of argument arg are none of vals[0..n).
 * Seen as a binary trie of the values' bits from the top, the complement is
 * the union of the branches that leave the trie: at each bit b, the values
 * sharing one prefix above b, with bit b the other way, as long as no value
 * lies there.  Each branch is one masked comparison; there are at most 32
 * per value, and they are disjoint from the values themselves, so rules for
 * those values (a kill) do not overlap them.  Returns 0 or a negative errno. */
static int sc_allow_except(scmp_filter_ctx ctx, int nr, unsigned arg, const uint32_t *vals, size_t n)
{
	struct scmp_arg_cmp c;
	int b, rc;
	size_t i, j;

	for (b = 31; b >= 0; b--) {
		uint32_t above = (uint32_t)(0xffffffffull << (b + 1)), bit = 1u << b;
		for (i = 0; i < n; i++) {
			uint32_t branch = (vals[i] & above) | (~vals[i] & bit);
			for (j = 0; j < n; j++)
				if ((vals[j] & (above | bit)) == branch)
					break;
			if (j < n)
				continue; /* a value lies there: deeper bits decide */
			for (j = 0; j < i; j++)
				if ((vals[j] & above) == (vals[i] & above))
					break;
			if (j < i)
				continue; /* the same branch, added for vals[j] */
			c = cmp32(arg, above | bit, branch);
			if ((rc = sc_add(ctx, SCMP_ACT_ALLOW, nr, 1, &c)))
				return rc;
		}
	}
	return 0;
}

/* Allows each of nr[0..n) when argument arg's low 32 bits equal datum. */
static int sc_allow_if(scmp_filter_ctx ctx, const int *nr, size_t n, unsigned arg, uint32_t datum)
{
	struct scmp_arg_cmp c = cmp32(arg, LOW32, datum);
	int rc = 0;
	size_t i;
	for (i = 0; i < n && !rc; i++)
		rc = sc_add(ctx, SCMP_ACT_ALLOW, nr[i], 1, &c);
	return rc;
}

/* Rules that look at arguments.  Returns 0 or a negative errno. */
static int sc_arg_rules(scmp_filter_ctx ctx, int cuda, uint32_t pid)
{
	const uint32_t allow = SCMP_ACT_ALLOW, die = SCMP_ACT_KILL_PROCESS;
	const uint32_t fd3 = KJ_WIRE_FD;
	/* Write-mode opens are refused: no new files, no changes to the
	 * judge's.  The CUDA driver opens /dev/nvidia* read-write when a call
	 * touches a new device, so O_RDWR stays allowed there; O_TMPFILE
	 * would make an unnamed new file with it. */
	const uint32_t wbits = O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | KJW_O_TMPFILE_BIT |
			       (cuda ? 0 : O_RDWR);
	struct scmp_arg_cmp c[2];
	int rc = 0;
	size_t i;

	c[0] = cmp32(1, wbits, 0);
	rc = sc_add(ctx, allow, SCMP_SYS(open), 1, c);
	if (!rc) {
		c[0] = cmp32(2, wbits, 0);
		rc = sc_add(ctx, allow, SCMP_SYS(openat), 1, c);
	}
	/* Flags hidden behind a pointer cannot be checked: ENOSYS sends glibc
	 * back to clone and openat, which can. */
	if (!rc)
		rc = sc_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0, NULL);
	if (!rc)
		rc = sc_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(openat2), 0, NULL);
	/* No process, ever.  Threads on the CUDA track only, where the runtime
	 * may start them; on the CPU track a thread could run candidate code
	 * outside the judged call, so pthread_create dies too (clone3's
	 * ENOSYS, then clone). */
	if (!rc && !cuda)
		rc = sc_add(ctx, die, SCMP_SYS(clone), 0, NULL);
	if (!rc && cuda) {
		c[0] = cmp32(0, CLONE_THREAD, 0);
		rc = sc_add(ctx, die, SCMP_SYS(clone), 1, c);
		c[0] = cmp32(0, CLONE_THREAD, CLONE_THREAD);
		if (!rc)
			rc = sc_add(ctx, allow, SCMP_SYS(clone), 1, c);
	}
	if (!rc)
		rc = sc_allow_if(ctx, sc_self_pid, N_OF(sc_self_pid), 0, pid);
	if (!rc)
		rc = sc_allow_if(ctx, sc_pid_zero, N_OF(sc_pid_zero), 0, 0);
	/* Priorities: who == 0 is the caller; setpriority also needs
	 * PRIO_PROCESS, since PRIO_USER with who 0 means every process of the
	 * user, the judge's included. */
	if (!rc) {
		c[0] = cmp32(1, LOW32, 0);
		rc = sc_add(ctx, allow, SCMP_SYS(getpriority), 1, c);
	}
	if (!rc) {
		c[0] = cmp32(0, LOW32, PRIO_PROCESS);
		c[1] = cmp32(1, LOW32, 0);
		rc = sc_add(ctx, allow, SCMP_SYS(setpriority), 2, c);
	}
	for (i = 0; i < N_OF(sc_prctl_ok) && !rc; i++) {
		c[0] = cmp32(0, LOW32, sc_prctl_ok[i]);
		rc = sc_add(ctx, allow, SCMP_SYS(prctl), 1, c);
	}
	for (i = 0; i < N_OF(sc_seccomp_ok) && !rc; i++) {
		c[0] = cmp32(0, LOW32, sc_seccomp_ok[i]);
		rc = sc_add(ctx, allow, SCMP_SYS(seccomp), 1, c);
	}
	if (!rc)
		rc = sc_allow_if(ctx, sc_fd3_only, N_OF(sc_fd3_only), 0, fd3);
	for (i = 0; i < N_OF(sc_not_fd3) && !rc; i++)
		rc = sc_allow_except(ctx, sc_not_fd3[i], 0, &fd3, 1);
	for (i = 0; i < N_OF(sc_fcntl_ok) && !rc; i++) {
		c[0] = cmp32(1, LOW32, sc_fcntl_ok[i]);
		rc = sc_add(ctx, allow, SCMP_SYS(fcntl), 1, c);
	}
	for (i = 0; i < N_OF(sc_fcntl_kill) && !rc; i++) {
		c[0] = cmp32(1, LOW32, sc_fcntl_kill[i]);
		rc = sc_add(ctx, die, SCMP_SYS(fcntl), 1, c);
	}
	/* O_ASYNC: SIGIO to the descriptor's owner on every change */
	if (!rc) {
		c[0] = cmp32(1, LOW32, F_SETFL);
		c[1] = cmp32(2, O_ASYNC, 0);
		rc = sc_add(ctx, allow, SCMP_SYS(fcntl), 2, c);
	}
	if (!rc) {
		c[1] = cmp32(2, O_ASYNC, O_ASYNC);
		rc = sc_add(ctx, die, SCMP_SYS(fcntl), 2, c);
	}
	for (i = 0; i < N_OF(sc_ioctl_kill) && !rc; i++) {
		c[0] = cmp32(1, LOW32, sc_ioctl_kill[i]);
		rc = sc_add(ctx, die, SCMP_SYS(ioctl), 1, c);
	}
	if (!rc)
		rc = sc_allow_except(ctx, SCMP_SYS(ioctl), 1, sc_ioctl_kill, N_OF(sc_ioctl_kill));
	return rc;
}

__attribute__((format(printf, 3, 4))) static void say(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;
	if (!why || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

int kjw_seccomp_install(int cuda, int survey, uint32_t self_pid, char *why, size_t len)
{
	scmp_filter_ctx ctx;
	int rc;

	ctx = seccomp_init(survey ? SCMP_ACT_LOG : SCMP_ACT_ERRNO(EPERM));
	if (!ctx) {
		say(why, len, "cannot set up the seccomp filter");
		return -1;
	}
	/* A system call of another ABI (int 0x80, x32) is not judged by the
	 * tables at all; libseccomp's default for it kills only the thread. */
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	if (!rc)
		rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
	if (!rc)
		rc = sc_add_all(ctx, SCMP_ACT_KILL_PROCESS, sc_kill, N_OF(sc_kill));
	if (!rc)
		rc = sc_add_all(ctx, SCMP_ACT_ALLOW, sc_allow, N_OF(sc_allow));
	if (!rc && cuda)
		rc = sc_add_all(ctx, SCMP_ACT_ALLOW, sc_allow_cuda, N_OF(sc_allow_cuda));
	if (!rc)
		rc = sc_arg_rules(ctx, cuda, self_pid);
	if (rc) {
		seccomp_release(ctx);
		say(why, len, "cannot build the seccomp filter: %s", strerror(-rc));
		return -1;
	}
	rc = seccomp_load(ctx);
	seccomp_release(ctx);
	if (rc) {
		say(why, len, "cannot install the seccomp filter: %s", strerror(-rc));
		return -1;
	}
	return 0;
}
