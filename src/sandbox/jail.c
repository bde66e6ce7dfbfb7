/*
 * The jail (include/kjudge/jail.h): bubblewrap's command line for one
 * untrusted process, the descriptors it needs, the uid it runs as, and the
 * staging of files the sandbox must see.
 */
#include "kjudge/jail.h"
#include "kjudge/fsutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_ARGS 320
#define MEM_BYTES 65536
#define DEF_TMP_BYTES ((size_t)256 << 20)
#define LIFT_FD 100

/* ---- finding bwrap, and whether it works here ---- */

/* Process-wide, decided once: written only under avail_lock while
 * avail_state is 0; after that read-only (bwrap_path and describe_buf are
 * read without the lock, by callers that kj_jail_available answered). */
static pthread_mutex_t avail_lock = PTHREAD_MUTEX_INITIALIZER;
static int avail_state; /* 0 unknown, 1 works, -1 does not */
static char avail_msg[768], bwrap_path[PATH_MAX], describe_buf[160];

static int find_bwrap(char *out, size_t len)
{
	const char *env = getenv("KJ_BWRAP");
	if (env && *env) {
		snprintf(out, len, "%s", env);
		return access(out, X_OK);
	}
	return kj_which("bwrap", out, len);
}

/* The uid a jail drops to: 65534 when the judge is root (unless
 * $KJ_SANDBOX_UID=keep), else none (the judge's own, mapped in a user
 * namespace). */
static int drop_uid(uid_t *uid, gid_t *gid)
{
	const char *e = getenv("KJ_SANDBOX_UID");
	if (geteuid() != 0 || (e && !strcmp(e, "keep")))
		return 0;
	*uid = KJ_JAIL_UID;
	*gid = KJ_JAIL_UID;
	if (e && *e) {
		char *end;
		long v = strtol(e, &end, 10);
		if (*end == '\0' && v > 0 && v < 65536)
			*uid = *gid = (uid_t)v;
	}
	return 1;
}

/* Runs `bwrap <the namespaces> --ro-bind /usr /usr ... -- /bin/true` once
 * (as the uid jails use), so that a missing feature shows before any
 * candidate is judged. */
static int try_bwrap(const char *bw, char *msg, size_t len)
{
	const char *argv[] = { bw, "--unshare-user", "--unshare-ipc", "--unshare-pid", "--unshare-net",
			       "--unshare-uts", "--unshare-cgroup-try", "--disable-userns",
			       "--die-with-parent", "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev",
			       "--", "/bin/true", NULL };
	int pfd[2], st = 0, drop;
	uid_t uid = 0;
	gid_t gid = 0;
	char out[512];
	ssize_t n, got = 0;
	pid_t pid;

	drop = drop_uid(&uid, &gid);
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		snprintf(msg, len, "cannot create a pipe: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(msg, len, "cannot fork: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (pid == 0) {
		int nul = open("/dev/null", O_RDONLY);
		if (nul < 0 || dup2(nul, 0) < 0 || dup2(pfd[1], 1) < 0 || dup2(pfd[1], 2) < 0)
			_exit(127);
		if (drop && (setgroups(0, NULL) < 0 || setresgid(gid, gid, gid) < 0 ||
			     setresuid(uid, uid, uid) < 0))
			_exit(126);
		execv(bw, (char *const *)argv);
		_exit(127);
	}
	close(pfd[1]);
	while ((n = read(pfd[0], out + got, sizeof(out) - 1 - (size_t)got)) > 0 ||
	       (n < 0 && errno == EINTR))
		if (n > 0)
			got += n;
	close(pfd[0]);
	out[got] = '\0';
	out[strcspn(out, "\n")] = '\0';
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 126)
		snprintf(msg, len, "cannot switch to uid %u for the sandbox", (unsigned)uid);
	else
		snprintf(msg, len, "'%s' cannot create the sandbox's namespaces here (%s)", bw,
			 got ? out : "no message");
	return -1;
}

int kj_jail_available(struct kj_err *err)
{
	int rc;
	pthread_mutex_lock(&avail_lock);
	if (avail_state == 0) {
		uid_t uid = 0;
		gid_t gid = 0;
		int drop = drop_uid(&uid, &gid);
		if (find_bwrap(bwrap_path, sizeof(bwrap_path)) < 0) {
			snprintf(avail_msg, sizeof(avail_msg),
				 "bubblewrap (bwrap) was not found on PATH%s",
				 getenv("KJ_BWRAP") ? " or at $KJ_BWRAP" : "");
			avail_state = -1;
		} else if (try_bwrap(bwrap_path, avail_msg, sizeof(avail_msg)) < 0) {
			avail_state = -1;
		} else {
			avail_state = 1;
		}
		if (avail_state == 1)
			snprintf(describe_buf, sizeof(describe_buf), "bubblewrap (%s) as uid %u", bwrap_path,
				 drop ? (unsigned)uid : (unsigned)geteuid());
		else
			snprintf(describe_buf, sizeof(describe_buf), "unavailable: %s", avail_msg);
	}
	rc = avail_state == 1 ? 0 : KJ_E_UNSUPPORTED;
	pthread_mutex_unlock(&avail_lock);
	if (rc)
		return kj_err_set(err, KJ_E_UNSUPPORTED,
				  "cannot sandbox untrusted code: %s; install the Debian package "
				  "bubblewrap (and allow unprivileged user namespaces), or pass "
				  "--unsafe-no-sandbox to judge without confinement (verdicts are then "
				  "flagged unconfined)",
				  avail_msg);
	return 0;
}

const char *kj_jail_describe(void)
{
	kj_jail_available(NULL);
	return describe_buf;
}

/* ---- the command line ---- */

struct builder {
	struct kj_jail_exec *x;
	int argc;
	size_t used;
	int overflow;
};

static const char *keep_str(struct builder *b, const char *s)
{
	size_t n = strlen(s) + 1;
	char *p;
	if (b->used + n > MEM_BYTES) {
		b->overflow = 1;
		return "";
	}
	p = b->x->mem + b->used;
	memcpy(p, s, n);
	b->used += n;
	return p;
}

static void arg(struct builder *b, const char *s)
{
	if (b->argc >= MAX_ARGS - 1) {
		b->overflow = 1;
		return;
	}
	b->x->argv[b->argc++] = (char *)keep_str(b, s);
}

__attribute__((format(printf, 2, 3))) static void argf(struct builder *b, const char *fmt, ...)
{
	char buf[PATH_MAX + 64];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	arg(b, buf);
}

/* Passes fd (owned by x from here) to bwrap; returns its number at exec. */
static int pass_fd(struct kj_jail_exec *x, int fd)
{
	int i = x->nfd++;
	x->fd_src[i] = fd;
	x->fd_dst[i] = x->first_fd + i;
	return x->fd_dst[i];
}

/* Binds a host folder through a descriptor opened here (the judge can open
 * paths the sandbox's uid could not name). */
static int bind_fd(struct builder *b, const char *host, const char *inner, int rw,
		   struct kj_err *err)
{
	int fd;
	if (b->x->nfd >= (int)(sizeof(b->x->fd_src) / sizeof(b->x->fd_src[0])))
		return kj_err_set(err, KJ_E_USAGE, "too many paths for the sandbox");
	fd = open(host, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return kj_err_sys(err, "cannot open '%s' for the sandbox", host);
	arg(b, rw ? "--bind-fd" : "--ro-bind-fd");
	argf(b, "%d", pass_fd(b->x, fd));
	arg(b, inner);
	return 0;
}

/* The host's top-level /bin, /lib... : symlinks (merged /usr) stay
 * symlinks, real folders are bound read-only. */
static void top_dirs(struct builder *b)
{
	static const char *const names[] = { "bin", "sbin", "lib", "lib32", "lib64", "libx32", NULL };
	for (int i = 0; names[i]; i++) {
		char p[64], target[PATH_MAX];
		struct stat st;
		ssize_t n;
		snprintf(p, sizeof(p), "/%s", names[i]);
		if (lstat(p, &st) < 0)
			continue;
		if (S_ISLNK(st.st_mode)) {
			n = readlink(p, target, sizeof(target) - 1);
			if (n <= 0)
				continue;
			target[n] = '\0';
			arg(b, "--symlink");
			arg(b, target);
			arg(b, p);
		} else if (S_ISDIR(st.st_mode)) {
			arg(b, "--ro-bind");
			arg(b, p);
			arg(b, p);
		}
	}
}

static void gpu_devices(struct builder *b)
{
	static const char *const fixed[] = { "/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools",
					     NULL };
	struct stat st;
	char p[64];
	for (int i = 0; fixed[i]; i++)
		if (stat(fixed[i], &st) == 0 && S_ISCHR(st.st_mode)) {
			arg(b, "--dev-bind");
			arg(b, fixed[i]);
			arg(b, fixed[i]);
		}
	/* The worker sees one GPU through CUDA_VISIBLE_DEVICES; the device
	 * files of the others stay too, since the driver enumerates them. */
	for (int i = 0; i < 64; i++) {
		snprintf(p, sizeof(p), "/dev/nvidia%d", i);
		if (stat(p, &st) == 0 && S_ISCHR(st.st_mode)) {
			arg(b, "--dev-bind");
			arg(b, p);
			arg(b, p);
		}
	}
}

/* Whether every folder on the way to path lets others through (and the
 * last one in): what bwrap needs to bind it once it runs as the sandbox's
 * uid.  The judge itself may be able to open paths that uid cannot. */
static int reachable_by_others(const char *path)
{
	char p[PATH_MAX];
	struct stat st;
	size_t n = strlen(path);
	if (n == 0 || n >= sizeof(p) || path[0] != '/')
		return 0;
	memcpy(p, path, n + 1);
	for (;;) {
		if (stat(p, &st) < 0)
			return 0;
		if (S_ISDIR(st.st_mode) ? !(st.st_mode & S_IXOTH) : !(st.st_mode & S_IROTH))
			return 0;
		char *slash = strrchr(p, '/');
		if (!slash || slash == p)
			break;
		*slash = '\0';
	}
	return 1;
}

static int under_usr(const char *p)
{
	return !strncmp(p, "/usr/", 5) || !strcmp(p, "/usr");
}

/* The next entry of a colon-separated search path: 0 at its end; else 1
 * with dir set to the entry when it is an absolute path to an existing
 * folder, or to "" when it is anything else (skipped). */
static int next_lib_dir(const char **lp, char *dir, size_t cap)
{
	size_t n;
	struct stat st;
	if (!*lp || !**lp)
		return 0;
	n = strcspn(*lp, ":");
	*dir = '\0';
	if (n > 0 && n < cap && (*lp)[0] == '/') {
		memcpy(dir, *lp, n);
		dir[n] = '\0';
		if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
			*dir = '\0';
	}
	*lp += n;
	if (**lp == ':')
		(*lp)++;
	return 1;
}

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out;
	struct stat st;
	ssize_t n;
	if (in < 0)
		return -1;
	if (fstat(in, &st) < 0) {
		close(in);
		return -1;
	}
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, (st.st_mode & 0111) ? 0755 : 0644);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR)) {
		char *p = buf;
		while (n > 0) {
			ssize_t w = write(out, p, (size_t)n);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				close(in);
				close(out);
				return -1;
			}
			p += w;
			n -= w;
		}
	}
	close(in);
	if (fchmod(out, (st.st_mode & 0111) ? 0755 : 0644) < 0 || close(out) < 0)
		return -1;
	return n < 0 ? -1 : 0;
}

/* A staged file: a hard link (the same inode, which the sandbox's uid may
 * read but not change) or a copy in the jail's own staging folder, bound
 * read-only at KJ_JAIL_STAGE. */
static int stage_file(struct kj_jail_exec *x, const char *host, const char *name, struct kj_err *err)
{
	char to[PATH_MAX];
	if (strchr(name, '/') || !*name || strlen(x->stage) + strlen(name) + 2 > sizeof(to))
		return kj_err_set(err, KJ_E_USAGE, "bad staged name '%s'", name);
	snprintf(to, sizeof(to), "%s/%s", x->stage, name);
	unlink(to);
	if (link(host, to) == 0) {
		struct stat st;
		/* a link to a file the sandbox's uid cannot read gains nothing */
		if (stat(to, &st) == 0 && (st.st_mode & S_IROTH))
			return 0;
		unlink(to);
	}
	if (copy_file(host, to) < 0)
		return kj_err_sys(err, "cannot stage '%s' for the sandbox", host);
	return 0;
}

static int make_stage(struct kj_jail_exec *x, struct kj_err *err)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(x->stage, sizeof(x->stage), "%s/kjudge-stage-XXXXXX", tmp && *tmp == '/' ? tmp : "/tmp");
	if (!mkdtemp(x->stage)) {
		kj_err_sys(err, "cannot create a staging folder '%s'", x->stage);
		x->stage[0] = '\0';
		return KJ_E_SYS;
	}
	if (chmod(x->stage, 0755) < 0)
		return kj_err_sys(err, "cannot open up the staging folder '%s'", x->stage);
	return 0;
}

/* The stage holds only the files kj_jail_prepare linked or copied there. */
static void remove_stage(struct kj_jail_exec *x)
{
	DIR *d;
	struct dirent *e;
	char p[PATH_MAX + 300];
	if (!x->stage[0])
		return;
	if ((d = opendir(x->stage))) {
		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
				snprintf(p, sizeof(p), "%s/%s", x->stage, e->d_name);
				unlink(p);
			}
		closedir(d);
	}
	rmdir(x->stage);
	x->stage[0] = '\0';
}

int kj_jail_prepare(struct kj_jail_exec *x, const struct kj_jail *j, const char *const *cmd,
		    int first_fd, struct kj_err *err)
{
	struct builder b;
	int rc, pfd[2], staged = 0, ncmd = 0;

	memset(x, 0, sizeof(*x));
	x->info_r = -1;
	x->first_fd = first_fd;
	if (!cmd || !cmd[0])
		return kj_err_set(err, KJ_E_USAGE, "no command for the sandbox");
	while (cmd[ncmd])
		ncmd++;
	x->argv = calloc(MAX_ARGS, sizeof(char *));
	x->mem = malloc(MEM_BYTES);
	if (!x->argv || !x->mem) {
		kj_jail_release(x);
		return kj_err_set(err, KJ_E_NOMEM, "out of memory for the sandbox's command line");
	}
	memset(&b, 0, sizeof(b));
	b.x = x;
	if (j->unconfined) {
		x->unconfined = 1;
		for (int i = 0; i < ncmd; i++)
			arg(&b, cmd[i]);
		x->path = x->argv[0];
		if (b.overflow) {
			kj_jail_release(x);
			return kj_err_set(err, KJ_E_USAGE, "command too long");
		}
		return 0;
	}
	if ((rc = kj_jail_available(err))) {
		kj_jail_release(x);
		return rc;
	}
	x->drop = drop_uid(&x->uid, &x->gid);
	/* A folder that the sandbox's uid cannot reach (a Python under /root)
	 * keeps the judge's uid for this jail: still a user namespace with no
	 * view of anything else. */
	for (int i = 0; i < j->npaths && x->drop; i++)
		if (!j->paths[i].inner && !under_usr(j->paths[i].host) && !reachable_by_others(j->paths[i].host))
			x->drop = 0;
	if (x->drop && j->scratch) {
		char parent[PATH_MAX];
		char *slash;
		snprintf(parent, sizeof(parent), "%s", j->scratch);
		slash = strrchr(parent, '/');
		if (slash && slash != parent) {
			*slash = '\0';
			if (!reachable_by_others(parent))
				x->drop = 0;
		}
	}
	if (x->drop && j->library_path) {
		const char *lp = getenv("LD_LIBRARY_PATH");
		char dir[PATH_MAX];
		while (x->drop && next_lib_dir(&lp, dir, sizeof(dir)))
			if (*dir && !reachable_by_others(dir))
				x->drop = 0;
	}
	arg(&b, bwrap_path);
	/* --unshare-all names the same set, but --disable-userns wants
	 * --unshare-user by name */
	arg(&b, "--unshare-user");
	arg(&b, "--unshare-ipc");
	arg(&b, "--unshare-pid");
	arg(&b, "--unshare-net");
	arg(&b, "--unshare-uts");
	arg(&b, "--unshare-cgroup-try");
	arg(&b, "--disable-userns");
	arg(&b, "--die-with-parent");
	arg(&b, "--uid");
	arg(&b, "1000");
	arg(&b, "--gid");
	arg(&b, "1000");
	arg(&b, "--hostname");
	arg(&b, "kjudge");
	arg(&b, "--ro-bind");
	arg(&b, "/usr");
	arg(&b, "/usr");
	top_dirs(&b);
	arg(&b, "--ro-bind-try");
	arg(&b, "/etc/ld.so.cache");
	arg(&b, "/etc/ld.so.cache");
	arg(&b, "--ro-bind-try");
	arg(&b, "/etc/alternatives");
	arg(&b, "/etc/alternatives");
	arg(&b, "--dev");
	arg(&b, "/dev");
	if (j->gpu)
		gpu_devices(&b);
	if (!j->no_proc) {
		arg(&b, "--proc");
		arg(&b, "/proc");
	}
	arg(&b, "--size");
	argf(&b, "%zu", j->tmp_bytes ? j->tmp_bytes : DEF_TMP_BYTES);
	arg(&b, "--tmpfs");
	arg(&b, "/tmp");
	if (j->scratch) {
		if (x->drop && chown(j->scratch, x->uid, x->gid) < 0) {
			rc = kj_err_sys(err, "cannot hand the scratch folder '%s' to uid %u", j->scratch,
					(unsigned)x->uid);
			goto fail;
		}
		if ((rc = bind_fd(&b, j->scratch, KJ_JAIL_SCRATCH, 1, err)))
			goto fail;
		arg(&b, "--chdir");
		arg(&b, KJ_JAIL_SCRATCH);
	}
	if (j->library_path) {
		const char *lp = getenv("LD_LIBRARY_PATH");
		char dir[PATH_MAX];
		while (next_lib_dir(&lp, dir, sizeof(dir)))
			if (*dir && !under_usr(dir) && (rc = bind_fd(&b, dir, dir, 0, err)))
				goto fail;
	}
	for (int i = 0; i < j->npaths; i++) {
		const struct kj_jail_path *p = &j->paths[i];
		struct stat st;
		if (stat(p->host, &st) < 0) {
			rc = kj_err_sys(err, "cannot give '%s' to the sandbox", p->host);
			goto fail;
		}
		if (p->inner && p->inner[0] != '/') {
			if (!staged && (rc = make_stage(x, err)))
				goto fail;
			staged = 1;
			if ((rc = stage_file(x, p->host, p->inner, err)))
				goto fail;
		} else if (p->inner && !S_ISDIR(st.st_mode)) {
			rc = kj_err_set(err, KJ_E_USAGE, "'%s': only a folder can appear at '%s' in the sandbox",
					p->host, p->inner);
			goto fail;
		} else if (!p->inner && (!S_ISDIR(st.st_mode) || p->host[0] != '/')) {
			rc = kj_err_set(err, KJ_E_USAGE,
					"'%s': only absolute folders keep their path in the sandbox", p->host);
			goto fail;
		} else if (p->inner || !under_usr(p->host)) {
			/* a folder at its own path or at p->inner; a read-write one
			 * (a Python candidate's build cache) belongs to the sandbox's
			 * uid, as the scratch folder does */
			if (p->rw && x->drop && chown(p->host, x->uid, x->gid) < 0) {
				rc = kj_err_sys(err, "cannot hand '%s' to uid %u", p->host, (unsigned)x->uid);
				goto fail;
			}
			if ((rc = bind_fd(&b, p->host, p->inner ? p->inner : p->host, p->rw, err)))
				goto fail;
		}
	}
	if (staged) {
		arg(&b, "--ro-bind");
		arg(&b, x->stage);
		arg(&b, KJ_JAIL_STAGE);
	}
	if (j->info) {
		if (pipe2(pfd, O_CLOEXEC) < 0) {
			rc = kj_err_sys(err, "cannot create the sandbox's info pipe");
			goto fail;
		}
		x->info_r = pfd[0];
		arg(&b, "--info-fd");
		argf(&b, "%d", pass_fd(x, pfd[1]));
	}
	arg(&b, "--");
	for (int i = 0; i < ncmd; i++)
		arg(&b, cmd[i]);
	if (b.overflow) {
		rc = kj_err_set(err, KJ_E_USAGE, "the sandbox's command line is too long");
		goto fail;
	}
	x->path = x->argv[0];
	return 0;
fail:
	kj_jail_release(x);
	return rc;
}

int kj_jail_stage(struct kj_jail_exec *x, const char *host, const char *name, char *inner,
		  size_t len, struct kj_err *err)
{
	int rc;
	if (x->unconfined) {
		snprintf(inner, len, "%s", host);
		return 0;
	}
	if (!x->stage[0])
		return kj_err_set(err, KJ_E_USAGE, "this jail has no staging folder");
	if ((rc = stage_file(x, host, name, err)))
		return rc;
	snprintf(inner, len, "%s/%s", KJ_JAIL_STAGE, name);
	return 0;
}

int kj_jail_child_lift(struct kj_jail_exec *x)
{
	for (int i = 0; i < x->nfd; i++) {
		int fd = fcntl(x->fd_src[i], F_DUPFD, LIFT_FD);
		if (fd < 0)
			return -1;
		x->fd_src[i] = fd;
	}
	return 0;
}

int kj_jail_child_place(struct kj_jail_exec *x, int keep)
{
	unsigned int top = (unsigned int)(x->first_fd + x->nfd + keep);
	for (int i = 0; i < x->nfd; i++) {
		if (dup2(x->fd_src[i], x->fd_dst[i]) < 0)
			return -1;
		if ((unsigned int)x->fd_dst[i] + 1 > top)
			top = (unsigned int)x->fd_dst[i] + 1;
	}
	if (close_range(top, ~0U, 0) < 0) {
		for (unsigned int fd = top; fd < 4096; fd++)
			close((int)fd);
	}
	return 0;
}

int kj_jail_child_drop(const struct kj_jail_exec *x, const struct rlimit *nproc)
{
	/* A root judge would hand the child every capability at exec,
	 * CAP_SYS_PTRACE included, which overrides the judge's non-dumpable
	 * guard.  Without CAP_SETPCAP (an ordinary user) the drops fail, and
	 * there is nothing to drop.  Before the uid drop, while the rights to
	 * make them are still there. */
	if (x->unconfined || x->drop || geteuid() != 0)
		for (int cap = 0; cap < 64; cap++)
			prctl(PR_CAPBSET_DROP, (unsigned long)cap, 0, 0, 0);
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (x->drop && (setgroups(0, NULL) < 0 || setresgid(x->gid, x->gid, x->gid) < 0 ||
			setresuid(x->uid, x->uid, x->uid) < 0))
		return -1;
	if (nproc && x->drop && setrlimit(RLIMIT_NPROC, nproc) < 0)
		return -1;
	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ? -1 : 0;
}

void kj_jail_parent_after_fork(struct kj_jail_exec *x)
{
	/* the child owns its copies now; the parent keeps only info_r */
	for (int i = 0; i < x->nfd; i++) {
		if (x->fd_src[i] >= 0)
			close(x->fd_src[i]);
		x->fd_src[i] = -1;
	}
}

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

pid_t kj_jail_command_pid(struct kj_jail_exec *x, double timeout_s)
{
	char buf[2048], path[96], kids[256];
	size_t got = 0;
	double end = mono_s() + timeout_s;
	const char *p;
	long init = -1, cmd;
	FILE *f;

	if (x->unconfined || x->info_r < 0)
		return -1;
	/* bwrap writes one small JSON object and closes the pipe */
	while (got < sizeof(buf) - 1) {
		struct pollfd pf = { .fd = x->info_r, .events = POLLIN };
		double left = end - mono_s();
		ssize_t n;
		if (left <= 0 || poll(&pf, 1, (int)(left * 1000) + 1) <= 0)
			break;
		n = read(x->info_r, buf + got, sizeof(buf) - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
		buf[got] = '\0';
		if (strchr(buf, '}'))
			break;
	}
	buf[got] = '\0';
	p = strstr(buf, "\"child-pid\"");
	if (p && (p = strchr(p, ':')))
		init = strtol(p + 1, NULL, 10);
	if (init <= 0)
		return -1;
	/* the command is pid 2 inside: the first child of bwrap's init */
	do {
		snprintf(path, sizeof(path), "/proc/%ld/task/%ld/children", init, init);
		if ((f = fopen(path, "r"))) {
			kids[0] = '\0';
			if (!fgets(kids, sizeof(kids), f))
				kids[0] = '\0';
			fclose(f);
			cmd = strtol(kids, NULL, 10);
			if (cmd > 0)
				return (pid_t)cmd;
		}
		usleep(1000);
	} while (mono_s() < end);
	return -1;
}

void kj_jail_release(struct kj_jail_exec *x)
{
	for (int i = 0; i < x->nfd; i++)
		if (x->fd_src[i] >= 0)
			close(x->fd_src[i]);
	x->nfd = 0;
	if (x->info_r >= 0)
		close(x->info_r);
	x->info_r = -1;
	remove_stage(x);
	free(x->argv);
	free(x->mem);
	x->argv = NULL;
	x->mem = NULL;
	x->path = NULL;
}

int kj_jail_wait_status(const struct kj_jail_exec *x, int status)
{
	if (x->unconfined || !WIFEXITED(status))
		return status;
	if (WEXITSTATUS(status) > 128 && WEXITSTATUS(status) < 128 + 65)
		return WEXITSTATUS(status) - 128; /* a wait status "killed by signal N" */
	return status;
}
