/*
 * Table A of the op registry: elementwise unary ops, broadcasting binary ops,
 * reductions over one dim (or all elements) and softmax/log_softmax/cumsum.
 * Each entry gives PyTorch's signature, the shape/dtype rule, the cost rule
 * (conventions in docs/ops.md) and the two CPU kernels of cpu64_a.c and
 * cpu32_a.c.  Everything is static data; registry.c concatenates the tables.
 */
#include <math.h>
#include <string.h>

#include "kjudge/ops.h"
#include "op_util.h"

#define P_T(nm) {.name = nm, .kind = KJ_ATTR_TENSOR, .required = 1}
#define P_F(nm, v) {.name = nm, .kind = KJ_ATTR_FLOAT, .def = {.kind = KJ_ATTR_FLOAT, .f = (v)}}
#define P_F_NONE(nm) {.name = nm, .kind = KJ_ATTR_FLOAT}
#define P_I(nm, v) {.name = nm, .kind = KJ_ATTR_INT, .def = {.kind = KJ_ATTR_INT, .i = (v)}}
#define P_I_REQ(nm) {.name = nm, .kind = KJ_ATTR_INT, .required = 1}
#define P_I_NONE(nm) {.name = nm, .kind = KJ_ATTR_INT}
#define P_B(nm, v) {.name = nm, .kind = KJ_ATTR_BOOL, .def = {.kind = KJ_ATTR_BOOL, .i = (v)}}
#define P_S(nm, v) {.name = nm, .kind = KJ_ATTR_STR, .def = {.kind = KJ_ATTR_STR, .s = v}}

static const kj_param p_unary[] = {P_T("input")};
static const kj_param p_leaky_relu[] = {P_T("input"), P_F("negative_slope", 0.01)};
static const kj_param p_gelu[] = {P_T("input"), P_S("approximate", "none")};
static const kj_param p_elu[] = {P_T("input"), P_F("alpha", 1.0)};
static const kj_param p_hardtanh[] = {P_T("input"), P_F("min_val", -1.0), P_F("max_val", 1.0)};
static const kj_param p_softplus[] = {P_T("input"), P_F("beta", 1.0), P_F("threshold", 20.0)};
static const kj_param p_clamp[] = {P_T("input"), P_F_NONE("min"), P_F_NONE("max")};
static const kj_param p_binary[] = {P_T("input"), P_T("other")};
static const kj_param p_pow[] = {P_T("input"), P_T("exponent")};
static const kj_param p_reduce[] = {P_T("input"), P_I_NONE("dim"), P_B("keepdim", 0)};
static const kj_param p_var[] = {P_T("input"), P_I_NONE("dim"), P_I("correction", 1),
				 P_B("keepdim", 0)};
static const kj_param p_dim[] = {P_T("input"), P_I_REQ("dim")};

#define NP(p) ((int)(sizeof(p) / sizeof((p)[0])))

/* ---- shape/dtype rules ---- */

static void same_shape(const kj_tinfo *in, kj_tinfo *out, kj_dtype dt)
{
	*out = *in;
	out->dtype = dt;
	out->weak = 0;
}

/* Float-valued unary ops: integer and bool input computes in floating point
 * and gives f32, as torch.sigmoid/exp do. */
static int infer_unary_float(kj_bnode *n, char *msg, size_t msglen)
{
	kj_dtype dt = n->in[0].dtype;

	(void)msg;
	(void)msglen;
	same_shape(&n->in[0], &n->out, kjo_is_float(dt) ? dt : KJ_F32);
	return 0;
}

static int infer_unary_keep(kj_bnode *n, char *msg, size_t msglen)
{
	(void)msg;
	(void)msglen;
	same_shape(&n->in[0], &n->out, n->in[0].dtype);
	return 0;
}

static int infer_neg(kj_bnode *n, char *msg, size_t msglen)
{
	if (n->in[0].dtype == KJ_BOOL)
		return kjo_fail(msg, msglen, "neg: input of dtype bool is not supported");
	return infer_unary_keep(n, msg, msglen);
}

static int infer_gelu(kj_bnode *n, char *msg, size_t msglen)
{
	const char *a = kjo_attr(n, 0)->s;

	if (strcmp(a, "none") != 0 && strcmp(a, "tanh") != 0)
		return kjo_fail(msg, msglen,
				"gelu: approximate must be \"none\" or \"tanh\", not \"%s\"", a);
	return infer_unary_float(n, msg, msglen);
}

/* An integer tensor keeps its dtype under integral bounds; a fractional bound
 * promotes to f32, as torch.clamp's type promotion with a float scalar does. */
static int infer_clamp(kj_bnode *n, char *msg, size_t msglen)
{
	kj_dtype dt = n->in[0].dtype;

	if (!kjo_attr_given(n, 0) && !kjo_attr_given(n, 1))
		return kjo_fail(msg, msglen, "clamp: at least one of min and max must be given");
	for (int k = 0; k < 2; k++) {
		double v = kjo_attr_f(n, k, 0.0);

		if (!kjo_is_float(dt) && kjo_attr_given(n, k) && v != floor(v))
			dt = KJ_F32;
	}
	same_shape(&n->in[0], &n->out, dt);
	return 0;
}

static int infer_binary(kj_bnode *n, char *msg, size_t msglen)
{
	return kj_broadcast(&n->in[0], &n->in[1], &n->out, n->op->name, msg, msglen);
}

static int infer_sub(kj_bnode *n, char *msg, size_t msglen)
{
	if (n->in[0].dtype == KJ_BOOL && n->in[1].dtype == KJ_BOOL)
		return kjo_fail(msg, msglen,
				"sub: subtraction of two bool operands is not supported");
	return infer_binary(n, msg, msglen);
}

/* True division: integer and bool operands give f32. */
static int infer_div(kj_bnode *n, char *msg, size_t msglen)
{
	if (infer_binary(n, msg, msglen))
		return -1;
	if (!kjo_is_float(n->out.dtype))
		n->out.dtype = KJ_F32;
	return 0;
}

/* Bitwise ops take integer (and, except the shifts, bool) operands only,
 * as PyTorch; the result dtype is the promoted one (i8 & 15 stays i8). */
static int infer_bitwise_ops(kj_bnode *n, int allow_bool, char *msg, size_t msglen)
{
	kj_dtype a = n->in[0].dtype, b = n->in[1].dtype;

	if (kjo_is_float(a) || kjo_is_float(b) ||
	    (!allow_bool && (a == KJ_BOOL || b == KJ_BOOL)))
		return kjo_fail(msg, msglen, "%s: operands must be %s, got %s and %s",
				n->op->name, allow_bool ? "integer or bool" : "integer",
				kj_dtype_name(a), kj_dtype_name(b));
	return infer_binary(n, msg, msglen);
}

static int infer_bitwise(kj_bnode *n, char *msg, size_t msglen)
{
	return infer_bitwise_ops(n, 1, msg, msglen);
}

static int infer_shift(kj_bnode *n, char *msg, size_t msglen)
{
	return infer_bitwise_ops(n, 0, msg, msglen);
}

enum red_rule {
	R_KEEP,      /* same dtype: max, min */
	R_INT64,     /* bool/int give i64: sum, prod, cumsum */
	R_FLOAT,     /* floating input only: mean, var, std, softmax, log_softmax */
	R_TO_FLOAT,  /* bool/int give f32: logsumexp */
	R_INDEX,     /* i64 result: argmax, argmin */
};

static kj_dtype red_dtype(kj_dtype in, enum red_rule rule)
{
	switch (rule) {
	case R_INT64:
		return kjo_is_float(in) ? in : KJ_I64;
	case R_TO_FLOAT:
		return kjo_is_float(in) ? in : KJ_F32;
	case R_INDEX:
		return KJ_I64;
	default:
		return in;
	}
}

/* Index of the attribute called `name` among op's non-tensor params. */
static int attr_index(const kj_op *op, const char *name)
{
	int k = 0;

	for (int p = 0; p < op->nparams; p++) {
		if (op->params[p].kind == KJ_ATTR_TENSOR)
			continue;
		if (strcmp(op->params[p].name, name) == 0)
			return k;
		k++;
	}
	return -1;
}

/* Checks the input dtype and `dim` (attr 0) and gives the normalised dim in
 * *dim (-1 for "all elements"). */
static int red_check(kj_bnode *n, enum red_rule rule, int *dim, char *msg, size_t msglen)
{
	const char *name = n->op->name;
	const kj_tinfo *x = &n->in[0];
	const kj_attr *a = kjo_attr(n, 0);

	if (rule == R_FLOAT && !kjo_is_float(x->dtype))
		return kjo_fail(msg, msglen, "%s: input of dtype %s is not floating point", name,
				kj_dtype_name(x->dtype));
	if (a->kind == KJ_ATTR_INTS && a->n != 1)
		return kjo_fail(msg, msglen, "%s: dim must be one int, not a list of %d", name,
				a->n);
	*dim = -1;
	if (a->kind != KJ_ATTR_NONE &&
	    kjo_norm_dim(name, kjo_attr_i(n, 0, 0), x->shape.rank, dim, msg, msglen))
		return -1;
	return 0;
}

static int infer_reduce(kj_bnode *n, enum red_rule rule, char *msg, size_t msglen)
{
	const kj_tinfo *x = &n->in[0];
	int dim, keepdim = (int)kjo_attr_i(n, attr_index(n->op, "keepdim"), 0);
	int64_t outer, len, inner;
	kj_tinfo o;

	if (red_check(n, rule, &dim, msg, msglen))
		return -1;
	kjo_split(&x->shape, dim, &outer, &len, &inner);
	if (len == 0 && (rule == R_KEEP || rule == R_INDEX))
		return kjo_fail(msg, msglen, "%s: cannot reduce over zero elements", n->op->name);
	memset(&o, 0, sizeof(o));
	o.dtype = red_dtype(x->dtype, rule);
	if (keepdim) {
		o.shape.rank = x->shape.rank;
		for (int i = 0; i < x->shape.rank; i++) {
			int reduced = dim < 0 || i == dim;

			o.shape.d[i] = reduced ? 1 : x->shape.d[i];
			o.label[i] = reduced ? NULL : x->label[i];
		}
	} else if (dim >= 0 && x->shape.rank > 0) {
		for (int i = 0; i < x->shape.rank; i++) {
			if (i == dim)
				continue;
			o.shape.d[o.shape.rank] = x->shape.d[i];
			o.label[o.shape.rank++] = x->label[i];
		}
	}
	n->out = o;
	return 0;
}

/* softmax, log_softmax, cumsum: same shape, dim required. */
static int infer_along(kj_bnode *n, enum red_rule rule, char *msg, size_t msglen)
{
	int dim;

	if (!kjo_attr_given(n, 0))
		return kjo_fail(msg, msglen, "%s: dim is required", n->op->name);
	if (red_check(n, rule, &dim, msg, msglen))
		return -1;
	same_shape(&n->in[0], &n->out, red_dtype(n->in[0].dtype, rule));
	return 0;
}

#define RED_INFER(fn, rule, base) \
	static int fn(kj_bnode *n, char *msg, size_t msglen) \
	{ \
		return base(n, rule, msg, msglen); \
	}

RED_INFER(infer_red_keep, R_KEEP, infer_reduce)
RED_INFER(infer_red_int64, R_INT64, infer_reduce)
RED_INFER(infer_red_float, R_FLOAT, infer_reduce)
RED_INFER(infer_red_to_float, R_TO_FLOAT, infer_reduce)
RED_INFER(infer_red_index, R_INDEX, infer_reduce)
RED_INFER(infer_softmax, R_FLOAT, infer_along)
RED_INFER(infer_cumsum, R_INT64, infer_along)

/* ---- cost rules (docs/ops.md) ---- */

static void cost_per_out(const kj_bnode *n, kj_cost *c)
{
	c->flops = (double)kjo_numel(&n->out.shape);
	c->min_bytes = kjo_io_bytes(n);
}

static void cost_per_in(const kj_bnode *n, double per, kj_cost *c)
{
	c->flops = per * (double)kjo_numel(&n->in[0].shape);
	c->min_bytes = kjo_io_bytes(n);
}

static void cost_reduce(const kj_bnode *n, kj_cost *c)
{
	cost_per_in(n, 1.0, c);
}

static void cost_var(const kj_bnode *n, kj_cost *c)
{
	cost_per_in(n, 3.0, c);
}

static void cost_softmax(const kj_bnode *n, kj_cost *c)
{
	cost_per_in(n, 5.0, c);
}

/* ---- the table ---- */

#define OP(nm, pa, inf, cst, dc, nt) \
	{.name = #nm, .doc = dc, .nparams = NP(pa), .params = pa, .infer = inf, \
	 .cost = cst, .cpu64 = kj_cpu64_##nm, .cpu32 = kj_cpu32_##nm, .notes = nt}

#define INT_F32 "integer or bool input gives f32"

const kj_op kj_ops_a[] = {
	OP(relu, p_unary, infer_unary_keep, cost_per_out,
	   "relu(x): max(x, 0) elementwise; NaN stays NaN; keeps the dtype", NULL),
	OP(leaky_relu, p_leaky_relu, infer_unary_float, cost_per_out,
	   "leaky_relu(x, negative_slope=0.01): x if x > 0 else negative_slope * x", INT_F32),
	OP(sigmoid, p_unary, infer_unary_float, cost_per_out,
	   "sigmoid(x): 1 / (1 + exp(-x)) elementwise", NULL),
	OP(tanh, p_unary, infer_unary_float, cost_per_out,
	   "tanh(x): hyperbolic tangent elementwise", NULL),
	OP(gelu, p_gelu, infer_gelu, cost_per_out,
	   "gelu(x, approximate=\"none\"): \"none\": 0.5*x*(1 + erf(x/sqrt(2))); \"tanh\": "
	   "0.5*x*(1 + tanh(sqrt(2/pi)*(x + 0.044715*x^3)))",
	   INT_F32),
	OP(silu, p_unary, infer_unary_float, cost_per_out, "silu(x): x * sigmoid(x) elementwise",
	   INT_F32),
	OP(selu, p_unary, infer_unary_float, cost_per_out,
	   "selu(x): scale * (x if x > 0 else alpha*(exp(x) - 1)), alpha = 1.6732632423543772, "
	   "scale = 1.0507009873554805",
	   INT_F32),
	OP(elu, p_elu, infer_unary_float, cost_per_out,
	   "elu(x, alpha=1.0): x if x > 0 else alpha * (exp(x) - 1)", INT_F32),
	OP(hardsigmoid, p_unary, infer_unary_float, cost_per_out,
	   "hardsigmoid(x): 0 if x <= -3, 1 if x >= 3, else x/6 + 1/2", INT_F32),
	OP(hardswish, p_unary, infer_unary_float, cost_per_out,
	   "hardswish(x): 0 if x <= -3, x if x >= 3, else x*(x + 3)/6", INT_F32),
	OP(hardtanh, p_hardtanh, infer_unary_float, cost_per_out,
	   "hardtanh(x, min_val=-1.0, max_val=1.0): x clamped to [min_val, max_val]", INT_F32),
	OP(softplus, p_softplus, infer_unary_float, cost_per_out,
	   "softplus(x, beta=1.0, threshold=20.0): log(1 + exp(beta*x)) / beta, but x itself "
	   "where beta*x > threshold",
	   INT_F32),
	OP(softsign, p_unary, infer_unary_float, cost_per_out, "softsign(x): x / (1 + |x|)",
	   INT_F32),
	OP(exp, p_unary, infer_unary_float, cost_per_out, "exp(x): e^x elementwise", NULL),
	OP(log, p_unary, infer_unary_float, cost_per_out,
	   "log(x): natural logarithm elementwise; log(0) = -inf, log(x<0) = NaN", NULL),
	OP(sqrt, p_unary, infer_unary_float, cost_per_out,
	   "sqrt(x): square root elementwise; sqrt(x<0) = NaN", NULL),
	OP(rsqrt, p_unary, infer_unary_float, cost_per_out,
	   "rsqrt(x): 1 / sqrt(x) elementwise; rsqrt(0) = inf", NULL),
	OP(abs, p_unary, infer_unary_keep, cost_per_out, "abs(x): |x| elementwise; keeps the dtype",
	   NULL),
	OP(neg, p_unary, infer_neg, cost_per_out, "neg(x): -x elementwise; keeps the dtype", NULL),
	OP(round, p_unary, infer_unary_keep, cost_per_out,
	   "round(x): the nearest integer elementwise, halves to even (torch.round: round(2.5) = 2, "
	   "round(-0.5) = -0); keeps the dtype",
	   "no decimals argument"),
	OP(clamp, p_clamp, infer_clamp, cost_per_out,
	   "clamp(x, min=None, max=None): max(x, min) then min(., max), an absent bound is not "
	   "applied; if min > max every element is max; NaN stays NaN",
	   "an integer input keeps its dtype unless a bound is fractional (then f32)"),
	OP(add, p_binary, infer_binary, cost_per_out,
	   "add(x, y): x + y with broadcasting and PyTorch type promotion", NULL),
	OP(sub, p_binary, infer_sub, cost_per_out,
	   "sub(x, y): x - y with broadcasting and PyTorch type promotion", NULL),
	OP(mul, p_binary, infer_binary, cost_per_out,
	   "mul(x, y): x * y with broadcasting and PyTorch type promotion", NULL),
	OP(div, p_binary, infer_div, cost_per_out,
	   "div(x, y): true division x / y with broadcasting; integer operands give f32", NULL),
	OP(maximum, p_binary, infer_binary, cost_per_out,
	   "maximum(x, y): elementwise max with broadcasting; NaN if either is NaN", NULL),
	OP(minimum, p_binary, infer_binary, cost_per_out,
	   "minimum(x, y): elementwise min with broadcasting; NaN if either is NaN", NULL),
	OP(pow, p_pow, infer_binary, cost_per_out,
	   "pow(x, exponent): x ** exponent elementwise with broadcasting", NULL),
	OP(bitwise_and, p_binary, infer_bitwise, cost_per_out,
	   "bitwise_and(x, y): x & y elementwise with broadcasting; integer or bool operands", NULL),
	OP(bitwise_or, p_binary, infer_bitwise, cost_per_out,
	   "bitwise_or(x, y): x | y elementwise with broadcasting; integer or bool operands", NULL),
	OP(bitwise_xor, p_binary, infer_bitwise, cost_per_out,
	   "bitwise_xor(x, y): x ^ y elementwise with broadcasting; integer or bool operands", NULL),
	OP(bitwise_left_shift, p_binary, infer_shift, cost_per_out,
	   "bitwise_left_shift(x, y): x << y elementwise with broadcasting on integer operands; "
	   "the result wraps to its dtype (i8: 8 << 4 is -128); a shift < 0 or >= the bit width "
	   "gives 0",
	   NULL),
	OP(bitwise_right_shift, p_binary, infer_shift, cost_per_out,
	   "bitwise_right_shift(x, y): x >> y elementwise with broadcasting on integer operands; "
	   "arithmetic (sign-filling) shift, so -16 >> 4 is -1; a shift < 0 or >= the bit width "
	   "shifts by the width - 1",
	   NULL),
	OP(sum, p_reduce, infer_red_int64, cost_reduce,
	   "sum(x, dim=None, keepdim=False): sum along dim (all elements if None); bool/int "
	   "give i64",
	   NULL),
	OP(mean, p_reduce, infer_red_float, cost_reduce,
	   "mean(x, dim=None, keepdim=False): arithmetic mean along dim (all elements if None); "
	   "floating input only",
	   NULL),
	OP(max, p_reduce, infer_red_keep, cost_reduce,
	   "max(x, dim=None, keepdim=False): largest value along dim (all elements if None); "
	   "NaN if any is NaN",
	   "with a dim, PyTorch returns a (values, indices) tuple; here only the values "
	   "(use argmax for the indices)"),
	OP(min, p_reduce, infer_red_keep, cost_reduce,
	   "min(x, dim=None, keepdim=False): smallest value along dim (all elements if None); "
	   "NaN if any is NaN",
	   "with a dim, PyTorch returns a (values, indices) tuple; here only the values "
	   "(use argmin for the indices)"),
	OP(argmax, p_reduce, infer_red_index, cost_reduce,
	   "argmax(x, dim=None, keepdim=False): i64 index of the largest value along dim (of "
	   "the flattened x if None); first occurrence on ties; a NaN counts as largest",
	   NULL),
	OP(argmin, p_reduce, infer_red_index, cost_reduce,
	   "argmin(x, dim=None, keepdim=False): i64 index of the smallest value along dim (of "
	   "the flattened x if None); first occurrence on ties; a NaN counts as smallest",
	   NULL),
	OP(prod, p_reduce, infer_red_int64, cost_reduce,
	   "prod(x, dim=None, keepdim=False): product along dim (all elements if None); "
	   "bool/int give i64",
	   NULL),
	OP(logsumexp, p_reduce, infer_red_to_float, cost_reduce,
	   "logsumexp(x, dim=None, keepdim=False): log(sum(exp(x - m))) + m along dim, m the "
	   "max (all elements if None)",
	   "dim is optional here; PyTorch requires it"),
	OP(var, p_var, infer_red_float, cost_var,
	   "var(x, dim=None, correction=1, keepdim=False): sum((x - mean)^2) / max(0, N - "
	   "correction) along dim (all elements if None)",
	   NULL),
	OP(std, p_var, infer_red_float, cost_var,
	   "std(x, dim=None, correction=1, keepdim=False): sqrt(var(x, dim, correction))", NULL),
	OP(softmax, p_dim, infer_softmax, cost_softmax,
	   "softmax(x, dim): exp(x - max) / sum(exp(x - max)) along dim", NULL),
	OP(log_softmax, p_dim, infer_softmax, cost_softmax,
	   "log_softmax(x, dim): x - max - log(sum(exp(x - max))) along dim", NULL),
	OP(cumsum, p_dim, infer_cumsum, cost_reduce,
	   "cumsum(x, dim): inclusive running sum along dim; bool/int give i64", NULL),
};

const int kj_ops_a_count = NP(kj_ops_a);
