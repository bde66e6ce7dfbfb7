/*
 * The second op table (src/ops/table_b.c): shape rules, messages, cost rules
 * and the fp64 oracle against values worked out by hand (or with python3's
 * math module), plus f32-baseline agreement on a matmul.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kjudge/dtype.h"
#include "ops/table_b.h"
#include "ops_testlib.h"

static const kj_op *find_b(const char *name)
{
	return kjt_find(kj_ops_b, kj_ops_b_count, name);
}

/* A node of op `name` with every tensor param present. */
static void node(kj_bnode *n, const char *name)
{
	kjt_node(n, find_b(name), KJ_MAX_OPERANDS);
}

static void test_table(void)
{
	const char *names[] = { "matmul", "bmm", "linear", "transpose", "permute", "reshape",
				"layer_norm", "rms_norm", "mse_loss", "cross_entropy", "cast",
				"copy" };
	int complete = 1;
	const kj_op *ln;
	is_int(kj_ops_b_count, 12, "table B has 12 ops");
	for (int i = 0; i < 12; i++) {
		const kj_op *op = find_b(names[i]);
		complete &= op && op->doc && op->infer && op->cost && op->cpu64 && op->cpu32 &&
			    op->params && op->nparams > 0;
	}
	ok(complete, "every op has doc, params, infer, cost and both kernels");
	ln = find_b("layer_norm");
	ok(ln->nparams == 5 && !strcmp(ln->params[0].name, "input") &&
		   !strcmp(ln->params[1].name, "normalized_shape") &&
		   !strcmp(ln->params[2].name, "weight") && !strcmp(ln->params[3].name, "bias") &&
		   !strcmp(ln->params[4].name, "eps") && ln->params[4].def.f == 1e-5,
	   "layer_norm params in PyTorch order, eps default 1e-5");
	is_str(find_b("copy")->doc, "internal", "copy is internal");
	is_str(find_b("mse_loss")->params[2].def.s, "mean", "reduction defaults to mean");
}

static void test_matmul(void)
{
	kj_bnode n;
	kj_cost c;
	double a[6] = { 1, 2, 3, 4, 5, 6 }, b[6] = { 7, 8, 9, 10, 11, 12 }, y[64];
	const double *in[2] = { a, b };

	node(&n, "matmul");
	tin(&n, 0, KJ_F32, 2, (int64_t[]){ 2, 3 });
	tin(&n, 1, KJ_F32, 2, (int64_t[]){ 3, 2 });
	ok(run64(&n, in, y) == 0, "matmul 2x3 @ 3x2 runs");
	ok(shape_is(&n.out, 2, (int64_t[]){ 2, 2 }) && n.out.dtype == KJ_F32, "matmul -> f32 [2, 2]");
	ok(all_near(y, (double[]){ 58, 64, 139, 154 }, 4, 0), "matmul 2x3 @ 3x2 values");
	n.op->cost(&n, &c);
	is_near(c.flops, 24, 0, "matmul flops 2*M*N*K");
	is_near(c.min_bytes, (6 + 6 + 4) * 4, 0, "matmul bytes: inputs + output");

	node(&n, "matmul");
	tin(&n, 0, KJ_F32, 1, (int64_t[]){ 3 });
	tin(&n, 1, KJ_F32, 1, (int64_t[]){ 3 });
	in[1] = (double[]){ 4, 5, 6 };
	ok(run64(&n, in, y) == 0 && n.out.shape.rank == 0, "1-D @ 1-D gives a 0-D result");
	is_near(y[0], 32, 0, "dot product 1*4 + 2*5 + 3*6");

	node(&n, "matmul");
	tin(&n, 0, KJ_F32, 1, (int64_t[]){ 3 });
	tin(&n, 1, KJ_F32, 2, (int64_t[]){ 3, 2 });
	in[1] = b;
	ok(run64(&n, in, y) == 0 && shape_is(&n.out, 1, (int64_t[]){ 2 }),
	   "1-D @ 2-D: prepended dim removed -> [2]");
	ok(all_near(y, (double[]){ 58, 64 }, 2, 0), "1-D @ 2-D values");

	node(&n, "matmul");
	tin(&n, 0, KJ_F32, 2, (int64_t[]){ 2, 3 });
	tin(&n, 1, KJ_F32, 1, (int64_t[]){ 3 });
	in[1] = (double[]){ 1, 1, 1 };
	ok(run64(&n, in, y) == 0 && shape_is(&n.out, 1, (int64_t[]){ 2 }),
	   "2-D @ 1-D: appended dim removed -> [2]");
	ok(all_near(y, (double[]){ 6, 15 }, 2, 0), "2-D @ 1-D values (row sums)");

	/* [3, 1] @ [1, 2]: an outer product through K = 1 */
	node(&n, "matmul");
	tin(&n, 0, KJ_F32, 2, (int64_t[]){ 3, 1 });
	tin(&n, 1, KJ_F32, 2, (int64_t[]){ 1, 2 });
	in[0] = (double[]){ 1, 2, 3 };
	in[1] = (double[]){ 4, 5 };
	ok(run64(&n, in, y) == 0 && shape_is(&n.out, 2, (int64_t[]){ 3, 2 }), "K=1 -> [3, 2]");
	ok(all_near(y, (double[]){ 4, 5, 8, 10, 12, 15 }, 6, 0), "K=1 outer product values");

	/* K = 0: an empty sum is zero */
	node(&n, "matmul");
	tin(&n, 0, KJ_F32, 2, (int64_t[]){ 2, 0 });
	tin(&n, 1, KJ_F32, 2, (int64_t[]){ 0, 2 });
	for (int i = 0; i < 4; i++)
		y[i] = NAN;
	ok(run64(&n, in, y) == 0 && all_near(y, (double[]){ 0, 0, 0, 0 }, 4, 0),
	   "K=0 gives zeros");
}

static void test_matmul_batched(void)
{
	kj_bnode n;
	kj_cost c;
	/* a[0] = identity, a[1] = row swap; b[j] = [[1+4j, 2+4j], [3+4j, 4+4j]] */
	double a[8] = { 1, 0, 0, 1, 0, 1, 1, 0 }, b[12], y[24], want[24];
	const double *in[2] = { a, b };
	int w = 0;
	for (int i = 0; i < 12; i++)
		b[i] = i + 1;
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 3; j++) {
			double r0[2] = { 1 + 4 * j, 2 + 4 * j }, r1[2] = { 3 + 4 * j, 4 + 4 * j };
			const double *first = i ? r1 : r0, *second = i ? r0 : r1;
			want[w++] = first[0];
			want[w++] = first[1];
			want[w++] = second[0];
			want[w++] = second[1];
		}
	node(&n, "matmul");
	tin(&n, 0, KJ_F32, 4, (int64_t[]){ 2, 1, 2, 2 });
	tin(&n, 1, KJ_F32, 3, (int64_t[]){ 3, 2, 2 });
	ok(run64(&n, in, y) == 0 && shape_is(&n.out, 4, (int64_t[]){ 2, 3, 2, 2 }),
	   "[2,1,2,2] @ [3,2,2] -> [2,3,2,2]");
	ok(all_near(y, want, 24, 0), "broadcast batch values");
	n.op->cost(&n, &c);
	is_near(c.flops, 2.0 * 2 * 2 * 2 * 6, 0, "batched flops 2*M*N*K*batch");

	node(&n, "matmul");
	tin(&n, 0, KJ_F32, 3, (int64_t[]){ 2, 2, 2 });
	tin(&n, 1, KJ_F32, 3, (int64_t[]){ 3, 2, 2 });
	ok(infer(&n) == -1, "batch dims 2 and 3 rejected");
	like(got(), "matmul: batch dims 2 and 3 do not broadcast", "batch broadcast message");
}

static void test_matmul_errors(void)
{
	kj_bnode n;
	node(&n, "matmul");
	tin(&n, 0, KJ_F32, 2, (int64_t[]){ 16, 64 });
	tin(&n, 1, KJ_F32, 2, (int64_t[]){ 32, 8 });
	n.in[0].label[0] = "M";
	n.in[0].label[1] = "K";
	ok(infer(&n) == -1, "inner dim mismatch rejected");
	is_str(got(), "matmul: inner dims K=64 and 32 differ", "inner dims message names K=64");

	node(&n, "matmul");
	tin(&n, 0, KJ_F32, 2, (int64_t[]){ 4, 8 });
	tin(&n, 1, KJ_F16, 2, (int64_t[]){ 8, 4 });
	ok(infer(&n) == -1, "mixed dtypes rejected");
	is_str(got(), "matmul: operands have different dtypes f32 and f16", "mixed dtype message");

	node(&n, "matmul");
	tin(&n, 0, KJ_F16, 2, (int64_t[]){ 4, 8 });
	tin(&n, 1, KJ_F16, 2, (int64_t[]){ 8, 5 });
	n.in[0].label[0] = "M";
	n.in[1].label[1] = "N";
	ok(infer(&n) == 0 && n.out.dtype == KJ_F16 && n.out.label[0] &&
		   !strcmp(n.out.label[0], "M") && n.out.label[1] && !strcmp(n.out.label[1], "N"),
	   "result keeps dtype f16 and labels M, N");

	node(&n, "matmul");
	tin(&n, 0, KJ_F32, 0, NULL);
	tin(&n, 1, KJ_F32, 1, (int64_t[]){ 3 });
	ok(infer(&n) == -1, "0-D operand rejected");
}

/* i8 @ i8 gives i32 with an exact integer sum, in both kernels (the f32
 * baseline too: its sum runs in int64). */
static void test_matmul_int(void)
{
	kj_bnode n;
	enum { M = 3, K = 1030, N = 2 };
	static double a[M * K], b[K * N], bt[N * K], y[M * N], want[M * N];
	static float a32[M * K], b32[K * N], bt32[N * K], y32[M * N];
	int exact = 1, exact32 = 1;

	for (int i = 0; i < M * K; i++)
		a[i] = (i % 3 == 0) ? -128 : 127 - i % 200;
	for (int i = 0; i < K * N; i++)
		b[i] = (i % 5 == 0) ? -128 : (i * 7) % 255 - 127;
	for (int k = 0; k < K; k++)
		for (int j = 0; j < N; j++)
			bt[j * K + k] = b[k * N + j];
	for (int i = 0; i < M; i++)
		for (int j = 0; j < N; j++) {
			int64_t acc = 0;
			for (int k = 0; k < K; k++)
				acc += (int64_t)a[i * K + k] * (int64_t)b[k * N + j];
			want[i * N + j] = (double)acc;
		}
	for (int i = 0; i < M * K; i++)
		a32[i] = (float)a[i];
	for (int i = 0; i < K * N; i++) {
		b32[i] = (float)b[i];
		bt32[i] = (float)bt[i];
	}

	node(&n, "matmul");
	tin(&n, 0, KJ_I8, 2, (int64_t[]){ M, K });
	tin(&n, 1, KJ_I8, 2, (int64_t[]){ K, N });
	ok(run64(&n, (const double *const[]){ a, b }, y) == 0 && n.out.dtype == KJ_I32 &&
		   shape_is(&n.out, 2, (int64_t[]){ M, N }),
	   "matmul i8 [3, 1030] @ i8 [1030, 2] -> i32 [3, 2]");
	ok(n.op->cpu32(&n, (const float *const[]){ a32, b32 }, y32, msg, KJT_MSGLEN) == 0,
	   "f32 baseline runs the i8 matmul");
	for (int i = 0; i < M * N; i++) {
		exact &= y[i] == want[i];
		exact32 &= (double)y32[i] == want[i];
	}
	ok(exact, "oracle: exact int sums (e.g. %.0f)", y[0]);
	ok(exact32, "f32 baseline: exact int sums");

	node(&n, "bmm");
	tin(&n, 0, KJ_I8, 3, (int64_t[]){ 1, M, K });
	tin(&n, 1, KJ_I8, 3, (int64_t[]){ 1, K, N });
	ok(infer(&n) == 0 && n.out.dtype == KJ_I32, "bmm i8 gives i32");

	node(&n, "linear");
	n.present[2] = 0;
	tin(&n, 0, KJ_I8, 2, (int64_t[]){ M, K });
	tin(&n, 1, KJ_I8, 2, (int64_t[]){ N, K });
	ok(run64(&n, (const double *const[]){ a, bt, NULL }, y) == 0 && n.out.dtype == KJ_I32,
	   "linear i8 x i8 weight [N, K] gives i32");
	exact = 1;
	for (int i = 0; i < M * N; i++)
		exact &= y[i] == want[i];
	ok(exact, "linear i8: the same exact sums as matmul with the transposed weight");
	ok(n.op->cpu32(&n, (const float *const[]){ a32, bt32, NULL }, y32, msg, KJT_MSGLEN) == 0,
	   "linear i8 f32 baseline runs");
	exact32 = 1;
	for (int i = 0; i < M * N; i++)
		exact32 &= (double)y32[i] == want[i];
	ok(exact32, "linear i8 f32 baseline exact");

	node(&n, "linear");
	tin(&n, 0, KJ_I8, 2, (int64_t[]){ M, K });
	tin(&n, 1, KJ_I8, 2, (int64_t[]){ N, K });
	tin(&n, 2, KJ_I8, 1, (int64_t[]){ N });
	ok(infer(&n) == -1, "linear i8 with a bias rejected");
	is_str(got(),
	       "linear: a bias is not supported with i8 operands (add it to the i32 result, or "
	       "after a cast)",
	       "linear i8 bias message");

	node(&n, "matmul");
	tin(&n, 0, KJ_I32, 2, (int64_t[]){ 2, 3 });
	tin(&n, 1, KJ_I32, 2, (int64_t[]){ 3, 2 });
	ok(infer(&n) == -1, "matmul i32 @ i32 rejected");
	is_str(got(),
	       "matmul: operand dtype i32 is not supported (floating operands, or two i8 operands "
	       "giving i32)",
	       "matmul i32 message");
	node(&n, "matmul");
	tin(&n, 0, KJ_I8, 2, (int64_t[]){ 2, 3 });
	tin(&n, 1, KJ_F16, 2, (int64_t[]){ 3, 2 });
	ok(infer(&n) == -1, "matmul i8 @ f16 rejected");
	is_str(got(), "matmul: operands have different dtypes i8 and f16", "mixed i8/f16 message");
}

static void test_bmm(void)
{
	kj_bnode n;
	double a[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, b[4] = { 1, 1, 1, -1 }, y[4];
	const double *in[2] = { a, b };
	node(&n, "bmm");
	tin(&n, 0, KJ_F32, 3, (int64_t[]){ 2, 2, 2 });
	tin(&n, 1, KJ_F32, 3, (int64_t[]){ 2, 2, 1 });
	ok(run64(&n, in, y) == 0 && shape_is(&n.out, 3, (int64_t[]){ 2, 2, 1 }),
	   "bmm [2,2,2] @ [2,2,1] -> [2,2,1]");
	ok(all_near(y, (double[]){ 3, 7, -1, -1 }, 4, 0), "bmm values");

	node(&n, "bmm");
	tin(&n, 0, KJ_F32, 2, (int64_t[]){ 2, 2 });
	tin(&n, 1, KJ_F32, 3, (int64_t[]){ 2, 2, 1 });
	ok(infer(&n) == -1, "bmm rejects a 2-D operand");
	is_str(got(), "bmm: expected 3-D operands, got 2-D and 3-D", "bmm rank message");

	node(&n, "bmm");
	tin(&n, 0, KJ_F32, 3, (int64_t[]){ 2, 2, 2 });
	tin(&n, 1, KJ_F32, 3, (int64_t[]){ 3, 2, 1 });
	n.in[0].label[0] = "B";
	ok(infer(&n) == -1, "bmm does not broadcast batch");
	is_str(got(), "bmm: batch dims B=2 and 3 differ", "bmm batch message");
}

static void test_linear(void)
{
	kj_bnode n;
	kj_cost c;
	double x[6] = { 1, 2, 3, 4, 5, 6 }, w[6] = { 1, 0, -1, 0.5, 0.5, 0.5 }, bias[2] = { 10, 20 };
	double y[4];
	const double *in[3] = { x, w, NULL };

	node(&n, "linear");
	n.present[2] = 0;
	tin(&n, 0, KJ_F32, 2, (int64_t[]){ 2, 3 });
	tin(&n, 1, KJ_F32, 2, (int64_t[]){ 2, 3 });
	ok(run64(&n, in, y) == 0 && shape_is(&n.out, 2, (int64_t[]){ 2, 2 }),
	   "linear without bias -> [2, 2]");
	ok(all_near(y, (double[]){ -2, 3, -2, 7.5 }, 4, 0), "linear x @ w^T values");
	n.op->cost(&n, &c);
	is_near(c.flops, 24, 0, "linear flops without bias 2*M*N*K");
	is_near(c.min_bytes, (6 + 6 + 4) * 4, 0, "linear bytes without bias");

	node(&n, "linear");
	tin(&n, 0, KJ_F32, 3, (int64_t[]){ 1, 2, 3 });
	tin(&n, 1, KJ_F32, 2, (int64_t[]){ 2, 3 });
	tin(&n, 2, KJ_F32, 1, (int64_t[]){ 2 });
	in[2] = bias;
	ok(run64(&n, in, y) == 0 && shape_is(&n.out, 3, (int64_t[]){ 1, 2, 2 }),
	   "linear with bias on [1, 2, 3] -> [1, 2, 2]");
	ok(all_near(y, (double[]){ 8, 23, 8, 27.5 }, 4, 0), "linear + bias values");
	n.op->cost(&n, &c);
	is_near(c.flops, 28, 0, "linear flops with bias add M*N");
	is_near(c.min_bytes, (6 + 6 + 2 + 4) * 4, 0, "linear bytes count the bias");

	tin(&n, 2, KJ_F32, 1, (int64_t[]){ 3 });
	n.in[1].label[0] = "N";
	ok(infer(&n) == -1, "bias of the wrong size rejected");
	is_str(got(), "linear: bias has shape [3], expected [N=2]", "bias shape message");

	tin(&n, 1, KJ_F32, 2, (int64_t[]){ 2, 4 });
	ok(infer(&n) == -1, "linear in_features mismatch rejected");
	is_str(got(), "linear: inner dims 3 and 4 differ", "linear inner dims message");
}

static void test_layout(void)
{
	kj_bnode n;
	double x[24], y[24];
	const double *in[1] = { x };
	int good = 1;
	for (int i = 0; i < 24; i++)
		x[i] = i;

	node(&n, "transpose");
	tin(&n, 0, KJ_F32, 2, (int64_t[]){ 2, 3 });
	n.attr[0] = (kj_attr){ .kind = KJ_ATTR_INT, .i = -1 };
	n.attr[1] = (kj_attr){ .kind = KJ_ATTR_INT, .i = -2 };
	ok(run64(&n, in, y) == 0 && shape_is(&n.out, 2, (int64_t[]){ 3, 2 }),
	   "transpose(-1, -2) of [2, 3] -> [3, 2]");
	ok(all_near(y, (double[]){ 0, 3, 1, 4, 2, 5 }, 6, 0), "2-D transpose values");

	/* transpose(0, 2) of [2, 3, 4]: y[k][j][i] = x[i][j][k] */
	node(&n, "transpose");
	tin(&n, 0, KJ_F32, 3, (int64_t[]){ 2, 3, 4 });
	n.in[0].label[0] = "B";
	n.attr[0] = (kj_attr){ .kind = KJ_ATTR_INT, .i = 0 };
	n.attr[1] = (kj_attr){ .kind = KJ_ATTR_INT, .i = 2 };
	ok(run64(&n, in, y) == 0 && shape_is(&n.out, 3, (int64_t[]){ 4, 3, 2 }) &&
		   n.out.label[2] && !strcmp(n.out.label[2], "B"),
	   "transpose(0, 2) -> [4, 3, B=2]");
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 3; j++)
			for (int k = 0; k < 4; k++)
				good &= y[k * 6 + j * 2 + i] == x[i * 12 + j * 4 + k];
	ok(good, "3-D transpose values");

	n.attr[1].i = 3;
	ok(infer(&n) == -1, "transpose dim 3 of a 3-D input rejected");
	is_str(got(), "transpose: dim 3 out of range for rank 3", "transpose dim message");

	/* permute(dims=[2, 0, 1]) of [2, 3, 4]: y[k][i][j] = x[i][j][k] */
	node(&n, "permute");
	tin(&n, 0, KJ_F32, 3, (int64_t[]){ 2, 3, 4 });
	attr_ints(&n, 0, 3, (int64_t[]){ -1, 0, 1 });
	ok(run64(&n, in, y) == 0 && shape_is(&n.out, 3, (int64_t[]){ 4, 2, 3 }),
	   "permute([-1, 0, 1]) of [2, 3, 4] -> [4, 2, 3]");
	good = 1;
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 3; j++)
			for (int k = 0; k < 4; k++)
				good &= y[k * 6 + i * 3 + j] == x[i * 12 + j * 4 + k];
	ok(good, "permute values");
	attr_ints(&n, 0, 3, (int64_t[]){ 1, 1, 0 });
	ok(infer(&n) == -1, "permute with a repeated dim rejected");
	is_str(got(), "permute: dim 1 repeated in dims [1, 1, 0]", "permute repeat message");
	attr_ints(&n, 0, 2, (int64_t[]){ 1, 0 });
	ok(infer(&n) == -1, "permute with too few dims rejected");
	is_str(got(), "permute: dims [1, 0] has 2 entries for a 3-D input", "permute count message");

	node(&n, "reshape");
	tin(&n, 0, KJ_F32, 2, (int64_t[]){ 2, 3 });
	attr_ints(&n, 0, 2, (int64_t[]){ 3, -1 });
	n.attr[0].label[0] = "R";
	ok(run64(&n, in, y) == 0 && shape_is(&n.out, 2, (int64_t[]){ 3, 2 }) &&
		   n.out.label[0] && !strcmp(n.out.label[0], "R") && !n.out.label[1],
	   "reshape [2, 3] to [R=3, -1] -> [R=3, 2]");
	ok(all_near(y, x, 6, 0), "reshape keeps row-major order");

	tin(&n, 0, KJ_F32, 2, (int64_t[]){ 5, 6 });
	attr_ints(&n, 0, 2, (int64_t[]){ 4, 7 });
	n.attr[0].label[0] = "B";
	ok(infer(&n) == -1, "reshape to a different size rejected");
	is_str(got(), "reshape: shape [B=4, 7] is invalid for input of size 30", "reshape size message");
	attr_ints(&n, 0, 2, (int64_t[]){ 4, -1 });
	n.attr[0].label[0] = NULL;
	ok(infer(&n) == -1, "reshape [4, -1] of 30 elements rejected");
	is_str(got(), "reshape: shape [4, -1] is invalid for input of size 30", "reshape -1 message");
	attr_ints(&n, 0, 2, (int64_t[]){ -1, -1 });
	ok(infer(&n) == -1, "two -1 dims rejected");
	like(got(), "only one dim can be -1", "two -1 message");
	attr_ints(&n, 0, 3, (int64_t[]){ -1, 2, 5 });
	ok(infer(&n) == 0 && shape_is(&n.out, 3, (int64_t[]){ 3, 2, 5 }), "-1 first infers 3");

	node(&n, "copy");
	tin(&n, 0, KJ_BF16, 2, (int64_t[]){ 2, 3 });
	ok(run64(&n, in, y) == 0 && n.out.dtype == KJ_BF16 && all_near(y, x, 6, 0),
	   "copy is the identity");
}

static void test_cast(void)
{
	kj_bnode n;
	/* 1 + 2^-11 and 1 + 3 * 2^-11 lie halfway between f16 neighbours;
	 * 1 + 2^-10 is an f16; 65520 is halfway between 65504 and 2^16 (Inf) */
	double xf16[4] = { 1.00048828125, 1.00146484375, 1.0009765625, 65520 };
	double xbf16[2] = { 1.00390625, 1.01171875 };
	double xf32[2] = { 1 + ldexp(1, -24), 1 + 3 * ldexp(1, -24) };
	double xi[5] = { 2.7, -2.7, 3e9, NAN, -1e300 };
	double y[5];
	const double *in[1] = { xf16 };

	node(&n, "cast");
	tin(&n, 0, KJ_F32, 1, (int64_t[]){ 4 });
	n.attr[0] = (kj_attr){ .kind = KJ_ATTR_DTYPE, .dt = KJ_F16 };
	ok(run64(&n, in, y) == 0 && n.out.dtype == KJ_F16, "cast to f16 -> dtype f16");
	ok(all_near(y, (double[]){ 1.0, 1.001953125, 1.0009765625, INFINITY }, 4, 0),
	   "f16 rounds halfway cases to even, overflows to Inf");

	n.attr[0].dt = KJ_BF16;
	in[0] = xbf16;
	tin(&n, 0, KJ_F32, 1, (int64_t[]){ 2 });
	ok(run64(&n, in, y) == 0 && all_near(y, (double[]){ 1.0, 1.015625 }, 2, 0),
	   "bf16 rounds halfway cases to even");

	n.attr[0].dt = KJ_F32;
	in[0] = xf32;
	tin(&n, 0, KJ_F32, 1, (int64_t[]){ 2 });
	ok(run64(&n, in, y) == 0 && all_near(y, (double[]){ 1.0, 1 + ldexp(1, -22) }, 2, 0),
	   "the oracle's cast to f32 rounds to f32");

	n.attr[0].dt = KJ_I32;
	in[0] = xi;
	tin(&n, 0, KJ_F32, 1, (int64_t[]){ 5 });
	ok(run64(&n, in, y) == 0 && n.out.dtype == KJ_I32 &&
		   all_near(y, (double[]){ 2, -2, 2147483647.0, 0, -2147483648.0 }, 5, 0),
	   "float -> i32 truncates toward zero, saturates, NaN -> 0");

	n.attr[0].dt = KJ_BOOL;
	in[0] = (double[]){ 0.5, 0, -3 };
	tin(&n, 0, KJ_F32, 1, (int64_t[]){ 3 });
	ok(run64(&n, in, y) == 0 && all_near(y, (double[]){ 1, 0, 1 }, 3, 0), "bool is x != 0");
}

static void test_layer_norm(void)
{
	kj_bnode n;
	kj_cost c;
	double x[8] = { 1, 2, 3, 4, 2, 2, 2, 2 }, w[4] = { 1, 2, 3, 4 }, b[4] = { 0.5, -0.5, 0.25, 0 };
	double y[8];
	const double *in[3] = { x, NULL, NULL };

	node(&n, "layer_norm");
	n.present[1] = n.present[2] = 0;
	tin(&n, 0, KJ_F32, 2, (int64_t[]){ 2, 4 });
	attr_ints(&n, 0, 1, (int64_t[]){ 4 });
	ok(run64(&n, in, y) == 0 && shape_is(&n.out, 2, (int64_t[]){ 2, 4 }),
	   "layer_norm over the last dim -> [2, 4]");
	/* mean 2.5, biased var 1.25, eps 1e-5 by default */
	ok(all_near(y,
		    (double[]){ -1.3416354199689269, -0.447211806656309, 0.447211806656309,
				1.3416354199689269, 0, 0, 0, 0 },
		    8, 1e-15),
	   "layer_norm values with the default eps");
	n.attr[1] = (kj_attr){ .kind = KJ_ATTR_FLOAT, .f = 0 };
	ok(run64(&n, in, y) == 0 &&
		   all_near(y, (double[]){ -1.3416407864998738, -0.4472135954999579 }, 2, 1e-15),
	   "layer_norm with eps=0: (x - 2.5) / sqrt(1.25)");
	n.op->cost(&n, &c);
	is_near(c.flops, 64, 0, "layer_norm flops 8 per element");

	node(&n, "layer_norm");
	tin(&n, 0, KJ_F32, 2, (int64_t[]){ 2, 4 });
	tin(&n, 1, KJ_F32, 1, (int64_t[]){ 4 });
	tin(&n, 2, KJ_F32, 1, (int64_t[]){ 4 });
	attr_ints(&n, 0, 1, (int64_t[]){ 4 });
	in[1] = w;
	in[2] = b;
	ok(run64(&n, in, y) == 0 &&
		   all_near(y,
			    (double[]){ -0.8416354199689269, -1.394423613312618, 1.5916354199689269,
					5.3665416798757075, 0.5, -0.5, 0.25, 0 },
			    8, 1e-15),
	   "layer_norm with weight and bias");
	n.op->cost(&n, &c);
	is_near(c.min_bytes, (8 + 4 + 4 + 8) * 4, 0, "layer_norm bytes count weight and bias");

	/* the whole [2, 4] as one group: mean 2.25 */
	attr_ints(&n, 0, 2, (int64_t[]){ 2, 4 });
	n.present[1] = n.present[2] = 0;
	n.attr[1] = (kj_attr){ .kind = KJ_ATTR_FLOAT, .f = 0 };
	ok(run64(&n, in, y) == 0, "normalized_shape [2, 4] covers the whole input");
	/* var = (1.5625 + .0625 + .5625 + 3.0625 + 4 * .0625) / 8 = 0.6875 */
	is_near(y[0], (1 - 2.25) / sqrt(0.6875), 1e-15, "two-dim normalized_shape value");

	attr_ints(&n, 0, 1, (int64_t[]){ 3 });
	n.in[0].label[0] = "B";
	ok(infer(&n) == -1, "normalized_shape not matching the trailing dims rejected");
	is_str(got(), "layer_norm: normalized_shape [3] does not match the trailing dims of input [B=2, 4]",
	       "layer_norm shape message");
	attr_ints(&n, 0, 1, (int64_t[]){ 4 });
	n.present[1] = 1;
	tin(&n, 1, KJ_F16, 1, (int64_t[]){ 4 });
	ok(infer(&n) == -1, "weight of another dtype rejected");
	is_str(got(), "layer_norm: weight dtype f16 differs from input dtype f32",
	       "layer_norm weight dtype message");
}

static void test_rms_norm(void)
{
	kj_bnode n;
	kj_cost c;
	double x[2] = { 3, 4 }, w[2] = { 2, 0.5 }, y[2];
	const double *in[2] = { x, NULL };
	struct {
		kj_dtype dt;
		double y0, y1;
	} cases[3] = {
		{ KJ_F32, 0.8485281333777596, 1.1313708445036794 },
		{ KJ_F16, 0.8484949937354892, 1.1313266583139856 },
		{ KJ_BF16, 0.8482630966123238, 1.131017462149765 },
	};

	for (int i = 0; i < 3; i++) {
		node(&n, "rms_norm");
		n.present[1] = 0;
		tin(&n, 0, cases[i].dt, 2, (int64_t[]){ 1, 2 });
		attr_ints(&n, 0, 1, (int64_t[]){ 2 });
		ok(run64(&n, in, y) == 0 &&
			   all_near(y, (double[]){ cases[i].y0, cases[i].y1 }, 2, 1e-15),
		   "rms_norm eps=None uses finfo(%s).eps", kj_dtype_name(cases[i].dt));
	}
	n.op->cost(&n, &c);
	is_near(c.flops, 8, 0, "rms_norm flops 4 per element");

	node(&n, "rms_norm");
	tin(&n, 0, KJ_F32, 2, (int64_t[]){ 1, 2 });
	tin(&n, 1, KJ_F32, 1, (int64_t[]){ 2 });
	attr_ints(&n, 0, 1, (int64_t[]){ 2 });
	n.attr[1] = (kj_attr){ .kind = KJ_ATTR_FLOAT, .f = 0 };
	in[1] = w;
	ok(run64(&n, in, y) == 0 &&
		   all_near(y, (double[]){ 1.697056274847714, 0.565685424949238 }, 2, 1e-15),
	   "rms_norm with weight, eps=0: x / sqrt(12.5) * w");
}

static void test_mse_loss(void)
{
	kj_bnode n;
	kj_cost c;
	double x[3] = { 1, 2, 3 }, t[3] = { 1.5, 2, 5 }, y[3];
	const double *in[2] = { x, t };

	node(&n, "mse_loss");
	tin(&n, 0, KJ_F32, 1, (int64_t[]){ 3 });
	tin(&n, 1, KJ_F32, 1, (int64_t[]){ 3 });
	ok(run64(&n, in, y) == 0 && n.out.shape.rank == 0, "mse_loss default reduction is 0-D");
	is_near(y[0], 4.25 / 3, 1e-15, "mse_loss mean (0.25 + 0 + 4) / 3");
	n.op->cost(&n, &c);
	is_near(c.flops, 9, 0, "mse_loss flops 3 per element");
	is_near(c.min_bytes, (3 + 3 + 1) * 4, 0, "mse_loss bytes with a 0-D result");
	attr_s(&n, 0, "sum");
	ok(run64(&n, in, y) == 0 && n.out.shape.rank == 0, "mse_loss sum is 0-D");
	is_near(y[0], 4.25, 0, "mse_loss sum");
	attr_s(&n, 0, "none");
	ok(run64(&n, in, y) == 0 && shape_is(&n.out, 1, (int64_t[]){ 3 }), "mse_loss none keeps [3]");
	ok(all_near(y, (double[]){ 0.25, 0, 4 }, 3, 0), "mse_loss none values");
	attr_s(&n, 0, "avg");
	ok(infer(&n) == -1, "unknown reduction rejected");
	is_str(got(), "mse_loss: reduction 'avg' is not one of mean, sum, none", "reduction message");
}

static void test_cross_entropy(void)
{
	kj_bnode n;
	kj_cost c;
	double x[20] = { 1, 2, 3, 1, 1, 1 }, t[4] = { 2, 0 }, y[4];
	const double *in[2] = { x, t };

	node(&n, "cross_entropy");
	tin(&n, 0, KJ_F16, 2, (int64_t[]){ 2, 3 });
	tin(&n, 1, KJ_I64, 1, (int64_t[]){ 2 });
	ok(run64(&n, in, y) == 0 && n.out.shape.rank == 0 && n.out.dtype == KJ_F16,
	   "cross_entropy mean: 0-D result of the input's dtype");
	/* row 0: log(e + e^2 + e^3) - 3; row 1: log 3 */
	is_near(y[0], 0.753109126556245, 1e-15, "cross_entropy mean");
	attr_s(&n, 0, "sum");
	ok(run64(&n, in, y) == 0, "cross_entropy sum runs");
	is_near(y[0], 1.50621825311249, 1e-15, "cross_entropy sum");
	attr_s(&n, 0, "none");
	ok(run64(&n, in, y) == 0 && shape_is(&n.out, 1, (int64_t[]){ 2 }),
	   "cross_entropy none -> [2]");
	ok(all_near(y, (double[]){ 0.40760596444438013, 1.0986122886681098 }, 2, 1e-15),
	   "cross_entropy per-row losses");
	n.op->cost(&n, &c);
	is_near(c.flops, 36, 0, "cross_entropy flops 6 per logit");
	is_near(c.min_bytes, 6 * 2 + 2 * 8 + 2 * 2, 0, "cross_entropy bytes (f16 logits, i64 target)");

	node(&n, "cross_entropy");
	tin(&n, 0, KJ_F32, 2, (int64_t[]){ 4, 5 });
	tin(&n, 1, KJ_I32, 1, (int64_t[]){ 4 });
	in[1] = (double[]){ 0, 1, 4, 7 };
	ok(run64(&n, in, y) == -1, "out-of-range target fails at run time");
	is_str(got(), "cross_entropy: target 7 out of range [0, 5) at index 3", "target range message");
	in[1] = (double[]){ -1, 0, 0, 0 };
	ok(run64(&n, in, y) == -1, "negative target fails");
	is_str(got(), "cross_entropy: target -1 out of range [0, 5) at index 0",
	       "negative target message");

	node(&n, "cross_entropy");
	tin(&n, 0, KJ_F32, 1, (int64_t[]){ 3 });
	tin(&n, 1, KJ_I64, 0, NULL);
	in[0] = (double[]){ 0.5, -1, 2 };
	in[1] = (double[]){ 1 };
	ok(run64(&n, in, y) == 0 && n.out.shape.rank == 0, "[C] input with a 0-D target");
	is_near(y[0], 3.241311296657157, 1e-15, "1-D cross_entropy value");

	tin(&n, 1, KJ_F32, 0, NULL);
	ok(infer(&n) == -1, "float target rejected");
	is_str(got(), "cross_entropy: target dtype f32 must be i64 or i32 (class indices)",
	       "target dtype message");
}

/* The f32 baseline against the oracle on a matmul with non-dyadic values. */
static void test_cpu32_agreement(void)
{
	enum { M = 17, K = 33, N = 9 };
	kj_bnode n;
	static double a64[M * K], b64[K * N], y64[M * N];
	static float a32[M * K], b32[K * N], y32[M * N];
	const double *in64[2] = { a64, b64 };
	const float *in32[2] = { a32, b32 };
	double worst = 0;
	for (int i = 0; i < M * K; i++)
		a64[i] = a32[i] = (float)sin(i + 1);
	for (int i = 0; i < K * N; i++)
		b64[i] = b32[i] = (float)cos(0.7 * i);
	node(&n, "matmul");
	tin(&n, 0, KJ_F32, 2, (int64_t[]){ M, K });
	tin(&n, 1, KJ_F32, 2, (int64_t[]){ K, N });
	ok(run64(&n, in64, y64) == 0 && n.op->cpu32(&n, in32, y32, msg, KJT_MSGLEN) == 0,
	   "matmul runs in both precisions");
	for (int i = 0; i < M * N; i++) {
		double e = fabs(y32[i] - y64[i]) / (1 + fabs(y64[i]));
		worst = e > worst ? e : worst;
	}
	ok(worst < 1e-5 && worst > 0, "cpu32 agrees with cpu64 within 1e-5 (worst %.3g)", worst);

	node(&n, "cross_entropy");
	tin(&n, 0, KJ_F32, 2, (int64_t[]){ 2, 3 });
	tin(&n, 1, KJ_I64, 1, (int64_t[]){ 2 });
	in32[0] = (float[]){ 1, 2, 3, 1, 1, 1 };
	in32[1] = (float[]){ 2, 0 };
	ok(infer(&n) == 0 && n.op->cpu32(&n, in32, y32, msg, KJT_MSGLEN) == 0,
	   "cross_entropy runs in f32");
	is_near(y32[0], 0.753109126556245, 1e-6, "f32 cross_entropy mean");
	in32[1] = (float[]){ 2, 3 };
	ok(n.op->cpu32(&n, in32, y32, msg, KJT_MSGLEN) == -1, "f32 kernel checks targets too");
	is_str(got(), "cross_entropy: target 3 out of range [0, 3) at index 1", "f32 target message");
}

int main(void)
{
	test_table();
	test_matmul();
	test_matmul_batched();
	test_matmul_errors();
	test_matmul_int();
	test_bmm();
	test_linear();
	test_layout();
	test_cast();
	test_layer_norm();
	test_rms_norm();
	test_mse_loss();
	test_cross_entropy();
	test_cpu32_agreement();
	return done_testing();
}
