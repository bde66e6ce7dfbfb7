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
 * when freed, leaving no process behind.  Needs python3 (or $KJ_PYTHON) and
 * bwrap; the script is found from $KJ_ROOT (default ".").
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
#include "kjudge/jail.h"
#include "kjudge/python.h"
#include "py_testlib.h"
#include "tap.h"

static struct kjj_spare_recipe recipe;

static int alive(pid_t pid)
{
	return pid > 0 && kill(pid, 0) == 0;
}

/* A spare's worker is gone once its process is reaped (kill says ESRCH). */
static int gone(pid_t pid)
{
	for (int i = 0; i < 200; i++) {
		if (kill(pid, 0) < 0 && errno == ESRCH)
			return 1;
		usleep(10000);
	}
	return 0;
}

static int env_error(const struct kjj_spare *s)
{
	return s->setup.status == KJ_CALL_ERROR && !strncmp(s->setup.msg, "kjudge-env: ", 12);
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
	kj_err_init(&err);
	if (kjt_find_python(recipe.python, sizeof(recipe.python))) {
		printf("1..0 # SKIP no python3\n");
		return 0;
	}
	if (kj_jail_available(&err)) {
		printf("1..0 # SKIP no sandbox: %s\n", err.msg);
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
	return done_testing();
}
