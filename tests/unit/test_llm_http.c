/* The chat-completions client over real HTTP, against a stand-in OpenAI
 * endpoint (libmicrohttpd) on a loopback port of this process: retries on
 * 429 with Retry-After and on 5xx with backoff, the Authorization header,
 * the request path and body, errors that are not retried, a refused
 * connection and an oversized answer.  The client's sleep is replaced, so the
 * test records the waits instead of taking them. */
#include <arpa/inet.h>
#include <jansson.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "kjudge/llm.h"
#include "tap.h"

struct planned {
	unsigned status;
	const char *retry_after; /* NULL: no header */
	const char *body;
};

#define MAX_SEEN 16

static struct {
	pthread_mutex_t mu;
	const struct planned *plan;
	int nplan, served;
	char auth[MAX_SEEN][128], url[MAX_SEEN][128], method[MAX_SEEN][16];
	char *body[MAX_SEEN];
	size_t big; /* > 0: answer 200 with this many bytes of content */
} srv = { .mu = PTHREAD_MUTEX_INITIALIZER };

struct conn {
	char *buf;
	size_t len;
};

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			      const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
	struct conn *k = *con_cls;
	struct MHD_Response *r;
	const struct planned *p;
	const char *auth;
	enum MHD_Result ret;
	char *big = NULL;
	int i;
	(void)cls;
	(void)version;
	if (!k) {
		k = calloc(1, sizeof(*k));
		*con_cls = k;
		return k ? MHD_YES : MHD_NO;
	}
	if (*upload_size) {
		char *nb = realloc(k->buf, k->len + *upload_size + 1);
		if (!nb)
			return MHD_NO;
		k->buf = nb;
		memcpy(k->buf + k->len, upload, *upload_size);
		k->len += *upload_size;
		k->buf[k->len] = 0;
		*upload_size = 0;
		return MHD_YES;
	}
	auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
	pthread_mutex_lock(&srv.mu);
	i = srv.served++;
	if (i < MAX_SEEN) {
		snprintf(srv.auth[i], sizeof(srv.auth[i]), "%s", auth ? auth : "(none)");
		snprintf(srv.url[i], sizeof(srv.url[i]), "%s", url);
		snprintf(srv.method[i], sizeof(srv.method[i]), "%s", method);
		srv.body[i] = k->buf ? strdup(k->buf) : NULL;
	}
	p = &srv.plan[i < srv.nplan ? i : srv.nplan - 1];
	if (srv.big) {
		json_t *o = json_pack("{s:[{s:{s:s,s:s%}}]}", "choices", "message", "role", "assistant", "content",
				      "", (size_t)0);
		char *fill = malloc(srv.big + 1);
		memset(fill, 'a', srv.big);
		fill[srv.big] = 0;
		json_object_set_new(json_object_get(json_array_get(json_object_get(o, "choices"), 0), "message"),
				    "content", json_string(fill));
		big = json_dumps(o, JSON_COMPACT);
		free(fill);
		json_decref(o);
	}
	pthread_mutex_unlock(&srv.mu);
	r = big ? MHD_create_response_from_buffer(strlen(big), big, MHD_RESPMEM_MUST_FREE)
		: MHD_create_response_from_buffer(strlen(p->body), (void *)p->body, MHD_RESPMEM_PERSISTENT);
	MHD_add_response_header(r, "Content-Type", "application/json");
	if (p->retry_after)
		MHD_add_response_header(r, "Retry-After", p->retry_after);
	ret = MHD_queue_response(c, big ? 200 : p->status, r);
	MHD_destroy_response(r);
	return ret;
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode t)
{
	struct conn *k = *con_cls;
	(void)cls;
	(void)c;
	(void)t;
	if (k) {
		free(k->buf);
		free(k);
	}
	*con_cls = NULL;
}

static void reset(const struct planned *plan, int n)
{
	pthread_mutex_lock(&srv.mu);
	for (int i = 0; i < MAX_SEEN; i++) {
		free(srv.body[i]);
		srv.body[i] = NULL;
		srv.auth[i][0] = srv.url[i][0] = srv.method[i][0] = 0;
	}
	srv.plan = plan;
	srv.nplan = n;
	srv.served = 0;
	srv.big = 0;
	pthread_mutex_unlock(&srv.mu);
}

static double waits[16];
static int nwaits;

static void record_sleep(void *ctx, double s)
{
	(void)ctx;
	if (nwaits < 16)
		waits[nwaits++] = s;
}

static const char *ok_body =
	"{\"id\": \"x\", \"object\": \"chat.completion\", \"choices\": [{\"index\": 0, \"message\": "
	"{\"role\": \"assistant\", \"content\": \"```c\\nvoid relu(void) {}\\n```\"}, \"finish_reason\": \"stop\"}],"
	" \"usage\": {\"prompt_tokens\": 3, \"completion_tokens\": 5, \"total_tokens\": 8}}";
static const char *rate_body =
	"{\"error\": {\"message\": \"Rate limit reached\", \"type\": \"requests\", \"code\": \"rate_limit_exceeded\"}}";

int main(void)
{
	struct sockaddr_in sa;
	struct MHD_Daemon *d;
	const union MHD_DaemonInfo *info;
	struct kj_llm_client_opts o;
	struct kj_llm_usage u;
	struct kj_err e;
	char base[128], *content = NULL;
	int port, rc;

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = 0;
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, handle, NULL, MHD_OPTION_SOCK_ADDR,
			     (struct sockaddr *)&sa, MHD_OPTION_NOTIFY_COMPLETED, completed, NULL, MHD_OPTION_END);
	if (!ok(d != NULL, "a stand-in endpoint listens on 127.0.0.1"))
		return done_testing();
	info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	port = info ? info->port : 0;
	ok(port > 0, "on port %d", port);
	snprintf(base, sizeof(base), "http://127.0.0.1:%d/v1/", port);

	kj_llm_client_opts_init(&o);
	o.base_url = base;
	o.api_key = "sk-test-123";
	o.model = "m-test";
	o.sleep_fn = record_sleep;
	o.seed = 7;
	o.timeout_s = 20;
	kj_err_init(&e);

	/* 429 with Retry-After: 1, then a completion */
	{
		static struct planned plan[] = { { 429, "1", NULL }, { 200, NULL, NULL } };
		plan[0].body = rate_body;
		plan[1].body = ok_body;
		reset(plan, 2);
		nwaits = 0;
		rc = kj_llm_chat(&o, "sys", "write relu", &content, &u, &e);
		ok(rc == 0, "429 then 200: the answer comes back (%s)", rc ? e.msg : "ok");
		is_str(content, "```c\nvoid relu(void) {}\n```", "its content");
		is_int(u.attempts, 2, "after two tries");
		is_int(srv.served, 2, "the endpoint saw two requests");
		is_int(nwaits, 1, "one wait");
		is_near(waits[0], 1.0, 0, "of exactly the Retry-After's 1 s");
		is_str(srv.auth[0], "Bearer sk-test-123", "the first request carried the key");
		is_str(srv.auth[1], "Bearer sk-test-123", "the retry too");
		is_str(srv.url[1], "/v1/chat/completions", "POSTed to <base>/chat/completions (trailing / dropped)");
		is_str(srv.method[1], "POST", "with POST");
		{
			json_t *j = srv.body[1] ? json_loads(srv.body[1], 0, NULL) : NULL;
			json_t *m = json_object_get(j, "messages");
			ok(j && !strcmp(json_string_value(json_object_get(j, "model")), "m-test") &&
				   !strcmp(json_string_value(json_object_get(json_array_get(m, 1), "content")),
					   "write relu") &&
				   json_is_false(json_object_get(j, "stream")),
			   "the body names the model, the prompt, and no streaming");
			json_decref(j);
		}
		ok(u.prompt_tokens == 3 && u.completion_tokens == 5, "usage is read");
		free(content);
	}

	/* 503, 500 (no Retry-After), then 200: backoff with jitter */
	{
		static struct planned plan[] = { { 503, NULL, "busy" }, { 500, NULL, "{\"error\": \"boom\"}" },
						 { 200, NULL, NULL } };
		plan[2].body = ok_body;
		reset(plan, 3);
		nwaits = 0;
		rc = kj_llm_chat(&o, NULL, "again", &content, &u, &e);
		ok(rc == 0 && u.attempts == 3, "503, 500, 200: answered on the third try");
		ok(nwaits == 2 && waits[0] >= 0.5 && waits[0] <= 1.0 && waits[1] >= 1.0 && waits[1] <= 2.0,
		   "waits of 1 s then 2 s, each half jitter (%.3f, %.3f)", waits[0], waits[1]);
		free(content);
	}

	/* 401: not retried, KJ_E_USAGE with the endpoint's message */
	{
		static const struct planned plan[] = {
			{ 401, NULL, "{\"error\": {\"message\": \"Incorrect API key provided\", \"type\": "
				     "\"invalid_request_error\", \"code\": \"invalid_api_key\"}}" }
		};
		reset(plan, 1);
		nwaits = 0;
		o.api_key = "wrong";
		rc = kj_llm_chat(&o, NULL, "x", &content, &u, &e);
		is_int(rc, KJ_E_USAGE, "401: KJ_E_USAGE");
		ok(u.attempts == 1 && srv.served == 1 && nwaits == 0, "not retried");
		is_int(u.http_status, 401, "the status is reported");
		like(e.msg, "HTTP 401: Incorrect API key provided (invalid_request_error, invalid_api_key)",
		     "with the endpoint's error");
		is_str(srv.auth[0], "Bearer wrong", "the key sent was the one given");
		o.api_key = NULL;
	}

	/* always 500: the retries run out */
	{
		static const struct planned plan[] = { { 500, NULL, "{\"error\": {\"message\": \"overloaded\"}}" } };
		reset(plan, 1);
		nwaits = 0;
		o.max_retries = 2;
		rc = kj_llm_chat(&o, NULL, "x", &content, &u, &e);
		is_int(rc, KJ_E_IO, "500 every time: KJ_E_IO");
		ok(u.attempts == 3 && srv.served == 3, "after 1 + 2 retries");
		like(e.msg, "gave up after 3 tries", "saying so");
		is_str(srv.auth[0], "(none)", "no key: no Authorization header");
	}

	/* an answer over the cap */
	{
		static struct planned plan[] = { { 200, NULL, NULL } };
		plan[0].body = ok_body;
		reset(plan, 1);
		srv.big = 100000;
		o.max_response = 4096;
		rc = kj_llm_chat(&o, NULL, "x", &content, &u, &e);
		ok(rc == KJ_E_IO && strstr(e.msg, "larger than 4096 bytes"), "an answer over the cap is refused (%s)",
		   e.msg);
		o.max_response = 1 << 20;
		srv.big = 0;
	}
	MHD_stop_daemon(d);

	/* nobody listens: connection errors are retried, then KJ_E_IO */
	nwaits = 0;
	o.max_retries = 1;
	o.connect_timeout_s = 5;
	rc = kj_llm_chat(&o, NULL, "x", &content, &u, &e);
	is_int(rc, KJ_E_IO, "a refused connection: KJ_E_IO");
	ok(u.attempts == 2 && nwaits == 1 && u.http_status == 0, "retried once, no HTTP status");
	like(e.msg, "127.0.0.1", "the message names the endpoint");

	reset(NULL, 0);
	return done_testing();
}
