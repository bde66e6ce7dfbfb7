/*
 * The Python candidate kind (struct kjj_cand kjj_cand_py, judge_internal.h;
 * --backend triton|kernelbench), the judge's side of Python candidates:
 * finding the interpreter and python/kjudge_pyworker.py, asking that
 * interpreter once per process whether torch, triton, cupy and a CUDA device
 * are there (the probe), the static check of the source in a fresh
 * interpreter (ast only: no candidate code runs), and the ABI the worker needs
 * to wrap the judge's device arena as tensors.  Everything after LOAD is the
 * CUDA track's (judge_gpu.c): the Python worker speaks the same protocol.
 *
 * The probe and the check are trusted: they run the worker script, never the
 * candidate.  The worker itself is as untrusted as kjudge-worker.
 *
 * Ownership: the kind's state (struct kjj_py, j->py) is allocated by its
 * init and freed by its release, with the ABI JSON and the jail it holds.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "judge/judge_internal.h"
#include "kjudge/compile.h"
#include "kjudge/fsutil.h"
#include "kjudge/hash.h"
#include "kjudge/jail.h"
#include "kjudge/python.h"

#define PROBE_TIMEOUT_S 120.0
#define CHECK_TIMEOUT_S 30.0
#define OUT_CAP (64u << 10)
#define BUILD_LOG_CAP (64u << 10)
/* the build step's descriptors: 0 /dev/null, 1 and 2 its log, 3 its result */
#define BUILD_RESULT_FD 3

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Runs argv[0] (an absolute path) with argv, stdin /dev/null, stdout into
 * out (capped, NUL-terminated), stderr discarded, in its own process group,
 * killed after timeout_s.  Returns 0 with *status the wait status, or an
 * error. */
static int run_capture(char *const argv[], double timeout_s, char *out, size_t cap, int *status,
		       struct kj_err *err)
{
	int pfd[2];
	size_t len = 0;
	double deadline = mono_s() + timeout_s;
	pid_t pid;
	int timed_out = 0;
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return kj_err_sys(err, "cannot create a pipe for %s", argv[0]);
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return kj_err_sys(err, "cannot fork to run %s", argv[0]);
	}
	if (pid == 0) {
		int nul = open("/dev/null", O_RDWR);
		setpgid(0, 0);
		if (nul < 0 || dup2(nul, 0) < 0 || dup2(pfd[1], 1) < 0 || dup2(nul, 2) < 0)
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	setpgid(pid, pid);
	close(pfd[1]);
	out[0] = '\0';
	for (;;) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		double left = deadline - mono_s();
		char buf[4096];
		ssize_t r;
		int pr;
		if (left <= 0) {
			timed_out = 1;
			break;
		}
		pr = poll(&p, 1, (int)(left * 1000) + 1);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0)
			continue;
		r = read(pfd[0], buf, sizeof(buf));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (len + 1 < cap) {
			size_t k = (size_t)r < cap - 1 - len ? (size_t)r : cap - 1 - len;
			memcpy(out + len, buf, k);
			len += k;
			out[len] = '\0';
		}
	}
	close(pfd[0]);
	if (timed_out)
		kill(-pid, SIGKILL);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	if (timed_out)
		return kj_err_set(err, KJ_E_TIMEOUT, "%s did not finish within %.0f s", argv[0], timeout_s);
	return 0;
}

/* The interpreter: $KJ_PYTHON (a path, or a name looked up on PATH), else
 * python3 on PATH. */
static int find_python(char *out, size_t len, struct kj_err *err)
{
	const char *want = getenv("KJ_PYTHON");
	const char *path = getenv("PATH");
	if (!want || !*want)
		want = "python3";
	if (strchr(want, '/')) {
		if (access(want, X_OK) == 0) {
			snprintf(out, len, "%s", want);
			return 0;
		}
		return kj_err_set(err, KJ_E_NOTFOUND, "python3 not found: KJ_PYTHON='%s' is not executable "
				  "(the triton and kernelbench backends need a Python with torch)", want);
	}
	while (path && *path) {
		size_t n = strcspn(path, ":");
		if (n > 0 && (int)n < 4000) {
			snprintf(out, len, "%.*s/%s", (int)n, path, want);
			if (access(out, X_OK) == 0)
				return 0;
		}
		path += n;
		if (*path == ':')
			path++;
	}
	return kj_err_set(err, KJ_E_NOTFOUND,
			  "python3 not found: no '%s' on PATH (the triton and kernelbench backends need a Python "
			  "with torch; set KJ_PYTHON)", want);
}

/* python/kjudge_pyworker.py: $KJ_PYWORKER, else beside the candidate headers'
 * tree (<root>/include/candidate -> <root>/python). */
static int find_worker(const struct kj_eval_opts *o, char *out, size_t len, struct kj_err *err)
{
	const char *e = getenv("KJ_PYWORKER");
	if (e && *e)
		snprintf(out, len, "%s", e);
	else
		snprintf(out, len, "%s/../../python/kjudge_pyworker.py",
			 o->include_dir && *o->include_dir ? o->include_dir : "include/candidate");
	if (access(out, R_OK) == 0)
		return 0;
	return kj_err_set(err, KJ_E_NOTFOUND, "cannot find the Python worker '%s' (set KJ_PYWORKER)", out);
}

int kjj_py_find_python(char *out, size_t len, struct kj_err *err)
{
	return find_python(out, len, err);
}

int kjj_py_find_worker(const struct kj_eval_opts *o, char *out, size_t len, struct kj_err *err)
{
	return find_worker(o, out, len, err);
}

int kjj_run_capture(char *const argv[], double timeout_s, char *out, size_t cap, int *status, struct kj_err *err)
{
	return run_capture(argv, timeout_s, out, cap, status, err);
}

/* One probe per interpreter, worker and backend in a process: torch's import
 * takes seconds.  probe_cache is read and written under probe_lock. */
static pthread_mutex_t probe_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	char key[8300];
	int ok;
	char msg[512];
} probe_cache[4];

/* A successful probe is also remembered on disk, keyed by the interpreter's
 * and the worker's paths, sizes and times, so each `kjudge eval` process does
 * not pay for torch's import twice: <cache>/python/probe-<key>.txt. */
static void probe_disk_path(const char *cache, const char *python, const char *worker, kj_backend b,
			    char *out, size_t len)
{
	struct stat sp, sw;
	char text[8600], key[65];
	out[0] = '\0';
	if (!cache || !*cache || stat(python, &sp) || stat(worker, &sw))
		return;
	snprintf(text, sizeof(text), "kjudge-probe-1|%s|%lld|%lld|%s|%lld|%lld|%s", python, (long long)sp.st_size,
		 (long long)sp.st_mtime, worker, (long long)sw.st_size, (long long)sw.st_mtime, kj_backend_name(b));
	kj_sha256_hex(text, strlen(text), key);
	snprintf(out, len, "%s/python/probe-%.32s.txt", cache, key);
}

static int probe(const char *cache, const char *python, const char *worker, kj_backend b, char *info,
		 size_t ilen, struct kj_err *err)
{
	char disk[4400];
	FILE *df;
	char key[8300], *out;
	char *argv[] = { (char *)python, "-I", (char *)worker, "--probe", "--backend",
			 (char *)kj_backend_name(b), NULL };
	int status, rc, slot = (int)b & 3;
	json_t *j;
	json_error_t je;
	snprintf(key, sizeof(key), "%s|%s", python, worker);
	pthread_mutex_lock(&probe_lock);
	if (!strcmp(probe_cache[slot].key, key)) {
		int ok = probe_cache[slot].ok;
		snprintf(info, ilen, "%s", probe_cache[slot].msg);
		pthread_mutex_unlock(&probe_lock);
		return ok ? 0 : kj_err_set(err, KJ_E_UNSUPPORTED, "%s", info);
	}
	probe_disk_path(cache, python, worker, b, disk, sizeof(disk));
	if (disk[0] && (df = fopen(disk, "r"))) {
		int got = fgets(info, (int)ilen, df) != NULL;
		fclose(df);
		if (got) {
			info[strcspn(info, "\n")] = '\0';
			snprintf(probe_cache[slot].key, sizeof(probe_cache[slot].key), "%s", key);
			probe_cache[slot].ok = 1;
			snprintf(probe_cache[slot].msg, sizeof(probe_cache[slot].msg), "%s", info);
			pthread_mutex_unlock(&probe_lock);
			return 0;
		}
	}
	out = malloc(OUT_CAP);
	if (!out) {
		pthread_mutex_unlock(&probe_lock);
		return kj_err_set(err, KJ_E_NOMEM, "out of memory");
	}
	rc = run_capture(argv, PROBE_TIMEOUT_S, out, OUT_CAP, &status, err);
	if (rc) {
		free(out);
		pthread_mutex_unlock(&probe_lock);
		return rc;
	}
	j = json_loads(out, JSON_DISABLE_EOF_CHECK, &je);
	if (!j || !json_is_object(j)) {
		rc = kj_err_set(err, KJ_E_UNSUPPORTED, "%s cannot run the Python worker %s (exit status %d)",
				python, worker, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	} else if (!json_is_true(json_object_get(j, "ok"))) {
		const char *m = json_string_value(json_object_get(j, "error"));
		rc = kj_err_set(err, KJ_E_UNSUPPORTED, "the %s backend cannot run here: %s", kj_backend_name(b),
				m ? m : "the probe failed");
	} else {
		const char *tv = json_string_value(json_object_get(j, "torch"));
		const char *trv = json_string_value(json_object_get(j, "triton"));
		snprintf(info, ilen, "python %s, torch %s%s%s",
			 json_string_value(json_object_get(j, "python")) ?
				 json_string_value(json_object_get(j, "python")) : "?",
			 tv ? tv : "?", trv ? ", triton " : "", trv ? trv : "");
	}
	json_decref(j);
	free(out);
	snprintf(probe_cache[slot].key, sizeof(probe_cache[slot].key), "%s", key);
	probe_cache[slot].ok = rc == 0;
	if (rc == 0 && disk[0]) {
		char dir[4400], tmp[4500];
		snprintf(dir, sizeof(dir), "%s/python", cache);
		snprintf(tmp, sizeof(tmp), "%s.tmp%d", disk, (int)getpid());
		if (kj_mkdir_p(dir) == 0 && (df = fopen(tmp, "w"))) {
			fprintf(df, "%s\n", info);
			if (fclose(df) == 0 && rename(tmp, disk) == 0)
				tmp[0] = '\0';
			if (tmp[0])
				remove(tmp);
		}
	}
	snprintf(probe_cache[slot].msg, sizeof(probe_cache[slot].msg), "%s", rc ? err->msg : info);
	pthread_mutex_unlock(&probe_lock);
	return rc;
}

/* "B", "(G * CG)", "(N // 2)": the judge's dim expressions in Python syntax
 * (kjudge's / on dims is floor division). */
static int expr_py(const kj_expr *e, char *buf, size_t len, size_t *off)
{
	int w;
	switch (e->kind) {
	case KJ_X_INT:
	case KJ_X_BOOL:
		w = snprintf(buf + *off, len - *off, "%lld", (long long)e->ival);
		break;
	case KJ_X_IDENT:
		w = snprintf(buf + *off, len - *off, "%s", e->name);
		break;
	case KJ_X_NEG:
		w = snprintf(buf + *off, len - *off, "(-");
		if (w < 0 || (size_t)w >= len - *off)
			return -1;
		*off += (size_t)w;
		if (expr_py(e->args[0], buf, len, off))
			return -1;
		w = snprintf(buf + *off, len - *off, ")");
		break;
	case KJ_X_BIN: {
		const char *op = e->op == '/' ? "//" : e->op == '^' ? "**" : e->op == '+' ? "+" :
				 e->op == '-' ? "-" : e->op == '*' ? "*" : NULL;
		if (!op)
			return -1;
		w = snprintf(buf + *off, len - *off, "(");
		if (w < 0 || (size_t)w >= len - *off)
			return -1;
		*off += (size_t)w;
		if (expr_py(e->args[0], buf, len, off))
			return -1;
		w = snprintf(buf + *off, len - *off, " %s ", op);
		if (w < 0 || (size_t)w >= len - *off)
			return -1;
		*off += (size_t)w;
		if (expr_py(e->args[1], buf, len, off))
			return -1;
		w = snprintf(buf + *off, len - *off, ")");
		break;
	}
	default:
		return -1;
	}
	if (w < 0 || (size_t)w >= len - *off)
		return -1;
	*off += (size_t)w;
	return 0;
}

char *kjj_py_abi_json(const kj_task *t)
{
	int idx[KJ_WIRE_MAX_ABI], n = kj_task_abi_values(t, idx, KJ_WIRE_MAX_ABI);
	json_t *o = json_object(), *args = json_array(), *syms = json_array();
	char *s;
	if (n > KJ_WIRE_MAX_ABI)
		n = KJ_WIRE_MAX_ABI;
	json_object_set_new(o, "entry", json_string(t->name));
	for (int i = 0; i < t->nsyms; i++)
		json_array_append_new(syms, json_string(t->syms[i]));
	for (int i = 0; i < n; i++) {
		const kj_value *v = &t->vals[idx[i]];
		json_t *a = json_object(), *shape = json_array();
		for (int d = 0; d < v->rank; d++) {
			char e[512];
			size_t off = 0;
			if (expr_py(v->dims[d], e, sizeof(e), &off))
				snprintf(e, sizeof(e), "?");
			json_array_append_new(shape, json_string(e));
		}
		json_object_set_new(a, "name", json_string(v->name));
		json_object_set_new(a, "dtype", json_string(kj_dtype_name(v->dtype)));
		json_object_set_new(a, "shape", shape);
		json_object_set_new(a, "kind", json_string(v->kind == KJ_V_OUTPUT ? "output" :
							   v->kind == KJ_V_PARAM ? "param" : "input"));
		json_array_append_new(args, a);
	}
	json_object_set_new(o, "syms", syms);
	json_object_set_new(o, "args", args);
	/* a KernelBench problem file's task: its init arguments, seed and the
	 * forward's scalar arguments, for ModelNew (docs/kernelbench.md) */
	if (t->kb) {
		json_error_t je;
		json_t *kb = json_loads(t->kb, 0, &je);
		if (kb)
			json_object_set_new(o, "kb", kb);
	}
	s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	return s;
}

void kjj_py_init(struct kjj_py *py)
{
	memset(py, 0, sizeof(*py));
}

void kjj_py_release(struct kjj_py *py)
{
	free(py->abi);
	kj_pypool_free(py->own_pool);
	memset(py, 0, sizeof(*py));
}

/* The candidate's file: <cache>/python/<sha[0:2]>/<sha>.py, content
 * addressed like the compile cache (Triton keys its own cache on source). */
static int write_candidate(struct judge *j, const char *src, size_t len, struct kjj_py *py)
{
	char root[4096], dir[4200], tmp[4400];
	FILE *f;
	int rc = kj_cache_dir(j->o->cache_dir, root, sizeof(root), j->err);
	if (rc)
		return rc;
	snprintf(py->cache, sizeof(py->cache), "%s", root);
	snprintf(dir, sizeof(dir), "%s/python/%.2s", root, j->v->sha256);
	if (kj_mkdir_p(dir) < 0)
		return kj_err_sys(j->err, "cannot create '%s'", dir);
	snprintf(py->cand, sizeof(py->cand), "%s/%s.py", dir, j->v->sha256);
	if (access(py->cand, R_OK) == 0)
		return 0;
	snprintf(tmp, sizeof(tmp), "%s.tmp%d", py->cand, (int)getpid());
	if (!(f = fopen(tmp, "wb")))
		return kj_err_sys(j->err, "cannot write '%s'", tmp);
	if (fwrite(src, 1, len, f) != len || fclose(f) != 0) {
		remove(tmp);
		return kj_err_set(j->err, KJ_E_IO, "cannot write '%s'", tmp);
	}
	if (rename(tmp, py->cand) < 0) {
		remove(tmp);
		return kj_err_sys(j->err, "cannot rename '%s'", tmp);
	}
	return 0;
}

/* What the worker warms up before the candidate exists (py->uses): "triton"
 * when the source names triton, "inline" when it names torch's
 * cpp_extension (load_inline): a word match, since either must be imported
 * by name.  A candidate that names neither pays for neither. */
static void source_uses(const char *src, size_t len, struct kjj_py *py)
{
	int t = memmem(src, len, "triton", 6) != NULL, c = memmem(src, len, "cpp_extension", 13) != NULL;
	snprintf(py->uses, sizeof(py->uses), "%s%s%s", t ? "triton" : "", t && c ? "," : "", c ? "inline" : "");
}

int kjj_py_prepare(struct judge *j, const char *src, size_t len, struct kjj_py *py)
{
	char *argv[] = { py->python, "-I", py->worker, "--check", py->cand, "--backend",
			 (char *)kj_backend_name(j->o->backend), "--entry", j->t->name, NULL };
	char *out;
	int rc, status;
	json_t *r;
	json_error_t je;
	const char *verdict, *reason;
	double ts = kjj_now_s();
	char cache[4096];
	if ((rc = kj_cache_dir(j->o->cache_dir, cache, sizeof(cache), j->err)) ||
	    (rc = find_python(py->python, sizeof(py->python), j->err)) ||
	    (rc = find_worker(j->o, py->worker, sizeof(py->worker), j->err)) ||
	    (rc = probe(cache, py->python, py->worker, j->o->backend, py->info, sizeof(py->info), j->err)))
		return rc;
	if (kjj_stage_static(j, src, len))
		return 1;
	if ((rc = write_candidate(j, src, len, py)))
		return rc;
	source_uses(src, len, py);
	kjj_progress(j, "static check (python ast)");
	if (!(out = malloc(OUT_CAP)))
		return kj_err_set(j->err, KJ_E_NOMEM, "out of memory");
	if ((rc = run_capture(argv, CHECK_TIMEOUT_S, out, OUT_CAP, &status, j->err))) {
		free(out);
		return rc;
	}
	r = json_loads(out, JSON_DISABLE_EOF_CHECK, &je);
	free(out);
	if (!r || !(verdict = json_string_value(json_object_get(r, "verdict")))) {
		json_decref(r);
		return kj_err_set(j->err, KJ_E_WORKER, "the static check of %s gave no verdict", py->cand);
	}
	reason = json_string_value(json_object_get(r, "reason"));
	if (!reason)
		reason = "";
	j->v->stage_s[KJ_STAGE_STATIC] = kjj_now_s() - ts;
	rc = 0;
	if (!strcmp(verdict, "syntax")) {
		kjj_fail(j, KJ_ST_COMPILE_ERROR, KJ_STAGE_COMPILE, "%s", reason);
		rc = 1;
	} else if (!strcmp(verdict, "reject")) {
		kjj_fail(j, KJ_ST_REJECTED, KJ_STAGE_STATIC, "%s", reason);
		rc = 1;
	} else if (!strcmp(verdict, "missing")) {
		kjj_fail(j, KJ_ST_CALL_ERROR, KJ_STAGE_CALL, "%s", reason);
		rc = 1;
	} else if (!strcmp(verdict, "fallback")) {
		const char *libs = json_string_value(json_object_get(r, "libs"));
		j->v->flags |= KJ_FLAG_FALLBACK;
		snprintf(j->v->fallback_libs, sizeof(j->v->fallback_libs), "%s", libs ? libs : "PyTorch");
		if (j->o->policy == KJ_POLICY_STRICT) {
			kjj_fail(j, KJ_ST_REJECTED, KJ_STAGE_STATIC, "%s (policy strict)", reason);
			rc = 1;
		}
	} else if (strcmp(verdict, "ok")) {
		rc = kj_err_set(j->err, KJ_E_WORKER, "the static check of %s failed: %s", py->cand, reason);
	}
	json_decref(r);
	return rc;
}

/* The folders an interpreter needs (its prefixes and every folder on its
 * sys.path), asked of it once per process: a trusted run, no candidate
 * code.  Returns a malloc'd JSON array text, or NULL. */
static char *interpreter_folders(const char *python, struct kj_err *err)
{
	/* the last answer, process-wide, under lock */
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static char last_python[4096], *last;
	char *argv[] = { (char *)python, "-I", "-c",
			 "import json, os, sys\n"
			 "d = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,\n"
			 "     os.path.dirname(sys.executable), os.path.dirname(os.path.realpath(sys.executable))]\n"
			 "d += [p for p in sys.path if p]\n"
			 "d = sorted({os.path.realpath(p) for p in d if os.path.isdir(p)} | {os.path.dirname(sys.executable)})\n"
			 "print(json.dumps([sys.executable] + d))\n",
			 NULL };
	char *out, *r = NULL;
	int status, rc;
	pthread_mutex_lock(&lock);
	if (last && !strcmp(last_python, python)) {
		r = strdup(last);
		pthread_mutex_unlock(&lock);
		return r;
	}
	if (!(out = malloc(OUT_CAP))) {
		pthread_mutex_unlock(&lock);
		kj_err_set(err, KJ_E_NOMEM, "out of memory");
		return NULL;
	}
	rc = run_capture(argv, PROBE_TIMEOUT_S, out, OUT_CAP, &status, err);
	if (!rc && WIFEXITED(status) && WEXITSTATUS(status) == 0 && out[0] == '[') {
		free(last);
		last = strdup(out);
		snprintf(last_python, sizeof(last_python), "%s", python);
		r = last ? strdup(last) : NULL;
	} else if (!rc) {
		kj_err_set(err, KJ_E_UNSUPPORTED, "%s did not say where its library folders are", python);
	}
	free(out);
	pthread_mutex_unlock(&lock);
	return r;
}

int kj_python_jail(const char *python, const char *script, const char *build, struct kj_jail **out,
		   char *exe, size_t exe_len, struct kj_err *err)
{
	json_error_t je;
	json_t *arr;
	char *text;
	size_t i;
	struct kj_jail *jl;
	*out = NULL;
	if (!(text = interpreter_folders(python, err)))
		return err && err->code ? err->code : KJ_E_UNSUPPORTED;
	arr = json_loads(text, 0, &je);
	free(text);
	if (!json_is_array(arr) || !json_string_value(json_array_get(arr, 0))) {
		json_decref(arr);
		return kj_err_set(err, KJ_E_UNSUPPORTED, "%s gave no list of folders", python);
	}
	/* the interpreter itself, not a launcher (pyenv's shims are scripts
	 * that exec it from folders the jail need not hold) */
	snprintf(exe, exe_len, "%s", json_string_value(json_array_get(arr, 0)));
	if (!(jl = calloc(1, sizeof(*jl) + (size_t)KJ_JAIL_MAX_PATHS * 4096))) {
		json_decref(arr);
		return kj_err_set(err, KJ_E_NOMEM, "out of memory");
	}
	{
		char *mem = (char *)(jl + 1);
		int n = 0, first;
		jl->paths[n].host = script;
		jl->paths[n].inner = "kjudge_pyworker.py";
		n++;
		if (build) {
			jl->paths[n].host = build;
			jl->paths[n].inner = KJ_JAIL_BUILD;
			jl->paths[n].rw = 1;
			n++;
		}
		first = n;
		for (i = 1; i < json_array_size(arr) && n < KJ_JAIL_MAX_PATHS; i++) {
			const char *p = json_string_value(json_array_get(arr, i));
			int inside = 0;
			if (!p || p[0] != '/' || strlen(p) >= 4096)
				continue;
			/* a folder under one already given (or under /usr) comes with it */
			if (!strncmp(p, "/usr/", 5) || !strcmp(p, "/usr"))
				continue;
			for (int k = first; k < n; k++) {
				size_t l = strlen(jl->paths[k].host);
				if (!strncmp(p, jl->paths[k].host, l) && (p[l] == '/' || p[l] == '\0'))
					inside = 1;
			}
			if (inside)
				continue;
			snprintf(mem + (size_t)n * 4096, 4096, "%s", p);
			jl->paths[n].host = mem + (size_t)n * 4096;
			n++;
		}
		jl->npaths = n;
	}
	json_decref(arr);
	jl->gpu = 1;
	jl->library_path = 1;
	/* torch extension builds and Triton's cache want room */
	jl->tmp_bytes = (size_t)1 << 30;
	*out = jl;
	return 0;
}

/* This candidate's own build folder: <cache>/pybuild/<sha[0:2]>/<sha>, the
 * caches of Triton and torch's extensions, shared by the build step and the
 * timed worker and by every judgement of the same source. */
static int build_dir(struct judge *j, struct kjj_py *py)
{
	snprintf(py->build, sizeof(py->build), "%s/pybuild/%.2s/%s", py->cache, j->v->sha256, j->v->sha256);
	if (kj_mkdir_p(py->build) < 0)
		return kj_err_sys(j->err, "cannot create '%s'", py->build);
	return 0;
}

/* The seccomp filter's BPF in the cache, content-addressed
 * (<cache>/python/seccomp-<sha256[0:16]>.bpf), into py->filter. */
static int filter_file(struct kjj_py *py, struct kj_err *err)
{
	char dir[4200], tmp[4500], sha[65];
	unsigned char *prog = NULL;
	off_t size;
	int fd, out, rc;
	if (py->filter[0] && access(py->filter, R_OK) == 0)
		return 0;
	if ((fd = memfd_create("kjudge-pyfilter", MFD_CLOEXEC)) < 0)
		return kj_err_sys(err, "cannot create a memfd for the seccomp filter");
	if ((rc = kj_py_filter_export(fd, err))) {
		close(fd);
		return rc;
	}
	size = lseek(fd, 0, SEEK_END);
	if (size <= 0 || size > (1 << 20) || !(prog = malloc((size_t)size)) ||
	    pread(fd, prog, (size_t)size, 0) != size) {
		free(prog);
		close(fd);
		return kj_err_set(err, KJ_E_IO, "cannot read back the seccomp filter");
	}
	close(fd);
	kj_sha256_hex(prog, (size_t)size, sha);
	snprintf(dir, sizeof(dir), "%s/python", py->cache);
	snprintf(py->filter, sizeof(py->filter), "%s/seccomp-%.16s.bpf", dir, sha);
	if (access(py->filter, R_OK) == 0) {
		free(prog);
		return 0;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp%d", py->filter, (int)getpid());
	if (kj_mkdir_p(dir) < 0 || (out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
		free(prog);
		py->filter[0] = '\0';
		return kj_err_sys(err, "cannot write '%s'", tmp);
	}
	rc = write(out, prog, (size_t)size) == size ? 0 : -1;
	free(prog);
	if (close(out) < 0 || rc < 0 || rename(tmp, py->filter) < 0) {
		remove(tmp);
		py->filter[0] = '\0';
		return kj_err_set(err, KJ_E_IO, "cannot write the seccomp filter '%s'", tmp);
	}
	return 0;
}

/* Stages one more file in a Python jail (at KJ_JAIL_STAGE/inner); host and
 * inner must outlive the jail. */
static int jail_add_file(struct kj_jail *jl, const char *host, const char *inner, struct kj_err *err)
{
	if (jl->npaths >= KJ_JAIL_MAX_PATHS)
		return kj_err_set(err, KJ_E_USAGE, "too many paths for the Python worker's sandbox");
	jl->paths[jl->npaths].host = host;
	jl->paths[jl->npaths].inner = inner;
	jl->paths[jl->npaths].rw = 0;
	jl->npaths++;
	return 0;
}

/* The ABI with "warm": the dim values of every shape the judge calls the
 * candidate on (check shapes and GPU bench shapes, each once). */
static char *build_abi_json(const kj_task *t)
{
	char *base = kjj_py_abi_json(t), *s;
	json_t *o, *warm;
	json_error_t je;
	if (!base)
		return NULL;
	o = json_loads(base, 0, &je);
	free(base);
	if (!o)
		return NULL;
	warm = json_array();
	for (int i = 0; i < t->nbind; i++) {
		json_t *vals;
		int dup = 0;
		if (t->binds[i].bench == 2)
			continue;
		for (int k = 0; k < i && !dup; k++)
			if (t->binds[k].bench != 2 &&
			    !memcmp(t->binds[k].val, t->binds[i].val, (size_t)t->nsyms * sizeof(int64_t)))
				dup = 1;
		if (dup)
			continue;
		vals = json_array();
		for (int k = 0; k < t->nsyms; k++)
			json_array_append_new(vals, json_integer((json_int_t)t->binds[i].val[k]));
		json_array_append_new(warm, vals);
	}
	json_object_set_new(o, "warm", warm);
	s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	return s;
}

/* The build step's process: between fork and exec (async-signal-safe). */
static void build_child(struct kj_jail_exec *x, int logw, int resw, const char *dir, char **envp)
{
	struct sigaction sa;
	sigset_t none;
	struct rlimit core = { 0, 0 }, fsize = { (rlim_t)1 << 30, (rlim_t)1 << 30 },
		      nofile = { 1024, 1024 }, nproc = { 4096, 4096 }, cur;
	int nul, l, r;
	if (kj_jail_child_lift(x) < 0)
		_exit(127);
	l = fcntl(logw, F_DUPFD, 100);
	r = fcntl(resw, F_DUPFD, 100);
	nul = open("/dev/null", O_RDONLY);
	if (l < 0 || r < 0 || nul < 0 || dup2(nul, 0) < 0 || dup2(l, 1) < 0 || dup2(l, 2) < 0 ||
	    dup2(r, BUILD_RESULT_FD) < 0)
		_exit(127);
	if (kj_jail_child_place(x, 0) < 0)
		_exit(127);
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* SIGALRM ends a warm-up call that hangs: its default action */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (int sig = 1; sig < NSIG; sig++)
		sigaction(sig, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (x->unconfined && chdir(dir) < 0)
		_exit(127);
	/* under the judge's own hard limits, which no setrlimit can pass */
	if (getrlimit(RLIMIT_FSIZE, &cur) == 0 && cur.rlim_max != RLIM_INFINITY && cur.rlim_max < fsize.rlim_max)
		fsize.rlim_cur = fsize.rlim_max = cur.rlim_max;
	if (getrlimit(RLIMIT_NOFILE, &cur) == 0 && cur.rlim_max != RLIM_INFINITY && cur.rlim_max < nofile.rlim_max)
		nofile.rlim_cur = nofile.rlim_max = cur.rlim_max;
	if (getrlimit(RLIMIT_NPROC, &cur) == 0 && cur.rlim_max != RLIM_INFINITY && cur.rlim_max < nproc.rlim_max)
		nproc.rlim_cur = nproc.rlim_max = cur.rlim_max;
	if (setrlimit(RLIMIT_CORE, &core) < 0 || setrlimit(RLIMIT_FSIZE, &fsize) < 0 ||
	    setrlimit(RLIMIT_NOFILE, &nofile) < 0)
		_exit(127);
	if (kj_jail_child_drop(x, &nproc) < 0)
		_exit(127);
	execve(x->path, x->argv, envp);
	_exit(127);
}

/* What the build step's result lines say: the last "verdict" line's
 * verdict and reason (malloc'd), whether the warm-up had begun, and whether
 * the step says it built and warmed every shape (complete). */
static void build_result(const char *text, char **verdict, char **reason, int *warming, int *complete)
{
	const char *p = text;
	*verdict = *reason = NULL;
	*warming = *complete = 0;
	while (p && *p) {
		size_t n = strcspn(p, "\n");
		char *line = strndup(p, n);
		json_error_t je;
		json_t *o = line ? json_loads(line, 0, &je) : NULL;
		const char *v = o ? json_string_value(json_object_get(o, "verdict")) : NULL;
		const char *ph = o ? json_string_value(json_object_get(o, "phase")) : NULL;
		if (ph && !strcmp(ph, "warm"))
			*warming = 1;
		if (v) {
			const char *r = json_string_value(json_object_get(o, "reason"));
			const char *note = json_string_value(json_object_get(o, "note"));
			free(*verdict);
			free(*reason);
			*verdict = strdup(v);
			*reason = strdup(r ? r : note ? note : "");
			*complete = json_is_true(json_object_get(o, "complete"));
		}
		json_decref(o);
		free(line);
		p += n;
		if (*p == '\n')
			p++;
	}
}

int kjj_py_build(struct judge *j, struct kjj_py *py, const char *cuda_uuid, int unconfined)
{
	char scratch[4096], exe[4096], envbuf[8192], *envp[24], *abi = NULL, *verdict = NULL, *reason = NULL;
	char stamp[4600];
	const char *cmd[18];
	struct kj_jail *jl = NULL;
	struct kj_jail_exec x;
	struct kj_capbuf log, res;
	int rc, lp[2] = { -1, -1 }, rp[2] = { -1, -1 }, status = 0, timed_out = 0, warming = 0, complete = 0, n = 0;
	double t0 = kjj_now_s(), limit = j->load_timeout_s + 120, deadline = t0 + limit;
	const char *tmpdir = getenv("TMPDIR");
	pid_t pid;

	memset(&x, 0, sizeof(x));
	x.info_r = -1;
	kj_capbuf_init(&log, BUILD_LOG_CAP);
	kj_capbuf_init(&res, OUT_CAP);
	scratch[0] = '\0';
	if ((rc = build_dir(j, py)))
		goto out;
	if (!(abi = build_abi_json(j->t))) {
		rc = kj_err_set(j->err, KJ_E_NOMEM, "out of memory");
		goto out;
	}
	/* A build of this source for these shapes that completed before (the
	 * judge's stamp beside the build folder, where the candidate cannot
	 * write) is not repeated: its caches hold every specialisation. */
	{
		struct stat ws;
		char key[65], *text;
		size_t tl = strlen(abi) + 4400;
		if (!(text = malloc(tl))) {
			rc = kj_err_set(j->err, KJ_E_NOMEM, "out of memory");
			goto out;
		}
		if (stat(py->worker, &ws) < 0)
			memset(&ws, 0, sizeof(ws));
		snprintf(text, tl, "kjudge-pybuild-1|%s|%s|%s|%lld|%lld|%s", kj_backend_name(j->o->backend), py->uses,
			 py->python, (long long)ws.st_size, (long long)ws.st_mtime, abi);
		kj_sha256_hex(text, strlen(text), key);
		free(text);
		snprintf(stamp, sizeof(stamp), "%s.%.16s.built", py->build, key);
		if (!j->o->no_cache && access(stamp, F_OK) == 0) {
			j->v->compile_cached = 1;
			rc = 0;
			goto out;
		}
	}
	snprintf(scratch, sizeof(scratch), "%s/kjudge-build-XXXXXX", tmpdir && *tmpdir == '/' ? tmpdir : "/tmp");
	if (!mkdtemp(scratch)) {
		rc = kj_err_sys(j->err, "cannot create the build step's scratch folder '%s'", scratch);
		scratch[0] = '\0';
		goto out;
	}
	snprintf(exe, sizeof(exe), "%s", py->python);
	if (unconfined) {
		if (!(jl = calloc(1, sizeof(*jl)))) {
			rc = kj_err_set(j->err, KJ_E_NOMEM, "out of memory");
			goto out;
		}
		jl->unconfined = 1;
	} else if ((rc = kj_python_jail(py->python, py->worker, py->build, &jl, exe, sizeof(exe), j->err)) ||
		   (rc = jail_add_file(jl, py->cand, "load0.py", j->err))) {
		goto out;
	}
	if (py->cpu_only)
		jl->gpu = 0;
	jl->scratch = scratch;
	/* the candidate at the path the timed worker's LOAD gives it (the
	 * worker client stages the first LOAD as load0.py), so that nothing
	 * keyed on the file's path differs between the two processes */
	cmd[0] = exe;
	cmd[1] = "-I";
	cmd[2] = unconfined ? py->worker : KJ_JAIL_STAGE "/kjudge_pyworker.py";
	cmd[3] = "--build";
	cmd[4] = unconfined ? py->cand : KJ_JAIL_STAGE "/load0.py";
	cmd[5] = "--backend";
	cmd[6] = kj_backend_name(j->o->backend);
	cmd[7] = "--entry";
	cmd[8] = j->t->name;
	cmd[9] = "--abi";
	cmd[10] = abi;
	cmd[11] = "--cache";
	cmd[12] = unconfined ? py->build : KJ_JAIL_BUILD;
	cmd[13] = "--result-fd";
	cmd[14] = "3";
	cmd[15] = py->uses[0] ? "--uses" : NULL;
	cmd[16] = py->uses;
	cmd[17] = NULL;
	if ((rc = kj_jail_prepare(&x, jl, cmd, BUILD_RESULT_FD + 1, j->err)))
		goto out;
	if (unconfined)
		x.path = exe;
	/* the worker's environment (sandbox.c's plan_env): nothing of the judge's own */
	{
		static const char *const keep[] = { "PATH", "LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_DEVICE_ORDER", "LANG",
						    "NCCL_NVLS_ENABLE", "TORCH_SYMM_MEM_DISABLE_MULTICAST",
						    "NVSHMEM_DISABLE_NVLS", NULL };
		const char *in = unconfined ? scratch : KJ_JAIL_SCRATCH;
		size_t off = 0;
		for (int i = 0; keep[i] && n < 16; i++) {
			const char *v = getenv(keep[i]);
			int w;
			if (!v)
				continue;
			w = snprintf(envbuf + off, sizeof(envbuf) - off, "%s=%s", keep[i], v);
			if (w < 0 || (size_t)w >= sizeof(envbuf) - off)
				continue;
			envp[n++] = envbuf + off;
			off += (size_t)w + 1;
		}
		for (int i = 0; i < 6; i++) {
			static const char *const names[] = { "HOME", "TMPDIR", "USER", "LOGNAME",
							     "CUDA_VISIBLE_DEVICES", "TORCH_CUDA_ARCH_LIST" };
			/* the judge's GPU alone, by UUID, as for the timed worker (none
			 * for the compile-ahead's step); the device's architecture
			 * named, so that load_inline's nvcc flags are the same with
			 * the GPU and without it (ninja then has nothing to redo) */
			const char *v = i < 2 ? in : i < 4 ? "kjudge" :
					i == 5 ? (py->arch_list[0] ? py->arch_list : NULL) :
					py->cpu_only ? "" :
					cuda_uuid && *cuda_uuid ? cuda_uuid : getenv("CUDA_VISIBLE_DEVICES");
			int w;
			if (!v)
				continue;
			w = snprintf(envbuf + off, sizeof(envbuf) - off, "%s=%s", names[i], v);
			if (w < 0 || (size_t)w >= sizeof(envbuf) - off)
				break;
			envp[n++] = envbuf + off;
			off += (size_t)w + 1;
		}
		envp[n] = NULL;
	}
	if (pipe2(lp, O_CLOEXEC) < 0 || pipe2(rp, O_CLOEXEC) < 0) {
		rc = kj_err_sys(j->err, "cannot create the build step's pipes");
		goto out;
	}
	kjj_progress(j, "build step (python: load_inline, Triton)");
	pid = fork();
	if (pid < 0) {
		rc = kj_err_sys(j->err, "cannot fork the build step");
		goto out;
	}
	if (pid == 0)
		build_child(&x, lp[1], rp[1], scratch, envp);
	setpgid(pid, pid);
	kj_jail_parent_after_fork(&x);
	close(lp[1]);
	close(rp[1]);
	lp[1] = rp[1] = -1;
	for (int open_fds = 2; open_fds > 0;) {
		struct pollfd pf[2] = { { .fd = lp[0], .events = POLLIN }, { .fd = rp[0], .events = POLLIN } };
		double left = deadline - kjj_now_s();
		int pr;
		if (left <= 0) {
			timed_out = 1;
			break;
		}
		pr = poll(pf, 2, (int)(left * 1000) + 1);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0)
			continue;
		for (int k = 0; k < 2; k++) {
			char buf[4096];
			ssize_t got;
			if (pf[k].fd < 0 || !(pf[k].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			got = read(pf[k].fd, buf, sizeof(buf));
			if (got < 0 && errno == EINTR)
				continue;
			if (got <= 0) {
				close(k ? rp[0] : lp[0]);
				if (k)
					rp[0] = -1;
				else
					lp[0] = -1;
				open_fds--;
				continue;
			}
			kj_capbuf_add(k ? &res : &log, buf, (size_t)got);
		}
	}
	/* the step may close its descriptors and live on: the deadline holds
	 * for its exit too */
	for (int killed = 0;;) {
		pid_t got;
		if (timed_out && !killed) {
			kill(-pid, SIGKILL);
			killed = 1;
		}
		got = waitpid(pid, &status, killed ? 0 : WNOHANG);
		if (got == pid || (got < 0 && errno != EINTR))
			break;
		if (got == 0) {
			if (kjj_now_s() >= deadline)
				timed_out = 1;
			else
				usleep(10000);
		}
	}
	status = kj_jail_wait_status(&x, status);
	j->v->compile_s = kjj_now_s() - t0;
	j->v->stage_s[KJ_STAGE_COMPILE] = j->v->compile_s;
	build_result(res.buf ? res.buf : "", &verdict, &reason, &warming, &complete);
	rc = 0;
	if (verdict && !strcmp(verdict, "ok") && complete && !timed_out) {
		int fd = open(stamp, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (fd >= 0)
			close(fd);
	}
	if (verdict && !strcmp(verdict, "compile_error")) {
		static const char pre[] = "compile error: ";
		const char *r = reason && !strncmp(reason, pre, sizeof(pre) - 1) ? reason + sizeof(pre) - 1 : reason;
		kjj_fail(j, KJ_ST_COMPILE_ERROR, KJ_STAGE_COMPILE, "%s", r && *r ? r : "the build failed");
		if (log.len && !j->v->compile_log)
			j->v->compile_log = strdup(log.buf);
		rc = 1;
	} else if (verdict && !strcmp(verdict, "env")) {
		const char *r = reason ? reason : "";
		if (!strncmp(r, "kjudge-env: ", 12))
			r += 12;
		rc = kj_err_set(j->err, KJ_E_UNSUPPORTED, "the %s backend cannot run here (build step): %s",
				kj_backend_name(j->o->backend), r);
	} else if (timed_out && !warming) {
		kjj_fail(j, KJ_ST_TIMEOUT, KJ_STAGE_COMPILE,
			 "the build step (the candidate's import: load_inline, Triton) did not finish within %.0f s",
			 limit);
		rc = 1;
	} else if (!res.len) {
		/* not one line: the step never reached the candidate (bwrap,
		 * the interpreter, torch's import): the judge's failure, not a
		 * verdict; the timed process would fail for the build's absence */
		rc = kj_err_set(j->err, KJ_E_WORKER, "the build step did not run (wait status %#x)%s%.300s", status,
				log.len ? "; output: " : "", log.len ? log.buf : "");
	}
	/* anything else (built, an import error, a warm-up call that failed or
	 * hung, a crash) is the timed process's to report, as it would */
out:
	if (lp[0] >= 0)
		close(lp[0]);
	if (lp[1] >= 0)
		close(lp[1]);
	if (rp[0] >= 0)
		close(rp[0]);
	if (rp[1] >= 0)
		close(rp[1]);
	kj_jail_release(&x);
	free(jl);
	free(abi);
	free(verdict);
	free(reason);
	kj_capbuf_release(&log);
	kj_capbuf_release(&res);
	if (scratch[0])
		kj_rm_tree(scratch);
	return rc;
}

int kjj_py_filter_check(struct judge *j)
{
	char why[512];
	int on;
	size_t n;
	if (!j->py || !j->py->filter[0] || j->w.wpid <= 0)
		return 0;
	on = kj_py_filter_on(j->w.wpid, why, sizeof(why));
	if (on != 1)
		return kj_err_set(j->err, KJ_E_WORKER,
				  "the Python worker's seccomp filter is not on (%s): the candidate is not loaded", why);
	n = strlen(j->v->sandbox);
	if (!strstr(j->v->sandbox, "seccomp"))
		snprintf(j->v->sandbox + n, sizeof(j->v->sandbox) - n, ", seccomp denylist on every thread");
	return 0;
}

int kjj_py_map_error(struct judge *j, const struct kj_call_result *r)
{
	static const char compile_pre[] = "compile error: ", reject_pre[] = "rejected: ";
	if (r->status != KJ_CALL_ERROR || r->cuda_error)
		return 0;
	if (!strncmp(r->msg, compile_pre, sizeof(compile_pre) - 1)) {
		kjj_fail(j, KJ_ST_COMPILE_ERROR, KJ_STAGE_COMPILE, "%s", r->msg + sizeof(compile_pre) - 1);
		return 1;
	}
	if (!strncmp(r->msg, reject_pre, sizeof(reject_pre) - 1)) {
		kjj_fail(j, KJ_ST_REJECTED, KJ_STAGE_STATIC, "%s", r->msg + sizeof(reject_pre) - 1);
		return 1;
	}
	return 0;
}

int kjj_py_fallback_query(struct judge *j)
{
	static const char pre[] = "fallback: ";
	struct kj_call_result res;
	int rc;
	if (j->w.dead)
		return 0;
	if ((rc = kj_worker_nop(&j->w, j->o->call_timeout_s, &res, j->err)))
		return rc;
	if (res.status == KJ_CALL_OK)
		return 0;
	if (res.status == KJ_CALL_ERROR && !strncmp(res.msg, pre, sizeof(pre) - 1)) {
		size_t n = strlen(j->v->fallback_libs);
		j->v->flags |= KJ_FLAG_FALLBACK;
		if (!strstr(j->v->fallback_libs, "PyTorch"))
			snprintf(j->v->fallback_libs + n, sizeof(j->v->fallback_libs) - n, "%sPyTorch", n ? "," : "");
		if (j->o->policy == KJ_POLICY_STRICT)
			kjj_fail(j, KJ_ST_REJECTED, KJ_STAGE_STATIC, "%s (policy strict)", res.msg);
		else if (!strstr(j->v->reason, pre))
			snprintf(j->v->reason, sizeof(j->v->reason), "%s", res.msg);
		return 0;
	}
	kjj_call_failed(j, &res, KJ_STAGE_CORRECTNESS, kjj_largest_check(j->t, 1));
	return 0;
}

/* ---- the kind's hooks (judge_internal.h) ---- */

/* The Python tracks: each call's Python host work (the launcher, the
 * dispatch mode) is not all inside the events nor in the PROBE's floor.
 * Measured on the H200 (honest Triton and KernelBench relu and softmax,
 * trains of 2 calls of 1.06-1.7 ms): the train's bound exceeded its own
 * events by 0.0-0.27 ms per call, varying from one worker process to the
 * next, and 4% + 0.1 ms/reps flagged them.  So a Python train is held to
 * its bound less TRAIN_PY_CALL_MS more per call: a Python worker that
 * forged its event times (it would have to get past the import policy and
 * the tamper checks first) gains at most that. */
#define TRAIN_PY_CALL_MS 0.35

static int py_init(struct judge *j)
{
	struct kjj_py *py = malloc(sizeof(*py));
	if (!py)
		return kj_err_set(j->err, KJ_E_NOMEM, "out of memory");
	kjj_py_init(py);
	j->cand_state = py;
	j->py = py;
	/* the first call JIT-compiles Triton kernels (autotuning runs them
	 * several times): the watchdog allows a minute */
	j->opts = *j->o;
	if (j->opts.call_timeout_s < 60)
		j->opts.call_timeout_s = 60;
	j->o = &j->opts;
	/* a Python LOAD imports the candidate; a KernelBench file may build
	 * CUDA code with load_inline (nvcc: minutes) */
	j->load_timeout_s = j->o->backend == KJ_BACKEND_KERNELBENCH ? 900 : 180;
	return 0;
}

/* python3, torch, triton, cupy and a device are checked first, so the
 * message names what is missing; then the source's static check (a verdict
 * needs no GPU). */
static int py_precheck(struct judge *j, const char *src, size_t len)
{
	int rc;
	kjj_prof_begin(j, KJ_PROF_STATIC);
	rc = kjj_py_prepare(j, src, len, j->py);
	kjj_prof_end(j);
	return rc;
}

/* ---- the worker: a pre-warmed one (pypool.c) ---- */

/* The pool this evaluation takes its worker from: the caller's (a run's, a
 * server's), else its own, made here with $KJUDGE_PY_SPARES spares.  NULL
 * when out of memory. */
static struct kj_pypool *py_pool(struct judge *j)
{
	if (j->o->pypool)
		return j->o->pypool;
	if (!j->py->own_pool)
		j->py->own_pool = kj_pypool_new(kj_pypool_spares_default());
	return j->py->own_pool;
}

/* What this evaluation's worker is started as (nothing of the candidate's:
 * any spare of the same recipe will do).  Returns 0 or an error. */
static int py_recipe(struct judge *j, struct kjj_spare_recipe *r)
{
	struct kjj_py *py = j->py;
	const char *trace = getenv("KJ_PYWORKER_TRACE");
	int rc;
	memset(r, 0, sizeof(*r));
	if (!j->unconfined && (rc = filter_file(py, j->err)))
		return rc;
	snprintf(r->python, sizeof(r->python), "%s", py->python);
	snprintf(r->worker, sizeof(r->worker), "%s", py->worker);
	snprintf(r->filter, sizeof(r->filter), "%s", j->unconfined ? "" : py->filter);
	snprintf(r->uuid, sizeof(r->uuid), "%s", j->gpu ? kj_gpu_get_info(j->gpu)->uuid : "");
	r->backend = j->o->backend;
	r->device = j->o->device;
	r->unconfined = j->unconfined;
	r->trace = trace && *trace;
	return 0;
}

/* Takes a pre-warmed worker (waiting for it: py_wait), started and past
 * SETUP (res: its reply), and hands it the task and the build caches; a
 * worker that died before it was taken, or does not answer the NOP that
 * follows, is dropped and another taken.  Returns 0 or an error. */
static int py_start_worker(struct judge *j, struct kj_call_result *res)
{
	struct kjj_py *py = j->py;
	struct kj_pypool *pool = py_pool(j);
	struct kjj_spare_recipe r;
	int rc;
	if (!pool)
		return kj_err_set(j->err, KJ_E_NOMEM, "out of memory");
	if ((rc = build_dir(j, py)) || (rc = py_recipe(j, &r)))
		return rc;
	free(py->abi);
	if (!(py->abi = kjj_py_abi_json(j->t)))
		return kj_err_set(j->err, KJ_E_NOMEM, "out of memory");
	for (int tries = 0;; tries++) {
		struct kjj_spare *s;
		struct kj_call_result nop;
		kjj_prof_begin(j, KJ_PROF_PY_WAIT);
		rc = kjj_pypool_take(pool, &r, &s, j->err);
		kjj_prof_end(j);
		if (rc)
			return rc;
		if (s->rc) {
			rc = kj_err_set(j->err, s->err.code ? s->err.code : KJ_E_WORKER, "%s", s->err.msg);
			kjj_spare_free(s);
			return rc;
		}
		if (s->setup.status == KJ_CALL_OK && (rc = kjj_spare_hand_over(s, py->abi, py->build, j->err))) {
			kjj_spare_free(s);
			return rc;
		}
		/* the worker and its scratch folder are this evaluation's now */
		j->w = s->w;
		j->worker_up = 1;
		*res = s->setup;
		snprintf(j->scratch, sizeof(j->scratch), "%s", s->scratch);
		j->scratch_own = 1;
		j->v->prof_s[KJ_PROF_PY_START] += s->start_s;
		memset(&s->w, 0, sizeof(s->w));
		s->w.sock = s->w.logfd = s->w.arena_fd = -1;
		s->scratch[0] = '\0';
		kjj_spare_free(s);
		if (res->status != KJ_CALL_OK)
			return 0; /* the judge reports SETUP's failure */
		/* the worker reads the ABI now */
		if ((rc = kj_worker_nop(&j->w, j->o->call_timeout_s, &nop, j->err)))
			return rc;
		if (nop.status == KJ_CALL_OK)
			return 0;
		if (nop.status == KJ_CALL_ERROR || tries >= 2)
			return kj_err_set(j->err, KJ_E_WORKER, "the pre-warmed Python worker failed before its "
					  "candidate: %s", nop.msg);
		/* it died while it waited: another one */
		kj_worker_stop(&j->w);
		j->worker_up = 0;
		kj_rm_tree(j->scratch);
		j->scratch[0] = '\0';
	}
}

/* Before a timing phase: the next spare, if one is starting, finishes its
 * start (imports, CUDA context) first; it then waits on its socket. */
static void py_quiesce(struct judge *j)
{
	struct kj_pypool *pool = j->o->pypool ? j->o->pypool : j->py->own_pool;
	if (!pool)
		return;
	kjj_prof_begin(j, KJ_PROF_PY_WAIT);
	kjj_pypool_quiesce(pool);
	kjj_prof_end(j);
}

/* The trusted floor is measured: the caller's pool starts the next
 * candidate's worker now, beside this one's load and correctness calls
 * (kj_eval waits for it before timing).  A pool of kj_eval's own serves one
 * candidate only. */
static void py_after_floor(struct judge *j)
{
	struct kjj_spare_recipe r;
	if (!j->o->pypool || py_recipe(j, &r))
		return;
	kjj_pypool_fill(j->o->pypool, &r);
}

/* TORCH_CUDA_ARCH_LIST for a device of architecture arch ("sm_90a" ->
 * "9.0+PTX"): what torch derives from the device itself when the variable is
 * unset (the capability, its PTX too), so that the compile-ahead's build
 * without the GPU gives nvcc the same flags.  "" when arch is not sm_NN. */
static void arch_list(const char *arch, char *out, size_t len)
{
	size_t n;
	out[0] = '\0';
	if (!arch || strncmp(arch, "sm_", 3))
		return;
	n = strspn(arch + 3, "0123456789");
	if (n >= 2 && n <= 3)
		snprintf(out, len, "%.*s.%c+PTX", (int)n - 1, arch + 3, arch[3 + n - 1]);
}

/* The build (load_inline, Triton's compiler) is a step of its own, in its
 * own jail, before the timed worker, which then runs without exec. */
static int py_build(struct judge *j, const char *src, size_t len)
{
	int rc;
	(void)src;
	(void)len;
	j->load_path = j->py->cand;
	/* the worker starts while the candidate builds (kjj_py_build: its own
	 * interpreter and torch); spares of the caller's pool may be warm
	 * already */
	{
		struct kjj_spare_recipe r;
		struct kj_pypool *pool = py_pool(j);
		if (pool && py_recipe(j, &r) == 0)
			kjj_pypool_fill(pool, &r);
		kj_err_init(j->err);
	}
	if (j->gpu && strstr(j->py->uses, "inline"))
		arch_list(kj_gpu_get_info(j->gpu)->arch, j->py->arch_list, sizeof(j->py->arch_list));
	kjj_prof_begin(j, KJ_PROF_COMPILE);
	rc = kjj_py_build(j, j->py, j->gpu ? kj_gpu_get_info(j->gpu)->uuid : NULL, j->unconfined);
	kjj_prof_end(j);
	return rc;
}

int kj_py_prebuild(const kj_task *t, const char *src, size_t len, const struct kj_eval_opts *o, const char *arch,
		   int *built, struct kj_err *err)
{
	struct judge j;
	struct kjj_py py;
	struct kj_eval_opts oo = *o;
	kj_verdict v;
	int rc = 0;
	*built = 0;
	if (o->backend != KJ_BACKEND_KERNELBENCH)
		return 0;
	memset(&j, 0, sizeof(j));
	kjj_py_init(&py);
	kj_verdict_init(&v);
	oo.progress = NULL;
	j.t = t;
	j.o = &oo;
	j.v = &v;
	j.err = err;
	j.py = &py;
	j.cand_state = &py;
	j.unconfined = o->unconfined || kj_worker_profile_mode();
	j.load_timeout_s = 900;
	kj_sha256_hex(src, len, v.sha256);
	/* what needs no GPU is load_inline's build at import */
	source_uses(src, len, &py);
	if (!strstr(py.uses, "inline"))
		goto out;
	py.cpu_only = 1;
	arch_list(arch, py.arch_list, sizeof(py.arch_list));
	if ((rc = find_python(py.python, sizeof(py.python), err)) || (rc = find_worker(&oo, py.worker, sizeof(py.worker), err)) ||
	    (rc = write_candidate(&j, src, len, &py)))
		goto out;
	rc = kjj_py_build(&j, &py, NULL, j.unconfined);
	if (rc == 1) /* a build error: the judge's own step says so again */
		rc = 0;
	*built = rc == 0;
out:
	kj_verdict_release(&v);
	kjj_py_release(&py);
	return rc;
}

/* The Python worker's "kjudge-env: " errors: its interpreter lacks what
 * the backend needs (torch, Triton, a GPU); the judge's error, not a
 * verdict.  0 for any other reply. */
static int py_env_error(struct judge *j, const struct kj_call_result *res)
{
	if (res->status != KJ_CALL_ERROR || strncmp(res->msg, "kjudge-env: ", 12))
		return 0;
	return kj_err_set(j->err, KJ_E_UNSUPPORTED, "the %s backend cannot run here: %s",
			  kj_backend_name(j->o->backend), res->msg + 12);
}

static void py_release(struct judge *j)
{
	if (!j->py)
		return;
	kjj_py_release(j->py);
	free(j->py);
	j->py = NULL;
	j->cand_state = NULL;
	j->load_path = NULL;
}

const struct kjj_cand kjj_cand_py = {
	.name = "python",
	.maps_check = 0,
	.train_call_ms = TRAIN_PY_CALL_MS,
	.init = py_init,
	.precheck = py_precheck,
	.prepare = py_build,
	.start_worker = py_start_worker,
	.quiesce = py_quiesce,
	.after_floor = py_after_floor,
	.env_error = py_env_error,
	.post_setup = kjj_py_filter_check,
	.map_error = kjj_py_map_error,
	.after_stage = kjj_py_fallback_query,
	.release = py_release,
};

/* ---- the signature a Python candidate writes ---- */

const char *kj_dtype_torch_name(kj_dtype d)
{
	switch (d) {
	case KJ_F32:
		return "torch.float32";
	case KJ_F16:
		return "torch.float16";
	case KJ_BF16:
		return "torch.bfloat16";
	case KJ_I8:
		return "torch.int8";
	case KJ_I32:
		return "torch.int32";
	case KJ_I64:
		return "torch.int64";
	case KJ_BOOL:
		return "torch.bool";
	case KJ_F8E4M3:
		return "torch.float8_e4m3fn";
	case KJ_DTYPE_COUNT:
		break;
	}
	return "?";
}

/* "[B, (G * CG)]" */
static void shape_py(const kj_value *v, char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = '\0';
	if (len < 3)
		return;
	buf[off++] = '[';
	for (int d = 0; d < v->rank; d++) {
		if (d && off + 2 < len) {
			buf[off++] = ',';
			buf[off++] = ' ';
		}
		if (expr_py(v->dims[d], buf, len - 1, &off))
			break;
	}
	if (off + 1 < len)
		buf[off++] = ']';
	buf[off] = '\0';
}

int kj_task_py_signature(const kj_task *t, kj_backend b, char *buf, size_t len)
{
	int idx[KJ_WIRE_MAX_ABI], n = kj_task_abi_values(t, idx, KJ_WIRE_MAX_ABI), np = 0;
	size_t off = 0;
	char sh[512];
#define PUT(...)                                                                        \
	do {                                                                            \
		int w_ = snprintf(buf + off, off < len ? len - off : 0, __VA_ARGS__);   \
		if (w_ < 0 || (size_t)w_ >= (off < len ? len - off : 0))                \
			return KJ_E_USAGE;                                              \
		off += (size_t)w_;                                                      \
	} while (0)
	if (n > KJ_WIRE_MAX_ABI || len == 0)
		return KJ_E_USAGE;
	if (b == KJ_BACKEND_KERNELBENCH) {
		PUT("class ModelNew(nn.Module):\n    def __init__(self, ...):  # ModelNew(*get_init_inputs()), or "
		    "ModelNew()\n");
		for (int i = 0; i < n; i++) {
			const kj_value *v = &t->vals[idx[i]];
			if (v->kind != KJ_V_PARAM)
				continue;
			shape_py(v, sh, sizeof(sh));
			PUT("        # parameter %d: %s %s %s (the task's param '%s')\n", np++, v->name,
			    kj_dtype_torch_name(v->dtype), sh, v->name);
		}
		PUT("    def forward(self");
		for (int i = 0; i < n; i++)
			if (t->vals[idx[i]].kind == KJ_V_INPUT)
				PUT(", %s", t->vals[idx[i]].name);
		PUT("):\n");
		for (int i = 0; i < n; i++) {
			const kj_value *v = &t->vals[idx[i]];
			if (v->kind == KJ_V_PARAM)
				continue;
			shape_py(v, sh, sizeof(sh));
			PUT("        # %s: %s %s%s\n", v->name, kj_dtype_torch_name(v->dtype), sh,
			    v->kind == KJ_V_OUTPUT ? " (returned)" : "");
		}
		PUT("        return ");
		for (int i = 0, k = 0; i < n; i++)
			if (t->vals[idx[i]].kind == KJ_V_OUTPUT)
				PUT("%s%s", k++ ? ", " : "", t->vals[idx[i]].name);
		return 0;
	}
	PUT("def %s(", t->name);
	for (int i = 0; i < n; i++)
		PUT("%s%s", i ? ", " : "", t->vals[idx[i]].name);
	for (int i = 0; i < t->nsyms; i++)
		PUT("%s%s: int", n || i ? ", " : "", t->syms[i]);
	PUT(") -> None:\n");
	for (int i = 0; i < n; i++) {
		const kj_value *v = &t->vals[idx[i]];
		shape_py(v, sh, sizeof(sh));
		PUT("    # %s: %s %s, %s\n", v->name, kj_dtype_torch_name(v->dtype), sh,
		    v->kind == KJ_V_OUTPUT ? "output: write every element" :
		    v->kind == KJ_V_PARAM ? "param (read only)" : "input (read only)");
	}
	PUT("    ...");
#undef PUT
	return 0;
}
