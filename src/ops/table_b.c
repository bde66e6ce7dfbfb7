/*
 * The second op table: signatures, shape/dtype rules and cost rules of the
 * linear-algebra, layout, normalisation and loss ops.  The kernels are in
 * src/ops/cpu/ (cpu64_b.c, cpu32_b.c).  Cost conventions are in docs/ops.md.
 */
#include <stdio.h>
#include <string.h>

#include "kjudge/dtype.h"
#include "ops/table_b.h"

/* "[B=4, 7]": an INTS attribute with the labels its entries came from. */
static char *ints_str(const kj_attr *a, char *buf, size_t len)
{
	const int64_t *v;
	int k = kjb_ints(a, &v);
	size_t o = 0;
	o += (size_t)snprintf(buf, len, "[");
	for (int i = 0; i < k && o < len; i++) {
		const char *lab = a->kind == KJ_ATTR_INTS ? a->label[i] : NULL;
		if (lab)
			o += (size_t)snprintf(buf + o, len - o, "%s%s=%lld", i ? ", " : "", lab,
					      (long long)v[i]);
		else
			o += (size_t)snprintf(buf + o, len - o, "%s%lld", i ? ", " : "",
					      (long long)v[i]);
	}
	if (o < len)
		snprintf(buf + o, len - o, "]");
	return buf;
}

static int need_float(const char *op, const char *what, const kj_tinfo *t, char *msg,
		      size_t len)
{
	if (kj_dtype_is_float(t->dtype))
		return 0;
	snprintf(msg, len, "%s: %s dtype %s is not a floating-point type", op, what,
		 kj_dtype_name(t->dtype));
	return -1;
}

/* An optional operand (weight, bias) of a normalisation or linear layer:
 * the input's dtype and exactly the shape `want`. */
static int check_param(const char *op, const char *what, const kj_tinfo *p,
		       const kj_tinfo *x, const kj_shape *want, const kj_tinfo *want_t,
		       char *msg, size_t len)
{
	char s1[160], s2[160];
	if (p->dtype != x->dtype) {
		snprintf(msg, len, "%s: %s dtype %s differs from input dtype %s", op, what,
			 kj_dtype_name(p->dtype), kj_dtype_name(x->dtype));
		return -1;
	}
	if (!kj_shape_eq(&p->shape, want)) {
		snprintf(msg, len, "%s: %s has shape %s, expected %s", op, what,
			 kjo_dims_str(p, s1, sizeof s1), kjo_dims_str(want_t, s2, sizeof s2));
		return -1;
	}
	return 0;
}

static void same_as_input(kj_bnode *n)
{
	n->out = n->in[0];
	n->out.weak = 0;
}

/* A loss reduced to one value, or [N] from [N, C]: the leading dims stay. */
static void keep_rank(kj_bnode *n, int rank)
{
	for (int i = rank; i < KJ_MAX_RANK; i++) {
		n->out.shape.d[i] = 0;
		n->out.label[i] = NULL;
	}
	n->out.shape.rank = rank;
}

static void cost_bytes(const kj_bnode *n, kj_cost *c)
{
	c->min_bytes = kjo_io_bytes(n);
}

static void cost_move(const kj_bnode *n, kj_cost *c)
{
	c->flops = 0;
	cost_bytes(n, c);
}

/* ---- matmul, bmm, linear ---- */

/* Both operands one floating dtype, or both i8: the integer product
 * (torch._int_mm) accumulates exactly and gives i32. */
static int check_mm_dtypes(const char *op, const kj_tinfo *a, const kj_tinfo *b, char *msg,
			   size_t len)
{
	if (a->dtype != b->dtype) {
		snprintf(msg, len, "%s: operands have different dtypes %s and %s", op,
			 kj_dtype_name(a->dtype), kj_dtype_name(b->dtype));
		return -1;
	}
	if (a->dtype == KJ_I8)
		return 0;
	if (!kj_dtype_is_float(a->dtype)) {
		snprintf(msg, len,
			 "%s: operand dtype %s is not supported (floating operands, or two i8 "
			 "operands giving i32)",
			 op, kj_dtype_name(a->dtype));
		return -1;
	}
	return 0;
}

/* The result dtype of a product of two operands of dtype t. */
static kj_dtype mm_out_dtype(kj_dtype t)
{
	return t == KJ_I8 ? KJ_I32 : t;
}

static int inner_dims_error(const char *op, const kj_tinfo *a, int ia, const kj_tinfo *b,
			    int ib, char *msg, size_t len)
{
	char s1[48], s2[48];
	snprintf(msg, len, "%s: inner dims %s and %s differ", op, kj_dim_str(a, ia, s1, sizeof s1),
		 kj_dim_str(b, ib, s2, sizeof s2));
	return -1;
}

static int infer_matmul(kj_bnode *n, char *msg, size_t len)
{
	const kj_tinfo *a = &n->in[0], *b = &n->in[1];
	int ra, rb, off_a, off_b, r = 0;
	kjb_mm g;
	char s1[160], s2[160];
	if (check_mm_dtypes("matmul", a, b, msg, len))
		return -1;
	if (a->shape.rank == 0 || b->shape.rank == 0) {
		snprintf(msg, len, "matmul: both operands need at least 1 dim, got %d-D and %d-D",
			 a->shape.rank, b->shape.rank);
		return -1;
	}
	kjb_mm_geom(&a->shape, &b->shape, &g);
	if (g.K != g.K2)
		return inner_dims_error("matmul", a, a->shape.rank - 1, b,
					g.b1 ? 0 : b->shape.rank - 2, msg, len);
	ra = g.a1 ? 0 : a->shape.rank - 2;
	rb = g.b1 ? 0 : b->shape.rank - 2;
	off_a = g.brank - ra;
	off_b = g.brank - rb;
	if (g.bad_dim >= 0) {
		char d1[48], d2[48];
		snprintf(msg, len, "matmul: batch dims %s and %s do not broadcast (shapes %s and %s)",
			 kj_dim_str(a, g.bad_dim - off_a, d1, sizeof d1),
			 kj_dim_str(b, g.bad_dim - off_b, d2, sizeof d2), kjo_dims_str(a, s1, sizeof s1),
			 kjo_dims_str(b, s2, sizeof s2));
		return -1;
	}
	if (g.brank + !g.a1 + !g.b1 > KJ_MAX_RANK) {
		snprintf(msg, len, "matmul: result rank exceeds %d", KJ_MAX_RANK);
		return -1;
	}
	memset(&n->out, 0, sizeof n->out);
	n->out.dtype = mm_out_dtype(a->dtype);
	for (int i = 0; i < g.brank; i++, r++) {
		int ia = i - off_a, ib = i - off_b;
		int from_a = ia >= 0 && (ib < 0 || a->shape.d[ia] != 1);
		n->out.shape.d[r] = g.bshape[i];
		n->out.label[r] = from_a ? a->label[ia] : b->label[ib];
	}
	if (!g.a1) {
		n->out.shape.d[r] = g.M;
		n->out.label[r++] = a->label[a->shape.rank - 2];
	}
	if (!g.b1) {
		n->out.shape.d[r] = g.N;
		n->out.label[r++] = b->label[b->shape.rank - 1];
	}
	n->out.shape.rank = r;
	return 0;
}

static int infer_bmm(kj_bnode *n, char *msg, size_t len)
{
	const kj_tinfo *a = &n->in[0], *b = &n->in[1];
	if (check_mm_dtypes("bmm", a, b, msg, len))
		return -1;
	if (a->shape.rank != 3 || b->shape.rank != 3) {
		snprintf(msg, len, "bmm: expected 3-D operands, got %d-D and %d-D", a->shape.rank,
			 b->shape.rank);
		return -1;
	}
	if (a->shape.d[0] != b->shape.d[0]) {
		char s1[48], s2[48];
		snprintf(msg, len, "bmm: batch dims %s and %s differ", kj_dim_str(a, 0, s1, sizeof s1),
			 kj_dim_str(b, 0, s2, sizeof s2));
		return -1;
	}
	if (a->shape.d[2] != b->shape.d[1])
		return inner_dims_error("bmm", a, 2, b, 1, msg, len);
	memset(&n->out, 0, sizeof n->out);
	n->out.dtype = mm_out_dtype(a->dtype);
	n->out.shape.rank = 3;
	n->out.shape.d[0] = a->shape.d[0];
	n->out.shape.d[1] = a->shape.d[1];
	n->out.shape.d[2] = b->shape.d[2];
	n->out.label[0] = a->label[0] ? a->label[0] : b->label[0];
	n->out.label[1] = a->label[1];
	n->out.label[2] = b->label[2];
	return 0;
}

static void cost_matmul(const kj_bnode *n, kj_cost *c)
{
	kjb_mm g;
	kjb_mm_geom(&n->in[0].shape, &n->in[1].shape, &g);
	c->flops = 2.0 * (double)g.M * (double)g.N * (double)g.K * (double)g.batch;
	cost_bytes(n, c);
}

static int infer_linear(kj_bnode *n, char *msg, size_t len)
{
	const kj_tinfo *x = &n->in[0], *w = &n->in[1];
	int r = x->shape.rank;
	char s1[160], s2[160];
	if (check_mm_dtypes("linear", x, w, msg, len))
		return -1;
	if (r == 0 || w->shape.rank != 2) {
		snprintf(msg, len, "linear: expected input [..., in] and weight [out, in], got %s and %s",
			 kjo_dims_str(x, s1, sizeof s1), kjo_dims_str(w, s2, sizeof s2));
		return -1;
	}
	if (x->shape.d[r - 1] != w->shape.d[1])
		return inner_dims_error("linear", x, r - 1, w, 1, msg, len);
	if (n->present[2] && x->dtype == KJ_I8) {
		snprintf(msg, len, "linear: a bias is not supported with i8 operands (add it to "
				   "the i32 result, or after a cast)");
		return -1;
	}
	if (n->present[2]) {
		kj_tinfo want;
		memset(&want, 0, sizeof want);
		want.shape.rank = 1;
		want.shape.d[0] = w->shape.d[0];
		want.label[0] = w->label[0];
		if (check_param("linear", "bias", &n->in[2], x, &want.shape, &want, msg, len))
			return -1;
	}
	same_as_input(n);
	n->out.dtype = mm_out_dtype(x->dtype);
	n->out.shape.d[r - 1] = w->shape.d[0];
	n->out.label[r - 1] = w->label[0];
	return 0;
}

static void cost_linear(const kj_bnode *n, kj_cost *c)
{
	const kj_shape *xs = &n->in[0].shape;
	double M = 1, K = (double)xs->d[xs->rank - 1], O = (double)n->in[1].shape.d[0];
	for (int i = 0; i < xs->rank - 1; i++)
		M *= (double)xs->d[i];
	c->flops = 2 * M * O * K + (n->present[2] ? M * O : 0);
	cost_bytes(n, c);
}

/* ---- transpose, permute, reshape, copy, cast ---- */

static int infer_transpose(kj_bnode *n, char *msg, size_t len)
{
	int rank = n->in[0].shape.rank;
	int d0 = 0, d1 = 0;
	int64_t t;
	const char *l;
	if (kjo_norm_dim("transpose", n->attr[0].i, rank, &d0, msg, len) ||
	    kjo_norm_dim("transpose", n->attr[1].i, rank, &d1, msg, len))
		return -1;
	same_as_input(n);
	if (rank == 0)
		return 0;
	t = n->out.shape.d[d0];
	n->out.shape.d[d0] = n->out.shape.d[d1];
	n->out.shape.d[d1] = t;
	l = n->out.label[d0];
	n->out.label[d0] = n->out.label[d1];
	n->out.label[d1] = l;
	return 0;
}

static int infer_permute(kj_bnode *n, char *msg, size_t len)
{
	const kj_tinfo *x = &n->in[0];
	const int64_t *dims;
	int k = kjb_ints(&n->attr[0], &dims), rank = x->shape.rank, seen[KJ_MAX_RANK] = { 0 };
	char s1[160];
	if (k != rank) {
		snprintf(msg, len, "permute: dims %s has %d entries for a %d-D input",
			 ints_str(&n->attr[0], s1, sizeof s1), k, rank);
		return -1;
	}
	memset(&n->out, 0, sizeof n->out);
	n->out.dtype = x->dtype;
	n->out.shape.rank = rank;
	for (int i = 0; i < k; i++) {
		int d = 0;
		if (kjo_norm_dim("permute", dims[i], rank, &d, msg, len))
			return -1;
		if (seen[d]++) {
			snprintf(msg, len, "permute: dim %d repeated in dims %s", d,
				 ints_str(&n->attr[0], s1, sizeof s1));
			return -1;
		}
		n->out.shape.d[i] = x->shape.d[d];
		n->out.label[i] = x->label[d];
	}
	return 0;
}

static int infer_reshape(kj_bnode *n, char *msg, size_t len)
{
	const kj_attr *a = &n->attr[0];
	const int64_t *v;
	int k = kjb_ints(a, &v), infer_at = -1;
	int64_t known = 1, numel = kjo_numel(&n->in[0].shape);
	char s1[160];
	for (int i = 0; i < k; i++) {
		if (v[i] == -1 && infer_at < 0) {
			infer_at = i;
		} else if (v[i] == -1) {
			snprintf(msg, len, "reshape: only one dim can be -1 in shape %s",
				 ints_str(a, s1, sizeof s1));
			return -1;
		} else if (v[i] < 0) {
			snprintf(msg, len, "reshape: invalid dim %lld in shape %s", (long long)v[i],
				 ints_str(a, s1, sizeof s1));
			return -1;
		} else if (__builtin_mul_overflow(known, v[i], &known)) {
			known = -1; /* far larger than any input */
			break;
		}
	}
	/* with a -1, a zero-sized known part leaves the inferred dim undefined */
	if (known < 0 || (infer_at >= 0 ? known == 0 || numel % known != 0 : known != numel)) {
		snprintf(msg, len, "reshape: shape %s is invalid for input of size %lld",
			 ints_str(a, s1, sizeof s1), (long long)numel);
		return -1;
	}
	memset(&n->out, 0, sizeof n->out);
	n->out.dtype = n->in[0].dtype;
	n->out.shape.rank = k;
	for (int i = 0; i < k; i++) {
		n->out.shape.d[i] = i == infer_at ? numel / known : v[i];
		n->out.label[i] = i == infer_at || a->kind != KJ_ATTR_INTS ? NULL : a->label[i];
	}
	return 0;
}

static int infer_copy(kj_bnode *n, char *msg, size_t len)
{
	(void)msg;
	(void)len;
	same_as_input(n);
	return 0;
}

static int infer_cast(kj_bnode *n, char *msg, size_t len)
{
	if (n->attr[0].kind != KJ_ATTR_DTYPE) {
		snprintf(msg, len, "cast: dtype is required");
		return -1;
	}
	same_as_input(n);
	n->out.dtype = n->attr[0].dt;
	return 0;
}

/* ---- layer_norm, rms_norm ---- */

/* normalized_shape (attr 0) must be the trailing dims of the input; weight
 * (operand 1) and bias (operand 2, when `with_bias`) must have that shape. */
static int infer_norm(kj_bnode *n, const char *op, int with_bias, char *msg, size_t len)
{
	const kj_tinfo *x = &n->in[0];
	const int64_t *ns;
	int k = kjb_ints(&n->attr[0], &ns), r = x->shape.rank, match = k >= 1 && k <= r;
	kj_tinfo want;
	char s1[160], s2[160];
	if (need_float(op, "input", x, msg, len))
		return -1;
	for (int i = 0; match && i < k; i++)
		match = x->shape.d[r - k + i] == ns[i];
	if (!match) {
		snprintf(msg, len, "%s: normalized_shape %s does not match the trailing dims of input %s",
			 op, ints_str(&n->attr[0], s1, sizeof s1), kjo_dims_str(x, s2, sizeof s2));
		return -1;
	}
	memset(&want, 0, sizeof want);
	want.shape.rank = k;
	for (int i = 0; i < k; i++) {
		want.shape.d[i] = ns[i];
		want.label[i] = x->label[r - k + i];
	}
	if (n->present[1] && check_param(op, "weight", &n->in[1], x, &want.shape, &want, msg, len))
		return -1;
	if (with_bias && n->present[2] &&
	    check_param(op, "bias", &n->in[2], x, &want.shape, &want, msg, len))
		return -1;
	same_as_input(n);
	return 0;
}

static int infer_layer_norm(kj_bnode *n, char *msg, size_t len)
{
	return infer_norm(n, "layer_norm", 1, msg, len);
}

static int infer_rms_norm(kj_bnode *n, char *msg, size_t len)
{
	return infer_norm(n, "rms_norm", 0, msg, len);
}

static void cost_layer_norm(const kj_bnode *n, kj_cost *c)
{
	c->flops = 8.0 * (double)kjo_numel(&n->in[0].shape);
	cost_bytes(n, c);
}

static void cost_rms_norm(const kj_bnode *n, kj_cost *c)
{
	c->flops = 4.0 * (double)kjo_numel(&n->in[0].shape);
	cost_bytes(n, c);
}

/* ---- mse_loss, cross_entropy ---- */

static int check_reduction(const char *op, const kj_bnode *n, char *msg, size_t len)
{
	if (kjb_reduction_of(n, 0) >= 0)
		return 0;
	snprintf(msg, len, "%s: reduction '%s' is not one of mean, sum, none", op, n->attr[0].s);
	return -1;
}

static int infer_mse_loss(kj_bnode *n, char *msg, size_t len)
{
	const kj_tinfo *x = &n->in[0], *t = &n->in[1];
	char s1[160], s2[160];
	if (check_mm_dtypes("mse_loss", x, t, msg, len))
		return -1;
	if (!kj_shape_eq(&x->shape, &t->shape)) {
		snprintf(msg, len, "mse_loss: input %s and target %s differ in shape",
			 kjo_dims_str(x, s1, sizeof s1), kjo_dims_str(t, s2, sizeof s2));
		return -1;
	}
	if (check_reduction("mse_loss", n, msg, len))
		return -1;
	same_as_input(n);
	if (kjb_reduction_of(n, 0) != KJB_NONE)
		keep_rank(n, 0);
	return 0;
}

static void cost_mse_loss(const kj_bnode *n, kj_cost *c)
{
	c->flops = 3.0 * (double)kjo_numel(&n->in[0].shape);
	cost_bytes(n, c);
}

static int infer_cross_entropy(kj_bnode *n, char *msg, size_t len)
{
	const kj_tinfo *x = &n->in[0], *t = &n->in[1];
	char s1[160], s2[160];
	if (need_float("cross_entropy", "input", x, msg, len))
		return -1;
	if (t->dtype != KJ_I64 && t->dtype != KJ_I32) {
		snprintf(msg, len, "cross_entropy: target dtype %s must be i64 or i32 (class indices)",
			 kj_dtype_name(t->dtype));
		return -1;
	}
	if (!((x->shape.rank == 2 && t->shape.rank == 1) ||
	      (x->shape.rank == 1 && t->shape.rank == 0))) {
		snprintf(msg, len,
			 "cross_entropy: expected input [N, C] with target [N], or input [C] with target [], got %s and %s",
			 kjo_dims_str(x, s1, sizeof s1), kjo_dims_str(t, s2, sizeof s2));
		return -1;
	}
	if (x->shape.rank == 2 && x->shape.d[0] != t->shape.d[0]) {
		snprintf(msg, len, "cross_entropy: batch dims %s and %s differ",
			 kj_dim_str(x, 0, s1, sizeof s1), kj_dim_str(t, 0, s2, sizeof s2));
		return -1;
	}
	if (check_reduction("cross_entropy", n, msg, len))
		return -1;
	same_as_input(n);
	keep_rank(n, kjb_reduction_of(n, 0) == KJB_NONE ? x->shape.rank - 1 : 0);
	return 0;
}

static void cost_cross_entropy(const kj_bnode *n, kj_cost *c)
{
	c->flops = 6.0 * (double)kjo_numel(&n->in[0].shape);
	cost_bytes(n, c);
}

/* ---- the table ---- */

#define T_REQ(nm) { .name = nm, .kind = KJ_ATTR_TENSOR, .required = 1 }
#define T_OPT(nm) { .name = nm, .kind = KJ_ATTR_TENSOR, .required = 0 }
#define A_REQ(nm, k) { .name = nm, .kind = k, .required = 1 }
#define REDUCTION \
	{ .name = "reduction", .kind = KJ_ATTR_STR, .required = 0, \
	  .def = { .kind = KJ_ATTR_STR, .s = "mean" } }

static const kj_param p_matmul[] = { T_REQ("input"), T_REQ("other") };
static const kj_param p_bmm[] = { T_REQ("input"), T_REQ("mat2") };
static const kj_param p_linear[] = { T_REQ("input"), T_REQ("weight"), T_OPT("bias") };
static const kj_param p_transpose[] = { T_REQ("input"), A_REQ("dim0", KJ_ATTR_INT),
					A_REQ("dim1", KJ_ATTR_INT) };
static const kj_param p_permute[] = { T_REQ("input"), A_REQ("dims", KJ_ATTR_INTS) };
static const kj_param p_reshape[] = { T_REQ("input"), A_REQ("shape", KJ_ATTR_INTS) };
static const kj_param p_layer_norm[] = {
	T_REQ("input"), A_REQ("normalized_shape", KJ_ATTR_INTS), T_OPT("weight"), T_OPT("bias"),
	{ .name = "eps", .kind = KJ_ATTR_FLOAT, .required = 0,
	  .def = { .kind = KJ_ATTR_FLOAT, .f = 1e-5 } },
};
static const kj_param p_rms_norm[] = {
	T_REQ("input"), A_REQ("normalized_shape", KJ_ATTR_INTS), T_OPT("weight"),
	{ .name = "eps", .kind = KJ_ATTR_FLOAT, .required = 0, .def = { .kind = KJ_ATTR_NONE } },
};
static const kj_param p_loss[] = { T_REQ("input"), T_REQ("target"), REDUCTION };
static const kj_param p_cast[] = { T_REQ("input"), A_REQ("dtype", KJ_ATTR_DTYPE) };
static const kj_param p_copy[] = { T_REQ("input") };

#define NP(p) (int)(sizeof(p) / sizeof((p)[0])), p
#define KERNELS(k) kj_cpu64_##k, kj_cpu32_##k

const kj_op kj_ops_b[] = {
	{ "matmul",
	  "matmul(input, other): matrix product as torch.matmul: 1-D x 1-D is a dot product (0-D result); "
	  "a 1-D operand gets a unit dim prepended (input) or appended (other) that the result drops; "
	  "[..., M, K] @ [..., K, N] -> [..., M, N] with the batch dims broadcast; both operands the same "
	  "floating dtype, or both i8 giving i32 (exact int32 accumulation, as torch._int_mm)",
	  NP(p_matmul), infer_matmul, cost_matmul, KERNELS(matmul), NULL },
	{ "bmm",
	  "bmm(input, mat2): batched matrix product [B, M, K] @ [B, K, N] -> [B, M, N]; both 3-D, equal B, "
	  "no broadcasting, same floating dtype, or both i8 giving i32",
	  NP(p_bmm), infer_bmm, cost_matmul, KERNELS(matmul), NULL },
	{ "linear",
	  "linear(input, weight, bias=None): y = input @ weight^T + bias with input [..., in], weight "
	  "[out, in], bias [out]; y is [..., out]; i8 input and weight (no bias) give i32",
	  NP(p_linear), infer_linear, cost_linear, KERNELS(linear),
	  "weight must be 2-D and bias exactly [out] (PyTorch also takes a 1-D weight and a "
	  "broadcastable bias)" },
	{ "transpose",
	  "transpose(input, dim0, dim1): swaps dims dim0 and dim1 (negative counts from the end); the "
	  "result is a new contiguous tensor",
	  NP(p_transpose), infer_transpose, cost_move, KERNELS(transpose),
	  "returns a contiguous copy, not a view" },
	{ "permute",
	  "permute(input, dims): reorders the dims: dim i of the result is dim dims[i] of input (dims "
	  "lists every dim once, negative counts from the end); the result is a new contiguous tensor",
	  NP(p_permute), infer_permute, cost_move, KERNELS(permute),
	  "returns a contiguous copy, not a view" },
	{ "reshape",
	  "reshape(input, shape): the same elements in row-major order with a new shape; one entry may be "
	  "-1 and is inferred; the element count must not change",
	  NP(p_reshape), infer_reshape, cost_move, KERNELS(reshape),
	  "always returns a contiguous copy" },
	{ "layer_norm",
	  "layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5): over the trailing dims "
	  "given by normalized_shape, y = (x - mean) / sqrt(var + eps) * weight + bias with the biased "
	  "variance (divide by the count); weight and bias have shape normalized_shape",
	  NP(p_layer_norm), infer_layer_norm, cost_layer_norm, KERNELS(layer_norm),
	  "weight and bias must have the input's dtype" },
	{ "rms_norm",
	  "rms_norm(input, normalized_shape, weight=None, eps=None): over the trailing dims given by "
	  "normalized_shape, y = x / sqrt(mean(x^2) + eps) * weight; eps=None means "
	  "torch.finfo(input.dtype).eps (f32 1.1920929e-07, f16 0.0009765625, bf16 0.0078125)",
	  NP(p_rms_norm), infer_rms_norm, cost_rms_norm, KERNELS(rms_norm),
	  "weight must have the input's dtype" },
	{ "mse_loss",
	  "mse_loss(input, target, reduction=\"mean\"): (input - target)^2 elementwise, then its mean "
	  "(\"mean\", 0-D), sum (\"sum\", 0-D) or no reduction (\"none\", input's shape)",
	  NP(p_loss), infer_mse_loss, cost_mse_loss, KERNELS(mse_loss),
	  "input and target must have the same shape and dtype (no broadcasting); reduction may be "
	  "given third positionally" },
	{ "cross_entropy",
	  "cross_entropy(input, target, reduction=\"mean\"): input [N, C] logits (or [C]), target [N] (or "
	  "0-D) integer class indices in [0, C); loss_n = logsumexp(input[n, :]) - input[n, target[n]] "
	  "(log_softmax + NLL), then mean over N, sum (0-D) or none ([N])",
	  NP(p_loss), infer_cross_entropy, cost_cross_entropy, KERNELS(cross_entropy),
	  "no class weights, ignore_index or label smoothing: every target must be in [0, C); no "
	  "extra spatial dims or probability targets" },
	{ "cast",
	  "cast(input, dtype): converts each element to dtype as Tensor.to(dtype): floats round to "
	  "nearest even, float -> integer truncates toward zero (saturating; NaN -> 0), bool is x != 0",
	  NP(p_cast), infer_cast, cost_move, KERNELS(cast),
	  "PyTorch leaves out-of-range float -> integer conversions undefined; here they saturate" },
	{ "copy", "internal", NP(p_copy), infer_copy, cost_move, KERNELS(copy), NULL },
};

const int kj_ops_b_count = (int)(sizeof(kj_ops_b) / sizeof(kj_ops_b[0]));
