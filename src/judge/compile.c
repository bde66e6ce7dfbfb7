/*
 * Building candidates into a content-addressed cache: see
 * include/kjudge/compile.h.  The compiler runs without a shell (but for
 * the CUDA build's script of nvcc's own commands, below), in its own
 * process group, under a wall-clock limit, with its output capped; the
 * source it reads is untrusted, so a compiler that hangs or floods is the
 * candidate's failure, not the judge's.
 */
#include "kjudge/hash.h"
#include "kjudge/rlimit.h"
#include "kjudge/fsutil.h"
#include "kjudge/compile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <openssl/evp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kjudge/jail.h"
#include "kjudge/sandbox.h"
#include <sys/resource.h>
#include <sys/prctl.h>

#define DEF_TIMEOUT_S 60.0
#define DEF_CPU_S 120.0
#define DEF_MEM_CPU ((size_t)4 << 30)
#define DEF_MEM_CUDA ((size_t)8 << 30)
#define DEF_FSIZE ((size_t)256 << 20)
#define DEF_LOG_CAP ((size_t)16 << 10)
#define VERSION_TIMEOUT_S 30.0
#define KEY_TAG "kjudge-compile-v1"

#define PATHSZ 4096

/* snprintf into a PATHSZ buffer; -1 with ENAMETOOLONG when it does not fit. */
__attribute__((format(printf, 2, 3))) static int pathf(char *out, const char *fmt, ...)
{
	va_list ap;
	int n;
	va_start(ap, fmt);
	n = vsnprintf(out, PATHSZ, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= PATHSZ) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/*
 * A backend is a compiler and fixed flags.  The flags are part of the cache
 * key; the paths (-I, -o, input) are not, since the header is keyed by its
 * content and the rest are temporary.  The CUDA backend (nvcc, -arch from
 * opts->arch or the device, header kjudge_cuda.h, source cand.cu) is filled
 * in by toolchain_for() when it exists.
 */
#define MAX_FLAGS 16
struct toolchain {
	const char *cc;
	const char *src_name; /* what the source is written as */
	const char *header;   /* candidate header in include_dir, keyed by content */
	const char *flags[MAX_FLAGS]; /* before -I, -o and the input */
	const char *libs[4];          /* after the input */
	const char *method;           /* how the compiler is driven, when that has a
				       * choice (CUDA: two chains or one nvcc); keyed */
	char gencode[96];             /* storage for a flag built per call */
};

static int toolchain_for(const struct kj_compile_opts *o, struct toolchain *tc, struct kj_err *err)
{
	static const struct toolchain cpu = {
		.cc = "cc",
		.src_name = "cand.c",
		.header = "kjudge_cpu.h",
		.flags = {"-std=c11", "-O2", "-fPIC", "-shared", "-fvisibility=default"},
		.libs = {"-lm"},
	};
	/* nvcc with the shared CUDA runtime: the static one brings dlopen,
	 * pthread_create and clock_gettime into the object, which the symbol
	 * policy must be free to reject in candidates. */
	static const struct toolchain cuda = {
		.cc = "nvcc",
		.src_name = "cand.cu",
		.header = "kjudge_cuda.h",
		.flags = {"-O3", "-std=c++17", "-Xcompiler", "-fPIC", "-shared", "-cudart", "shared",
			  "-lineinfo", "-gencode", NULL /* arch, below */},
		/* a candidate that calls cuBLAS must still load, so that it is
		 * judged (and flagged as a fallback) rather than failing to link */
		.libs = {"-Xlinker", "--as-needed", "-lcublas", "-lcublasLt"},
	};
	const char *env;

	switch (o->backend) {
	case KJ_BACKEND_CPU:
		*tc = cpu;
		env = getenv("KJ_CC");
		if (env && *env)
			tc->cc = env;
		return 0;
	case KJ_BACKEND_CUDA: {
		const char *arch = o->arch && *o->arch ? o->arch : "sm_90a";
		int i = 0;
		if (strncmp(arch, "sm_", 3) || strlen(arch) > 16 || strspn(arch + 3, "0123456789af") != strlen(arch + 3))
			return kj_err_set(err, KJ_E_USAGE, "bad CUDA architecture '%s' (expected sm_NN or sm_NNa)", arch);
		*tc = cuda;
		snprintf(tc->gencode, sizeof(tc->gencode), "arch=compute_%s,code=%s", arch + 3, arch);
		while (tc->flags[i])
			i++;
		tc->flags[i] = tc->gencode;
		tc->method = o->one_nvcc ? "one nvcc call" : "nvcc's steps, the host and device chains at once";
		env = getenv("KJ_NVCC");
		if (env && *env)
			tc->cc = env;
		return 0;
	}
	case KJ_BACKEND_TRITON:
	case KJ_BACKEND_KERNELBENCH:
		break;
	}
	return kj_err_set(err, KJ_E_UNSUPPORTED, "the %s backend cannot compile in this build",
			  kj_backend_name(o->backend));
}

/* The outcome of one compiler run. */
struct run_result {
	int exec_errno;  /* exec failed with this errno; nothing ran */
	int timed_out;
	int status;      /* waitpid status */
	struct kj_capbuf out;
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void drain(int fd, struct kj_capbuf *b, int *eof)
{
	char chunk[8192];
	ssize_t n;
	for (;;) {
		n = read(fd, chunk, sizeof(chunk));
		if (n > 0) {
			kj_capbuf_add(b, chunk, (size_t)n);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
			*eof = 1;
		return;
	}
}

/* The limits of a candidate's compiler, per process of it. */
struct build_limits {
	struct rlimit as, cpu, fsize, core, nproc;
};

/* Runs argv (no shell) with stdout+stderr captured into r->out (cap bytes),
 * in its own process group, killed as a group after timeout_s: in the jail
 * (its scratch folder is the build folder) unless jl->unconfined (then in
 * cwd_unconfined, or here when NULL), with the given limits, the sandbox's
 * uid, no new privileges, and a fixed small environment with LC_ALL=C
 * (nothing of the judge's; messages in plain ASCII whatever its locale).
 * Returns 0 when the judge could run it (r says how it went) or an error. */
static int run_jailed(const struct kj_jail *jl, char *const argv[], const char *cwd_unconfined,
		      const struct build_limits *lim, double timeout_s, size_t cap, struct run_result *r,
		      struct kj_err *err)
{
	static char lc_all[] = "LC_ALL=C";
	char path_env[PATHSZ + 64], home_env[PATHSZ + 8], tmp_env[PATHSZ + 8];
	char *env[6];
	struct kj_jail_exec x;
	const char *cmd[MAX_FLAGS + 16];
	int out[2], ep[2], eof = 0, st, e, rc, n = 0;
	double deadline = now_s() + timeout_s, left;
	struct pollfd p;
	siginfo_t si;
	ssize_t nr;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	kj_capbuf_init(&r->out, cap);
	while (argv[n] && n < MAX_FLAGS + 15) {
		cmd[n] = argv[n];
		n++;
	}
	cmd[n] = NULL;
	if ((rc = kj_jail_prepare(&x, jl, cmd, 3, err)))
		return rc;
	{
		/* the compiler's own folder first, then the system's */
		const char *slash = strrchr(argv[0], '/');
		if (slash && slash != argv[0])
			snprintf(path_env, sizeof(path_env), "PATH=%.*s:/usr/local/bin:/usr/bin:/bin",
				 (int)(slash - argv[0]), argv[0]);
		else
			snprintf(path_env, sizeof(path_env), "PATH=/usr/local/bin:/usr/bin:/bin");
	}
	snprintf(home_env, sizeof(home_env), "HOME=%s",
		 !jl->unconfined ? KJ_JAIL_SCRATCH : cwd_unconfined ? cwd_unconfined : "/");
	snprintf(tmp_env, sizeof(tmp_env), "TMPDIR=%s",
		 !jl->unconfined ? KJ_JAIL_SCRATCH : cwd_unconfined ? cwd_unconfined : "/tmp");
	env[0] = lc_all;
	env[1] = path_env;
	env[2] = home_env;
	env[3] = tmp_env;
	env[4] = NULL;
	if (pipe2(out, O_CLOEXEC) < 0) {
		kj_jail_release(&x);
		return kj_err_sys(err, "cannot create a pipe for '%s'", argv[0]);
	}
	if (pipe2(ep, O_CLOEXEC) < 0) {
		kj_err_sys(err, "cannot create a pipe for '%s'", argv[0]);
		close(out[0]);
		close(out[1]);
		kj_jail_release(&x);
		return KJ_E_SYS;
	}
	pid = fork();
	if (pid < 0) {
		kj_err_sys(err, "cannot fork to run '%s'", argv[0]);
		close(out[0]);
		close(out[1]);
		close(ep[0]);
		close(ep[1]);
		kj_jail_release(&x);
		return KJ_E_SYS;
	}
	if (pid == 0) {
		int nul, o1, e1;
		if (kj_jail_child_lift(&x) < 0)
			_exit(127);
		o1 = fcntl(out[1], F_DUPFD_CLOEXEC, 100);
		e1 = fcntl(ep[1], F_DUPFD_CLOEXEC, 100);
		nul = open("/dev/null", O_RDONLY);
		setpgid(0, 0);
		if (o1 < 0 || e1 < 0 || nul < 0 || dup2(nul, 0) < 0 || dup2(o1, 1) < 0 || dup2(o1, 2) < 0)
			_exit(127);
		/* the error pipe right above the jail's descriptors, kept open
		 * (close-on-exec) when the jail closes the rest */
		if (dup2(e1, x.first_fd + x.nfd) < 0 || fcntl(x.first_fd + x.nfd, F_SETFD, FD_CLOEXEC) < 0)
			_exit(127);
		e1 = x.first_fd + x.nfd;
		if (kj_jail_child_place(&x, 1) < 0)
			_exit(127);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (setrlimit(RLIMIT_AS, &lim->as) < 0 || setrlimit(RLIMIT_CPU, &lim->cpu) < 0 ||
		    setrlimit(RLIMIT_FSIZE, &lim->fsize) < 0 || setrlimit(RLIMIT_CORE, &lim->core) < 0)
			_exit(127);
		if (x.unconfined && cwd_unconfined && chdir(cwd_unconfined) < 0)
			_exit(127);
		if (kj_jail_child_drop(&x, &lim->nproc) < 0)
			_exit(127);
		if (x.unconfined)
			execvpe(x.path, x.argv, env);
		else
			execve(x.path, x.argv, env);
		e = errno;
		nr = write(e1, &e, sizeof(e));
		(void)nr;
		_exit(127);
	}
	setpgid(pid, pid);
	kj_jail_parent_after_fork(&x);
	close(out[1]);
	close(ep[1]);
	do
		nr = read(ep[0], &e, sizeof(e));
	while (nr < 0 && errno == EINTR);
	close(ep[0]);
	if (nr == (ssize_t)sizeof(e))
		r->exec_errno = e;
	fcntl(out[0], F_SETFL, fcntl(out[0], F_GETFL) | O_NONBLOCK);
	for (;;) {
		memset(&si, 0, sizeof(si));
		if (eof && waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid)
			break;
		left = deadline - now_s();
		if (left <= 0) {
			r->timed_out = 1;
			break;
		}
		p.fd = out[0];
		p.events = POLLIN;
		p.revents = 0;
		if (eof) {
			poll(NULL, 0, left < 0.01 ? (int)(left * 1000) + 1 : 10);
			continue;
		}
		if (poll(&p, 1, (int)(left * 1000) + 1) > 0)
			drain(out[0], &r->out, &eof);
	}
	kill(-pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	r->status = kj_jail_wait_status(&x, st);
	drain(out[0], &r->out, &eof);
	close(out[0]);
	kj_jail_release(&x);
	return 0;
}

/* First line of `cc --version`, cached per process for the last compiler. */
static int compiler_id(const char *cc, char *out, size_t outsz, struct kj_err *err)
{
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	static char last_cc[4096], last_id[512];
	char *argv[3];
	struct run_result r;
	struct kj_jail jl;
	struct build_limits lim;
	size_t n;
	int rc = 0;

	pthread_mutex_lock(&mu);
	if (last_id[0] && strcmp(last_cc, cc) == 0) {
		snprintf(out, outsz, "%s", last_id);
		goto done;
	}
	argv[0] = (char *)cc;
	argv[1] = "--version";
	argv[2] = NULL;
	/* the judge's own question to its own compiler: no jail, no limits */
	memset(&jl, 0, sizeof(jl));
	jl.unconfined = 1;
	lim.as.rlim_cur = lim.as.rlim_max = RLIM_INFINITY;
	lim.cpu = lim.fsize = lim.nproc = lim.as;
	lim.core.rlim_cur = lim.core.rlim_max = 0;
	/* "none" is as much as the caller allows */
	kj_rlimit_fit(RLIMIT_AS, &lim.as, NULL, 0);
	kj_rlimit_fit(RLIMIT_CPU, &lim.cpu, NULL, 0);
	kj_rlimit_fit(RLIMIT_FSIZE, &lim.fsize, NULL, 0);
	kj_rlimit_fit(RLIMIT_NPROC, &lim.nproc, NULL, 0);
	if ((rc = run_jailed(&jl, argv, NULL, &lim, VERSION_TIMEOUT_S, 4096, &r, err)))
		goto done;
	if (r.exec_errno) {
		rc = kj_err_set(err, KJ_E_NOTFOUND, "cannot run compiler '%s': %s", cc,
				strerror(r.exec_errno));
	} else if (r.timed_out || !WIFEXITED(r.status) || WEXITSTATUS(r.status) != 0) {
		rc = kj_err_set(err, KJ_E_NOTFOUND, "compiler '%s --version' failed", cc);
	} else {
		/* the whole text: nvcc's first line never changes, its version is
		 * further down */
		n = strlen(r.out.buf);
		if (n >= sizeof(last_id))
			n = sizeof(last_id) - 1;
		memcpy(last_id, r.out.buf, n);
		last_id[n] = '\0';
		for (size_t i = 0; i < n; i++)
			if (last_id[i] == '\n')
				last_id[i] = ' ';
		snprintf(last_cc, sizeof(last_cc), "%s", cc);
		snprintf(out, outsz, "%s", last_id);
	}
	kj_capbuf_release(&r.out);
done:
	pthread_mutex_unlock(&mu);
	return rc;
}

/* Reads a whole file; returns 0 with *buf (NUL-terminated, caller frees). */
static int read_file(const char *path, char **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *b = NULL, *nb;
	size_t n = 0, cap = 0, got;

	if (!f)
		return -1;
	for (;;) {
		if (cap - n < 4096) {
			cap = cap ? cap * 2 : 8192;
			nb = realloc(b, cap + 1);
			if (!nb) {
				free(b);
				fclose(f);
				errno = ENOMEM;
				return -1;
			}
			b = nb;
		}
		got = fread(b + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		free(b);
		fclose(f);
		errno = EIO;
		return -1;
	}
	fclose(f);
	b[n] = '\0';
	*buf = b;
	if (len)
		*len = n;
	return 0;
}

/* Writes data to a temporary name beside path, then renames it into place. */
static int write_atomic(const char *path, const void *data, size_t len, struct kj_err *err)
{
	char tmp[PATHSZ];
	int fd = -1;
	size_t done = 0;
	ssize_t n;

	if (pathf(tmp, "%s.tmp-XXXXXX", path) == 0)
		fd = mkstemp(tmp);
	if (fd < 0)
		return kj_err_sys(err, "cannot create '%s'", tmp);
	while (done < len) {
		n = write(fd, (const char *)data + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			kj_err_sys(err, "cannot write '%s'", tmp);
			close(fd);
			unlink(tmp);
			return KJ_E_IO;
		}
		done += (size_t)n;
	}
	if (fchmod(fd, 0644) < 0 || close(fd) < 0) {
		kj_err_sys(err, "cannot finish '%s'", tmp);
		unlink(tmp);
		return KJ_E_IO;
	}
	if (rename(tmp, path) < 0) {
		kj_err_sys(err, "cannot rename '%s' to '%s'", tmp, path);
		unlink(tmp);
		return KJ_E_IO;
	}
	return 0;
}


int kj_cache_dir(const char *override, char *out, size_t n, struct kj_err *err)
{
	const char *e;
	if (override && *override)
		snprintf(out, n, "%s", override);
	else if ((e = getenv("KJUDGE_CACHE")) && *e)
		snprintf(out, n, "%s", e);
	else if ((e = getenv("XDG_CACHE_HOME")) && *e)
		snprintf(out, n, "%s/kjudge", e);
	else if ((e = getenv("HOME")) && *e)
		snprintf(out, n, "%s/.cache/kjudge", e);
	else
		return kj_err_set(err, KJ_E_USAGE, "no cache folder: set KJUDGE_CACHE or HOME");
	return 0;
}

static int cache_root(const struct kj_compile_opts *o, char *out, size_t n, struct kj_err *err)
{
	return kj_cache_dir(o->cache_dir, out, n, err);
}

/* Each part goes in as an 8-byte little-endian length and its bytes, so no
 * two different lists of parts hash alike. */
static void key_part(EVP_MD_CTX *c, const void *p, size_t n)
{
	unsigned char len[8];
	int i;
	for (i = 0; i < 8; i++)
		len[i] = (unsigned char)((uint64_t)n >> (8 * i));
	EVP_DigestUpdate(c, len, 8);
	EVP_DigestUpdate(c, p, n);
}

static int cache_key(const struct toolchain *tc, const char *backend, const char *compiler,
		     const char *header,
		     size_t hlen, const char *src, size_t slen, char out[65], struct kj_err *err)
{
	static const char hex[] = "0123456789abcdef";
	static const char tag[] = KEY_TAG;
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0, i;
	EVP_MD_CTX *c = EVP_MD_CTX_new();

	if (!c)
		return kj_err_set(err, KJ_E_NOMEM, "cannot hash the candidate");
	EVP_DigestInit_ex(c, EVP_sha256(), NULL);
	key_part(c, tag, sizeof(tag)); /* with its NUL */
	key_part(c, backend, strlen(backend));
	key_part(c, compiler, strlen(compiler));
	for (i = 0; i < MAX_FLAGS && tc->flags[i]; i++)
		key_part(c, tc->flags[i], strlen(tc->flags[i]));
	for (i = 0; i < 4 && tc->libs[i]; i++)
		key_part(c, tc->libs[i], strlen(tc->libs[i]));
	if (tc->method)
		key_part(c, tc->method, strlen(tc->method));
	key_part(c, header, hlen);
	key_part(c, src, slen);
	if (!EVP_DigestFinal_ex(c, md, &n) || n != 32) {
		EVP_MD_CTX_free(c);
		return kj_err_set(err, KJ_E_INTERNAL, "sha256 failed");
	}
	EVP_MD_CTX_free(c);
	for (i = 0; i < 32; i++) {
		out[2 * i] = hex[md[i] >> 4];
		out[2 * i + 1] = hex[md[i] & 15];
	}
	out[64] = '\0';
	return 0;
}

static int file_exists(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* The compiler as an absolute path, from the judge's own PATH (trusted),
 * so that the jail's small PATH need not know where it lives. */
static int resolve_compiler(const char *cc, char *out, size_t len)
{
	/* not resolved further: cc and nvcc behave by the name they are
	 * called by, and the alternatives' symlinks resolve in the jail too */
	if (strchr(cc, '/')) {
		if (cc[0] == '/')
			snprintf(out, len, "%s", cc);
		else if (!realpath(cc, out))
			return -1;
		return access(out, X_OK);
	}
	return kj_which(cc, out, len);
}

/* Why a compile that did not finish stopped, for the verdict's reason; ""
 * when it was an ordinary refusal of the source. */
static void limit_reason(const struct run_result *r, const struct build_limits *lim, double timeout,
			 char *out, size_t len)
{
	const char *log = r->out.buf ? r->out.buf : "";
	int sig = WIFSIGNALED(r->status) ? WTERMSIG(r->status) : 0;
	out[0] = '\0';
	if (r->timed_out)
		snprintf(out, len, "the compiler ran past its %g s wall-clock limit and was killed", timeout);
	else if (sig == SIGXCPU || (sig == SIGKILL && strstr(log, "CPU time limit")) ||
		 strstr(log, "CPU time limit exceeded"))
		snprintf(out, len, "the compiler used up its CPU-time limit (%llu s per process)",
			 (unsigned long long)lim->cpu.rlim_cur);
	else if (sig == SIGXFSZ || strstr(log, "File size limit exceeded"))
		snprintf(out, len, "the compiler's output passed the file-size limit (%llu MiB)",
			 (unsigned long long)(lim->fsize.rlim_cur >> 20));
	else if (strstr(log, "memory exhausted") || strstr(log, "out of memory") ||
		 strstr(log, "Cannot allocate memory") || strstr(log, "bad_alloc") ||
		 strstr(log, "Out of memory") || ((sig == SIGKILL || sig == SIGSEGV) && !strstr(log, "error:")))
		snprintf(out, len, "the compiler ran out of its memory limit (%llu MiB of address space "
			 "per process)", (unsigned long long)(lim->as.rlim_cur >> 20));
	else if (sig)
		snprintf(out, len, "the compiler was killed by signal %d (%s)", sig, strsignal(sig));
	else if (WIFEXITED(r->status) && WEXITSTATUS(r->status) > 128 && WEXITSTATUS(r->status) < 128 + 65 &&
		 !strstr(log, "error"))
		/* killed inside the jail: bubblewrap exits 128 + the signal */
		snprintf(out, len, "the compiler was killed by signal %d (%s)", WEXITSTATUS(r->status) - 128,
			 strsignal(WEXITSTATUS(r->status) - 128));
}

/* Removes the build folder's files (flat) and the folder. */
static void remove_build_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[PATHSZ + 300];
	if (d) {
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
				snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
				unlink(p);
			}
		closedir(d);
	}
	rmdir(dir);
}

/*
 * The two-chain CUDA build.  nvcc runs its steps one after the other, but
 * the host's front end (gcc -E for the host, then cudafe++) and the device's
 * chain (gcc -E for the device, cicc, ptxas, fatbinary) share no file but the
 * module id, which cudafe++ writes and cicc reads.  cicc computes the same
 * id itself (--gen_module_id_file: it names the source's path), so it writes
 * its own copy and the two are compared before the host compile, which needs
 * both chains (it includes the stub cicc wrote, which includes the
 * fatbinary).  The plan is `nvcc --dryrun --keep` (intermediate files named
 * after the source, in the build folder), run in the jail as the build is;
 * the build is one /bin/sh script of the plan's commands, in the same jail,
 * under the same limits and the same wall clock.  The device chain's output
 * is held back and printed after the host front end's, where nvcc prints it,
 * and not at all when the front end failed, since nvcc would have stopped
 * there.
 */
#define PLAN_CAP ((size_t)256 << 10)
#define SCRIPT_CAP ((size_t)256 << 10)
#define PLAN_MAX 64
#define SPLIT_SCRIPT "kjudge-nvcc.sh"
#define SPLIT_DEVLOG "kjudge-device.log"
#define SPLIT_IDS_DIFFER 97
#define SPLIT_IDS_MSG "kjudge: the host's and the device's module ids differ"

struct nvcc_plan {
	const char *env[PLAN_MAX];  /* NAME=value, which nvcc sets for its steps */
	const char *step[PLAN_MAX]; /* shell commands, in nvcc's order */
	int nenv, nstep;
};

/* Splits the text of `nvcc --dryrun` (cut into lines in place) into its
 * settings and its steps.  Returns 0, or -1 when a line is not one of
 * nvcc's "#$ " lines or there are more than PLAN_MAX of a kind. */
static int plan_parse(char *text, struct nvcc_plan *p)
{
	static const char name_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_0123456789";
	char *line = text, *nl;
	size_t name;

	memset(p, 0, sizeof(*p));
	for (; line; line = nl ? nl + 1 : NULL) {
		if ((nl = strchr(line, '\n')))
			*nl = '\0';
		if (!*line)
			continue;
		if (strncmp(line, "#$ ", 3))
			return -1;
		line += 3;
		name = strspn(line, name_chars);
		if (name && line[name] == '=' && !(line[0] >= '0' && line[0] <= '9')) {
			if (p->nenv == PLAN_MAX)
				return -1;
			p->env[p->nenv++] = line;
		} else {
			if (p->nstep == PLAN_MAX)
				return -1;
			p->step[p->nstep++] = line;
		}
	}
	return p->nstep ? 0 : -1;
}

/* The quoted value after `flag "` in s (flag NULL: the last quoted word of
 * s), into out (n bytes).  Returns 0, or -1 when there is none or it does
 * not fit. */
static int quoted_value(const char *s, const char *flag, char *out, size_t n)
{
	char pat[64];
	const char *a, *b;

	if (flag) {
		snprintf(pat, sizeof(pat), "%s \"", flag);
		if (!(a = strstr(s, pat)))
			return -1;
		a += strlen(pat);
		b = strchr(a, '"');
	} else {
		b = strrchr(s, '"');
		for (a = b; a && a > s && a[-1] != '"'; a--)
			;
		if (!b || !a || a == s)
			return -1;
	}
	if (!b || (size_t)(b - a) >= n)
		return -1;
	memcpy(out, a, (size_t)(b - a));
	out[b - a] = '\0';
	return 0;
}

/* The one step that contains pat: its index, or -1 when none or several. */
static int plan_find(const struct nvcc_plan *p, const char *pat)
{
	int i, at = -1;
	for (i = 0; i < p->nstep; i++)
		if (strstr(p->step[i], pat)) {
			if (at >= 0)
				return -1;
			at = i;
		}
	return at;
}

static int is_rm(const char *step)
{
	return strncmp(step, "rm ", 3) == 0;
}

static void add_str(struct kj_capbuf *b, const char *s)
{
	kj_capbuf_add(b, s, strlen(s));
}

/* s in single quotes, for sh. */
static void add_quoted(struct kj_capbuf *b, const char *s)
{
	const char *q;
	add_str(b, "'");
	for (; (q = strchr(s, '\'')); s = q + 1) {
		kj_capbuf_add(b, s, (size_t)(q - s));
		add_str(b, "'\\''");
	}
	add_str(b, s);
	add_str(b, "'");
}

/* The build script of nvcc's plan (text, cut up in place) for the source
 * src_name, into sh.  Returns 0, or -1 when the plan is not of the shape
 * described above (another nvcc): the caller then runs nvcc itself. */
static int split_script(char *text, const char *src_name, struct kj_capbuf *sh)
{
	struct nvcc_plan p;
	char in[256], gen[256], mid[256], pat[300], pat_in[300], mid_flag[300];
	const char *at;
	int hp, hf, cc = -1, hc = -1, i, ndev = 0;

	if (plan_parse(text, &p) < 0 || (hf = plan_find(&p, "cudafe++ ")) < 0 || strncmp(p.step[hf], "cudafe++ ", 9))
		return -1;
	for (i = 0; i < p.nstep; i++)
		if (strstr(p.step[i], "/cicc\" ") || strstr(p.step[i], "/cicc ") || !strncmp(p.step[i], "cicc ", 5)) {
			if (cc >= 0)
				return -1;
			cc = i;
		}
	/* cudafe++ reads the host's preprocessed source and writes the host
	 * code and the module id; cicc reads that id */
	if (cc < 0 || quoted_value(p.step[hf], NULL, in, sizeof(in)) ||
	    quoted_value(p.step[hf], "--gen_c_file_name", gen, sizeof(gen)) ||
	    quoted_value(p.step[hf], "--module_id_file_name", mid, sizeof(mid)) ||
	    !strstr(p.step[hf], "--gen_module_id_file "))
		return -1;
	snprintf(mid_flag, sizeof(mid_flag), "--module_id_file_name \"%s\"", mid);
	if (!(at = strstr(p.step[cc], mid_flag)) || strstr(p.step[cc], "--gen_module_id_file"))
		return -1;
	snprintf(pat, sizeof(pat), "-o \"%s\"", in);
	if ((hp = plan_find(&p, pat)) < 0 || hp > hf)
		return -1;
	snprintf(pat, sizeof(pat), "\"%s\"", src_name);
	if (!strstr(p.step[hp], pat))
		return -1;
	/* the host compile: the first step after both that reads the host code */
	snprintf(pat, sizeof(pat), "\"%s\"", gen);
	for (i = (hf > cc ? hf : cc) + 1; i < p.nstep && hc < 0; i++)
		if (strstr(p.step[i], pat))
			hc = i;
	if (hc < 0)
		return -1;
	/* the device chain: every other step before it, none of which may
	 * read what the host's front end writes */
	snprintf(pat_in, sizeof(pat_in), "\"%s\"", in);
	for (i = 0; i < hc; i++) {
		if (i == hp || i == hf || is_rm(p.step[i]))
			continue;
		if (strstr(p.step[i], pat) || strstr(p.step[i], pat_in))
			return -1;
		ndev++;
	}
	/* the steps find their tools on the PATH nvcc gives them */
	for (i = 0; i < p.nenv && strncmp(p.env[i], "PATH=", 5); i++)
		;
	if (ndev < 2 || i == p.nenv)
		return -1;

	add_str(sh, "# kjudge: nvcc's steps (nvcc --dryrun --keep); the host's front end and the device's chain at once\n");
	for (i = 0; i < p.nenv; i++) {
		const char *eq = strchr(p.env[i], '=');
		add_str(sh, "export ");
		kj_capbuf_add(sh, p.env[i], (size_t)(eq + 1 - p.env[i]));
		add_quoted(sh, eq + 1);
		add_str(sh, "\n");
	}
	for (i = 0; i < hc; i++)
		if (is_rm(p.step[i])) {
			add_str(sh, "rm -f ");
			add_str(sh, p.step[i] + 3);
			add_str(sh, "\n");
		}
	add_str(sh, "(");
	for (i = 0, ndev = 0; i < hc; i++) {
		if (i == hp || i == hf || is_rm(p.step[i]))
			continue;
		add_str(sh, ndev++ ? " &&\n  " : " ");
		if (i == cc) {
			/* cicc makes its own copy of the module id */
			kj_capbuf_add(sh, p.step[i], (size_t)(at - p.step[i]));
			add_str(sh, "--gen_module_id_file --module_id_file_name \"");
			add_str(sh, mid);
			add_str(sh, ".dev\"");
			add_str(sh, at + strlen(mid_flag));
		} else {
			add_str(sh, p.step[i]);
		}
	}
	add_str(sh, " ) >" SPLIT_DEVLOG " 2>&1 &\nkj_dev=$!\n");
	add_str(sh, p.step[hp]);
	add_str(sh, " &&\n");
	add_str(sh, p.step[hf]);
	add_str(sh, " || exit $?\nwait $kj_dev\nkj_st=$?\ncat " SPLIT_DEVLOG "\n[ $kj_st -eq 0 ] || exit $kj_st\n");
	add_str(sh, "kj_host_id=$(cat ");
	add_quoted(sh, mid);
	add_str(sh, ")\nkj_dev_id=$(cat ");
	snprintf(pat, sizeof(pat), "%s.dev", mid);
	add_quoted(sh, pat);
	add_str(sh, ")\n[ -n \"$kj_host_id\" ] && [ \"$kj_host_id\" = \"$kj_dev_id\" ] || { echo ");
	add_quoted(sh, SPLIT_IDS_MSG);
	snprintf(pat, sizeof(pat), "; exit %d; }\n", SPLIT_IDS_DIFFER);
	add_str(sh, pat);
	for (i = hc; i < p.nstep; i++) {
		if (is_rm(p.step[i])) {
			add_str(sh, "rm -f ");
			add_str(sh, p.step[i] + 3);
			add_str(sh, "\n");
		} else {
			add_str(sh, p.step[i]);
			add_str(sh, " || exit $?\n");
		}
	}
	return 0;
}

/* Seconds left of timeout_s since t0, at least a millisecond (so that a
 * spent budget still runs, and times out, through run_jailed). */
static double time_left(double t0, double timeout_s)
{
	double left = t0 + timeout_s - now_s();
	return left > 0.001 ? left : 0.001;
}

/* The two-chain build of argv (nvcc's command line, n words, run in dir):
 * nvcc's plan, then its script, each under lim and what is left of
 * timeout_s since t0; nvcc itself when the plan is not the expected shape
 * or the module ids differ.  Returns as run_jailed, r being the last run's
 * (the plan's when it ran past the wall clock). */
static int run_split(const struct kj_jail *jl, char **argv, int n, const char *dir, const char *src_name,
		     const struct build_limits *lim, double t0, double timeout_s, size_t cap,
		     struct run_result *r, struct kj_err *err)
{
	char *dry[MAX_FLAGS + 16], *sh[] = {"/bin/sh", SPLIT_SCRIPT, NULL}, path[PATHSZ];
	struct kj_capbuf script;
	struct kj_err werr;
	int rc, i, planned = 0;

	if (n + 2 >= (int)(sizeof(dry) / sizeof(dry[0])))
		return run_jailed(jl, argv, dir, lim, time_left(t0, timeout_s), cap, r, err);
	for (i = 0; i < n; i++)
		dry[i] = argv[i];
	dry[n] = "--dryrun";
	dry[n + 1] = "--keep";
	dry[n + 2] = NULL;
	if ((rc = run_jailed(jl, dry, dir, lim, time_left(t0, timeout_s), PLAN_CAP, r, err)))
		return rc;
	if (r->timed_out)
		return 0;
	kj_capbuf_init(&script, SCRIPT_CAP);
	kj_err_init(&werr);
	if (!r->exec_errno && WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0 && r->out.total == r->out.len &&
	    split_script(r->out.buf, src_name, &script) == 0 && script.total == script.len &&
	    pathf(path, "%s/%s", dir, SPLIT_SCRIPT) == 0 && write_atomic(path, script.buf, script.len, &werr) == 0)
		planned = 1;
	kj_capbuf_release(&script);
	kj_capbuf_release(&r->out);
	if (planned) {
		if ((rc = run_jailed(jl, sh, dir, lim, time_left(t0, timeout_s), cap, r, err)))
			return rc;
		if (r->exec_errno || r->timed_out || !WIFEXITED(r->status) ||
		    WEXITSTATUS(r->status) != SPLIT_IDS_DIFFER || !strstr(r->out.buf, SPLIT_IDS_MSG))
			return 0;
		kj_capbuf_release(&r->out);
	}
	return run_jailed(jl, argv, dir, lim, time_left(t0, timeout_s), cap, r, err);
}

/* Compiles in a fresh folder under $TMPDIR, in the jail (the folder is its
 * scratch, the candidate header staged beside it read-only), and moves the
 * object (and the log) into the cache under its key.  The cache itself is
 * never in the jail. */
static int build(const struct toolchain *tc, const struct kj_compile_opts *o, const char *root,
		 const char *inc, const char *source, size_t len, const char *base,
		 struct kj_compile_result *res, struct kj_err *err)
{
	char tmpdir[PATHSZ], src[PATHSZ], obj[PATHSZ], incflag[PATHSZ], path[PATHSZ], hdr[PATHSZ];
	char cc[PATHSZ], ccdir[PATHSZ], incabs[PATH_MAX];
	char msg[320] = "";
	char *argv[MAX_FLAGS + 12];
	struct run_result r;
	struct build_limits lim;
	struct kj_jail jl;
	double timeout = o->timeout_s > 0 ? o->timeout_s : DEF_TIMEOUT_S;
	double t0 = now_s();
	const char *tmp = getenv("TMPDIR");
	char *objbuf = NULL;
	size_t objlen = 0;
	int i, n = 0, rc = 0, cached_fail = 0;

	(void)root;
	if (!realpath(inc, incabs))
		return kj_err_sys(err, "cannot resolve the candidate header folder '%s'", inc);
	if (resolve_compiler(tc->cc, cc, sizeof(cc)) < 0)
		return kj_err_set(err, KJ_E_NOTFOUND, "cannot run compiler '%s': not found on PATH", tc->cc);
	if (pathf(tmpdir, "%s/kjudge-build-XXXXXX", tmp && *tmp == '/' ? tmp : "/tmp") < 0 || !mkdtemp(tmpdir))
		return kj_err_sys(err, "cannot create a build folder under '%s'", tmp && *tmp ? tmp : "/tmp");
	src[0] = obj[0] = '\0';
	if (pathf(src, "%s/%s", tmpdir, tc->src_name) < 0 || pathf(obj, "%s/out.so", tmpdir) < 0 ||
	    pathf(hdr, "%s/%s", incabs, tc->header) < 0) {
		rc = kj_err_sys(err, "cannot name files in '%s'", tmpdir);
		goto out;
	}
	if ((rc = write_atomic(src, source, len, err)))
		goto out;

	memset(&jl, 0, sizeof(jl));
	jl.unconfined = o->unconfined;
	jl.scratch = tmpdir;
	/* gcc, clang and nvcc need no /proc; without one, an #include or
	 * .incbin of /proc/self/environ or /proc/cpuinfo is a missing file */
	jl.no_proc = 1;
	/* the candidate header, and nothing else of kjudge's */
	jl.paths[0].host = hdr;
	jl.paths[0].inner = tc->header;
	jl.npaths = 1;
	/* a compiler outside /usr (KJ_CC, KJ_NVCC) brings its folder */
	{
		char *slash = strrchr(cc, '/'), dir[PATHSZ];
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - cc), cc);
		if (realpath(dir, ccdir) && strncmp(ccdir, "/usr/", 5)) {
			jl.paths[1].host = ccdir;
			jl.npaths = 2;
		}
	}
	if (pathf(incflag, "-I%s", o->unconfined ? incabs : KJ_JAIL_STAGE) < 0) {
		rc = kj_err_sys(err, "cannot name the header folder");
		goto out;
	}

	argv[n++] = cc;
	for (i = 0; i < MAX_FLAGS && tc->flags[i]; i++)
		argv[n++] = (char *)tc->flags[i];
	argv[n++] = incflag;
	argv[n++] = "-o";
	argv[n++] = "out.so";
	argv[n++] = (char *)tc->src_name;
	for (i = 0; i < 4 && tc->libs[i]; i++)
		argv[n++] = (char *)tc->libs[i];
	argv[n] = NULL;

	memset(&lim, 0, sizeof(lim));
	lim.as.rlim_cur = lim.as.rlim_max = (rlim_t)(o->mem_limit ? o->mem_limit :
						 o->backend == KJ_BACKEND_CUDA ? DEF_MEM_CUDA : DEF_MEM_CPU);
	lim.cpu.rlim_cur = (rlim_t)(o->cpu_limit_s > 0 ? o->cpu_limit_s : DEF_CPU_S);
	lim.cpu.rlim_max = lim.cpu.rlim_cur + 1;
	lim.fsize.rlim_cur = lim.fsize.rlim_max = (rlim_t)(o->fsize_limit ? o->fsize_limit : DEF_FSIZE);
	lim.nproc.rlim_cur = lim.nproc.rlim_max = 4096;
	/* under the caller's hard limits, which no setrlimit can pass */
	kj_rlimit_fit(RLIMIT_AS, &lim.as, res->limits, sizeof(res->limits));
	kj_rlimit_fit(RLIMIT_CPU, &lim.cpu, res->limits, sizeof(res->limits));
	kj_rlimit_fit(RLIMIT_FSIZE, &lim.fsize, res->limits, sizeof(res->limits));
	kj_rlimit_fit(RLIMIT_NPROC, &lim.nproc, res->limits, sizeof(res->limits));
	/* Run inside the build folder with relative names, so the log reads
	 * "cand.c:3:5: error: ..." and does not depend on the folder's name. */
	if (o->backend == KJ_BACKEND_CUDA && !o->one_nvcc)
		rc = run_split(&jl, argv, n, tmpdir, tc->src_name, &lim, t0, timeout,
			       o->log_cap ? o->log_cap : DEF_LOG_CAP, &r, err);
	else
		rc = run_jailed(&jl, argv, tmpdir, &lim, timeout, o->log_cap ? o->log_cap : DEF_LOG_CAP, &r, err);
	if (rc)
		goto out;
	res->seconds = now_s() - t0;
	if (r.exec_errno || (!o->unconfined && strstr(r.out.buf, "bwrap: execvp"))) {
		rc = kj_err_set(err, KJ_E_NOTFOUND, "cannot run compiler '%s': %s", tc->cc,
				r.exec_errno ? strerror(r.exec_errno) : r.out.buf);
		kj_capbuf_release(&r.out);
		goto out;
	}
	limit_reason(&r, &lim, timeout, res->limit, sizeof(res->limit));
	if (res->limit[0]) {
		snprintf(msg, sizeof(msg), "%skjudge: %s\n", r.out.len && r.out.buf[r.out.len - 1] != '\n' ? "\n" : "",
			 res->limit);
		/* a time limit may be the machine's (load): tried again next time;
		 * memory and file size are the source's */
		cached_fail = !r.timed_out && !strstr(res->limit, "CPU-time");
	} else if (WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0 && file_exists(obj)) {
		res->ok = 1;
	} else {
		/* Only a clean refusal is the candidate's for good; timeouts and
		 * crashes may be the machine's and are tried again next time. */
		cached_fail = 1;
	}
	/* The judge's own note goes past the cap: it must never be cut. */
	res->log = malloc(r.out.len + strlen(msg) + 1);
	if (res->log) {
		memcpy(res->log, r.out.buf, r.out.len);
		memcpy(res->log + r.out.len, msg, strlen(msg) + 1);
	}
	if (!res->log)
		rc = kj_err_set(err, KJ_E_NOMEM, "out of memory for the compiler log");
	if (!rc) {
		pathf(path, "%s.log", base);
		rc = write_atomic(path, res->log, strlen(res->log), err);
	}
	if (!rc && cached_fail) {
		pathf(path, "%s.fail", base);
		rc = write_atomic(path, res->log, strlen(res->log), err);
	}
	if (!rc && res->ok) {
		/* the build folder is on another file system than the cache, as
		 * often as not: the object is copied in, atomically */
		pathf(res->so_path, "%s.so", base);
		if (read_file(obj, &objbuf, &objlen) < 0) {
			rc = kj_err_sys(err, "cannot read the built object '%s'", obj);
		} else {
			rc = write_atomic(res->so_path, objbuf, objlen, err);
			free(objbuf);
		}
		if (rc) {
			res->ok = 0;
			res->so_path[0] = '\0';
		} else {
			/* A stale failure for this key would shadow nothing, but
			 * would mislead whoever reads the cache. */
			pathf(path, "%s.fail", base);
			unlink(path);
		}
	}
	kj_capbuf_release(&r.out);
out:
	remove_build_dir(tmpdir);
	return rc;
}

int kj_compile(const char *source, size_t len, const struct kj_compile_opts *o,
	       struct kj_compile_result *res, struct kj_err *err)
{
	struct toolchain tc;
	char root[PATHSZ], dir[PATHSZ], base[PATHSZ], path[PATHSZ], hpath[PATHSZ], compiler[512];
	const char *inc;
	char *header = NULL, *log = NULL;
	size_t hlen = 0;
	int rc;

	memset(res, 0, sizeof(*res));
	if (!source || !o)
		return kj_err_set(err, KJ_E_USAGE, "kj_compile needs a source and options");
	if ((rc = toolchain_for(o, &tc, err)))
		return rc;
	if ((rc = cache_root(o, root, sizeof(root), err)))
		return rc;
	inc = o->include_dir && *o->include_dir ? o->include_dir : "include/candidate";
	if (pathf(hpath, "%s/%s", inc, tc.header) < 0 || read_file(hpath, &header, &hlen) < 0)
		return kj_err_sys(err, "cannot read the candidate header '%s'", hpath);
	rc = compiler_id(tc.cc, compiler, sizeof(compiler), err);
	if (!rc)
		rc = cache_key(&tc, kj_backend_name(o->backend), compiler, header, hlen, source, len, res->key, err);
	free(header);
	if (rc)
		return rc;

	/* base + ".fail" must fit: every later name is then short enough. */
	if (pathf(dir, "%s/%s/%.2s", root, kj_backend_name(o->backend), res->key) < 0 ||
	    pathf(base, "%s/%s", dir, res->key) < 0 || pathf(path, "%s.fail.tmp-XXXXXX", base) < 0 ||
	    kj_mkdir_p(dir) < 0)
		return kj_err_sys(err, "cannot create cache folder '%s'", dir);

	if (!o->no_cache) {
		pathf(path, "%s.so", base);
		if (file_exists(path)) {
			res->ok = 1;
			res->cached = 1;
			memcpy(res->so_path, path, strlen(path) + 1);
			pathf(path, "%s.log", base);
			res->log = read_file(path, &log, NULL) == 0 ? log : strdup("");
			return res->log ? 0 : kj_err_set(err, KJ_E_NOMEM, "out of memory");
		}
		pathf(path, "%s.fail", base);
		if (read_file(path, &log, NULL) == 0) {
			res->cached = 1;
			res->log = log;
			return 0;
		}
	}
	rc = build(&tc, o, root, inc, source, len, base, res, err);
	if (rc)
		kj_compile_result_release(res);
	return rc;
}

void kj_compile_result_release(struct kj_compile_result *res)
{
	free(res->log);
	res->log = NULL;
}
