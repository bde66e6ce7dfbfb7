/*
 * Table A of the op registry: every op's fp64 oracle against values worked
 * out by hand or with Python's math module, the f32 baseline against the
 * oracle, shape/dtype inference (broadcasting, labels, reductions, errors),
 * type promotion and cost rules.  Uses kj_ops_a directly, not kj_op_find.
 */
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "kjudge/ops.h"
#include "ops/op_util.h"
#include "ops_testlib.h"

#define TOL 1e-12
#define NANV ((double)NAN)
#define INF ((double)INFINITY)

static const kj_op *op_a(const char *name)
{
	return kjt_find(kj_ops_a, kj_ops_a_count, name);
}

static void node(kj_bnode *n, const char *name)
{
	const kj_op *op = op_a(name);

	if (!op) {
		ok(0, "op %s exists in kj_ops_a", name);
		op = op_a("relu");
	}
	kjt_node(n, op, KJ_MAX_OPERANDS);
}

/* Operand k: dtype, rank, then rank extents. */
static void operand(kj_bnode *n, int k, kj_dtype dt, int rank, ...)
{
	va_list ap;

	n->in[k].dtype = dt;
	n->in[k].weak = 0;
	n->in[k].shape.rank = rank;
	va_start(ap, rank);
	for (int i = 0; i < rank; i++)
		n->in[k].shape.d[i] = va_arg(ap, int);
	va_end(ap);
}

static void literal(kj_bnode *n, int k, kj_dtype dt)
{
	operand(n, k, dt, 0);
	n->in[k].weak = 1;
}

/* infer then the oracle on operands a, b; -1 (with msg) if either fails. */
static int run2(kj_bnode *n, const double *a, const double *b, double *out)
{
	return run64(n, (const double *const[KJ_MAX_OPERANDS]){a, b}, out);
}

/* ok_near() as one test line named `what`. */
static int ok_near(const double *g, const double *want, int cnt, double tol, const char *what)
{
	return ok(all_near(g, want, cnt, tol), "%s", what);
}

static const double XS[5] = {-2.0, -0.5, 0.0, 1.5, 3.0};

/* Runs unary op n (attributes already set) on XS and compares. */
static void unary5(kj_bnode *n, const double *want, const char *what)
{
	double out[5];

	operand(n, 0, KJ_F32, 1, 5);
	if (run2(n, XS, NULL, out)) {
		ok(0, "%s: %s", what, msg);
		return;
	}
	ok_near(out, want, 5, TOL, what);
}

static void test_table(void)
{
	static const char *const names[] = {
		"relu", "leaky_relu", "sigmoid", "tanh", "gelu", "silu", "selu", "elu",
		"hardsigmoid", "hardswish", "hardtanh", "softplus", "softsign", "exp", "log",
		"sqrt", "rsqrt", "abs", "neg", "round", "clamp", "add", "sub", "mul", "div", "maximum",
		"minimum", "pow", "bitwise_and", "bitwise_or", "bitwise_xor",
		"bitwise_left_shift", "bitwise_right_shift", "sum", "mean", "max", "min", "argmax", "argmin", "prod",
		"logsumexp", "var", "std", "softmax", "log_softmax", "cumsum"};
	int nn = (int)(sizeof(names) / sizeof(names[0])), complete = 1, found = 1;

	is_int(kj_ops_a_count, nn, "table A has %d ops", nn);
	for (int i = 0; i < nn; i++)
		if (!op_a(names[i])) {
			found = 0;
			printf("# missing %s\n", names[i]);
		}
	ok(found, "every op of table A is present");
	for (int i = 0; i < kj_ops_a_count; i++) {
		const kj_op *op = &kj_ops_a[i];

		if (!op->doc || strncmp(op->doc, op->name, strlen(op->name)) != 0 || !op->infer ||
		    !op->cost || !op->cpu64 || !op->cpu32 || op->nparams < 1 ||
		    op->params[0].kind != KJ_ATTR_TENSOR) {
			complete = 0;
			printf("# incomplete entry %s\n", op->name);
		}
	}
	ok(complete, "every entry has doc (starting with its name), infer, cost, cpu64, cpu32");
	is_str(op_a("pow")->params[1].name, "exponent", "pow's second param is exponent");
	is_str(op_a("var")->params[2].name, "correction", "var: input, dim, correction, keepdim");
	is_int(op_a("var")->params[3].def.i, 0, "keepdim defaults to False");
	ok(op_a("max")->notes && strstr(op_a("max")->notes, "tuple"), "max notes the tuple");
}

static void test_unary(void)
{
	kj_bnode n;
	double out[5], x[3];

	node(&n, "relu");
	unary5(&n, (const double[]){0, 0, 0, 1.5, 3}, "relu");
	x[0] = NANV;
	x[1] = -1;
	x[2] = 2;
	operand(&n, 0, KJ_F32, 1, 3);
	run2(&n, x, NULL, out);
	ok(isnan(out[0]) && out[1] == 0 && out[2] == 2, "relu keeps NaN");
	operand(&n, 0, KJ_I32, 1, 3);
	infer(&n);
	is_int(n.out.dtype, KJ_I32, "relu keeps i32");

	node(&n, "leaky_relu");
	unary5(&n, (const double[]){-0.02, -0.005, 0, 1.5, 3}, "leaky_relu default slope 0.01");
	attr_f(&n, 0, 0.2);
	unary5(&n, (const double[]){-0.4, -0.1, 0, 1.5, 3}, "leaky_relu slope 0.2");

	node(&n, "sigmoid");
	unary5(&n,
	       (const double[]){0.11920292202211755, 0.3775406687981454, 0.5, 0.8175744761936437,
				0.9525741268224334},
	       "sigmoid");
	x[0] = -800;
	x[1] = 800;
	x[2] = 0;
	operand(&n, 0, KJ_F32, 1, 3);
	run2(&n, x, NULL, out);
	ok(out[0] == 0 && out[1] == 1 && !isnan(out[0]), "sigmoid saturates without NaN");
	operand(&n, 0, KJ_I64, 1, 3);
	infer(&n);
	is_int(n.out.dtype, KJ_F32, "sigmoid of i64 gives f32");
	operand(&n, 0, KJ_BF16, 1, 3);
	infer(&n);
	is_int(n.out.dtype, KJ_BF16, "sigmoid of bf16 gives bf16");

	node(&n, "tanh");
	unary5(&n,
	       (const double[]){-0.9640275800758169, -0.46211715726000974, 0.0,
				0.9051482536448664, 0.9950547536867305},
	       "tanh");

	node(&n, "gelu");
	unary5(&n,
	       (const double[]){-0.04550026389635842, -0.15426876936299344, 0.0,
				1.399789198096713, 2.99595030590511},
	       "gelu exact (erf)");
	attr_s(&n, 0, "tanh");
	unary5(&n,
	       (const double[]){-0.04540230591222494, -0.15428599017485606, 0.0,
				1.3995715769802328, 2.996362607918227},
	       "gelu approximate=tanh");
	attr_s(&n, 0, "fast");
	operand(&n, 0, KJ_F32, 1, 5);
	ok(infer(&n) == -1, "gelu rejects approximate=\"fast\"");
	is_str(msg, "gelu: approximate must be \"none\" or \"tanh\", not \"fast\"",
	       "gelu approximate message");

	node(&n, "silu");
	unary5(&n,
	       (const double[]){-0.2384058440442351, -0.1887703343990727, 0.0, 1.2263617142904655,
				2.8577223804673},
	       "silu");

	node(&n, "selu");
	unary5(&n,
	       (const double[]){-1.5201664685956948, -0.6917581878028713, 0.0,
				1.5760514810332207, 3.1521029620664414},
	       "selu");

	node(&n, "elu");
	unary5(&n, (const double[]){-0.8646647167633873, -0.3934693402873666, 0, 1.5, 3},
	       "elu alpha=1");
	attr_f(&n, 0, 0.5);
	unary5(&n, (const double[]){-0.43233235838169365, -0.1967346701436833, 0, 1.5, 3},
	       "elu alpha=0.5");

	node(&n, "hardsigmoid");
	unary5(&n, (const double[]){1.0 / 6, 5.0 / 12, 0.5, 0.75, 1}, "hardsigmoid");
	node(&n, "hardswish");
	unary5(&n, (const double[]){-1.0 / 3, -5.0 / 24, 0, 1.125, 3}, "hardswish");

	node(&n, "hardtanh");
	unary5(&n, (const double[]){-1, -0.5, 0, 1, 1}, "hardtanh default [-1, 1]");
	attr_f(&n, 0, -0.25);
	attr_f(&n, 1, 2);
	unary5(&n, (const double[]){-0.25, -0.25, 0, 1.5, 2}, "hardtanh [-0.25, 2]");

	node(&n, "softplus");
	unary5(&n,
	       (const double[]){0.1269280110429725, 0.4740769841801067, 0.6931471805599453,
				1.7014132779827524, 3.048587351573742},
	       "softplus default");
	attr_f(&n, 0, 2);
	attr_f(&n, 1, 1);
	unary5(&n,
	       (const double[]){0.009074963958904869, 0.15663084375911143, 0.34657359027997264,
				1.5, 3.0},
	       "softplus beta=2 threshold=1 (linear above)");

	node(&n, "softsign");
	unary5(&n, (const double[]){-2.0 / 3, -1.0 / 3, 0, 0.6, 0.75}, "softsign");
	node(&n, "exp");
	unary5(&n,
	       (const double[]){0.1353352832366127, 0.6065306597126334, 1.0, 4.4816890703380645,
				20.085536923187668},
	       "exp");
	node(&n, "abs");
	unary5(&n, (const double[]){2, 0.5, 0, 1.5, 3}, "abs");
	node(&n, "neg");
	unary5(&n, (const double[]){2, 0.5, 0, -1.5, -3}, "neg");
	operand(&n, 0, KJ_BOOL, 1, 5);
	ok(infer(&n) == -1, "neg of bool is an error");
	like(msg, "neg: ", "neg message names the op");

	{
		const double lx[5] = {0.5, 1, 2.5, 0, -1};
		const double sx[3] = {0.25, 2, 9};

		node(&n, "log");
		operand(&n, 0, KJ_F32, 1, 5);
		run2(&n, lx, NULL, out);
		ok_near(out,
			 (const double[]){-0.6931471805599453, 0, 0.9162907318741551, -INF, NANV}, 5,
			 TOL, "log, log(0) = -inf, log(-1) = NaN");
		node(&n, "sqrt");
		operand(&n, 0, KJ_F32, 1, 3);
		run2(&n, sx, NULL, out);
		ok_near(out, (const double[]){0.5, 1.4142135623730951, 3}, 3, TOL, "sqrt");
		node(&n, "rsqrt");
		operand(&n, 0, KJ_F32, 1, 3);
		run2(&n, sx, NULL, out);
		ok_near(out, (const double[]){2, 0.7071067811865475, 1.0 / 3}, 3, TOL, "rsqrt");
	}

	node(&n, "clamp");
	operand(&n, 0, KJ_F32, 1, 5);
	ok(infer(&n) == -1, "clamp without bounds is an error");
	like(msg, "clamp: ", "clamp message names the op");
	attr_f(&n, 0, -1);
	unary5(&n, (const double[]){-1, -0.5, 0, 1.5, 3}, "clamp min only");
	node(&n, "clamp");
	attr_f(&n, 1, 1);
	unary5(&n, (const double[]){-2, -0.5, 0, 1, 1}, "clamp max only");
	attr_f(&n, 0, -0.25);
	attr_f(&n, 1, 2);
	unary5(&n, (const double[]){-0.25, -0.25, 0, 1.5, 2}, "clamp both");
	attr_f(&n, 0, 2);
	attr_f(&n, 1, 1);
	unary5(&n, (const double[]){1, 1, 1, 1, 1}, "clamp min > max gives max");
	operand(&n, 0, KJ_I32, 1, 5);
	infer(&n);
	is_int(n.out.dtype, KJ_I32, "clamp of i32 with integral bounds keeps i32");
	attr_f(&n, 0, 1.5);
	infer(&n);
	is_int(n.out.dtype, KJ_F32, "clamp of i32 with min=1.5 gives f32");
}

static void test_binary(void)
{
	kj_bnode n;
	double a[12], b[12], out[64], want[64];
	const int64_t s34[2] = {3, 4};

	/* [3,1] + [1,4] */
	node(&n, "add");
	operand(&n, 0, KJ_F32, 2, 3, 1);
	operand(&n, 1, KJ_F32, 2, 1, 4);
	n.in[0].label[0] = "B";
	n.in[1].label[1] = "D";
	for (int i = 0; i < 3; i++)
		a[i] = i + 1;
	for (int j = 0; j < 4; j++)
		b[j] = 10 * (j + 1);
	ok(run2(&n, a, b, out) == 0, "add [3,1]+[1,4] runs");
	ok(shape_is(&n.out, 2, s34), "add [3,1]+[1,4] gives [3,4]");
	ok(n.out.label[0] && !strcmp(n.out.label[0], "B") && n.out.label[1] &&
		   !strcmp(n.out.label[1], "D"),
	   "broadcast labels come from the stretched-to operand");
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 4; j++)
			want[i * 4 + j] = (i + 1) + 10 * (j + 1);
	ok_near(out, want, 12, 0, "add [3,1]+[1,4] values");

	/* [2,3] - [3] */
	node(&n, "sub");
	operand(&n, 0, KJ_F32, 2, 2, 3);
	operand(&n, 1, KJ_F32, 1, 3);
	for (int i = 0; i < 6; i++)
		a[i] = i + 1;
	b[0] = 1;
	b[1] = 1;
	b[2] = 2;
	run2(&n, a, b, out);
	ok_near(out, (const double[]){0, 1, 1, 3, 4, 4}, 6, 0, "sub [2,3]-[3]");
	ok(n.out.shape.rank == 2 && n.out.shape.d[0] == 2 && n.out.shape.d[1] == 3,
	   "sub [2,3]-[3] gives [2,3]");
	operand(&n, 0, KJ_BOOL, 1, 3);
	operand(&n, 1, KJ_BOOL, 1, 3);
	ok(infer(&n) == -1, "sub of two bools is an error");

	/* [2,1,3] + [4,1] -> [2,4,3]: stretch on both sides, rank mismatch */
	node(&n, "add");
	operand(&n, 0, KJ_F32, 3, 2, 1, 3);
	operand(&n, 1, KJ_F32, 2, 4, 1);
	for (int i = 0; i < 6; i++)
		a[i] = (i / 3) * 10 + i % 3;
	for (int j = 0; j < 4; j++)
		b[j] = 100 * j;
	run2(&n, a, b, out);
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 4; j++)
			for (int k = 0; k < 3; k++)
				want[(i * 4 + j) * 3 + k] = i * 10 + k + 100 * j;
	ok(n.out.shape.rank == 3 && n.out.shape.d[0] == 2 && n.out.shape.d[1] == 4 &&
		   n.out.shape.d[2] == 3,
	   "add [2,1,3]+[4,1] gives [2,4,3]");
	ok_near(out, want, 24, 0, "add [2,1,3]+[4,1] values");

	/* tensor * weak float literal keeps the tensor dtype */
	node(&n, "mul");
	operand(&n, 0, KJ_F16, 2, 2, 3);
	literal(&n, 1, KJ_F32);
	b[0] = 2.5;
	run2(&n, a, b, out);
	is_int(n.out.dtype, KJ_F16, "f16 tensor * float literal stays f16");
	ok(n.out.shape.rank == 2 && !n.out.weak, "mul by a scalar keeps the tensor's shape");
	for (int i = 0; i < 6; i++)
		want[i] = a[i] * 2.5;
	ok_near(out, want, 6, 0, "mul by a scalar literal");

	/* scalar on the left: 1 - x */
	node(&n, "sub");
	literal(&n, 0, KJ_I64);
	operand(&n, 1, KJ_F32, 1, 3);
	a[0] = 1;
	b[0] = 0.25;
	b[1] = 2;
	b[2] = -3;
	run2(&n, a, b, out);
	ok_near(out, (const double[]){0.75, -1, 4}, 3, 0, "sub literal - tensor");
	is_int(n.out.dtype, KJ_F32, "int literal - f32 tensor gives f32");

	/* rank 0 + rank 0 */
	node(&n, "add");
	operand(&n, 0, KJ_F32, 0);
	operand(&n, 1, KJ_F32, 0);
	a[0] = 1.5;
	b[0] = 2.25;
	run2(&n, a, b, out);
	ok(n.out.shape.rank == 0 && out[0] == 3.75, "add of two rank-0 tensors is rank 0");

	/* true division */
	node(&n, "div");
	operand(&n, 0, KJ_I32, 1, 3);
	operand(&n, 1, KJ_I32, 1, 3);
	a[0] = 7;
	a[1] = 1;
	a[2] = -7;
	b[0] = 2;
	b[1] = 4;
	b[2] = 2;
	run2(&n, a, b, out);
	is_int(n.out.dtype, KJ_F32, "div i32 / i32 gives f32");
	ok_near(out, (const double[]){3.5, 0.25, -3.5}, 3, 0, "div is true division");
	node(&n, "mul");
	operand(&n, 0, KJ_I32, 1, 3);
	operand(&n, 1, KJ_I32, 1, 3);
	infer(&n);
	is_int(n.out.dtype, KJ_I32, "mul i32 * i32 stays i32");

	node(&n, "maximum");
	operand(&n, 0, KJ_F32, 1, 4);
	operand(&n, 1, KJ_F32, 1, 4);
	{
		const double x[4] = {1, NANV, 3, -1}, y[4] = {2, 2, NANV, -5};

		run2(&n, x, y, out);
		ok_near(out, (const double[]){2, NANV, NANV, -1}, 4, 0, "maximum propagates NaN");
		node(&n, "minimum");
		operand(&n, 0, KJ_F32, 1, 4);
		operand(&n, 1, KJ_F32, 1, 4);
		run2(&n, x, y, out);
		ok_near(out, (const double[]){1, NANV, NANV, -5}, 4, 0, "minimum propagates NaN");
	}

	node(&n, "pow");
	operand(&n, 0, KJ_F32, 1, 3);
	operand(&n, 1, KJ_F32, 1, 3);
	{
		const double x[3] = {2, 3, -8}, y[3] = {0.5, -1, 2};

		run2(&n, x, y, out);
		ok_near(out, (const double[]){1.4142135623730951, 1.0 / 3, 64}, 3, TOL,
			 "pow elementwise");
		literal(&n, 1, KJ_I64);
		b[0] = 2;
		run2(&n, x, b, out);
		ok_near(out, (const double[]){4, 9, 64}, 3, 0, "pow by an int literal");
		is_int(n.out.dtype, KJ_F32, "f32 ** int literal stays f32");
	}

	/* mismatch message */
	node(&n, "add");
	operand(&n, 0, KJ_F32, 2, 3, 4);
	operand(&n, 1, KJ_F32, 1, 5);
	n.in[0].label[0] = "B";
	ok(infer(&n) == -1, "add [B=3,4]+[5] fails");
	is_str(msg, "add: shapes [B=3, 4] and [5] cannot broadcast (dim -1: 4 vs 5)",
	       "broadcast mismatch message");
	operand(&n, 0, KJ_F32, 3, 2, 3, 4);
	operand(&n, 1, KJ_F32, 2, 2, 4);
	n.in[0].label[0] = NULL;
	n.in[1].label[0] = "K";
	infer(&n);
	is_str(msg, "add: shapes [2, 3, 4] and [K=2, 4] cannot broadcast (dim -2: 3 vs K=2)",
	       "broadcast mismatch names the dim from the right, with labels");
}

static kj_dtype promo(kj_dtype a, int ra, int wa, kj_dtype b, int rb, int wb)
{
	kj_tinfo x, y;

	memset(&x, 0, sizeof(x));
	memset(&y, 0, sizeof(y));
	x.dtype = a;
	x.shape.rank = ra;
	x.weak = wa;
	y.dtype = b;
	y.shape.rank = rb;
	y.weak = wb;
	for (int i = 0; i < ra; i++)
		x.shape.d[i] = 4;
	for (int i = 0; i < rb; i++)
		y.shape.d[i] = 4;
	return kj_promote(&x, &y);
}

/* Runs bitwise op `name` on a (i8, 6 values) and b (weak literal or [6]
 * of dtype bdt) with both kernels; 1 when both give want[]. */
static int bitwise6(const char *name, kj_dtype adt, const double *a, kj_dtype bdt, int b_weak,
		    const double *b, const double *want, kj_dtype want_dt)
{
	kj_bnode n;
	double out[6];
	float a32[6], b32[6], o32[6];
	int good = 1;

	node(&n, name);
	operand(&n, 0, adt, 1, 6);
	if (b_weak)
		literal(&n, 1, bdt);
	else
		operand(&n, 1, bdt, 1, 6);
	if (run2(&n, a, b, out)) {
		printf("# %s: %s\n", name, msg);
		return 0;
	}
	if (n.out.dtype != want_dt) {
		printf("# %s gives %s\n", name, kj_dtype_name(n.out.dtype));
		return 0;
	}
	for (int i = 0; i < 6; i++) {
		a32[i] = (float)a[i];
		b32[i] = (float)b[b_weak ? 0 : i];
	}
	if (n.op->cpu32(&n, (const float *const[KJ_MAX_OPERANDS]){a32, b32}, o32, msg, KJT_MSGLEN))
		return 0;
	for (int i = 0; i < 6; i++)
		if (out[i] != want[i] || o32[i] != (float)want[i]) {
			printf("# %s [%d]: got %g (f32 %g), want %g\n", name, i, out[i], o32[i],
			       want[i]);
			good = 0;
		}
	return good;
}

/* torch.round: halves to even, in both kernels; integers keep their dtype. */
static void test_round(void)
{
	kj_bnode n;
	const double x[8] = {2.5, -0.5, 0.5, 1.5, -2.5, 2.4999, -126.6, 3.0};
	const double want[8] = {2, -0.0, 0, 2, -2, 2, -127, 3};
	double out[8];
	float x32[8], o32[8];
	int good = 1;

	node(&n, "round");
	operand(&n, 0, KJ_F32, 1, 8);
	ok(run2(&n, x, NULL, out) == 0 && n.out.dtype == KJ_F32, "round on f32 runs, keeps f32");
	for (int i = 0; i < 8; i++)
		x32[i] = (float)x[i];
	ok(n.op->cpu32(&n, (const float *const[KJ_MAX_OPERANDS]){x32}, o32, msg, KJT_MSGLEN) == 0,
	   "round f32 kernel runs");
	for (int i = 0; i < 8; i++)
		if (out[i] != want[i] || o32[i] != (float)want[i] ||
		    signbit(out[i]) != signbit(want[i])) {
			printf("# round(%g): got %g (f32 %g), want %g\n", x[i], out[i], o32[i], want[i]);
			good = 0;
		}
	ok(good, "round halves to even (2.5 -> 2, -0.5 -> -0, 1.5 -> 2) in both kernels");
	operand(&n, 0, KJ_I8, 1, 3);
	ok(infer(&n) == 0 && n.out.dtype == KJ_I8, "round of i8 stays i8");
}

static void test_bitwise(void)
{
	kj_bnode n;
	/* i8 bytes packing two int4 nibbles: 0x7F, 0x80 (-128), 0xF1 (-15),
	 * 0x2E, 0x00, 0x9C (-100) */
	const double x[6] = {127, -128, -15, 46, 0, -100};

	ok(bitwise6("bitwise_and", KJ_I8, x, KJ_I64, 1, (const double[]){15},
		    (const double[]){15, 0, 1, 14, 0, 12}, KJ_I8),
	   "bitwise_and(i8, 15) keeps the low nibble, stays i8");
	ok(bitwise6("bitwise_right_shift", KJ_I8, x, KJ_I64, 1, (const double[]){4},
		    (const double[]){7, -8, -1, 2, 0, -7}, KJ_I8),
	   "bitwise_right_shift(i8, 4) is arithmetic: the high nibble sign-extended");
	ok(bitwise6("bitwise_left_shift", KJ_I8, x, KJ_I64, 1, (const double[]){4},
		    (const double[]){-16, 0, 16, -32, 0, -64}, KJ_I8),
	   "bitwise_left_shift(i8, 4) wraps to i8");
	/* (x << 4) >> 4: the low nibble as a signed int4 */
	ok(bitwise6("bitwise_right_shift", KJ_I8, (const double[]){-16, 0, 16, -32, 0, -64},
		    KJ_I64, 1, (const double[]){4}, (const double[]){-1, 0, 1, -2, 0, -4}, KJ_I8),
	   "(x << 4) >> 4 sign-extends the low nibble");
	ok(bitwise6("bitwise_left_shift", KJ_I8, (const double[]){1, 1, 1, 1, -1, 3}, KJ_I8, 0,
		    (const double[]){7, 8, -1, 0, 7, 9}, (const double[]){-128, 0, 0, 1, -128, 0},
		    KJ_I8),
	   "left shift by >= 8 or < 0 gives 0 (PyTorch's rule)");
	ok(bitwise6("bitwise_right_shift", KJ_I8, (const double[]){-128, 127, -1, 64, 100, -100},
		    KJ_I8, 0, (const double[]){7, 8, 100, -1, 0, 2},
		    (const double[]){-1, 0, -1, 0, 100, -25}, KJ_I8),
	   "right shift by >= 7 or < 0 shifts by 7 (sign fill)");
	ok(bitwise6("bitwise_or", KJ_I32, (const double[]){1, -2, 0, 65536, 5, -1}, KJ_I8, 0,
		    (const double[]){2, 1, 0, 1, -8, 0}, (const double[]){3, -1, 0, 65537, -3, -1},
		    KJ_I32),
	   "bitwise_or(i32, i8) promotes to i32");
	ok(bitwise6("bitwise_xor", KJ_I64, (const double[]){5, -1, 0, 3, 12, 7}, KJ_I64, 0,
		    (const double[]){3, 1, 0, 3, 10, -8}, (const double[]){6, -2, 0, 0, 6, -1},
		    KJ_I64),
	   "bitwise_xor on i64");
	ok(bitwise6("bitwise_left_shift", KJ_I32, (const double[]){1, 3, -1, 1, 5, 1}, KJ_I32, 0,
		    (const double[]){31, 30, 4, 32, 0, -3},
		    (const double[]){-2147483648.0, -1073741824.0, -16, 0, 5, 0}, KJ_I32),
	   "i32 left shift wraps at 32 bits");
	ok(bitwise6("bitwise_and", KJ_BOOL, (const double[]){1, 1, 0, 0, 1, 0}, KJ_BOOL, 0,
		    (const double[]){1, 0, 1, 0, 1, 0}, (const double[]){1, 0, 0, 0, 1, 0}, KJ_BOOL),
	   "bitwise_and of bools is bool");

	node(&n, "bitwise_and");
	operand(&n, 0, KJ_F32, 1, 3);
	literal(&n, 1, KJ_I64);
	ok(infer(&n) == -1, "bitwise_and on f32 is an error");
	is_str(got(), "bitwise_and: operands must be integer or bool, got f32 and i64",
	       "bitwise_and dtype message");
	node(&n, "bitwise_right_shift");
	operand(&n, 0, KJ_BOOL, 1, 3);
	literal(&n, 1, KJ_I64);
	ok(infer(&n) == -1, "shift of bool is an error");
	is_str(got(), "bitwise_right_shift: operands must be integer, got bool and i64",
	       "shift dtype message");
	node(&n, "bitwise_right_shift");
	operand(&n, 0, KJ_I8, 2, 3, 1);
	operand(&n, 1, KJ_I8, 1, 4);
	ok(infer(&n) == 0 && n.out.shape.rank == 2 && n.out.shape.d[0] == 3 &&
		   n.out.shape.d[1] == 4,
	   "shifts broadcast [3,1] >> [4] to [3,4]");
}

static void test_promote(void)
{
	is_int(promo(KJ_F32, 1, 0, KJ_F32, 1, 0), KJ_F32, "f32 + f32 = f32");
	is_int(promo(KJ_F16, 1, 0, KJ_BF16, 1, 0), KJ_F32, "f16 + bf16 = f32");
	is_int(promo(KJ_BF16, 1, 0, KJ_F32, 1, 0), KJ_F32, "bf16 + f32 = f32");
	is_int(promo(KJ_F16, 1, 0, KJ_F16, 1, 0), KJ_F16, "f16 + f16 = f16");
	is_int(promo(KJ_I8, 1, 0, KJ_I32, 1, 0), KJ_I32, "i8 + i32 = i32");
	is_int(promo(KJ_I64, 1, 0, KJ_I32, 1, 0), KJ_I64, "i64 + i32 = i64");
	is_int(promo(KJ_BOOL, 1, 0, KJ_I8, 1, 0), KJ_I8, "bool + i8 = i8");
	is_int(promo(KJ_I64, 1, 0, KJ_F16, 1, 0), KJ_F16, "i64 + f16 = f16");
	is_int(promo(KJ_F16, 1, 0, KJ_F32, 0, 1), KJ_F16, "f16 tensor * float literal = f16");
	is_int(promo(KJ_BF16, 1, 0, KJ_I64, 0, 1), KJ_BF16, "bf16 tensor * int literal = bf16");
	is_int(promo(KJ_I32, 1, 0, KJ_F32, 0, 1), KJ_F32, "i32 tensor * float literal = f32");
	is_int(promo(KJ_I64, 0, 1, KJ_I8, 1, 0), KJ_I8, "int literal * i8 tensor = i8");
	is_int(promo(KJ_BOOL, 1, 0, KJ_I64, 0, 1), KJ_I64, "bool tensor + int literal = i64");
	is_int(promo(KJ_BOOL, 1, 0, KJ_BOOL, 0, 1), KJ_BOOL, "bool tensor & bool literal = bool");
	is_int(promo(KJ_I64, 0, 1, KJ_F32, 0, 1), KJ_F32, "int literal + float literal = f32");
	is_int(promo(KJ_F16, 1, 0, KJ_F32, 0, 0), KJ_F16,
	       "f16 tensor * zero-dim f32 tensor = f16 (zero-dim does not widen)");
	is_int(promo(KJ_I32, 1, 0, KJ_F16, 0, 0), KJ_F16, "i32 tensor * zero-dim f16 tensor = f16");
	is_int(promo(KJ_F32, 0, 0, KJ_F16, 0, 0), KJ_F32, "two zero-dim tensors promote fully");
}

/* x = [[1, 5, 2], [4, 0, 6]] as f32[2, 3] (labels B, D). */
static const double X23[6] = {1, 5, 2, 4, 0, 6};

static void red_node(kj_bnode *n, const char *name, int has_dim, int dim, int keepdim)
{
	int kd = strcmp(name, "var") == 0 || strcmp(name, "std") == 0 ? 2 : 1;

	node(n, name);
	operand(n, 0, KJ_F32, 2, 2, 3);
	n->in[0].label[0] = "B";
	n->in[0].label[1] = "D";
	if (has_dim)
		attr_i(n, 0, dim);
	if (keepdim)
		attr_b(n, kd, 1);
}

/* One reduction on X23; checks the output rank and values. */
static void red_case(const char *name, int has_dim, int dim, int keepdim, int rank,
		     const double *want, int cnt, const char *what)
{
	kj_bnode n;
	double out[8];

	red_node(&n, name, has_dim, dim, keepdim);
	if (run2(&n, X23, NULL, out)) {
		ok(0, "%s: %s", what, msg);
		return;
	}
	if (n.out.shape.rank != rank || kjo_numel(&n.out.shape) != cnt) {
		ok(0, "%s: rank %d numel %lld", what, n.out.shape.rank,
		   (long long)kjo_numel(&n.out.shape));
		return;
	}
	ok_near(out, want, cnt, TOL, what);
}

static void test_reduce(void)
{
	kj_bnode n;
	double out[32], x[32], want[32];

	red_case("sum", 0, 0, 0, 0, (const double[]){18}, 1, "sum dim=None");
	red_case("sum", 0, 0, 1, 2, (const double[]){18}, 1, "sum dim=None keepdim");
	red_case("sum", 1, 1, 0, 1, (const double[]){8, 10}, 2, "sum dim=1");
	red_case("sum", 1, -2, 0, 1, (const double[]){5, 5, 8}, 3, "sum dim=-2");
	red_case("sum", 1, 0, 1, 2, (const double[]){5, 5, 8}, 3, "sum dim=0 keepdim");
	red_case("mean", 0, 0, 0, 0, (const double[]){3}, 1, "mean dim=None");
	red_case("mean", 1, -1, 0, 1, (const double[]){8.0 / 3, 10.0 / 3}, 2, "mean dim=-1");
	red_case("max", 0, 0, 0, 0, (const double[]){6}, 1, "max dim=None");
	red_case("max", 1, 1, 0, 1, (const double[]){5, 6}, 2, "max dim=1");
	red_case("min", 1, 0, 1, 2, (const double[]){1, 0, 2}, 3, "min dim=0 keepdim");
	red_case("argmax", 1, 1, 0, 1, (const double[]){1, 2}, 2, "argmax dim=1");
	red_case("argmax", 0, 0, 0, 0, (const double[]){5}, 1, "argmax dim=None (flat index)");
	red_case("argmin", 1, 0, 0, 1, (const double[]){0, 1, 0}, 3, "argmin dim=0");
	red_case("argmin", 0, 0, 1, 2, (const double[]){4}, 1, "argmin dim=None keepdim");
	red_case("prod", 1, 1, 0, 1, (const double[]){10, 0}, 2, "prod dim=1");
	red_case("prod", 1, 0, 0, 1, (const double[]){4, 0, 12}, 3, "prod dim=0");
	red_case("logsumexp", 1, 1, 0, 1, (const double[]){5.065883903757429, 6.129108908829851},
		 2, "logsumexp dim=1");
	red_case("logsumexp", 0, 0, 0, 0, (const double[]){6.42575589236219}, 1,
		 "logsumexp dim=None");
	red_case("var", 0, 0, 0, 0, (const double[]){5.6}, 1, "var dim=None (unbiased)");
	red_case("var", 1, 1, 1, 2, (const double[]){13.0 / 3, 28.0 / 3}, 2, "var dim=1 keepdim");
	red_case("std", 1, 0, 0, 1,
		 (const double[]){2.1213203435596424, 3.5355339059327378, 2.8284271247461903}, 3,
		 "std dim=0");

	/* keepdim shape and labels */
	red_node(&n, "sum", 1, 0, 1);
	infer(&n);
	ok(n.out.shape.rank == 2 && n.out.shape.d[0] == 1 && n.out.shape.d[1] == 3 &&
		   n.out.label[0] == NULL && n.out.label[1] && !strcmp(n.out.label[1], "D"),
	   "sum dim=0 keepdim gives [1, D=3]");
	red_node(&n, "sum", 1, 0, 0);
	infer(&n);
	ok(n.out.shape.rank == 1 && n.out.label[0] && !strcmp(n.out.label[0], "D"),
	   "sum dim=0 drops the dim and keeps D's label");

	/* var correction */
	red_node(&n, "var", 0, 0, 0);
	attr_i(&n, 1, 0);
	run2(&n, X23, NULL, out);
	is_near(out[0], 14.0 / 3, TOL, "var correction=0 (population)");
	red_node(&n, "std", 1, 1, 0);
	operand(&n, 0, KJ_F32, 2, 2, 1);
	run2(&n, X23, NULL, out);
	ok(isnan(out[0]) && isnan(out[1]), "std of one element with correction=1 is NaN");

	/* a middle dim with inner > 1: x[i][j][k] = 6i + 2j + k over [2, 3, 2] */
	for (int i = 0; i < 12; i++)
		x[i] = i;
	node(&n, "sum");
	operand(&n, 0, KJ_F32, 3, 2, 3, 2);
	attr_i(&n, 0, 1);
	run2(&n, x, NULL, out);
	for (int i = 0; i < 2; i++)
		for (int k = 0; k < 2; k++)
			want[i * 2 + k] = 3 * (6 * i + k) + 2 * (0 + 1 + 2);
	ok_near(out, want, 4, 0, "sum over a middle dim");
	node(&n, "max");
	operand(&n, 0, KJ_F32, 3, 2, 3, 2);
	attr_i(&n, 0, 1);
	run2(&n, x, NULL, out);
	ok_near(out, (const double[]){4, 5, 10, 11}, 4, 0, "max over a middle dim");

	/* a size-1 dim */
	node(&n, "sum");
	operand(&n, 0, KJ_F32, 3, 2, 1, 3);
	attr_i(&n, 0, 1);
	run2(&n, X23, NULL, out);
	ok(n.out.shape.rank == 2 && n.out.shape.d[0] == 2 && n.out.shape.d[1] == 3,
	   "sum over a size-1 dim gives [2, 3]");
	ok_near(out, X23, 6, 0, "sum over a size-1 dim is the identity");

	/* rank-0 input */
	node(&n, "sum");
	operand(&n, 0, KJ_F32, 0);
	attr_i(&n, 0, -1);
	x[0] = 4.5;
	ok(run2(&n, x, NULL, out) == 0 && n.out.shape.rank == 0 && out[0] == 4.5,
	   "sum of a rank-0 tensor over dim -1");

	/* NaN and ties */
	{
		const double t[4] = {3, 7, 7, 1}, u[4] = {2, 0, 0, 5}, v[4] = {1, NANV, 5, NANV};

		node(&n, "argmax");
		operand(&n, 0, KJ_F32, 1, 4);
		run2(&n, t, NULL, out);
		is_int(out[0], 1, "argmax takes the first of tied maxima");
		is_int(n.out.dtype, KJ_I64, "argmax gives i64");
		run2(&n, v, NULL, out);
		is_int(out[0], 1, "argmax of data with NaN is the first NaN");
		node(&n, "argmin");
		operand(&n, 0, KJ_F32, 1, 4);
		run2(&n, u, NULL, out);
		is_int(out[0], 1, "argmin takes the first of tied minima");
		run2(&n, v, NULL, out);
		is_int(out[0], 1, "argmin of data with NaN is the first NaN");
		node(&n, "max");
		operand(&n, 0, KJ_F32, 1, 4);
		run2(&n, v, NULL, out);
		ok(isnan(out[0]), "max of data with NaN is NaN");
		node(&n, "min");
		operand(&n, 0, KJ_F32, 1, 4);
		run2(&n, v, NULL, out);
		ok(isnan(out[0]), "min of data with NaN is NaN");
	}

	/* logsumexp at the edges */
	{
		const double big[2] = {1000, 999}, ninf[2] = {-INF, -INF}, pinf[2] = {INF, 1};

		node(&n, "logsumexp");
		operand(&n, 0, KJ_F32, 1, 2);
		attr_i(&n, 0, 0);
		run2(&n, big, NULL, out);
		is_near(out[0], 1000.3132616875182, TOL, "logsumexp [1000, 999] does not overflow");
		run2(&n, ninf, NULL, out);
		ok(out[0] == -INF, "logsumexp of all -inf is -inf");
		run2(&n, pinf, NULL, out);
		ok(out[0] == INF, "logsumexp with +inf is +inf");
	}

	/* dtypes */
	node(&n, "sum");
	operand(&n, 0, KJ_BOOL, 1, 3);
	infer(&n);
	is_int(n.out.dtype, KJ_I64, "sum of bool gives i64");
	operand(&n, 0, KJ_I32, 1, 3);
	infer(&n);
	is_int(n.out.dtype, KJ_I64, "sum of i32 gives i64");
	operand(&n, 0, KJ_BF16, 1, 3);
	infer(&n);
	is_int(n.out.dtype, KJ_BF16, "sum of bf16 gives bf16");
	node(&n, "prod");
	operand(&n, 0, KJ_I8, 1, 3);
	infer(&n);
	is_int(n.out.dtype, KJ_I64, "prod of i8 gives i64");
	node(&n, "max");
	operand(&n, 0, KJ_I32, 1, 3);
	infer(&n);
	is_int(n.out.dtype, KJ_I32, "max of i32 gives i32");
	node(&n, "logsumexp");
	operand(&n, 0, KJ_I32, 1, 3);
	infer(&n);
	is_int(n.out.dtype, KJ_F32, "logsumexp of i32 gives f32");

	/* errors */
	node(&n, "mean");
	operand(&n, 0, KJ_I32, 2, 2, 3);
	ok(infer(&n) == -1, "mean of i32 fails");
	is_str(msg, "mean: input of dtype i32 is not floating point", "mean on int message");
	node(&n, "var");
	operand(&n, 0, KJ_I64, 1, 3);
	ok(infer(&n) == -1, "var of i64 fails");
	red_node(&n, "sum", 1, 3, 0);
	ok(infer(&n) == -1, "sum dim=3 on rank 2 fails");
	is_str(msg, "sum: dim 3 out of range for rank 2", "out-of-range dim message");
	red_node(&n, "argmax", 1, -3, 0);
	infer(&n);
	is_str(msg, "argmax: dim -3 out of range for rank 2", "out-of-range negative dim message");
	node(&n, "max");
	operand(&n, 0, KJ_F32, 2, 2, 0);
	attr_i(&n, 0, 1);
	ok(infer(&n) == -1, "max over a zero-size dim fails");
}

static void test_along(void)
{
	kj_bnode n;
	double out[8];

	red_node(&n, "softmax", 1, 1, 0);
	run2(&n, X23, NULL, out);
	ok_near(out,
		 (const double[]){0.01714782554552039, 0.9362395518765058, 0.04661262257797389,
				  0.11894323591065208, 0.0021785213571970234, 0.8788782427321509},
		 6, TOL, "softmax dim=1");
	ok(n.out.shape.rank == 2 && n.out.dtype == KJ_F32, "softmax keeps shape and dtype");
	red_node(&n, "softmax", 1, -2, 0);
	run2(&n, X23, NULL, out);
	ok_near(out,
		 (const double[]){0.04742587317756678, 0.9933071490757152, 0.01798620996209156,
				  0.9525741268224331, 0.0066928509242848554, 0.9820137900379085},
		 6, TOL, "softmax dim=-2");
	{
		const double big[2] = {1000, 999};

		node(&n, "softmax");
		operand(&n, 0, KJ_F32, 1, 2);
		attr_i(&n, 0, -1);
		run2(&n, big, NULL, out);
		ok_near(out, (const double[]){0.7310585786300049, 0.2689414213699951}, 2, TOL,
			 "softmax [1000, 999] subtracts the max");
		node(&n, "log_softmax");
		operand(&n, 0, KJ_F32, 1, 2);
		attr_i(&n, 0, 0);
		run2(&n, big, NULL, out);
		ok_near(out, (const double[]){-0.31326168751822286, -1.3132616875182228}, 2, TOL,
			 "log_softmax [1000, 999]");
	}
	red_node(&n, "log_softmax", 1, -1, 0);
	run2(&n, X23, NULL, out);
	ok_near(out,
		 (const double[]){-4.065883903757429, -0.06588390375742925, -3.0658839037574293,
				  -2.129108908829851, -6.129108908829851, -0.12910890882985093},
		 6, TOL, "log_softmax dim=-1");
	red_node(&n, "cumsum", 1, 1, 0);
	run2(&n, X23, NULL, out);
	ok_near(out, (const double[]){1, 6, 8, 4, 4, 10}, 6, 0, "cumsum dim=1");
	red_node(&n, "cumsum", 1, 0, 0);
	run2(&n, X23, NULL, out);
	ok_near(out, (const double[]){1, 5, 2, 5, 5, 8}, 6, 0, "cumsum dim=0");
	operand(&n, 0, KJ_I32, 2, 2, 3);
	infer(&n);
	is_int(n.out.dtype, KJ_I64, "cumsum of i32 gives i64");

	node(&n, "softmax");
	operand(&n, 0, KJ_F32, 2, 2, 3);
	ok(infer(&n) == -1, "softmax without dim fails");
	like(msg, "softmax: ", "softmax message names the op");
	attr_i(&n, 0, 2);
	infer(&n);
	is_str(msg, "softmax: dim 2 out of range for rank 2", "softmax dim out of range");
	operand(&n, 0, KJ_I64, 2, 2, 3);
	attr_i(&n, 0, 1);
	ok(infer(&n) == -1, "softmax of i64 fails");
}

/* cpu32 against cpu64 on the same node and data: every element within
 * tol relative (tap.h's near()). */
static void agree(kj_bnode *n, const double *a, const double *b, double tol, const char *what)
{
	const double *in[KJ_MAX_OPERANDS] = {a, b};
	int64_t cnt[2];
	double worst;

	if (infer(n)) {
		ok(0, "%s: %s", what, msg);
		return;
	}
	cnt[0] = kjo_numel(&n->in[0].shape);
	cnt[1] = n->nin > 1 ? kjo_numel(&n->in[1].shape) : 0;
	worst = kjt_worst(n, in, 2, cnt);
	if (!ok(worst <= tol, "%s", what))
		printf("#   worst |f32 - f64| / (1 + |f64|) = %.3g: %s\n", worst, msg);
}

static void test_cpu32(void)
{
	kj_bnode n;
	double x[24], y[24];

	for (int i = 0; i < 24; i++) {
		x[i] = sin(i * 1.3) * 3;
		y[i] = cos(i * 0.7) * 2;
	}
	node(&n, "gelu");
	operand(&n, 0, KJ_F32, 1, 24);
	agree(&n, x, NULL, 1e-6, "cpu32 gelu agrees with cpu64");
	attr_s(&n, 0, "tanh");
	agree(&n, x, NULL, 1e-6, "cpu32 gelu tanh agrees with cpu64");
	node(&n, "selu");
	operand(&n, 0, KJ_F32, 1, 24);
	agree(&n, x, NULL, 1e-6, "cpu32 selu agrees with cpu64");
	node(&n, "div");
	operand(&n, 0, KJ_F32, 2, 4, 6);
	operand(&n, 1, KJ_F32, 1, 6);
	agree(&n, x, y, 1e-6, "cpu32 div [4,6]/[6] agrees with cpu64");
	node(&n, "softmax");
	operand(&n, 0, KJ_F32, 3, 2, 3, 4);
	attr_i(&n, 0, 1);
	agree(&n, x, NULL, 1e-6, "cpu32 softmax over a middle dim agrees with cpu64");
	node(&n, "var");
	operand(&n, 0, KJ_F32, 2, 4, 6);
	attr_i(&n, 0, -1);
	agree(&n, x, NULL, 1e-5, "cpu32 var agrees with cpu64");
	node(&n, "logsumexp");
	operand(&n, 0, KJ_F32, 2, 4, 6);
	agree(&n, x, NULL, 1e-6, "cpu32 logsumexp dim=None agrees with cpu64");
	node(&n, "cumsum");
	operand(&n, 0, KJ_F32, 2, 4, 6);
	attr_i(&n, 0, 0);
	agree(&n, x, NULL, 1e-5, "cpu32 cumsum agrees with cpu64");
}

static void test_cost(void)
{
	kj_bnode n;
	kj_cost c;

	node(&n, "add");
	operand(&n, 0, KJ_F32, 2, 3, 1);
	operand(&n, 1, KJ_F32, 2, 1, 4);
	infer(&n);
	n.op->cost(&n, &c);
	ok(c.flops == 12 && c.min_bytes == (3 + 4 + 12) * 4, "add [3,1]+[1,4]: 12 flops, 76 bytes");
	node(&n, "mul");
	operand(&n, 0, KJ_F32, 2, 2, 3);
	literal(&n, 1, KJ_F32);
	infer(&n);
	n.op->cost(&n, &c);
	ok(c.flops == 6 && c.min_bytes == 48, "mul by a literal: the literal moves no bytes");
	node(&n, "gelu");
	operand(&n, 0, KJ_F16, 1, 10);
	infer(&n);
	n.op->cost(&n, &c);
	ok(c.flops == 10 && c.min_bytes == 40, "gelu f16[10]: 10 flops, 40 bytes");
	red_node(&n, "sum", 1, 1, 0);
	infer(&n);
	n.op->cost(&n, &c);
	ok(c.flops == 6 && c.min_bytes == 32, "sum f32[2,3] dim=1: 6 flops, 32 bytes");
	node(&n, "argmax");
	operand(&n, 0, KJ_F32, 2, 2, 3);
	attr_i(&n, 0, 1);
	infer(&n);
	n.op->cost(&n, &c);
	ok(c.flops == 6 && c.min_bytes == 24 + 16, "argmax writes i64 indices");
	red_node(&n, "std", 0, 0, 0);
	infer(&n);
	n.op->cost(&n, &c);
	ok(c.flops == 18 && c.min_bytes == 28, "std: 3 flops per input element");
	red_node(&n, "softmax", 1, 1, 0);
	infer(&n);
	n.op->cost(&n, &c);
	ok(c.flops == 30 && c.min_bytes == 48, "softmax: 5 flops per element");
}

int main(void)
{
	test_table();
	test_unary();
	test_binary();
	test_bitwise();
	test_round();
	test_promote();
	test_reduce();
	test_along();
	test_cpu32();
	test_cost();
	return done_testing();
}
