/*
 * The third op table (src/ops/table_c.c): convolution and pooling.  Shape
 * rules and their messages, cost rules, the fp64 oracle against values
 * worked out by hand (with python3 for the larger sums), the transposed
 * conv as the adjoint of the conv (<conv(x), y> == <x, conv_transpose(y)>
 * over strides, paddings, dilations and groups in 1-D, 2-D and 3-D), and
 * the f32 baseline against the oracle on random data for every op.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kjudge/dtype.h"
#include "ops/table_c.h"
#include "ops_testlib.h"

/* A node of op `name`: input x of shape xd (rank xr), weight wd (rank wr,
 * 0 for none), bias present or not. */
static void node(kj_bnode *n, const char *name, int xr, const int64_t *xd, int wr,
		 const int64_t *wd, int bias)
{
	memset(n, 0, sizeof *n);
	n->op = kj_op_find(name);
	n->nin = kj_op_ntensor_params(n->op);
	n->present[0] = 1;
	tin(n, 0, KJ_F32, xr, xd);
	if (wr) {
		n->present[1] = 1;
		tin(n, 1, KJ_F32, wr, wd);
	}
	if (bias) {
		n->present[2] = 1;
		tin(n, 2, KJ_F32, 1, (const int64_t[]){ 0 }); /* extent set by the caller */
	}
}

/* Sets attribute `name` of n to a list of cnt ints. */
static void set_ints(kj_bnode *n, const char *name, int cnt, const int64_t *v)
{
	attr_ints(n, kj_op_attr_index(n->op, name), cnt, v);
}

static void set_int(kj_bnode *n, const char *name, int64_t v)
{
	attr_i(n, kj_op_attr_index(n->op, name), v);
}

static void set_bool(kj_bnode *n, const char *name, int v)
{
	attr_b(n, kj_op_attr_index(n->op, name), v);
}

static uint64_t rng_state = 88172645463325252ULL;

static double urand(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (double)(rng_state >> 11) / 9007199254740992.0 * 2.0 - 1.0;
}

static double *rand_buf(int64_t cnt)
{
	double *p = malloc((size_t)(cnt ? cnt : 1) * sizeof *p);
	for (int64_t i = 0; i < cnt; i++)
		p[i] = urand();
	return p;
}

static void test_table(void)
{
	static const char *const names[] = {
		"conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
		"conv_transpose3d", "max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d",
		"avg_pool2d", "avg_pool3d", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
		"adaptive_avg_pool3d",
	};
	int found = 0;
	is_int(kj_ops_c_count, 15, "table C has 15 ops");
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		const kj_op *op = kj_op_find(names[i]);
		found += op && op->cpu64 && op->cpu32 && op->infer && op->cost && op->doc &&
			 strstr(op->doc, names[i]) == op->doc;
	}
	is_int(found, 15, "every conv/pool op is in the registry with kernels and a doc");
	is_int(kj_op_attr_index(kj_op_find("conv2d"), "groups"), 3, "conv2d: groups is attr 3");
	is_int(kj_op_attr_index(kj_op_find("conv_transpose2d"), "dilation"), 4,
	       "conv_transpose2d: dilation is attr 4 (PyTorch's order)");
}

/* A 3x3 conv over a 4x4 ramp: x[i][j] = 4i + j + 1, w[a][b] = 3a + b + 1. */
static void test_conv2d_hand(void)
{
	kj_bnode n;
	int64_t xd[] = { 1, 1, 4, 4 }, wd[] = { 1, 1, 3, 3 }, od[] = { 1, 1, 2, 2 };
	double x[16], w[9], y[4], b[1] = { 0.5 };
	const double want[] = { 348, 393, 528, 573 };
	const double *in[3] = { x, w, b };
	kj_cost c;
	for (int i = 0; i < 16; i++)
		x[i] = i + 1;
	for (int i = 0; i < 9; i++)
		w[i] = i + 1;
	node(&n, "conv2d", 4, xd, 4, wd, 0);
	ok(run64(&n, in, y) == 0, "conv2d 3x3 on 4x4 runs: %s", got());
	ok(shape_is(&n.out, 4, od), "conv2d: [1, 1, 4, 4] * [1, 1, 3, 3] -> [1, 1, 2, 2]");
	ok(all_near(y, want, 4, 1e-15), "conv2d: 348 393 528 573 (worked by hand)");
	n.op->cost(&n, &c);
	is_near(c.flops, 2.0 * 4 * 9, 0, "conv2d cost: 2 * outputs * taps");
	is_near(c.min_bytes, (16 + 9 + 4) * 4.0, 0, "conv2d bytes: input + weight + output");

	node(&n, "conv2d", 4, xd, 4, wd, 1);
	n.in[2].shape.d[0] = 1;
	ok(run64(&n, in, y) == 0 && y[0] == 348.5 && y[3] == 573.5, "conv2d with bias adds it");
	n.op->cost(&n, &c);
	is_near(c.flops, 2.0 * 4 * 9 + 4, 0, "conv2d cost with bias: + one per output");
}

/* Two channels, groups=2, stride 2, padding 1, dilation 2 on 5x5:
 * x[c][i][j] = 25c + 5i + j + 1, w[co][a][b] = +-(3a + b + 1) + co/2. */
static void test_conv2d_groups(void)
{
	kj_bnode n;
	int64_t xd[] = { 1, 2, 5, 5 }, wd[] = { 2, 1, 3, 3 }, od[] = { 1, 2, 2, 2 };
	int64_t two[] = { 2 }, one[] = { 1 };
	double x[50], w[18], y[8];
	const double want[] = { 396, 344, 240, 188, -1020, -868, -564, -412 };
	const double *in[3] = { x, w, NULL };
	for (int i = 0; i < 50; i++)
		x[i] = i + 1;
	for (int co = 0; co < 2; co++)
		for (int t = 0; t < 9; t++)
			w[co * 9 + t] = (t + 1) * (co ? -1 : 1) + co * 0.5;
	node(&n, "conv2d", 4, xd, 4, wd, 0);
	set_ints(&n, "stride", 1, two);
	set_ints(&n, "padding", 1, one);
	set_ints(&n, "dilation", 1, two);
	set_int(&n, "groups", 2);
	ok(run64(&n, in, y) == 0, "grouped strided dilated padded conv2d runs: %s", got());
	ok(shape_is(&n.out, 4, od), "conv2d: 5x5, k3, s2, p1, d2 -> 2x2");
	ok(all_near(y, want, 8, 1e-15), "conv2d groups=2 s=2 p=1 d=2: values worked out by hand");
}

/* A conv node like node() with i8 input and weight and, if bias, an i32
 * bias of `cout` entries. */
static void node_i8(kj_bnode *n, const char *name, int xr, const int64_t *xd, const int64_t *wd,
		    int bias, int64_t cout)
{
	node(n, name, xr, xd, xr, wd, bias);
	n->in[0].dtype = KJ_I8;
	n->in[1].dtype = KJ_I8;
	if (bias) {
		n->in[2].dtype = KJ_I32;
		n->in[2].shape.d[0] = cout;
	}
}

/* Runs n on in through the oracle and the f32 baseline (the values given
 * to cpu32 as floats) and checks both against want[0..cnt) exactly. */
static void both_exact(kj_bnode *n, const double *const *in, const double *want, int cnt,
		       const char *what)
{
	double y64[64];
	float y32[64], *f[3] = { NULL, NULL, NULL };
	const float *fin[3] = { NULL, NULL, NULL };
	int same = 1;
	if (!ok(run64(n, in, y64) == 0, "%s: oracle runs: %s", what, got()))
		return;
	ok(all_near(y64, want, cnt, 0), "%s: oracle values exact", what);
	for (int k = 0; k < 3; k++) {
		int64_t m = n->present[k] ? kjo_numel(&n->in[k].shape) : 0;
		f[k] = malloc((size_t)(m ? m : 1) * sizeof *f[k]);
		for (int64_t i = 0; i < m; i++)
			f[k][i] = (float)in[k][i];
		fin[k] = m ? f[k] : NULL;
	}
	if (ok(n->op->cpu32(n, fin, y32, msg, KJT_MSGLEN) == 0, "%s: f32 baseline runs", what)) {
		for (int i = 0; i < cnt; i++)
			same &= (double)y32[i] == want[i];
		ok(same, "%s: f32 baseline values exact too", what);
	}
	for (int k = 0; k < 3; k++)
		free(f[k]);
}

/* i8 convs: i32 results summed exactly, including -128 * -128 products,
 * padding, stride, dilation, groups and an i32 bias. */
static void test_conv_int8(void)
{
	kj_bnode n;
	kj_cost c;
	int64_t one[] = { 1 }, two[] = { 2 };
	{
		/* all -128 over a 3x3 plane, 3x3 kernel of -128, padding 1: every
		 * product is 16384; a corner sees 4 taps, an edge 6, the centre 9 */
		int64_t xd[] = { 1, 1, 3, 3 }, wd[] = { 1, 1, 3, 3 }, od[] = { 1, 1, 3, 3 };
		double x[9], w[9];
		const double want[] = { 65536, 98304, 65536, 98304, 147456, 98304,
					65536, 98304, 65536 };
		const double *in[3] = { x, w, NULL };
		for (int i = 0; i < 9; i++)
			x[i] = w[i] = -128;
		node_i8(&n, "conv2d", 4, xd, wd, 0, 1);
		set_ints(&n, "padding", 1, one);
		ok(infer(&n) == 0 && n.out.dtype == KJ_I32 && shape_is(&n.out, 4, od),
		   "conv2d i8 x i8 -> i32 [1, 1, 3, 3]: %s", got());
		both_exact(&n, in, want, 9, "conv2d i8 -128 * -128, padding 1");
		n.op->cost(&n, &c);
		is_near(c.min_bytes, 9 + 9 + 9 * 4.0, 0, "conv2d i8 bytes: i8 input + weight, i32 out");
		is_near(c.flops, 2.0 * 9 * 9, 0, "conv2d i8 cost: 2 * outputs * taps, as for floats");
	}
	{
		/* groups 2 with a bias: channel 0 [[1 2 3] [4 5 6] [7 8 9]] with
		 * [[2 0] [0 -1]] gives 2*x[i][j] - x[i+1][j+1] = -3 -2 0 1, + 10;
		 * channel 1 all -128 with a 2x2 kernel of -128 gives 4 * 16384 =
		 * 65536 everywhere, + the bias -65536 = 0 */
		int64_t xd[] = { 1, 2, 3, 3 }, wd[] = { 2, 1, 2, 2 };
		double x[18], w[8] = { 2, 0, 0, -1, -128, -128, -128, -128 }, b[2] = { 10, -65536 };
		const double want[] = { 7, 8, 10, 11, 0, 0, 0, 0 };
		const double *in[3] = { x, w, b };
		for (int i = 0; i < 9; i++) {
			x[i] = i + 1;
			x[9 + i] = -128;
		}
		node_i8(&n, "conv2d", 4, xd, wd, 1, 2);
		set_int(&n, "groups", 2);
		both_exact(&n, in, want, 8, "conv2d i8 groups 2 with i32 bias");
	}
	{
		/* 1-D, stride 2, dilation 2: x = 1 -2 3 -4 5 -6 7, w = -128 127;
		 * out[o] = -128 * x[2o] + 127 * x[2o + 2] = 253 251 249 */
		int64_t xd[] = { 1, 1, 7 }, wd[] = { 1, 1, 2 };
		double x[] = { 1, -2, 3, -4, 5, -6, 7 }, w[] = { -128, 127 };
		const double want[] = { 253, 251, 249 };
		const double *in[3] = { x, w, NULL };
		node_i8(&n, "conv1d", 3, xd, wd, 0, 1);
		set_ints(&n, "stride", 1, two);
		set_ints(&n, "dilation", 1, two);
		ok(infer(&n) == 0 && n.out.shape.d[2] == 3, "conv1d i8 k2 s2 d2 on 7 -> 3: %s", got());
		both_exact(&n, in, want, 3, "conv1d i8 stride 2 dilation 2");
	}
	{
		/* a 1x1 conv over 2201 channels: 1100 products 127 * 127, 1100
		 * products 127 * -127, then 1 * 1: the sum is 1, but its partial
		 * sums pass 2^24 with odd terms, where a float sum rounds (it ends
		 * at 0): the f32 baseline must sum in integers too */
		int64_t xd[] = { 1, 2201, 1, 1 }, wd[] = { 1, 2201, 1, 1 };
		double *x = malloc(2201 * sizeof *x), *w = malloc(2201 * sizeof *w);
		const double want[] = { 1 };
		const double *in[3] = { x, w, NULL };
		for (int i = 0; i < 2200; i++) {
			x[i] = 127;
			w[i] = i < 1100 ? 127 : -127;
		}
		x[2200] = w[2200] = 1;
		node_i8(&n, "conv2d", 4, xd, wd, 0, 1);
		both_exact(&n, in, want, 1, "conv2d i8 over 2201 channels, partial sums past 2^24");
		free(x);
		free(w);
	}
	{
		/* random i8 values, 3-D, groups, padding, stride, bias: the f32
		 * baseline equals the oracle exactly */
		int64_t xd[] = { 2, 4, 5, 6, 7 }, wd[] = { 6, 2, 3, 2, 3 };
		int64_t nx = 2 * 4 * 5 * 6 * 7, nw = 6 * 2 * 3 * 2 * 3;
		double *x = rand_buf(nx), *w = rand_buf(nw), b[6], *y64;
		float *fx = malloc((size_t)nx * sizeof *fx), *fw = malloc((size_t)nw * sizeof *fw), fb[6],
		      *y32;
		const double *in[3] = { x, w, b };
		const float *fin[3] = { fx, fw, fb };
		int64_t m, bad = 0;
		for (int64_t i = 0; i < nx; i++)
			fx[i] = (float)(x[i] = floor(x[i] * 128));
		for (int64_t i = 0; i < nw; i++)
			fw[i] = (float)(w[i] = floor(w[i] * 128));
		for (int i = 0; i < 6; i++)
			fb[i] = (float)(b[i] = 1000 * i - 2500);
		node_i8(&n, "conv3d", 5, xd, wd, 1, 6);
		set_int(&n, "groups", 2);
		set_ints(&n, "padding", 1, one);
		set_ints(&n, "stride", 1, two);
		if (ok(infer(&n) == 0, "conv3d i8 groups 2 padding 1 stride 2 bias infers: %s", got())) {
			m = kjo_numel(&n.out.shape);
			y64 = calloc((size_t)m, sizeof *y64);
			y32 = calloc((size_t)m, sizeof *y32);
			n.op->cpu64(&n, in, y64, msg, KJT_MSGLEN);
			n.op->cpu32(&n, fin, y32, msg, KJT_MSGLEN);
			for (int64_t i = 0; i < m; i++)
				bad += (double)y32[i] != y64[i] || y64[i] != floor(y64[i]);
			ok(bad == 0 && m == 2 * 6 * 3 * 4 * 4,
			   "conv3d i8: f32 baseline equals the oracle on random i8 data (%lld of %lld differ)",
			   (long long)bad, (long long)m);
			free(y64);
			free(y32);
		}
		free(x);
		free(w);
		free(fx);
		free(fw);
	}
	{
		int64_t xd[] = { 1, 2, 5, 5 }, wd[] = { 3, 2, 3, 3 };
		node_i8(&n, "conv2d", 4, xd, wd, 0, 3);
		n.in[1].dtype = KJ_F32;
		ok(infer(&n) < 0, "conv2d i8 input with an f32 weight is refused");
		is_str(got(), "conv2d: weight dtype f32 differs from input dtype i8", "  message");
		node_i8(&n, "conv2d", 4, xd, wd, 1, 3);
		n.in[2].dtype = KJ_I8;
		ok(infer(&n) < 0, "conv2d i8 with an i8 bias is refused");
		is_str(got(), "conv2d: bias dtype i8 is not i32 (the result dtype of i8 operands)",
		       "  message");
		node_i8(&n, "conv2d", 4, xd, wd, 1, 3);
		n.in[2].dtype = KJ_F32;
		ok(infer(&n) < 0, "conv2d i8 with an f32 bias is refused");
		node_i8(&n, "conv2d", 4, xd, wd, 1, 3);
		ok(infer(&n) == 0 && n.out.dtype == KJ_I32, "conv2d i8 with an i32 bias gives i32");
		node(&n, "conv2d", 4, xd, 4, wd, 1);
		n.in[2].shape.d[0] = 3;
		n.in[2].dtype = KJ_I32;
		ok(infer(&n) < 0, "conv2d f32 with an i32 bias is still refused");
		is_str(got(), "conv2d: bias dtype i32 differs from input dtype f32", "  message");
		node_i8(&n, "conv2d", 4, xd, wd, 0, 3);
		n.in[0].dtype = n.in[1].dtype = KJ_I32;
		ok(infer(&n) < 0, "conv2d i32 operands are refused");
		is_str(got(),
		       "conv2d: input dtype i32 is not supported (floating, or i8 with an i8 weight "
		       "giving i32)",
		       "  message");
	}
	{
		int64_t xd[] = { 1, 2, 5, 5 }, wd[] = { 2, 3, 3, 3 };
		node_i8(&n, "conv_transpose2d", 4, xd, wd, 0, 3);
		ok(infer(&n) < 0, "conv_transpose2d with i8 operands is refused");
		is_str(got(), "conv_transpose2d: input dtype i8 is not a floating-point type", "  message");
	}
}

/* conv_transpose1d x = [1, 2, 3], w = [1, 10], stride 2. */
static void test_conv_transpose_hand(void)
{
	kj_bnode n;
	int64_t xd[] = { 1, 1, 3 }, wd[] = { 1, 1, 2 }, two[] = { 2 }, one[] = { 1 };
	double x[] = { 1, 2, 3 }, w[] = { 1, 10 }, y[6];
	const double want0[] = { 1, 10, 2, 20, 3, 30 }, want1[] = { 10, 2, 20, 3 },
		     want2[] = { 10, 2, 20, 3, 30 };
	const double *in[3] = { x, w, NULL };
	node(&n, "conv_transpose1d", 3, xd, 3, wd, 0);
	set_ints(&n, "stride", 1, two);
	ok(run64(&n, in, y) == 0 && n.out.shape.d[2] == 6 && all_near(y, want0, 6, 0),
	   "conv_transpose1d stride 2: [1 10 2 20 3 30]");
	set_ints(&n, "padding", 1, one);
	ok(run64(&n, in, y) == 0 && n.out.shape.d[2] == 4 && all_near(y, want1, 4, 0),
	   "conv_transpose1d stride 2 padding 1: [10 2 20 3]");
	set_ints(&n, "output_padding", 1, one);
	ok(run64(&n, in, y) == 0 && n.out.shape.d[2] == 5 && all_near(y, want2, 5, 0),
	   "conv_transpose1d output_padding 1 extends the end: [10 2 20 3 30]");
}

/* <conv(x), y> == <x, conv_transpose(y)> with the same weight. */
static void adjoint_case(int nd, int64_t N, int64_t cin, int64_t cout, int64_t groups,
			 const int64_t *sp, const int64_t *k, int64_t s, int64_t p, int64_t d)
{
	static const char *const cn[] = { "", "conv1d", "conv2d", "conv3d" };
	static const char *const tn[] = { "", "conv_transpose1d", "conv_transpose2d",
					  "conv_transpose3d" };
	kj_bnode a, t;
	int64_t xd[5] = { N, cin }, wd[5] = { cout, cin / groups }, yd[5], opad[3];
	int64_t sv[] = { s }, pv[] = { p }, dv[] = { d };
	int64_t xn = N * cin, wn = cout * (cin / groups), yn;
	double *x, *w, *y, *cx, *ty, l = 0, r = 0, mag = 0;
	char name[160];
	for (int i = 0; i < nd; i++) {
		xd[2 + i] = sp[i];
		wd[2 + i] = k[i];
		xn *= sp[i];
		wn *= k[i];
	}
	snprintf(name, sizeof name, "%dd N=%lld cin=%lld cout=%lld groups=%lld s=%lld p=%lld d=%lld",
		 nd, (long long)N, (long long)cin, (long long)cout, (long long)groups, (long long)s,
		 (long long)p, (long long)d);
	node(&a, cn[nd], nd + 2, xd, nd + 2, wd, 0);
	set_ints(&a, "stride", 1, sv);
	set_ints(&a, "padding", 1, pv);
	set_ints(&a, "dilation", 1, dv);
	set_int(&a, "groups", groups);
	if (!ok(infer(&a) == 0, "adjoint %s: conv infers: %s", name, got()))
		return;
	yn = kjo_numel(&a.out.shape);
	for (int i = 0; i < nd + 2; i++)
		yd[i] = a.out.shape.d[i];
	/* output_padding brings the transposed conv back to the input's size */
	for (int i = 0; i < nd; i++)
		opad[i] = sp[i] - ((yd[2 + i] - 1) * s - 2 * p + d * (k[i] - 1) + 1);
	node(&t, tn[nd], nd + 2, yd, nd + 2, wd, 0);
	set_ints(&t, "stride", 1, sv);
	set_ints(&t, "padding", 1, pv);
	set_ints(&t, "dilation", 1, dv);
	set_ints(&t, "output_padding", nd, opad);
	set_int(&t, "groups", groups);
	if (!ok(infer(&t) == 0 && shape_is(&t.out, nd + 2, xd),
		"adjoint %s: conv_transpose maps back to the input shape: %s", name, got()))
		return;
	x = rand_buf(xn);
	w = rand_buf(wn);
	y = rand_buf(yn);
	cx = calloc((size_t)yn, sizeof *cx);
	ty = calloc((size_t)xn, sizeof *ty);
	{
		const double *ain[3] = { x, w, NULL }, *tin[3] = { y, w, NULL };
		a.op->cpu64(&a, ain, cx, msg, KJT_MSGLEN);
		t.op->cpu64(&t, tin, ty, msg, KJT_MSGLEN);
	}
	for (int64_t i = 0; i < yn; i++) {
		l += cx[i] * y[i];
		mag += fabs(cx[i] * y[i]);
	}
	for (int64_t i = 0; i < xn; i++)
		r += x[i] * ty[i];
	if (!ok(fabs(l - r) <= 1e-12 * (mag + 1) && mag > 1, "adjoint %s: <conv x, y> = <x, convT y>",
		name))
		printf("#   %.17g vs %.17g (sum |terms| %g)\n", l, r, mag);
	free(x);
	free(w);
	free(y);
	free(cx);
	free(ty);
}

static void test_adjoint(void)
{
	int64_t l1[] = { 13 }, k1[] = { 3 }, l2[] = { 7, 9 }, k2[] = { 3, 2 }, l3[] = { 5, 6, 7 },
		k3[] = { 2, 3, 2 }, k1b[] = { 5 };
	adjoint_case(1, 2, 3, 4, 1, l1, k1, 1, 0, 1);
	adjoint_case(1, 2, 4, 6, 2, l1, k1, 2, 1, 2);
	adjoint_case(1, 1, 4, 4, 4, l1, k1b, 3, 2, 1);
	adjoint_case(2, 2, 3, 5, 1, l2, k2, 1, 1, 1);
	adjoint_case(2, 1, 4, 2, 2, l2, k2, 2, 1, 2);
	adjoint_case(2, 2, 6, 6, 3, l2, k2, 3, 0, 1);
	adjoint_case(3, 1, 2, 3, 1, l3, k3, 1, 0, 1);
	adjoint_case(3, 2, 4, 4, 2, l3, k3, 2, 1, 2);
}

static void test_pools_hand(void)
{
	kj_bnode n;
	int64_t xd[] = { 1, 1, 4, 4 }, two[] = { 2 }, one[] = { 1 }, three[] = { 3 };
	double x[16], y[9];
	const double *in[1] = { x };
	const double want_max[] = { -1, -2, -4, -5, -6, -8, -13, -14, -16 };
	for (int i = 0; i < 16; i++)
		x[i] = -(i + 1);
	node(&n, "max_pool2d", 4, xd, 0, NULL, 0);
	set_ints(&n, "kernel_size", 1, two);
	set_ints(&n, "padding", 1, one);
	ok(run64(&n, in, y) == 0 && n.out.shape.d[2] == 3 && n.out.shape.d[3] == 3,
	   "max_pool2d k2 p1 on 4x4 -> 3x3 (stride defaults to kernel_size): %s", got());
	ok(all_near(y, want_max, 9, 0), "max_pool2d: padding never wins over negative values");

	for (int i = 0; i < 16; i++)
		x[i] = i + 1;
	node(&n, "avg_pool2d", 4, xd, 0, NULL, 0);
	set_ints(&n, "kernel_size", 1, three);
	set_ints(&n, "stride", 1, two);
	set_ints(&n, "padding", 1, one);
	ok(run64(&n, in, y) == 0 && n.out.shape.d[2] == 2, "avg_pool2d k3 s2 p1 on 4x4 -> 2x2");
	is_near(y[0], 14.0 / 9.0, 1e-15, "avg_pool2d count_include_pad: corner (1+2+5+6)/9");
	is_near(y[3], 11.0, 1e-15, "avg_pool2d: inner window 99/9");
	set_bool(&n, "count_include_pad", 0);
	ok(run64(&n, in, y) == 0, "avg_pool2d count_include_pad=False runs");
	is_near(y[0], 3.5, 1e-15, "avg_pool2d count_include_pad=False: corner 14/4");
	is_near(y[3], 11.0, 1e-15, "avg_pool2d count_include_pad=False: inner window 99/9");

	{
		int64_t xd1[] = { 1, 1, 5 };
		double x5[] = { 1, 2, 3, 4, 5 }, y5[3];
		const double *in5[1] = { x5 };
		const double want_ceil[] = { 1.5, 3.5, 5 }, want_ad[] = { 1.5, 3, 4.5 };
		node(&n, "avg_pool1d", 3, xd1, 0, NULL, 0);
		set_ints(&n, "kernel_size", 1, two);
		set_bool(&n, "ceil_mode", 1);
		ok(run64(&n, in5, y5) == 0 && n.out.shape.d[2] == 3 && all_near(y5, want_ceil, 3, 0),
		   "avg_pool1d k2 ceil_mode on 5: [1.5 3.5 5] (last window of one)");
		set_bool(&n, "ceil_mode", 0);
		ok(run64(&n, in5, y5) == 0 && n.out.shape.d[2] == 2, "avg_pool1d k2 floor mode on 5: 2");
		node(&n, "adaptive_avg_pool1d", 3, xd1, 0, NULL, 0);
		set_ints(&n, "output_size", 1, three);
		ok(run64(&n, in5, y5) == 0 && n.out.shape.d[2] == 3 && all_near(y5, want_ad, 3, 0),
		   "adaptive_avg_pool1d 5 -> 3: windows [0,2) [1,4) [3,5)");
	}
	{
		int64_t xd1[] = { 1, 1, 10 };
		double xs[] = { 3, 1, 4, 1, 5, 9, 2, 6, 5, 3 }, ys[4];
		const double *ins[1] = { xs };
		const double want[] = { 1, 9, 9, 9 };
		node(&n, "max_pool1d", 3, xd1, 0, NULL, 0);
		set_ints(&n, "kernel_size", 1, three);
		set_ints(&n, "stride", 1, two);
		set_ints(&n, "padding", 1, one);
		set_ints(&n, "dilation", 1, two);
		ok(run64(&n, ins, ys) == 0 && n.out.shape.d[2] == 4 && all_near(ys, want, 4, 0),
		   "max_pool1d k3 s2 p1 d2 on 10: [1 9 9 9] (taps -1,1,3 then 1,3,5...)");
		xs[3] = NAN;
		ok(run64(&n, ins, ys) == 0 && isnan(ys[0]) && isnan(ys[1]) && ys[3] == 9,
		   "max_pool1d: a NaN in the window gives NaN, others unaffected");
	}
}

/* The f32 baseline within a small tolerance of the oracle on random data
 * (rounded to float first, so both kernels see the same values). */
static void agree(const char *what, kj_bnode *n)
{
	double *d[3] = { NULL, NULL, NULL };
	int64_t cnt[3] = { 0, 0, 0 };
	double worst;
	if (!ok(infer(n) == 0, "%s: infers: %s", what, got()))
		return;
	for (int k = 0; k < n->nin; k++) {
		if (!n->present[k])
			continue;
		cnt[k] = kjo_numel(&n->in[k].shape);
		d[k] = rand_buf(cnt[k]);
		for (int64_t i = 0; i < cnt[k]; i++)
			d[k][i] = (float)d[k][i];
	}
	worst = kjt_worst(n, (const double *const *)d, 3, cnt);
	ok(worst < 1e-5, "%s: f32 baseline within 1e-5 of the oracle (worst %.3g)", what, worst);
	for (int k = 0; k < 3; k++)
		free(d[k]);
}

static void test_cpu32_agreement(void)
{
	kj_bnode n;
	int64_t two[] = { 2 }, three[] = { 3 }, one[] = { 1 }, s21[] = { 2, 1 }, p12[] = { 1, 2 };
	{
		int64_t xd[] = { 2, 6, 37 }, wd[] = { 8, 3, 5 };
		node(&n, "conv1d", 3, xd, 3, wd, 1);
		n.in[2].shape.d[0] = 8;
		set_int(&n, "groups", 2);
		set_ints(&n, "stride", 1, two);
		agree("conv1d groups 2 stride 2 bias", &n);
	}
	{
		int64_t xd[] = { 2, 5, 17, 19 }, wd[] = { 7, 5, 3, 5 };
		node(&n, "conv2d", 4, xd, 4, wd, 0);
		set_ints(&n, "padding", 2, p12);
		set_ints(&n, "dilation", 2, s21);
		agree("conv2d asymmetric kernel, padding [1, 2], dilation [2, 1]", &n);
	}
	{
		int64_t xd[] = { 1, 3, 7, 8, 9 }, wd[] = { 4, 3, 3, 2, 3 };
		node(&n, "conv3d", 5, xd, 5, wd, 1);
		n.in[2].shape.d[0] = 4;
		agree("conv3d with bias", &n);
	}
	{
		int64_t xd[] = { 2, 4, 6, 5 }, wd[] = { 4, 3, 3, 3 };
		node(&n, "conv_transpose2d", 4, xd, 4, wd, 1);
		n.in[2].shape.d[0] = 6;
		set_int(&n, "groups", 2);
		set_ints(&n, "stride", 1, two);
		set_ints(&n, "padding", 1, one);
		set_ints(&n, "output_padding", 1, one);
		agree("conv_transpose2d groups 2 stride 2 output_padding 1", &n);
	}
	{
		int64_t xd[] = { 1, 2, 4, 5, 3 }, wd[] = { 2, 3, 3, 3, 2 };
		node(&n, "conv_transpose3d", 5, xd, 5, wd, 0);
		set_ints(&n, "dilation", 1, two);
		agree("conv_transpose3d dilation 2", &n);
	}
	{
		int64_t xd[] = { 2, 3, 11, 12, 13 };
		node(&n, "max_pool3d", 5, xd, 0, NULL, 0);
		set_ints(&n, "kernel_size", 1, three);
		set_ints(&n, "stride", 1, two);
		set_ints(&n, "padding", 1, one);
		set_ints(&n, "dilation", 1, two);
		agree("max_pool3d k3 s2 p1 d2", &n);
		node(&n, "avg_pool3d", 5, xd, 0, NULL, 0);
		set_ints(&n, "kernel_size", 1, three);
		set_ints(&n, "stride", 1, two);
		set_ints(&n, "padding", 1, one);
		set_bool(&n, "ceil_mode", 1);
		agree("avg_pool3d k3 s2 p1 ceil_mode", &n);
		node(&n, "adaptive_avg_pool3d", 5, xd, 0, NULL, 0);
		set_ints(&n, "output_size", 1, three);
		agree("adaptive_avg_pool3d -> 3", &n);
	}
	{
		int64_t xd[] = { 3, 4, 29, 31 }, os[] = { 5, 7 };
		node(&n, "adaptive_avg_pool2d", 4, xd, 0, NULL, 0);
		set_ints(&n, "output_size", 2, os);
		agree("adaptive_avg_pool2d -> [5, 7]", &n);
		node(&n, "max_pool2d", 4, xd, 0, NULL, 0);
		set_ints(&n, "kernel_size", 1, three);
		set_bool(&n, "ceil_mode", 1);
		agree("max_pool2d k3 ceil_mode", &n);
	}
}

static void test_errors(void)
{
	kj_bnode n;
	int64_t three[] = { 3 }, two[] = { 2 }, s3[] = { 1, 2, 3 };
	{
		int64_t xd[] = { 2, 3, 8 }, wd[] = { 4, 3, 3, 3 };
		node(&n, "conv2d", 3, xd, 4, wd, 0);
		ok(infer(&n) < 0, "conv2d rejects a 3-D input");
		is_str(got(), "conv2d: expected a 4-D input [N, C, H, W], got [2, 3, 8]",
		       "conv2d: message names the expected layout");
	}
	{
		int64_t xd[] = { 2, 3, 8, 8 }, wd[] = { 4, 2, 3, 3 };
		node(&n, "conv2d", 4, xd, 4, wd, 0);
		ok(infer(&n) < 0, "conv2d rejects a weight for other input channels");
		like(got(), "conv2d: weight [4, 2, 3, 3] expects 2 input channels",
		     "conv2d: channel mismatch message");
		set_int(&n, "groups", 2);
		ok(infer(&n) < 0, "conv2d rejects groups that do not divide in_channels");
		is_str(got(), "conv2d: in_channels 3 is not divisible by groups 2",
		       "conv2d: groups message");
	}
	{
		int64_t xd[] = { 2, 3, 4, 4 }, wd[] = { 4, 3, 5, 5 };
		node(&n, "conv2d", 4, xd, 4, wd, 0);
		ok(infer(&n) < 0, "conv2d rejects a kernel larger than the padded input");
		like(got(), "the output would be empty", "conv2d: empty output message");
		wd[2] = wd[3] = 3;
		node(&n, "conv2d", 4, xd, 4, wd, 0);
		set_ints(&n, "stride", 3, s3);
		ok(infer(&n) < 0, "conv2d rejects a stride of 3 entries");
		is_str(got(), "conv2d: stride must have 1 or 2 entries, got 3", "conv2d: stride message");
		node(&n, "conv2d", 4, xd, 4, wd, 1);
		n.in[2].shape.d[0] = 3;
		ok(infer(&n) < 0, "conv2d rejects a bias of the wrong length");
		is_str(got(), "conv2d: bias has shape [3], expected [4] (out_channels)",
		       "conv2d: bias message");
		node(&n, "conv2d", 4, xd, 4, wd, 0);
		n.in[1].dtype = KJ_F16;
		ok(infer(&n) < 0, "conv2d rejects mixed dtypes");
		is_str(got(), "conv2d: weight dtype f16 differs from input dtype f32",
		       "conv2d: dtype message");
	}
	{
		int64_t xd[] = { 1, 4, 5 }, wd[] = { 4, 2, 3 };
		node(&n, "conv_transpose1d", 3, xd, 3, wd, 0);
		set_ints(&n, "output_padding", 1, two);
		set_ints(&n, "stride", 1, two);
		ok(infer(&n) < 0, "conv_transpose1d rejects output_padding >= stride and dilation");
		is_str(got(), "conv_transpose1d: output_padding 2 must be smaller than stride 2 or dilation 1",
		       "conv_transpose1d: output_padding message");
		node(&n, "conv_transpose1d", 3, xd, 3, wd, 0);
		set_int(&n, "groups", 2);
		ok(infer(&n) == 0 && n.out.shape.d[1] == 4 && n.out.shape.d[2] == 7,
		   "conv_transpose1d: weight [4, 2, 3] with groups 2 gives 4 channels of 7");
		wd[0] = 3;
		node(&n, "conv_transpose1d", 3, xd, 3, wd, 0);
		ok(infer(&n) < 0, "conv_transpose1d rejects weight dim 0 != in_channels");
		like(got(), "weight dim 0 3 must equal the input channels 4", "conv_transpose1d message");
	}
	{
		int64_t xd[] = { 1, 2, 8, 8 };
		int64_t p2[] = { 2 };
		node(&n, "max_pool2d", 4, xd, 0, NULL, 0);
		set_ints(&n, "kernel_size", 1, three);
		set_ints(&n, "padding", 1, p2);
		ok(infer(&n) < 0, "max_pool2d rejects padding over half the kernel");
		is_str(got(), "max_pool2d: padding 2 should be at most half of kernel_size 3",
		       "max_pool2d: padding message");
		node(&n, "avg_pool2d", 4, xd, 0, NULL, 0);
		n.in[0].dtype = KJ_I32;
		set_ints(&n, "kernel_size", 1, three);
		ok(infer(&n) < 0, "avg_pool2d rejects an integer input");
		is_str(got(), "avg_pool2d: input dtype i32 is not a floating-point type",
		       "avg_pool2d: dtype message");
	}
	{
		int64_t xd[] = { 1, 2, 2, 2, 2 }, k5[] = { 5 };
		node(&n, "max_pool3d", 5, xd, 0, NULL, 0);
		set_ints(&n, "kernel_size", 1, k5);
		ok(infer(&n) < 0, "max_pool3d rejects a window larger than the input");
		like(got(), "the output would be empty", "max_pool3d: empty output message");
	}
}

static void test_costs(void)
{
	kj_bnode n;
	kj_cost c;
	int64_t xd[] = { 2, 4, 10 }, wd[] = { 4, 3, 3 }, two[] = { 2 }, three[] = { 3 };
	/* conv_transpose1d: 2 x 4 inputs x 10 positions x 3 outs/group... groups 1: cout 3 */
	node(&n, "conv_transpose1d", 3, xd, 3, wd, 0);
	ok(infer(&n) == 0 && n.out.shape.d[1] == 3 && n.out.shape.d[2] == 12,
	   "conv_transpose1d [2, 4, 10] with [4, 3, 3] -> [2, 3, 12]");
	n.op->cost(&n, &c);
	is_near(c.flops, 2.0 * 2 * 4 * 10 * 3 * 3, 0, "conv_transpose cost: 2 * N * Cin * L * Cout * k");
	node(&n, "max_pool1d", 3, xd, 0, NULL, 0);
	set_ints(&n, "kernel_size", 1, three);
	set_ints(&n, "stride", 1, two);
	ok(infer(&n) == 0 && n.out.shape.d[2] == 4, "max_pool1d k3 s2 on 10 -> 4");
	n.op->cost(&n, &c);
	is_near(c.flops, 2.0 * 4 * 4 * 3, 0, "max_pool cost: outputs * window");
	is_near(c.min_bytes, (80 + 32) * 4.0, 0, "max_pool bytes: input + output");
}

int main(void)
{
	test_table();
	test_conv2d_hand();
	test_conv2d_groups();
	test_conv_int8();
	test_conv_transpose_hand();
	test_adjoint();
	test_pools_hand();
	test_cpu32_agreement();
	test_errors();
	test_costs();
	return done_testing();
}
