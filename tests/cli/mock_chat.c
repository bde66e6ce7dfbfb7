/*
 * A stand-in OpenAI chat-completions endpoint for the refine tests: it
 * replays recorded answers over real HTTP on a loopback port.
 *
 *   mock_chat PORT_FILE ANSWERS_DIR LOG_FILE [FAIL_FIRST [KEY]]
 *
 * Each POST .../chat/completions gets the answer file
 * ANSWERS_DIR/<task with / as __>.<round>.txt, where the task is read from
 * the prompt's "## Task: " line and the round from "This is round N" (0
 * when absent); past the last recorded round the last one is replayed.  The
 * first FAIL_FIRST requests get 429 with Retry-After: 1; with KEY, a request
 * without "Authorization: Bearer KEY" gets 401.  One line per request goes to
 * LOG_FILE: "<status> <task> <round> <authorization>".  The chosen port is
 * written to PORT_FILE.  It runs until killed.  Built by the test itself
 * (cc ... -lmicrohttpd -ljansson).
 */
#include <arpa/inet.h>
#include <jansson.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static const char *answers_dir, *log_path, *key;
static int fail_first, served;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

struct conn {
	char *buf;
	size_t len;
};

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *b;
	long n;
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	b = malloc((size_t)n + 1);
	if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
		free(b);
		b = NULL;
	}
	if (b)
		b[n] = 0;
	fclose(f);
	return b;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, json_t *o, const char *retry_after)
{
	char *s = json_dumps(o, JSON_COMPACT);
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(s), s, MHD_RESPMEM_MUST_FREE);
	enum MHD_Result ret;
	json_decref(o);
	MHD_add_response_header(r, "Content-Type", "application/json");
	if (retry_after)
		MHD_add_response_header(r, "Retry-After", retry_after);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static json_t *error_obj(const char *msg, const char *code)
{
	return json_pack("{s:{s:s,s:s,s:s}}", "error", "message", msg, "type", "mock", "code", code);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			      const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
	struct conn *k = *con_cls;
	const char *auth, *prompt = "", *p;
	char task[256] = "", path[4096], want[300];
	int round = 0, n, status;
	json_t *req, *msgs;
	char *answer = NULL;
	FILE *lf;
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
	req = k->buf ? json_loads(k->buf, 0, NULL) : NULL;
	msgs = json_object_get(req, "messages");
	if (json_array_size(msgs))
		prompt = json_string_value(json_object_get(json_array_get(msgs, json_array_size(msgs) - 1), "content"));
	if (!prompt)
		prompt = "";
	if ((p = strstr(prompt, "## Task: ")))
		sscanf(p + 9, "%255s", task);
	if ((p = strstr(prompt, "This is round ")))
		round = atoi(p + 14);
	pthread_mutex_lock(&mu);
	n = served++;
	pthread_mutex_unlock(&mu);
	if (strcmp(method, "POST") || !strstr(url, "/chat/completions")) {
		status = 404;
	} else if (key && (!auth || strncmp(auth, "Bearer ", 7) || strcmp(auth + 7, key))) {
		status = 401;
	} else if (n < fail_first) {
		status = 429;
	} else if (!req || !task[0]) {
		status = 400;
	} else {
		status = 200;
		for (int r = round; r >= 0 && !answer; r--) {
			size_t j = 0;
			for (const char *q = task; *q && j + 3 < sizeof(want); q++) {
				if (*q == '/') {
					want[j++] = '_';
					want[j++] = '_';
				} else {
					want[j++] = *q;
				}
			}
			want[j] = 0;
			snprintf(path, sizeof(path), "%s/%s.%d.txt", answers_dir, want, r);
			answer = read_file(path);
		}
		if (!answer)
			status = 500;
	}
	if ((lf = fopen(log_path, "a"))) {
		fprintf(lf, "%d %s %d %s\n", status, task[0] ? task : "-", round, auth ? auth : "(none)");
		fclose(lf);
	}
	json_decref(req);
	switch (status) {
	case 200: {
		json_t *o = json_pack("{s:s,s:s,s:[{s:i,s:{s:s,s:s},s:s}],s:{s:i,s:i}}", "id", "mock-1", "object",
				      "chat.completion", "choices", "index", 0, "message", "role", "assistant", "content",
				      answer, "finish_reason", "stop", "usage", "prompt_tokens", (int)strlen(prompt) / 4,
				      "completion_tokens", (int)strlen(answer) / 4);
		free(answer);
		return reply(c, 200, o, NULL);
	}
	case 401:
		return reply(c, 401, error_obj("Incorrect API key provided", "invalid_api_key"), NULL);
	case 429:
		return reply(c, 429, error_obj("Rate limit reached", "rate_limit_exceeded"), "1");
	case 404:
		return reply(c, 404, error_obj("no such route", "not_found"), NULL);
	case 400:
		return reply(c, 400, error_obj("no task in the prompt", "bad_request"), NULL);
	default:
		return reply(c, 500, error_obj("no recorded answer for this task", "no_answer"), NULL);
	}
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

int main(int argc, char **argv)
{
	struct sockaddr_in sa;
	struct MHD_Daemon *d;
	const union MHD_DaemonInfo *info;
	char tmp[4096];
	FILE *f;
	if (argc < 4) {
		fprintf(stderr, "usage: mock_chat PORT_FILE ANSWERS_DIR LOG_FILE [FAIL_FIRST [KEY]]\n");
		return 2;
	}
	answers_dir = argv[2];
	log_path = argv[3];
	fail_first = argc > 4 ? atoi(argv[4]) : 0;
	key = argc > 5 ? argv[5] : NULL;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, handle, NULL, MHD_OPTION_SOCK_ADDR,
			     (struct sockaddr *)&sa, MHD_OPTION_NOTIFY_COMPLETED, completed, NULL, MHD_OPTION_END);
	if (!d) {
		fprintf(stderr, "mock_chat: cannot listen on 127.0.0.1\n");
		return 1;
	}
	info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	snprintf(tmp, sizeof(tmp), "%s.tmp", argv[1]);
	/* written whole, then renamed: a reader never sees half a number */
	if (!info || !(f = fopen(tmp, "w"))) {
		fprintf(stderr, "mock_chat: cannot write the port file\n");
		return 1;
	}
	fprintf(f, "%u\n", (unsigned)info->port);
	fclose(f);
	if (rename(tmp, argv[1])) {
		fprintf(stderr, "mock_chat: cannot write the port file\n");
		return 1;
	}
	for (;;)
		pause();
}
