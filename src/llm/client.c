/*
 * An OpenAI-compatible chat-completions client: one POST of
 * {model, messages} to <base>/chat/completions through libcurl, no
 * streaming.  Transient failures (connection errors, timeouts, 408, 409,
 * 425, 429, 5xx) are retried with exponential backoff and jitter; a
 * Retry-After header sets the wait instead.  The response body is kept up
 * to a cap, so a broken endpoint cannot fill the memory.
 */
#include <curl/curl.h>
#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "kjudge/llm.h"
#include "kjudge/sandbox.h"

void kj_llm_client_opts_init(struct kj_llm_client_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->base_url = "https://api.openai.com/v1";
	o->temperature = -1;
	o->connect_timeout_s = 10;
	o->timeout_s = 600;
	o->max_retries = 6;
	o->backoff_base_s = 1;
	o->backoff_max_s = 60;
	o->max_response = 16u << 20;
}

char *kj_llm_request_json(const struct kj_llm_client_opts *o, const char *system, const char *user)
{
	json_t *req = json_object(), *msgs = json_array();
	char *s;
	if (!req || !msgs) {
		json_decref(req);
		json_decref(msgs);
		return NULL;
	}
	json_object_set_new(req, "model", json_string(o->model ? o->model : ""));
	if (system && *system)
		json_array_append_new(msgs, json_pack("{s:s,s:s}", "role", "system", "content", system));
	json_array_append_new(msgs, json_pack("{s:s,s:s}", "role", "user", "content", user ? user : ""));
	json_object_set_new(req, "messages", msgs);
	if (o->temperature >= 0)
		json_object_set_new(req, "temperature", json_real(o->temperature));
	if (o->max_tokens > 0)
		json_object_set_new(req, "max_tokens", json_integer(o->max_tokens));
	json_object_set_new(req, "stream", json_false());
	s = json_dumps(req, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(req);
	return s;
}

/* "message (type, code)" of an OpenAI error object, into buf. */
static void error_text(json_t *e, char *buf, size_t len)
{
	json_t *m, *ty, *co;
	if (json_is_string(e)) {
		snprintf(buf, len, "%s", json_string_value(e));
		return;
	}
	m = json_object_get(e, "message");
	ty = json_object_get(e, "type");
	co = json_object_get(e, "code");
	snprintf(buf, len, "%s", json_is_string(m) ? json_string_value(m) : "(no message)");
	if (json_is_string(ty) || json_is_string(co) || json_is_integer(co)) {
		char code[64] = "";
		if (json_is_string(co))
			snprintf(code, sizeof(code), "%s", json_string_value(co));
		else if (json_is_integer(co))
			snprintf(code, sizeof(code), "%lld", (long long)json_integer_value(co));
		snprintf(buf + strlen(buf), len - strlen(buf), " (%s%s%s)",
			 json_is_string(ty) ? json_string_value(ty) : "", json_is_string(ty) && code[0] ? ", " : "",
			 code);
	}
}

/* At most n bytes of s as one printable line. */
static void snippet(const char *s, size_t slen, char *buf, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < slen && k + 1 < n; i++) {
		unsigned char c = (unsigned char)s[i];
		buf[k++] = c >= 0x20 && c < 0x7f ? (char)c : ' ';
	}
	buf[k] = 0;
}

int kj_llm_parse_response(long http_status, const char *body, size_t len, char **content,
			  struct kj_llm_usage *u, struct kj_err *err)
{
	json_error_t je;
	json_t *o = body && len ? json_loadb(body, len, 0, &je) : NULL;
	json_t *e, *ch, *msg, *c, *us;
	char text[768];
	*content = NULL;
	e = json_object_get(o, "error");
	if (http_status < 200 || http_status > 299 || (e && !json_is_null(e))) {
		if (e && !json_is_null(e))
			error_text(e, text, sizeof(text));
		else
			snippet(body ? body : "", body ? len : 0, text, 200);
		json_decref(o);
		return kj_err_set(err, KJ_E_IO, "HTTP %ld: %s", http_status, text[0] ? text : "(empty body)");
	}
	if (!json_is_object(o)) {
		snippet(body ? body : "", body ? len : 0, text, 200);
		json_decref(o);
		return kj_err_set(err, KJ_E_PARSE, "the answer is not a JSON object: %s", text);
	}
	ch = json_array_get(json_object_get(o, "choices"), 0);
	msg = json_object_get(ch, "message");
	c = json_object_get(msg, "content");
	if (!json_is_string(c)) {
		json_decref(o);
		return kj_err_set(err, KJ_E_PARSE, "the answer has no choices[0].message.content string");
	}
	if (u) {
		json_t *fr = json_object_get(ch, "finish_reason");
		us = json_object_get(o, "usage");
		u->prompt_tokens = json_is_integer(json_object_get(us, "prompt_tokens"))
					   ? (long)json_integer_value(json_object_get(us, "prompt_tokens"))
					   : -1;
		u->completion_tokens = json_is_integer(json_object_get(us, "completion_tokens"))
					       ? (long)json_integer_value(json_object_get(us, "completion_tokens"))
					       : -1;
		snprintf(u->finish_reason, sizeof(u->finish_reason), "%s",
			 json_is_string(fr) ? json_string_value(fr) : "");
	}
	*content = strdup(json_string_value(c));
	json_decref(o);
	if (!*content)
		return kj_err_set(err, KJ_E_NOMEM, "out of memory");
	return 0;
}

int kj_llm_retryable_status(long s)
{
	return s == 408 || s == 409 || s == 425 || s == 429 || (s >= 500 && s <= 599);
}

double kj_llm_backoff(const struct kj_llm_client_opts *o, int attempt, double retry_after_s,
		      unsigned *state)
{
	double e, r;
	if (retry_after_s >= 0)
		return retry_after_s > 600 ? 600 : retry_after_s;
	e = o->backoff_base_s;
	for (int i = 1; i < attempt && e < o->backoff_max_s; i++)
		e *= 2;
	if (e > o->backoff_max_s)
		e = o->backoff_max_s;
	/* equal jitter: half fixed, half uniform, so that many clients told
	 * to wait at once do not come back at once */
	r = (double)(rand_r(state) % 10001) / 10000.0;
	return e / 2 + r * e / 2;
}

/* ---- HTTP ------------------------------------------------------------------ */

struct resp {
	struct kj_capbuf body;
	double retry_after; /* < 0: none */
};

static size_t on_body(char *p, size_t size, size_t n, void *ctx)
{
	struct resp *r = ctx;
	kj_capbuf_add(&r->body, p, size * n);
	/* over the cap: stop the transfer (curl reports a write error) */
	return r->body.total > r->body.cap ? 0 : size * n;
}

static size_t on_header(char *p, size_t size, size_t n, void *ctx)
{
	struct resp *r = ctx;
	size_t len = size * n;
	if (len > 12 && !strncasecmp(p, "retry-after:", 12)) {
		char v[128];
		size_t k = 0;
		const char *s = p + 12;
		while (s < p + len && (*s == ' ' || *s == '\t'))
			s++;
		while (s < p + len && *s != '\r' && *s != '\n' && k + 1 < sizeof(v))
			v[k++] = *s++;
		v[k] = 0;
		if (k && v[0] >= '0' && v[0] <= '9') {
			char *end;
			double x = strtod(v, &end);
			if (end != v && x >= 0)
				r->retry_after = x;
		} else if (k) {
			time_t when = curl_getdate(v, NULL);
			if (when > 0) {
				double d = difftime(when, time(NULL));
				r->retry_after = d > 0 ? d : 0;
			}
		}
	}
	return len;
}

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc;

static void curl_init(void)
{
	curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

static void default_sleep(void *ctx, double s)
{
	struct timespec ts;
	(void)ctx;
	if (s <= 0)
		return;
	ts.tv_sec = (time_t)s;
	ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void logf_(const struct kj_llm_client_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void logf_(const struct kj_llm_client_opts *o, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	if (!o->log_fn)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	o->log_fn(o->log_ctx, line);
}

int kj_llm_chat(const struct kj_llm_client_opts *o, const char *system, const char *user,
		char **content, struct kj_llm_usage *u, struct kj_err *err)
{
	struct kj_llm_usage local;
	char url[2048], auth[4200], curl_msg[CURL_ERROR_SIZE];
	char *body = NULL;
	struct curl_slist *hdr = NULL;
	CURL *h = NULL;
	unsigned state = o->seed ? o->seed : (unsigned)time(NULL) ^ (unsigned)(uintptr_t)&local;
	size_t blen;
	int rc = 0;
	*content = NULL;
	if (!u)
		u = &local;
	memset(u, 0, sizeof(*u));
	u->prompt_tokens = u->completion_tokens = -1;
	pthread_once(&curl_once, curl_init);
	if (curl_init_rc != CURLE_OK)
		return kj_err_set(err, KJ_E_INTERNAL, "libcurl did not initialise: %s",
				  curl_easy_strerror(curl_init_rc));
	{
		const char *b = o->base_url ? o->base_url : "";
		size_t bl = strlen(b);
		while (bl && b[bl - 1] == '/')
			bl--;
		if (!bl)
			return kj_err_set(err, KJ_E_USAGE, "no base URL for the chat endpoint");
		if ((size_t)snprintf(url, sizeof(url), "%.*s/chat/completions", (int)bl, b) >= sizeof(url))
			return kj_err_set(err, KJ_E_USAGE, "the base URL is too long");
	}
	if (!(body = kj_llm_request_json(o, system, user)))
		return kj_err_set(err, KJ_E_NOMEM, "out of memory building the request");
	blen = strlen(body);
	hdr = curl_slist_append(hdr, "Content-Type: application/json");
	hdr = curl_slist_append(hdr, "Accept: application/json");
	if (o->api_key && *o->api_key) {
		snprintf(auth, sizeof(auth), "Authorization: Bearer %s", o->api_key);
		hdr = curl_slist_append(hdr, auth);
		/* the key must not outlive the request in this stack frame */
		memset(auth, 0, sizeof(auth));
	}
	h = curl_easy_init();
	if (!h || !hdr) {
		rc = kj_err_set(err, KJ_E_NOMEM, "cannot set up a libcurl handle");
		goto out;
	}
	for (int attempt = 0;; attempt++) {
		struct resp r;
		CURLcode cc;
		long status = 0;
		int retry = 0;
		char why[1200];
		kj_capbuf_init(&r.body, o->max_response);
		r.retry_after = -1;
		curl_msg[0] = 0;
		curl_easy_reset(h);
		curl_easy_setopt(h, CURLOPT_URL, url);
		curl_easy_setopt(h, CURLOPT_POST, 1L);
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)blen);
		curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
		curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
		curl_easy_setopt(h, CURLOPT_WRITEDATA, &r);
		curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
		curl_easy_setopt(h, CURLOPT_HEADERDATA, &r);
		curl_easy_setopt(h, CURLOPT_ERRORBUFFER, curl_msg);
		curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
		curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)(o->connect_timeout_s * 1000));
		curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)(o->timeout_s * 1000));
		curl_easy_setopt(h, CURLOPT_USERAGENT, "kjudge/0.1");
		/* no redirects: a POST with a key goes where it was told */
		curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
		curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
		cc = curl_easy_perform(h);
		u->attempts = attempt + 1;
		if (cc == CURLE_OK) {
			curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
			u->http_status = status;
			if (status >= 200 && status <= 299) {
				rc = kj_llm_parse_response(status, r.body.buf, r.body.len, content, u, err);
				kj_capbuf_release(&r.body);
				if (rc)
					kj_err_prefix(err, "%s", url);
				goto out;
			}
			{
				struct kj_err e2;
				kj_err_init(&e2);
				kj_llm_parse_response(status, r.body.buf, r.body.len, content, NULL, &e2);
				snprintf(why, sizeof(why), "%s", e2.msg);
			}
			retry = kj_llm_retryable_status(status);
		} else if (cc == CURLE_WRITE_ERROR && r.body.total > r.body.cap) {
			kj_capbuf_release(&r.body);
			rc = kj_err_set(err, KJ_E_IO, "%s: the answer is larger than %zu bytes", url, o->max_response);
			goto out;
		} else {
			u->http_status = 0;
			snprintf(why, sizeof(why), "%s", curl_msg[0] ? curl_msg : curl_easy_strerror(cc));
			retry = cc == CURLE_COULDNT_CONNECT || cc == CURLE_OPERATION_TIMEDOUT ||
				cc == CURLE_GOT_NOTHING || cc == CURLE_SEND_ERROR || cc == CURLE_RECV_ERROR ||
				cc == CURLE_PARTIAL_FILE || cc == CURLE_COULDNT_RESOLVE_HOST ||
				cc == CURLE_SSL_CONNECT_ERROR || cc == CURLE_HTTP2 || cc == CURLE_HTTP2_STREAM;
		}
		kj_capbuf_release(&r.body);
		if (!retry) {
			rc = kj_err_set(err, status ? KJ_E_USAGE : KJ_E_IO, "%s: %s", url, why);
			goto out;
		}
		if (attempt >= o->max_retries) {
			rc = kj_err_set(err, KJ_E_IO, "%s: %s (gave up after %d tries)", url, why, attempt + 1);
			goto out;
		}
		{
			double d = kj_llm_backoff(o, attempt + 1, r.retry_after, &state);
			logf_(o, "%s; retry %d of %d in %.1f s%s", why, attempt + 1, o->max_retries, d,
			      r.retry_after >= 0 ? " (Retry-After)" : "");
			u->waited_s += d;
			(o->sleep_fn ? o->sleep_fn : default_sleep)(o->sleep_ctx, d);
		}
	}
out:
	if (h)
		curl_easy_cleanup(h);
	curl_slist_free_all(hdr);
	free(body);
	return rc;
}
