/*
 * Binding a task to one shape list entry: concrete dims, attribute values,
 * distributions, shape/dtype inference through every node, costs.  Also the
 * candidate ABI (prototype and argument order), which follows from the
 * declarations alone.
 */
#include "kjudge/task.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int sym_index(const kj_task *t, const char *name)
{
	for (int i = 0; i < t->nsyms; i++)
		if (!strcmp(t->syms[i], name))
			return i;
	return -1;
}

int kj_expr_eval_int(const kj_task *t, const kj_expr *e, const int64_t *symval, int64_t *out,
		     struct kj_err *err)
{
	int64_t a, b;
	int rc;
	switch (e->kind) {
	case KJ_X_INT:
	case KJ_X_BOOL:
		*out = e->ival;
		return 0;
	case KJ_X_IDENT: {
		int si = sym_index(t, e->name);
		if (si < 0)
			return kj_err_set(err, KJ_E_TYPE, "%s:%d:%d: '%s' is not a dim symbol", t->path,
					  e->loc.line, e->loc.col, e->name);
		*out = symval[si];
		return 0;
	}
	case KJ_X_NEG:
		if ((rc = kj_expr_eval_int(t, e->args[0], symval, &a, err)))
			return rc;
		if (a == INT64_MIN)
			goto overflow;
		*out = -a;
		return 0;
	case KJ_X_BIN:
		if ((rc = kj_expr_eval_int(t, e->args[0], symval, &a, err)) ||
		    (rc = kj_expr_eval_int(t, e->args[1], symval, &b, err)))
			return rc;
		switch (e->op) {
		case '+':
			if (__builtin_add_overflow(a, b, out))
				goto overflow;
			return 0;
		case '-':
			if (__builtin_sub_overflow(a, b, out))
				goto overflow;
			return 0;
		case '*':
			if (__builtin_mul_overflow(a, b, out))
				goto overflow;
			return 0;
		case '/':
			if (b == 0)
				return kj_err_set(err, KJ_E_TYPE, "%s:%d:%d: division by zero in a dim expression",
						  t->path, e->loc.line, e->loc.col);
			if (a == INT64_MIN && b == -1)
				goto overflow;
			/* floor division, as Python's // on dims */
			*out = a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
			return 0;
		}
		break;
	default:
		break;
	}
	return kj_err_set(err, KJ_E_TYPE, "%s:%d:%d: expected an integer expression", t->path,
			  e->loc.line, e->loc.col);
overflow:
	return kj_err_set(err, KJ_E_TYPE, "%s:%d:%d: dim expression overflows", t->path, e->loc.line,
			  e->loc.col);
}

/* Tensors beyond this many elements are rejected when binding, which also
 * keeps every element count and byte size far from int64 overflow. */
#define MAX_NUMEL ((int64_t)1 << 40)

/* 1 when every dim is >= 0 and the product is at most MAX_NUMEL. */
static int numel_ok(const kj_shape *s)
{
	int64_t n = 1;
	for (int i = 0; i < s->rank; i++) {
		if (s->d[i] < 0)
			return 0;
		if (s->d[i] == 0)
			return 1;
	}
	for (int i = 0; i < s->rank; i++)
		if (__builtin_mul_overflow(n, s->d[i], &n) || n > MAX_NUMEL)
			return 0;
	return 1;
}

char *kj_binding_str(const kj_task *t, const kj_binding *b, char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = 0;
	for (int i = 0; i < t->nsyms && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s=%lld", i ? " " : "", t->syms[i],
					(long long)b->val[i]);
	return buf;
}

static const char *bind_kind(const kj_binding *b)
{
	return b->bench == 0 ? "check" : b->bench == 1 ? "bench" : "bench cpu";
}

/* An error raised while binding: location, message, and which shape. */
__attribute__((format(printf, 5, 6))) static int berr(const kj_task *t, int bind, kj_loc loc,
						       struct kj_err *err, const char *fmt, ...)
{
	char msg[640], bs[256];
	va_list ap;
	int nth = 0;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (int i = 0; i <= bind; i++)
		nth += t->binds[i].bench == t->binds[bind].bench;
	kj_binding_str(t, &t->binds[bind], bs, sizeof(bs));
	return kj_err_set(err, KJ_E_TYPE, "%s:%d:%d: %s (%s shape %d: %s)", t->path, loc.line,
			  loc.col, msg, bind_kind(&t->binds[bind]), nth, bs);
}

static int eval_num(const kj_task *t, const kj_expr *e, const int64_t *symval, double *out)
{
	int64_t v;
	if (e->kind == KJ_X_FLOAT) {
		*out = e->fval;
		return 0;
	}
	if (kj_expr_eval_int(t, e, symval, &v, NULL))
		return -1;
	*out = (double)v;
	return 0;
}

static const char *attr_kind_name(kj_attr_kind k)
{
	switch (k) {
	case KJ_ATTR_INT: return "an integer";
	case KJ_ATTR_FLOAT: return "a number";
	case KJ_ATTR_BOOL: return "True or False";
	case KJ_ATTR_INTS: return "a list of integers";
	case KJ_ATTR_DTYPE: return "a dtype (f32 f16 bf16 f8e4m3 i8 i32 i64 bool)";
	case KJ_ATTR_STR: return "a string";
	default: return "a value";
	}
}

static int bind_attr(const kj_task *t, int bind, const kj_op *op, const kj_param *pm,
		     const kj_expr *e, kj_attr *a, struct kj_err *err)
{
	const int64_t *sv = t->binds[bind].val;
	memset(a, 0, sizeof(*a));
	if (!e) {
		*a = pm->def;
		return 0;
	}
	a->kind = pm->kind;
	switch (pm->kind) {
	case KJ_ATTR_INT:
		if (e->kind == KJ_X_FLOAT || kj_expr_eval_int(t, e, sv, &a->i, NULL))
			goto bad;
		return 0;
	case KJ_ATTR_FLOAT:
		if (eval_num(t, e, sv, &a->f))
			goto bad;
		return 0;
	case KJ_ATTR_BOOL:
		if (e->kind != KJ_X_BOOL)
			goto bad;
		a->i = e->ival;
		return 0;
	case KJ_ATTR_INTS:
		if (e->kind == KJ_X_LIST) {
			if (e->nargs > KJ_MAX_RANK)
				return berr(t, bind, e->loc, err, "%s: list '%s' longer than %d", op->name,
					    pm->name, KJ_MAX_RANK);
			for (int i = 0; i < e->nargs; i++) {
				if (e->args[i]->kind == KJ_X_FLOAT ||
				    kj_expr_eval_int(t, e->args[i], sv, &a->ints[i], NULL))
					goto bad;
				if (e->args[i]->kind == KJ_X_IDENT)
					a->label[i] = t->syms[sym_index(t, e->args[i]->name)];
			}
			a->n = e->nargs;
			return 0;
		}
		if (e->kind == KJ_X_FLOAT || kj_expr_eval_int(t, e, sv, &a->ints[0], NULL))
			goto bad;
		if (e->kind == KJ_X_IDENT)
			a->label[0] = t->syms[sym_index(t, e->name)];
		a->n = 1;
		return 0;
	case KJ_ATTR_DTYPE:
		if (e->kind != KJ_X_IDENT || kj_dtype_from_name(e->name, &a->dt))
			goto bad;
		return 0;
	case KJ_ATTR_STR:
		if (e->kind != KJ_X_STR || strlen(e->name) >= sizeof(a->s))
			goto bad;
		memcpy(a->s, e->name, strlen(e->name) + 1);
		return 0;
	default:
		break;
	}
bad:
	return berr(t, bind, e->loc, err, "%s: argument '%s' must be %s", op->name, pm->name,
		    attr_kind_name(pm->kind));
}

static void decl_str(const kj_tinfo *ti, char *buf, size_t len)
{
	size_t off = (size_t)snprintf(buf, len, "%s[", kj_dtype_name(ti->dtype));
	for (int i = 0; i < ti->shape.rank && off < len; i++) {
		char d[64];
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "",
					kj_dim_str(ti, i, d, sizeof(d)));
	}
	if (off < len)
		snprintf(buf + off, len - off, "]");
}

static int bind_dist(const kj_task *t, int bind, const kj_value *v, const kj_tinfo *ti,
		     kj_dist *d, struct kj_err *err)
{
	const int64_t *sv = t->binds[bind].val;
	int64_t lo, hi;
	d->kind = v->dist;
	switch (v->dist) {
	case KJ_DIST_NORMAL:
		d->a = 0;
		d->b = 1;
		break;
	case KJ_DIST_UNIFORM:
		d->a = -1;
		d->b = 1;
		break;
	case KJ_DIST_RANDINT:
		if (kj_expr_eval_int(t, v->dist_args[0], sv, &lo, err) ||
		    kj_expr_eval_int(t, v->dist_args[1], sv, &hi, err))
			return KJ_E_TYPE;
		if (hi <= lo)
			return berr(t, bind, v->loc, err, "%s: randint(%lld, %lld) is empty", v->name,
				    (long long)lo, (long long)hi);
		d->a = (double)lo;
		d->b = (double)hi;
		return 0;
	case KJ_DIST_KAIMING: {
		double fan_in = ti->shape.rank == 0 ? 1 :
				ti->shape.rank == 1 ? (double)ti->shape.d[0] :
				(double)kj_shape_numel(&ti->shape) / (double)ti->shape.d[0];
		d->a = 1.0 / sqrt(fan_in);
		d->b = 0;
		return 0;
	}
	case KJ_DIST_SPD: {
		int r = ti->shape.rank;
		if (r < 2 || ti->shape.d[r - 1] != ti->shape.d[r - 2])
			return berr(t, bind, v->loc, err,
				    "%s: spd needs square matrices in the last two dims", v->name);
		d->a = (double)ti->shape.d[r - 1];
		d->b = 0;
		return 0;
	}
	default:
		d->a = d->b = 0;
		return 0;
	}
	if (v->dist_args[0]) {
		if (eval_num(t, v->dist_args[0], sv, &d->a) || eval_num(t, v->dist_args[1], sv, &d->b))
			return berr(t, bind, v->loc, err, "%s: bad distribution arguments", v->name);
	}
	if (v->dist == KJ_DIST_UNIFORM && !(d->b > d->a))
		return berr(t, bind, v->loc, err, "%s: uniform(%g, %g) is empty", v->name, d->a, d->b);
	if (v->dist == KJ_DIST_NORMAL && !(d->b >= 0))
		return berr(t, bind, v->loc, err, "%s: normal std must be >= 0", v->name);
	return 0;
}

/* f8e4m3 is a storage type: only cast() (to and from it) and reshape (which
 * moves no bytes) take it; any other op fails here, naming op and dtype,
 * rather than computing on f8 values (what PyTorch does not do either). */
static int f8_operands_ok(const kj_task *t, int bind, const kj_node *node, const kj_bnode *bn,
			  struct kj_err *err)
{
	const char *name = node->op->name;
	if (!strcmp(name, "cast") || !strcmp(name, "reshape"))
		return 0;
	for (int k = 0; k < bn->nin; k++)
		if (bn->present[k] && bn->in[k].dtype == KJ_F8E4M3)
			return berr(t, bind, node->loc, err,
				    "%s: operand %d has dtype f8e4m3, which only cast() and reshape take "
				    "(cast it to f32, f16 or bf16 first)",
				    name, k + 1);
	if (bn->out.dtype == KJ_F8E4M3) /* after infer: an op that makes f8 values */
		return berr(t, bind, node->loc, err,
			    "%s: gives dtype f8e4m3, which only cast() may produce", name);
	return 0;
}

int kj_plan_build(const kj_task *t, int bind, kj_plan *p, struct kj_err *err)
{
	const int64_t *sv;
	int rc = 0;
	memset(p, 0, sizeof(*p));
	if (bind < 0 || bind >= t->nbind)
		return kj_err_set(err, KJ_E_USAGE, "no shape %d in task %s", bind, t->id);
	sv = t->binds[bind].val;
	p->task = t;
	p->bind = bind;
	p->vals = calloc((size_t)t->nvals + 1, sizeof(*p->vals));
	p->nodes = calloc((size_t)t->nnodes + 1, sizeof(*p->nodes));
	p->dists = calloc((size_t)t->nvals + 1, sizeof(*p->dists));
	if (!p->vals || !p->nodes || !p->dists) {
		kj_plan_release(p);
		return kj_err_set(err, KJ_E_NOMEM, "out of memory binding task %s", t->id);
	}
	for (int i = 0; i < t->nvals && !rc; i++) {
		const kj_value *v = &t->vals[i];
		kj_tinfo *ti = &p->vals[i];
		if (v->kind == KJ_V_CONST) {
			ti->dtype = v->cdtype;
			ti->weak = 1;
			continue;
		}
		if (v->kind == KJ_V_TEMP)
			continue;
		ti->dtype = v->dtype;
		ti->shape.rank = v->rank;
		for (int k = 0; k < v->rank && !rc; k++) {
			const kj_expr *e = v->dims[k];
			rc = kj_expr_eval_int(t, e, sv, &ti->shape.d[k], err);
			if (rc)
				break;
			if (ti->shape.d[k] < 1)
				rc = berr(t, bind, e->loc, err, "%s: dim %d evaluates to %lld (must be >= 1)",
					  v->name, k, (long long)ti->shape.d[k]);
			if (e->kind == KJ_X_IDENT)
				ti->label[k] = t->syms[sym_index(t, e->name)];
		}
		if (!rc && !numel_ok(&ti->shape))
			rc = berr(t, bind, v->loc, err, "%s: more than 2^40 elements", v->name);
		if (!rc && v->kind != KJ_V_OUTPUT)
			rc = bind_dist(t, bind, v, ti, &p->dists[i], err);
		if (!rc && v->kind != KJ_V_TEMP)
			p->min_bytes += (double)kj_shape_numel(&ti->shape) * (double)kj_dtype_size(ti->dtype);
	}
	for (int n = 0; n < t->nnodes && !rc; n++) {
		const kj_node *node = &t->nodes[n];
		kj_bnode *bn = &p->nodes[n];
		const kj_op *op = node->op;
		char msg[512] = "";
		int ti = 0, ai = 0;
		kj_cost c = { 0, 0 };
		bn->op = op;
		for (int k = 0; k < op->nparams && !rc; k++) {
			const kj_param *pm = &op->params[k];
			if (pm->kind == KJ_ATTR_TENSOR) {
				if (node->in[ti] >= 0) {
					bn->present[ti] = 1;
					bn->in[ti] = p->vals[node->in[ti]];
				}
				ti++;
			} else {
				rc = bind_attr(t, bind, op, pm, node->attr[ai], &bn->attr[ai], err);
				ai++;
			}
		}
		if (rc)
			break;
		bn->nin = ti;
		if ((rc = f8_operands_ok(t, bind, node, bn, err)))
			break;
		if (op->infer(bn, msg, sizeof(msg))) {
			rc = berr(t, bind, node->loc, err, "%s", msg[0] ? msg : "invalid operands");
			break;
		}
		if ((rc = f8_operands_ok(t, bind, node, bn, err)))
			break;
		if (!numel_ok(&bn->out.shape)) {
			rc = berr(t, bind, node->loc, err, "%s: result has more than 2^40 elements", op->name);
			break;
		}
		if (op->cost)
			op->cost(bn, &c);
		p->flops += c.flops;
		p->op_bytes += c.min_bytes;
		{
			const kj_value *ov = &t->vals[node->out];
			kj_tinfo *dst = &p->vals[node->out];
			if (ov->kind == KJ_V_OUTPUT) {
				char want[256], got[256];
				int same = dst->dtype == bn->out.dtype && kj_shape_eq(&dst->shape, &bn->out.shape);
				if (!same) {
					decl_str(dst, want, sizeof(want));
					decl_str(&bn->out, got, sizeof(got));
					rc = berr(t, bind, ov->loc, err,
						  "output '%s' is declared %s but its statement gives %s%s", ov->name,
						  want, got, dst->dtype != bn->out.dtype ? " (use cast(..., dtype))" : "");
					break;
				}
			} else {
				*dst = bn->out;
			}
		}
	}
	if (rc)
		kj_plan_release(p);
	return rc;
}

void kj_plan_release(kj_plan *p)
{
	free(p->vals);
	free(p->nodes);
	free(p->dists);
	memset(p, 0, sizeof(*p));
}

int kj_task_count(const kj_task *t, kj_value_kind k)
{
	int n = 0;
	for (int i = 0; i < t->nvals; i++)
		n += t->vals[i].kind == k;
	return n;
}

int kj_task_abi_values(const kj_task *t, int *idx, int cap)
{
	int n = 0;
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < t->nvals; i++) {
			kj_value_kind k = t->vals[i].kind;
			int want = pass == 0 ? (k == KJ_V_INPUT || k == KJ_V_PARAM) : k == KJ_V_OUTPUT;
			if (!want)
				continue;
			if (n < cap)
				idx[n] = i;
			n++;
		}
	return n;
}

int kj_task_prototype(const kj_task *t, int cuda, char *buf, size_t len)
{
	int idx[64], n = kj_task_abi_values(t, idx, 64);
	size_t off;
	if (n > 64)
		return KJ_E_UNSUPPORTED;
	off = (size_t)snprintf(buf, len, "%svoid %s(", cuda ? "extern \"C\" " : "", t->name);
	for (int i = 0; i < n && off < len; i++) {
		const kj_value *v = &t->vals[idx[i]];
		off += (size_t)snprintf(buf + off, len - off, "%s%s%s* %s", i ? ", " : "",
					v->kind == KJ_V_OUTPUT ? "" : "const ",
					kj_dtype_ctype(v->dtype, cuda), v->name);
	}
	for (int i = 0; i < t->nsyms && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, ", int64_t %s", t->syms[i]);
	if (off < len)
		off += (size_t)snprintf(buf + off, len - off, "%s)", cuda ? ", cudaStream_t stream" : "");
	return off < len ? 0 : KJ_E_USAGE;
}
