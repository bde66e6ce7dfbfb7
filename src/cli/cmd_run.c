/*
 * kjudge run: judges a batch of candidates into the results store.
 *
 * The SPEC (JSONL or a folder tree, docs/store.md) is loaded into the store
 * first, in one transaction and idempotently.  Then every candidate of the
 * run without a verdict is judged by the run engine, kj_record_run
 * (src/record/run.c: a compile pool, one evaluation thread per device, the
 * verdict cache, each verdict committed on its own), or, with
 * --enqueue-only, put into the cluster queue for `kjudge worker`.  This file
 * parses the options, loads the SPEC, and prints the progress and the
 * summary.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "kjudge/gpu.h"
#include "kjudge/cluster.h"
#include "kjudge/judge.h"
#include "kjudge/knobs.h"
#include "kjudge/record.h"
#include "kjudge/store.h"

#define MAX_DEVS KJ_RECORD_MAX_DEVS

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* ---- loading the SPEC ----------------------------------------------------- */

struct loader {
	kj_db *db;
	int64_t run_id;
	struct kj_record_tasks *tasks;
	int added, existing;
	int want_c, want_cu; /* folder trees: which extensions count */
	int want_py;         /* .py (the triton and kernelbench backends) */
	int skipped;
};

static int add_one(struct loader *L, const char *where, const char *task, const char *model,
		   const char *method, int sample, int round, const char *path, const char *source,
		   size_t len, struct kj_err *err)
{
	struct kj_store_candidate c;
	const kj_task *t;
	int64_t id;
	int created = 0, rc;
	if ((rc = kj_record_task_get(L->tasks, task, &t, NULL, err))) {
		kj_err_prefix(err, "%s", where);
		return rc;
	}
	memset(&c, 0, sizeof(c));
	c.run_id = L->run_id;
	c.task = t->id;
	c.source = source;
	c.source_len = len;
	c.model = model;
	c.method = method;
	c.path = path;
	c.sample = sample;
	c.round = round;
	if ((rc = kj_store_add_candidate(L->db, &c, &id, &created, err))) {
		kj_err_prefix(err, "%s", where);
		return rc;
	}
	if (created)
		L->added++;
	else
		L->existing++;
	return 0;
}

static int json_int(json_t *o, const char *k, int def, int *out)
{
	json_t *v = json_object_get(o, k);
	if (!v || json_is_null(v)) {
		*out = def;
		return 0;
	}
	if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 1000000000)
		return -1;
	*out = (int)json_integer_value(v);
	return 0;
}

/* A spec line's keys: a misspelt one ("sampel") would otherwise be ignored
 * and the candidate filed under sample 0. */
static int spec_keys(json_t *o, const char *where, struct kj_err *err)
{
	static const char *const known[] = { "task", "model", "method", "sample", "round", "path", "source" };
	const char *k;
	json_t *v;
	json_object_foreach(o, k, v) {
		size_t i;
		for (i = 0; i < sizeof(known) / sizeof(known[0]) && strcmp(k, known[i]); i++)
			;
		if (i == sizeof(known) / sizeof(known[0]))
			return kj_err_set(err, KJ_E_USAGE, "%s: unknown key \"%s\" (a spec line has task, model, "
					  "method, sample, round, and path or source)", where, k);
	}
	return 0;
}

static int json_str(json_t *o, const char *k, const char **out)
{
	json_t *v = json_object_get(o, k);
	*out = "";
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return -1;
	*out = json_string_value(v);
	return 0;
}

static int load_jsonl(struct loader *L, const char *spec, struct kj_err *err)
{
	char *text, *line, *next, dirbuf[PATH_MAX], base[PATH_MAX];
	size_t len;
	int lineno = 0, rc = 0;
	if ((rc = kj_cli_read_file(spec, &text, &len, err)))
		return rc;
	snprintf(dirbuf, sizeof(dirbuf), "%s", spec);
	snprintf(base, sizeof(base), "%s", dirname(dirbuf));
	for (line = text; line && *line && !rc; line = next) {
		json_t *o;
		json_error_t je;
		const char *task, *model, *method, *path, *src;
		char where[PATH_MAX + 32], full[2 * PATH_MAX + 2];
		char *buf = NULL;
		size_t blen = 0;
		int sample, round;
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		lineno++;
		while (*line == ' ' || *line == '\t' || *line == '\r')
			line++;
		if (!*line || *line == '#')
			continue;
		snprintf(where, sizeof(where), "%s:%d", spec, lineno);
		o = json_loads(line, 0, &je);
		if (!o || !json_is_object(o)) {
			rc = kj_err_set(err, KJ_E_USAGE, "%s: not a JSON object%s%s", where, o ? "" : ": ",
					o ? "" : je.text);
			json_decref(o);
			break;
		}
		if ((rc = spec_keys(o, where, err))) {
			json_decref(o);
			break;
		}
		if (json_str(o, "task", &task) || !*task || json_str(o, "model", &model) ||
		    json_str(o, "method", &method) || json_str(o, "path", &path) ||
		    json_str(o, "source", &src)) {
			rc = kj_err_set(err, KJ_E_USAGE, "%s: \"task\" must be a string, and \"model\", "
					"\"method\", \"path\", \"source\" strings when given", where);
		} else if (json_int(o, "sample", 0, &sample) || json_int(o, "round", 0, &round)) {
			rc = kj_err_set(err, KJ_E_USAGE, "%s: \"sample\" and \"round\" must be integers >= 0",
					where);
		} else if (!!*path == !!json_object_get(o, "source")) {
			rc = kj_err_set(err, KJ_E_USAGE, "%s: give exactly one of \"path\" and \"source\"",
					where);
		} else if (*path) {
			if (path[0] == '/')
				snprintf(full, sizeof(full), "%s", path);
			else
				snprintf(full, sizeof(full), "%s/%s", base, path);
			if ((rc = kj_cli_read_file(full, &buf, &blen, err)))
				kj_err_prefix(err, "%s", where);
			else
				rc = add_one(L, where, task, model, method, sample, round, full, buf, blen, err);
			free(buf);
		} else {
			rc = add_one(L, where, task, model, method, sample, round, "", src, strlen(src), err);
		}
		json_decref(o);
	}
	free(text);
	return rc;
}

/* <int>_<int>.<ext> */
static int parse_leaf(const char *name, int *sample, int *round, const char **ext)
{
	char *end;
	long a, b;
	if (name[0] < '0' || name[0] > '9')
		return -1;
	a = strtol(name, &end, 10);
	if (*end != '_' || end[1] < '0' || end[1] > '9')
		return -1;
	b = strtol(end + 1, &end, 10);
	if (*end != '.' || a > 1000000000 || b > 1000000000)
		return -1;
	*sample = (int)a;
	*round = (int)b;
	*ext = end + 1;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file under dir, as paths relative to root, sorted. */
static int walk(const char *root, const char *rel, int depth, char ***v, int *n)
{
	char path[2 * PATH_MAX];
	DIR *d;
	struct dirent *de;
	snprintf(path, sizeof(path), "%s%s%s", root, *rel ? "/" : "", rel);
	if (depth > 8 || !(d = opendir(path)))
		return 0;
	while ((de = readdir(d))) {
		char sub[2 * PATH_MAX], full[4 * PATH_MAX];
		struct stat st;
		if (de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", de->d_name);
		snprintf(full, sizeof(full), "%s/%s", root, sub);
		if (stat(full, &st))
			continue;
		if (S_ISDIR(st.st_mode)) {
			walk(root, sub, depth + 1, v, n);
		} else if (S_ISREG(st.st_mode)) {
			char **nv = realloc(*v, (size_t)(*n + 1) * sizeof(**v));
			if (!nv)
				break;
			*v = nv;
			(*v)[(*n)++] = strdup(sub);
		}
	}
	closedir(d);
	return 0;
}

static int load_tree(struct loader *L, const char *spec, struct kj_err *err)
{
	char **files = NULL;
	int n = 0, rc = 0;
	walk(spec, "", 0, &files, &n);
	if (n)
		qsort(files, (size_t)n, sizeof(*files), cmp_str);
	for (int i = 0; i < n && !rc; i++) {
		char *rel = files[i], *slash1 = strchr(rel, '/'), *last = strrchr(rel, '/');
		char model[256], task[PATH_MAX], full[2 * PATH_MAX + 2], *buf;
		const char *ext;
		size_t blen;
		int sample, round;
		if (!slash1 || last == slash1 || parse_leaf(last + 1, &sample, &round, &ext) ||
		    !((L->want_c && !strcmp(ext, "c")) || (L->want_cu && !strcmp(ext, "cu")) ||
		      (L->want_py && !strcmp(ext, "py")))) {
			L->skipped++;
			continue;
		}
		snprintf(model, sizeof(model), "%.*s", (int)(slash1 - rel), rel);
		snprintf(task, sizeof(task), "%.*s", (int)(last - slash1 - 1), slash1 + 1);
		if (!strchr(task, '/')) {
			/* one folder: level1__softmax */
			char *p;
			while ((p = strstr(task, "__"))) {
				*p = '/';
				memmove(p + 1, p + 2, strlen(p + 2) + 1);
			}
		}
		snprintf(full, sizeof(full), "%s/%s", spec, rel);
		if ((rc = kj_cli_read_file(full, &buf, &blen, err)))
			break;
		rc = add_one(L, full, task, model, "", sample, round, full, buf, blen, err);
		free(buf);
	}
	kj_cli_free_list(files, n);
	return rc;
}

static void fmt_dur(double s, char *buf, size_t n)
{
	long t = s > 0 && s < 1e8 ? (long)(s + 0.5) : 0;
	if (t >= 3600)
		snprintf(buf, n, "%ldh%02ldm", t / 3600, t / 60 % 60);
	else if (t >= 60)
		snprintf(buf, n, "%ldm%02lds", t / 60, t % 60);
	else
		snprintf(buf, n, "%lds", t);
}

struct show {
	double t0;
	int tty;
};

static void progress(void *ctx, const struct kj_record_run_stats *r, int final)
{
	const struct show *sh = ctx;
	char eta[32];
	int total = r->total, tty = sh->tty;
	double el = kj_cli_now_s() - sh->t0, rate = el > 0 ? 60.0 * r->done / el : 0;
	fmt_dur(rate > 0 ? (total - r->done) * 60.0 / rate : 0, eta, sizeof(eta));
	if (tty) {
		char bar[31];
		int w = total ? (int)(30.0 * r->done / total) : 30;
		for (int i = 0; i < 30; i++)
			bar[i] = i < w ? '#' : '.';
		bar[30] = 0;
		fprintf(stderr, "\r\033[K[%s] %d/%d  %.1f/min  ETA %s  (%d reused, %d failed)%s", bar,
			r->done, total, rate, final ? "0s" : eta, r->reused, r->failed, final ? "\n" : "");
	} else {
		fprintf(stderr, "kjudge run: %d/%d judged (%d reused, %d judge failures), %.1f/min, ETA %s\n",
			r->done, total, r->reused, r->failed, rate, final ? "0s" : eta);
	}
	fflush(stderr);
}

/* The engine's lines: a judge failure starts with a newline, which ends a
 * progress bar's line first. */
static void say(void *ctx, const char *line)
{
	(void)ctx;
	if (*line == '\n') {
		fputc('\n', stderr);
		line++;
	}
	fprintf(stderr, "kjudge run: %s\n", line);
}

static void usage(void)
{
	puts("usage: kjudge run SPEC [options]\n\n"
	     "Judges a batch of candidates into a SQLite or PostgreSQL store (docs/store.md,\n"
	     "docs/cluster.md), resumably:\n"
	     "kill it at any point and run the same command again to go on.\n\n"
	     "SPEC is a JSONL file, one candidate a line:\n"
	     "  {\"task\": \"level1/softmax\", \"model\": \"m\", \"sample\": 0, \"round\": 0, \"path\": \"a.cu\"}\n"
	     "(\"source\" inline instead of \"path\"; model, method, sample, round optional; paths\n"
	     "relative to the JSONL file), or a folder MODEL/TASK/SAMPLE_ROUND.{c,cu} where TASK\n"
	     "is nested folders (level1/softmax) or one folder level1__softmax.\n\n"
	     "  --db FILE|URL    the store: a SQLite file (default RUN.sqlite in the current\n"
	     "                   folder) or postgresql://user@host:port/db (docs/cluster.md)\n"
	     "  --enqueue-only   load the SPEC and put its pending candidates into the cluster\n"
	     "                   queue (PostgreSQL) for `kjudge worker`; judge nothing here\n"
	     "  --name RUN       the run's name (default: SPEC's name without extension)\n"
	     "  --backend B      cpu, cuda, triton or kernelbench (default: cuda when the SPEC has\n"
	     "                   .cu files, else cpu; triton and kernelbench judge .py files)\n"
	     "  --gpus LIST      CUDA devices, one evaluation thread each (default 0)\n"
	     "  --jobs N         compile threads (default: the number of CPUs)\n"
	     "  --order O        cost (default): candidates of the tasks that take longest to\n"
	     "                   judge first (estimated from their shapes' FLOPs and bytes),\n"
	     "                   so that the GPUs finish together; spec: the SPEC's order\n"
	     "  --seeds N        " KJ_CLI_HELP_SEEDS "\n"
	     "  --no-perf        " KJ_CLI_HELP_NO_PERF "\n"
	     "  --timeout S      " KJ_CLI_HELP_TIMEOUT "\n"
	     "  --perf-budget S  " KJ_CLI_HELP_PERF_BUDGET "\n"
	     "  --max-noise F    time until the median's ~95% half-width is within F of it\n"
	     "                   (default 0.005); the CPU track samples past the budget for it\n"
	     "  --policy P       flag (default) or strict: library fallbacks flagged or rejected\n"
	     "  --cache DIR      " KJ_CLI_HELP_CACHE "\n"
	     "  --seed-secret-file F\n"
	     "                   hidden-seed mode, the secret read from F (or $KJUDGE_SEED_SECRET)\n"
	     "  --unsafe-no-sandbox\n"
	     "                   run candidates without the sandbox: only code you trust\n"
	     "  --json           print a JSON summary on stdout\n"
	     "  --quiet          no progress on stderr\n\n"
	     "exit status: 0 every candidate has a verdict, 1 interrupted (candidates left),\n"
	     "2 usage or SPEC error, 3 the judge failed on some candidates (left pending)");
}

static int spec_backend(const char *spec, int is_dir_spec)
{
	/* .cu anywhere in the SPEC means the CUDA track */
	char *text;
	size_t len;
	int cu = 0;
	if (is_dir_spec) {
		char **files = NULL;
		int n = 0;
		walk(spec, "", 0, &files, &n);
		for (int i = 0; i < n && !cu; i++) {
			size_t l = strlen(files[i]);
			cu = l > 3 && !strcmp(files[i] + l - 3, ".cu");
		}
		kj_cli_free_list(files, n);
		return cu;
	}
	if (kj_cli_read_file(spec, &text, &len, NULL))
		return 0;
	cu = strstr(text, ".cu\"") != NULL;
	free(text);
	return cu;
}

/* --enqueue-only: the run's pending candidates into the cluster queue, for
 * `kjudge worker` processes to judge (docs/cluster.md). */
static int enqueue(kj_db *db, int64_t run_id, kj_backend be, const char *name, const char *shown,
		   int added, int json, struct kj_err *err)
{
	struct kj_store_counts cnt;
	struct kj_cluster_counts q;
	int jobs = 0, requeued = 0;
	if (kj_cluster_enqueue(db, run_id, &jobs, &requeued, err) ||
	    kj_store_run_counts(db, run_id, &cnt, err) ||
	    kj_cluster_counts(db, run_id, NULL, &q, err)) {
		fprintf(stderr, "kjudge run: %s\n", err->msg);
		return KJ_EXIT_JUDGE;
	}
	if (json) {
		json_t *o = json_pack("{s:s,s:s,s:s,s:I,s:I,s:I,s:i,s:i,s:i,s:{s:I,s:I,s:I,s:I}}", "run", name,
				      "db", shown, "backend", kj_backend_name(be), "candidates",
				      (json_int_t)cnt.candidates, "judged", (json_int_t)cnt.judged, "pending",
				      (json_int_t)(cnt.candidates - cnt.judged), "added", added, "jobs_added",
				      jobs, "jobs_requeued", requeued, "queue", "queued", (json_int_t)q.queued,
				      "running", (json_int_t)q.running, "done", (json_int_t)q.done, "failed",
				      (json_int_t)q.failed);
		char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
		puts(s ? s : "{}");
		free(s);
		json_decref(o);
	} else {
		printf("run %s (%s): %lld candidates, %lld pending; %d jobs added, %d requeued; queue: "
		       "%lld queued, %lld running, %lld done, %lld failed\n", name, shown,
		       (long long)cnt.candidates, (long long)(cnt.candidates - cnt.judged), jobs, requeued,
		       (long long)q.queued, (long long)q.running, (long long)q.done, (long long)q.failed);
	}
	return KJ_EXIT_OK;
}

static int load_task(void *ctx, const char *key, kj_task **out, struct kj_err *err)
{
	(void)ctx;
	return kj_cli_load_task(key, out, err);
}

/* The run's name: --name, else the SPEC's name without its extension. */
static int run_name(const char *name_arg, const char *spec, int is_dir_spec, char *name, size_t n)
{
	if (name_arg) {
		snprintf(name, n, "%s", name_arg);
	} else {
		char tmp[PATH_MAX], *b, *dot;
		snprintf(tmp, sizeof(tmp), "%s", spec);
		while (strlen(tmp) > 1 && tmp[strlen(tmp) - 1] == '/')
			tmp[strlen(tmp) - 1] = 0;
		b = basename(tmp);
		snprintf(name, n, "%s", b);
		dot = strrchr(name, '.');
		if (dot && dot != name && !is_dir_spec)
			*dot = 0;
	}
	if (!name[0] || !strcmp(name, ".") || !strcmp(name, "/"))
		return kj_cli_usage_error("run", "cannot name the run from '%s': give --name", spec);
	return 0;
}

/* The summary on stdout: JSON, or a line and the counts per status. */
static void summary(const char *name, const char *shown, kj_backend be, int added,
		    const struct kj_store_counts *cnt, const struct kj_record_run_stats *r, double t0,
		    int json)
{
	if (json) {
		json_t *o = json_object(), *bs = json_object();
		char *s;
		for (int k = 0; k < KJ_ST_COUNT; k++)
			json_object_set_new(bs, kj_status_name((kj_status)k), json_integer(cnt->by_status[k]));
		json_object_set_new(o, "run", json_string(name));
		json_object_set_new(o, "db", json_string(shown));
		json_object_set_new(o, "backend", json_string(kj_backend_name(be)));
		json_object_set_new(o, "candidates", json_integer(cnt->candidates));
		json_object_set_new(o, "judged", json_integer(cnt->judged));
		json_object_set_new(o, "reused", json_integer(cnt->reused));
		json_object_set_new(o, "pending", json_integer(cnt->candidates - cnt->judged));
		json_object_set_new(o, "by_status", bs);
		json_object_set_new(o, "this_run", json_pack("{s:i,s:i,s:i,s:i}", "added", added,
							     "judged", r->judged, "reused", r->reused,
							     "judge_failures", r->failed));
		json_object_set_new(o, "interrupted", json_boolean(stop_requested));
		json_object_set_new(o, "seconds", json_real(kj_cli_now_s() - t0));
		{
			/* per evaluation thread (GPU, or the CPU track's one lane) */
			json_t *ds = json_array(), *tot = json_object();
			double sum[KJ_PROF_COUNT] = { 0 }, rec = 0;
			json_int_t hits = 0, stored = 0;
			for (int d = 0; d < r->ndevs; d++) {
				const struct kj_record_dev_stats *dv0 = &r->devs[d];
				json_t *dv = json_pack("{s:i,s:I,s:i,s:f,s:f,s:f,s:f}", "ordinal", dv0->ordinal,
						       "device_id", (json_int_t)dv0->id, "jobs", dv0->jobs,
						       "first_start_s", dv0->first_start, "last_end_s",
						       dv0->last_end, "busy_s", dv0->busy, "wait_s", dv0->wait);
				json_t *pf = json_object();
				for (int p = 0; p < KJ_PROF_COUNT; p++) {
					json_object_set_new(pf, kj_prof_name((kj_prof)p), json_real(dv0->prof[p]));
					sum[p] += dv0->prof[p];
				}
				json_object_set_new(pf, "record", json_real(dv0->record));
				rec += dv0->record;
				json_object_set_new(dv, "profile_s", pf);
				json_object_set_new(dv, "ref_cache", json_pack("{s:I,s:I}", "hits",
						    (json_int_t)dv0->ref_cache_hits, "stored",
						    (json_int_t)dv0->ref_cache_stored));
				hits += dv0->ref_cache_hits;
				stored += dv0->ref_cache_stored;
				json_array_append_new(ds, dv);
			}
			json_object_set_new(o, "devices", ds);
			/* where the evaluation threads' busy time went, summed over
			 * the judged candidates (verdict "profile_seconds") */
			for (int p = 0; p < KJ_PROF_COUNT; p++)
				json_object_set_new(tot, kj_prof_name((kj_prof)p), json_real(sum[p]));
			json_object_set_new(tot, "record", json_real(rec));
			json_object_set_new(o, "profile_s", tot);
			/* the reference cache's hits and fills over the judged
			 * candidates (verdict "ref_cache") */
			json_object_set_new(o, "ref_cache", json_pack("{s:I,s:I}", "hits", hits, "stored", stored));
		}
		s = json_dumps(o, JSON_COMPACT);
		puts(s ? s : "{}");
		free(s);
		json_decref(o);
	} else {
		printf("run %s (%s): %lld candidates, %lld with a verdict (%lld reused), %lld pending; "
		       "%.1f s\n", name, shown, (long long)cnt->candidates, (long long)cnt->judged,
		       (long long)cnt->reused, (long long)(cnt->candidates - cnt->judged), kj_cli_now_s() - t0);
		for (int k = 0; k < KJ_ST_COUNT; k++)
			if (cnt->by_status[k])
				printf("  %-14s %lld\n", kj_status_name((kj_status)k), (long long)cnt->by_status[k]);
	}
}

/* The run's settings as its runs row keeps them (kjudge worker reads them
 * back): the judge options, the GPUs, the compile threads, the baseline
 * knobs set.  0, or an error with err set. */
static int run_settings(const struct kj_eval_opts *e, const int *gpus, int ngpus, int jobs, char *out,
			size_t n, struct kj_err *err)
{
	char gl[MAX_DEVS * 4 + 1] = "", knobs[KJ_KNOBS_KEY_MAX] = "";
	int rc;
	for (int i = 0; i < ngpus; i++)
		snprintf(gl + strlen(gl), sizeof(gl) - strlen(gl), "%s%d", i ? "," : "", gpus[i]);
	/* the baseline knobs set (names and small values: no JSON escapes) */
	if (kj_backend_is_gpu(e->backend) && (rc = kj_knobs_key(knobs, sizeof(knobs), err)))
		return rc;
	snprintf(out, n,
		 "{\"seeds\": %d, \"no_perf\": %s, \"timeout\": %g, \"perf_budget\": %g, "
		 "\"policy\": \"%s\", \"gpus\": \"%s\", \"jobs\": %d%s%s%s}",
		 e->seeds, e->no_perf ? "true" : "false", e->call_timeout_s, e->perf_budget_s,
		 e->policy == KJ_POLICY_STRICT ? "strict" : "flag", kj_backend_is_gpu(e->backend) ? gl : "",
		 jobs, *knobs ? ", \"baseline_knobs\": \"" : "", knobs, *knobs ? "\"" : "");
	return 0;
}

/* The SPEC into L's run, in one transaction: all of it or nothing.  Returns
 * KJ_EXIT_OK, KJ_EXIT_USAGE (a SPEC that cannot be taken: nothing written)
 * or KJ_EXIT_JUDGE (the store failed), with err set. */
static int load_spec(struct loader *L, const char *spec, int is_dir_spec, kj_backend be,
		     struct kj_err *err)
{
	int rc, linked = 0;
	L->want_c = be == KJ_BACKEND_CPU;
	L->want_cu = be == KJ_BACKEND_CUDA;
	L->want_py = kj_backend_is_python(be);
	if (kj_store_begin(L->db, err))
		return KJ_EXIT_JUDGE;
	rc = is_dir_spec ? load_tree(L, spec, err) : load_jsonl(L, spec, err);
	if (!rc)
		rc = kj_store_link_parents(L->db, L->run_id, &linked, err);
	if (rc) {
		kj_store_rollback(L->db, NULL);
		return KJ_EXIT_USAGE;
	}
	return kj_store_commit(L->db, err) ? KJ_EXIT_JUDGE : KJ_EXIT_OK;
}

int cmd_run(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "db", 1, 0, 'd' },      { "name", 1, 0, 'n' },        { "backend", 1, 0, 'b' },
		{ "gpus", 1, 0, 'g' },    { "jobs", 1, 0, 'J' },        KJ_CLI_JUDGE_LONGOPTS,
		{ "json", 0, 0, 'j' },    { "quiet", 0, 0, 'q' },       { "help", 0, 0, 'h' },
		{ "enqueue-only", 0, 0, 'E' }, { "order", 1, 0, 'O' }, { 0, 0, 0, 0 }
	};
	struct kj_record_run_opts ro;
	struct kj_record_run_stats rs;
	struct kj_record_tasks tasks;
	struct show sh;
	struct loader L;
	struct kj_err err;
	struct kj_store_counts cnt;
	struct sigaction sa, old_int, old_term;
	struct stat st;
	kj_db *db = NULL;
	int64_t run_id = 0;
	char worker[PATH_MAX + 32], inc[PATH_MAX + 32], name[256] = "", dbpath[PATH_MAX + 16] = "";
	char settings[512 + KJ_KNOBS_KEY_MAX], *end, shown[PATH_MAX + 16], cache_dir[PATH_MAX];
	const char *db_arg = NULL, *name_arg = NULL, *spec;
	int c, json = 0, quiet = 0, have_backend = 0, gpus[MAX_DEVS] = { 0 }, ngpus = 1, jobs, rc = 0;
	int is_dir_spec, exit_code = KJ_EXIT_OK, enqueue_only = 0, order_cost = 1;
	double t0 = kj_cli_now_s();

	memset(&ro, 0, sizeof(ro));
	memset(&rs, 0, sizeof(rs));
	kj_eval_opts_init(&ro.eval);
	jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (jobs < 1)
		jobs = 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'd':
			db_arg = optarg;
			break;
		case 'n':
			name_arg = optarg;
			break;
		case 'b':
			if (kj_backend_from_name(optarg, &ro.eval.backend))
				return kj_cli_usage_error("run", "unknown backend '%s' (cpu, cuda, triton or kernelbench)", optarg);
			have_backend = 1;
			break;
		case 'g':
			if ((rc = kj_cli_gpus_option("run", optarg, gpus, &ngpus, MAX_DEVS)))
				return rc;
			break;
		case 'J':
			jobs = (int)strtol(optarg, &end, 10);
			if (*end || jobs < 1 || jobs > 1024)
				return kj_cli_usage_error("run", "--jobs wants 1..1024, got '%s'", optarg);
			break;
		case 'j':
			json = 1;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'E':
			enqueue_only = 1;
			break;
		case 'O':
			if (strcmp(optarg, "cost") && strcmp(optarg, "spec"))
				return kj_cli_usage_error("run", "--order wants cost or spec, got '%s'", optarg);
			order_cost = !strcmp(optarg, "cost");
			break;
		case 'h':
			usage();
			return KJ_EXIT_OK;
		default:
			if ((rc = kj_cli_eval_option("run", c, optarg, &ro.eval)) != 1)
				return rc ? rc : kj_cli_usage_error("run", "unknown option");
			break;
		}
	}
	if (optind != argc - 1)
		return kj_cli_usage_error("run", "expected one SPEC (a JSONL file or a folder)");
	spec = argv[optind];
	if (stat(spec, &st))
		return kj_cli_usage_error("run", "cannot read SPEC '%s': %s", spec, strerror(errno));
	is_dir_spec = S_ISDIR(st.st_mode);
	if (!have_backend && spec_backend(spec, is_dir_spec))
		ro.eval.backend = KJ_BACKEND_CUDA;
	if ((rc = run_name(name_arg, spec, is_dir_spec, name, sizeof(name))))
		return rc;
	kj_cli_db_path(db_arg, name, dbpath, sizeof(dbpath));
	if (enqueue_only && !kj_store_is_url(dbpath))
		return kj_cli_usage_error("run", "--enqueue-only needs --db postgresql://...: the cluster "
					  "queue lives in PostgreSQL (docs/cluster.md)");
	kj_store_redact(dbpath, shown, sizeof(shown));

	kj_err_init(&err);
	if (kj_cache_dir(ro.eval.cache_dir, cache_dir, sizeof(cache_dir), &err)) {
		fprintf(stderr, "kjudge run: %s\n", err.msg);
		return KJ_EXIT_USAGE;
	}
	if (kj_backend_is_gpu(ro.eval.backend) && !kj_gpu_available()) {
		fprintf(stderr, "kjudge run: the %s backend needs a CUDA device and a kjudge built with "
				"nvcc; use --backend cpu here\n", kj_backend_name(ro.eval.backend));
		return KJ_EXIT_USAGE;
	}
	kj_cli_judge_paths(worker, sizeof(worker), inc, sizeof(inc));
	ro.eval.worker_path = worker;
	ro.eval.include_dir = inc;
	ro.eval.cache_dir = cache_dir;
	kj_cli_seed_secret_env(&ro.eval);
	if (run_settings(&ro.eval, gpus, ngpus, jobs, settings, sizeof(settings), &err)) {
		fprintf(stderr, "kjudge run: %s\n", err.msg);
		return KJ_EXIT_USAGE;
	}

	kj_record_tasks_init(&tasks, load_task, NULL);
	if ((rc = kj_store_open(dbpath, &db, &err)))
		goto judge_err;
	if ((rc = kj_store_run_get_or_create(db, name, kj_backend_name(ro.eval.backend), spec, settings,
					     &run_id, &err))) {
		fprintf(stderr, "kjudge run: %s\n", err.msg);
		exit_code = KJ_EXIT_USAGE;
		goto out;
	}
	/* a task's row is written when the SPEC or a pending candidate names it first */
	tasks.db = db;

	memset(&L, 0, sizeof(L));
	L.db = db;
	L.run_id = run_id;
	L.tasks = &tasks;
	if ((exit_code = load_spec(&L, spec, is_dir_spec, ro.eval.backend, &err))) {
		fprintf(stderr, "kjudge run: %s\n", err.msg);
		goto out;
	}
	if (!quiet)
		fprintf(stderr, "kjudge run: run '%s' in %s: %d candidates added, %d already there%s\n", name,
			shown, L.added, L.existing, L.skipped ? " (some files skipped: not SAMPLE_ROUND.ext)" : "");

	if (enqueue_only) {
		exit_code = enqueue(db, run_id, ro.eval.backend, name, shown, L.added, json, &err);
		goto out;
	}

	sh.t0 = t0;
	sh.tty = isatty(2);
	ro.db = db;
	ro.run_id = run_id;
	ro.tasks = &tasks;
	ro.gpus = gpus;
	ro.ngpus = ngpus;
	ro.jobs = jobs;
	ro.order_cost = order_cost;
	ro.stop = &stop_requested;
	ro.progress = quiet ? NULL : progress;
	ro.log = say;
	ro.ctx = &sh;
	ro.t0 = t0;
	ro.tty = sh.tty;
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* a second ^C kills at once */
	sa.sa_flags = SA_RESETHAND | SA_RESTART;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	rc = kj_record_run(&ro, &rs, &err);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (rc || (rc = kj_store_run_counts(db, run_id, &cnt, &err)))
		goto judge_err;
	if (cnt.judged < cnt.candidates)
		exit_code = rs.failed ? KJ_EXIT_JUDGE : KJ_EXIT_FAIL;
	summary(name, shown, ro.eval.backend, L.added, &cnt, &rs, t0, json);
	if (stop_requested && !quiet)
		fprintf(stderr, "kjudge run: interrupted; run the same command again to go on\n");
	goto out;
judge_err:
	fprintf(stderr, "kjudge run: %s\n", err.msg);
	exit_code = KJ_EXIT_JUDGE;
out:
	kj_record_tasks_release(&tasks);
	kj_store_close(db);
	return exit_code;
}
