/* The results store: migrations, idempotent candidates, verdicts and their
 * cache, transactions that leave nothing half-written when interrupted, and
 * the reads of reports and refine (on a store opened read-only). */
#include <signal.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kjudge/cluster.h"
#include "kjudge/hash.h"
#include "kjudge/store.h"
#include "store/schema.h"
#include "store_testlib.h"
#include "tap.h"

static const char task_text[] =
	"task relu\nlevel 1\ncategory Activation\nabout \"ReLU\"\n"
	"input  x: f32[B, D] ~ normal\noutput y: f32[B, D]\ny = relu(x)\n"
	"check B=1 D=1; B=3 D=5\nbench B=64 D=64 weight=0.7; B=32 D=128 weight=0.3\n";


static char *q_str(kj_db *s, const char *sql)
{
	sqlite3_stmt *st;
	char *v = NULL;
	if (sqlite3_prepare_v2(kj_store_sqlite(s), sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		v = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return v;
}

/* A verdict as the judge would fill it: a pass with 2 checks and 2 timed shapes. */
static void fake_verdict(kj_verdict *v, const kj_task *t, const char *src, int dup_check)
{
	kj_verdict_init(v);
	snprintf(v->task, sizeof(v->task), "%s", t->id);
	v->backend = KJ_BACKEND_CPU;
	kj_sha256_hex(src, strlen(src), v->sha256);
	v->status = KJ_ST_PASS;
	v->stage = KJ_STAGE_DONE;
	v->flags = KJ_FLAG_UNSTABLE_TIMING;
	v->seeds = 1;
	v->nchecks = v->capchecks = 2;
	v->checks = calloc(2, sizeof(*v->checks));
	for (int i = 0; i < 2; i++) {
		v->checks[i].bind = dup_check ? 0 : i;
		v->checks[i].pass = 1;
		v->checks[i].max_abs = 0.5 * i;
		/* check 1 passed on the error budget; check 0 has no baseline */
		snprintf(v->checks[i].budget_metric, sizeof(v->checks[i].budget_metric), "elementwise");
		v->checks[i].tol_ratio = i ? 2.5 : 0.5;
		v->checks[i].base_tol_ratio = i ? 1.0 : NAN;
		v->checks[i].budget = i ? 4.0 : 1.0;
		v->checks[i].budget_used = i;
		snprintf(v->checks[i].output, sizeof(v->checks[i].output), "y");
	}
	v->nperf = 2;
	v->perf = calloc(2, sizeof(*v->perf));
	for (int i = 0; i < 2; i++) {
		kj_perf *p = &v->perf[i];
		p->bind = 2 + i;
		p->weight = t->binds[2 + i].weight;
		p->ms = 1.0 + i;
		p->n = 10;
		p->baseline_ms = 2.0 + i;
		p->baseline_n = 10;
		p->speedup = p->baseline_ms / p->ms;
		p->sol_ms = -1;
		p->sol_frac = p->iou = p->mfu = -1;
	}
	v->speedup = 1.7;
	v->total_s = 0.25;
	snprintf(v->device, sizeof(v->device), "test cpu");
}

static int64_t add(kj_db *s, int64_t run, const char *src, const char *model, int sample, int round,
		   int *created, struct kj_err *err)
{
	struct kj_store_candidate c;
	int64_t id = 0;
	memset(&c, 0, sizeof(c));
	c.run_id = run;
	c.task = "t/relu";
	c.source = src;
	c.source_len = strlen(src);
	c.model = model;
	c.sample = sample;
	c.round = round;
	if (kj_store_add_candidate(s, &c, &id, created, err))
		return -1;
	return id;
}

static int count_cb(void *ctx, const struct kj_store_cand *c)
{
	int64_t *v = ctx;
	v[1 + v[0]++ % 8] = c->id;
	return 0;
}

static void test_open_and_migrate(void)
{
	struct kj_err err;
	kj_db *s = NULL;
	char *mode;
	FILE *f;
	int latest = kj_store_schema_latest();
	kj_err_init(&err);
	ok(latest >= 1, "the embedded schema has %d migration step(s)", latest);
	is_int(kj_store_open(tmp_path("a.sqlite"), &s, &err), 0, "open creates a new database");
	is_int(kj_store_schema_version(s, &err), latest, "a new database is migrated to the latest step");
	mode = q_str(s, "PRAGMA journal_mode");
	is_str(mode, "wal", "journal mode is WAL");
	free(mode);
	is_int(q_int(s, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('runs', "
		     "'devices', 'calibrations', 'tasks', 'candidates', 'verdicts', 'verdict_shapes', "
		     "'verdict_checks', 'baselines', 'judgements')"),
	       10, "every table of docs/store.md exists");
	is_int(q_int(s, "PRAGMA foreign_keys"), 1, "foreign keys are enforced");
	kj_store_close(s);
	s = NULL;
	is_int(kj_store_open(tmp_path("a.sqlite"), &s, &err), 0, "reopening a migrated database works");
	is_int(kj_store_schema_version(s, &err), latest, "and leaves its version alone");
	sqlite3_exec(kj_store_sqlite(s), "PRAGMA user_version = 999", NULL, NULL, NULL);
	kj_store_close(s);
	s = NULL;
	is_int(kj_store_open(tmp_path("a.sqlite"), &s, &err), KJ_E_UNSUPPORTED,
	       "a database from a newer kjudge is refused");
	like(err.msg, "newer kjudge", "and the message says why");
	ok(s == NULL, "no store is handed out then");
	f = fopen(tmp_path("junk.sqlite"), "w");
	fputs("this is not a database, not at all, but long enough to have a header page....\n", f);
	fclose(f);
	is_int(kj_store_open(tmp_path("junk.sqlite"), &s, &err), KJ_E_IO, "a file that is no database is an I/O error");
	like(err.msg, "junk.sqlite", "naming the file");
}

/* A database at step 4 (runs.backend cpu or cuda only) with a run and a
 * candidate: opening it applies step 5, which keeps both and widens the
 * CHECK to the Python backends, the table's references intact. */
static void test_migrate_backends(void)
{
	struct kj_err err;
	kj_db *s = NULL;
	sqlite3 *db = NULL;
	int64_t run = 0;
	struct kj_schema_step st[KJ_SCHEMA_MAX_STEPS];
	int n = kj_schema_steps(kj_store_schema_sql, st, KJ_SCHEMA_MAX_STEPS), okay = n >= 5;
	kj_err_init(&err);
	okay = okay && sqlite3_open(tmp_path("old4.sqlite"), &db) == SQLITE_OK &&
	       sqlite3_exec(db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL) == SQLITE_OK;
	for (int i = 0; okay && i < 4; i++) {
		char *sql = strndup(st[i].sql, st[i].len), ver[48];
		snprintf(ver, sizeof(ver), "PRAGMA user_version = %d", i + 1);
		okay = sql && sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK &&
		       sqlite3_exec(db, ver, NULL, NULL, NULL) == SQLITE_OK;
		free(sql);
	}
	okay = okay && sqlite3_exec(db, "INSERT INTO tasks (id) VALUES ('t/relu'); "
				    "INSERT INTO runs (id, name, backend) VALUES (7, 'old', 'cuda'); "
				    "INSERT INTO candidates (run_id, task, source, sha256) VALUES (7, 't/relu', 'x', 'y')",
				    NULL, NULL, NULL) == SQLITE_OK;
	ok(okay && sqlite3_exec(db, "INSERT INTO runs (name, backend) VALUES ('py', 'triton')", NULL, NULL, NULL) !=
			   SQLITE_OK,
	   "at step 4 a triton run is refused by the table's CHECK");
	sqlite3_close(db);
	is_int(kj_store_open(tmp_path("old4.sqlite"), &s, &err), 0, "opening it migrates: %s", err.msg);
	is_int(kj_store_schema_version(s, &err), kj_store_schema_latest(), "to the latest step");
	is_int(q_int(s, "SELECT count(*) FROM runs r JOIN candidates c ON c.run_id = r.id WHERE r.id = 7 AND "
		     "r.backend = 'cuda'"),
	       1, "the old run and its candidate are kept");
	is_int(kj_store_run_get_or_create(s, "py", "triton", NULL, NULL, &run, &err), 0, "a triton run is taken now");
	ok(sqlite3_exec(kj_store_sqlite(s), "INSERT INTO runs (name, backend) VALUES ('bad', 'rocm')", NULL, NULL,
			NULL) != SQLITE_OK,
	   "and the CHECK still refuses an unknown backend");
	is_int(q_int(s, "SELECT count(*) FROM pragma_foreign_key_check"), 0, "no reference is broken");
	is_int(q_int(s, "SELECT count(*) FROM sqlite_master WHERE name = 'kj_schema_bump'"), 0,
	       "the table that moved the schema cookie is gone");
	kj_store_close(s);
}

static void test_schema_file(void)
{
	FILE *f = fopen("src/store/schema.sql", "rb");
	char *buf;
	long n;
	if (!f) {
		ok(1, "# SKIP not run from the repository root: cannot compare the embedded schema");
		return;
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)n + 1);
	if (fread(buf, 1, (size_t)n, f) != (size_t)n)
		n = -1;
	fclose(f);
	ok(n >= 0 && !strcmp(buf, kj_store_schema_sql),
	   "the embedded schema is src/store/schema.sql (rebuild src/store/schema.o if not)");
	free(buf);
}

static void test_candidates_and_verdicts(const kj_task *t)
{
	struct kj_err err;
	kj_db *s = NULL;
	int64_t run = 0, run2 = 0, c1, c2, c3, c4, found, dev = 0, dev2 = 0, jid = 0, pend[9] = { 0 };
	int created = -1, linked = -1;
	kj_verdict v;
	char *json = NULL, *str;
	kj_status st;
	struct kj_store_verdict_opts vo;
	struct kj_store_counts cnt;
	kj_calib cal, back;
	kj_err_init(&err);
	kj_store_open(tmp_path("b.sqlite"), &s, &err);

	is_int(kj_store_run_get_or_create(s, "r1", "cpu", "spec.jsonl", "{\"seeds\":1}", &run, &err), 0,
	       "a run is created");
	is_int(kj_store_run_get_or_create(s, "r1", "cpu", NULL, NULL, &run2, &err), 0, "asked again");
	ok(run > 0 && run2 == run, "it is the same run (%lld)", (long long)run);
	is_int(kj_store_run_get_or_create(s, "r1", "cuda", NULL, NULL, &run2, &err), KJ_E_USAGE,
	       "the same name on another backend is refused");
	like(err.msg, "is a cpu run", "saying which backend it has");
	is_int(kj_store_run_get_or_create(s, "rk", "kernelbench", NULL, NULL, &run2, &err), 0,
	       "a run of the kernelbench backend is created (migration step 5)");
	is_int(kj_store_run_get_or_create(s, "rt", "triton", NULL, NULL, &run2, &err), 0, "and one of triton");
	is_int(kj_store_run_get_or_create(s, "rx", "rocm", NULL, NULL, &run2, &err), KJ_E_USAGE,
	       "an unknown backend is refused");
	is_int(q_int(s, "SELECT count(*) FROM runs WHERE backend IN ('kernelbench', 'triton')"), 2,
	       "the Python backends' runs are stored as such");
	is_int(kj_store_run_find(s, "nope", &run2, &err), KJ_E_NOTFOUND, "an unknown run is not found");

	is_int(kj_store_put_task(s, t, "abc", &err), 0, "the task row is written");
	str = q_str(s, "SELECT level || ' ' || category || ' ' || dtype FROM tasks WHERE id = 't/relu'");
	is_str(str, "1 Activation f32", "with level, category and dtype class");
	free(str);

	c1 = add(s, run, "int a;", "m", 0, 0, &created, &err);
	ok(c1 > 0 && created == 1, "a new candidate is created");
	c2 = add(s, run, "int a;", "m", 0, 0, &created, &err);
	ok(c2 == c1 && created == 0, "adding it again returns the same id, created 0");
	is_int(add(s, run, "int b;", "m", 0, 0, &created, &err), -1,
	       "the same key with another source is refused");
	like(err.msg, "already holds another source", "and says so");
	c2 = add(s, run, "int a;", "m", 1, 0, NULL, &err);
	c3 = add(s, run, "int c;", "m", 0, 1, NULL, &err);
	c4 = add(s, run, "int a;", "m2", 0, 0, NULL, &err);
	ok(c2 > c1 && c3 > c2 && c4 > c3, "three more candidates");
	is_int(q_int(s, "SELECT count(*) FROM candidates"), 4, "four rows, no duplicates");
	{
		struct kj_store_candidate bad;
		int64_t id;
		memset(&bad, 0, sizeof(bad));
		bad.run_id = run;
		bad.task = "level9/none";
		bad.source = "x";
		bad.source_len = 1;
		is_int(kj_store_add_candidate(s, &bad, &id, NULL, &err), KJ_E_USAGE,
		       "a candidate of an unknown task is refused");
	}
	is_int(kj_store_link_parents(s, run, &linked, &err), 0, "parents are linked");
	is_int(linked, 1, "one candidate is at round 1");
	{
		char sql[128];
		snprintf(sql, sizeof(sql), "SELECT parent_id FROM candidates WHERE id = %lld", (long long)c3);
		is_int(q_int(s, sql), c1, "its parent is round 0 of the same sample");
	}

	kj_store_pending(s, run, count_cb, pend, &err);
	is_int(pend[0], 4, "four candidates are pending");
	ok(pend[1] == c1 && pend[4] == c4, "in id order");

	is_int(kj_store_device_upsert(s, "cpu:test", "Test CPU", "x86_64", NULL, &dev, &err), 0,
	       "a device is added");
	kj_store_device_upsert(s, "cpu:test", "Test CPU 2", "x86_64", "{\"cores\":2}", &dev2, &err);
	ok(dev > 0 && dev2 == dev, "upserting it again keeps its id");
	memset(&cal, 0, sizeof(cal));
	cal.copy_gbs = 3500;
	cal.fp32_tflops = 51.5;
	cal.bf16_tflops = 700;
	is_int(kj_store_calibration_add(s, dev, &cal, &err), 0, "a calibration is stored");
	is_int(kj_store_calibration_latest(s, dev, &back, &err), 0, "and read back");
	ok(back.copy_gbs == 3500 && back.fp32_tflops == 51.5 && back.bf16_tflops == 700 &&
	   !strcmp(back.uuid, "cpu:test"), "with its rates and device");

	is_int(kj_store_judgement_begin(s, c1, dev, &jid, &err), 0, "a judgement is logged");
	fake_verdict(&v, t, "int a;", 0);
	memset(&vo, 0, sizeof(vo));
	vo.device_id = dev;
	vo.cache_key = "k1";
	vo.judgement_id = jid;
	is_int(kj_store_put_verdict(s, c1, &v, t, NULL, &vo, &err), 0, "a verdict is stored");
	is_int(kj_store_get_verdict(s, c1, &json, &st, &err), 0, "and read back");
	is_int(st, KJ_ST_PASS, "status pass");
	like(json, v.sha256, "its JSON holds the candidate's sha256");
	free(json);
	is_int(q_int(s, "SELECT count(*) FROM verdict_shapes"), 2, "a shape row per timed bench shape");
	is_int(q_int(s, "SELECT count(*) FROM verdict_checks"), 2, "a check row per comparison");
	is_int(q_int(s, "SELECT count(*) FROM verdict_checks WHERE budget_used = 1 AND tol_ratio = 2.5 AND "
			"baseline_tol_ratio = 1 AND budget = 4 AND budget_metric = 'elementwise'"), 1,
	       "a check's error budget is stored: its ratio, the baseline's, the limit, budget_used");
	is_int(q_int(s, "SELECT count(*) FROM verdict_checks WHERE budget_used = 0 AND baseline_tol_ratio IS NULL"), 1,
	       "a check without a baseline ratio stores NULL");
	str = q_str(s, "SELECT shape || '|' || kind FROM verdict_shapes ORDER BY bind LIMIT 1");
	is_str(str, "B=64 D=64|bench", "shapes are named by their binding");
	free(str);
	str = q_str(s, "SELECT flags FROM verdicts");
	is_str(str, "unstable_timing", "flags are a comma list of names");
	free(str);
	is_int(q_int(s, "SELECT sol_ms IS NULL FROM verdict_shapes LIMIT 1"), 1,
	       "unknown roofline figures are NULL");
	is_int(q_int(s, "SELECT count(*) FROM baselines"), 2, "baselines are kept per shape and device");
	is_int(q_int(s, "SELECT count(*) FROM judgements WHERE finished IS NOT NULL"), 1,
	       "the judgement is finished with the verdict");
	is_int(kj_store_put_verdict(s, c1, &v, t, NULL, &vo, &err), KJ_E_USAGE,
	       "a second verdict for the same candidate is refused");
	is_int(q_int(s, "SELECT count(*) FROM verdicts"), 1, "and writes nothing");
	is_int(q_int(s, "SELECT count(*) FROM verdict_shapes"), 2, "not even shapes");
	pend[0] = 0;
	kj_store_pending(s, run, count_cb, pend, &err);
	ok(pend[0] == 3 && pend[1] == c2, "the judged candidate is no longer pending");

	is_int(kj_store_find_verdict_by_sha(s, v.sha256, "t/relu", "cpu", dev, "k1", &found, &err), 0,
	       "the verdict cache is asked");
	is_int(found, c1, "and finds the judged candidate");
	kj_store_find_verdict_by_sha(s, v.sha256, "t/relu", "cpu", dev, "k2", &found, &err);
	is_int(found, 0, "other settings miss");
	kj_store_find_verdict_by_sha(s, v.sha256, "t/relu", "cuda", dev, "k1", &found, &err);
	is_int(found, 0, "another backend misses");
	kj_store_find_verdict_by_sha(s, v.sha256, "t/relu", "cpu", dev + 1, "k1", &found, &err);
	is_int(found, 0, "another device misses");
	kj_store_find_verdict_by_sha(s, v.sha256, "t/relu", "cpu", 0, NULL, &found, &err);
	is_int(found, c1, "any device and settings hit");

	is_int(kj_store_copy_verdict(s, c1, c2, &err), 0, "the verdict is copied to a duplicate");
	{
		char sql[160];
		snprintf(sql, sizeof(sql), "SELECT reused_from FROM verdicts WHERE candidate_id = %lld",
			 (long long)c2);
		is_int(q_int(s, sql), c1, "marked reused from the judged candidate");
	}
	is_int(q_int(s, "SELECT count(*) FROM verdict_shapes"), 4, "its shapes are copied");
	is_int(q_int(s, "SELECT count(*) FROM verdict_checks"), 4, "its checks are copied");
	is_int(q_int(s, "SELECT count(*) FROM verdict_checks WHERE budget_used = 1 AND budget = 4"), 2,
	       "with their error budgets");
	is_int(kj_store_copy_verdict(s, c2, c4, &err), 0, "a copy of a copy");
	{
		char sql[160];
		snprintf(sql, sizeof(sql), "SELECT reused_from FROM verdicts WHERE candidate_id = %lld",
			 (long long)c4);
		is_int(q_int(s, sql), c1, "points at the judged candidate too");
	}
	is_int(kj_store_copy_verdict(s, c1, c3, &err), KJ_E_USAGE, "another source is never reused");
	kj_store_find_verdict_by_sha(s, v.sha256, "t/relu", "cpu", dev, "k1", &found, &err);
	is_int(found, c1, "the cache still names the judged candidate, not a copy");

	kj_store_run_counts(s, run, &cnt, &err);
	ok(cnt.candidates == 4 && cnt.judged == 3 && cnt.reused == 2 && cnt.by_status[KJ_ST_PASS] == 3,
	   "counts: 4 candidates, 3 with a verdict, 2 reused, 3 pass (got %lld %lld %lld %lld)",
	   (long long)cnt.candidates, (long long)cnt.judged, (long long)cnt.reused,
	   (long long)cnt.by_status[KJ_ST_PASS]);
	kj_verdict_release(&v);

	/* a write that fails half-way: the duplicate check row violates the key
	 * after the verdicts row went in */
	fake_verdict(&v, t, "int c;", 1);
	is_int(kj_store_put_verdict(s, c3, &v, t, NULL, &vo, &err), KJ_E_IO,
	       "a verdict whose checks collide fails");
	{
		char sql[160];
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM verdicts WHERE candidate_id = %lld", (long long)c3);
		is_int(q_int(s, sql), 0, "and leaves no verdicts row");
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM verdict_shapes WHERE candidate_id = %lld",
			 (long long)c3);
		is_int(q_int(s, sql), 0, "and no shape rows");
	}
	kj_verdict_release(&v);
	kj_store_close(s);
}

/* A verdict written inside a transaction that never commits. */
static void test_interrupted(const kj_task *t)
{
	struct kj_err err;
	kj_db *s = NULL;
	int64_t run = 0, c1, c2, pend[9] = { 0 };
	kj_verdict v;
	pid_t pid;
	int wst = 0;
	kj_err_init(&err);
	kj_store_open(tmp_path("c.sqlite"), &s, &err);
	kj_store_run_get_or_create(s, "r", "cpu", NULL, NULL, &run, &err);
	kj_store_put_task(s, t, NULL, &err);
	c1 = add(s, run, "int a;", "m", 0, 0, NULL, &err);
	c2 = add(s, run, "int b;", "m", 1, 0, NULL, &err);
	fake_verdict(&v, t, "int a;", 0);
	is_int(kj_store_begin(s, &err), 0, "an outer transaction opens");
	is_int(kj_store_put_verdict(s, c1, &v, t, NULL, NULL, &err), 0, "a verdict is written inside it");
	kj_store_close(s);
	s = NULL;
	kj_store_open(tmp_path("c.sqlite"), &s, &err);
	is_int(q_int(s, "SELECT count(*) FROM verdicts") + q_int(s, "SELECT count(*) FROM verdict_checks") +
		       q_int(s, "SELECT count(*) FROM verdict_shapes"),
	       0, "closed without commit: no verdict, check or shape row is left");
	kj_store_pending(s, run, count_cb, pend, &err);
	is_int(pend[0], 2, "both candidates are pending again");
	kj_store_close(s);

	/* killed in the middle of a transaction */
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		kj_db *cs = NULL;
		if (kj_store_open(tmp_path("c.sqlite"), &cs, NULL) || kj_store_begin(cs, NULL) ||
		    kj_store_put_verdict(cs, c1, &v, t, NULL, NULL, NULL) ||
		    kj_store_put_verdict(cs, c2, &v, t, NULL, NULL, NULL))
			_exit(3);
		raise(SIGKILL);
		_exit(4);
	}
	waitpid(pid, &wst, 0);
	ok(WIFSIGNALED(wst) && WTERMSIG(wst) == SIGKILL, "a writer is killed with SIGKILL mid-transaction");
	s = NULL;
	is_int(kj_store_open(tmp_path("c.sqlite"), &s, &err), 0, "the database opens after the kill");
	{
		char *ic = q_str(s, "PRAGMA integrity_check");
		is_str(ic, "ok", "and passes its integrity check");
		free(ic);
	}
	is_int(q_int(s, "SELECT count(*) FROM verdicts") + q_int(s, "SELECT count(*) FROM verdict_checks"), 0,
	       "nothing of the killed transaction is there");
	is_int(kj_store_put_verdict(s, c1, &v, t, NULL, NULL, &err), 0, "the candidate can be judged again");
	kj_verdict_release(&v);
	kj_store_close(s);
}

/* ---- reading: read-only opens, a run's rows, a chain's attempts ---------------- */

struct seen {
	int runs, cands, judged, shapes, devices, span_settings;
	int64_t run_id, last_cand;
	char first_status[32];
	double speedup0, shape_ms;
};

static int seen_run(void *ctx, const struct kj_store_run_row *r)
{
	struct seen *z = ctx;
	z->runs++;
	z->run_id = r->id;
	return strcmp(r->backend, "cpu") != 0;
}

static int seen_cand(void *ctx, const struct kj_store_cand_row *c)
{
	struct seen *z = ctx;
	if (c->id <= z->last_cand)
		return 9; /* not in id order */
	z->last_cand = c->id;
	if (!z->cands++) {
		snprintf(z->first_status, sizeof(z->first_status), "%s", c->status);
		z->speedup0 = c->speedup;
	}
	z->judged += c->judged && c->json != NULL;
	return 0;
}

static int seen_shape(void *ctx, const struct kj_store_shape_row *r)
{
	struct seen *z = ctx;
	if (!z->shapes++)
		z->shape_ms = r->ms;
	return 0;
}

static int seen_device(void *ctx, const struct kj_store_device_row *d)
{
	((struct seen *)ctx)->devices++;
	return 0;
}

static int seen_span(void *ctx, const struct kj_store_span_row *r)
{
	((struct seen *)ctx)->span_settings = r->settings;
	return 0;
}

static int stop_cand(void *ctx, const struct kj_store_cand_row *c)
{
	return 42;
}

static int seen_attempt(void *ctx, const struct kj_store_attempt *a)
{
	int *v = ctx; /* rounds seen, with verdict, source bytes */
	v[0] = v[0] * 10 + a->round;
	v[1] += a->json != NULL;
	v[2] += (int)a->source_len;
	return 0;
}

static void test_reading(const kj_task *t)
{
	static const struct kj_store_reader rd = { seen_run, seen_cand, seen_shape, NULL, seen_device,
						   seen_span };
	struct kj_err err;
	struct seen z;
	kj_db *s = NULL, *r = NULL;
	kj_verdict v;
	struct kj_store_verdict_opts o;
	int64_t run = 0, dev = 0, a, b;
	int at[3] = { 0, 0, 0 };
	const char *path = tmp_path("read.sqlite");
	kj_err_init(&err);
	is_int(kj_store_open_readonly(tmp_path("missing.sqlite"), &r, &err), KJ_E_IO,
	       "a missing store is not created by a read-only open");
	ok(access(tmp_path("missing.sqlite"), F_OK) != 0, "and no file appears");
	if (kj_store_open(path, &s, &err) || kj_store_put_task(s, t, "", &err) ||
	    kj_store_run_get_or_create(s, "rd", "cpu", "spec", "{}", &run, &err) ||
	    kj_store_device_upsert(s, "cpu:t", "T", "x86_64", NULL, &dev, &err)) {
		ok(0, "set up a store: %s", err.msg);
		kj_store_close(s);
		return;
	}
	a = add(s, run, "int a;", "m", 0, 0, NULL, &err);
	b = add(s, run, "int bb;", "m", 0, 1, NULL, &err);
	add(s, run, "int c;", "m", 0, 3, NULL, &err);
	add(s, run, "int d;", "other", 0, 0, NULL, &err);
	fake_verdict(&v, t, "int a;", 0);
	memset(&o, 0, sizeof(o));
	o.device_id = dev;
	o.cache_key = "seeds=1;perf=1";
	is_int(kj_store_put_verdict(s, a, &v, t, NULL, &o, &err), 0, "a verdict with two timed shapes");
	kj_verdict_release(&v);
	is_int(kj_store_attempts(s, run, "m", "t/relu", 0, seen_attempt, at, &err), 0,
	       "kj_store_attempts reads the chain of (model, task, sample)");
	ok(at[0] == 13 && at[1] == 1 && at[2] == 6 + 7 + 6,
	   "by round (0, 1, 3), one with its verdict, the sources (%d %d %d)", at[0], at[1], at[2]);
	kj_store_close(s);
	(void)b;
	if (!ok(kj_store_open_readonly(path, &r, &err) == 0, "a read-only open of the SQLite store")) {
		printf("# %s\n", err.msg);
		return;
	}
	is_str(kj_store_backend(r), "sqlite", "on the SQLite backend");
	memset(&z, 0, sizeof(z));
	is_int(kj_store_read_run(r, "rd", &rd, &z, &err), 0, "kj_store_read_run reads the run");
	ok(z.runs == 1 && z.run_id == run && z.cands == 4 && z.judged == 1,
	   "the run, its 4 candidates in id order, one judged (%d, %d, %d)", z.runs, z.cands, z.judged);
	ok(!strcmp(z.first_status, "pass") && z.speedup0 == 1.7, "the verdict's status and speedup");
	ok(z.shapes == 2 && z.shape_ms == 1.0 && z.devices == 1 && z.span_settings == 1,
	   "its shapes, device and settings");
	{
		struct kj_store_reader stop = rd;
		stop.cand = stop_cand;
		is_int(kj_store_read_run(r, "rd", &stop, &z, &err), 42, "a callback's value stops the read");
	}
	is_int(kj_store_read_run(r, "nope", &rd, &z, &err), KJ_E_NOTFOUND, "a missing run is NOTFOUND");
	like(err.msg, "no run 'nope' in '", "naming the run and the store");
	ok(add(r, run, "int e;", "m", 1, 0, NULL, &err) < 0, "a read-only store refuses a write");
	like(err.msg, "readonly", "with SQLite's reason");
	kj_store_close(r);
	is_int(kj_store_open(path, &s, &err), 0, "the store opens read-write again");
	is_int(q_int(s, "SELECT count(*) FROM candidates"), 4, "unchanged by the read-only handle");
	kj_store_close(s);
}


int main(void)
{
	struct kj_err err;
	kj_task *t = NULL;
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/kj-store-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		printf("Bail out! cannot create a temporary folder\n");
		return 1;
	}
	kj_err_init(&err);
	if (kj_task_parse(task_text, strlen(task_text), "t/relu", &t, &err)) {
		printf("Bail out! %s\n", err.msg);
		return 1;
	}
	free(t->id);
	t->id = strdup("t/relu");
	test_open_and_migrate();
	test_migrate_backends();
	test_schema_file();
	test_candidates_and_verdicts(t);
	test_interrupted(t);
	test_reading(t);
	kj_task_free(t);
	{
		char cmd[600];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", dir);
	}
	return done_testing();
}
