/*
 * The degeneracy lint: tiny tasks parsed from strings, each built to fail one
 * check (constant output, no variance, an ignored input, a magnitude below
 * tolerance), and well-posed tasks that must pass with no reason at all.
 */
#include <stdio.h>
#include <string.h>

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
	n = kj_lint_sizing(t, &c, s, 8, r, &err);
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

int main(void)
{
	kj_lint_result r;

	is_int(lint_text(HEAD "input x: f32[B, D] ~ normal\noutput y: f32[B, D]\n"
			      "y = softmax(x, dim=-1)\ncheck B=1 D=1; B=3 D=100; B=5 D=7\n", &r),
	       0, "softmax passes every check");
	is_int(r.nbind, 3, "softmax: the three check shapes were linted");

	is_int(lint_text(HEAD "input x: f32[B, D] ~ normal\noutput y: f32[B, D]\n"
			      "y = relu(x)\ncheck B=4 D=9\nbench B=100000 D=100000 weight=1\n"
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
	return done_testing();
}
