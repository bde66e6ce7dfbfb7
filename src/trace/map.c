/*
 * One aggregate of a trace (an aten operator with its input dims, types and
 * concrete scalar arguments) as a level-1 task in the task language: the
 * trace's dtypes, its broadcast structure (a dim of size 1 that broadcasts
 * is the literal 1, every other dim a symbol), and the op's scalar
 * arguments.  The shapes themselves become the symbols' values, so
 * aggregates that differ only in sizes share one task.  docs/suites.md lists
 * the operators this knows.
 */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace/trace_internal.h"

void sb_printf(struct sb *b, const char *fmt, ...)
{
	va_list ap;
	int n;
	if (b->oom)
		return;
	for (;;) {
		size_t room = b->cap - b->n;
		va_start(ap, fmt);
		n = vsnprintf(b->p ? b->p + b->n : NULL, b->p ? room : 0, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->oom = 1;
			return;
		}
		if (b->p && (size_t)n < room) {
			b->n += (size_t)n;
			return;
		}
		size_t nc = (b->cap ? 2 * b->cap : 256) + (size_t)n;
		char *np = realloc(b->p, nc);
		if (!np) {
			b->oom = 1;
			return;
		}
		b->p = np;
		b->cap = nc;
	}
}

void sb_release(struct sb *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

void map_release(struct map *m)
{
	sb_release(&m->decl);
	sb_release(&m->body);
}

#define MAXR 8

struct tens {
	int rank;      /* -1: not a tensor (scalar, list, absent) */
	int64_t d[MAXR];
	const char *dt; /* kjudge dtype, NULL when kjudge has none */
	const char *ty; /* the trace's type name */
};

static const char *kj_dtype(const char *ty)
{
	static const char *const tab[][2] = {
		{ "float", "f32" },	 { "c10::BFloat16", "bf16" }, { "c10::Half", "f16" },
		{ "long int", "i64" },	 { "int", "i32" },	      { "bool", "bool" },
		{ "signed char", "i8" },
	};
	for (size_t i = 0; ty && i < sizeof(tab) / sizeof(tab[0]); i++)
		if (!strcmp(ty, tab[i][0]))
			return tab[i][1];
	return NULL;
}

static int is_float(const char *dt)
{
	return dt && (dt[0] == 'f' || dt[0] == 'b') && strcmp(dt, "bool");
}

/* Input i of the aggregate. */
static void tensor_at(json_t *dims, json_t *types, size_t i, struct tens *t)
{
	json_t *d = json_array_get(dims, i);
	memset(t, 0, sizeof(*t));
	t->rank = -1;
	t->ty = json_string_value(json_array_get(types, i));
	t->dt = kj_dtype(t->ty);
	if (!json_is_array(d) || json_array_size(d) > MAXR || !t->ty || !strcmp(t->ty, "Scalar") ||
	    !strcmp(t->ty, "ScalarList") || !strcmp(t->ty, "TensorList") || !t->ty[0])
		return;
	for (size_t k = 0; k < json_array_size(d); k++) {
		json_t *v = json_array_get(d, k);
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return;
		t->d[k] = (int64_t)json_integer_value(v);
	}
	t->rank = (int)json_array_size(d);
}

/* Concrete input i as text; "" when absent. */
static const char *concrete_at(json_t *c, size_t i)
{
	const char *s = json_string_value(json_array_get(c, i));
	return s ? s : "";
}

static int unmapped(struct map *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int unmapped(struct map *m, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m->reason, sizeof(m->reason), fmt, ap);
	va_end(ap);
	m->ok = 0;
	return 0;
}

static int add_sym(struct map *m, const char *name, int64_t v)
{
	for (int i = 0; i < m->nsym; i++)
		if (!strcmp(m->sym[i], name))
			return i;
	if (m->nsym == MAP_MAX_SYMS)
		return -1;
	snprintf(m->sym[m->nsym], sizeof(m->sym[0]), "%s", name);
	m->val[m->nsym] = v;
	return m->nsym++;
}

/* Symbol names for the dims of a tensor of rank r. */
static void dim_names(int r, char names[MAXR][8])
{
	static const char *const n1[] = { "N" }, *const n2[] = { "M", "N" },
			  *const n3[] = { "B", "S", "D" }, *const n4[] = { "B", "H", "S", "D" };
	const char *const *tab = r == 1 ? n1 : r == 2 ? n2 : r == 3 ? n3 : r == 4 ? n4 : NULL;
	for (int i = 0; i < r; i++) {
		if (tab)
			snprintf(names[i], 8, "%s", tab[i]);
		else
			snprintf(names[i], 8, "D%d", i);
	}
}

/* "[B, 1, D]": dims of t right-aligned to the output od (rank r): a dim equal
 * to the output's is its symbol, a 1 where the output is larger the literal 1. */
static int dims_text(struct map *m, const struct tens *t, const int64_t *od, int r,
		     char names[MAXR][8], char *buf, size_t n)
{
	size_t k = 0;
	k += (size_t)snprintf(buf + k, n - k, "[");
	for (int i = 0; i < t->rank; i++) {
		int j = r - t->rank + i;
		if (j < 0)
			return -1;
		if (t->d[i] == od[j]) {
			if (add_sym(m, names[j], od[j]) < 0)
				return -1;
			k += (size_t)snprintf(buf + k, n - k, "%s%s", i ? ", " : "", names[j]);
		} else if (t->d[i] == 1) {
			k += (size_t)snprintf(buf + k, n - k, "%s1", i ? ", " : "");
		} else {
			return -1;
		}
		if (k >= n)
			return -1;
	}
	snprintf(buf + k, n - k, "]");
	return 0;
}

/* Broadcast of a and b (either may be rank 0); -1 when they do not broadcast. */
static int broadcast(const struct tens *a, const struct tens *b, int64_t *od)
{
	int r = a->rank > b->rank ? a->rank : b->rank;
	for (int j = 0; j < r; j++) {
		int ia = j - (r - a->rank), ib = j - (r - b->rank);
		int64_t x = ia >= 0 ? a->d[ia] : 1, y = ib >= 0 ? b->d[ib] : 1;
		if (x != y && x != 1 && y != 1)
			return -1;
		od[j] = x > y ? x : y;
	}
	return r;
}

static const char *dist_for(const char *dt, const char *op)
{
	if (dt && dt[0] == 'i')
		return "randint(0, 1000)";
	if (!strcmp(dt ? dt : "", "bool"))
		return "randint(0, 2)";
	if (op && (!strcmp(op, "log") || !strcmp(op, "sqrt") || !strcmp(op, "rsqrt") ||
		   !strcmp(op, "div")))
		return "uniform(0.1, 2.0)";
	return "normal";
}

/* Strips "aten::" and a trailing in-place '_' (not from copy_). */
static void base_op(const char *op, char *buf, size_t n)
{
	size_t k;
	snprintf(buf, n, "%s", strncmp(op, "aten::", 6) ? op : op + 6);
	k = strlen(buf);
	if (k > 1 && buf[k - 1] == '_' && strcmp(buf, "copy_") && buf[0] != '_')
		buf[k - 1] = 0;
}

static int map_unary(struct map *m, const char *kop, const struct tens *x, json_t *conc)
{
	char names[MAXR][8], dt[96];
	if (x->rank < 1)
		return unmapped(m, "a scalar input: too small for a task");
	if (!x->dt || !is_float(x->dt))
		return unmapped(m, "dtype %s: %s takes floating tensors here", x->ty, kop);
	dim_names(x->rank, names);
	if (dims_text(m, x, x->d, x->rank, names, dt, sizeof(dt)))
		return unmapped(m, "rank %d: too many dims", x->rank);
	sb_printf(&m->decl, "input  x: %s%s ~ %s\n", x->dt, dt, dist_for(x->dt, kop));
	sb_printf(&m->decl, "output y: %s%s\n", x->dt, dt);
	if (!strcmp(kop, "gelu") && !strcmp(concrete_at(conc, 1), "tanh"))
		sb_printf(&m->body, "y = gelu(x, approximate=\"tanh\")\n");
	else
		sb_printf(&m->body, "y = %s(x)\n", kop);
	snprintf(m->base, sizeof(m->base), "%s_%s", kop, x->dt);
	m->category = (!strcmp(kop, "relu") || !strcmp(kop, "sigmoid") || !strcmp(kop, "tanh") ||
		       !strcmp(kop, "silu") || !strcmp(kop, "gelu"))
			      ? "Activation"
			      : "Math";
	snprintf(m->about, sizeof(m->about), "%s(x) elementwise on %s", kop, x->dt);
	m->ok = 1;
	return 0;
}

/* A number as the trace wrote it, if it is one. */
static int number_text(const char *s, char *buf, size_t n)
{
	char *end;
	double v;
	if (!*s)
		return -1;
	v = strtod(s, &end);
	if (*end || !isfinite(v))
		return -1;
	snprintf(buf, n, "%.17g", v);
	if (!strchr(buf, '.') && !strchr(buf, 'e') && strchr(s, '.'))
		snprintf(buf + strlen(buf), n - strlen(buf), ".0");
	return 0;
}

static int map_binary(struct map *m, const char *kop, const struct tens *a, struct tens *b,
		      json_t *conc)
{
	static const struct {
		const char *op, *infix;
	} ops[] = { { "add", "+" }, { "sub", "-" }, { "mul", "*" }, { "div", "/" } };
	const char *infix = NULL, *out_dt;
	char names[MAXR][8], da[96], db[96], lit[64];
	int64_t od[MAXR];
	int r;
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(kop, ops[i].op))
			infix = ops[i].infix;
	if ((!strcmp(kop, "add") || !strcmp(kop, "sub")) && concrete_at(conc, 2)[0] &&
	    strcmp(concrete_at(conc, 2), "1"))
		return unmapped(m, "%s with alpha=%s", kop, concrete_at(conc, 2));
	if (!strcmp(kop, "div") && concrete_at(conc, 2)[0])
		return unmapped(m, "div with rounding_mode=%s", concrete_at(conc, 2));
	if (a->rank < 1)
		return unmapped(m, "the first operand is a scalar");
	if (!a->dt)
		return unmapped(m, "dtype %s has no kjudge dtype", a->ty);
	if (b->rank < 0) { /* a Python scalar */
		if (number_text(concrete_at(conc, 1), lit, sizeof(lit)))
			return unmapped(m, "the scalar operand's value is not recorded");
		out_dt = a->dt;
	} else if (b->rank == 0 && (!strcmp(b->ty, "double") || !strcmp(b->ty, "long int")) &&
		   is_float(a->dt)) {
		b->dt = a->dt; /* a wrapped Python number: it takes the tensor's dtype */
		out_dt = a->dt;
	} else {
		if (!b->dt)
			return unmapped(m, "dtype %s has no kjudge dtype", b->ty);
		if (strcmp(a->dt, b->dt))
			return unmapped(m, "mixed dtypes %s and %s", a->dt, b->dt);
		out_dt = a->dt;
	}
	if (!strcmp(out_dt, "bool") || (!strcmp(kop, "div") && !is_float(out_dt)))
		return unmapped(m, "%s on %s", kop, out_dt);
	r = b->rank > 0 ? broadcast(a, b, od) : a->rank;
	if (r < 0)
		return unmapped(m, "the operands do not broadcast");
	if (b->rank <= 0)
		memcpy(od, a->d, sizeof(a->d));
	dim_names(r, names);
	if (dims_text(m, a, od, r, names, da, sizeof(da)))
		return unmapped(m, "rank %d: too many dims", r);
	sb_printf(&m->decl, "input  a: %s%s ~ %s\n", a->dt, da, dist_for(a->dt, NULL));
	if (b->rank >= 0) {
		if (dims_text(m, b, od, r, names, db, sizeof(db)))
			return unmapped(m, "rank %d: too many dims", r);
		sb_printf(&m->decl, "input  b: %s%s ~ %s\n", b->dt, db, dist_for(b->dt, kop));
	}
	{
		struct tens o = { .rank = r };
		memcpy(o.d, od, sizeof(od));
		if (dims_text(m, &o, od, r, names, da, sizeof(da)))
			return unmapped(m, "rank %d: too many dims", r);
	}
	sb_printf(&m->decl, "output y: %s%s\n", out_dt, da);
	if (infix)
		sb_printf(&m->body, "y = a %s %s\n", infix, b->rank >= 0 ? "b" : lit);
	else
		sb_printf(&m->body, "y = %s(a, %s)\n", kop, b->rank >= 0 ? "b" : lit);
	snprintf(m->base, sizeof(m->base), "%s_%s", kop, out_dt);
	m->category = "Math";
	snprintf(m->about, sizeof(m->about), "%s with broadcasting on %s%s", kop, out_dt,
		 b->rank < 0 ? ", a scalar operand" : b->rank == 0 ? ", a 0-d operand" : "");
	m->ok = 1;
	return 0;
}

static int map_pow(struct map *m, const struct tens *x, const struct tens *e, json_t *conc)
{
	char names[MAXR][8], dt[96], lit[64];
	double ev;
	if (x->rank < 1 || e->rank >= 0)
		return unmapped(m, "pow with a tensor exponent or a scalar base");
	if (!x->dt || !is_float(x->dt))
		return unmapped(m, "pow on %s", x->ty);
	if (number_text(concrete_at(conc, 1), lit, sizeof(lit)))
		return unmapped(m, "the exponent's value is not recorded");
	ev = strtod(lit, NULL);
	dim_names(x->rank, names);
	if (dims_text(m, x, x->d, x->rank, names, dt, sizeof(dt)))
		return unmapped(m, "rank %d: too many dims", x->rank);
	sb_printf(&m->decl, "input  x: %s%s ~ %s\n", x->dt, dt,
		  ev == floor(ev) && fabs(ev) <= 4 && ev >= 0 ? "normal" : "uniform(0.1, 2.0)");
	sb_printf(&m->decl, "output y: %s%s\n", x->dt, dt);
	sb_printf(&m->body, "y = x ** %s\n", lit);
	snprintf(m->base, sizeof(m->base), "pow_%s", x->dt);
	m->category = "Math";
	snprintf(m->about, sizeof(m->about), "x ** %s elementwise on %s", lit, x->dt);
	m->ok = 1;
	return 0;
}

/* Parses "-1", "[-1]" or "[2]" into one dim; returns -1 on anything else. */
static int one_dim(const char *s, int rank, int *dim)
{
	char *end;
	long v;
	int list = *s == '[';
	if (list)
		s++;
	v = strtol(s, &end, 10);
	if (end == s || (list ? strcmp(end, "]") : *end != 0))
		return -1;
	if (v < 0)
		v += rank;
	if (v < 0 || v >= rank)
		return -1;
	*dim = (int)v;
	return 0;
}

/* Reductions and softmax: op(x, dim=, keepdim=). */
static int map_reduce(struct map *m, const char *kop, const struct tens *x, json_t *conc,
		      int has_keepdim, int keep_idx)
{
	char names[MAXR][8], dt[96], od[96];
	const char *ds = concrete_at(conc, 1), *ks = has_keepdim ? concrete_at(conc, keep_idx) : "";
	int dim, keep = !strcmp(ks, "True") || !strcmp(ks, "true") || !strcmp(ks, "1");
	int is_arg = !strcmp(kop, "argmax") || !strcmp(kop, "argmin");
	int is_sm = !strcmp(kop, "softmax") || !strcmp(kop, "log_softmax");
	size_t k = 0;
	if (x->rank < 1)
		return unmapped(m, "a scalar input");
	if (!x->dt || !is_float(x->dt))
		return unmapped(m, "%s on %s", kop, x->ty);
	if (one_dim(ds, x->rank, &dim))
		return unmapped(m, "the reduced dim is not recorded or not a single dim ('%s')", ds);
	if (is_sm && concrete_at(conc, 2)[0] && strcmp(concrete_at(conc, 2), "False") &&
	    strcmp(concrete_at(conc, 2), "None"))
		return unmapped(m, "%s with a dtype change (%s)", kop, concrete_at(conc, 2));
	dim_names(x->rank, names);
	if (dims_text(m, x, x->d, x->rank, names, dt, sizeof(dt)))
		return unmapped(m, "rank %d: too many dims", x->rank);
	k += (size_t)snprintf(od + k, sizeof(od) - k, "[");
	for (int i = 0, first = 1; i < x->rank; i++) {
		if (i == dim && !is_sm && !keep)
			continue;
		k += (size_t)snprintf(od + k, sizeof(od) - k, "%s%s", first ? "" : ", ",
				      i == dim && !is_sm ? "1" : names[i]);
		first = 0;
	}
	snprintf(od + k, sizeof(od) - k, "]");
	sb_printf(&m->decl, "input  x: %s%s ~ normal\n", x->dt, dt);
	sb_printf(&m->decl, "output y: %s%s\n", is_arg ? "i64" : x->dt, od);
	if (is_sm)
		sb_printf(&m->body, "y = %s(x, dim=%d)\n", kop, dim - x->rank);
	else
		sb_printf(&m->body, "y = %s(x, dim=%d%s)\n", kop, dim - x->rank,
			  keep ? ", keepdim=True" : "");
	snprintf(m->base, sizeof(m->base), "%s_%s", kop, x->dt);
	m->category = is_sm ? "Normalization" : "Reduce";
	snprintf(m->about, sizeof(m->about), "%s over dim %d%s on %s", kop, dim - x->rank,
		 keep ? " keeping it" : "", x->dt);
	m->ok = 1;
	return 0;
}

/* aten::mm / addmm: a transposed second operand (strides [1, K]) is an
 * nn.Linear weight [N, K]; otherwise a plain matmul. */
static int map_mm(struct map *m, const struct tens *a, const struct tens *b, const struct tens *bias,
		  json_t *strides, int b_idx, json_t *conc)
{
	json_t *bs = json_array_get(strides, b_idx);
	int transposed;
	if (a->rank != 2 || b->rank != 2 || a->d[1] != b->d[0])
		return unmapped(m, "operands are not [M, K] and [K, N]");
	if (!a->dt || !b->dt || strcmp(a->dt, b->dt) || !is_float(a->dt))
		return unmapped(m, "dtypes %s and %s", a->ty, b->ty);
	if (bias && (bias->rank != 1 || bias->d[0] != b->d[1] || !bias->dt || strcmp(bias->dt, a->dt)))
		return unmapped(m, "addmm with a bias that is not [N] of the same dtype");
	if (bias && ((concrete_at(conc, 3)[0] && strcmp(concrete_at(conc, 3), "1")) ||
		     (concrete_at(conc, 4)[0] && strcmp(concrete_at(conc, 4), "1"))))
		return unmapped(m, "addmm with beta or alpha other than 1");
	transposed = json_array_size(bs) == 2 && json_integer_value(json_array_get(bs, 0)) == 1 &&
		     json_integer_value(json_array_get(bs, 1)) == b->d[0] && b->d[1] > 1;
	add_sym(m, "M", a->d[0]);
	add_sym(m, "K", a->d[1]);
	add_sym(m, "N", b->d[1]);
	if (transposed) {
		sb_printf(&m->decl, "input  x: %s[M, K] ~ normal\n", a->dt);
		sb_printf(&m->decl, "param  w: %s[N, K] ~ kaiming\n", a->dt);
		if (bias)
			sb_printf(&m->decl, "param  b: %s[N] ~ uniform(-0.1, 0.1)\n", a->dt);
		sb_printf(&m->decl, "output y: %s[M, N]\n", a->dt);
		sb_printf(&m->body, "y = linear(x, w%s)\n", bias ? ", b" : "");
		snprintf(m->base, sizeof(m->base), "linear_%s", a->dt);
		snprintf(m->about, sizeof(m->about),
			 "nn.Linear as the trace ran it (aten::%s with a transposed weight): y = x @ w^T%s, %s",
			 bias ? "addmm" : "mm", bias ? " + b" : "", a->dt);
	} else {
		sb_printf(&m->decl, "input  a: %s[M, K] ~ normal\n", a->dt);
		sb_printf(&m->decl, "input  b: %s[K, N] ~ normal\n", a->dt);
		if (bias)
			sb_printf(&m->decl, "param  c: %s[N] ~ uniform(-0.1, 0.1)\n", a->dt);
		sb_printf(&m->decl, "output y: %s[M, N]\n", a->dt);
		sb_printf(&m->body, "y = matmul(a, b)%s\n", bias ? " + c" : "");
		snprintf(m->base, sizeof(m->base), "matmul_%s", a->dt);
		snprintf(m->about, sizeof(m->about), "Matrix product y = a @ b%s, %s", bias ? " + c" : "",
			 a->dt);
	}
	m->category = "MatrixMultiply";
	m->ok = 1;
	return 0;
}

static int map_bmm(struct map *m, const struct tens *a, const struct tens *b)
{
	if (a->rank != 3 || b->rank != 3 || a->d[0] != b->d[0] || a->d[2] != b->d[1])
		return unmapped(m, "operands are not [B, M, K] and [B, K, N]");
	if (!a->dt || !b->dt || strcmp(a->dt, b->dt) || !is_float(a->dt))
		return unmapped(m, "dtypes %s and %s", a->ty, b->ty);
	add_sym(m, "B", a->d[0]);
	add_sym(m, "M", a->d[1]);
	add_sym(m, "K", a->d[2]);
	add_sym(m, "N", b->d[2]);
	sb_printf(&m->decl, "input  a: %s[B, M, K] ~ normal\n", a->dt);
	sb_printf(&m->decl, "input  b: %s[B, K, N] ~ normal\n", a->dt);
	sb_printf(&m->decl, "output y: %s[B, M, N]\n", a->dt);
	sb_printf(&m->body, "y = bmm(a, b)\n");
	snprintf(m->base, sizeof(m->base), "bmm_%s", a->dt);
	snprintf(m->about, sizeof(m->about), "Batched matrix product y = a @ b, %s", a->dt);
	m->category = "MatrixMultiply";
	m->ok = 1;
	return 0;
}

/* copy_(dst, src) between dtypes: a cast. */
static int map_copy(struct map *m, const struct tens *dst, const struct tens *src)
{
	char names[MAXR][8], dt[96];
	if (dst->rank < 1 || src->rank != dst->rank || memcmp(dst->d, src->d, sizeof(dst->d)))
		return unmapped(m, "copy_ between different shapes (a broadcast fill)");
	if (!dst->dt || !src->dt)
		return unmapped(m, "copy_ from %s to %s", src->ty, dst->ty);
	if (!strcmp(dst->dt, src->dt))
		return unmapped(m, "copy_ within one dtype (a layout change): no task");
	dim_names(src->rank, names);
	if (dims_text(m, src, src->d, src->rank, names, dt, sizeof(dt)))
		return unmapped(m, "rank %d: too many dims", src->rank);
	sb_printf(&m->decl, "input  x: %s%s ~ %s\n", src->dt, dt, dist_for(src->dt, NULL));
	sb_printf(&m->decl, "output y: %s%s\n", dst->dt, dt);
	sb_printf(&m->body, "y = cast(x, %s)\n", dst->dt);
	snprintf(m->base, sizeof(m->base), "cast_%s_%s", src->dt, dst->dt);
	snprintf(m->about, sizeof(m->about), "dtype conversion %s -> %s (aten::copy_ / Tensor.to)",
		 src->dt, dst->dt);
	m->category = "Math";
	m->ok = 1;
	return 0;
}

/* Attention entry points: where is_causal, scale and dropout_p are among the
 * concrete inputs, and the index of the optional bias (-1: none). */
static const struct attn_sig {
	const char *op;
	int causal, scale, dropout, bias;
} attn_sigs[] = {
	{ "aten::_cudnn_attention_forward", 10, 12, 9, 3 },
	{ "aten::_scaled_dot_product_cudnn_attention", 6, 8, 5, 3 },
	{ "aten::_scaled_dot_product_flash_attention", 4, 6, 3, -1 },
	{ "aten::_scaled_dot_product_efficient_attention", 6, 7, 5, 3 },
	{ "aten::scaled_dot_product_attention", 5, 6, 4, 3 },
};

/* Attention with grouped KV heads (HF's repeat_kv order: query head
 * kv * G + g reads kv head kv), q [B, KV*G, S, D], k, v [B, KV, T, D], as the
 * sdpa op.  Non-causal: q viewed as [B, KV, G*S, D] attends to k and v as
 * they are.  Causal (top-left aligned, as torch's is_causal): each group of G
 * heads needs its own rows, so q is [B, KV, G, S, D] and k, v are repeated G
 * times along a new dim (cat: G <= 4, a literal of the task). */
static int map_attention(struct map *m, const struct attn_sig *sg, json_t *dims, json_t *types,
			 json_t *conc)
{
	struct tens q, k, v;
	const char *cs = concrete_at(conc, (size_t)sg->causal), *ss = concrete_at(conc, (size_t)sg->scale);
	const char *dp = concrete_at(conc, (size_t)sg->dropout);
	char lit[64];
	int causal;
	int64_t g;
	tensor_at(dims, types, 0, &q);
	tensor_at(dims, types, 1, &k);
	tensor_at(dims, types, 2, &v);
	if (q.rank != 4 || k.rank != 4 || v.rank != 4)
		return unmapped(m, "attention operands are not 4-D");
	if (!q.dt || !is_float(q.dt) || !k.dt || !v.dt || strcmp(q.dt, k.dt) || strcmp(q.dt, v.dt))
		return unmapped(m, "attention dtypes %s %s %s", q.ty, k.ty, v.ty);
	if (q.d[0] != k.d[0] || memcmp(k.d, v.d, sizeof(k.d)) || q.d[3] != k.d[3] || !k.d[1] ||
	    q.d[1] % k.d[1])
		return unmapped(m, "attention shapes q %lldx%lldx%lldx%lld k %lldx%lldx%lldx%lld",
				(long long)q.d[0], (long long)q.d[1], (long long)q.d[2], (long long)q.d[3],
				(long long)k.d[0], (long long)k.d[1], (long long)k.d[2], (long long)k.d[3]);
	if (strcmp(cs, "True") && strcmp(cs, "False"))
		return unmapped(m, "attention whose is_causal is not recorded");
	causal = !strcmp(cs, "True");
	g = q.d[1] / k.d[1];
	if (causal && g > 4)
		return unmapped(m, "causal attention with %lld query heads per KV head (at most 4)",
				(long long)g);
	if (dp[0] && strtod(dp, NULL) != 0)
		return unmapped(m, "attention with dropout %s", dp);
	if (sg->bias >= 0) {
		json_t *bd = json_array_get(dims, (size_t)sg->bias);
		if (json_array_size(bd))
			return unmapped(m, "attention with a mask or bias");
	}
	if (number_text(ss, lit, sizeof(lit)))
		snprintf(lit, sizeof(lit), "%.17g", 1.0 / sqrt((double)q.d[3]));
	add_sym(m, "B", q.d[0]);
	add_sym(m, "KV", k.d[1]);
	if (!causal) {
		add_sym(m, "G", g);
		add_sym(m, "S", q.d[2]);
		add_sym(m, "D", q.d[3]);
		add_sym(m, "T", k.d[2]);
		sb_printf(&m->decl, "input  q: %s[B, KV*G, S, D] ~ normal\n", q.dt);
		sb_printf(&m->decl, "input  k: %s[B, KV, T, D] ~ normal\n", q.dt);
		sb_printf(&m->decl, "input  v: %s[B, KV, T, D] ~ normal\n", q.dt);
		sb_printf(&m->decl, "output o: %s[B, KV*G, S, D]\n", q.dt);
		sb_printf(&m->body, "o = reshape(sdpa(reshape(q, [B, KV, -1, D]), k, v, scale=%s), [B, -1, S, D])\n",
			  lit);
	} else {
		char hs[32];
		add_sym(m, "S", q.d[2]);
		add_sym(m, "D", q.d[3]);
		add_sym(m, "T", k.d[2]);
		if (g == 1)
			snprintf(hs, sizeof(hs), "KV");
		else
			snprintf(hs, sizeof(hs), "KV*%lld", (long long)g);
		sb_printf(&m->decl, "input  q: %s[B, %s, S, D] ~ normal\n", q.dt, hs);
		sb_printf(&m->decl, "input  k: %s[B, KV, T, D] ~ normal\n", q.dt);
		sb_printf(&m->decl, "input  v: %s[B, KV, T, D] ~ normal\n", q.dt);
		sb_printf(&m->decl, "output o: %s[B, %s, S, D]\n", q.dt, hs);
		if (g == 1) {
			sb_printf(&m->body, "o = sdpa(q, k, v, causal=True, scale=%s)\n", lit);
		} else {
			const char *rep[] = { "", "", "k1, k1", "k1, k1, k1", "k1, k1, k1, k1" };
			const char *repv[] = { "", "", "v1, v1", "v1, v1, v1", "v1, v1, v1, v1" };
			sb_printf(&m->body, "k1 = reshape(k, [B, KV, 1, T, D])\n");
			sb_printf(&m->body, "v1 = reshape(v, [B, KV, 1, T, D])\n");
			sb_printf(&m->body,
				  "o = reshape(sdpa(reshape(q, [B, KV, %lld, S, D]), cat(%s, dim=2), cat(%s, dim=2), "
				  "causal=True, scale=%s), [B, -1, S, D])\n",
				  (long long)g, rep[g], repv[g], lit);
		}
	}
	/* outputs are averages of ~T values (RMS ~ 1/sqrt(T)): an atol below
	   them.  16-bit weights (as flash kernels round them) and a 16-bit
	   output put up to 1.2e-2 on the largest outputs and 2.2e-3 on small
	   ones (measured on the H200 and simulated on the CPU): atol 5e-3 */
	if (!strcmp(q.dt, "f32"))
		snprintf(m->tol, sizeof(m->tol), "tol atol=1e-5 rtol=1e-4\n");
	else
		snprintf(m->tol, sizeof(m->tol), "tol atol=5e-3 rtol=1e-2\n");
	snprintf(m->base, sizeof(m->base), "%sattention_%s", causal ? "causal_" : "", q.dt);
	if (causal)
		snprintf(m->about, sizeof(m->about),
			 "Causal attention (top-left), %lld query heads per KV head: sdpa(q, k, v, causal=True, scale=%s), %s",
			 (long long)g, lit, q.dt);
	else
		snprintf(m->about, sizeof(m->about),
			 "Non-causal attention with grouped KV heads (q heads = KV*G): sdpa(q, k, v, scale=%s), %s",
			 lit, q.dt);
	m->category = "MatrixMultiply";
	m->ok = 1;
	return 0;
}

/* aten::cat: TensorList types are not recorded; the element size comes from
 * the kernel (CatArrayBatchedCopy<OpaqueType<N>>), and cat moves bits, so a
 * dtype of that size computes the same. */
static int map_cat(struct map *m, json_t *dims, json_t *conc, const char *kernel)
{
	json_t *list = json_array_get(dims, 0);
	const char *op = kernel ? strstr(kernel, "OpaqueType<") : NULL;
	const char *dt;
	char names[MAXR][8], buf[128], tn[4] = "a";
	struct tens t[4];
	int n = (int)json_array_size(list), rank, dim;
	long esz;
	size_t k;
	if (n < 2 || n > 4)
		return unmapped(m, "cat of %d tensors (the cat op takes 2 to 4)", n);
	if (!op)
		return unmapped(m, "cat: the dtype is not recorded (TensorList) nor seen in the kernel");
	esz = strtol(op + 11, NULL, 10);
	dt = esz == 2 ? "bf16" : esz == 4 ? "f32" : esz == 8 ? "i64" : esz == 1 ? "i8" : NULL;
	if (!dt)
		return unmapped(m, "cat of %ld-byte elements", esz);
	{ /* cat of one tensor with empty ones (a KV cache's first fill): a copy */
		int full = -1, nfull = 0;
		for (int i = 0; i < n; i++) {
			json_t *d = json_array_get(list, (size_t)i);
			int empty = !json_is_array(d) || !json_array_size(d);
			for (k = 0; json_is_array(d) && k < json_array_size(d); k++)
				empty |= json_integer_value(json_array_get(d, k)) == 0;
			if (!empty) {
				full = i;
				nfull++;
			}
		}
		if (nfull == 1) {
			json_t *d = json_array_get(list, (size_t)full);
			struct tens x = { .rank = (int)json_array_size(d), .dt = dt };
			char dtext[96];
			if (x.rank > MAXR)
				return unmapped(m, "rank %d: too many dims", x.rank);
			for (k = 0; k < json_array_size(d); k++)
				x.d[k] = (int64_t)json_integer_value(json_array_get(d, k));
			dim_names(x.rank, names);
			if (dims_text(m, &x, x.d, x.rank, names, dtext, sizeof(dtext)))
				return unmapped(m, "rank %d: too many dims", x.rank);
			sb_printf(&m->decl, "input  x: %s%s ~ %s\n", dt, dtext, dist_for(dt, NULL));
			sb_printf(&m->decl, "output y: %s%s\n", dt, dtext);
			sb_printf(&m->body, "y = reshape(x, %s)\n", dtext);
			snprintf(m->base, sizeof(m->base), "copy_%s", dt);
			snprintf(m->about, sizeof(m->about),
				 "A copy: cat of one tensor with empty ones (%ld-byte elements in the trace's kernel: %s)",
				 esz, dt);
			m->category = "Index";
			m->ok = 1;
			return 0;
		}
	}
	for (int i = 0; i < n; i++) {
		json_t *d = json_array_get(list, (size_t)i);
		memset(&t[i], 0, sizeof(t[i]));
		t[i].rank = (int)json_array_size(d);
		if (!json_is_array(d) || t[i].rank < 1 || t[i].rank > MAXR)
			return unmapped(m, "cat with an empty or scalar tensor (a copy)");
		for (k = 0; k < json_array_size(d); k++) {
			t[i].d[k] = (int64_t)json_integer_value(json_array_get(d, k));
			if (t[i].d[k] < 1)
				return unmapped(m, "cat with an empty tensor (a copy)");
		}
	}
	rank = t[0].rank;
	if (one_dim(concrete_at(conc, 1), rank, &dim))
		return unmapped(m, "cat: the dim is not recorded");
	for (int i = 1; i < n; i++) {
		if (t[i].rank != rank)
			return unmapped(m, "cat of tensors of different ranks");
		for (int j = 0; j < rank; j++)
			if (j != dim && t[i].d[j] != t[0].d[j])
				return unmapped(m, "cat of tensors whose other dims differ");
	}
	dim_names(rank, names);
	{
		struct sb out = { 0 };
		char sym[MAXR][8];
		for (int i = 0; i < n; i++) {
			size_t p = 0;
			p += (size_t)snprintf(buf + p, sizeof(buf) - p, "[");
			for (int j = 0; j < rank; j++) {
				if (j == dim) {
					if (t[i].d[j] == 1) {
						snprintf(sym[i], sizeof(sym[i]), "1");
					} else {
						int same = -1;
						for (int h = 0; h < i; h++)
							if (t[h].d[j] == t[i].d[j] && strcmp(sym[h], "1"))
								same = h;
						if (same >= 0)
							snprintf(sym[i], sizeof(sym[i]), "%s", sym[same]);
						else if (i == 0)
							snprintf(sym[i], sizeof(sym[i]), "%s", names[j]);
						else
							snprintf(sym[i], sizeof(sym[i]), "%.5s%d", names[j], i + 1);
						if (add_sym(m, sym[i], t[i].d[j]) < 0)
							return unmapped(m, "too many dims");
					}
					p += (size_t)snprintf(buf + p, sizeof(buf) - p, "%s%s", j ? ", " : "", sym[i]);
				} else {
					if (add_sym(m, names[j], t[0].d[j]) < 0)
						return unmapped(m, "too many dims");
					p += (size_t)snprintf(buf + p, sizeof(buf) - p, "%s%s", j ? ", " : "", names[j]);
				}
			}
			snprintf(buf + p, sizeof(buf) - p, "]");
			tn[0] = (char)('a' + i);
			sb_printf(&m->decl, "input  %s: %s%s ~ %s\n", tn, dt, buf, dist_for(dt, NULL));
		}
		sb_printf(&out, "[");
		for (int j = 0; j < rank; j++) {
			sb_printf(&out, "%s", j ? ", " : "");
			if (j == dim)
				for (int i = 0; i < n; i++)
					sb_printf(&out, "%s%s", i ? "+" : "", sym[i]);
			else
				sb_printf(&out, "%s", names[j]);
		}
		sb_printf(&out, "]");
		sb_printf(&m->decl, "output y: %s%s\n", dt, out.oom ? "[]" : out.p);
		sb_release(&out);
	}
	sb_printf(&m->body, "y = cat(");
	for (int i = 0; i < n; i++)
		sb_printf(&m->body, "%c, ", 'a' + i);
	sb_printf(&m->body, "dim=%d)\n", dim - rank);
	snprintf(m->base, sizeof(m->base), "cat_%s", dt);
	snprintf(m->about, sizeof(m->about),
		 "Concatenation of %d tensors along dim %d (%ld-byte elements in the trace's kernel: %s)", n,
		 dim - rank, esz, dt);
	m->category = "Index";
	m->ok = 1;
	return 0;
}

/* index_select(weight [V, D], 0, idx [N]): an embedding lookup. */
static int map_index_select(struct map *m, const struct tens *w, const struct tens *idx,
			    json_t *conc)
{
	if (strcmp(concrete_at(conc, 1), "0") || w->rank != 2 || idx->rank != 1)
		return unmapped(m, "index_select other than rows of a matrix by a 1-D index");
	if (!w->dt || !idx->dt || (strcmp(idx->dt, "i64") && strcmp(idx->dt, "i32")))
		return unmapped(m, "index_select of %s by %s", w->ty, idx->ty);
	add_sym(m, "N", idx->d[0]);
	add_sym(m, "V", w->d[0]);
	add_sym(m, "D", w->d[1]);
	sb_printf(&m->decl, "input  idx: %s[N] ~ randint(0, V)\n", idx->dt);
	sb_printf(&m->decl, "param  w: %s[V, D] ~ normal\n", w->dt);
	sb_printf(&m->decl, "output y: %s[N, D]\n", w->dt);
	sb_printf(&m->body, "y = embedding(idx, w)\n");
	snprintf(m->base, sizeof(m->base), "embedding_%s", w->dt);
	snprintf(m->about, sizeof(m->about),
		 "Embedding lookup y = w[idx] (aten::index_select of rows), %s", w->dt);
	m->category = "Index";
	m->ok = 1;
	return 0;
}

void map_agg(const struct kj_trace_agg *a, struct map *m)
{
	static const char *const unary[] = { "relu", "sigmoid", "tanh", "silu", "gelu", "exp", "log",
					     "sqrt", "rsqrt", "abs", "neg" };
	static const char *const binary[] = { "add", "sub", "mul", "div", "maximum", "minimum" };
	json_t *dims = json_loads(a->dims, 0, NULL), *types = json_loads(a->types, 0, NULL);
	json_t *strides = json_loads(a->strides, 0, NULL), *conc = json_loads(a->concrete, 0, NULL);
	char op[64];
	struct tens t0, t1, t2;
	memset(m, 0, sizeof(*m));
	base_op(a->op, op, sizeof(op));
	tensor_at(dims, types, 0, &t0);
	tensor_at(dims, types, 1, &t1);
	tensor_at(dims, types, 2, &t2);
	if (!strcmp(a->op, "(no operator)")) {
		unmapped(m, "kernels launched outside any recorded operator");
		goto out;
	}
	if (!json_is_array(dims) || !json_is_array(types)) {
		unmapped(m, "no input shapes recorded (profile with record_shapes=True)");
		goto out;
	}
	for (size_t i = 0; i < sizeof(attn_sigs) / sizeof(attn_sigs[0]); i++)
		if (!strcmp(a->op, attn_sigs[i].op)) {
			map_attention(m, &attn_sigs[i], dims, types, conc);
			goto out;
		}
	if (strncmp(a->op, "aten::", 6)) {
		unmapped(m, "not an aten operator");
		goto out;
	}
	for (size_t i = 0; i < sizeof(unary) / sizeof(unary[0]); i++)
		if (!strcmp(op, unary[i])) {
			map_unary(m, op, &t0, conc);
			goto out;
		}
	for (size_t i = 0; i < sizeof(binary) / sizeof(binary[0]); i++)
		if (!strcmp(op, binary[i])) {
			map_binary(m, op, &t0, &t1, conc);
			goto out;
		}
	if (!strcmp(op, "pow"))
		map_pow(m, &t0, &t1, conc);
	else if (!strcmp(op, "mean") || !strcmp(op, "sum") || !strcmp(op, "prod") ||
		 !strcmp(op, "logsumexp"))
		map_reduce(m, op, &t0, conc, 1, 2);
	else if (!strcmp(op, "amax") || !strcmp(op, "amin"))
		map_reduce(m, !strcmp(op, "amax") ? "max" : "min", &t0, conc, 1, 2);
	else if (!strcmp(op, "argmax") || !strcmp(op, "argmin"))
		map_reduce(m, op, &t0, conc, 1, 2);
	else if (!strcmp(op, "softmax") || !strcmp(op, "_softmax"))
		map_reduce(m, "softmax", &t0, conc, 0, 0);
	else if (!strcmp(op, "log_softmax") || !strcmp(op, "_log_softmax"))
		map_reduce(m, "log_softmax", &t0, conc, 0, 0);
	else if (!strcmp(op, "mm"))
		map_mm(m, &t0, &t1, NULL, strides, 1, conc);
	else if (!strcmp(op, "addmm"))
		map_mm(m, &t1, &t2, &t0, strides, 2, conc);
	else if (!strcmp(op, "bmm"))
		map_bmm(m, &t0, &t1);
	else if (!strcmp(op, "copy_"))
		map_copy(m, &t0, &t1);
	else if (!strcmp(op, "cat"))
		map_cat(m, dims, conc, a->kernel);
	else if (!strcmp(op, "index_select"))
		map_index_select(m, &t0, &t2, conc);
	else
		unmapped(m, "no kjudge op for %s", a->op);
out:
	if (m->ok && (m->decl.oom || m->body.oom))
		unmapped(m, "out of memory");
	json_decref(dims);
	json_decref(types);
	json_decref(strides);
	json_decref(conc);
}
