/*
 * Table D (src/ops/table_d.c): shape rules and their messages, cost rules,
 * the fp64 oracle against values worked out by hand, and the f32 baseline
 * (same source in float) against the oracle on larger pseudo-random inputs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kjudge/dtype.h"
#include "ops/table_d.h"
#include "ops_testlib.h"

static const kj_op *find_d(const char *name)
{
	return kjt_find(kj_ops_d, kj_ops_d_count, name);
}

/* A node of op `name` with the first `ntensors` tensor params present. */
static void node(kj_bnode *n, const char *name, int ntensors)
{
	kjt_node(n, find_d(name), ntensors);
}

/* Deterministic values in [-1, 1). */
static double *noise(int64_t cnt, unsigned seed)
{
	double *v = malloc((size_t)cnt * sizeof *v);
	unsigned s = seed * 2654435761u + 1;
	for (int64_t i = 0; i < cnt; i++) {
		s = s * 1103515245u + 12345u;
		v[i] = (double)(s >> 8) / (double)(1u << 23) - 1.0;
	}
	return v;
}

static void test_table(void)
{
	int complete = 1;
	is_int(kj_ops_d_count, 23, "table D has 23 ops (22 kernels and the sdpa alias)");
	for (int i = 0; i < kj_ops_d_count; i++) {
		const kj_op *op = &kj_ops_d[i];
		complete &= op->doc && op->infer && op->cost && op->cpu64 && op->cpu32 && op->params &&
			    op->nparams > 0;
	}
	ok(complete, "every op has doc, params, infer, cost and both kernels");
	ok(find_d("scaled_dot_product_attention")->cpu64 == find_d("sdpa")->cpu64,
	   "scaled_dot_product_attention shares sdpa's kernels");
	is_str(find_d("scaled_dot_product_attention")->params[3].name, "is_causal",
	       "the PyTorch spelling takes is_causal");
}

static void test_sdpa(void)
{
	kj_bnode n;
	kj_cost c;
	/* L = S = 3, E = 1, Ev = 2 */
	double q[3] = {0, 1, 2}, k[3] = {1, 0, -1}, v[6] = {1, 2, 3, 4, 5, 6}, y[6];
	const double *in[3] = {q, k, v};
	double e1 = exp(1.0 / sqrt(1.0)), w0, w1, w2, s;

	node(&n, "sdpa", 3);
	tin(&n, 0, KJ_F32, 3, (int64_t[]){1, 3, 1});
	tin(&n, 1, KJ_F32, 3, (int64_t[]){1, 3, 1});
	tin(&n, 2, KJ_F32, 3, (int64_t[]){1, 3, 2});
	ok(run64(&n, in, y) == 0 && shape_is(&n.out, 3, (int64_t[]){1, 3, 2}), "sdpa [1,3,1] -> [1,3,2]");
	/* row 0: q = 0, every score 0: the mean of v */
	ok(all_near(y, (double[]){3, 4}, 2, 1e-15), "query 0 gives the mean of the values");
	/* row 1: scores 1, 0, -1 (scale 1/sqrt(1)) */
	w0 = e1, w1 = 1, w2 = 1 / e1, s = w0 + w1 + w2;
	ok(all_near(y + 2, (double[]){(w0 * 1 + w1 * 3 + w2 * 5) / s, (w0 * 2 + w1 * 4 + w2 * 6) / s}, 2,
		    1e-15),
	   "row 1 weights exp(1), 1, exp(-1)");

	attr_b(&n, 0, 1);
	ok(run64(&n, in, y) == 0, "causal sdpa runs");
	ok(all_near(y, (double[]){1, 2}, 2, 0), "causal: row 0 is v[0] exactly");
	s = e1 + 1;
	ok(all_near(y + 2, (double[]){(e1 * 1 + 3) / s, (e1 * 2 + 4) / s}, 2, 1e-15),
	   "causal: row 1 attends keys 0 and 1");
	n.op->cost(&n, &c);
	is_near(c.flops, 6 * (2 + 4 + 5), 0, "causal flops count the 6 attended pairs");
	attr_b(&n, 0, 0);
	attr_f(&n, 1, 0.0);
	ok(run64(&n, in, y) == 0 && all_near(y + 4, (double[]){3, 4}, 2, 1e-15),
	   "scale 0: every row is the mean");
	n.op->cost(&n, &c);
	is_near(c.flops, 9 * 11, 0, "non-causal flops: L*S pairs");
	is_near(c.min_bytes, (3 + 3 + 6 + 6) * 4, 0, "bytes: q, k, v and the output");

	node(&n, "sdpa", 3);
	tin(&n, 0, KJ_F32, 4, (int64_t[]){2, 4, 5, 8});
	tin(&n, 1, KJ_F32, 4, (int64_t[]){2, 4, 7, 16});
	tin(&n, 2, KJ_F32, 4, (int64_t[]){2, 4, 7, 8});
	ok(infer(&n) && strstr(got(), "head dims of query 8 and key 16 differ"), "head dim mismatch: %s",
	   got());
	tin(&n, 1, KJ_F32, 4, (int64_t[]){2, 4, 7, 8});
	tin(&n, 2, KJ_F16, 4, (int64_t[]){2, 4, 7, 8});
	ok(infer(&n) && strstr(got(), "dtypes f32, f32 and f16 differ"), "dtype mismatch: %s", got());
	tin(&n, 2, KJ_F32, 4, (int64_t[]){2, 4, 6, 8});
	ok(infer(&n) && strstr(got(), "key length 7 and value length 6 differ"), "length mismatch: %s",
	   got());
	tin(&n, 2, KJ_F32, 4, (int64_t[]){2, 3, 7, 8});
	ok(infer(&n) && strstr(got(), "batch dims"), "batch mismatch: %s", got());

	/* f32 against f64 on 2 x 3 heads, L=9, S=13, E=16, causal */
	{
		double *a = noise(2 * 3 * 9 * 16, 1), *b = noise(2 * 3 * 13 * 16, 2), *cc = noise(2 * 3 * 13 * 5, 3);
		const double *ins[3] = {a, b, cc};
		int64_t cnt[3] = {2 * 3 * 9 * 16, 2 * 3 * 13 * 16, 2 * 3 * 13 * 5};
		node(&n, "sdpa", 3);
		tin(&n, 0, KJ_F32, 4, (int64_t[]){2, 3, 9, 16});
		tin(&n, 1, KJ_F32, 4, (int64_t[]){2, 3, 13, 16});
		tin(&n, 2, KJ_F32, 4, (int64_t[]){2, 3, 13, 5});
		attr_b(&n, 0, 1);
		ok(kjt_worst(&n, ins, 3, cnt) < 1e-6, "sdpa f32 baseline within 1e-6 of the oracle");
		free(a);
		free(b);
		free(cc);
	}
}

static void test_embedding(void)
{
	kj_bnode n;
	kj_cost c;
	double idx[3] = {2, 0, 2}, w[6] = {1, 2, 3, 4, 5, 6}, y[6];
	const double *in[2] = {idx, w};
	node(&n, "embedding", 2);
	tin(&n, 0, KJ_I64, 1, (int64_t[]){3});
	tin(&n, 1, KJ_F32, 2, (int64_t[]){3, 2});
	ok(run64(&n, in, y) == 0 && shape_is(&n.out, 2, (int64_t[]){3, 2}) && n.out.dtype == KJ_F32,
	   "embedding [3] x [3, 2] -> f32 [3, 2]");
	ok(all_near(y, (double[]){5, 6, 1, 2, 5, 6}, 6, 0), "rows 2, 0, 2 of the table");
	n.op->cost(&n, &c);
	is_near(c.min_bytes, 3 * 8 + 2 * 6 * 4, 0, "bytes: indices, output, rows read");
	idx[1] = 3;
	ok(run64(&n, in, y) && strstr(got(), "embedding: index 3 out of range [0, 3) at position 1"),
	   "out-of-range index: %s", got());
	idx[1] = -1;
	ok(run64(&n, in, y) && strstr(got(), "index -1 out of range"), "negative index: %s", got());
	tin(&n, 0, KJ_F32, 1, (int64_t[]){3});
	ok(infer(&n) && strstr(got(), "input dtype f32 must be i64 or i32"), "float indices: %s", got());
	tin(&n, 0, KJ_I32, 2, (int64_t[]){2, 2});
	ok(infer(&n) == 0 && shape_is(&n.out, 3, (int64_t[]){2, 2, 2}), "i32 [2, 2] indices -> [2, 2, 2]");
}

static void test_layout(void)
{
	kj_bnode n;
	double a[6] = {1, 2, 3, 4, 5, 6}, b[4] = {7, 8, 9, 10}, y[32];
	const double *in[4] = {a, b, NULL, NULL};

	node(&n, "cat", 2);
	tin(&n, 0, KJ_F32, 2, (int64_t[]){2, 3});
	tin(&n, 1, KJ_F32, 2, (int64_t[]){2, 2});
	attr_i(&n, 0, 1);
	ok(run64(&n, in, y) == 0 && shape_is(&n.out, 2, (int64_t[]){2, 5}), "cat dim 1 -> [2, 5]");
	ok(all_near(y, (double[]){1, 2, 3, 7, 8, 4, 5, 6, 9, 10}, 10, 0), "cat dim 1 values");
	attr_i(&n, 0, 0);
	ok(infer(&n) && strstr(got(), "tensor 1 [2, 2] does not match tensor 0 [2, 3] outside dim 0"),
	   "cat mismatch: %s", got());
	node(&n, "cat", 3);
	in[2] = a;
	tin(&n, 0, KJ_F32, 1, (int64_t[]){6});
	tin(&n, 1, KJ_F32, 1, (int64_t[]){4});
	tin(&n, 2, KJ_F32, 1, (int64_t[]){6});
	ok(run64(&n, in, y) == 0 && n.out.shape.d[0] == 16 && y[10] == 1 && y[15] == 6,
	   "cat of three 1-D tensors");

	node(&n, "narrow", 1);
	tin(&n, 0, KJ_F32, 2, (int64_t[]){2, 3});
	attr_i(&n, 0, 1);
	attr_i(&n, 1, -2);
	attr_i(&n, 2, 2);
	ok(run64(&n, in, y) == 0 && shape_is(&n.out, 2, (int64_t[]){2, 2}), "narrow(x, 1, -2, 2) -> [2, 2]");
	ok(all_near(y, (double[]){2, 3, 5, 6}, 4, 0), "narrow values");
	attr_i(&n, 1, 2);
	ok(infer(&n) && strstr(got(), "start 2 + length 2 exceeds dim 1 of extent 3"), "narrow range: %s",
	   got());

	node(&n, "pad", 1);
	tin(&n, 0, KJ_F32, 2, (int64_t[]){2, 3});
	attr_ints(&n, 0, 2, (int64_t[]){1, -1});
	ok(run64(&n, in, y) == 0 && shape_is(&n.out, 2, (int64_t[]){2, 3}), "pad [1, -1] keeps the shape");
	ok(all_near(y, (double[]){0, 1, 2, 0, 4, 5}, 6, 0), "pad [1, -1] shifts right by one");
	attr_ints(&n, 0, 4, (int64_t[]){0, 1, 1, 0});
	attr_f(&n, 2, -1);
	ok(run64(&n, in, y) == 0 && shape_is(&n.out, 2, (int64_t[]){3, 4}), "pad 2 dims -> [3, 4]");
	ok(all_near(y, (double[]){-1, -1, -1, -1, 1, 2, 3, -1, 4, 5, 6, -1}, 12, 0),
	   "pad with value -1 before rows, after columns");
	attr_ints(&n, 0, 3, (int64_t[]){0, 1, 1});
	ok(infer(&n) && strstr(got(), "got 3 entries"), "odd pad list: %s", got());
	attr_ints(&n, 0, 2, (int64_t[]){-2, -1});
	ok(infer(&n) && strstr(got(), "would have extent 0"), "pad cropping everything: %s", got());

	node(&n, "flip", 1);
	tin(&n, 0, KJ_F32, 2, (int64_t[]){2, 3});
	attr_ints(&n, 0, 1, (int64_t[]){-1});
	ok(run64(&n, in, y) == 0 && all_near(y, (double[]){3, 2, 1, 6, 5, 4}, 6, 0), "flip last dim");
	attr_ints(&n, 0, 2, (int64_t[]){0, 1});
	ok(run64(&n, in, y) == 0 && all_near(y, (double[]){6, 5, 4, 3, 2, 1}, 6, 0), "flip both dims");
	attr_ints(&n, 0, 2, (int64_t[]){1, -1});
	ok(infer(&n) && strstr(got(), "dim 1 appears twice"), "flip repeated dim: %s", got());
}

static void test_select(void)
{
	kj_bnode n;
	double c[3] = {1, 0, 1}, a[6] = {1, 2, 3, 4, 5, 6}, z[1] = {-7}, y[16];
	const double *in[3] = {c, a, z};
	node(&n, "where", 3);
	tin(&n, 0, KJ_BOOL, 1, (int64_t[]){3});
	tin(&n, 1, KJ_F32, 2, (int64_t[]){2, 3});
	tin(&n, 2, KJ_F32, 0, NULL);
	n.in[2].weak = 1;
	ok(run64(&n, in, y) == 0 && shape_is(&n.out, 2, (int64_t[]){2, 3}) && n.out.dtype == KJ_F32,
	   "where([3], [2, 3], scalar) -> f32 [2, 3]");
	ok(all_near(y, (double[]){1, -7, 3, 4, -7, 6}, 6, 0), "where values with broadcasting");
	tin(&n, 0, KJ_F32, 1, (int64_t[]){3});
	ok(infer(&n) && strstr(got(), "where: condition dtype f32 must be bool"), "where condition: %s",
	   got());

	node(&n, "masked_fill", 2);
	in[0] = a;
	in[1] = c;
	tin(&n, 0, KJ_F32, 2, (int64_t[]){2, 3});
	tin(&n, 1, KJ_BOOL, 1, (int64_t[]){3});
	attr_f(&n, 0, -1e9);
	ok(run64(&n, in, y) == 0 && all_near(y, (double[]){-1e9, 2, -1e9, -1e9, 5, -1e9}, 6, 0),
	   "masked_fill with a broadcast mask");
	tin(&n, 1, KJ_BOOL, 3, (int64_t[]){2, 1, 3});
	ok(infer(&n) && strstr(got(), "does not broadcast to input"), "masked_fill mask too big: %s", got());

	node(&n, "triu", 1);
	in[0] = (double[]){1, 2, 3, 4, 5, 6, 7, 8, 9};
	tin(&n, 0, KJ_F32, 2, (int64_t[]){3, 3});
	ok(run64(&n, in, y) == 0 && all_near(y, (double[]){1, 2, 3, 0, 5, 6, 0, 0, 9}, 9, 0), "triu");
	attr_i(&n, 0, 1);
	ok(run64(&n, in, y) == 0 && all_near(y, (double[]){0, 2, 3, 0, 0, 6, 0, 0, 0}, 9, 0), "triu diagonal=1");
	node(&n, "tril", 1);
	tin(&n, 0, KJ_F32, 2, (int64_t[]){3, 3});
	attr_i(&n, 0, -1);
	ok(run64(&n, in, y) == 0 && all_near(y, (double[]){0, 0, 0, 4, 0, 0, 7, 8, 0}, 9, 0), "tril diagonal=-1");
	tin(&n, 0, KJ_F32, 1, (int64_t[]){3});
	ok(infer(&n) && strstr(got(), "at least 2 dims"), "tril of 1-D: %s", got());
}

static void test_cumprod(void)
{
	kj_bnode n;
	double x[6] = {1, 2, 3, 4, 5, 6}, y[6];
	const double *in[1] = {x};
	node(&n, "cumprod", 1);
	tin(&n, 0, KJ_F32, 2, (int64_t[]){2, 3});
	attr_i(&n, 0, 1);
	ok(run64(&n, in, y) == 0 && all_near(y, (double[]){1, 2, 6, 4, 20, 120}, 6, 0), "cumprod dim 1");
	attr_i(&n, 0, 0);
	ok(run64(&n, in, y) == 0 && all_near(y, (double[]){1, 2, 3, 4, 10, 18}, 6, 0), "cumprod dim 0");
	tin(&n, 0, KJ_I32, 2, (int64_t[]){2, 3});
	ok(infer(&n) == 0 && n.out.dtype == KJ_I64, "cumprod of i32 gives i64");
	attr_i(&n, 0, 2);
	ok(infer(&n) && strstr(got(), "cumprod: dim 2 out of range for rank 2"), "cumprod dim: %s", got());
	{
		double *v = noise(5 * 300, 4);
		int64_t cnt = 5 * 300;
		for (int i = 0; i < 5 * 300; i++)
			v[i] = 1 + 0.01 * v[i];
		tin(&n, 0, KJ_F32, 2, (int64_t[]){5, 300});
		attr_i(&n, 0, 1);
		ok(kjt_worst(&n, (const double *const[]){v}, 1, &cnt) < 1e-5, "cumprod f32 within 1e-5 relative");
		free(v);
	}
}

static void test_norms(void)
{
	kj_bnode n;
	/* N = 2, C = 2, inner = 2 */
	double x[8] = {1, 3, 2, 6, 5, 7, 4, 8}, rm[2] = {1, 2}, rv[2] = {4, 16}, w[2] = {2, 1},
	       b[2] = {0, 1}, y[8];
	const double *in[5] = {x, rm, rv, w, b};
	node(&n, "batch_norm", 5);
	tin(&n, 0, KJ_F32, 3, (int64_t[]){2, 2, 2});
	for (int k = 1; k <= 4; k++)
		tin(&n, k, KJ_F32, 1, (int64_t[]){2});
	attr_f(&n, 2, 0.0);
	ok(run64(&n, in, y) == 0, "batch_norm inference runs");
	/* c0: (x - 1) / 2 * 2; c1: (x - 2) / 4 + 1 */
	ok(all_near(y, (double[]){0, 2, 1, 2, 4, 6, 1.5, 2.5}, 8, 1e-15), "batch_norm with running stats");
	attr_b(&n, 0, 1);
	ok(run64(&n, in, y) == 0, "batch_norm training runs");
	/* c0: values 1 3 5 7, mean 4, var 5; c1: 2 6 4 8, mean 5, var 5 */
	{
		double r = 1 / sqrt(5.0);
		ok(all_near(y, (double[]){-3 * r * 2, -1 * r * 2, -3 * r + 1, 1 * r + 1, 1 * r * 2,
					  3 * r * 2, -1 * r + 1, 3 * r + 1},
			    8, 1e-15),
		   "batch_norm with batch statistics");
	}
	node(&n, "batch_norm", 1);
	tin(&n, 0, KJ_F32, 3, (int64_t[]){2, 2, 2});
	ok(infer(&n) && strstr(got(), "running_mean and running_var are required when training=False"),
	   "inference without running stats: %s", got());
	node(&n, "batch_norm", 4);
	tin(&n, 0, KJ_F32, 3, (int64_t[]){2, 2, 2});
	tin(&n, 1, KJ_F32, 1, (int64_t[]){2});
	tin(&n, 2, KJ_F32, 1, (int64_t[]){2});
	tin(&n, 3, KJ_F32, 1, (int64_t[]){3});
	ok(infer(&n) && strstr(got(), "weight has shape [3], expected [2]"), "weight shape: %s", got());

	node(&n, "instance_norm", 1);
	tin(&n, 0, KJ_F32, 3, (int64_t[]){2, 2, 2});
	attr_f(&n, 2, 0.0);
	ok(run64(&n, in, y) == 0 && all_near(y, (double[]){-1, 1, -1, 1, -1, 1, -1, 1}, 8, 1e-15),
	   "instance_norm of pairs gives -1, 1");

	node(&n, "group_norm", 1);
	tin(&n, 0, KJ_F32, 3, (int64_t[]){2, 2, 2});
	attr_i(&n, 0, 1);
	attr_f(&n, 1, 0.0);
	ok(run64(&n, in, y) == 0, "group_norm runs");
	{
		/* sample 0: 1 3 2 6, mean 3, var 3.5 */
		double r = 1 / sqrt(3.5);
		ok(all_near(y, (double[]){-2 * r, 0, -1 * r, 3 * r}, 4, 1e-15), "group_norm, one group");
	}
	attr_i(&n, 0, 3);
	ok(infer(&n) && strstr(got(), "num_groups 3 does not divide the channels 2"), "groups: %s", got());
	{
		int64_t cnt[3] = {3 * 6 * 50, 6, 6};
		double *v = noise(cnt[0], 5), *ww = noise(6, 6), *bb = noise(6, 7);
		for (int64_t i = 0; i < cnt[0]; i++)
			v[i] = 3 + v[i];
		node(&n, "group_norm", 3);
		tin(&n, 0, KJ_F32, 3, (int64_t[]){3, 6, 50});
		tin(&n, 1, KJ_F32, 1, (int64_t[]){6});
		tin(&n, 2, KJ_F32, 1, (int64_t[]){6});
		attr_i(&n, 0, 3);
		ok(kjt_worst(&n, (const double *const[]){v, ww, bb}, 3, cnt) < 1e-5,
		   "group_norm f32 within 1e-5");
		node(&n, "batch_norm", 5);
		tin(&n, 0, KJ_F32, 3, (int64_t[]){3, 6, 50});
		for (int k = 1; k <= 4; k++)
			tin(&n, k, KJ_F32, 1, (int64_t[]){6});
		attr_b(&n, 0, 1);
		ok(kjt_worst(&n, (const double *const[]){v, ww, ww, ww, bb}, 5,
			 (int64_t[]){cnt[0], 6, 6, 6, 6}) < 1e-5,
		   "batch_norm training f32 within 1e-5");
		free(v);
		free(ww);
		free(bb);
	}

	node(&n, "norm", 1);
	in[0] = (double[]){3, 4, 0, 12};
	tin(&n, 0, KJ_F32, 2, (int64_t[]){2, 2});
	ok(run64(&n, in, y) == 0 && n.out.shape.rank == 0 && near(y[0], 13, 1e-15), "norm of all: 13");
	attr_i(&n, 1, 1);
	ok(run64(&n, in, y) == 0 && shape_is(&n.out, 1, (int64_t[]){2}) && all_near(y, (double[]){5, 12}, 2, 1e-15),
	   "norm over dim 1");
	attr_f(&n, 0, 1);
	attr_b(&n, 2, 1);
	ok(run64(&n, in, y) == 0 && shape_is(&n.out, 2, (int64_t[]){2, 1}) && all_near(y, (double[]){7, 12}, 2, 0),
	   "1-norm, keepdim");
	attr_f(&n, 0, 3);
	ok(run64(&n, in, y) == 0 && near(y[0], cbrt(91), 1e-14), "3-norm");
	attr_f(&n, 0, -1);
	ok(infer(&n) && strstr(got(), "p must be a positive finite number"), "norm p: %s", got());

	node(&n, "normalize", 1);
	tin(&n, 0, KJ_F32, 2, (int64_t[]){2, 2});
	ok(run64(&n, in, y) == 0 && all_near(y, (double[]){0.6, 0.8, 0, 1}, 4, 1e-15), "normalize rows");
	in[0] = (double[]){0, 0, 1e-13, 0};
	attr_f(&n, 2, 1e-12);
	ok(run64(&n, in, y) == 0 && all_near(y, (double[]){0, 0, 0.1, 0}, 4, 1e-12), "normalize clamps at eps");

	node(&n, "cosine_similarity", 2);
	in[0] = (double[]){1, 0, 1, 1};
	in[1] = (double[]){0, 2, 2, 2};
	tin(&n, 0, KJ_F32, 2, (int64_t[]){2, 2});
	tin(&n, 1, KJ_F32, 2, (int64_t[]){2, 2});
	ok(run64(&n, in, y) == 0 && shape_is(&n.out, 1, (int64_t[]){2}) && all_near(y, (double[]){0, 1}, 2, 1e-15),
	   "cosine_similarity: orthogonal 0, parallel 1");
	tin(&n, 1, KJ_F32, 2, (int64_t[]){2, 3});
	ok(infer(&n) && strstr(got(), "differ in shape"), "cosine shapes: %s", got());
}

static void test_losses(void)
{
	kj_bnode n;
	double x[4] = {-1, -2, -0.5, -3}, t[4] = {0.5, 0, 0.25, 0.25}, y[4];
	const double *in[3] = {x, t, NULL};
	double l0 = 0.5 * (log(0.5) + 1), l2 = 0.25 * (log(0.25) + 0.5), l3 = 0.25 * (log(0.25) + 3);

	node(&n, "kl_div", 2);
	tin(&n, 0, KJ_F32, 2, (int64_t[]){2, 2});
	tin(&n, 1, KJ_F32, 2, (int64_t[]){2, 2});
	attr_s(&n, 0, "none");
	ok(run64(&n, in, y) == 0 && all_near(y, (double[]){l0, 0, l2, l3}, 4, 1e-15),
	   "kl_div none: t (log t - x), 0 where t = 0");
	attr_s(&n, 0, "batchmean");
	ok(run64(&n, in, y) == 0 && n.out.shape.rank == 0 && near(y[0], (l0 + l2 + l3) / 2, 1e-15),
	   "kl_div batchmean divides by the batch");
	attr_s(&n, 0, "mean");
	ok(run64(&n, in, y) == 0 && near(y[0], (l0 + l2 + l3) / 4, 1e-15), "kl_div mean divides by numel");
	attr_b(&n, 1, 1);
	attr_s(&n, 0, "sum");
	ok(run64(&n, in, y) == 0 &&
		   near(y[0], exp(0.5) * 1.5 + exp(0) * 2 + exp(0.25) * 0.75 + exp(0.25) * 3.25, 1e-15),
	   "kl_div log_target sum");
	attr_s(&n, 0, "avg");
	ok(infer(&n) && strstr(got(), "reduction 'avg' is not one of mean, sum, none, batchmean"),
	   "kl_div reduction: %s", got());

	node(&n, "hinge_embedding_loss", 2);
	in[0] = (double[]){0.3, 2, -1, 0.5};
	in[1] = (double[]){1, -1, -1, 1};
	tin(&n, 0, KJ_F32, 1, (int64_t[]){4});
	tin(&n, 1, KJ_I64, 1, (int64_t[]){4});
	attr_s(&n, 1, "none");
	ok(run64(&n, in, y) == 0 && all_near(y, (double[]){0.3, 0, 2, 0.5}, 4, 1e-15),
	   "hinge_embedding_loss: x for 1, max(0, 1 - x) for -1");
	attr_f(&n, 0, 3);
	attr_s(&n, 1, "sum");
	ok(run64(&n, in, y) == 0 && near(y[0], 0.3 + 1 + 4 + 0.5, 1e-15), "margin 3, sum");

	node(&n, "huber_loss", 2);
	in[0] = (double[]){0, 0, 0, 0};
	in[1] = (double[]){0.5, -2, 1, 3};
	tin(&n, 0, KJ_F32, 1, (int64_t[]){4});
	tin(&n, 1, KJ_F32, 1, (int64_t[]){4});
	attr_s(&n, 0, "none");
	attr_f(&n, 1, 2);
	ok(run64(&n, in, y) == 0 && all_near(y, (double[]){0.125, 2, 0.5, 4}, 4, 1e-15), "huber delta 2");
	node(&n, "smooth_l1_loss", 2);
	tin(&n, 0, KJ_F32, 1, (int64_t[]){4});
	tin(&n, 1, KJ_F32, 1, (int64_t[]){4});
	attr_s(&n, 0, "none");
	attr_f(&n, 1, 2);
	ok(run64(&n, in, y) == 0 && all_near(y, (double[]){0.0625, 1, 0.25, 2}, 4, 1e-15), "smooth_l1 beta 2");
	attr_f(&n, 1, 0);
	attr_s(&n, 0, "mean");
	ok(run64(&n, in, y) == 0 && near(y[0], 6.5 / 4, 1e-15), "smooth_l1 beta 0 is the L1 mean");
	attr_f(&n, 1, -1);
	ok(infer(&n) && strstr(got(), "beta must be non-negative"), "smooth_l1 beta: %s", got());
	tin(&n, 1, KJ_F32, 1, (int64_t[]){3});
	attr_f(&n, 1, 1);
	ok(infer(&n) && strstr(got(), "differ in shape"), "loss shapes: %s", got());

	node(&n, "triplet_margin_loss", 3);
	in[0] = (double[]){0, 0, 1, 1};
	in[1] = (double[]){3, 4, 1, 1};
	in[2] = (double[]){0, 1, 1, 5};
	tin(&n, 0, KJ_F32, 2, (int64_t[]){2, 2});
	tin(&n, 1, KJ_F32, 2, (int64_t[]){2, 2});
	tin(&n, 2, KJ_F32, 2, (int64_t[]){2, 2});
	attr_f(&n, 2, 0);
	attr_s(&n, 4, "none");
	/* row 0: d(a,p) = 5, d(a,n) = 1: 5 - 1 + 1 = 5; row 1: 0 - 4 + 1 < 0 */
	ok(run64(&n, in, y) == 0 && shape_is(&n.out, 1, (int64_t[]){2}) && all_near(y, (double[]){5, 0}, 2, 1e-15),
	   "triplet_margin_loss rows");
	attr_b(&n, 3, 1);
	/* swap: row 0 d(p,n) = sqrt(9 + 9) > 1 keeps 1 */
	attr_s(&n, 4, "mean");
	ok(run64(&n, in, y) == 0 && near(y[0], 2.5, 1e-15), "triplet mean with swap");
	{
		int64_t cnt = 7 * 333;
		double *a = noise(cnt, 8), *p = noise(cnt, 9), *q = noise(cnt, 10);
		node(&n, "triplet_margin_loss", 3);
		for (int k = 0; k < 3; k++)
			tin(&n, k, KJ_F32, 2, (int64_t[]){7, 333});
		attr_s(&n, 4, "none");
		ok(kjt_worst(&n, (const double *const[]){a, p, q}, 3, (int64_t[]){cnt, cnt, cnt}) < 1e-5,
		   "triplet f32 within 1e-5");
		free(a);
		free(p);
		free(q);
	}
}

int main(void)
{
	test_table();
	test_sdpa();
	test_embedding();
	test_layout();
	test_select();
	test_cumprod();
	test_norms();
	test_losses();
	return done_testing();
}
