/*
 * kjudge serve: the HTTP side (libmicrohttpd, one thread per connection,
 * behind the gate of gate.c).  Routes, authentication, request limits and
 * the JSON of a job; docs/api.md is the contract.  Every error is JSON:
 * {"error": "what went wrong"}; those about the request's header itself come
 * from the gate, before libmicrohttpd sees the request.
 */
#include <jansson.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "kjudge/hash.h"
#include "serve/serve_int.h"

/* the body of one request, gathered over the upload callbacks */
struct req {
	char *buf;
	size_t len, cap;
	int too_large;
};

static enum MHD_Result send_json(struct MHD_Connection *c, unsigned code, json_t *o,
				 const char *allow)
{
	char *s = json_dumps(o, JSON_COMPACT);
	struct MHD_Response *r;
	enum MHD_Result ret;
	size_t n;
	json_decref(o);
	if (!s)
		return MHD_NO;
	n = strlen(s);
	/* one line a response: easier on shells and line-oriented clients */
	{
		char *t = realloc(s, n + 2);
		if (!t) {
			free(s);
			return MHD_NO;
		}
		s = t;
		s[n++] = '\n';
		s[n] = 0;
	}
	r = MHD_create_response_from_buffer(n, s, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(s);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", "application/json");
	MHD_add_response_header(r, "Cache-Control", "no-store");
	/* one request a connection: each passes the gate's header check */
	MHD_add_response_header(r, "Connection", "close");
	if (allow)
		MHD_add_response_header(r, "Allow", allow);
	if (code == 401)
		MHD_add_response_header(r, "WWW-Authenticate", "Bearer realm=\"kjudge\"");
	ret = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return ret;
}

__attribute__((format(printf, 3, 4))) static enum MHD_Result
send_error(struct MHD_Connection *c, unsigned code, const char *fmt, ...)
{
	char msg[1200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return send_json(c, code, json_pack("{s:s}", "error", msg), NULL);
}

static enum MHD_Result send_405(struct MHD_Connection *c, const char *method, const char *url,
				const char *allow)
{
	char msg[600];
	snprintf(msg, sizeof(msg), "method %s is not allowed on %.400s (allowed: %s)", method, url, allow);
	return send_json(c, 405, json_pack("{s:s}", "error", msg), allow);
}

static json_t *num_or_null(double x)
{
	return x > 0 ? json_real(x) : json_null();
}

/* The job as the API shows it (docs/api.md). */
static json_t *job_json(struct kj_server *S, const struct kj_job *j, int with_verdict)
{
	json_t *o = json_object();
	json_object_set_new(o, "id", json_integer(j->id));
	json_object_set_new(o, "state", json_string(kj_job_state_name(j->state)));
	json_object_set_new(o, "task", json_string(j->task));
	json_object_set_new(o, "backend", json_string(j->backend));
	json_object_set_new(o, "model", json_string(j->model));
	json_object_set_new(o, "sample", j->sample >= 0 ? json_integer(j->sample) : json_null());
	json_object_set_new(o, "round", json_integer(j->round));
	json_object_set_new(o, "source_sha256", json_string(j->sha256));
	json_object_set_new(o, "idempotency_key", j->idem_key[0] ? json_string(j->idem_key) : json_null());
	json_object_set_new(o, "attempts", json_integer(j->attempts));
	json_object_set_new(o, "created", num_or_null(j->created));
	json_object_set_new(o, "started", num_or_null(j->started));
	json_object_set_new(o, "finished", num_or_null(j->finished));
	json_object_set_new(o, "run", json_string(S->run_name));
	json_object_set_new(o, "candidate_id", j->candidate_id ? json_integer(j->candidate_id) : json_null());
	json_object_set_new(o, "status", j->status[0] ? json_string(j->status) : json_null());
	json_object_set_new(o, "error", j->error[0] ? json_string(j->error) : json_null());
	if (with_verdict) {
		json_t *v = j->verdict ? json_loads(j->verdict, 0, NULL) : NULL;
		json_object_set_new(o, "verdict", v ? v : json_null());
	}
	return o;
}

/* ---- authentication ------------------------------------------------------ */

/* *token_id: 0 when the server wants no token (none in the store, loopback),
 * else the caller's token.  Returns 0, or 1 after sending a 401/500. */
static int authenticate(struct kj_server *S, struct MHD_Connection *c, int64_t *token_id,
			int *quota, enum MHD_Result *ret)
{
	struct kj_token *toks = NULL, t;
	struct kj_err err;
	const char *h;
	char sha[65];
	int ntok = 0, rc;
	*token_id = 0;
	*quota = 0;
	kj_err_init(&err);
	pthread_mutex_lock(&S->db_mu);
	rc = kj_token_list(S->db, &toks, &ntok, &err);
	pthread_mutex_unlock(&S->db_mu);
	free(toks);
	if (rc) {
		*ret = send_error(c, 500, "%s", err.msg);
		return 1;
	}
	/* off loopback a token is always required, even once none is left */
	if (ntok == 0 && S->loopback)
		return 0;
	h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
	if (!h || strncasecmp(h, "Bearer ", 7)) {
		*ret = send_error(c, 401, "this server wants a bearer token: send the header "
				  "'Authorization: Bearer <token>'");
		return 1;
	}
	h += 7;
	while (*h == ' ')
		h++;
	kj_sha256_hex(h, strlen(h), sha);
	pthread_mutex_lock(&S->db_mu);
	rc = kj_token_find(S->db, sha, &t, &err);
	pthread_mutex_unlock(&S->db_mu);
	if (rc == KJ_E_NOTFOUND) {
		*ret = send_error(c, 401, "invalid bearer token");
		return 1;
	}
	if (rc) {
		*ret = send_error(c, 500, "%s", err.msg);
		return 1;
	}
	*token_id = t.id;
	*quota = t.quota;
	return 0;
}

/* ---- POST /v1/jobs ------------------------------------------------------- */

static int get_opt_int(json_t *o, const char *k, int def, int *out)
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

static enum MHD_Result submit(struct kj_server *S, struct MHD_Connection *c, const char *body,
			      size_t len, int64_t token_id, int quota)
{
	static const char *const fields[] = { "task", "source", "backend", "model", "sample",
					      "round", "idempotency_key", NULL };
	json_error_t je;
	json_t *o, *v, *canon;
	struct kj_job_new n;
	const struct kj_serve_task *te;
	const kj_task *t;
	struct kj_job job;
	struct kj_err err;
	enum kj_submit_result res;
	enum MHD_Result ret;
	const char *key, *hkey, *k;
	char *ctext, rsha[65];
	int64_t id = 0;
	int rc, stopping;

	pthread_mutex_lock(&S->mu);
	stopping = S->stopping;
	pthread_mutex_unlock(&S->mu);
	if (stopping)
		return send_error(c, 503, "the server is stopping and takes no new jobs");
	o = json_loadb(body ? body : "", len, JSON_REJECT_DUPLICATES, &je);
	if (!o)
		return send_error(c, 400, "malformed JSON at line %d column %d: %s", je.line, je.column,
				  je.text);
	if (!json_is_object(o)) {
		json_decref(o);
		return send_error(c, 400, "the request body must be a JSON object");
	}
	json_object_foreach(o, k, v) {
		int known = 0;
		for (int i = 0; fields[i]; i++)
			known |= !strcmp(k, fields[i]);
		if (!known) {
			ret = send_error(c, 400, "unknown field '%.100s' (fields: task, source, backend, model, "
					 "sample, round, idempotency_key)", k);
			json_decref(o);
			return ret;
		}
	}
	memset(&n, 0, sizeof(n));
	if (!json_is_string(json_object_get(o, "task")) || !json_is_string(json_object_get(o, "source"))) {
		json_decref(o);
		return send_error(c, 400, "\"task\" and \"source\" are required strings");
	}
	n.task = json_string_value(json_object_get(o, "task"));
	n.source = json_string_value(json_object_get(o, "source"));
	n.source_len = json_string_length(json_object_get(o, "source"));
	if (!n.source_len) {
		json_decref(o);
		return send_error(c, 400, "\"source\" is empty");
	}
	if ((v = json_object_get(o, "model")) && !json_is_null(v) &&
	    (!json_is_string(v) || json_string_length(v) > 200)) {
		json_decref(o);
		return send_error(c, 400, "\"model\" must be a string of at most 200 bytes");
	}
	n.model = json_is_string(v) ? json_string_value(v) : "";
	if (get_opt_int(o, "sample", -1, &n.sample) || get_opt_int(o, "round", 0, &n.round)) {
		json_decref(o);
		return send_error(c, 400, "\"sample\" and \"round\" must be integers >= 0");
	}
	if ((v = json_object_get(o, "backend")) && !json_is_null(v) &&
	    (!json_is_string(v) || strcmp(json_string_value(v), S->backend))) {
		ret = send_error(c, 422, "this server judges on the %s track; \"backend\" must be \"%s\"",
				 S->backend, S->backend);
		json_decref(o);
		return ret;
	}
	key = NULL;
	if ((v = json_object_get(o, "idempotency_key")) && !json_is_null(v)) {
		if (!json_is_string(v) || json_string_length(v) == 0 || json_string_length(v) > 200) {
			json_decref(o);
			return send_error(c, 400, "\"idempotency_key\" must be a string of 1 to 200 bytes");
		}
		key = json_string_value(v);
	}
	hkey = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Idempotency-Key");
	if (hkey && *hkey) {
		if (strlen(hkey) > 200 || (key && strcmp(key, hkey))) {
			json_decref(o);
			return send_error(c, 400, "the Idempotency-Key header must be at most 200 bytes and "
					  "agree with \"idempotency_key\"");
		}
		key = hkey;
	}
	kj_err_init(&err);
	if (!(te = kj_serve_task_get(S, n.task, &t, NULL, &err))) {
		ret = send_error(c, 422, "%s", err.msg);
		json_decref(o);
		return ret;
	}
	/* what the key stands for: the request, with defaults filled in */
	canon = json_pack("{s:s,s:s%,s:s,s:s,s:o,s:i}", "task", te->id, "source", n.source, n.source_len,
			  "backend", S->backend, "model", n.model, "sample",
			  n.sample >= 0 ? json_integer(n.sample) : json_null(), "round", n.round);
	ctext = canon ? json_dumps(canon, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	json_decref(canon);
	if (!ctext) {
		json_decref(o);
		return send_error(c, 500, "out of memory");
	}
	kj_sha256_hex(ctext, strlen(ctext), rsha);
	free(ctext);
	n.task = te->id;
	n.backend = S->backend;
	n.token_id = token_id;
	n.idem_key = key;
	n.request_sha256 = rsha;
	n.quota = quota;
	n.now = kj_serve_now();
	pthread_mutex_lock(&S->db_mu);
	rc = kj_queue_submit(S->db, &n, &id, &res, &err);
	kj_job_init(&job);
	if (!rc && id)
		rc = kj_queue_get(S->db, id, &job, &err);
	pthread_mutex_unlock(&S->db_mu);
	if (rc) {
		json_decref(o);
		kj_job_release(&job);
		return send_error(c, 500, "%s", err.msg);
	}
	switch (res) {
	case KJ_SUBMIT_CREATED:
		kj_serve_log(S, "job %lld %s: queued", (long long)id, job.task);
		pthread_mutex_lock(&S->mu);
		pthread_cond_broadcast(&S->work_cv);
		pthread_mutex_unlock(&S->mu);
		ret = send_json(c, 202, job_json(S, &job, 1), NULL);
		break;
	case KJ_SUBMIT_REPLAYED: {
		json_t *j = job_json(S, &job, 1);
		json_object_set_new(j, "replayed", json_true());
		ret = send_json(c, 200, j, NULL);
		break;
	}
	case KJ_SUBMIT_CONFLICT:
		ret = send_json(c, 409,
				json_pack("{s:s,s:I}", "error",
					  "this idempotency key was used for a different request", "job",
					  (json_int_t)id),
				NULL);
		break;
	default:
		ret = send_error(c, 429, "this token has %d jobs queued or running, its quota; wait for "
				 "one to finish", quota);
		break;
	}
	kj_job_release(&job);
	json_decref(o);
	return ret;
}

/* ---- GET /v1/jobs/{id}, cancel, list ------------------------------------- */

static int terminal(kj_job_state s)
{
	return s == KJ_JOB_DONE || s == KJ_JOB_FAILED || s == KJ_JOB_CANCELLED;
}

/* Reads job id for the caller: 0, or 1 after sending 404/500. */
static int load_job(struct kj_server *S, struct MHD_Connection *c, int64_t id, int64_t token_id,
		    struct kj_job *j, enum MHD_Result *ret)
{
	struct kj_err err;
	int rc;
	kj_err_init(&err);
	pthread_mutex_lock(&S->db_mu);
	rc = kj_queue_get(S->db, id, j, &err);
	pthread_mutex_unlock(&S->db_mu);
	if (rc == KJ_E_NOTFOUND || (!rc && token_id && j->token_id != token_id)) {
		*ret = send_error(c, 404, "no job %lld", (long long)id);
		return 1;
	}
	if (rc) {
		*ret = send_error(c, 500, "%s", err.msg);
		return 1;
	}
	return 0;
}

static enum MHD_Result get_job(struct kj_server *S, struct MHD_Connection *c, int64_t id,
			       int64_t token_id)
{
	struct kj_job j;
	enum MHD_Result ret;
	const char *ws = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "wait");
	double wait = 0, deadline;
	kj_job_init(&j);
	if (ws) {
		char *end;
		wait = strtod(ws, &end);
		if (!*ws || *end || !(wait >= 0) || wait > 1e6)
			return send_error(c, 400, "?wait= wants seconds from 0 to 1e6 (the server waits at most %g), "
					  "got '%.40s'", S->max_wait_s, ws);
		if (wait > S->max_wait_s)
			wait = S->max_wait_s;
	}
	deadline = kj_serve_now() + wait;
	if (load_job(S, c, id, token_id, &j, &ret))
		return ret;
	while (!terminal(j.state)) {
		struct timespec ts;
		double now = kj_serve_now(), until;
		int closing;
		uint64_t seen;
		if (now >= deadline)
			break;
		until = deadline < now + 1 ? deadline : now + 1;
		ts.tv_sec = (time_t)until;
		ts.tv_nsec = (long)((until - (double)ts.tv_sec) * 1e9);
		pthread_mutex_lock(&S->mu);
		seen = S->done_seq;
		closing = S->closing;
		/* woken by any job's end; jobs other servers finish show within 1 s */
		while (!closing && S->done_seq == seen &&
		       pthread_cond_timedwait(&S->done_cv, &S->mu, &ts) == 0)
			closing = S->closing;
		pthread_mutex_unlock(&S->mu);
		if (load_job(S, c, id, token_id, &j, &ret)) {
			kj_job_release(&j);
			return ret;
		}
		if (closing)
			break;
	}
	ret = send_json(c, 200, job_json(S, &j, 1), NULL);
	kj_job_release(&j);
	return ret;
}

static enum MHD_Result cancel_job(struct kj_server *S, struct MHD_Connection *c, int64_t id,
				  int64_t token_id)
{
	struct kj_job j;
	struct kj_err err;
	kj_job_state st = KJ_JOB_QUEUED;
	enum MHD_Result ret;
	int rc;
	kj_err_init(&err);
	kj_job_init(&j);
	pthread_mutex_lock(&S->db_mu);
	rc = kj_queue_cancel(S->db, id, token_id, kj_serve_now(), &st, &err);
	if (!rc)
		rc = kj_queue_get(S->db, id, &j, &err);
	pthread_mutex_unlock(&S->db_mu);
	if (rc == KJ_E_NOTFOUND)
		return send_error(c, 404, "no job %lld", (long long)id);
	if (rc)
		return send_error(c, 500, "%s", err.msg);
	if (st == KJ_JOB_CANCELLED) {
		kj_serve_log(S, "job %lld: cancelled", (long long)id);
		pthread_mutex_lock(&S->mu);
		S->done_seq++;
		pthread_cond_broadcast(&S->done_cv);
		pthread_mutex_unlock(&S->mu);
		ret = send_json(c, 200, job_json(S, &j, 1), NULL);
	} else {
		json_t *e = json_pack("{s:s,s:s,s:I}", "error", "only a queued job can be cancelled", "state",
				      kj_job_state_name(st), "job", (json_int_t)id);
		ret = send_json(c, 409, e, NULL);
	}
	kj_job_release(&j);
	return ret;
}

struct list_ctx {
	struct kj_server *S;
	json_t *arr;
};

static int list_one(void *ctx, const struct kj_job *j)
{
	struct list_ctx *l = ctx;
	json_array_append_new(l->arr, job_json(l->S, j, 0));
	return 0;
}

static enum MHD_Result list_jobs(struct kj_server *S, struct MHD_Connection *c, int64_t token_id)
{
	const char *ss = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "state");
	const char *as = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "after");
	const char *ls = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "limit");
	struct list_ctx l = { S, json_array() };
	struct kj_err err;
	kj_job_state st;
	long long after = 0, limit = 100;
	char *end;
	int rc, state = -1;
	if (ss && *ss) {
		if (kj_job_state_from_name(ss, &st)) {
			json_decref(l.arr);
			return send_error(c, 400, "?state= is queued, running, done, failed or cancelled, not "
					  "'%.40s'", ss);
		}
		state = (int)st;
	}
	if (as && (after = strtoll(as, &end, 10), !*as || *end || after < 0)) {
		json_decref(l.arr);
		return send_error(c, 400, "?after= wants a job id, got '%.40s'", as);
	}
	if (ls && (limit = strtoll(ls, &end, 10), !*ls || *end || limit < 1 || limit > 1000)) {
		json_decref(l.arr);
		return send_error(c, 400, "?limit= wants 1..1000, got '%.40s'", ls);
	}
	kj_err_init(&err);
	pthread_mutex_lock(&S->db_mu);
	rc = kj_queue_list(S->db, state, token_id, after, (int)limit, list_one, &l, &err);
	pthread_mutex_unlock(&S->db_mu);
	if (rc) {
		json_decref(l.arr);
		return send_error(c, 500, "%s", err.msg);
	}
	return send_json(c, 200, json_pack("{s:o}", "jobs", l.arr), NULL);
}

/* ---- tasks and health ---------------------------------------------------- */

static enum MHD_Result list_tasks(struct kj_server *S, struct MHD_Connection *c)
{
	json_t *arr = json_array();
	for (int i = 0; i < S->ntasks; i++) {
		struct kj_err err;
		const struct kj_serve_task *te;
		const kj_task *t;
		json_t *row;
		kj_err_init(&err);
		te = kj_serve_task_get(S, S->tasks_served[i].id, &t, NULL, &err);
		if (!te)
			continue;
		row = json_pack("{s:s,s:i,s:s,s:s}", "id", te->id, "level", t->level, "category",
				t->category ? t->category : "", "about", t->about ? t->about : "");
		json_array_append_new(arr, row);
	}
	return send_json(c, 200, json_pack("{s:o}", "tasks", arr), NULL);
}

static enum MHD_Result health(struct kj_server *S, struct MHD_Connection *c)
{
	int64_t n[KJ_JOB_STATE_COUNT];
	struct kj_err err;
	int rc, busy = 0, stopping;
	kj_err_init(&err);
	pthread_mutex_lock(&S->db_mu);
	rc = kj_queue_counts(S->db, 0, n, &err);
	pthread_mutex_unlock(&S->db_mu);
	if (rc)
		return send_error(c, 500, "%s", err.msg);
	pthread_mutex_lock(&S->mu);
	for (int i = 0; i < S->nworkers; i++)
		busy += S->workers[i].job_id != 0;
	stopping = S->stopping;
	pthread_mutex_unlock(&S->mu);
	return send_json(c, 200,
			 json_pack("{s:s,s:s,s:s,s:i,s:i,s:{s:I,s:I}}", "status",
				   stopping ? "stopping" : "ok", "backend", S->backend, "run", S->run_name,
				   "workers", S->nworkers, "busy", busy, "queue", "queued",
				   (json_int_t)n[KJ_JOB_QUEUED], "running", (json_int_t)n[KJ_JOB_RUNNING]),
			 NULL);
}

/* ---- routing --------------------------------------------------------------- */

/* "/v1/jobs/123" or "/v1/jobs/123/cancel": the id and the rest ("" or
 * "/cancel"); -1 when not a job path. */
static int64_t job_path(const char *url, const char **rest)
{
	const char *p = url + strlen("/v1/jobs/");
	char *end;
	long long id;
	if (strncmp(url, "/v1/jobs/", 9) || *p < '0' || *p > '9')
		return -1;
	id = strtoll(p, &end, 10);
	if (id <= 0 || (*end && strcmp(end, "/cancel")))
		return -1;
	*rest = end;
	return id;
}

static enum MHD_Result route(struct kj_server *S, struct MHD_Connection *c, const char *url,
			     const char *method, const struct req *r)
{
	int64_t token_id, id;
	int quota;
	const char *rest = "";
	enum MHD_Result ret;
	int is_get = !strcmp(method, "GET") || !strcmp(method, "HEAD");
	if (!strcmp(url, "/v1/health"))
		return is_get ? health(S, c) : send_405(c, method, url, "GET");
	if (strcmp(url, "/v1/tasks") && strcmp(url, "/v1/jobs") && job_path(url, &rest) < 0)
		return send_error(c, 404, "no such endpoint: %.300s (see docs/api.md)", url);
	if (authenticate(S, c, &token_id, &quota, &ret))
		return ret;
	if (!strcmp(url, "/v1/tasks"))
		return is_get ? list_tasks(S, c) : send_405(c, method, url, "GET");
	if (!strcmp(url, "/v1/jobs")) {
		if (!strcmp(method, "POST")) {
			if (r->too_large)
				return send_error(c, 413, "the request body is larger than %zu bytes",
						  S->max_body);
			return submit(S, c, r->buf, r->len, token_id, quota);
		}
		return is_get ? list_jobs(S, c, token_id) : send_405(c, method, url, "GET, POST");
	}
	id = job_path(url, &rest);
	if (*rest)
		return !strcmp(method, "POST") ? cancel_job(S, c, id, token_id)
					       : send_405(c, method, url, "POST");
	if (is_get)
		return get_job(S, c, id, token_id);
	if (!strcmp(method, "DELETE"))
		return cancel_job(S, c, id, token_id);
	return send_405(c, method, url, "GET, DELETE");
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	struct kj_server *S = cls;
	struct req *r = *con_cls;
	enum MHD_Result ret;
	(void)version;
	if (!r) {
		const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
		r = calloc(1, sizeof(*r));
		if (!r)
			return MHD_NO;
		*con_cls = r;
		/* a declared body over the limit is refused before it is read */
		if (cl && strtoull(cl, NULL, 10) > S->max_body) {
			r->too_large = 1;
			return send_error(c, 413, "the request body is larger than %zu bytes", S->max_body);
		}
		return MHD_YES;
	}
	if (*upload_size) {
		if (!r->too_large && r->len + *upload_size > S->max_body) {
			r->too_large = 1;
			free(r->buf);
			r->buf = NULL;
			r->len = r->cap = 0;
		}
		if (!r->too_large) {
			if (r->len + *upload_size + 1 > r->cap) {
				size_t cap = r->cap ? r->cap : 4096;
				char *nb;
				while (cap < r->len + *upload_size + 1)
					cap *= 2;
				if (!(nb = realloc(r->buf, cap)))
					return MHD_NO;
				r->buf = nb;
				r->cap = cap;
			}
			memcpy(r->buf + r->len, upload, *upload_size);
			r->len += *upload_size;
			r->buf[r->len] = 0;
		}
		*upload_size = 0;
		return MHD_YES;
	}
	ret = route(S, c, url, method, r);
	/* the read timeout counts from the last byte received: restart it once
	 * the answer is ready, or a long poll longer than the timeout would be
	 * closed before its answer is sent (setting the timeout of a connection
	 * that has none restarts its clock) */
	MHD_set_connection_option(c, MHD_CONNECTION_OPTION_TIMEOUT, 0u);
	MHD_set_connection_option(c, MHD_CONNECTION_OPTION_TIMEOUT, S->read_timeout_s);
	return ret;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct req *r = *con_cls;
	(void)cls;
	(void)c;
	(void)toe;
	if (r) {
		free(r->buf);
		free(r);
		*con_cls = NULL;
	}
}

/* the HTTP side: the gate that accepts and screens connections, and the
 * libmicrohttpd daemon it hands them to */
struct http {
	struct MHD_Daemon *d;
	struct kj_gate *gate;
	int lfd;
};

void *kj_serve_http_start(struct kj_server *S, const struct sockaddr_storage *addr, int *port,
			  struct kj_err *err)
{
	/* no listening socket of its own: every connection comes through the
	 * gate (gate.c), which checks its request header first */
	unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
			 MHD_USE_NO_LISTEN_SOCKET | MHD_USE_ITC;
	struct http *h = calloc(1, sizeof(*h));
	if (!h) {
		kj_err_set(err, KJ_E_NOMEM, "serve: out of memory");
		return NULL;
	}
	h->lfd = kj_gate_listen(addr, port, err);
	if (h->lfd < 0) {
		free(h);
		return NULL;
	}
	/* the limits are the gate's, again here for the connections it hands
	 * on; the read timeout covers a body that stops arriving */
	h->d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, S, MHD_OPTION_NOTIFY_COMPLETED,
				on_completed, S, MHD_OPTION_CONNECTION_LIMIT, S->max_conns,
				MHD_OPTION_PER_IP_CONNECTION_LIMIT, S->conns_per_ip,
				MHD_OPTION_CONNECTION_TIMEOUT, S->read_timeout_s,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 * 1024), MHD_OPTION_END);
	if (!h->d) {
		kj_err_set(err, KJ_E_IO, "cannot start the HTTP server (libmicrohttpd)");
		close(h->lfd);
		free(h);
		return NULL;
	}
	if (kj_gate_start(S, h->lfd, h->d, &h->gate, err)) {
		MHD_stop_daemon(h->d);
		close(h->lfd);
		free(h);
		return NULL;
	}
	return h;
}

void kj_serve_http_stop(void *http)
{
	struct http *h = http;
	kj_gate_stop(h->gate);
	close(h->lfd);
	MHD_stop_daemon(h->d);
	free(h);
}
