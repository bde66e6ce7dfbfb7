/* src/llm without a network: code-block extraction, prompts (one-shot,
 * few-shot, refinement with feedback from verdict JSON), the chat request
 * and response bodies, the backoff rule and the generator command.  Run from
 * the repository root (tasks/ and examples/ are read). */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "kjudge/case.h"
#include "kjudge/llm.h"
#include "tap.h"

static void test_extract(void)
{
	struct kj_err e;
	char *code = NULL;
	size_t len = 0;
	int rc;

	kj_err_init(&e);
	rc = kj_llm_extract_code("Here you go:\n\n```c\nint f(void) { return 1; }\n```\nThat is all.\n", "f", &code,
				 &len, &e);
	ok(rc == 0, "one ```c block is found");
	is_str(code, "int f(void) { return 1; }\n", "its body, without the fences");
	is_int(len, strlen("int f(void) { return 1; }\n"), "and its length");
	free(code);

	rc = kj_llm_extract_code("```python\nprint(1)\n```\n```cuda\n__global__ void k() {}\n```\n", NULL, &code, NULL,
				 &e);
	ok(rc == 0, "a python block and a cuda block: found");
	is_str(code, "__global__ void k() {}\n", "the cuda block, not the python one");
	free(code);

	rc = kj_llm_extract_code("```c\nvoid relu(float *x) { /* short */ }\n```\n"
				 "and a longer sketch:\n```cpp\n// helper\nstatic int helper(int a) { return a + 1; }\n"
				 "static int helper2(int a) { return a + 2; }\n```\n",
				 "relu", &code, NULL, &e);
	ok(rc == 0 && code && strstr(code, "void relu"), "the block that names the function wins over a longer one");
	free(code);

	rc = kj_llm_extract_code("```\nint a;\n```\n```C++\nint a;\nint b;\n```\n", NULL, &code, NULL, &e);
	ok(rc == 0 && code && !strcmp(code, "int a;\nint b;\n"), "with no name given, the longest (language in any case)");
	free(code);

	rc = kj_llm_extract_code("```c\nint x;\n```\n```c\nint y;\n```\n", NULL, &code, NULL, &e);
	is_str(code, "int y;\n", "equal lengths: the last block");
	free(code);

	rc = kj_llm_extract_code("````c\nconst char *s = \"```\";\n```\nint z;\n````\n", NULL, &code, NULL, &e);
	ok(rc == 0 && code && strstr(code, "int z;"), "a 4-backtick fence holds a ``` line");
	free(code);

	rc = kj_llm_extract_code("text\n```c\nint open_at_end(void);\n", NULL, &code, NULL, &e);
	is_str(code, "int open_at_end(void);\n", "a block left open at the end counts when nothing else does");
	free(code);

	rc = kj_llm_extract_code("```c\nint closed;\n```\n```c\nint open_but_much_longer_than_the_closed_one;\n", NULL,
				 &code, NULL, &e);
	is_str(code, "int closed;\n", "a closed block beats an open one");
	free(code);

	kj_err_init(&e);
	code = (char *)1;
	rc = kj_llm_extract_code("I cannot write that kernel.  int f(void) { return 0; }", "f", &code, NULL, &e);
	is_int(rc, KJ_E_NOTFOUND, "prose without fences: KJ_E_NOTFOUND");
	is_str(e.msg, "no code block in the answer", "with the message the attempt is stored with");
	ok(code == NULL, "and no code handed out");

	rc = kj_llm_extract_code("```bash\nmake\n```\n```c\n   \n```\n", NULL, &code, NULL, &e);
	is_int(rc, KJ_E_NOTFOUND, "only a shell block and an empty C block: none");
}

static kj_task *load(const char *path)
{
	kj_task *t = NULL;
	struct kj_err e;
	kj_err_init(&e);
	if (kj_task_load(path, &t, &e))
		printf("# %s\n", e.msg);
	return t;
}

static void test_prompts(void)
{
	struct kj_prompt_opts o;
	struct kj_err e;
	kj_task *t = load("tasks/level1/relu.kt");
	char *text = NULL, **paths, **tasks, *ex;
	int n, rc, other = 1, same_cat = 1;

	if (!ok(t != NULL, "tasks/level1/relu.kt loads (tests run from the repository root)"))
		return;
	kj_err_init(&e);
	kj_prompt_opts_init(&o);
	o.backend = KJ_BACKEND_CPU;
	rc = kj_prompt_render(t, &o, NULL, &text, &e);
	ok(rc == 0, "one-shot prompt renders");
	like(text, "void relu(const float* x, float* y, int64_t B, int64_t D);", "it has the exact prototype");
	like(text, "## Task: level1/relu", "it names the task");
	like(text, "pre-filled with NaN", "it states the rules");
	ok(text && !strstr(text, "## Worked examples") && !strstr(text, "## Hardware"),
	   "one-shot on the CPU: no examples, no hardware section");
	free(text);

	o.shots = 3;
	o.root = ".";
	rc = kj_prompt_pick_examples(t, &o, &paths, &tasks, &n, &e);
	ok(rc == 0 && n == 3, "few-shot picks 3 examples (got %d)", n);
	for (int i = 0; i < n; i++) {
		char *src;
		size_t len;
		FILE *f = fopen(paths[i], "rb");
		struct kj_case kc;
		kj_task *et;
		char kt[512];
		if (!f) {
			other = 0;
			continue;
		}
		src = calloc(1, 1 << 20);
		len = fread(src, 1, (1 << 20) - 1, f);
		fclose(f);
		(void)len;
		if (kj_case_parse(src, paths[i], &kc, NULL) || !strcmp(kc.task, "level1/relu") ||
		    strcmp(kc.expect, "pass") || strcmp(kc.task, tasks[i]))
			other = 0;
		free(src);
		snprintf(kt, sizeof(kt), "tasks/%s.kt", tasks[i]);
		et = load(kt);
		if (!et || strcmp(et->category, t->category))
			same_cat = 0;
		if (et && !strcmp(et->name, "relu"))
			other = 0;
		kj_task_free(et);
	}
	ok(other, "every example is an honest solution (expect=pass) of another task");
	ok(same_cat, "relu's examples come from its own category first (Activation)");
	kj_prompt_free_examples(paths, tasks, n);

	rc = kj_prompt_render(t, &o, NULL, &text, &e);
	ok(rc == 0, "few-shot prompt renders");
	ex = text ? strstr(text, "## Worked examples") : NULL;
	ok(ex != NULL, "it has the worked examples");
	like(text, "### Example 3:", "three of them");
	if (ex) {
		char *task_at = strstr(ex, "## Task: level1/relu");
		ok(task_at != NULL, "before the task itself");
		if (task_at)
			*task_at = 0;
		ok(!strstr(ex, "void relu(") && !strstr(ex, "kjudge-case:"),
		   "no example is relu itself, and the case headers are stripped");
	}
	free(text);

	o.shots = 1000;
	rc = kj_prompt_pick_examples(t, &o, &paths, &tasks, &n, &e);
	ok(rc == 0 && n > 10 && n < 1000, "asking for more examples than there are gives all the others (%d)", n);
	for (int i = 0; i < n; i++)
		if (!strcmp(tasks[i], "level1/relu"))
			other = 0;
	ok(other, "and still never the task itself");
	kj_prompt_free_examples(paths, tasks, n);

	o.root = "/nonexistent-kjudge";
	o.shots = 2;
	rc = kj_prompt_render(t, &o, NULL, &text, &e);
	ok(rc != 0 && strstr(e.msg, "/nonexistent-kjudge/examples/solutions/cpu"),
	   "a missing example folder is an error naming it");
	kj_task_free(t);
}

/* A mismatch at flat index 4100 of y[B=17, D=4097] is [1, 3]. */
static const char *mismatch_json =
	"{\"schema\": \"kjudge.verdict/1\", \"task\": \"level1/relu\", \"backend\": \"cpu\", \"status\": \"mismatch\","
	" \"stage\": \"correctness\", \"reason\": \"output 'y' differs at [1, 3]\", \"flags\": [],"
	" \"compile\": {\"cached\": false, \"log\": \"\", \"seconds\": 0.1},"
	" \"correctness\": ["
	"  {\"kind\": \"check\", \"shape\": {\"B\": 1, \"D\": 1}, \"seed_index\": 0, \"flavour\": \"declared\","
	"   \"output\": \"y\", \"pass\": true, \"elements\": 1, \"wrong\": 0},"
	"  {\"kind\": \"check\", \"shape\": {\"B\": 17, \"D\": 4097}, \"seed_index\": 2, \"flavour\": \"uniform\","
	"   \"output\": \"y\", \"pass\": false, \"elements\": 69649, \"wrong\": 12, \"first_wrong_index\": 4100,"
	"   \"expected\": 0.5, \"got\": 0.25, \"max_abs_err\": 0.25, \"max_rel_err\": 0.5},"
	"  {\"kind\": \"check\", \"shape\": {\"B\": 17, \"D\": 4097}, \"seed_index\": 3, \"flavour\": \"outliers\","
	"   \"output\": \"y\", \"pass\": false, \"elements\": 69649, \"wrong\": 1, \"first_wrong_index\": 0,"
	"   \"expected\": 1.5, \"got\": \"nan\", \"max_abs_err\": 0, \"max_rel_err\": 0}"
	" ], \"perf\": [], \"speedup\": null, \"worker_log\": \"\"}";

static const char *compile_json =
	"{\"schema\": \"kjudge.verdict/1\", \"task\": \"level1/relu\", \"status\": \"compile_error\", \"stage\": \"compile\","
	" \"reason\": \"compiler failed: cand.c:8:45: error: 'zero' undeclared\", \"flags\": [],"
	" \"compile\": {\"log\": \"cand.c: In function 'relu':\\ncand.c:8:45: error: 'zero' undeclared (first use in "
	"this function)\\n    8 |  y[i] = zero\\n\"}, \"correctness\": [], \"perf\": []}";

static const char *perf_json =
	"{\"schema\": \"kjudge.verdict/1\", \"task\": \"level1/relu\", \"backend\": \"cuda\", \"status\": \"pass\","
	" \"stage\": \"done\", \"reason\": \"\", \"flags\": [\"unstable_timing\"], \"correctness\": [], \"speedup\": 1.25,"
	" \"perf\": ["
	"  {\"kind\": \"bench\", \"shape\": {\"B\": 8192, \"D\": 65536}, \"weight\": 0.7, \"ms\": 2.0, \"baseline_ms\": 2.4,"
	"   \"speedup\": 1.2, \"sol_ms\": 1.0, \"sol_frac\": 0.5, \"iou\": 0.5, \"mfu\": 0.001, \"flops\": 5e8, \"bytes\": 4e9},"
	"  {\"kind\": \"bench\", \"shape\": {\"B\": 2048, \"D\": 131071}, \"weight\": 0.3, \"ms\": 4.0, \"baseline_ms\": 5.6,"
	"   \"speedup\": 1.4, \"sol_ms\": 0.5, \"sol_frac\": 0.125, \"iou\": 0.125, \"mfu\": 0.0002, \"flops\": 2e8, \"bytes\": 2e9}"
	" ]}";

static void test_feedback(void)
{
	struct kj_prompt_opts o;
	struct kj_prompt_prev prev;
	struct kj_err e;
	kj_task *t = load("tasks/level1/relu.kt");
	char *fb = NULL, *text = NULL;
	const char *src = "void relu(const float *x, float *y, int64_t B, int64_t D) { /* PREVIOUS-SOURCE */ }\n";
	int rc;

	if (!ok(t != NULL, "relu loads"))
		return;
	kj_err_init(&e);
	rc = kj_prompt_feedback(t, mismatch_json, &fb, &e);
	ok(rc == 0, "feedback on a mismatch renders");
	like(fb, "Status: mismatch (failed at the correctness stage)", "it gives the status and the stage");
	like(fb, "2 of 3 comparisons", "it counts the failed comparisons");
	like(fb, "shape B=17 D=4097, input draw 2 (uniform): 12 of 69649 elements wrong", "shape, draw and counts");
	like(fb, "first at index [1, 3] (flat 4100): expected 0.5, got 0.25", "the multi-index, expected and got");
	like(fb, "expected 1.5, got nan", "a NaN is spelled out");
	free(fb);

	rc = kj_prompt_feedback(t, compile_json, &fb, &e);
	ok(rc == 0, "feedback on a compile error renders");
	like(fb, "Compiler output (trimmed):", "it has the compiler output");
	like(fb, "error: 'zero' undeclared (first use in this function)", "with the error line");
	ok(fb && !strstr(fb, "In function 'relu'"), "trimmed to start at the first error");
	free(fb);

	rc = kj_prompt_feedback(t, perf_json, &fb, &e);
	ok(rc == 0, "feedback on a timed pass renders");
	like(fb, "2 ms vs baseline 2.4 ms, speedup 1.2x; T_sol 1 ms, 50.0% of the roofline; memory-bound",
	     "time, speedup, SOL fraction and the bound per shape");
	like(fb, "Biggest gap to the roofline: B=2048 D=131071 at 12.5% of T_sol", "the shape furthest from its roofline");
	like(fb, "Score: 1.25x", "the weighted score");
	like(fb, "unstable_timing: the timing did not settle", "flags with their meaning");
	free(fb);

	rc = kj_prompt_feedback(t, "{not json", &fb, &e);
	is_int(rc, KJ_E_PARSE, "a verdict that is not JSON: KJ_E_PARSE");
	rc = kj_prompt_feedback(t, "{\"task\": \"x\"}", &fb, &e);
	is_int(rc, KJ_E_PARSE, "an object without a status: KJ_E_PARSE");

	kj_prompt_opts_init(&o);
	o.backend = KJ_BACKEND_CPU;
	memset(&prev, 0, sizeof(prev));
	prev.source = src;
	prev.len = strlen(src);
	prev.verdict_json = mismatch_json;
	prev.round = 0;
	prev.next_round = 1;
	prev.history = "- round 0: mismatch: HISTORY-LINE\n";
	rc = kj_prompt_render(t, &o, &prev, &text, &e);
	ok(rc == 0, "a refinement prompt renders");
	like(text, "## Your previous attempt (round 0)", "it shows the previous attempt");
	like(text, "PREVIOUS-SOURCE", "with its source");
	like(text, "first at index [1, 3] (flat 4100)", "and the mismatch index from the verdict");
	like(text, "HISTORY-LINE", "and the attempts so far");
	like(text, "void relu(const float* x, float* y, int64_t B, int64_t D);", "and still the task and prototype");
	free(text);

	prev.verdict_json = compile_json;
	prev.restart = 1;
	prev.stalled = 2;
	prev.round = 1;
	prev.next_round = 4;
	rc = kj_prompt_render(t, &o, &prev, &text, &e);
	ok(rc == 0, "a restart prompt renders");
	like(text, "## Your best kernel so far (round 1)", "it starts from the best kernel");
	like(text, "The last 2 rounds did not", "it says why");
	like(text, "error: 'zero' undeclared", "it carries the compile error text");
	ok(text && !strstr(text, "HISTORY-LINE"), "a fresh context: no history");
	free(text);
	kj_task_free(t);
}

static void test_request_response(void)
{
	struct kj_llm_client_opts o;
	struct kj_llm_usage u;
	struct kj_err e;
	json_t *j, *m;
	char *s, *content = NULL;
	int rc;

	kj_llm_client_opts_init(&o);
	o.model = "gpt-test";
	o.temperature = 0.25;
	o.max_tokens = 4096;
	s = kj_llm_request_json(&o, "be brief", "write \"relu\"\n\tplease \xc3\xa9");
	j = s ? json_loads(s, 0, NULL) : NULL;
	ok(j != NULL, "the request is JSON");
	is_str(json_string_value(json_object_get(j, "model")), "gpt-test", "model");
	m = json_object_get(j, "messages");
	is_int(json_array_size(m), 2, "two messages");
	is_str(json_string_value(json_object_get(json_array_get(m, 0), "role")), "system", "a system message first");
	is_str(json_string_value(json_object_get(json_array_get(m, 1), "content")), "write \"relu\"\n\tplease \xc3\xa9",
	       "the user message, quotes, control characters and UTF-8 intact");
	is_near(json_number_value(json_object_get(j, "temperature")), 0.25, 1e-12, "temperature");
	is_int(json_integer_value(json_object_get(j, "max_tokens")), 4096, "max_tokens");
	ok(json_is_false(json_object_get(j, "stream")), "stream: false");
	json_decref(j);
	free(s);
	o.temperature = -1;
	o.max_tokens = 0;
	s = kj_llm_request_json(&o, NULL, "u");
	j = s ? json_loads(s, 0, NULL) : NULL;
	ok(j && json_array_size(json_object_get(j, "messages")) == 1 && !json_object_get(j, "temperature") &&
		   !json_object_get(j, "max_tokens"),
	   "no system message, temperature or max_tokens when not set");
	json_decref(j);
	free(s);

	kj_err_init(&e);
	s = "{\"id\": \"c1\", \"choices\": [{\"index\": 0, \"message\": {\"role\": \"assistant\", \"content\": "
	    "\"```c\\nint x;\\n```\"}, \"finish_reason\": \"stop\"}], \"usage\": {\"prompt_tokens\": 11, "
	    "\"completion_tokens\": 7}}";
	rc = kj_llm_parse_response(200, s, strlen(s), &content, &u, &e);
	ok(rc == 0, "a completion parses");
	is_str(content, "```c\nint x;\n```", "its content");
	ok(u.prompt_tokens == 11 && u.completion_tokens == 7, "token counts");
	is_str(u.finish_reason, "stop", "finish reason");
	free(content);

	s = "{\"error\": {\"message\": \"Rate limit reached for requests\", \"type\": \"requests\", "
	    "\"code\": \"rate_limit_exceeded\"}}";
	rc = kj_llm_parse_response(429, s, strlen(s), &content, NULL, &e);
	is_int(rc, KJ_E_IO, "a 429 error body: KJ_E_IO");
	is_str(e.msg, "HTTP 429: Rate limit reached for requests (requests, rate_limit_exceeded)",
	       "the error's message, type and code");
	ok(content == NULL, "no content");
	s = "{\"error\": {\"message\": \"context too long\", \"code\": 400}}";
	rc = kj_llm_parse_response(200, s, strlen(s), &content, NULL, &e);
	ok(rc == KJ_E_IO && strstr(e.msg, "context too long (400)"), "an error object in a 200 is an error too");
	s = "<html>502 Bad Gateway</html>";
	rc = kj_llm_parse_response(502, s, strlen(s), &content, NULL, &e);
	is_str(e.msg, "HTTP 502: <html>502 Bad Gateway</html>", "a non-JSON error body is quoted");
	rc = kj_llm_parse_response(503, "", 0, &content, NULL, &e);
	is_str(e.msg, "HTTP 503: (empty body)", "an empty error body");
	s = "{\"choices\": []}";
	rc = kj_llm_parse_response(200, s, strlen(s), &content, NULL, &e);
	is_int(rc, KJ_E_PARSE, "a 200 without choices: KJ_E_PARSE");
	like(e.msg, "choices[0].message.content", "naming what is missing");
	s = "not json";
	rc = kj_llm_parse_response(200, s, strlen(s), &content, NULL, &e);
	is_int(rc, KJ_E_PARSE, "a 200 that is not JSON: KJ_E_PARSE");

	ok(kj_llm_retryable_status(429) && kj_llm_retryable_status(500) && kj_llm_retryable_status(503) &&
		   kj_llm_retryable_status(408),
	   "429, 5xx and 408 are retried");
	ok(!kj_llm_retryable_status(400) && !kj_llm_retryable_status(401) && !kj_llm_retryable_status(404) &&
		   !kj_llm_retryable_status(200),
	   "400, 401, 404 are not");
	{
		unsigned st = 12345;
		double d1, d3, d20;
		int in = 1;
		is_near(kj_llm_backoff(&o, 1, 7, &st), 7, 0, "Retry-After: 7 waits 7 s");
		is_near(kj_llm_backoff(&o, 1, 100000, &st), 600, 0, "a huge Retry-After is capped at 600 s");
		for (int i = 0; i < 200; i++) {
			d1 = kj_llm_backoff(&o, 1, -1, &st);
			d3 = kj_llm_backoff(&o, 3, -1, &st);
			d20 = kj_llm_backoff(&o, 20, -1, &st);
			in &= d1 >= 0.5 && d1 <= 1 && d3 >= 2 && d3 <= 4 && d20 >= 30 && d20 <= 60;
		}
		ok(in, "backoff: base 2^(n-1) s, half of it jitter, capped at 60 s");
	}
}

static void test_generator(void)
{
	struct kj_gen_opts g;
	struct kj_err e;
	char *ans = NULL, *big;
	const char *env[] = { "KJUDGE_X=from-env", NULL };
	size_t n = 1 << 20;
	int rc;

	memset(&g, 0, sizeof(g));
	kj_err_init(&e);
	g.cmd = "tr a-z A-Z";
	rc = kj_llm_generate(&g, "prompt text\n", &ans, &e);
	ok(rc == 0, "a generator runs");
	is_str(ans, "PROMPT TEXT\n", "the prompt on its stdin, the answer from its stdout");
	free(ans);

	big = malloc(n + 1);
	memset(big, 'x', n);
	big[n] = 0;
	g.cmd = "wc -c";
	rc = kj_llm_generate(&g, big, &ans, &e);
	ok(rc == 0 && ans && atol(ans) == (long)n, "a 1 MiB prompt goes through whole (%ld bytes)", ans ? atol(ans) : -1L);
	free(ans);
	g.cmd = "echo ignored-stdin";
	rc = kj_llm_generate(&g, big, &ans, &e);
	is_str(ans, "ignored-stdin\n", "a generator that does not read its stdin is fine");
	free(ans);
	free(big);

	g.cmd = "printf %s \"$KJUDGE_X\"";
	g.env = env;
	rc = kj_llm_generate(&g, "", &ans, &e);
	is_str(ans, "from-env", "extra environment reaches it");
	free(ans);
	g.env = NULL;

	g.cmd = "echo partial; exit 3";
	rc = kj_llm_generate(&g, "p", &ans, &e);
	is_int(rc, KJ_E_IO, "a non-zero exit is an error");
	like(e.msg, "exited with status 3", "saying the status");
	ok(ans == NULL, "and hands nothing out");

	g.cmd = "sleep 30";
	g.timeout_s = 0.3;
	rc = kj_llm_generate(&g, "p", &ans, &e);
	is_int(rc, KJ_E_TIMEOUT, "past its limit: KJ_E_TIMEOUT");
	like(e.msg, "ran past its limit", "saying so");

	g.cmd = "head -c 100000 /dev/zero | tr '\\0' y";
	g.timeout_s = 0;
	g.max_output = 1000;
	rc = kj_llm_generate(&g, "p", &ans, &e);
	is_int(rc, KJ_E_IO, "more output than the cap: an error");
	like(e.msg, "more than 1000 bytes", "naming the cap");
}

int main(void)
{
	test_extract();
	test_prompts();
	test_feedback();
	test_request_response();
	test_generator();
	return done_testing();
}
