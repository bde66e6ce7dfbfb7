/*
 * The degeneracy lint: tiny tasks parsed from strings, each built to fail one
 * check (constant output, no variance, an ignored input, a magnitude below
 * tolerance), and well-posed tasks that must pass with no reason at all.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kjudge/lint.h"
#include "kjudge/task.h"
#include "tap.h"

#define HEAD "task t\nlevel 1\ncategory Math\nabout \"lint test\"\n"

/* Lints text; returns the result's reason count, or -1 when it did not run. */
static int lint_text(const char *text, kj_lint_result *r)
{
	kj_task *t;
	struct kj_err err;
	int rc;
	kj_err_init(&err);
	if (kj_task_parse(text, strlen(text), "lint.kt", &t, &err)) {
		ok(0, "parse: %s", err.msg);
		return -1;
	}
	rc = kj_lint_task(t, NULL, r, &err);
	kj_task_free(t);
	if (rc) {
		ok(0, "lint: %s", err.msg);
		return -1;
	}
	return r->nreasons;
}

static int has_reason(const kj_lint_result *r, const char *want)
{
	for (int i = 0; i < r->nreasons; i++)
		if (!strcmp(r->reason[i], want))
			return 1;
	return 0;
}

static int has_prefix(const kj_lint_result *r, const char *want)
{
	for (int i = 0; i < r->nreasons; i++)
		if (!strncmp(r->reason[i], want, strlen(want)))
			return 1;
	return 0;
}

/* Measured times the sizing below uses (NULL: estimates only). */
static const kj_sizing_table *meas;

/* Sizes the GPU bench shapes of text with the built-in H200 figures. */
static int size_text(const char *text, kj_sizing *s, kj_lint_result *r)
{
	kj_task *t;
	kj_calib c;
	struct kj_err err;
	int n;
	kj_err_init(&err);
	memset(r, 0, sizeof(*r));
	if (kj_task_parse(text, strlen(text), "size.kt", &t, &err)) {
		ok(0, "parse: %s", err.msg);
		return -1;
	}
	kj_calib_h200(&c);
	n = kj_lint_sizing(t, &c, meas, s, 8, r, &err);
	kj_task_free(t);
	if (n < 0)
		ok(0, "sizing: %s", err.msg);
	return n;
}

static void sizing_cases(void)
{
	kj_sizing s[8];
	kj_lint_result r;
	double relu_ms = 2.0 * 8192 * 65536 * 4 / 4242e9 * 1e3, mm_ms = 2.0 * 4096.0 * 4096 * 4096 / 51.3e12 * 1e3;

	is_int(size_text(HEAD "input x: f32[B, D] ~ normal\noutput y: f32[B, D]\ny = relu(x)\n"
			      "check B=1 D=1\nbench B=8192 D=65536 weight=1\nbench cpu B=2 D=2 weight=1\n",
			 s, &r),
	       1, "one GPU bench shape is sized (the cpu one is not)");
	ok(s[0].est_ms > relu_ms * 0.999 && s[0].est_ms < relu_ms * 1.001,
	   "relu over 2 GiB: bytes / copy bandwidth = %.4f ms (want %.4f)", s[0].est_ms, relu_ms);
	ok(s[0].mem_bytes > 17.17e9 && s[0].mem_bytes < 17.19e9,
	   "its device memory: x, y in f32 and fp64 plus the candidate's copies = %.3f GB",
	   s[0].mem_bytes / 1e9);
	is_int(r.nreasons, 0, "a 1 ms relu is sized well");

	size_text(HEAD "input a: f32[N, N] ~ normal\ninput b: f32[N, N] ~ normal\noutput c: f32[N, N]\n"
		       "c = matmul(a, b)\ncheck N=3\nbench N=4096 weight=1\n", s, &r);
	ok(s[0].est_ms > mm_ms * 0.999 && s[0].est_ms < mm_ms * 1.001,
	   "an f32 matmul is bound by the fp32 GEMM rate: %.3f ms (want %.3f)", s[0].est_ms, mm_ms);

	size_text(HEAD "input a: bf16[N, N] ~ normal\ninput b: bf16[N, N] ~ normal\noutput c: bf16[N, N]\n"
		       "c = matmul(a, b)\ncheck N=3\nbench N=4096 weight=1\n", s, &r);
	ok(s[0].est_ms < mm_ms / 10, "a bf16 matmul uses the bf16 rate: %.3f ms", s[0].est_ms);
	ok(has_prefix(&r, "bench N=4096: eager baseline estimated at 0.176 ms"),
	   "and at 0.18 ms it is flagged as too short");

	size_text(HEAD "input x: f32[N] ~ normal\noutput y: f32[N]\ny = relu(x)\ncheck N=3\n"
		       "bench N=4000000000 weight=1\n", s, &r);
	is_int(r.nreasons, 1, "a relu over 16 GB takes long enough (7.5 ms): one reason");
	ok(has_prefix(&r, "bench N=4000000000: needs about 128.0 GB of device memory (over 40 GB)"),
	   "but needs more device memory than a shape may");
}

/* Writes text to path; returns 0 or -1. */
static int write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* The measured-times table: parsing, lookups in any pair order, and the
 * sizing rule taking a measured time over the estimate both ways. */
static void sizing_table_cases(void)
{
	char path[128];
	kj_sizing_table *tb = NULL;
	kj_sizing s[8];
	kj_lint_result r;
	struct kj_err err;

	snprintf(path, sizeof(path), "/tmp/kjt_sizing_%d.tsv", (int)getpid());
	kj_err_init(&err);
	ok(write_file(path, "# kjudge sizing\n# task\tshape\tms\n\nsize\tD=65536 B=8192\t0.5\n"
			    "size\tN=4096\t3.25\nother\tN=4096\t99\n") == 0,
	   "table written");
	is_int(kj_sizing_table_load(path, &tb, &err), 0, "a table of three lines loads");
	is_int(kj_sizing_table_count(tb), 3, "comments and blank lines are skipped");
	ok(kj_sizing_table_find(tb, "size", "B=8192 D=65536") == 0.5, "a shape is found whatever its pair order");
	ok(kj_sizing_table_find(tb, "size", "B=8192 D=1") < 0, "another shape of the task is not");
	ok(kj_sizing_table_find(tb, "u", "N=4096") < 0, "nor the shape of another task");
	ok(kj_sizing_table_find(NULL, "size", "N=4096") < 0, "no table: nothing measured");

	meas = tb; /* size_text parses "size.kt": the task id is "size" */
	size_text(HEAD "input x: f32[B, D] ~ normal\noutput y: f32[B, D]\ny = relu(x)\n"
		       "check B=1 D=1\nbench B=8192 D=65536 weight=1\n", s, &r);
	ok(s[0].meas_ms == 0.5 && s[0].est_ms > 1.0, "relu: measured 0.5 ms next to its 1.01 ms estimate");
	is_int(r.nreasons, 1, "a measured 0.5 ms fails the rule the estimate passes");
	ok(has_prefix(&r, "bench B=8192 D=65536: eager baseline measured at 0.5 ms on the H200"),
	   "and the reason says it was measured");
	size_text(HEAD "input a: bf16[N, N] ~ normal\ninput b: bf16[N, N] ~ normal\noutput c: bf16[N, N]\n"
		       "c = matmul(a, b)\ncheck N=3\nbench N=4096 weight=1\n", s, &r);
	is_int(r.nreasons, 0, "a bf16 matmul estimated at 0.18 ms but measured at 3.25 ms passes");
	meas = NULL;
	kj_sizing_table_free(tb);

	tb = NULL;
	ok(write_file(path, "t\tN=4096\t3.25\nt\tB=1\n") == 0, "a table with a short line");
	is_int(kj_sizing_table_load(path, &tb, &err), KJ_E_PARSE, "a line without its time is an error");
	ok(strstr(err.msg, ":2: expected task<TAB>shape<TAB>ms") != NULL, "naming the line: %s", err.msg);
	ok(tb == NULL, "and no table is returned");
	ok(write_file(path, "t\tN=4096\tfast\n") == 0, "a table with a word for a time");
	kj_err_init(&err);
	is_int(kj_sizing_table_load(path, &tb, &err), KJ_E_PARSE, "a time that is not a number is an error");
	unlink(path);
	kj_err_init(&err);
	is_int(kj_sizing_table_load(path, &tb, &err), 0, "a missing table is no error");
	is_int(kj_sizing_table_count(tb), 0, "but an empty table");
	kj_sizing_table_free(tb);
}

int main(void)
{
	kj_lint_result r;

	is_int(lint_text(HEAD "input x: f32[B, D] ~ normal\noutput y: f32[B, D]\n"
			      "y = softmax(x, dim=-1)\ncheck B=1 D=1; B=3 D=100; B=5 D=7\n", &r),
	       0, "softmax passes every check");
	is_int(r.nbind, 3, "softmax: the three check shapes were linted");

	is_int(lint_text(HEAD "input x: f32[B, D] ~ normal\noutput y: f32[B, D]\n"
			      "y = relu(x)\ncheck B=4 D=9\nbench B=30000 D=100000 weight=1\n"
			      "bench cpu B=8 D=16 weight=1\n", &r),
	       0, "relu passes (and its huge GPU bench shape is not run)");
	is_int(r.nbind, 2, "relu: the check and bench cpu shapes, not the GPU bench shape");

	ok(lint_text(HEAD "input x: f32[B, D] ~ normal\noutput y: f32[B, D]\n"
			  "y = x * 0.0 + 1.0\ncheck B=3 D=5; B=4 D=8\n", &r) > 0,
	   "a constant output fails");
	ok(has_reason(&r, "output y is constant along dim 1 (D)"), "constant along D is named");
	ok(has_reason(&r, "output y is constant along dim 0 (B)"), "constant along B is named");
	ok(has_reason(&r, "output y does not vary across 3 seeds beyond tolerance"),
	   "a constant output does not vary across seeds");
	ok(has_reason(&r, "input x does not change output y"), "x does not change a constant");

	ok(lint_text(HEAD "input x: f32[B, D] ~ normal\noutput y: f32[B]\n"
			  "y = mean(softmax(x, dim=-1), dim=-1)\ncheck B=3 D=100; B=6 D=50\n", &r) > 0,
	   "the mean of a softmax fails");
	ok(has_reason(&r, "output y does not vary across 3 seeds beyond tolerance"),
	   "the mean of a softmax has no variance across seeds");
	ok(!has_prefix(&r, "output y has RMS"), "its magnitude (1/D) is above 10 x atol");

	ok(lint_text(HEAD "input a: f32[N] ~ normal\ninput b: f32[N] ~ normal\noutput y: f32[N]\n"
			  "y = a + b * 0.0\ncheck N=1; N=33\n", &r) > 0,
	   "an ignored input fails");
	ok(has_reason(&r, "input b does not change output y"), "the ignored input b is named");
	ok(!has_reason(&r, "input a does not change output y"), "the used input a is not named");
	is_int(r.nreasons, 1, "b is the only problem of a + b * 0");

	ok(lint_text(HEAD "input x: f32[B, D] ~ normal\noutput y: f32[B, D]\n"
			  "y = x * 1e-7\ncheck B=3 D=50\n", &r) > 0,
	   "a tiny output fails");
	ok(has_reason(&r, "output y has RMS 9.99e-08, below 10 x atol 0.0001"),
	   "the reason gives the RMS (1e-7 x that of a normal draw) and 10 x atol");

	is_int(lint_text(HEAD "input x: f32[B, D] ~ normal\noutput y: f32[B, D]\n"
			      "y = x * 1e-7\ntol atol=1e-12 rtol=1e-4\ncheck B=3 D=50\n", &r),
	       0, "the same output passes under a task tolerance that fits it");

	is_int(lint_text(HEAD "input x: f32[N, D] ~ normal\ninput r: f32[N, D] ~ normal\n"
			      "param g: f32[D] ~ uniform(0.5, 1.5)\nparam b: f32[D] ~ uniform(-0.1, 0.1)\n"
			      "output h: f32[N, D]\noutput y: f32[N, D]\nh = x + r\n"
			      "y = layer_norm(h, [D], weight=g, bias=b)\ncheck N=3 D=10\n", &r),
	       0, "a param that changes only one of two outputs is fine");

	ok(lint_text(HEAD "input x: f32[N, D] ~ normal\nparam g: f32[D] ~ normal\n"
			  "output h: f32[N, D]\noutput y: f32[N, D]\nh = x * 2.0\ny = x + g * 0.0\n"
			  "check N=3 D=10\n", &r) > 0,
	   "a param that changes no output of two fails");
	ok(has_reason(&r, "param g does not change any output"), "g is named as a param");

	is_int(lint_text(HEAD "input x: f32[B, N] ~ normal\noutput y: i64[B]\n"
			      "y = argmax(x, dim=1)\ncheck B=1 N=1; B=7 N=9\n", &r),
	       0, "an integer output that varies passes");

	ok(lint_text(HEAD "input x: f32[B, N] ~ normal\noutput y: i64[B]\n"
			 "y = argmax(x * 0.0, dim=1)\ncheck B=7 N=9\n", &r) > 0,
	   "an integer output that never changes fails");
	ok(has_reason(&r, "output y does not vary across 3 seeds beyond tolerance"),
	   "the constant argmax does not vary");

	sizing_cases();
	sizing_table_cases();
	return done_testing();
}
