/*
 * Table D of the op registry: signatures, shape/dtype rules and cost rules
 * of attention, indexing/layout, cumprod, channel normalisations, norms and
 * the losses of table_d.h.  The kernels are in src/ops/cpu/ (cpu64_d.c,
 * cpu32_d.c) and src/ops/cuda/ by family (docs/ops.md's index of ops).  Cost
 * conventions: docs/ops.md.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "kjudge/dtype.h"
#include "ops/table_d.h"

#define T_REQ(nm) {.name = nm, .kind = KJ_ATTR_TENSOR, .required = 1}
#define T_OPT(nm) {.name = nm, .kind = KJ_ATTR_TENSOR, .required = 0}
#define A_REQ(nm, k) {.name = nm, .kind = k, .required = 1}
#define A_F(nm, v) {.name = nm, .kind = KJ_ATTR_FLOAT, .def = {.kind = KJ_ATTR_FLOAT, .f = (v)}}
#define A_F_NONE(nm) {.name = nm, .kind = KJ_ATTR_FLOAT}
#define A_I(nm, v) {.name = nm, .kind = KJ_ATTR_INT, .def = {.kind = KJ_ATTR_INT, .i = (v)}}
#define A_I_NONE(nm) {.name = nm, .kind = KJ_ATTR_INT}
#define A_B(nm, v) {.name = nm, .kind = KJ_ATTR_BOOL, .def = {.kind = KJ_ATTR_BOOL, .i = (v)}}
#define A_S(nm, v) {.name = nm, .kind = KJ_ATTR_STR, .def = {.kind = KJ_ATTR_STR, .s = v}}

/* ---- shared checks ---- */

static int need_float(const char *op, const char *what, const kj_tinfo *t, char *msg, size_t len)
{
	if (kj_dtype_is_float(t->dtype))
		return 0;
	return kjo_fail(msg, len, "%s: %s dtype %s is not a floating-point type", op, what,
			kj_dtype_name(t->dtype));
}

static int need_index(const char *op, const char *what, const kj_tinfo *t, char *msg, size_t len)
{
	if (t->dtype == KJ_I64 || t->dtype == KJ_I32)
		return 0;
	return kjo_fail(msg, len, "%s: %s dtype %s must be i64 or i32 (indices)", op, what,
			kj_dtype_name(t->dtype));
}

/* b has a's dtype and exactly a's shape. */
static int same_as(const char *op, const char *wa, const kj_tinfo *a, const char *wb,
		   const kj_tinfo *b, char *msg, size_t len)
{
	char s1[160], s2[160];
	if (a->dtype != b->dtype)
		return kjo_fail(msg, len, "%s: %s dtype %s differs from %s dtype %s", op, wb,
				kj_dtype_name(b->dtype), wa, kj_dtype_name(a->dtype));
	if (!kj_shape_eq(&a->shape, &b->shape))
		return kjo_fail(msg, len, "%s: %s %s and %s %s differ in shape", op, wa,
				kjo_dims_str(a, s1, sizeof s1), wb, kjo_dims_str(b, s2, sizeof s2));
	return 0;
}

/* A per-channel operand: 1-D of extent C (dim 1 of x), x's dtype. */
static int check_channel(const char *op, const char *what, const kj_bnode *n, int k, char *msg,
			 size_t len)
{
	const kj_tinfo *x = &n->in[0], *p = &n->in[k];
	char s1[160], c[48];
	if (!n->present[k])
		return 0;
	if (p->dtype != x->dtype)
		return kjo_fail(msg, len, "%s: %s dtype %s differs from input dtype %s", op, what,
				kj_dtype_name(p->dtype), kj_dtype_name(x->dtype));
	if (p->shape.rank != 1 || p->shape.d[0] != x->shape.d[1])
		return kjo_fail(msg, len, "%s: %s has shape %s, expected [%s] (the channels, dim 1 of input)",
				op, what, kjo_dims_str(p, s1, sizeof s1), kjo_dim_str(x, 1, c, sizeof c));
	return 0;
}

static void same_input(kj_bnode *n)
{
	n->out = n->in[0];
	n->out.weak = 0;
}

/* out = x with dim `dim` removed (or kept as 1); dim < 0 removes all. */
static void reduced_shape(kj_bnode *n, int dim, int keepdim, kj_dtype dt)
{
	const kj_tinfo *x = &n->in[0];
	kj_tinfo o;
	memset(&o, 0, sizeof o);
	o.dtype = dt;
	for (int i = 0; i < x->shape.rank; i++) {
		int red = dim < 0 || i == dim;
		if (red && !keepdim)
			continue;
		o.shape.d[o.shape.rank] = red ? 1 : x->shape.d[i];
		o.label[o.shape.rank++] = red ? NULL : x->label[i];
	}
	n->out = o;
}

static void scalar_out(kj_bnode *n, kj_dtype dt)
{
	memset(&n->out, 0, sizeof n->out);
	n->out.dtype = dt;
}

static void cost_move(const kj_bnode *n, kj_cost *c)
{
	c->flops = 0;
	c->min_bytes = kjo_io_bytes(n);
}

static void cost_per_in(const kj_bnode *n, double per, kj_cost *c)
{
	c->flops = per * (double)kjo_numel(&n->in[0].shape);
	c->min_bytes = kjo_io_bytes(n);
}

static void cost_1(const kj_bnode *n, kj_cost *c)
{
	cost_per_in(n, 1, c);
}

/* ---- sdpa ---- */

static int infer_sdpa(kj_bnode *n, char *msg, size_t len)
{
	const kj_tinfo *q = &n->in[0], *k = &n->in[1], *v = &n->in[2];
	int r = q->shape.rank;
	char s1[160], s2[160], s3[160];
	const char *op = n->op->name;
	if (need_float(op, "query", q, msg, len))
		return -1;
	if (k->dtype != q->dtype || v->dtype != q->dtype)
		return kjo_fail(msg, len, "%s: query, key and value dtypes %s, %s and %s differ", op,
				kj_dtype_name(q->dtype), kj_dtype_name(k->dtype), kj_dtype_name(v->dtype));
	if (r < 2 || k->shape.rank != r || v->shape.rank != r)
		return kjo_fail(msg, len,
				"%s: expected query [..., L, E], key [..., S, E], value [..., S, Ev] of one rank >= 2, got %s, %s and %s",
				op, kjo_dims_str(q, s1, sizeof s1), kjo_dims_str(k, s2, sizeof s2),
				kjo_dims_str(v, s3, sizeof s3));
	for (int i = 0; i < r - 2; i++)
		if (k->shape.d[i] != q->shape.d[i] || v->shape.d[i] != q->shape.d[i])
			return kjo_fail(msg, len,
					"%s: batch dims of query %s, key %s and value %s differ (no broadcasting)",
					op, kjo_dims_str(q, s1, sizeof s1), kjo_dims_str(k, s2, sizeof s2),
					kjo_dims_str(v, s3, sizeof s3));
	if (k->shape.d[r - 1] != q->shape.d[r - 1])
		return kjo_fail(msg, len, "%s: head dims of query %s and key %s differ", op,
				kj_dim_str(q, r - 1, s1, sizeof s1), kj_dim_str(k, r - 1, s2, sizeof s2));
	if (v->shape.d[r - 2] != k->shape.d[r - 2])
		return kjo_fail(msg, len, "%s: key length %s and value length %s differ", op,
				kj_dim_str(k, r - 2, s1, sizeof s1), kj_dim_str(v, r - 2, s2, sizeof s2));
	same_input(n);
	n->out.shape.d[r - 1] = v->shape.d[r - 1];
	n->out.label[r - 1] = v->label[r - 1];
	return 0;
}

/* Only the attended (query, key) pairs count: L*S, or under the causal mask
 * the pairs of the lower triangle.  Per pair: 2E (scores) + 2Ev (weighted
 * values) + 5 (softmax). */
static void cost_sdpa(const kj_bnode *n, kj_cost *c)
{
	kjm_attn g;
	double pairs = 0;
	kjm_attn_geom(n, &g);
	if (!g.causal) {
		pairs = (double)g.L * (double)g.S;
	} else {
		int64_t full = g.L < g.S ? g.L : g.S; /* rows i < S attend i + 1 keys */
		pairs = (double)full * (double)(full + 1) / 2 + (double)(g.L - full) * (double)g.S;
	}
	pairs *= (double)g.batch;
	c->flops = pairs * (2.0 * (double)g.E + 2.0 * (double)g.Ev + 5.0);
	c->min_bytes = kjo_io_bytes(n);
}

/* ---- embedding ---- */

static int infer_embedding(kj_bnode *n, char *msg, size_t len)
{
	const kj_tinfo *idx = &n->in[0], *w = &n->in[1];
	char s1[160];
	int r = idx->shape.rank;
	if (need_index("embedding", "input", idx, msg, len) ||
	    need_float("embedding", "weight", w, msg, len))
		return -1;
	if (w->shape.rank != 2)
		return kjo_fail(msg, len, "embedding: weight must be 2-D [num_embeddings, dim], got %s",
				kjo_dims_str(w, s1, sizeof s1));
	if (r + 1 > KJ_MAX_RANK)
		return kjo_fail(msg, len, "embedding: result rank exceeds %d", KJ_MAX_RANK);
	n->out = *idx;
	n->out.weak = 0;
	n->out.dtype = w->dtype;
	n->out.shape.rank = r + 1;
	n->out.shape.d[r] = w->shape.d[1];
	n->out.label[r] = w->label[1];
	return 0;
}

/* Indices and the output, plus the rows read (at most the whole table). */
static void cost_embedding(const kj_bnode *n, kj_cost *c)
{
	double ob = kjo_bytes(&n->out), wb = kjo_bytes(&n->in[1]);
	c->flops = 0;
	c->min_bytes = kjo_bytes(&n->in[0]) + ob + (ob < wb ? ob : wb);
}

/* ---- cat, narrow, pad, flip ---- */

static int infer_cat(kj_bnode *n, char *msg, size_t len)
{
	const kj_tinfo *a = &n->in[0];
	int dim = 0, r = a->shape.rank;
	int64_t total = 0;
	char s1[160], s2[160];
	if (r == 0)
		return kjo_fail(msg, len, "cat: zero-dimensional tensors cannot be concatenated");
	if (kjo_norm_dim("cat", kjo_attr_i(n, 0, 0), r, &dim, msg, len))
		return -1;
	for (int k = 0; k < n->nin; k++) {
		const kj_tinfo *b = &n->in[k];
		if (!n->present[k])
			continue;
		if (b->dtype != a->dtype)
			return kjo_fail(msg, len, "cat: tensor %d has dtype %s, tensor 0 %s", k,
					kj_dtype_name(b->dtype), kj_dtype_name(a->dtype));
		for (int i = 0; i < r && b->shape.rank == r; i++)
			if (i != dim && b->shape.d[i] != a->shape.d[i])
				goto bad;
		if (b->shape.rank != r)
			goto bad;
		total += b->shape.d[dim];
		continue;
	bad:
		return kjo_fail(msg, len, "cat: tensor %d %s does not match tensor 0 %s outside dim %d",
				k, kjo_dims_str(b, s1, sizeof s1), kjo_dims_str(a, s2, sizeof s2), dim);
	}
	same_input(n);
	n->out.shape.d[dim] = total;
	n->out.label[dim] = NULL;
	return 0;
}

static int infer_narrow(kj_bnode *n, char *msg, size_t len)
{
	const kj_tinfo *x = &n->in[0];
	int dim = 0;
	int64_t start = kjo_attr_i(n, 1, 0), length = kjo_attr_i(n, 2, 0), size;
	char s1[48];
	if (x->shape.rank == 0)
		return kjo_fail(msg, len, "narrow: cannot narrow a 0-D tensor");
	if (kjo_norm_dim("narrow", kjo_attr_i(n, 0, 0), x->shape.rank, &dim, msg, len))
		return -1;
	size = x->shape.d[dim];
	if (start < -size || start > size)
		return kjo_fail(msg, len, "narrow: start %lld out of range for dim %d of extent %s",
				(long long)start, dim, kjo_dim_str(x, dim, s1, sizeof s1));
	if (start < 0)
		start += size;
	if (length < 1 || start + length > size)
		return kjo_fail(msg, len,
				"narrow: start %lld + length %lld exceeds dim %d of extent %s (length must be >= 1)",
				(long long)start, (long long)length, dim, kjo_dim_str(x, dim, s1, sizeof s1));
	same_input(n);
	n->out.shape.d[dim] = length;
	n->out.label[dim] = NULL;
	return 0;
}

static int infer_pad(kj_bnode *n, char *msg, size_t len)
{
	const kj_tinfo *x = &n->in[0];
	const int64_t *p;
	int k = kjm_ints(kjo_attr(n, 0), &p), r = x->shape.rank;
	int64_t lo[KJ_MAX_RANK], hi[KJ_MAX_RANK];
	char s1[160];
	if (strcmp(kjo_attr(n, 1)->s, "constant") != 0)
		return kjo_fail(msg, len, "pad: mode \"%s\" is not supported (only \"constant\")",
				kjo_attr(n, 1)->s);
	if (k == 0 || k % 2 || k / 2 > r)
		return kjo_fail(msg, len,
				"pad: pad must list (before, after) pairs for at most the %d dims of input %s, got %d entries",
				r, kjo_dims_str(x, s1, sizeof s1), k);
	kjm_pad(n, lo, hi);
	same_input(n);
	for (int i = 0; i < r; i++) {
		int64_t d = x->shape.d[i] + lo[i] + hi[i];
		if (d < 1)
			return kjo_fail(msg, len, "pad: dim %d of input %s would have extent %lld", i,
					kjo_dims_str(x, s1, sizeof s1), (long long)d);
		if (lo[i] || hi[i]) {
			n->out.shape.d[i] = d;
			n->out.label[i] = NULL;
		}
	}
	return 0;
}

static int infer_flip(kj_bnode *n, char *msg, size_t len)
{
	const int64_t *d;
	int k = kjm_ints(kjo_attr(n, 0), &d), r = n->in[0].shape.rank, seen[KJ_MAX_RANK] = {0};
	if (k == 0)
		return kjo_fail(msg, len, "flip: dims must list at least one dim");
	for (int i = 0; i < k; i++) {
		int dd = 0;
		if (kjo_norm_dim("flip", d[i], r, &dd, msg, len))
			return -1;
		if (seen[dd]++)
			return kjo_fail(msg, len, "flip: dim %d appears twice in dims", dd);
	}
	same_input(n);
	return 0;
}

/* ---- where, masked_fill, triu, tril ---- */

static int infer_where(kj_bnode *n, char *msg, size_t len)
{
	kj_tinfo ab;
	if (n->in[0].dtype != KJ_BOOL)
		return kjo_fail(msg, len, "where: condition dtype %s must be bool",
				kj_dtype_name(n->in[0].dtype));
	if (kj_broadcast(&n->in[1], &n->in[2], &ab, "where", msg, len))
		return -1;
	if (kj_broadcast(&n->in[0], &ab, &n->out, "where", msg, len))
		return -1;
	n->out.dtype = ab.dtype;
	return 0;
}

static int infer_masked_fill(kj_bnode *n, char *msg, size_t len)
{
	kj_tinfo o;
	char s1[160], s2[160];
	if (n->in[1].dtype != KJ_BOOL)
		return kjo_fail(msg, len, "masked_fill: mask dtype %s must be bool",
				kj_dtype_name(n->in[1].dtype));
	if (kj_broadcast(&n->in[0], &n->in[1], &o, "masked_fill", msg, len))
		return -1;
	if (!kj_shape_eq(&o.shape, &n->in[0].shape))
		return kjo_fail(msg, len, "masked_fill: mask %s does not broadcast to input %s",
				kjo_dims_str(&n->in[1], s1, sizeof s1), kjo_dims_str(&n->in[0], s2, sizeof s2));
	same_input(n);
	return 0;
}

static int infer_tri(kj_bnode *n, char *msg, size_t len)
{
	char s1[160];
	if (n->in[0].shape.rank < 2)
		return kjo_fail(msg, len, "%s: input must have at least 2 dims, got %s", n->op->name,
				kjo_dims_str(&n->in[0], s1, sizeof s1));
	same_input(n);
	return 0;
}

/* ---- cumprod ---- */

static int infer_cumprod(kj_bnode *n, char *msg, size_t len)
{
	int dim = 0;
	if (kjo_norm_dim("cumprod", kjo_attr_i(n, 0, 0), n->in[0].shape.rank, &dim, msg, len))
		return -1;
	same_input(n);
	if (!kj_dtype_is_float(n->out.dtype))
		n->out.dtype = KJ_I64;
	return 0;
}

/* ---- batch_norm, group_norm, instance_norm ---- */

/* Operands 1..4: running_mean, running_var, weight, bias. */
static int infer_bn_like(kj_bnode *n, int need_running, char *msg, size_t len)
{
	const char *op = n->op->name, *what[5] = {"", "running_mean", "running_var", "weight", "bias"};
	char s1[160];
	if (need_float(op, "input", &n->in[0], msg, len))
		return -1;
	if (n->in[0].shape.rank < 2)
		return kjo_fail(msg, len, "%s: expected input [N, C, ...] with at least 2 dims, got %s", op,
				kjo_dims_str(&n->in[0], s1, sizeof s1));
	if (need_running && (!n->present[1] || !n->present[2]))
		return kjo_fail(msg, len, "%s: running_mean and running_var are required when %s", op,
				strcmp(op, "batch_norm") ? "use_input_stats=False" : "training=False");
	for (int k = 1; k <= 4; k++)
		if (check_channel(op, what[k], n, k, msg, len))
			return -1;
	same_input(n);
	return 0;
}

static int infer_batch_norm(kj_bnode *n, char *msg, size_t len)
{
	return infer_bn_like(n, !kjo_attr_i(n, 0, 0), msg, len);
}

static int infer_instance_norm(kj_bnode *n, char *msg, size_t len)
{
	return infer_bn_like(n, !kjo_attr_i(n, 0, 1), msg, len);
}

static int infer_group_norm(kj_bnode *n, char *msg, size_t len)
{
	const kj_tinfo *x = &n->in[0];
	int64_t G = kjo_attr_i(n, 0, 1);
	char s1[160], c[48];
	if (need_float("group_norm", "input", x, msg, len))
		return -1;
	if (x->shape.rank < 2)
		return kjo_fail(msg, len, "group_norm: expected input [N, C, ...] with at least 2 dims, got %s",
				kjo_dims_str(x, s1, sizeof s1));
	if (G < 1 || x->shape.d[1] % G)
		return kjo_fail(msg, len, "group_norm: num_groups %lld does not divide the channels %s",
				(long long)G, kjo_dim_str(x, 1, c, sizeof c));
	for (int k = 1; k <= 2; k++)
		if (check_channel("group_norm", k == 1 ? "weight" : "bias", n, k, msg, len))
			return -1;
	same_input(n);
	return 0;
}

static void cost_bn(const kj_bnode *n, kj_cost *c)
{
	/* inference: 4 per element; with batch statistics 8, as layer_norm */
	int stats = strcmp(n->op->name, "batch_norm") ? 1 : (int)kjo_attr_i(n, 0, 0);
	if (!strcmp(n->op->name, "instance_norm"))
		stats = (int)kjo_attr_i(n, 0, 1);
	cost_per_in(n, stats ? 8 : 4, c);
}

static void cost_8(const kj_bnode *n, kj_cost *c)
{
	cost_per_in(n, 8, c);
}

/* ---- norm, normalize, cosine_similarity ---- */

static int check_p(const char *op, double p, char *msg, size_t len)
{
	if (!(p > 0) || isinf(p))
		return kjo_fail(msg, len, "%s: p must be a positive finite number, got %g", op, p);
	return 0;
}

static int infer_norm(kj_bnode *n, char *msg, size_t len)
{
	int dim = -1;
	if (need_float("norm", "input", &n->in[0], msg, len) ||
	    check_p("norm", kjo_attr_f(n, 0, 2), msg, len))
		return -1;
	if (kjo_attr_given(n, 1) &&
	    kjo_norm_dim("norm", kjo_attr_i(n, 1, 0), n->in[0].shape.rank, &dim, msg, len))
		return -1;
	reduced_shape(n, n->in[0].shape.rank ? dim : -1, (int)kjo_attr_i(n, 2, 0), n->in[0].dtype);
	return 0;
}

static void cost_norm(const kj_bnode *n, kj_cost *c)
{
	cost_per_in(n, 2, c);
}

static int infer_normalize(kj_bnode *n, char *msg, size_t len)
{
	int dim = 0;
	if (need_float("normalize", "input", &n->in[0], msg, len) ||
	    check_p("normalize", kjo_attr_f(n, 0, 2), msg, len))
		return -1;
	if (kjo_norm_dim("normalize", kjo_attr_i(n, 1, 1), n->in[0].shape.rank, &dim, msg, len))
		return -1;
	same_input(n);
	return 0;
}

static void cost_3(const kj_bnode *n, kj_cost *c)
{
	cost_per_in(n, 3, c);
}

static int infer_cosine(kj_bnode *n, char *msg, size_t len)
{
	int dim = 0;
	if (need_float("cosine_similarity", "x1", &n->in[0], msg, len) ||
	    same_as("cosine_similarity", "x1", &n->in[0], "x2", &n->in[1], msg, len))
		return -1;
	if (kjo_norm_dim("cosine_similarity", kjo_attr_i(n, 0, 1), n->in[0].shape.rank, &dim, msg,
			 len))
		return -1;
	reduced_shape(n, n->in[0].shape.rank ? dim : -1, 0, n->in[0].dtype);
	return 0;
}

static void cost_cosine(const kj_bnode *n, kj_cost *c)
{
	cost_per_in(n, 6, c);
}

/* ---- losses ---- */

/* input and target of one shape; reduction attr k; the result. */
static int infer_pair_loss(kj_bnode *n, int k, int batchmean, int target_any, char *msg,
			   size_t len)
{
	const char *op = n->op->name;
	const kj_tinfo *x = &n->in[0], *t = &n->in[1];
	char s1[160], s2[160];
	int red = kjm_reduction_of(n, k, batchmean);
	if (need_float(op, "input", x, msg, len))
		return -1;
	if (target_any ? !kj_shape_eq(&x->shape, &t->shape) : 0)
		return kjo_fail(msg, len, "%s: input %s and target %s differ in shape", op,
				kjo_dims_str(x, s1, sizeof s1), kjo_dims_str(t, s2, sizeof s2));
	if (!target_any && same_as(op, "input", x, "target", t, msg, len))
		return -1;
	if (red < 0)
		return kjo_fail(msg, len, "%s: reduction '%s' is not one of mean, sum, none%s", op,
				kjo_attr(n, k)->s, batchmean ? ", batchmean" : "");
	if (red == KJM_NONE)
		same_input(n);
	else
		scalar_out(n, x->dtype);
	return 0;
}

static int infer_kl_div(kj_bnode *n, char *msg, size_t len)
{
	return infer_pair_loss(n, 0, 1, 0, msg, len);
}

static int infer_hinge(kj_bnode *n, char *msg, size_t len)
{
	return infer_pair_loss(n, 1, 0, 1, msg, len);
}

static int infer_huber(kj_bnode *n, char *msg, size_t len)
{
	double d = kjo_attr_f(n, 1, 1.0);
	if (!strcmp(n->op->name, "huber_loss") ? !(d > 0) : !(d >= 0))
		return kjo_fail(msg, len, "%s: %s must be %s, got %g", n->op->name,
				strcmp(n->op->name, "huber_loss") ? "beta" : "delta",
				strcmp(n->op->name, "huber_loss") ? "non-negative" : "positive", d);
	return infer_pair_loss(n, 0, 0, 0, msg, len);
}

static void cost_loss(const kj_bnode *n, kj_cost *c)
{
	cost_per_in(n, 4, c);
}

static int infer_triplet(kj_bnode *n, char *msg, size_t len)
{
	const kj_tinfo *a = &n->in[0];
	char s1[160];
	int red = kjm_reduction_of(n, 4, 0);
	if (need_float("triplet_margin_loss", "anchor", a, msg, len) ||
	    same_as("triplet_margin_loss", "anchor", a, "positive", &n->in[1], msg, len) ||
	    same_as("triplet_margin_loss", "anchor", a, "negative", &n->in[2], msg, len) ||
	    check_p("triplet_margin_loss", kjo_attr_f(n, 1, 2), msg, len))
		return -1;
	if (a->shape.rank != 1 && a->shape.rank != 2)
		return kjo_fail(msg, len, "triplet_margin_loss: expected [N, D] or [D] inputs, got %s",
				kjo_dims_str(a, s1, sizeof s1));
	if (red < 0)
		return kjo_fail(msg, len, "triplet_margin_loss: reduction '%s' is not one of mean, sum, none",
				kjo_attr(n, 4)->s);
	if (red == KJM_NONE)
		reduced_shape(n, a->shape.rank - 1, 0, a->dtype);
	else
		scalar_out(n, a->dtype);
	return 0;
}

static void cost_triplet(const kj_bnode *n, kj_cost *c)
{
	cost_per_in(n, 6, c);
}

/* ---- the table ---- */

static const kj_param p_sdpa[] = {T_REQ("query"), T_REQ("key"), T_REQ("value"),
				  A_B("causal", 0), A_F_NONE("scale")};
static const kj_param p_sdpa_torch[] = {T_REQ("query"), T_REQ("key"), T_REQ("value"),
					A_B("is_causal", 0), A_F_NONE("scale")};
static const kj_param p_embedding[] = {T_REQ("input"), T_REQ("weight")};
static const kj_param p_cat[] = {T_REQ("t0"), T_REQ("t1"), T_OPT("t2"), T_OPT("t3"), A_I("dim", 0)};
static const kj_param p_narrow[] = {T_REQ("input"), A_REQ("dim", KJ_ATTR_INT),
				    A_REQ("start", KJ_ATTR_INT), A_REQ("length", KJ_ATTR_INT)};
static const kj_param p_pad[] = {T_REQ("input"), A_REQ("pad", KJ_ATTR_INTS),
				 A_S("mode", "constant"), A_F("value", 0.0)};
static const kj_param p_flip[] = {T_REQ("input"), A_REQ("dims", KJ_ATTR_INTS)};
static const kj_param p_where[] = {T_REQ("condition"), T_REQ("input"), T_REQ("other")};
static const kj_param p_masked_fill[] = {T_REQ("input"), T_REQ("mask"), A_REQ("value", KJ_ATTR_FLOAT)};
static const kj_param p_tri[] = {T_REQ("input"), A_I("diagonal", 0)};
static const kj_param p_cumprod[] = {T_REQ("input"), A_REQ("dim", KJ_ATTR_INT)};
static const kj_param p_batch_norm[] = {
	T_REQ("input"), T_OPT("running_mean"), T_OPT("running_var"), T_OPT("weight"), T_OPT("bias"),
	A_B("training", 0), A_F("momentum", 0.1), A_F("eps", 1e-5)};
static const kj_param p_instance_norm[] = {
	T_REQ("input"), T_OPT("running_mean"), T_OPT("running_var"), T_OPT("weight"), T_OPT("bias"),
	A_B("use_input_stats", 1), A_F("momentum", 0.1), A_F("eps", 1e-5)};
static const kj_param p_group_norm[] = {T_REQ("input"), A_REQ("num_groups", KJ_ATTR_INT),
					T_OPT("weight"), T_OPT("bias"), A_F("eps", 1e-5)};
static const kj_param p_norm[] = {T_REQ("input"), A_F("p", 2.0), A_I_NONE("dim"), A_B("keepdim", 0)};
static const kj_param p_normalize[] = {T_REQ("input"), A_F("p", 2.0), A_I("dim", 1), A_F("eps", 1e-12)};
static const kj_param p_cosine[] = {T_REQ("x1"), T_REQ("x2"), A_I("dim", 1), A_F("eps", 1e-8)};
static const kj_param p_kl_div[] = {T_REQ("input"), T_REQ("target"), A_S("reduction", "mean"),
				    A_B("log_target", 0)};
static const kj_param p_hinge[] = {T_REQ("input"), T_REQ("target"), A_F("margin", 1.0),
				   A_S("reduction", "mean")};
static const kj_param p_huber[] = {T_REQ("input"), T_REQ("target"), A_S("reduction", "mean"),
				   A_F("delta", 1.0)};
static const kj_param p_smooth_l1[] = {T_REQ("input"), T_REQ("target"), A_S("reduction", "mean"),
				       A_F("beta", 1.0)};
static const kj_param p_triplet[] = {T_REQ("anchor"), T_REQ("positive"), T_REQ("negative"),
				     A_F("margin", 1.0), A_F("p", 2.0), A_F("eps", 1e-6),
				     A_B("swap", 0), A_S("reduction", "mean")};

#define NP(p) (int)(sizeof(p) / sizeof((p)[0])), p
#define KERNELS(k) kj_cpu64_##k, kj_cpu32_##k

#define SDPA_DOC(name, causal) \
	name "(query, key, value, " causal "=False, scale=None): softmax(query @ key^T * scale + mask) " \
	"@ value over query [..., L, E], key [..., S, E], value [..., S, Ev] -> [..., L, Ev]; scale " \
	"None is 1/sqrt(E); " causal "=True masks key j for query i when j > i (top-left aligned " \
	"lower triangle, torch.ones(L, S).tril())"
#define SDPA_NOTES \
	"no attn_mask, dropout_p or enable_gqa; query, key and value have equal batch dims (no " \
	"broadcasting)"
#define LOSS_RED "then mean over every element (\"mean\", 0-D), sum (\"sum\", 0-D) or none (\"none\")"

const kj_op kj_ops_d[] = {
	{"sdpa", SDPA_DOC("sdpa", "causal"), NP(p_sdpa), infer_sdpa, cost_sdpa, KERNELS(sdpa),
	 "the name of torch.nn.functional.scaled_dot_product_attention with causal for is_causal; "
	 SDPA_NOTES},
	{"scaled_dot_product_attention", SDPA_DOC("scaled_dot_product_attention", "is_causal"),
	 NP(p_sdpa_torch), infer_sdpa, cost_sdpa, KERNELS(sdpa), SDPA_NOTES},
	{"embedding",
	 "embedding(input, weight): input integer indices [...] (i64 or i32) into the rows of weight "
	 "[num_embeddings, D]; the result [..., D] holds row input[i] of weight; an index outside "
	 "[0, num_embeddings) is an error",
	 NP(p_embedding), infer_embedding, cost_embedding, KERNELS(embedding),
	 "no padding_idx, max_norm or sparse"},
	{"cat",
	 "cat(t0, t1, t2=None, t3=None, dim=0): concatenates 2 to 4 tensors of one dtype along dim; "
	 "every other dim must agree",
	 NP(p_cat), infer_cat, cost_move, KERNELS(cat),
	 "the tensors are separate arguments (torch.cat takes a sequence): cat(a, b, dim=1) is "
	 "torch.cat((a, b), dim=1); no type promotion"},
	{"narrow",
	 "narrow(input, dim, start, length): elements start .. start+length-1 along dim (a negative "
	 "start counts from the end); x[:, k*H:(k+1)*H] is narrow(x, 1, k*H, H)",
	 NP(p_narrow), infer_narrow, cost_move, KERNELS(narrow), "returns a contiguous copy, not a view"},
	{"pad",
	 "pad(input, pad, mode=\"constant\", value=0.0): F.pad with constant mode: pad lists (before, "
	 "after) pairs starting from the last dim; a negative amount removes elements, so "
	 "pad(x, [1, -1]) shifts the last dim right by one with a leading value",
	 NP(p_pad), infer_pad, cost_move, KERNELS(pad),
	 "only mode \"constant\"; value 0.0 when not given (PyTorch's None)"},
	{"flip", "flip(input, dims): reverses the order of the elements along each dim in dims",
	 NP(p_flip), infer_flip, cost_move, KERNELS(flip), NULL},
	{"where",
	 "where(condition, input, other): input where condition (bool) is true, else other, with "
	 "broadcasting of all three and type promotion of input and other",
	 NP(p_where), infer_where, cost_move, KERNELS(where), "condition must be bool"},
	{"masked_fill",
	 "masked_fill(input, mask, value): input with value written where mask (bool, broadcast to "
	 "input's shape) is true",
	 NP(p_masked_fill), infer_masked_fill, cost_move, KERNELS(masked_fill),
	 "Tensor.masked_fill as a function; value is a number"},
	{"triu",
	 "triu(input, diagonal=0): the upper triangle of the last two dims: element (i, j) kept where "
	 "j - i >= diagonal, else 0",
	 NP(p_tri), infer_tri, cost_move, KERNELS(triu), NULL},
	{"tril",
	 "tril(input, diagonal=0): the lower triangle of the last two dims: element (i, j) kept where "
	 "j - i <= diagonal, else 0",
	 NP(p_tri), infer_tri, cost_move, KERNELS(tril), NULL},
	{"cumprod", "cumprod(x, dim): inclusive running product along dim; bool/int give i64",
	 NP(p_cumprod), infer_cumprod, cost_1, KERNELS(cumprod), NULL},
	{"batch_norm",
	 "batch_norm(input, running_mean=None, running_var=None, weight=None, bias=None, "
	 "training=False, momentum=0.1, eps=1e-5): input [N, C, ...]; per channel c, y = (x - m) / "
	 "sqrt(v + eps) * weight[c] + bias[c] with m, v the running statistics (training=False) or "
	 "the mean and biased variance over N and the spatial dims (training=True)",
	 NP(p_batch_norm), infer_batch_norm, cost_bn, KERNELS(batch_norm),
	 "the running statistics are never updated (momentum has no effect); operands [C] of the "
	 "input's dtype"},
	{"group_norm",
	 "group_norm(input, num_groups, weight=None, bias=None, eps=1e-5): input [N, C, ...] with C "
	 "channels in num_groups groups of C/num_groups consecutive channels; each (sample, group) is "
	 "normalized by its mean and biased variance, then weight[c] * y + bias[c]",
	 NP(p_group_norm), infer_group_norm, cost_8, KERNELS(group_norm), NULL},
	{"instance_norm",
	 "instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, "
	 "use_input_stats=True, momentum=0.1, eps=1e-5): input [N, C, ...]; each (sample, channel) "
	 "plane normalized by its own mean and biased variance (or the running statistics when "
	 "use_input_stats=False), then weight[c] * y + bias[c]",
	 NP(p_instance_norm), infer_instance_norm, cost_bn, KERNELS(instance_norm),
	 "the running statistics are never updated"},
	{"norm",
	 "norm(input, p=2.0, dim=None, keepdim=False): the vector p-norm (sum |x|^p)^(1/p) along dim, "
	 "or over every element for dim=None (the Frobenius norm for p=2)",
	 NP(p_norm), infer_norm, cost_norm, KERNELS(norm),
	 "p is a positive finite number (no 'fro', 'nuc' or inf); dim is one int or None"},
	{"normalize",
	 "normalize(input, p=2.0, dim=1, eps=1e-12): input / max(norm(input, p, dim, keepdim=True), "
	 "eps) (F.normalize)",
	 NP(p_normalize), infer_normalize, cost_3, KERNELS(normalize), NULL},
	{"cosine_similarity",
	 "cosine_similarity(x1, x2, dim=1, eps=1e-8): sum(x1 * x2, dim) / (max(|x1|, eps) * "
	 "max(|x2|, eps)) with |.| the 2-norm along dim; dim is removed",
	 NP(p_cosine), infer_cosine, cost_cosine, KERNELS(cosine_similarity),
	 "x1 and x2 must have the same shape (no broadcasting)"},
	{"kl_div",
	 "kl_div(input, target, reduction=\"mean\", log_target=False): input holds log-probabilities; "
	 "pointwise target * (log(target) - input) (0 where target is 0), or exp(target) * (target - "
	 "input) with log_target; " LOSS_RED " or \"batchmean\" (the sum divided by input.size(0))",
	 NP(p_kl_div), infer_kl_div, cost_loss, KERNELS(kl_div),
	 "input and target of one shape and dtype; the default \"mean\" divides by every element "
	 "as PyTorch does (KL divergence proper is \"batchmean\")"},
	{"hinge_embedding_loss",
	 "hinge_embedding_loss(input, target, margin=1.0, reduction=\"mean\"): pointwise (x if "
	 "target != -1 else 0) + (max(0, margin - x) if target != 1 else 0), targets normally in "
	 "{1, -1}; " LOSS_RED,
	 NP(p_hinge), infer_hinge, cost_loss, KERNELS(hinge_embedding_loss),
	 "input and target of one shape (target of any numeric dtype)"},
	{"huber_loss",
	 "huber_loss(input, target, reduction=\"mean\", delta=1.0): with d = |input - target|, 0.5 d^2 "
	 "if d < delta else delta * (d - 0.5 delta); " LOSS_RED,
	 NP(p_huber), infer_huber, cost_loss, KERNELS(huber_loss),
	 "input and target of one shape and dtype (no broadcasting)"},
	{"smooth_l1_loss",
	 "smooth_l1_loss(input, target, reduction=\"mean\", beta=1.0): with d = |input - target|, "
	 "0.5 d^2 / beta if d < beta else d - 0.5 beta (beta = 0: d); " LOSS_RED,
	 NP(p_smooth_l1), infer_huber, cost_loss, KERNELS(smooth_l1_loss),
	 "input and target of one shape and dtype (no broadcasting)"},
	{"triplet_margin_loss",
	 "triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6, swap=False, "
	 "reduction=\"mean\"): per row of [N, D] inputs, max(0, d(a, p) - d(a, n) + margin) with "
	 "d(x, y) = norm(x - y + eps, p) over D (swap: d(a, n) becomes min(d(a, n), d(p, n))); then "
	 "mean or sum over N (0-D) or none ([N])",
	 NP(p_triplet), infer_triplet, cost_triplet, KERNELS(triplet_margin_loss),
	 "anchor, positive and negative of one shape [N, D] or [D] and one dtype"},
};

const int kj_ops_d_count = (int)(sizeof(kj_ops_d) / sizeof(kj_ops_d[0]));
