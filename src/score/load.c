/*
 * Reads one run from a results store (docs/store.md) with the SQLite C API,
 * read-only: a report may run while `kjudge run` writes (WAL readers never
 * block the writer), and it never changes the database: no migration, no
 * journal mode change.  A store whose folder cannot be written (an archive, a
 * shared results folder) cannot get the WAL index file a reader needs; it is
 * then read as an immutable file, which is what it is.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kjudge/score.h"

static char *dup_col(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return strdup(t ? (const char *)t : "");
}

static double real_col(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

static int db_error(struct kj_err *err, sqlite3 *db, const char *path, const char *what)
{
	return kj_err_set(err, KJ_E_IO, "cannot %s in '%s': %s", what, path, sqlite3_errmsg(db));
}

static const char cand_sql[] =
	"SELECT c.id, coalesce(c.parent_id, 0), c.task, c.model, c.method, c.sha256, c.path, c.source,"
	" coalesce(t.level, 0), coalesce(t.category, ''), coalesce(t.dtype, ''), c.sample, c.round,"
	" v.id IS NOT NULL, coalesce(v.status, ''), coalesce(v.stage, ''), coalesce(v.reason, ''),"
	" coalesce(v.flags, ''), v.speedup,"
	/* compiled: past the compile stage, or rejected by the binary's symbols
	 * (stage static, after a compile that ran or hit the cache) */
	" CASE WHEN v.id IS NULL THEN 0"
	"  WHEN v.stage IN ('call', 'correctness', 'performance', 'done') THEN 1"
	"  WHEN v.status = 'rejected' AND v.stage = 'static' AND json_valid(v.json) THEN"
	"   coalesce(json_extract(v.json, '$.compile.seconds'), 0) > 0"
	"   OR coalesce(json_extract(v.json, '$.compile.cached'), 0) = 1"
	"  ELSE 0 END,"
	" coalesce(v.judged_at, ''), coalesce(v.cache_key, ''),"
	/* the baseline's spread is in the verdict's perf entries only */
	" CASE WHEN v.id IS NOT NULL AND json_valid(v.json) THEN (SELECT"
	"  max(json_extract(e.value, '$.baseline_iqr_ms') / json_extract(e.value, '$.baseline_ms'))"
	"  FROM json_each(v.json, '$.perf') e WHERE json_extract(e.value, '$.baseline_ms') > 0"
	"  AND json_extract(e.value, '$.baseline_iqr_ms') >= 0) END"
	" FROM candidates c LEFT JOIN tasks t ON t.id = c.task"
	" LEFT JOIN verdicts v ON v.candidate_id = c.id"
	" WHERE c.run_id = ? ORDER BY c.id";

static const char shape_sql[] =
	"SELECT s.candidate_id, s.weight, s.ms, s.iqr_ms, s.speedup, s.sol_ms, s.sol_frac, s.iou,"
	" s.mfu, s.flops, s.bytes FROM verdict_shapes s JOIN candidates c ON c.id = s.candidate_id"
	" WHERE c.run_id = ? ORDER BY s.candidate_id, s.bind";

static const char roof_sql[] =
	"SELECT d.name, d.uuid, cal.copy_gbs, cal.rates, cal.created FROM calibrations cal"
	" JOIN devices d ON d.id = cal.device_id"
	" WHERE d.id IN (SELECT DISTINCT device_id FROM verdicts WHERE run_id = ?)"
	" AND cal.id = (SELECT c2.id FROM calibrations c2 WHERE c2.device_id = d.id"
	"  ORDER BY c2.created DESC, c2.id DESC LIMIT 1)"
	" ORDER BY d.id";

static int has_flag(const char *flags, const char *f)
{
	size_t fl = strlen(f);
	for (const char *p = flags; *p;) {
		size_t l = strcspn(p, ",");
		if (l == fl && !memcmp(p, f, l))
			return 1;
		p += l;
		if (*p)
			p++;
	}
	return 0;
}

/* Whether a verdict's settings (kj_store_cache_key: "seeds=5;perf=0;...")
 * hold the item `item`. */
static int key_has(const unsigned char *key, const char *item)
{
	size_t il = strlen(item);
	for (const char *p = key ? (const char *)key : ""; *p;) {
		size_t l = strcspn(p, ";");
		if (l == il && !memcmp(p, item, l))
			return 1;
		p += l;
		if (*p)
			p++;
	}
	return 0;
}

static struct kj_score_cand *find_cand(kj_score_run *r, int64_t id)
{
	size_t lo = 0, hi = r->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (r->c[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->n && r->c[lo].id == id ? &r->c[lo] : NULL;
}

static int load_cands(sqlite3 *db, kj_score_run *r, struct kj_err *err)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc;
	if (sqlite3_prepare_v2(db, cand_sql, -1, &st, NULL) != SQLITE_OK)
		return db_error(err, db, r->db_path, "read the candidates");
	sqlite3_bind_int64(st, 1, r->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct kj_score_cand *c;
		const void *src;
		int srclen;
		if (r->n == cap) {
			size_t ncap = cap ? 2 * cap : 64;
			struct kj_score_cand *nc = realloc(r->c, ncap * sizeof(*nc));
			if (!nc) {
				sqlite3_finalize(st);
				return kj_err_set(err, KJ_E_NOMEM, "out of memory reading candidates");
			}
			r->c = nc;
			cap = ncap;
		}
		c = &r->c[r->n++];
		memset(c, 0, sizeof(*c));
		c->id = sqlite3_column_int64(st, 0);
		c->parent_id = sqlite3_column_int64(st, 1);
		c->task = dup_col(st, 2);
		c->model = dup_col(st, 3);
		c->method = dup_col(st, 4);
		c->sha256 = dup_col(st, 5);
		c->path = dup_col(st, 6);
		src = sqlite3_column_blob(st, 7);
		srclen = sqlite3_column_bytes(st, 7);
		c->source = malloc((size_t)srclen + 1);
		if (c->source) {
			if (srclen)
				memcpy(c->source, src, (size_t)srclen);
			c->source[srclen] = 0;
		}
		c->level = sqlite3_column_int(st, 8);
		c->category = dup_col(st, 9);
		c->dtype = dup_col(st, 10);
		c->sample = sqlite3_column_int(st, 11);
		c->round = sqlite3_column_int(st, 12);
		c->judged = sqlite3_column_int(st, 13);
		c->status = dup_col(st, 14);
		c->stage = dup_col(st, 15);
		c->reason = dup_col(st, 16);
		c->flags = dup_col(st, 17);
		c->speedup = real_col(st, 18);
		c->compiled = sqlite3_column_int(st, 19);
		c->judged_at = dup_col(st, 20);
		c->no_perf = key_has(sqlite3_column_text(st, 21), "perf=0");
		c->base_rel_iqr = real_col(st, 22);
		c->sol = NAN;
		if (!c->task || !c->model || !c->method || !c->sha256 || !c->path || !c->source ||
		    !c->category || !c->dtype || !c->status || !c->stage || !c->reason || !c->flags ||
		    !c->judged_at) {
			sqlite3_finalize(st);
			return kj_err_set(err, KJ_E_NOMEM, "out of memory reading candidates");
		}
		c->correct = c->judged && !strcmp(c->status, "pass");
		c->call_ok = c->judged && (c->correct || !strcmp(c->status, "mismatch") ||
					   !strcmp(c->stage, "correctness") ||
					   !strcmp(c->stage, "performance"));
		c->fallback = c->judged && has_flag(c->flags, "fallback");
		kj_score_code_metrics(c->source, (size_t)srclen, &c->code);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_error(err, db, r->db_path, "read the candidates");
	return 0;
}

static int load_shapes(sqlite3 *db, kj_score_run *r, struct kj_err *err)
{
	sqlite3_stmt *st;
	int rc;
	if (sqlite3_prepare_v2(db, shape_sql, -1, &st, NULL) != SQLITE_OK)
		return db_error(err, db, r->db_path, "read the verdict shapes");
	sqlite3_bind_int64(st, 1, r->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct kj_score_cand *c = find_cand(r, sqlite3_column_int64(st, 0));
		struct kj_score_shape *s, *ns;
		if (!c)
			continue;
		ns = realloc(c->shapes, (size_t)(c->nshapes + 1) * sizeof(*ns));
		if (!ns) {
			sqlite3_finalize(st);
			return kj_err_set(err, KJ_E_NOMEM, "out of memory reading verdict shapes");
		}
		c->shapes = ns;
		s = &c->shapes[c->nshapes++];
		s->weight = real_col(st, 1);
		s->ms = real_col(st, 2);
		s->iqr_ms = real_col(st, 3);
		s->speedup = real_col(st, 4);
		s->sol_ms = real_col(st, 5);
		s->sol_frac = real_col(st, 6);
		s->iou = real_col(st, 7);
		s->mfu = real_col(st, 8);
		s->flops = real_col(st, 9);
		s->bytes = real_col(st, 10);
		if (s->ms > 0 && s->iqr_ms >= 0 && s->iqr_ms / s->ms > c->rel_iqr)
			c->rel_iqr = s->iqr_ms / s->ms;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_error(err, db, r->db_path, "read the verdict shapes");
	return 0;
}

static int load_roofs(sqlite3 *db, kj_score_run *r, struct kj_err *err)
{
	sqlite3_stmt *st;
	int rc;
	if (sqlite3_prepare_v2(db, roof_sql, -1, &st, NULL) != SQLITE_OK)
		return db_error(err, db, r->db_path, "read the calibrations");
	sqlite3_bind_int64(st, 1, r->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct kj_score_roof *nr = realloc(r->roofs, (size_t)(r->nroofs + 1) * sizeof(*nr)), *f;
		const unsigned char *name = sqlite3_column_text(st, 0);
		const unsigned char *uuid = sqlite3_column_text(st, 1);
		const unsigned char *rates = sqlite3_column_text(st, 3);
		json_t *j;
		if (!nr) {
			sqlite3_finalize(st);
			return kj_err_set(err, KJ_E_NOMEM, "out of memory reading calibrations");
		}
		r->roofs = nr;
		f = &r->roofs[r->nroofs++];
		memset(f, 0, sizeof(*f));
		snprintf(f->device, sizeof(f->device), "%s",
			 name && *name ? (const char *)name : uuid ? (const char *)uuid : "");
		f->copy_gbs = real_col(st, 2);
		snprintf(f->created, sizeof(f->created), "%s",
			 sqlite3_column_text(st, 4) ? (const char *)sqlite3_column_text(st, 4) : "");
		j = rates ? json_loads((const char *)rates, 0, NULL) : NULL;
		if (json_is_object(j)) {
			const char *k;
			json_t *v;
			json_object_foreach(j, k, v) {
				if (f->nrates == KJ_SCORE_MAX_RATES || !json_is_number(v) ||
				    !(json_number_value(v) > 0))
					continue;
				snprintf(f->rate_name[f->nrates], sizeof(f->rate_name[0]), "%s", k);
				f->rate_tflops[f->nrates++] = json_number_value(v);
			}
		}
		json_decref(j);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_error(err, db, r->db_path, "read the calibrations");
	return 0;
}

static const char dev_sql[] =
	"SELECT d.name, d.uuid, d.arch, count(*) FROM verdicts v JOIN devices d ON d.id = v.device_id"
	" WHERE v.run_id = ? GROUP BY d.id ORDER BY d.id";

static int load_devices(sqlite3 *db, kj_score_run *r, struct kj_err *err)
{
	sqlite3_stmt *st;
	int rc;
	if (sqlite3_prepare_v2(db, dev_sql, -1, &st, NULL) != SQLITE_OK)
		return db_error(err, db, r->db_path, "read the devices");
	sqlite3_bind_int64(st, 1, r->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct kj_score_device *nd = realloc(r->devices, (size_t)(r->ndevices + 1) * sizeof(*nd)), *d;
		const unsigned char *t;
		if (!nd) {
			sqlite3_finalize(st);
			return kj_err_set(err, KJ_E_NOMEM, "out of memory reading devices");
		}
		r->devices = nd;
		d = &r->devices[r->ndevices++];
		t = sqlite3_column_text(st, 0);
		snprintf(d->name, sizeof(d->name), "%s", t ? (const char *)t : "");
		t = sqlite3_column_text(st, 1);
		snprintf(d->uuid, sizeof(d->uuid), "%s", t ? (const char *)t : "");
		t = sqlite3_column_text(st, 2);
		snprintf(d->arch, sizeof(d->arch), "%s", t ? (const char *)t : "");
		d->verdicts = sqlite3_column_int(st, 3);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_error(err, db, r->db_path, "read the devices");
	return 0;
}

/* The dates of the run's verdicts and how many distinct settings they had. */
static int load_span(sqlite3 *db, kj_score_run *r, struct kj_err *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT coalesce(min(judged_at), ''), coalesce(max(judged_at), ''),"
			       " count(DISTINCT cache_key) FROM verdicts WHERE run_id = ?", -1, &st,
			       NULL) != SQLITE_OK)
		return db_error(err, db, r->db_path, "read the verdict dates");
	sqlite3_bind_int64(st, 1, r->id);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return db_error(err, db, r->db_path, "read the verdict dates");
	}
	r->first_judged = dup_col(st, 0);
	r->last_judged = dup_col(st, 1);
	r->verdict_settings = sqlite3_column_int(st, 2);
	sqlite3_finalize(st);
	return r->first_judged && r->last_judged ? 0 : kj_err_set(err, KJ_E_NOMEM, "out of memory");
}

/* Each candidate's SOL fraction over its bench shapes (NAN without T_sol). */
static void cand_sols(kj_score_run *r)
{
	for (size_t i = 0; i < r->n; i++) {
		struct kj_score_cand *c = &r->c[i];
		double w[64], sol[64], ms[64];
		int n = c->nshapes < 64 ? c->nshapes : 64, known = 0;
		for (int k = 0; k < n; k++) {
			w[k] = c->shapes[k].weight;
			sol[k] = c->shapes[k].sol_ms;
			ms[k] = c->shapes[k].ms;
			known |= isfinite(c->shapes[k].sol_frac);
		}
		c->sol = known ? kj_score_task_sol(w, sol, ms, (size_t)n, 1) : NAN;
	}
}

static int find_run(sqlite3 *db, kj_score_run *r, const char *run, struct kj_err *err)
{
	sqlite3_stmt *st;
	int rc;
	if (sqlite3_prepare_v2(db, "SELECT id, name, backend, created, spec, settings, kjudge_version"
			       " FROM runs WHERE name = ?", -1, &st, NULL) != SQLITE_OK)
		return kj_err_set(err, KJ_E_IO, "'%s' is not a kjudge store: %s", r->db_path,
				  sqlite3_errmsg(db));
	sqlite3_bind_text(st, 1, run, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		r->id = sqlite3_column_int64(st, 0);
		r->name = dup_col(st, 1);
		r->backend = dup_col(st, 2);
		r->created = dup_col(st, 3);
		r->spec = dup_col(st, 4);
		r->settings = dup_col(st, 5);
		r->version = dup_col(st, 6);
		sqlite3_finalize(st);
		if (!r->name || !r->backend || !r->created || !r->spec || !r->settings || !r->version)
			return kj_err_set(err, KJ_E_NOMEM, "out of memory");
		return 0;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_error(err, db, r->db_path, "find the run");
	return kj_err_set(err, KJ_E_NOTFOUND, "no run '%s' in '%s'", run, r->db_path);
}

/* The "file:" URI of path, percent-encoded, with the query q. */
static char *uri_of(const char *path, const char *q)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = strlen(path), o = 0;
	char *u = malloc(3 * n + strlen(q) + 16);
	if (!u)
		return NULL;
	/* an absolute path gets an empty authority: "file:///x" */
	memcpy(u, path[0] == '/' ? "file://" : "file:", path[0] == '/' ? 7 : 5);
	o = path[0] == '/' ? 7 : 5;
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("/._-~", *p)) {
			u[o++] = (char)*p;
		} else {
			u[o++] = '%';
			u[o++] = hex[*p >> 4];
			u[o++] = hex[*p & 15];
		}
	}
	u[o++] = '?';
	memcpy(u + o, q, strlen(q) + 1);
	return u;
}

/* Opens path read-only (mode=ro, or immutable=1 too) and reads its
 * user_version: the first read, where a reader that cannot get the WAL index
 * fails.  Returns the SQLite result code; *db is set even on failure. */
static int open_ro(const char *path, int immutable, sqlite3 **db, int *version)
{
	char *uri = uri_of(path, immutable ? "mode=ro&immutable=1" : "mode=ro");
	sqlite3_stmt *st;
	int rc;
	*db = NULL;
	if (!uri)
		return SQLITE_NOMEM;
	rc = sqlite3_open_v2(uri, db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
	free(uri);
	if (rc != SQLITE_OK)
		return rc;
	sqlite3_extended_result_codes(*db, 1);
	sqlite3_busy_timeout(*db, 10000);
	if ((rc = sqlite3_prepare_v2(*db, "PRAGMA user_version", -1, &st, NULL)) != SQLITE_OK)
		return rc;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*version = sqlite3_column_int(st, 0);
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return rc;
}

/* A write-ahead log next to path that holds commits not yet in the file. */
static int wal_has_data(const char *path)
{
	char wal[4200];
	struct stat sb;
	snprintf(wal, sizeof(wal), "%s-wal", path);
	return stat(wal, &sb) == 0 && sb.st_size > 0;
}

int kj_score_load(const char *db_path, const char *run, kj_score_run **out, struct kj_err *err)
{
	sqlite3 *db = NULL;
	kj_score_run *r = calloc(1, sizeof(*r));
	struct stat sb;
	int rc, src;
	*out = NULL;
	if (!r || !(r->db_path = strdup(db_path))) {
		free(r);
		return kj_err_set(err, KJ_E_NOMEM, "out of memory");
	}
	if (stat(db_path, &sb)) {
		rc = kj_err_set(err, KJ_E_IO, "cannot open the store '%s': %s", db_path, strerror(errno));
		goto fail;
	}
	src = open_ro(db_path, 0, &db, &r->schema_version);
	/* no WAL index can be made next to the file (read-only folder or medium):
	 * with no log holding commits, the file alone is the whole store */
	if (((src & 0xff) == SQLITE_CANTOPEN || (src & 0xff) == SQLITE_READONLY) &&
	    !wal_has_data(db_path)) {
		sqlite3_close(db);
		src = open_ro(db_path, 1, &db, &r->schema_version);
	}
	if (src != SQLITE_OK) {
		if (wal_has_data(db_path))
			rc = kj_err_set(err, KJ_E_IO, "cannot read the store '%s' read-only: %s; its "
					"write-ahead log '%s-wal' holds commits that a reader can only see "
					"with write access to its folder (or with its '-shm' file next to "
					"it)", db_path, db ? sqlite3_errmsg(db) : sqlite3_errstr(src), db_path);
		else
			rc = kj_err_set(err, KJ_E_IO, "cannot open the store '%s': %s", db_path,
					db ? sqlite3_errmsg(db) : sqlite3_errstr(src));
		goto fail;
	}
	/* one read transaction: every table seen at the same instant even while
	 * `kjudge run` commits verdicts */
	if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
		rc = db_error(err, db, db_path, "start a read transaction");
		goto fail;
	}
	if ((rc = find_run(db, r, run, err)) || (rc = load_cands(db, r, err)) ||
	    (rc = load_shapes(db, r, err)) || (rc = load_roofs(db, r, err)) ||
	    (rc = load_devices(db, r, err)) || (rc = load_span(db, r, err)))
		goto fail;
	sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	sqlite3_close(db);
	cand_sols(r);
	*out = r;
	return 0;
fail:
	sqlite3_close(db);
	kj_score_run_free(r);
	return rc;
}

void kj_score_run_free(kj_score_run *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++) {
		struct kj_score_cand *c = &r->c[i];
		free(c->task), free(c->model), free(c->method), free(c->sha256), free(c->path);
		free(c->source), free(c->category), free(c->dtype), free(c->status);
		free(c->stage), free(c->reason), free(c->flags), free(c->shapes);
		free(c->judged_at);
	}
	free(r->c);
	free(r->roofs);
	free(r->devices);
	free(r->name), free(r->backend), free(r->created), free(r->db_path);
	free(r->spec), free(r->settings), free(r->version);
	free(r->first_judged), free(r->last_judged);
	free(r);
}
