/*
 * Pre-warmed Python workers (struct kj_pypool, include/kjudge/judge.h;
 * docs/kernelbench.md, "Pre-warmed workers").  The Python worker's start
 * (the interpreter, torch's import, Triton's warm-up, the CUDA context) takes
 * seconds; a spare has done all of it before its candidate exists, in the
 * jail and under the seccomp filter the candidate's worker gets, and waits
 * on its socket.  Nothing of a task or a candidate is in it: its command
 * line names only the backend, and the task's ABI and the candidate's build
 * caches reach its own scratch folder when the judge takes it
 * (kjj_spare_hand_over), the candidate itself with LOAD.  A spare is taken once and
 * never comes back: one candidate per process.
 *
 * One thread per pool starts every spare: PR_SET_PDEATHSIG ties a worker
 * to the thread that forked it, so spares and the workers taken from them
 * live exactly as long as that thread, which ends in kj_pypool_free.
 *
 * Ownership: the pool owns its spares; kjj_pypool_take hands one to the
 * caller, who frees it with kjj_spare_free (or moves its worker out first).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "judge/judge_internal.h"
#include "kjudge/fsutil.h"
#include "kjudge/jail.h"
#include "kjudge/python.h"

/* SETUP imports torch (and Triton, and warms it up) and makes the context */
#define SPARE_SETUP_TIMEOUT_S 180.0
#define MAX_SPARES 4

struct kj_pypool {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t th;
	int th_up, stop;
	int spares;                   /* kept warm after kjj_pypool_fill */
	struct kjj_spare_recipe r;    /* what spares are started as */
	int have_r;
	struct kjj_spare *ready;      /* started (or failed to), not taken; oldest first */
	int nready, warming, want;    /* the thread starts one while nready + warming < want */
	pid_t warming_pid;            /* the spare being set up (its process group), or 0 */
	int oom;                      /* the thread could not allocate a spare */
	long started;
};

int kj_pypool_spares_default(void)
{
	const char *e = getenv("KJUDGE_PY_SPARES");
	char *end;
	long n;
	if (!e || !*e)
		return 1;
	n = strtol(e, &end, 10);
	if (*end || n < 0)
		return 1;
	return n > MAX_SPARES ? MAX_SPARES : (int)n;
}

static int recipe_eq(const struct kjj_spare_recipe *a, const struct kjj_spare_recipe *b)
{
	return a->backend == b->backend && a->device == b->device && a->unconfined == b->unconfined &&
	       a->trace == b->trace && !strcmp(a->python, b->python) && !strcmp(a->worker, b->worker) &&
	       !strcmp(a->filter, b->filter) && !strcmp(a->uuid, b->uuid);
}

void kjj_spare_free(struct kjj_spare *s)
{
	if (!s)
		return;
	if (s->w.sock >= 0 || s->w.pid > 0)
		kj_worker_stop(&s->w);
	if (s->scratch[0])
		kj_rm_tree(s->scratch);
	free(s);
}

/* What the hand-over copies at most: the build step wrote the build folder
 * (its candidate's code ran there), so its size is the candidate's to
 * choose.  Past either bound the copy stops, and what a candidate's worker
 * then misses is its own failure. */
#define COPY_MAX_BYTES ((uint64_t)2 << 30)
#define COPY_MAX_ENTRIES 50000

struct copy_budget {
	uint64_t bytes;
	long entries;
};

/* Copies the regular files and folders of the folder src_fd into dst_fd
 * (made by the judge in the worker's own scratch folder), never following
 * a link, keeping what is there already, within budget; objects (*.o) stay
 * behind: the worker loads the built extension, it never links again.
 * Files are handed to the sandbox's uid when the jail drops to one (torch
 * takes a lock file in an extension's folder).  Returns 0, or -1 (errno). */
static int copy_tree_at(int src_fd, int dst_fd, const struct kj_jail_exec *x, int depth, struct copy_budget *b)
{
	DIR *d;
	struct dirent *e;
	int rc = 0, sfd;
	if (depth > 16)
		return 0;
	if ((sfd = dup(src_fd)) < 0)
		return -1;
	if (!(d = fdopendir(sfd))) {
		close(sfd);
		return -1;
	}
	while (rc == 0 && (e = readdir(d))) {
		struct stat st;
		size_t nl = strlen(e->d_name);
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (++b->entries > COPY_MAX_ENTRIES || b->bytes > COPY_MAX_BYTES)
			break;
		if (fstatat(src_fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			int s2, d2;
			if (mkdirat(dst_fd, e->d_name, 0755) < 0 && errno != EEXIST) {
				rc = -1;
				break;
			}
			s2 = openat(src_fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			d2 = openat(dst_fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (s2 >= 0 && d2 >= 0) {
				if (x && x->drop && fchown(d2, x->uid, x->gid) < 0)
					rc = -1;
				else
					rc = copy_tree_at(s2, d2, x, depth + 1, b);
			} else {
				rc = -1;
			}
			if (s2 >= 0)
				close(s2);
			if (d2 >= 0)
				close(d2);
		} else if (S_ISREG(st.st_mode) && !(nl > 2 && !strcmp(e->d_name + nl - 2, ".o"))) {
			/* O_NONBLOCK: what is no longer a regular file does not block */
			int in = openat(src_fd, e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), out;
			char buf[65536];
			ssize_t got = 0;
			if (in < 0)
				continue;
			if (fstat(in, &st) < 0 || !S_ISREG(st.st_mode)) {
				close(in);
				continue;
			}
			out = openat(dst_fd, e->d_name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
				     (st.st_mode & 0111) ? 0755 : 0644);
			if (out < 0) {
				close(in);
				if (errno == EEXIST)
					continue;
				rc = -1;
				break;
			}
			while (b->bytes <= COPY_MAX_BYTES && (got = read(in, buf, sizeof(buf))) > 0) {
				b->bytes += (uint64_t)got;
				if (write(out, buf, (size_t)got) != got) {
					got = -1;
					break;
				}
			}
			if (got < 0 || (x && x->drop && fchown(out, x->uid, x->gid) < 0))
				rc = -1;
			if (close(out) < 0)
				rc = -1;
			close(in);
		}
	}
	closedir(d);
	return rc;
}

/* Gives the taken worker its task and the candidate's build caches before
 * LOAD (include: judge_internal.h).  The worker has run only kjudge's code so
 * far; what it writes from now on stays in its own scratch folder, which
 * goes with it. */
int kjj_spare_hand_over(struct kjj_spare *s, const char *abi, const char *build, struct kj_err *err)
{
	const struct kj_jail_exec *x = s->w.jx;
	struct copy_budget budget = { 0, 0 };
	size_t n = strlen(abi);
	int fd, src, dst, rc = 0;
	if ((fd = open(s->abi_host, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644)) < 0)
		return kj_err_sys(err, "cannot write the task's ABI '%s'", s->abi_host);
	if (write(fd, abi, n) != (ssize_t)n)
		rc = -1;
	if (close(fd) < 0 || rc < 0)
		return kj_err_set(err, KJ_E_IO, "cannot write the task's ABI '%s'", s->abi_host);
	if (!build || !*build)
		return 0;
	if (mkdir(s->cache_host, 0755) < 0 && errno != EEXIST)
		return kj_err_sys(err, "cannot create '%s'", s->cache_host);
	src = open(build, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dst = open(s->cache_host, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (src < 0 || dst < 0 || (x && x->drop && fchown(dst, x->uid, x->gid) < 0) ||
	    copy_tree_at(src, dst, x, 0, &budget) < 0)
		rc = kj_err_sys(err, "cannot copy the build folder '%s' into the worker's '%s'", build, s->cache_host);
	if (src >= 0)
		close(src);
	if (dst >= 0)
		close(dst);
	return rc;
}

/* Starts one spare as r says: its scratch folder, its jail (the
 * interpreter's folders, the worker script, the filter), the worker, then
 * SETUP.  Runs on the pool's thread.  Returns the spare (rc and err say
 * whether it started), or NULL when out of memory. */
static struct kjj_spare *spare_start(struct kj_pypool *p, const struct kjj_spare_recipe *r)
{
	struct kjj_spare *s = calloc(1, sizeof(*s));
	struct kj_jail *jl = NULL;
	struct kj_worker_opts wo;
	const char *argv[20], *tmp = getenv("TMPDIR");
	char exe[4096], worker_in[4200], abi_in[4300], cache_in[4300];
	double t0 = kjj_now_s();
	int n = 0;
	if (!s)
		return NULL;
	s->w.sock = s->w.logfd = s->w.arena_fd = -1;
	s->r = *r;
	kj_err_init(&s->err);
	snprintf(s->scratch, sizeof(s->scratch), "%s/kjudge-py-XXXXXX", tmp && *tmp == '/' ? tmp : "/tmp");
	if (!mkdtemp(s->scratch)) {
		s->rc = kj_err_sys(&s->err, "cannot create a Python worker's scratch folder '%s'", s->scratch);
		s->scratch[0] = '\0';
		return s;
	}
	snprintf(s->abi_host, sizeof(s->abi_host), "%s/kjudge-abi.json", s->scratch);
	snprintf(s->cache_host, sizeof(s->cache_host), "%s/build", s->scratch);
	snprintf(exe, sizeof(exe), "%s", r->python);
	if (!r->unconfined) {
		if ((s->rc = kj_python_jail(r->python, r->worker, NULL, &jl, exe, sizeof(exe), &s->err)))
			return s;
		if (jl->npaths + 2 > KJ_JAIL_MAX_PATHS) {
			free(jl);
			s->rc = kj_err_set(&s->err, KJ_E_USAGE, "too many paths for the Python worker's sandbox");
			return s;
		}
		/* its caches where the build step had them: Triton's group files
		 * name their members by absolute path */
		if (mkdir(s->cache_host, 0755) < 0 && errno != EEXIST) {
			free(jl);
			s->rc = kj_err_sys(&s->err, "cannot create '%s'", s->cache_host);
			return s;
		}
		jl->paths[jl->npaths].host = r->filter;
		jl->paths[jl->npaths].inner = "seccomp.bpf";
		jl->npaths++;
		jl->paths[jl->npaths].host = s->cache_host;
		jl->paths[jl->npaths].inner = KJ_JAIL_BUILD;
		jl->paths[jl->npaths].rw = 1;
		jl->npaths++;
		snprintf(worker_in, sizeof(worker_in), "%s", KJ_JAIL_STAGE "/kjudge_pyworker.py");
		snprintf(abi_in, sizeof(abi_in), "%s", KJ_JAIL_SCRATCH "/kjudge-abi.json");
		snprintf(cache_in, sizeof(cache_in), "%s", KJ_JAIL_BUILD);
	} else {
		snprintf(worker_in, sizeof(worker_in), "%s", r->worker);
		snprintf(abi_in, sizeof(abi_in), "%s", s->abi_host);
		snprintf(cache_in, sizeof(cache_in), "%s", s->cache_host);
	}
	/* the interpreter, isolated (-I: no user site, no PYTHON* variables,
	 * no script folder on sys.path); every warm-up a candidate of the
	 * backend may need, since the candidate is not known yet */
	argv[n++] = exe;
	argv[n++] = "-I";
	argv[n++] = worker_in;
	argv[n++] = "--backend";
	argv[n++] = kj_backend_name(r->backend);
	argv[n++] = "--abi-file";
	argv[n++] = abi_in;
	argv[n++] = "--cache";
	argv[n++] = cache_in;
	argv[n++] = "--uses";
	argv[n++] = r->backend == KJ_BACKEND_KERNELBENCH ? "triton,inline" : "triton";
	/* the filter the worker installs at the end of SETUP (not unconfined:
	 * a profiler must reach the worker) */
	if (!r->unconfined) {
		argv[n++] = "--seccomp";
		argv[n++] = KJ_JAIL_STAGE "/seccomp.bpf";
	}
	if (r->trace)
		argv[n++] = "--trace";
	argv[n] = NULL;
	memset(&wo, 0, sizeof(wo));
	wo.worker_path = exe;
	wo.argv = argv;
	wo.jail = jl;
	wo.unconfined = r->unconfined;
	wo.scratch_dir = s->scratch;
	/* the CUDA worker spins a core while it waits for the device */
	wo.cpu_limit_s = 3600;
	wo.cuda = 1;
	wo.device = r->device;
	wo.cuda_uuid = r->uuid[0] ? r->uuid : NULL;
	wo.spin = 1;
	/* Triton's cache and torch's extension builds are written by the worker */
	wo.fsize_limit = (size_t)512 << 20;
	s->rc = kj_worker_start(&s->w, &wo, &s->err);
	free(jl);
	/* the strings these name live on this stack, and the worker outlives it */
	s->w.opts.worker_path = s->w.opts.scratch_dir = s->w.opts.cuda_uuid = NULL;
	s->w.opts.argv = NULL;
	if (s->rc) {
		s->w.sock = s->w.logfd = s->w.arena_fd = -1;
		s->w.pid = 0;
		return s;
	}
	pthread_mutex_lock(&p->mu);
	if (p->stop) {
		/* freed while this one started: no SETUP (seconds of imports) */
		pthread_mutex_unlock(&p->mu);
		s->rc = kj_err_set(&s->err, KJ_E_WORKER, "the pool was freed");
		return s;
	}
	p->warming_pid = s->w.pid;
	pthread_mutex_unlock(&p->mu);
	s->rc = kj_worker_setup(&s->w, SPARE_SETUP_TIMEOUT_S, &s->setup, &s->err);
	pthread_mutex_lock(&p->mu);
	p->warming_pid = 0;
	pthread_mutex_unlock(&p->mu);
	s->start_s = kjj_now_s() - t0;
	return s;
}

static void *pool_main(void *arg)
{
	struct kj_pypool *p = arg;
	pthread_mutex_lock(&p->mu);
	for (;;) {
		struct kjj_spare_recipe r;
		struct kjj_spare *s;
		while (!p->stop && !(p->have_r && p->nready + p->warming < p->want))
			pthread_cond_wait(&p->cv, &p->mu);
		if (p->stop)
			break;
		r = p->r;
		p->warming = 1;
		pthread_mutex_unlock(&p->mu);
		s = spare_start(p, &r);
		pthread_mutex_lock(&p->mu);
		p->warming = 0;
		p->started++;
		if (s && !p->stop && recipe_eq(&s->r, &p->r)) {
			struct kjj_spare **at = &p->ready;
			while (*at)
				at = &(*at)->next;
			*at = s;
			p->nready++;
		} else if (s) {
			pthread_mutex_unlock(&p->mu);
			kjj_spare_free(s);
			pthread_mutex_lock(&p->mu);
		} else {
			/* out of memory: stop asking; a waiting take says so */
			p->want = p->nready;
			p->oom = 1;
		}
		pthread_cond_broadcast(&p->cv);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

struct kj_pypool *kj_pypool_new(int spares)
{
	struct kj_pypool *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->spares = spares < 0 ? 0 : spares > MAX_SPARES ? MAX_SPARES : spares;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	return p;
}

/* The pool's thread, started on first use.  Under p->mu.  Returns 0 or -1. */
static int ensure_thread(struct kj_pypool *p)
{
	if (p->th_up)
		return 0;
	if (pthread_create(&p->th, NULL, pool_main, p))
		return -1;
	p->th_up = 1;
	return 0;
}

/* Makes r the pool's recipe; spares of another are taken out of the ready
 * list into *drop (the caller frees them outside the lock).  Under p->mu. */
static void set_recipe(struct kj_pypool *p, const struct kjj_spare_recipe *r, struct kjj_spare **drop)
{
	struct kjj_spare **at = &p->ready;
	if (p->have_r && recipe_eq(&p->r, r))
		return;
	p->r = *r;
	p->have_r = 1;
	while (*at) {
		struct kjj_spare *s = *at;
		if (recipe_eq(&s->r, r)) {
			at = &s->next;
			continue;
		}
		*at = s->next;
		s->next = *drop;
		*drop = s;
		p->nready--;
	}
}

static void free_list(struct kjj_spare *s)
{
	while (s) {
		struct kjj_spare *n = s->next;
		kjj_spare_free(s);
		s = n;
	}
}

int kjj_pypool_fill(struct kj_pypool *p, const struct kjj_spare_recipe *r)
{
	struct kjj_spare *drop = NULL;
	int rc = 0;
	pthread_mutex_lock(&p->mu);
	set_recipe(p, r, &drop);
	if (p->spares > 0) {
		if (ensure_thread(p) == 0) {
			p->want = p->spares;
			pthread_cond_broadcast(&p->cv);
		} else {
			rc = -1;
		}
	}
	pthread_mutex_unlock(&p->mu);
	free_list(drop);
	return rc;
}

int kjj_pypool_take(struct kj_pypool *p, const struct kjj_spare_recipe *r, struct kjj_spare **out,
		    struct kj_err *err)
{
	struct kjj_spare *drop = NULL, *s = NULL;
	int drops = 0; /* a spare that answered SETUP and died after; a few, then the next is the caller's */
	*out = NULL;
	pthread_mutex_lock(&p->mu);
	set_recipe(p, r, &drop);
	if (ensure_thread(p)) {
		pthread_mutex_unlock(&p->mu);
		free_list(drop);
		return kj_err_set(err, KJ_E_SYS, "cannot start the Python workers' thread");
	}
	for (;;) {
		while (p->ready) {
			int st, dead = 0;
			s = p->ready;
			p->ready = s->next;
			s->next = NULL;
			p->nready--;
			/* a spare that died while it waited (killed, out of
			 * memory) is replaced: the candidate never sees it */
			if (s->rc == 0 && s->w.pid > 0 && !s->w.dead && drops < 3 &&
			    (s->setup.status == KJ_CALL_OK || s->setup.status == KJ_CALL_ERROR)) {
				if (waitpid(s->w.pid, &st, WNOHANG) == s->w.pid) {
					s->w.dead = dead = 1;
					s->w.status = st;
				} else if (s->w.wpid > 0 && kill(s->w.wpid, 0) < 0 && errno == ESRCH) {
					dead = 1;
				}
			}
			/* (one that died in its SETUP is the caller's: it reports it) */
			if (dead) {
				drops++;
				s->next = drop;
				drop = s;
				s = NULL;
				continue;
			}
			break;
		}
		if (s)
			break;
		if (p->oom) {
			p->oom = 0;
			pthread_mutex_unlock(&p->mu);
			free_list(drop);
			return kj_err_set(err, KJ_E_NOMEM, "out of memory");
		}
		/* none ready: one more is started (or is starting) for this take */
		if (p->want < p->nready + p->warming + 1)
			p->want = p->nready + p->warming + 1;
		pthread_cond_broadcast(&p->cv);
		pthread_cond_wait(&p->cv, &p->mu);
	}
	/* no refill here: the judge asks for the next spare once this
	 * candidate's floor is measured (kjj_pypool_fill) */
	p->want = p->nready + p->warming;
	pthread_mutex_unlock(&p->mu);
	free_list(drop);
	*out = s;
	return 0;
}

double kjj_pypool_quiesce(struct kj_pypool *p)
{
	double t0 = kjj_now_s();
	pthread_mutex_lock(&p->mu);
	while (p->warming || (p->have_r && p->nready + p->warming < p->want && p->th_up && !p->stop))
		pthread_cond_wait(&p->cv, &p->mu);
	pthread_mutex_unlock(&p->mu);
	return kjj_now_s() - t0;
}

void kjj_pypool_count(struct kj_pypool *p, int *ready, int *warming, long *started)
{
	pthread_mutex_lock(&p->mu);
	*ready = p->nready;
	*warming = p->warming;
	*started = p->started;
	pthread_mutex_unlock(&p->mu);
}

pid_t kjj_pypool_peek(struct kj_pypool *p)
{
	pid_t pid = 0;
	pthread_mutex_lock(&p->mu);
	if (p->ready)
		pid = p->ready->w.wpid;
	pthread_mutex_unlock(&p->mu);
	return pid;
}

void kj_pypool_free(struct kj_pypool *p)
{
	struct kjj_spare *list;
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = 1;
	/* a spare in SETUP ends now rather than when its imports are done */
	if (p->warming_pid > 0)
		kill(-p->warming_pid, SIGKILL);
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	if (p->th_up)
		pthread_join(p->th, NULL);
	list = p->ready;
	p->ready = NULL;
	free_list(list);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	free(p);
}
