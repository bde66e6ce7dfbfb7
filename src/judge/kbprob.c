/*
 * A KernelBench problem file as a task: the describe step.  The problem's
 * code is trusted (the user's KernelBench checkout, or the project's own
 * test problems), and runs in a fresh interpreter of its own, as the
 * Python probe does (kjudge_pyworker.py --describe PROBLEM): it imports the
 * file, builds Model under KernelBench's seed, draws get_inputs() and runs
 * forward once on the GPU for the outputs' shapes, and prints one JSON line
 * that kj_task_from_kernelbench (src/task/kbtask.c) turns into the task.
 * A description that worked is cached under <cache>/kbdesc/, keyed by the
 * problem file's bytes, the worker script's and the interpreter's path.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "judge/judge_internal.h"
#include "kjudge/compile.h"
#include "kjudge/fsutil.h"
#include "kjudge/hash.h"
#include "kjudge/python.h"

#define DESCRIBE_TIMEOUT_S 600.0
#define DESCRIBE_CAP (1u << 20)

/* A whole file into a malloc'd, NUL-terminated buffer; NULL when it cannot
 * be read. */
/* <cache>/kbdesc/<key>.json for this problem, worker and interpreter. */
static int desc_path(const char *cache_dir, const char *problem, const char *worker, const char *python,
		     char *out, size_t olen, struct kj_err *err)
{
	char root[4096], ps[65], ws[65], key[65], text[8400];
	size_t n;
	char *b;
	int rc = kj_cache_dir(cache_dir, root, sizeof(root), err);
	if (rc)
		return rc;
	if (!(b = kj_read_file(problem, &n)))
		return kj_err_sys(err, "cannot read KernelBench problem '%s'", problem);
	kj_sha256_hex(b, n, ps);
	free(b);
	if (!(b = kj_read_file(worker, &n)))
		return kj_err_sys(err, "cannot read the Python worker '%s'", worker);
	kj_sha256_hex(b, n, ws);
	free(b);
	snprintf(text, sizeof(text), "kjudge-kbdesc-1|%s|%s|%s", ps, ws, python);
	kj_sha256_hex(text, strlen(text), key);
	snprintf(out, olen, "%s/kbdesc", root);
	if (kj_mkdir_p(out) < 0)
		return kj_err_sys(err, "cannot create '%s'", out);
	n = strlen(out);
	snprintf(out + n, olen - n, "/%s.json", key);
	return 0;
}

static void desc_store(const char *path, const char *text)
{
	char tmp[4700];
	FILE *f;
	snprintf(tmp, sizeof(tmp), "%s.tmp%d", path, (int)getpid());
	if (!(f = fopen(tmp, "w")))
		return;
	fputs(text, f);
	if (fclose(f) == 0 && rename(tmp, path) == 0)
		return;
	remove(tmp);
}

/* The description's failure as the judge's error: a file that is not a
 * KernelBench problem is the user's (KJ_E_PARSE), the rest the
 * environment's or the problem code's (KJ_E_WORKER). */
static int describe_failed(const char *problem, const char *out, int status, struct kj_err *err)
{
	json_error_t je;
	json_t *o = json_loads(out, JSON_DISABLE_EOF_CHECK, &je);
	const char *why = json_string_value(json_object_get(o, "error"));
	const char *kind = json_string_value(json_object_get(o, "kind"));
	int rc;
	if (!json_is_object(o))
		rc = kj_err_set(err, KJ_E_WORKER, "cannot describe KernelBench problem '%s': the describe step "
				"printed no description (exit status %d)", problem,
				WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	else
		rc = kj_err_set(err, kind && !strcmp(kind, "problem") ? KJ_E_PARSE : KJ_E_WORKER,
				"cannot describe KernelBench problem '%s': %s", problem, why ? why : "it failed");
	json_decref(o);
	return rc;
}

int kj_kb_task_load(const char *problem, const char *cache_dir, const char *include_dir, kj_task **out,
		    struct kj_err *err)
{
	struct kj_eval_opts o;
	char python[4096], worker[4096], cpath[4400], abs_problem[4096];
	char *argv[6], *text = NULL;
	struct stat st;
	int rc, status = 0;
	*out = NULL;
	if (stat(problem, &st) < 0)
		return kj_err_set(err, KJ_E_NOTFOUND, "cannot open KernelBench problem '%s': %s", problem,
				  strerror(errno));
	if (!S_ISREG(st.st_mode))
		return kj_err_set(err, KJ_E_USAGE, "KernelBench problem '%s' is not a file", problem);
	if (!realpath(problem, abs_problem))
		return kj_err_sys(err, "cannot resolve '%s'", problem);
	kj_eval_opts_init(&o);
	o.include_dir = include_dir;
	/* no interpreter or worker script: the judge cannot run here (exit 3) */
	if ((rc = kjj_py_find_python(python, sizeof(python), err)) ||
	    (rc = kjj_py_find_worker(&o, worker, sizeof(worker), err))) {
		err->code = KJ_E_WORKER;
		return KJ_E_WORKER;
	}
	if ((rc = desc_path(cache_dir, abs_problem, worker, python, cpath, sizeof(cpath), err)))
		return rc;
	if (!(text = kj_read_file(cpath, NULL))) {
		argv[0] = python;
		argv[1] = "-I";
		argv[2] = worker;
		argv[3] = "--describe";
		argv[4] = abs_problem;
		argv[5] = NULL;
		if (!(text = malloc(DESCRIBE_CAP)))
			return kj_err_set(err, KJ_E_NOMEM, "out of memory");
		if ((rc = kjj_run_capture(argv, DESCRIBE_TIMEOUT_S, text, DESCRIBE_CAP, &status, err))) {
			free(text);
			return rc;
		}
		if (!strstr(text, "\"ok\": true")) {
			rc = describe_failed(abs_problem, text, status, err);
			free(text);
			return rc;
		}
		desc_store(cpath, text);
	}
	rc = kj_task_from_kernelbench(text, abs_problem, out, err);
	free(text);
	return rc;
}
