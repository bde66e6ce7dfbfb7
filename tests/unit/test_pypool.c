/*
 * Pre-warmed Python workers (src/judge/pypool.c) without a GPU: the real
 * python/kjudge_pyworker.py in its jail, under its seccomp filter, whose
 * SETUP here finds no torch and says so as an environment error (kjudge-env:)
 * and then waits on its socket as a warm one would.  What is asserted is the
 * pool's behaviour: a spare is started before any candidate exists, and
 * only when asked; each take gives a fresh process (distinct pids, never one
 * given twice); a spare that died before use is replaced; a change of
 * recipe drops the old spares; each spare has its own scratch folder, empty
 * of the task and of any other spare's files; and the pool kills its spares
 * when freed, leaving no process behind, as does a judge that exits without
 * freeing it.  Then, with stand-in torch, cupy and triton in a venv
 * (py_testlib.h: the project's own few lines, enough for SETUP), what a warm
 * spare does with its candidate: no task before the hand-over, then the ABI
 * and a copy of the build caches (no objects, no links), one LOAD only, and
 * what a candidate leaves in its scratch folder and cache is seen by no
 * later candidate (with a control that would see it).  Needs python3 (or
 * $KJ_PYTHON) and bwrap; the script is found from $KJ_ROOT (default ".").
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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
#include "py_testlib.h"
#include "tap.h"

static struct kjj_spare_recipe recipe;

static int alive(pid_t pid)
{
	return pid > 0 && kill(pid, 0) == 0;
}

/* Whether pid is dead: no such process, or a zombie (whose reaper, after
 * its parent died, may be slow or absent in a container). */
static int dead_now(pid_t pid)
{
	char path[64], buf[512], *rp;
	FILE *f;
	size_t n;
	if (kill(pid, 0) < 0 && errno == ESRCH)
		return 1;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (!(f = fopen(path, "r")))
		return 1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	rp = strrchr(buf, ')');
	return rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X');
}

/* A spare's worker is gone within two seconds. */
static int gone(pid_t pid)
{
	for (int i = 0; i < 200; i++) {
		if (dead_now(pid))
			return 1;
		usleep(10000);
	}
	return 0;
}

static int env_error(const struct kjj_spare *s)
{
	return s->setup.status == KJ_CALL_ERROR && !strncmp(s->setup.msg, "kjudge-env: ", 12);
}

static const char abi[] = "{\"entry\":\"relu\",\"syms\":[\"N\"],\"args\":[{\"name\":\"x\",\"dtype\":\"f32\","
			  "\"shape\":[\"N\"],\"kind\":\"input\"},{\"name\":\"y\",\"dtype\":\"f32\",\"shape\":"
			  "[\"N\"],\"kind\":\"output\"}]}";

static int put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* A PROBE of the task's two tensors and one dim: before the worker has the
 * ABI it answers that it cannot read it; with it, that no arena is open. */
static void probe2(struct kjj_spare *s, struct kj_call_result *res)
{
	uint64_t off[2] = { 0, 64 };
	int64_t dims[1] = { 16 };
	struct kj_err err;
	kj_err_init(&err);
	if (kj_worker_probe(&s->w, off, 2, dims, 1, 10, res, &err))
		snprintf(res->msg, sizeof(res->msg), "judge error: %s", err.msg);
}

static int load(struct kjj_spare *s, const char *cand, struct kj_call_result *res)
{
	struct kj_err err;
	kj_err_init(&err);
	if (kj_worker_load(&s->w, cand, "relu", 2, 1, 30, res, &err)) {
		snprintf(res->msg, sizeof(res->msg), "judge error: %s", err.msg);
		return -1;
	}
	return res->status == KJ_CALL_OK ? 0 : -1;
}

/* With stand-in torch, cupy and triton (py_testlib.h), SETUP succeeds and
 * the spare is what a warm worker is on a GPU: the judge hands it the task
 * and the build caches, it loads its candidate, and a candidate that leaves
 * folders in its scratch folder and its cache leaves them for nobody. */
static void stand_ins(void)
{
	char tmpl[] = "/tmp/kj-pypool-XXXXXX", path[PATH_MAX * 2], build[PATH_MAX], cand_a[PATH_MAX], cand_b[PATH_MAX];
	struct kjj_spare_recipe r = recipe;
	struct kjj_spare *sa = NULL, *sb = NULL, *sc = NULL;
	struct kj_call_result res;
	struct kj_err err;
	struct kj_pypool *p;
	kj_err_init(&err);
	if (!mkdtemp(tmpl) || chmod(tmpl, 0755) < 0 || kjt_make_fake_venv(tmpl, r.python, sizeof(r.python))) {
		ok(1, "# SKIP no venv with stand-ins (python3 -m venv)");
		return;
	}
	/* a build folder as the build step leaves it */
	snprintf(build, sizeof(build), "%s/build", tmpl);
	snprintf(path, sizeof(path), "%s/triton/k1", build);
	kj_mkdir_p(path);
	snprintf(path, sizeof(path), "%s/torch_extensions/py/ext", build);
	kj_mkdir_p(path);
	snprintf(path, sizeof(path), "%s/triton/k1/k.json", build);
	put(path, "{}\n");
	snprintf(path, sizeof(path), "%s/torch_extensions/py/ext/ext.so", build);
	put(path, "not really an object\n");
	snprintf(path, sizeof(path), "%s/torch_extensions/py/ext/ext.o", build);
	put(path, "an object\n");
	snprintf(path, sizeof(path), "%s/torch_extensions/py/ext/passwd", build);
	if (symlink("/etc/passwd", path) < 0)
		ok(0, "a link in the build folder");
	snprintf(cand_a, sizeof(cand_a), "%s/a.py", tmpl);
	/* the caches where the build step had them (KJ_JAIL_BUILD): Triton's
	 * group files name their members by absolute path, so a copy at
	 * another path is a cache miss, and the worker's filter refuses the
	 * compiler that a miss runs */
	put(cand_a, "import os\n"
		    "if os.environ['TRITON_CACHE_DIR'] != '" KJ_JAIL_BUILD "/triton' or "
		    "not os.path.exists('" KJ_JAIL_BUILD "/triton/k1/k.json'):\n"
		    "    raise RuntimeError('the caches are at ' + os.environ['TRITON_CACHE_DIR'])\n"
		    "os.makedirs('left_by_a', exist_ok=True)\n"
		    "os.makedirs(os.path.join(os.environ['TRITON_CACHE_DIR'], 'left_by_a'), exist_ok=True)\n"
		    "def relu(x, y, N):\n    pass\n");
	snprintf(cand_b, sizeof(cand_b), "%s/b.py", tmpl);
	put(cand_b, "import os\n"
		    "if os.path.exists('left_by_a') or os.path.exists(os.path.join(os.environ['TRITON_CACHE_DIR'], "
		    "'left_by_a')):\n"
		    "    raise RuntimeError('b sees what a left')\n"
		    "def relu(x, y, N):\n    pass\n");

	p = kj_pypool_new(1);
	kjj_pypool_fill(p, &r);
	if (!ok(kjj_pypool_take(p, &r, &sa, &err) == 0 && sa && sa->rc == 0 && sa->setup.status == KJ_CALL_OK,
		"with stand-ins a spare's SETUP succeeds: %s", sa ? sa->setup.msg : err.msg)) {
		kjj_spare_free(sa);
		kj_pypool_free(p);
		kj_rm_tree(tmpl);
		return;
	}
	ok(kj_py_filter_on(sa->w.wpid, path, sizeof(path)) == 1, "the spare waits under its seccomp filter");
	probe2(sa, &res);
	ok(res.status == KJ_CALL_ERROR && strstr(res.msg, "cannot read the task's ABI"),
	   "before the hand-over the worker has no task (%s)", res.msg);
	/* the task and the caches */
	ok(kjj_spare_hand_over(sa, abi, build, &err) == 0, "the hand-over: %s", err.msg);
	snprintf(path, sizeof(path), "%s/triton/k1/k.json", sa->cache_host);
	ok(access(path, R_OK) == 0, "the build folder's Triton cache is copied into the worker's scratch folder");
	snprintf(path, sizeof(path), "%s/torch_extensions/py/ext/ext.so", sa->cache_host);
	ok(access(path, R_OK) == 0, "so is the extension");
	snprintf(path, sizeof(path), "%s/torch_extensions/py/ext/ext.o", sa->cache_host);
	ok(access(path, F_OK) != 0, "objects are not");
	snprintf(path, sizeof(path), "%s/torch_extensions/py/ext/passwd", sa->cache_host);
	ok(access(path, F_OK) != 0, "nor links");
	ok(kj_worker_nop(&sa->w, 10, &res, &err) == 0 && res.status == KJ_CALL_OK, "the NOP after it is answered: %s",
	   res.msg);
	probe2(sa, &res);
	ok(res.status == KJ_CALL_ERROR && strstr(res.msg, "no device arena"),
	   "then the worker has the task's ABI (two tensors, one dim: %s)", res.msg);
	ok(load(sa, cand_a, &res) == 0, "the first candidate loads: %s", res.msg);
	snprintf(path, sizeof(path), "%s/left_by_a", sa->scratch);
	ok(access(path, F_OK) == 0, "it left a folder in its scratch folder");
	snprintf(path, sizeof(path), "%s/triton/left_by_a", sa->cache_host);
	ok(access(path, F_OK) == 0, "and one in its Triton cache (its copy)");
	snprintf(path, sizeof(path), "%s/triton/left_by_a", build);
	ok(access(path, F_OK) != 0, "the build folder itself is untouched");

	/* the next candidate, in the next spare */
	kjj_pypool_fill(p, &r);
	if (ok(kjj_pypool_take(p, &r, &sb, &err) == 0 && sb && sb->rc == 0 && sb->setup.status == KJ_CALL_OK,
	       "the next spare: %s", sb ? sb->setup.msg : err.msg)) {
		ok(sb->w.wpid != sa->w.wpid, "is another process");
		ok(kjj_spare_hand_over(sb, abi, build, &err) == 0 &&
		   kj_worker_nop(&sb->w, 10, &res, &err) == 0 && res.status == KJ_CALL_OK, "gets the same task");
		ok(load(sb, cand_b, &res) == 0, "and the second candidate finds nothing of the first's: %s", res.msg);
		ok(load(sb, cand_a, &res) != 0, "a second LOAD in one worker is refused (%s)", res.msg);
	}
	/* the control: where the first candidate's folder is, the second sees it */
	kjj_pypool_fill(p, &r);
	if (kjj_pypool_take(p, &r, &sc, &err) == 0 && sc && sc->rc == 0 && sc->setup.status == KJ_CALL_OK) {
		snprintf(path, sizeof(path), "%s/left_by_a", sc->scratch);
		kj_mkdir_p(path);
		kjj_spare_hand_over(sc, abi, build, &err);
		kj_worker_nop(&sc->w, 10, &res, &err);
		ok(load(sc, cand_b, &res) != 0 && strstr(res.msg, "b sees what a left"),
		   "(control: in a scratch folder that holds the folder, the second candidate sees it: %s)", res.msg);
	} else {
		ok(0, "a third spare: %s", sc ? sc->err.msg : err.msg);
	}
	kjj_spare_free(sa);
	kjj_spare_free(sb);
	kjj_spare_free(sc);
	kj_pypool_free(p);
	kj_rm_tree(tmpl);
}

int main(void)
{
	const char *root = getenv("KJ_ROOT");
	char filter[] = "/tmp/kjudge-pypool-filter-XXXXXX", marker[4400];
	struct kj_err err;
	struct kj_pypool *p;
	struct kjj_spare *s1 = NULL, *s2 = NULL, *s3 = NULL;
	int ready, warming, fd;
	long started;
	pid_t pid0, pid1, pid2, pid3, bw;
	char tmpdir[] = "/tmp/kj-pypool-tmp-XXXXXX";
	kj_err_init(&err);
	/* the spares' scratch folders in a TMPDIR of this test's own */
	if (!mkdtemp(tmpdir) || chmod(tmpdir, 0755) < 0 || setenv("TMPDIR", tmpdir, 1) < 0) {
		ok(0, "a temporary folder");
		return done_testing();
	}
	if (kjt_find_python(recipe.python, sizeof(recipe.python))) {
		printf("1..0 # SKIP no python3\n");
		rmdir(tmpdir);
		return 0;
	}
	if (kj_jail_available(&err)) {
		printf("1..0 # SKIP no sandbox: %s\n", err.msg);
		rmdir(tmpdir);
		return 0;
	}
	snprintf(recipe.worker, sizeof(recipe.worker), "%s/python/kjudge_pyworker.py", root && *root ? root : ".");
	if ((fd = mkstemp(filter)) < 0 || kj_py_filter_export(fd, &err) || close(fd)) {
		ok(0, "the seccomp filter is written: %s", err.msg);
		return 1;
	}
	snprintf(recipe.filter, sizeof(recipe.filter), "%s", filter);
	recipe.backend = KJ_BACKEND_TRITON;

	p = kj_pypool_new(1);
	ok(p != NULL, "a pool of one spare");
	kjj_pypool_count(p, &ready, &warming, &started);
	ok(ready == 0 && warming == 0 && started == 0, "a new pool starts nothing until asked");

	/* the spare starts ahead: before any candidate exists */
	ok(kjj_pypool_fill(p, &recipe) == 0, "fill asks for a spare");
	kjj_pypool_quiesce(p);
	kjj_pypool_count(p, &ready, &warming, &started);
	pid0 = kjj_pypool_peek(p);
	ok(ready == 1 && warming == 0 && started == 1, "one spare is ready before any take (ready %d, started %ld)",
	   ready, started);
	ok(alive(pid0), "its worker process (pid %d) waits on its socket", (int)pid0);

	ok(kjj_pypool_take(p, &recipe, &s1, &err) == 0 && s1 && s1->rc == 0, "take gives the ready spare: %s",
	   s1 && s1->rc ? s1->err.msg : err.msg);
	if (!s1 || s1->rc) {
		kj_pypool_free(p);
		remove(filter);
		return 1;
	}
	pid1 = s1->w.wpid;
	ok(pid1 == pid0, "the spare taken is the one started ahead (pid %d)", (int)pid1);
	ok(s1->setup.status == KJ_CALL_OK || env_error(s1),
	   "SETUP's reply is kept: here no torch, an environment error (%s)", s1->setup.msg);
	ok(!s1->w.dead && alive(pid1), "after its SETUP reply the worker lives on");
	kjj_pypool_count(p, &ready, &warming, &started);
	ok(ready == 0 && warming == 0 && started == 1,
	   "a take does not refill the pool by itself (the judge refills after its floor)");

	/* the scratch folders: each spare's own, without the task's ABI */
	ok(s1->scratch[0] && access(s1->scratch, F_OK) == 0, "the spare has its own scratch folder %s", s1->scratch);
	ok(access(s1->abi_host, F_OK) != 0, "nothing of a task is in it before the judge hands the task over");
	snprintf(marker, sizeof(marker), "%s/left-by-candidate-1", s1->scratch);
	fd = open(marker, O_WRONLY | O_CREAT, 0644);
	if (fd >= 0)
		close(fd);

	/* none ready: the next take starts a fresh process and waits for it */
	ok(kjj_pypool_take(p, &recipe, &s2, &err) == 0 && s2 && s2->rc == 0, "a take with none ready starts one: %s",
	   s2 && s2->rc ? s2->err.msg : err.msg);
	if (!s2 || s2->rc) {
		kjj_spare_free(s1);
		kj_pypool_free(p);
		remove(filter);
		return 1;
	}
	pid2 = s2->w.wpid;
	ok(pid2 != pid1 && alive(pid1) && alive(pid2), "each take is a fresh process (pids %d and %d, both alive)",
	   (int)pid1, (int)pid2);
	ok(strcmp(s1->scratch, s2->scratch) != 0, "each spare has its own scratch folder");
	snprintf(marker, sizeof(marker), "%s/left-by-candidate-1", s2->scratch);
	ok(access(marker, F_OK) != 0, "the next spare's scratch folder holds nothing of the previous one's");
	kjj_pypool_count(p, &ready, &warming, &started);
	ok(started == 2, "two spares started for two takes (%ld)", started);

	/* a spare that dies before use is replaced */
	kjj_pypool_fill(p, &recipe);
	kjj_pypool_quiesce(p);
	pid0 = kjj_pypool_peek(p);
	ok(alive(pid0), "a third spare is ready (pid %d)", (int)pid0);
	kill(pid0, SIGKILL);
	ok(gone(pid0), "it is killed before any take");
	ok(kjj_pypool_take(p, &recipe, &s3, &err) == 0 && s3 && s3->rc == 0, "the take still gives a spare: %s",
	   s3 && s3->rc ? s3->err.msg : err.msg);
	pid3 = s3 ? s3->w.wpid : 0;
	ok(s3 && pid3 != pid0 && pid3 != pid1 && pid3 != pid2 && alive(pid3),
	   "a fresh one replaced the dead spare (pid %d, the dead one %d)", (int)pid3, (int)pid0);

	/* taken workers are the caller's to stop */
	bw = s1->w.pid;
	kjj_spare_free(s1);
	ok(gone(pid1) && gone(bw), "a taken spare stops with its candidate");
	kjj_spare_free(s2);
	kjj_spare_free(s3);
	ok(gone(pid2) && gone(pid3), "so do the others");

	/* a change of recipe drops the spares of the old one */
	kjj_pypool_fill(p, &recipe);
	kjj_pypool_quiesce(p);
	pid0 = kjj_pypool_peek(p);
	{
		struct kjj_spare_recipe kb = recipe;
		struct kjj_spare *s4 = NULL;
		kb.backend = KJ_BACKEND_KERNELBENCH;
		ok(kjj_pypool_take(p, &kb, &s4, &err) == 0 && s4 && s4->rc == 0 && s4->r.backend == KJ_BACKEND_KERNELBENCH,
		   "a take for another backend gets a worker of that backend");
		ok(s4 && s4->w.wpid != pid0 && gone(pid0), "the spare of the old backend was killed (pid %d)",
		   (int)pid0);
		kjj_spare_free(s4);
	}

	/* the pool kills its spares when freed */
	kjj_pypool_fill(p, &recipe);
	kjj_pypool_quiesce(p);
	pid0 = kjj_pypool_peek(p);
	ok(alive(pid0), "a spare is ready before the pool is freed (pid %d)", (int)pid0);
	kj_pypool_free(p);
	ok(gone(pid0), "freeing the pool kills its spares: no process left");

	/* a judge that dies without freeing its pool leaves no spare behind
	 * (a worker dies with the thread that forked it) */
	{
		int pfd[2];
		pid_t child = -1, got = 0;
		if (pipe(pfd) == 0)
			child = fork();
		if (child == 0) {
			struct kj_pypool *cp = kj_pypool_new(1);
			pid_t sp;
			close(pfd[0]);
			kjj_pypool_fill(cp, &recipe);
			kjj_pypool_quiesce(cp);
			sp = kjj_pypool_peek(cp);
			if (write(pfd[1], &sp, sizeof(sp)) != (ssize_t)sizeof(sp))
				_exit(1);
			_exit(0);
		} else if (child > 0) {
			close(pfd[1]);
			if (read(pfd[0], &got, sizeof(got)) != (ssize_t)sizeof(got))
				got = 0;
			close(pfd[0]);
			waitpid(child, NULL, 0);
		}
		ok(got > 0 && gone(got), "a judge that exits without freeing its pool leaves no spare (pid %d)", (int)got);
		/* (its scratch folder stays, as a killed judge's would: in this
		 * test's TMPDIR, removed at the end) */
	}

	/* freed while a spare is still starting: it does not outlive the pool */
	p = kj_pypool_new(1);
	kjj_pypool_fill(p, &recipe);
	usleep(300000);
	kj_pypool_free(p);
	{
		char cmd[256];
		int n = 0;
		FILE *f;
		snprintf(cmd, sizeof(cmd), "ps -o pid= --ppid %d 2>/dev/null | wc -l", (int)getpid());
		if ((f = popen(cmd, "r"))) {
			if (fscanf(f, "%d", &n) != 1)
				n = -1;
			pclose(f);
		}
		/* popen's own shell is the one child ps may list */
		ok(n <= 1, "a pool freed while its spare starts leaves no child behind (%d)", n);
	}

	stand_ins();

	/* no spares wanted: every take starts its worker then */
	p = kj_pypool_new(0);
	kjj_pypool_fill(p, &recipe);
	kjj_pypool_quiesce(p);
	kjj_pypool_count(p, &ready, &warming, &started);
	ok(ready == 0 && started == 0, "a pool of no spares starts nothing ahead");
	s1 = NULL;
	ok(kjj_pypool_take(p, &recipe, &s1, &err) == 0 && s1 && s1->rc == 0 && alive(s1->w.wpid),
	   "a take from it starts the worker then");
	kjj_spare_free(s1);
	kj_pypool_free(p);
	remove(filter);
	kj_rm_tree(tmpdir);
	return done_testing();
}
