/*
 * The CPU executors: small tasks parsed from strings, inputs filled by hand,
 * outputs compared with values computed by hand.  kj_exec64 keeps doubles,
 * kj_exec32 rounds every node's result to its dtype.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kjudge/exec.h"
#include "kjudge/task.h"
#include "tap.h"

struct run {
	kj_task *t;
	kj_plan p;
	kj_exec64 x64;
	kj_exec32 x32;
	int ready;
};

static int val_index(const kj_task *t, const char *name)
{
	for (int i = 0; i < t->nvals; i++)
		if (t->vals[i].name && !strcmp(t->vals[i].name, name))
			return i;
	return -1;
}

/* Parses text, builds the plan of binding 0 and both executors. */
static int setup(struct run *r, const char *text, const char *what)
{
	struct kj_err e = { 0 };
	memset(r, 0, sizeof(*r));
	if (!ok(kj_task_parse(text, strlen(text), "t.kt", &r->t, &e) == 0, "%s: parses", what) ||
	    !ok(kj_plan_build(r->t, 0, &r->p, &e) == 0, "%s: plan builds", what) ||
	    !ok(kj_exec64_init(&r->x64, &r->p, &e) == 0, "%s: exec64 init", what) ||
	    !ok(kj_exec32_init(&r->x32, &r->p, &e) == 0, "%s: exec32 init", what)) {
		printf("#   %s\n", e.msg);
		return 0;
	}
	r->ready = 1;
	return 1;
}

static void set_input(struct run *r, const char *name, const double *v, int n)
{
	int vi = val_index(r->t, name);
	for (int i = 0; i < n; i++) {
		r->x64.buf[vi][i] = v[i];
		r->x32.buf[vi][i] = (float)v[i];
	}
}

static int run_both(struct run *r, const char *what)
{
	struct kj_err e = { 0 };
	int ok64 = is_int(kj_exec64_run(&r->x64, &e), 0, "%s: exec64 runs", what);
	int ok32 = is_int(kj_exec32_run(&r->x32, &e), 0, "%s: exec32 runs", what);
	return ok64 && ok32;
}

static void teardown(struct run *r)
{
	kj_exec64_release(&r->x64);
	kj_exec32_release(&r->x32);
	kj_plan_release(&r->p);
	kj_task_free(r->t);
}

/* Compares output name with want (n values), both executors. */
static void out_is(struct run *r, const char *name, const double *want, int n, const char *what)
{
	int vi = val_index(r->t, name);
	for (int i = 0; i < n; i++) {
		is_near(r->x64.buf[vi][i], want[i], 0, "%s: exec64 %s[%d] = %g", what, name, i, want[i]);
		is_near(r->x32.buf[vi][i], want[i], 0, "%s: exec32 %s[%d] = %g", what, name, i, want[i]);
	}
}

static void test_mlp(void)
{
	static const char text[] =
		"task mlp\n"
		"input  x: f32[N, K]\n"
		"param  w: f32[K, M]\n"
		"param  b: f32[M]\n"
		"output y: f32[N, M]\n"
		"y = relu(matmul(x, w) + b) * 2.0\n"
		"check N=2 K=2 M=2\n";
	/* x@w = [[1+2, 0.5-4], [3-4, 1.5+8]] = [[3, -3.5], [-1, 9.5]];
	 * + b = [[3.5, -2.5], [-0.5, 10.5]]; relu, * 2 */
	static const double x[] = { 1, -2, 3, 4 }, w[] = { 1, 0.5, -1, 2 }, b[] = { 0.5, 1 };
	static const double want[] = { 7, 0, 0, 21 };
	struct run r;
	if (setup(&r, text, "relu(x@w+b)*2")) {
		set_input(&r, "x", x, 4);
		set_input(&r, "w", w, 4);
		set_input(&r, "b", b, 2);
		if (run_both(&r, "relu(x@w+b)*2")) {
			out_is(&r, "y", want, 4, "relu(x@w+b)*2");
			/* a second run over changed inputs recomputes everything */
			set_input(&r, "b", (const double[]){ -10, -10 }, 2);
			run_both(&r, "second run");
			out_is(&r, "y", (const double[]){ 0, 0, 0, 0 }, 4, "second run");
		}
	}
	teardown(&r);
}

static void test_cast_f16(void)
{
	static const char text[] =
		"task c\n"
		"input  x: f32[N]\n"
		"output y: f16[N]\n"
		"y = cast(x, f16)\n"
		"check N=5\n";
	/* f16 has a spacing of 2^-10 at 1: 1 + 2^-11 is a tie and goes to the even
	 * 1.0; 1 + 3*2^-11 is a tie between 1 + 2^-10 (odd) and 1 + 2^-9 (even);
	 * 65520 is halfway between the largest f16 65504 and 2^16: +inf. */
	double x[] = { 1.0, 1.0 + ldexp(1, -11), 1.0 + 3 * ldexp(1, -11), 65520, 0.1 };
	double want[] = { 1.0, 1.0, 1.0 + ldexp(1, -9), INFINITY, 0.0999755859375 };
	struct run r;
	if (setup(&r, text, "cast f16")) {
		set_input(&r, "x", x, 5);
		if (run_both(&r, "cast f16"))
			out_is(&r, "y", want, 5, "cast f16");
	}
	teardown(&r);
}

/* f8e4m3 is a storage type: cast() to and from it and reshape run in both
 * executors with PyTorch's rounding (ties to even, |x| > 464 -> NaN). */
static void test_cast_f8(void)
{
	static const char text[] =
		"task c\n"
		"input  x: f32[N]\n"
		"output q: f8e4m3[N]\n"
		"output y: f32[N, 1]\n"
		"q = cast(x, f8e4m3)\n"
		"y = cast(reshape(q, [N, 1]), f32) * 2.0\n"
		"check N=6\n";
	static const double x[] = { 0.1, 1.0625, 1.1875, 464, 470, -0.0009765625 };
	static const double qv[] = { 0.1015625, 1.0, 1.25, 448, NAN, -0.0 };
	double yv[6];
	struct run r;
	for (int i = 0; i < 6; i++)
		yv[i] = qv[i] * 2;
	if (setup(&r, text, "cast to f8e4m3")) {
		set_input(&r, "x", x, 6);
		if (run_both(&r, "cast to f8e4m3")) {
			out_is(&r, "q", qv, 6, "cast to f8e4m3");
			out_is(&r, "y", yv, 6, "f8e4m3 reshaped and cast back to f32");
		}
	}
	teardown(&r);
}

static void test_argmax(void)
{
	static const char text[] =
		"task a\n"
		"input  x: f32[B, C]\n"
		"output y: i64[B]\n"
		"y = argmax(x, dim=1)\n"
		"check B=3 C=3\n";
	static const double x[] = { 1, 5, 5, 7, -1, 0, -3, -2, -2.5 };
	static const double want[] = { 1, 0, 1 }; /* ties: the first index */
	struct run r;
	if (setup(&r, text, "argmax")) {
		is_int(r.p.vals[val_index(r.t, "y")].dtype, KJ_I64, "argmax gives i64");
		set_input(&r, "x", x, 9);
		if (run_both(&r, "argmax"))
			out_is(&r, "y", want, 3, "argmax");
	}
	teardown(&r);
}

static void test_literals(void)
{
	static const char text[] =
		"task l\n"
		"input  x: f32[N]\n"
		"input  k: i32[N] ~ randint(-5, 5)\n"
		"output y: f32[N]\n"
		"output z: i32[N]\n"
		"output f: f32[N]\n"
		"output c: f32[N]\n"
		"y = 2 * x - 0.5\n"
		"z = k * 3 + 1\n"
		"f = k + 1.5\n"
		"c = x\n"
		"check N=3\n";
	static const double x[] = { 0, 1.25, -4 }, k[] = { -2, 0, 4 };
	struct run r;
	if (setup(&r, text, "literals")) {
		is_int(r.p.vals[val_index(r.t, "z")].dtype, KJ_I32, "i32 * int literal stays i32");
		is_int(r.p.vals[val_index(r.t, "f")].dtype, KJ_F32, "i32 + float literal is f32");
		set_input(&r, "x", x, 3);
		set_input(&r, "k", k, 3);
		if (run_both(&r, "literals")) {
			out_is(&r, "y", (const double[]){ -0.5, 2.0, -8.5 }, 3, "2*x-0.5");
			out_is(&r, "z", (const double[]){ -5, 1, 13 }, 3, "k*3+1");
			out_is(&r, "f", (const double[]){ -0.5, 1.5, 5.5 }, 3, "k+1.5");
			out_is(&r, "c", x, 3, "copy y = x");
		}
	}
	teardown(&r);
}

static void test_scalar_output(void)
{
	static const char text[] =
		"task s\n"
		"input  x: f32[N]\n"
		"output y: f32[]\n"
		"output one: f32[]\n"
		"y = sum(x) / 4\n"
		"one = 1.0\n"
		"check N=4\n";
	struct run r;
	if (setup(&r, text, "scalar")) {
		set_input(&r, "x", (const double[]){ 1, 2, 3, 6 }, 4);
		if (run_both(&r, "scalar")) {
			out_is(&r, "y", (const double[]){ 3 }, 1, "sum(x)/4");
			out_is(&r, "one", (const double[]){ 1 }, 1, "literal assigned to an output");
		}
	}
	teardown(&r);
}

static void test_precision(void)
{
	static const char text[] =
		"task p\n"
		"input  x: f32[N]\n"
		"output y: f32[N]\n"
		"y = x + 1e-10\n"
		"check N=1\n";
	struct run r;
	if (setup(&r, text, "precision")) {
		set_input(&r, "x", (const double[]){ 1 }, 1);
		if (run_both(&r, "precision")) {
			int vi = val_index(r.t, "y");
			is_near(r.x64.buf[vi][0], 1.0000000001, 1e-17, "exec64 keeps double precision");
			is_near(r.x32.buf[vi][0], 1.0, 0, "exec32 rounds to f32");
		}
	}
	teardown(&r);
}

static void test_exec_error(void)
{
	static const char text[] =
		"task ce\n"
		"input  x: f32[N, C]\n"
		"input  t: i64[N] ~ randint(0, C)\n"
		"output y: f32[]\n"
		"y = cross_entropy(x, t)\n"
		"check N=2 C=3\n";
	struct run r;
	if (setup(&r, text, "bad target")) {
		struct kj_err e = { 0 };
		set_input(&r, "t", (const double[]){ 0, 7 }, 2);
		is_int(kj_exec64_run(&r.x64, &e), KJ_E_TYPE, "out-of-range target fails exec64");
		like(e.msg, "t.kt:5:5: cross_entropy: target", "exec64 error names t.kt:line:col");
		memset(&e, 0, sizeof(e));
		is_int(kj_exec32_run(&r.x32, &e), KJ_E_TYPE, "out-of-range target fails exec32");
		like(e.msg, "t.kt:5:5: cross_entropy: target", "exec32 error names t.kt:line:col");
	}
	teardown(&r);
}

static void test_round_to(void)
{
	is_near(kj_round_to(KJ_F32, 0.1), (double)0.1f, 0, "f32: 0.1 rounds to float");
	is_near(kj_round_to(KJ_F16, 0.1), 0.0999755859375, 0, "f16: 0.1");
	is_near(kj_round_to(KJ_F16, 65504), 65504, 0, "f16: largest finite");
	is_near(kj_round_to(KJ_F16, 1e6), INFINITY, 0, "f16: overflow to inf");
	is_near(kj_round_to(KJ_F16, ldexp(1, -24)), ldexp(1, -24), 0, "f16: smallest subnormal");
	is_near(kj_round_to(KJ_BF16, 1.0 / 3), 0.333984375, 0, "bf16: 1/3");
	is_near(kj_round_to(KJ_BF16, 1.0 + ldexp(1, -8)), 1.0, 0, "bf16: tie to even");
	ok(isnan(kj_round_to(KJ_F16, NAN)), "f16 keeps NaN");
	is_near(kj_round_to(KJ_I8, 300), 127, 0, "i8 saturates high");
	is_near(kj_round_to(KJ_I8, -300), -128, 0, "i8 saturates low");
	is_near(kj_round_to(KJ_I8, -3.7), -3, 0, "i8 truncates toward zero");
	is_near(kj_round_to(KJ_I32, 2.9), 2, 0, "i32 truncates");
	is_near(kj_round_to(KJ_I32, NAN), 0, 0, "i32: NaN -> 0");
	is_near(kj_round_to(KJ_I64, 1e30), 9223372036854775807.0, 0, "i64 saturates");
	is_near(kj_round_to(KJ_BOOL, 0.5), 1, 0, "bool: nonzero -> 1");
	is_near(kj_round_to(KJ_BOOL, 0), 0, 0, "bool: 0 -> 0");
}

int main(void)
{
	test_mlp();
	test_cast_f16();
	test_cast_f8();
	test_argmax();
	test_literals();
	test_scalar_output();
	test_precision();
	test_exec_error();
	test_round_to();
	return done_testing();
}
