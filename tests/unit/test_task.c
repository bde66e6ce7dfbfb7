/*
 * The task language: parsing, prototypes, dim expressions, shape inference
 * and the error messages (file:line:col and what was expected).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kjudge/task.h"
#include "tap.h"

static struct kj_err last_err;

/* An array as a plain pointer, so that is_str's NULL check is not on an array. */
static const char *str(const char *s)
{
	return s;
}

/* Parses text as t.kt; returns the task or NULL with last_err set. */
static kj_task *parse(const char *text)
{
	kj_task *t = NULL;
	memset(&last_err, 0, sizeof(last_err));
	if (kj_task_parse(text, strlen(text), "t.kt", &t, &last_err))
		return NULL;
	return t;
}

/* Asserts that text fails with code, a message starting with
 * "t.kt:<loc>: " and containing phrase. */
static void err_is(const char *text, int code, const char *loc, const char *phrase,
		   const char *name)
{
	kj_task *t = NULL;
	char prefix[64];
	int rc;
	memset(&last_err, 0, sizeof(last_err));
	rc = kj_task_parse(text, strlen(text), "t.kt", &t, &last_err);
	snprintf(prefix, sizeof(prefix), "t.kt:%s: ", loc);
	if (!is_int(rc, code, "%s: error code", name))
		kj_task_free(t);
	if (!ok(strncmp(last_err.msg, prefix, strlen(prefix)) == 0, "%s: at %s", name, loc))
		printf("#   got '%s'\n", last_err.msg);
	like(last_err.msg, phrase, "%s: says '%s'", name, phrase);
}

static int val_index(const kj_task *t, const char *name)
{
	for (int i = 0; i < t->nvals; i++)
		if (t->vals[i].name && !strcmp(t->vals[i].name, name))
			return i;
	return -1;
}

static void shape_is(const kj_plan *p, const char *name, const char *want, const char *what)
{
	char buf[128];
	int vi = val_index(p->task, name);
	if (!ok(vi >= 0, "%s: value %s exists", what, name))
		return;
	is_str(kj_shape_str(&p->vals[vi].shape, buf, sizeof(buf)), want, "%s: %s is %s", what,
	       name, want);
}

static const char full[] =
	"# a comment line\n"
	"task softmax\n"
	"level 2\n"
	"category Normalization\n"
	"about \"Softmax over the last dim\"\n"
	"input  x: f32[B, D] ~ normal\n"
	"output y: f32[B, D]\n"
	"y = softmax(x, dim=-1)\n"
	"check B=1 D=1; B=3 D=1000\n"
	"bench B=4096 D=65536 weight=0.7; B=256 D=262144 weight=0.3\n"
	"bench cpu B=64 D=4096 weight=1\n"
	"tol atol=1e-5 rtol=2e-4\n"
	"metric cos>=0.99 l1<=0.05\n";

static void test_full(void)
{
	kj_task *t = parse(full);
	char buf[256];
	if (!ok(t != NULL, "full task parses")) {
		printf("#   %s\n", last_err.msg);
		return;
	}
	is_str(t->name, "softmax", "name");
	is_str(t->id, "t", "id from the path");
	is_int(t->level, 2, "level");
	is_str(t->category, "Normalization", "category");
	is_str(t->about, "Softmax over the last dim", "about");
	is_int(kj_task_count(t, KJ_V_INPUT), 1, "one input");
	is_int(kj_task_count(t, KJ_V_OUTPUT), 1, "one output");
	is_int(t->nnodes, 1, "one node");
	is_str(t->nodes[0].op->name, "softmax", "the node is softmax");
	is_int(t->nsyms, 2, "two dim symbols");
	is_str(t->syms[0], "B", "first symbol B");
	is_str(t->syms[1], "D", "second symbol D");
	is_int(t->nbind, 5, "five shapes");
	is_int(t->binds[1].val[0], 3, "check 2: B=3");
	is_int(t->binds[1].val[1], 1000, "check 2: D=1000");
	is_int(t->binds[0].bench, 0, "shape 1 is a check");
	is_int(t->binds[1].bench, 0, "shape 2 is a check");
	is_int(t->binds[2].bench, 1, "shape 3 is a bench");
	is_int(t->binds[3].bench, 1, "shape 4 is a bench");
	is_int(t->binds[4].bench, 2, "shape 5 is a bench cpu");
	is_near(t->binds[0].weight, 0, 0, "check weight 0");
	is_near(t->binds[2].weight, 0.7, 1e-15, "bench weight 0.7");
	is_near(t->binds[3].weight, 0.3, 1e-15, "bench weight 0.3");
	is_near(t->binds[4].weight, 1, 0, "bench cpu weight 1");
	is_int(t->binds[3].val[1], 262144, "bench 2: D=262144");
	is_int(t->binds[4].val[0], 64, "bench cpu: B=64");
	is_int(t->binds[1].loc.line, 9, "binding line");
	is_int(t->binds[1].loc.col, 16, "binding col");
	is_str(kj_binding_str(t, &t->binds[3], buf, sizeof(buf)), "B=256 D=262144", "binding_str");
	is_int(t->tol.has_tol, 1, "tol given");
	is_near(t->tol.atol, 1e-5, 1e-15, "atol");
	is_near(t->tol.rtol, 2e-4, 1e-15, "rtol");
	is_int(t->tol.has_metric, 1, "metric given");
	is_near(t->tol.cos_min, 0.99, 1e-15, "cos>=");
	is_near(t->tol.l1_max, 0.05, 1e-15, "l1<=");
	is_near(t->tol.rmse_max, -1, 0, "rmse not set");
	is_int(kj_task_prototype(t, 0, buf, sizeof(buf)), 0, "cpu prototype fits");
	is_str(str(buf), "void softmax(const float* x, float* y, int64_t B, int64_t D)", "cpu prototype");
	is_int(kj_task_prototype(t, 1, buf, sizeof(buf)), 0, "cuda prototype fits");
	is_str(str(buf),
	       "extern \"C\" void softmax(const float* x, float* y, int64_t B, int64_t D, cudaStream_t stream)",
	       "cuda prototype");
	ok(kj_task_prototype(t, 1, buf, 20) != 0, "prototype into a short buffer fails");
	kj_task_free(t);
}

static void test_defaults(void)
{
	kj_task *t = parse("task r\ninput x: f32[N]\noutput y: f32[N]\ny = relu(x)\ncheck N=5\n");
	if (!ok(t != NULL, "minimal task parses"))
		return;
	is_int(t->level, 1, "default level 1");
	is_str(t->category, "Math", "default category");
	is_int(t->tol.has_tol, 0, "no tol");
	is_int(t->tol.has_metric, 0, "no metric");
	is_int(t->tf32, 0, "TF32 strict by default");
	is_int(t->vals[0].dist, KJ_DIST_NORMAL, "float input defaults to normal");
	kj_task_free(t);
}

/* The TF32 policy line: `tf32 allowed` / `tf32 strict`, once; a name tf32
 * is still a name. */
static void test_tf32(void)
{
	const char *head = "task m\ninput a: f32[M, K]\ninput b: f32[K, N]\noutput y: f32[M, N]\n"
			   "y = matmul(a, b)\ncheck M=2 K=3 N=4\n";
	char text[512];
	kj_task *t;

	snprintf(text, sizeof(text), "%stf32 allowed\n", head);
	t = parse(text);
	if (ok(t != NULL, "tf32 allowed parses"))
		is_int(t->tf32, 1, "tf32 allowed sets the policy");
	kj_task_free(t);
	snprintf(text, sizeof(text), "%stf32 strict\n", head);
	t = parse(text);
	if (ok(t != NULL, "tf32 strict parses"))
		is_int(t->tf32, 0, "tf32 strict keeps strict f32");
	kj_task_free(t);
	t = parse("task r\ninput x: f32[N]\noutput y: f32[N]\ntf32 = relu(x)\ny = tf32 * 2.0\ncheck N=5\n");
	ok(t != NULL, "tf32 is still a value name in an assignment");
	kj_task_free(t);
	snprintf(text, sizeof(text), "%stf32 sometimes\n", head);
	err_is(text, KJ_E_PARSE, "7:6", "expected 'allowed' or 'strict' after tf32", "tf32 bad word");
	snprintf(text, sizeof(text), "%stf32\n", head);
	err_is(text, KJ_E_PARSE, "7:5", "expected 'allowed' or 'strict' after tf32", "tf32 alone");
	snprintf(text, sizeof(text), "%stf32 allowed\ntf32 strict\n", head);
	err_is(text, KJ_E_PARSE, "8:1", "second 'tf32' line", "two tf32 lines");
	snprintf(text, sizeof(text), "%stf32 allowed now\n", head);
	err_is(text, KJ_E_PARSE, "7:14", "expected end of line", "tf32 trailing word");
}

static void test_prototypes(void)
{
	static const char text[] =
		"task h\n"
		"input  a: f16[N, K] ~ uniform(-2, 2)\n"
		"output o: f16[N, M]\n"
		"param  w: bf16[M, K] ~ kaiming\n"
		"input  i: i64[N] ~ randint(0, M)\n"
		"output c: i64[N]\n"
		"o = linear(a, cast(w, f16))\n"
		"c = i + 1\n"
		"check N=2 K=3 M=4\n";
	kj_task *t = parse(text);
	char buf[512];
	int idx[8], n;
	if (!ok(t != NULL, "f16 task parses")) {
		printf("#   %s\n", last_err.msg);
		return;
	}
	n = kj_task_abi_values(t, idx, 8);
	is_int(n, 5, "five ABI values");
	is_str(t->vals[idx[0]].name, "a", "ABI 1: input a");
	is_str(t->vals[idx[1]].name, "w", "ABI 2: param w (declaration order)");
	is_str(t->vals[idx[2]].name, "i", "ABI 3: input i");
	is_str(t->vals[idx[3]].name, "o", "ABI 4: output o");
	is_str(t->vals[idx[4]].name, "c", "ABI 5: output c");
	kj_task_prototype(t, 0, buf, sizeof(buf));
	is_str(str(buf),
	       "void h(const kj_half* a, const kj_bfloat16* w, const int64_t* i, kj_half* o, int64_t* c, int64_t N, int64_t K, int64_t M)",
	       "cpu prototype with f16/bf16/i64");
	kj_task_prototype(t, 1, buf, sizeof(buf));
	is_str(str(buf),
	       "extern \"C\" void h(const __half* a, const __nv_bfloat16* w, const int64_t* i, __half* o, int64_t* c, int64_t N, int64_t K, int64_t M, cudaStream_t stream)",
	       "cuda prototype with __half/__nv_bfloat16");
	kj_task_free(t);
}

/* f8e4m3: a storage type that only cast() and reshape take or make. */
static void test_f8(void)
{
	static const char text[] =
		"task f\n"
		"input  a: f8e4m3[M, K] ~ normal\n"
		"input  s: f32[M, 1] ~ uniform(0.5, 2)\n"
		"output q: f8e4m3[K, M]\n"
		"output y: bf16[M, K]\n"
		"q = cast(cast(reshape(a, [K, M]), f32) * 0.5, f8e4m3)\n"
		"y = cast(cast(a, f32) * s, bf16)\n"
		"check M=2 K=3\n";
	kj_task *t = parse(text);
	char buf[512];
	if (!ok(t != NULL, "an f8e4m3 task with cast and reshape parses")) {
		printf("#   %s\n", last_err.msg);
	} else {
		kj_task_prototype(t, 0, buf, sizeof(buf));
		is_str(str(buf),
		       "void f(const kj_fp8_e4m3* a, const float* s, kj_fp8_e4m3* q, kj_bfloat16* y, int64_t M, int64_t K)",
		       "cpu prototype with kj_fp8_e4m3");
		kj_task_prototype(t, 1, buf, sizeof(buf));
		is_str(str(buf),
		       "extern \"C\" void f(const __nv_fp8_e4m3* a, const float* s, __nv_fp8_e4m3* q, __nv_bfloat16* y, int64_t M, int64_t K, cudaStream_t stream)",
		       "cuda prototype with __nv_fp8_e4m3");
		kj_task_free(t);
	}
	err_is("task f\ninput a: f8e4m3[N] ~ normal\noutput y: f8e4m3[N]\ny = relu(a)\ncheck N=2\n", KJ_E_TYPE,
	       "4:5", "relu: operand 1 has dtype f8e4m3, which only cast() and reshape take", "relu of f8");
	err_is("task f\ninput a: f8e4m3[N] ~ normal\ninput b: f32[N] ~ normal\noutput y: f32[N]\n"
	       "y = b * a\ncheck N=2\n", KJ_E_TYPE, "5:7",
	       "mul: operand 2 has dtype f8e4m3, which only cast() and reshape take (cast it to f32, f16 or bf16 first)",
	       "f32 * f8");
	err_is("task f\ninput a: f8e4m3[N, K] ~ normal\noutput y: f8e4m3[N, N]\ny = matmul(a, a)\ncheck N=2 K=2\n",
	       KJ_E_TYPE, "4:5", "matmul: operand 1 has dtype f8e4m3", "matmul of f8");
}

static void test_dim_exprs(void)
{
	static const char text[] =
		"task d\n"
		"input  a: f32[H*D]\n"
		"input  b: f32[(N+1)/2, H*D]\n"
		"input  k: i64[N] ~ randint(-7/2, N - 1)\n"
		"output y: f32[(N+1)/2, H*D]\n"
		"output z: i64[N]\n"
		"y = a + b\n"
		"z = k * 2\n"
		"check N=4 H=2 D=3; N=5 H=1 D=7; N=1 H=1 D=1\n";
	static const char *want_b[] = { "[2, 6]", "[3, 7]", "[1, 1]" };
	kj_task *t = parse(text);
	if (!ok(t != NULL, "dim expression task parses")) {
		printf("#   %s\n", last_err.msg);
		return;
	}
	is_int(t->nsyms, 3, "three symbols");
	is_str(t->syms[0], "H", "symbols in order of first appearance: H");
	is_str(t->syms[1], "D", "then D");
	is_str(t->syms[2], "N", "then N");
	for (int b = 0; b < 3; b++) {
		kj_plan p;
		struct kj_err e = { 0 };
		char what[32];
		snprintf(what, sizeof(what), "binding %d", b + 1);
		if (!is_int(kj_plan_build(t, b, &p, &e), 0, "%s builds", what))
			continue;
		shape_is(&p, "b", want_b[b], what);
		shape_is(&p, "y", want_b[b], what);
		if (b == 0) {
			shape_is(&p, "a", "[6]", what);
			is_near(p.dists[val_index(t, "k")].a, -4, 0, "randint lo -7/2 floors to -4");
			is_near(p.dists[val_index(t, "k")].b, 3, 0, "randint hi N-1 = 3");
			is_int(p.vals[val_index(t, "z")].dtype, KJ_I64, "i64 * int literal stays i64");
		}
		kj_plan_release(&p);
	}
	{
		kj_plan p;
		struct kj_err e = { 0 };
		is_int(kj_plan_build(t, 3, &p, &e), KJ_E_USAGE, "binding out of range");
	}
	kj_task_free(t);
}

static void test_inference(void)
{
	static const char text[] =
		"task mlp\n"
		"input  x: f32[N, IN]\n"
		"param  w: f32[OUT, IN] ~ kaiming\n"
		"param  b: f32[OUT] ~ zeros\n"
		"output y: f32[N]\n"
		"h = linear(x, w, b)\n"
		"r = relu(h) * 0.5\n"
		"y = sum(r, dim=1)\n"
		"check N=3 IN=25 OUT=7\n";
	kj_task *t = parse(text);
	kj_plan p;
	struct kj_err e = { 0 };
	char buf[64];
	int h;
	if (!ok(t != NULL, "multi-statement task parses")) {
		printf("#   %s\n", last_err.msg);
		return;
	}
	is_int(t->nnodes, 4, "linear, relu, mul, sum");
	is_str(t->nodes[2].op->name, "mul", "'*' lowers to mul");
	if (!is_int(kj_plan_build(t, 0, &p, &e), 0, "plan builds")) {
		kj_task_free(t);
		return;
	}
	h = val_index(t, "h");
	shape_is(&p, "h", "[3, 7]", "inference");
	shape_is(&p, "r", "[3, 7]", "inference");
	shape_is(&p, "y", "[3]", "inference");
	is_str(kj_dim_str(&p.vals[h], 1, buf, sizeof(buf)), "OUT=7", "h keeps the label OUT");
	is_int(p.vals[h].dtype, KJ_F32, "h is f32");
	is_near(p.dists[val_index(t, "w")].a, 0.2, 1e-15, "kaiming scale 1/sqrt(fan_in=25)");
	is_int(p.dists[val_index(t, "b")].kind, KJ_DIST_ZEROS, "b ~ zeros");
	is_near(p.min_bytes, 4.0 * (3 * 25 + 7 * 25 + 7 + 3), 0, "min bytes: x, w, b, y");
	ok(p.flops > 0, "flops counted");
	kj_plan_release(&p);
	kj_task_free(t);
}

static void test_broadcast(void)
{
	static const char text[] =
		"task bc\n"
		"input  x: f32[B, 1, D]\n"
		"input  s: f32[S, 1]\n"
		"input  hx: f16[D]\n"
		"output y: f32[B, S, D]\n"
		"output h: f16[D]\n"
		"y = x + s\n"
		"h = hx * 2.0\n"
		"check B=2 S=3 D=5\n";
	kj_task *t = parse(text);
	kj_plan p;
	struct kj_err e = { 0 };
	if (!ok(t != NULL, "broadcast task parses")) {
		printf("#   %s\n", last_err.msg);
		return;
	}
	if (is_int(kj_plan_build(t, 0, &p, &e), 0, "plan builds")) {
		char buf[64];
		kj_shape_str(&p.nodes[0].out.shape, buf, sizeof(buf));
		is_str(str(buf), "[2, 3, 5]", "[B,1,D] + [S,1] broadcasts to [B,S,D]");
		is_int(p.nodes[1].out.dtype, KJ_F16, "f16 * float literal stays f16");
		kj_plan_release(&p);
	}
	kj_task_free(t);
	err_is("task bc\ninput x: f32[B, D]\ninput s: f32[S]\noutput y: f32[B, D]\ny = x + s\ncheck B=2 D=3 S=4\n",
	       KJ_E_TYPE, "5:7", "cannot broadcast", "non-broadcastable shapes");
}

#define HEAD "task t\ninput x: f32[B, D] ~ normal\noutput y: f32[B, D]\n"
#define CHK "check B=2 D=3\n"

static void test_errors(void)
{
	err_is(HEAD "y = foo(x)\n" CHK, KJ_E_PARSE, "4:5", "unknown op 'foo'", "unknown op");
	err_is(HEAD "y = relu(x, x)\n" CHK, KJ_E_PARSE, "4:13", "relu: takes at most 1 argument, got 2",
	       "too many args");
	err_is(HEAD "y = softmax(x)\n" CHK, KJ_E_PARSE, "4:5", "softmax: missing required argument 'dim'",
	       "missing required arg");
	err_is(HEAD "y = relu(x, bogus=1)\n" CHK, KJ_E_PARSE, "4:19",
	       "relu: unexpected keyword argument 'bogus'", "unexpected keyword");
	err_is(HEAD "y = softmax(x, dim=1, dim=1)\n" CHK, KJ_E_PARSE, "4:27", "argument 'dim' given twice",
	       "keyword given twice");
	err_is(HEAD "y = softmax(dim=1, x)\n" CHK, KJ_E_PARSE, "4:20", "positional argument after a keyword",
	       "positional after keyword");
	err_is("task t\ninput a: f32[M, K]\ninput b: f32[32, N]\noutput y: f32[M, N]\n"
	       "y = matmul(a, b)\ncheck M=2 K=64 N=3\n",
	       KJ_E_TYPE, "5:5", "matmul: inner dims K=64 and 32 differ (check shape 1: M=2 K=64 N=3)",
	       "matmul shape mismatch");
	err_is(HEAD "y = relu(z)\n" CHK, KJ_E_PARSE, "4:10", "undefined name 'z'", "undefined name");
	err_is(HEAD "output z: f32[B, D]\ny = z + x\nz = relu(x)\n" CHK, KJ_E_PARSE, "5:5",
	       "'z' is used before it is assigned", "used before assigned");
	err_is(HEAD "q = q + x\ny = q\n" CHK, KJ_E_PARSE, "4:5", "'q' is used before it is assigned",
	       "temporary used in its own definition");
	err_is(HEAD "output z: f32[B, D]\ny = relu(x)\n" CHK, KJ_E_PARSE, "4:8", "output 'z' is never assigned",
	       "output never assigned");
	err_is(HEAD "y = relu(x)\ny = relu(x)\n" CHK, KJ_E_PARSE, "5:1",
	       "duplicate assignment to 'y' (first assigned at line 4)", "duplicate assignment");
	err_is(HEAD "x = relu(x)\ny = x\n" CHK, KJ_E_PARSE, "4:1", "cannot assign to input 'x'",
	       "assigning to an input");
	err_is("task t\ninput x: f33[B]\noutput y: f32[B]\ny = x\ncheck B=1\n", KJ_E_PARSE, "2:10",
	       "expected a dtype (f32 f16 bf16 f8e4m3 i8 i32 i64 bool), got 'f33'", "unknown dtype");
	err_is("task t\ninput x: f32[B] ~ gauss\noutput y: f32[B]\ny = x\ncheck B=1\n", KJ_E_PARSE, "2:19",
	       "unknown distribution 'gauss'", "unknown distribution");
	err_is("task t\ninput x: i32[B]\noutput y: i32[B]\ny = x\ncheck B=1\n", KJ_E_PARSE, "2:7",
	       "integer input 'x' needs explicit bounds: ~ randint(lo, hi)", "int input without bounds");
	err_is("task t\ninput x: i32[B] ~ normal\noutput y: i32[B]\ny = x\ncheck B=1\n", KJ_E_PARSE, "2:7",
	       "has integer dtype i32", "int input with a float distribution");
	err_is("task t\ninput x: i32[B] ~ randint(3, 3)\noutput y: i32[B]\ny = x\ncheck B=1\n", KJ_E_TYPE,
	       "2:7", "randint(3, 3) is empty", "empty randint");
	err_is(HEAD "y = relu(x)\ncheck B=2\n", KJ_E_PARSE, "5:7", "shape does not bind dim 'D'",
	       "check shape missing a dim");
	err_is(HEAD "y = relu(x)\ncheck B=2 D=3 Q=4\n", KJ_E_PARSE, "5:15", "unknown dim symbol 'Q' in shape",
	       "unknown dim in shape");
	err_is(HEAD "y = relu(x)\ncheck B=2 D=0\n", KJ_E_PARSE, "5:13", "dim 'D' must be >= 1", "zero dim");
	err_is(HEAD "y = relu(x)\ncheck B=2 D=3 weight=2\n", KJ_E_PARSE, "5:15", "check shapes have no weight",
	       "weight on a check shape");
	err_is(HEAD "y = sum(x, dim=1)\n" CHK, KJ_E_TYPE, "4:1",
	       "output 'y' is declared f32[B=2, D=3] but its statement gives f32[B=2]", "output shape differs");
	err_is(HEAD "y = cast(x, f16)\n" CHK, KJ_E_TYPE, "4:1",
	       "declared f32[B=2, D=3] but its statement gives f16[B=2, D=3] (use cast(..., dtype))",
	       "output dtype differs");
	err_is("task t\nabout \"abc\n", KJ_E_PARSE, "2:7", "unterminated string", "unterminated string");
	err_is(HEAD "y = relu(x) @ 2\n" CHK, KJ_E_PARSE, "4:13", "unexpected character '@'",
	       "unexpected character");
	err_is(HEAD "y = relu(x)\n", KJ_E_PARSE, "1:1", "the task has no 'check' shapes", "no check line");
	err_is("task t\ninput x: f32[B, D] ~ normal\ninput z: f32[B] ~ normal\noutput y: f32[B, D]\n"
	       "y = relu(x)\n" CHK,
	       KJ_E_PARSE, "3:7", "input 'z' is never used", "unused input");
	err_is(HEAD "y = softmax(x, dim=\"a\")\n" CHK, KJ_E_TYPE, "4:20", "softmax: argument 'dim' must be an integer",
	       "bad attribute kind");
	err_is(HEAD "y = relu(x\n" CHK, KJ_E_PARSE, "5:1", "expected ',' or ')' in the argument list",
	       "unclosed call");
	err_is(HEAD "y = relu(x) relu(x)\n" CHK, KJ_E_PARSE, "4:13", "expected an operator or end of line",
	       "two expressions");
	err_is(HEAD "y = relu(x)\n" CHK "level 7\n", KJ_E_PARSE, "6:7", "expected a level 1, 2 or 3, got '7'",
	       "bad level");
	err_is(HEAD "y = relu(x)\n" CHK "category Stuff\n", KJ_E_PARSE, "6:10", "unknown category 'Stuff'",
	       "bad category");
	err_is(HEAD "y = relu(x)\n" CHK "frobnicate 3\n", KJ_E_PARSE, "6:1", "unknown statement 'frobnicate'",
	       "unknown statement");
	err_is(HEAD "y = relu(x)\n" CHK "tol atol=-1\n", KJ_E_PARSE, "6:12", "tolerances must be >= 0",
	       "negative tolerance");
	err_is(HEAD "y = relu(x)\n" CHK "metric cos<=0.9\n", KJ_E_PARSE, "6:11", "expected '>=' after cos",
	       "metric comparison");
	err_is(HEAD "y = relu(x)\n" CHK "task u\n", KJ_E_PARSE, "6:1", "second 'task' line", "second task");
	err_is("input x: f32[B]\noutput y: f32[B]\ny = x\ncheck B=1\n", KJ_E_PARSE, "1:1",
	       "missing 'task NAME' line", "no task line");
	err_is("task t\ninput x: f32[B]\ninput x: f32[B]\noutput y: f32[B]\ny = x\ncheck B=1\n", KJ_E_PARSE,
	       "3:7", "'x' is already declared at line 2", "duplicate declaration");
	err_is("task t\ninput x: f32[B]\noutput y: f32[x]\ny = x\ncheck B=1\n", KJ_E_PARSE, "3:15",
	       "'x' is a tensor, not a dim symbol", "tensor as a dim");
	err_is(HEAD "y = relu(B)\n" CHK, KJ_E_PARSE, "4:10", "'B' is a dim symbol", "dim as a tensor");
	err_is(HEAD "y = relu\n" CHK, KJ_E_PARSE, "4:5", "'relu' is an op: call it as relu(...)", "op as a value");
	err_is(HEAD "y = copy(x)\n" CHK, KJ_E_PARSE, "4:5", "unknown op 'copy'", "copy is internal");
	err_is(HEAD "y = relu(x)\n" CHK "input z: f32[Q]\n", KJ_E_PARSE, "6:14",
	       "new dim symbol 'Q' after a check/bench line", "dim symbol after the shapes");
	err_is("task t\ninput x: f32[B+1]\noutput y: f32[B+1]\ny = x\ncheck B=9223372036854775807\n", KJ_E_TYPE,
	       "2:15", "dim expression overflows", "dim overflow");
	err_is("task t\ninput x: f32[B, B]\noutput y: f32[B, B]\ny = x\ncheck B=2000000\n", KJ_E_TYPE, "2:7",
	       "x: more than 2^40 elements", "huge tensor");
	err_is("task t\ninput x: f32[B, 1]\ninput z: f32[B]\noutput y: f32[]\nh = x * z\ny = sum(h)\ncheck B=1048577\n",
	       KJ_E_TYPE, "5:7", "mul: result has more than 2^40 elements", "huge broadcast result");
	err_is(HEAD "y = relu(x)\ncheck B=99999999999999999999 D=1\n", KJ_E_PARSE, "5:9",
	       "integer literal out of range", "integer literal out of range");
}

static void test_nesting(void)
{
	char text[1024];
	size_t off = (size_t)snprintf(text, sizeof(text), HEAD "y = ");
	for (int i = 0; i < 63; i++)
		text[off++] = '(';
	text[off++] = 'x';
	for (int i = 0; i < 63; i++)
		text[off++] = ')';
	snprintf(text + off, sizeof(text) - off, "\n" CHK);
	{
		kj_task *t = parse(text);
		ok(t != NULL, "63 nested parentheses parse");
		kj_task_free(t);
	}
	off = (size_t)snprintf(text, sizeof(text), HEAD "y = ");
	for (int i = 0; i < 64; i++)
		text[off++] = '(';
	text[off++] = 'x';
	for (int i = 0; i < 64; i++)
		text[off++] = ')';
	snprintf(text + off, sizeof(text) - off, "\n" CHK);
	err_is(text, KJ_E_PARSE, "4:69", "expression nested deeper than 64 levels", "64 nested parentheses");
	off = (size_t)snprintf(text, sizeof(text), HEAD "y = ");
	for (int i = 0; i < 64; i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off, "-");
	snprintf(text + off, sizeof(text) - off, "x\n" CHK);
	err_is(text, KJ_E_PARSE, "4:69", "expression nested deeper than 64 levels", "64 unary minuses");
}

static void test_chain(void)
{
	char text[2048];
	size_t off = (size_t)snprintf(text, sizeof(text), HEAD "y = x");
	kj_task *t;
	for (int i = 0; i < 256; i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off, "+x");
	snprintf(text + off, sizeof(text) - off, "\n" CHK);
	t = parse(text);
	if (ok(t != NULL, "256 chained operators parse"))
		is_int(t->nnodes, 256, "256 add nodes");
	kj_task_free(t);
	off = (size_t)snprintf(text, sizeof(text), HEAD "y = x");
	for (int i = 0; i < 257; i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off, "*x");
	snprintf(text + off, sizeof(text) - off, "\n" CHK);
	err_is(text, KJ_E_PARSE, "4:518", "expression longer than 256 operators", "257 chained operators");
}

static void test_edges(void)
{
	static const char nul[] = "task t\ninput x: f32[B]\0\noutput y: f32[B]\ny = x\ncheck B=1\n";
	kj_task *t = NULL;
	struct kj_err e = { 0 };
	int rc = kj_task_parse(nul, sizeof(nul) - 1, "t.kt", &t, &e);
	is_int(rc, KJ_E_PARSE, "NUL byte rejected");
	is_str(str(e.msg), "t.kt:2:16: NUL byte in task file (expected text)", "NUL byte: line:col");
	err_is("", KJ_E_PARSE, "1:1", "missing 'task NAME' line", "empty file");
	err_is("task t", KJ_E_PARSE, "1:1", "the task declares no output", "1-line file without newline");
	t = parse("task t\ninput x: f32[B]\noutput y: f32[B]\ny = x\ncheck B=1");
	if (ok(t != NULL, "last line without newline parses")) {
		is_int(t->nbind, 1, "its check line is read");
		is_str(t->nodes[0].op->name, "copy", "y = x is a copy");
		kj_task_free(t);
	}
	t = parse("task t\r\ninput x: f32[B,\n   D]\r\noutput y: f32[B, D]\ny = \\\n relu(x)\ncheck B=1 D=1;\n");
	if (ok(t != NULL, "CRLF, a shape across lines and a continuation parse"))
		kj_task_free(t);
	else
		printf("#   %s\n", last_err.msg);
}

/* The op registry's first lookup, made by several threads at once (serve's
 * evaluation threads can): each gets the whole table. */
#define NTHREADS 8
struct reg_look {
	pthread_barrier_t *go;
	const kj_op *table, *softmax;
	int n;
};

static void *reg_lookup(void *arg)
{
	struct reg_look *l = arg;
	pthread_barrier_wait(l->go);
	l->softmax = kj_op_find("softmax");
	l->table = kj_op_table(&l->n);
	return NULL;
}

static void test_registry_threads(void)
{
	pthread_barrier_t go;
	pthread_t th[NTHREADS];
	struct reg_look l[NTHREADS];
	int same = 1, started = 0;
	pthread_barrier_init(&go, NULL, NTHREADS);
	for (int i = 0; i < NTHREADS; i++) {
		l[i] = (struct reg_look){ .go = &go };
		started += !pthread_create(&th[i], NULL, reg_lookup, &l[i]);
	}
	for (int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&go);
	for (int i = 1; i < started; i++)
		same &= l[i].n == l[0].n && l[i].table == l[0].table && l[i].softmax == l[0].softmax;
	ok(started == NTHREADS && same && l[0].n > 100 && l[0].softmax &&
	   !strcmp(l[0].softmax->name, "softmax"),
	   "%d threads making the registry's first lookup at once all see the whole table (%d ops)",
	   NTHREADS, l[0].n);
}

int main(void)
{
	test_registry_threads();
	test_full();
	test_defaults();
	test_tf32();
	test_prototypes();
	test_f8();
	test_dim_exprs();
	test_inference();
	test_broadcast();
	test_errors();
	test_nesting();
	test_chain();
	test_edges();
	return done_testing();
}
