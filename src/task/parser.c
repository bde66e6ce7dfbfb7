/*
 * Parser of the task language (grammar in docs/task-language.md).  Parsing and
 * lowering happen in one pass, statement by statement, so that "undefined
 * name" and "used before assigned" follow the order of the file.  Every error
 * is "path:line:col: what was expected".  Shape checks need a binding and
 * happen in plan.c, called from kj_task_parse() for every shape list entry.
 */
#include "kjudge/task.h"
#include "kjudge/fsutil.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "task/lexer.h"

struct parser {
	struct kj_lexer lx;
	kj_task *t;
	struct kj_err *err;
	int failed;
	int have_task;
	int nest;  /* open (, [, calls, unary minus, ** in the current expression */
	int chain; /* binary operators of open left-to-right chains */
};

/* Lowering and evaluation recurse over expression trees; these bounds keep
 * that recursion (and the parser's own) far from the end of the stack. */
#define MAX_NEST 64
#define MAX_CHAIN 256

static const char *const categories[] = {
	"Math", "Activation", "Reduce", "Normalization", "Loss", "Index", "Quantization",
	"Optimizer", "SpatialOps", "Convolution", "Pooling", "MatrixMultiply",
	"LinearAlgebra", "Fusion", "Random", "Architecture", NULL,
};

__attribute__((format(printf, 3, 4))) static int perr(struct parser *p, kj_loc loc,
						       const char *fmt, ...)
{
	char msg[768];
	va_list ap;
	if (p->failed)
		return KJ_E_PARSE;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	p->failed = 1;
	return kj_err_set(p->err, KJ_E_PARSE, "%s:%d:%d: %s", p->t->path, loc.line, loc.col, msg);
}

static kj_loc here(const struct parser *p)
{
	kj_loc l = { p->lx.tline, p->lx.tcol };
	return l;
}

static int expected(struct parser *p, const char *what)
{
	char d[128];
	if (p->lx.tok == KJ_T_ERROR)
		return perr(p, here(p), "%s", p->lx.text);
	return perr(p, here(p), "expected %s, got %s", what, kj_tok_desc(&p->lx, d, sizeof(d)));
}

static void next(struct parser *p)
{
	kj_lex_next(&p->lx);
}

static int accept(struct parser *p, const char *punct)
{
	if (kj_lex_is(&p->lx, punct)) {
		next(p);
		return 1;
	}
	return 0;
}

static int expect(struct parser *p, const char *punct, const char *ctx)
{
	char what[96];
	if (accept(p, punct))
		return 0;
	snprintf(what, sizeof(what), "'%s' %s", punct, ctx);
	return expected(p, what);
}

static char *xstrdup(const char *s)
{
	char *r = strdup(s);
	if (!r)
		abort(); /* out of memory while parsing a small file: nothing sensible to do */
	return r;
}

static void *xcalloc(size_t n, size_t sz)
{
	void *r = calloc(n ? n : 1, sz);
	if (!r)
		abort();
	return r;
}

static kj_expr *new_expr(struct parser *p, kj_expr_kind k, kj_loc loc)
{
	kj_task *t = p->t;
	kj_expr *e = xcalloc(1, sizeof(*e));
	e->kind = k;
	e->loc = loc;
	if (t->nexprs == t->capexprs) {
		t->capexprs = t->capexprs ? 2 * t->capexprs : 64;
		t->exprs = realloc(t->exprs, (size_t)t->capexprs * sizeof(*t->exprs));
		if (!t->exprs)
			abort();
	}
	t->exprs[t->nexprs++] = e;
	return e;
}

static void add_arg(kj_expr *e, kj_expr *a, const char *name)
{
	e->args = realloc(e->args, (size_t)(e->nargs + 1) * sizeof(*e->args));
	e->argnames = realloc(e->argnames, (size_t)(e->nargs + 1) * sizeof(*e->argnames));
	if (!e->args || !e->argnames)
		abort();
	e->args[e->nargs] = a;
	e->argnames[e->nargs] = name ? xstrdup(name) : NULL;
	e->nargs++;
}

/* ---- expressions ---- */

static kj_expr *parse_expr(struct parser *p);

static kj_expr *parse_primary(struct parser *p)
{
	kj_loc loc = here(p);
	kj_expr *e;
	switch (p->lx.tok) {
	case KJ_T_INT:
		e = new_expr(p, KJ_X_INT, loc);
		e->ival = p->lx.ival;
		e->fval = (double)p->lx.ival;
		next(p);
		return e;
	case KJ_T_FLOAT:
		e = new_expr(p, KJ_X_FLOAT, loc);
		e->fval = p->lx.fval;
		next(p);
		return e;
	case KJ_T_STRING:
		e = new_expr(p, KJ_X_STR, loc);
		e->name = xstrdup(p->lx.text);
		next(p);
		return e;
	case KJ_T_IDENT:
		if (!strcmp(p->lx.text, "True") || !strcmp(p->lx.text, "False") ||
		    !strcmp(p->lx.text, "true") || !strcmp(p->lx.text, "false")) {
			e = new_expr(p, KJ_X_BOOL, loc);
			e->ival = p->lx.text[0] == 'T' || p->lx.text[0] == 't';
			e->fval = (double)e->ival;
			next(p);
			return e;
		}
		e = new_expr(p, KJ_X_IDENT, loc);
		e->name = xstrdup(p->lx.text);
		next(p);
		if (accept(p, "(")) {
			e->kind = KJ_X_CALL;
			if (accept(p, ")"))
				return e;
			for (;;) {
				char *kw = NULL, name[256];
				kj_expr *a;
				if (p->lx.tok == KJ_T_IDENT) {
					struct kj_lexer save = p->lx;
					memcpy(name, p->lx.text, sizeof(name));
					next(p);
					if (kj_lex_is(&p->lx, "=")) {
						next(p);
						kw = name;
					} else {
						p->lx = save;
					}
				}
				a = parse_expr(p);
				if (!a)
					return NULL;
				add_arg(e, a, kw);
				if (accept(p, ")"))
					break;
				if (expect(p, ",", "or ')' in the argument list"))
					return NULL;
			}
		}
		return e;
	case KJ_T_PUNCT:
		if (accept(p, "(")) {
			e = parse_expr(p);
			if (!e || expect(p, ")", "to close '('"))
				return NULL;
			return e;
		}
		if (accept(p, "[")) {
			e = new_expr(p, KJ_X_LIST, loc);
			if (accept(p, "]"))
				return e;
			for (;;) {
				kj_expr *a = parse_expr(p);
				if (!a)
					return NULL;
				add_arg(e, a, NULL);
				if (accept(p, "]"))
					break;
				if (expect(p, ",", "or ']' in the list"))
					return NULL;
			}
			return e;
		}
		break;
	default:
		break;
	}
	expected(p, "an expression (name, number, call, '(' or '[')");
	return NULL;
}

static kj_expr *binop(struct parser *p, char op, kj_loc loc, kj_expr *a, kj_expr *b)
{
	kj_expr *e = new_expr(p, KJ_X_BIN, loc);
	e->op = op;
	add_arg(e, a, NULL);
	add_arg(e, b, NULL);
	return e;
}

static kj_expr *parse_unary(struct parser *p);

static kj_expr *parse_power(struct parser *p)
{
	kj_expr *a = parse_primary(p), *b;
	kj_loc loc;
	if (!a)
		return NULL;
	if (!kj_lex_is(&p->lx, "**"))
		return a;
	loc = here(p);
	next(p);
	b = parse_unary(p); /* right-associative; 2 ** -1 is allowed */
	return b ? binop(p, '^', loc, a, b) : NULL;
}

static kj_expr *parse_unary_in(struct parser *p);

/* Every recursive path of the expression grammar passes through here. */
static kj_expr *parse_unary(struct parser *p)
{
	kj_expr *e;
	if (p->nest >= MAX_NEST) {
		perr(p, here(p), "expression nested deeper than %d levels", MAX_NEST);
		return NULL;
	}
	p->nest++;
	e = parse_unary_in(p);
	p->nest--;
	return e;
}

static kj_expr *parse_unary_in(struct parser *p)
{
	kj_loc loc = here(p);
	kj_expr *a, *e;
	if (!accept(p, "-"))
		return parse_power(p);
	a = parse_unary(p);
	if (!a)
		return NULL;
	if (a->kind == KJ_X_INT || a->kind == KJ_X_FLOAT) { /* fold literal */
		a->ival = -a->ival;
		a->fval = -a->fval;
		a->loc = loc;
		return a;
	}
	e = new_expr(p, KJ_X_NEG, loc);
	add_arg(e, a, NULL);
	return e;
}

static int chain_step(struct parser *p, int *n)
{
	if (p->chain >= MAX_CHAIN)
		return perr(p, here(p), "expression longer than %d operators: split it into statements",
			    MAX_CHAIN);
	p->chain++;
	(*n)++;
	return 0;
}

static kj_expr *parse_mul(struct parser *p)
{
	kj_expr *a = parse_unary(p);
	int n = 0;
	while (a && (kj_lex_is(&p->lx, "*") || kj_lex_is(&p->lx, "/"))) {
		kj_loc loc = here(p);
		char op = p->lx.text[0];
		kj_expr *b;
		if (chain_step(p, &n)) {
			a = NULL;
			break;
		}
		next(p);
		b = parse_unary(p);
		a = b ? binop(p, op, loc, a, b) : NULL;
	}
	p->chain -= n;
	return a;
}

static kj_expr *parse_expr(struct parser *p)
{
	kj_expr *a = parse_mul(p);
	int n = 0;
	while (a && (kj_lex_is(&p->lx, "+") || kj_lex_is(&p->lx, "-"))) {
		kj_loc loc = here(p);
		char op = p->lx.text[0];
		kj_expr *b;
		if (chain_step(p, &n)) {
			a = NULL;
			break;
		}
		next(p);
		b = parse_mul(p);
		a = b ? binop(p, op, loc, a, b) : NULL;
	}
	p->chain -= n;
	return a;
}

/* ---- values and symbols ---- */

static int find_value(const kj_task *t, const char *name)
{
	for (int i = 0; i < t->nvals; i++)
		if (t->vals[i].name && !strcmp(t->vals[i].name, name))
			return i;
	return -1;
}

static int find_sym(const kj_task *t, const char *name)
{
	for (int i = 0; i < t->nsyms; i++)
		if (!strcmp(t->syms[i], name))
			return i;
	return -1;
}

static int new_value(kj_task *t, const char *name, kj_value_kind k, kj_loc loc)
{
	kj_value *v;
	t->vals = realloc(t->vals, (size_t)(t->nvals + 1) * sizeof(*t->vals));
	if (!t->vals)
		abort();
	v = &t->vals[t->nvals];
	memset(v, 0, sizeof(*v));
	v->name = name ? xstrdup(name) : NULL;
	v->kind = k;
	v->loc = loc;
	return t->nvals++;
}

static void add_sym(kj_task *t, const char *name)
{
	if (find_sym(t, name) >= 0)
		return;
	t->syms = realloc(t->syms, (size_t)(t->nsyms + 1) * sizeof(*t->syms));
	if (!t->syms)
		abort();
	t->syms[t->nsyms++] = xstrdup(name);
}

static int is_reserved(const char *s)
{
	static const char *const kw[] = { "task", "level", "category", "about", "input", "param",
					  "output", "check", "bench", "tol", "metric", "weight",
					  "True", "False", "true", "false", NULL };
	/* names that would break the generated C/CUDA prototype */
	static const char *const cwords[] = {
		"auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
		"enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
		"restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch",
		"typedef", "union", "unsigned", "void", "volatile", "while", "class", "new", "delete",
		"template", "this", "operator", "private", "public", "namespace", "using", "virtual",
		"stream", "int64_t", "int32_t", "int8_t", "half", "__half", NULL };
	kj_dtype d;
	for (int i = 0; kw[i]; i++)
		if (!strcmp(s, kw[i]))
			return 1;
	for (int i = 0; cwords[i]; i++)
		if (!strcmp(s, cwords[i]))
			return 1;
	return kj_dtype_from_name(s, &d) == 0;
}

/* A task's name is the candidate's exported function: the C library's own
 * functions (and the entry point) cannot be it, a candidate defining one
 * would replace it in its process. */
static int is_libc_name(const char *s)
{
	static const char *const libc[] = {
		"main", "exit", "_exit", "abort", "atexit", "malloc", "calloc", "realloc", "free",
		"memcpy", "memmove", "memset", "memcmp", "strlen", "strcmp", "strcpy", "printf", "puts",
		"fprintf", "sprintf", "snprintf", "write", "read", "open", "close", "signal", "raise",
		"kill", "fork", "exec", "system", "sleep", "usleep", "time", "clock", "rand", "srand",
		"abs", "labs", "fabs", "fabsf", "exp", "expf", "log", "logf", "sqrt", "sqrtf", "pow",
		"powf", "sin", "sinf", "cos", "cosf", "tan", "tanf", "tanh", "tanhf", "erf", "erff",
		"floor", "ceil", "round", "fmin", "fmax", "fminf", "fmaxf", "min", "max", "assert",
		"dlopen", "dlsym", "mmap", "munmap", "mprotect", "syscall", NULL };
	for (int i = 0; libc[i]; i++)
		if (!strcmp(s, libc[i]))
			return 1;
	return 0;
}

/* Dim expressions may use + - * / on integers and symbols only. */
static int check_dim_expr(struct parser *p, const kj_expr *e, int declare)
{
	switch (e->kind) {
	case KJ_X_INT:
		return 0;
	case KJ_X_IDENT:
		if (find_value(p->t, e->name) >= 0)
			return perr(p, e->loc, "'%s' is a tensor, not a dim symbol", e->name);
		if (is_reserved(e->name))
			return perr(p, e->loc, "'%s' is reserved and cannot be a dim symbol", e->name);
		if (declare && find_sym(p->t, e->name) < 0 && p->t->nbind > 0)
			/* a shape line already bound every symbol known then */
			return perr(p, e->loc, "new dim symbol '%s' after a check/bench line: declare tensors before the shapes", e->name);
		if (declare)
			add_sym(p->t, e->name);
		else if (find_sym(p->t, e->name) < 0)
			return perr(p, e->loc, "unknown dim symbol '%s' (dims must appear in a declaration)", e->name);
		return 0;
	case KJ_X_BIN:
		if (e->op == '^')
			return perr(p, e->loc, "'**' is not allowed in a dim expression");
		if (check_dim_expr(p, e->args[0], declare))
			return KJ_E_PARSE;
		return check_dim_expr(p, e->args[1], declare);
	case KJ_X_NEG:
		return check_dim_expr(p, e->args[0], declare);
	default:
		return perr(p, e->loc, "expected a dim: an integer, a symbol or an expression of them");
	}
}

static const struct {
	const char *name;
	kj_dist_kind kind;
	int nargs_min, nargs_max;
} dists[] = {
	{ "normal", KJ_DIST_NORMAL, 0, 2 },   { "uniform", KJ_DIST_UNIFORM, 0, 2 },
	{ "randint", KJ_DIST_RANDINT, 2, 2 }, { "kaiming", KJ_DIST_KAIMING, 0, 0 },
	{ "ones", KJ_DIST_ONES, 0, 0 },       { "zeros", KJ_DIST_ZEROS, 0, 0 },
	{ "spd", KJ_DIST_SPD, 0, 0 },
};

static int parse_decl(struct parser *p, kj_value_kind kind)
{
	char name[256], dd[64];
	kj_loc loc;
	kj_value *v;
	int vi;
	kj_dtype dt;
	next(p);
	loc = here(p);
	if (p->lx.tok != KJ_T_IDENT)
		return expected(p, "a tensor name");
	memcpy(name, p->lx.text, sizeof(name));
	if (is_reserved(name))
		return perr(p, loc, "'%s' is reserved and cannot name a tensor", name);
	if ((vi = find_value(p->t, name)) >= 0)
		return perr(p, loc, "'%s' is already declared at line %d", name, p->t->vals[vi].loc.line);
	if (find_sym(p->t, name) >= 0)
		return perr(p, loc, "'%s' is already a dim symbol", name);
	next(p);
	if (expect(p, ":", "after the tensor name"))
		return KJ_E_PARSE;
	if (p->lx.tok != KJ_T_IDENT || kj_dtype_from_name(p->lx.text, &dt))
		return expected(p, "a dtype (f32 f16 bf16 f8e4m3 i8 i32 i64 bool)");
	snprintf(dd, sizeof(dd), "%s", p->lx.text);
	next(p);
	vi = new_value(p->t, name, kind, loc);
	v = &p->t->vals[vi];
	v->dtype = dt;
	v->dist = kj_dtype_is_float(dt) ? KJ_DIST_NORMAL : KJ_DIST_RANDINT;
	if (expect(p, "[", "to start the shape (use [] for a scalar)"))
		return KJ_E_PARSE;
	if (!accept(p, "]")) {
		for (;;) {
			kj_expr *e;
			if (v->rank == KJ_MAX_RANK)
				return perr(p, here(p), "more than %d dims", KJ_MAX_RANK);
			e = parse_expr(p);
			if (!e || check_dim_expr(p, e, 1))
				return KJ_E_PARSE;
			v->dims[v->rank++] = e;
			if (accept(p, "]"))
				break;
			if (expect(p, ",", "or ']' in the shape"))
				return KJ_E_PARSE;
		}
	}
	if (accept(p, "~")) {
		kj_loc dl = here(p);
		kj_expr *d;
		size_t k;
		if (kind == KJ_V_OUTPUT)
			return perr(p, dl, "outputs have no distribution");
		d = parse_primary(p);
		if (!d)
			return KJ_E_PARSE;
		if (d->kind != KJ_X_IDENT && d->kind != KJ_X_CALL)
			return perr(p, dl, "expected a distribution (normal, uniform, randint, kaiming, ones, zeros, spd)");
		for (k = 0; k < sizeof(dists) / sizeof(dists[0]); k++)
			if (!strcmp(dists[k].name, d->name))
				break;
		if (k == sizeof(dists) / sizeof(dists[0]))
			return perr(p, dl, "unknown distribution '%s' (expected normal, uniform, randint, kaiming, ones, zeros or spd)", d->name);
		if (d->nargs < dists[k].nargs_min || d->nargs > dists[k].nargs_max ||
		    (d->nargs == 1))
			return perr(p, dl, "%s takes %s arguments, got %d", d->name,
				    dists[k].nargs_max == 0 ? "no" : dists[k].nargs_min == 2 ? "2" : "0 or 2",
				    d->nargs);
		for (int i = 0; i < d->nargs; i++) {
			if (d->argnames[i])
				return perr(p, d->args[i]->loc, "distribution arguments are positional");
			if (dists[k].kind == KJ_DIST_RANDINT) {
				if (check_dim_expr(p, d->args[i], 1))
					return KJ_E_PARSE;
			} else {
				kj_expr *a = d->args[i];
				if (a->kind != KJ_X_INT && a->kind != KJ_X_FLOAT)
					return perr(p, a->loc, "expected a number");
			}
			v->dist_args[i] = d->args[i];
		}
		v->dist = dists[k].kind;
	}
	if (!kj_dtype_is_float(v->dtype) &&
	    (v->dist == KJ_DIST_NORMAL || v->dist == KJ_DIST_UNIFORM || v->dist == KJ_DIST_KAIMING ||
	     v->dist == KJ_DIST_SPD))
		return perr(p, loc, "%s '%s' has integer dtype %s: use randint(lo, hi), ones or zeros",
			    kind == KJ_V_PARAM ? "param" : "input", name, dd);
	if (kind != KJ_V_OUTPUT && !kj_dtype_is_float(v->dtype) && v->dist == KJ_DIST_RANDINT &&
	    !v->dist_args[0])
		return perr(p, loc, "integer %s '%s' needs explicit bounds: ~ randint(lo, hi)",
			    kind == KJ_V_PARAM ? "param" : "input", name);
	return 0;
}

/* ---- lowering of statements ---- */

static int lower(struct parser *p, const kj_expr *e, int target);

static int new_node(struct parser *p, const kj_op *op, kj_loc loc)
{
	kj_task *t = p->t;
	kj_node *n;
	t->nodes = realloc(t->nodes, (size_t)(t->nnodes + 1) * sizeof(*t->nodes));
	if (!t->nodes)
		abort();
	n = &t->nodes[t->nnodes];
	memset(n, 0, sizeof(*n));
	for (int i = 0; i < KJ_MAX_OPERANDS; i++)
		n->in[i] = -1;
	n->op = op;
	n->loc = loc;
	n->out = -1;
	return t->nnodes++;
}

static int finish_node(struct parser *p, int ni, int target)
{
	int out = target >= 0 ? target : new_value(p->t, NULL, KJ_V_TEMP, p->t->nodes[ni].loc);
	p->t->nodes[ni].out = out;
	p->t->vals[out].assigned = 1;
	return out;
}

static const kj_op *need_op(struct parser *p, const char *name, kj_loc loc)
{
	const kj_op *op = kj_op_find(name);
	if (!op)
		perr(p, loc, "unknown op '%s'", name);
	return op;
}

static int lower_call(struct parser *p, const kj_expr *e, int target)
{
	const kj_op *op = kj_op_find(e->name);
	int given[KJ_MAX_PARAMS] = { 0 };
	const kj_expr *arg[KJ_MAX_PARAMS] = { 0 };
	int ni, npos = 0, ti = 0, ai = 0;
	if (!op) {
		if (find_value(p->t, e->name) >= 0)
			return perr(p, e->loc, "'%s' is a tensor, not an op", e->name);
		return perr(p, e->loc, "unknown op '%s' (see `kjudge ops` or docs/ops.md)", e->name);
	}
	if (!strcmp(op->name, KJ_OP_COPY))
		return perr(p, e->loc, "unknown op '%s'", e->name);
	for (int i = 0; i < e->nargs; i++) {
		int k;
		if (!e->argnames[i]) {
			if (npos != i)
				return perr(p, e->args[i]->loc, "%s: positional argument after a keyword argument", op->name);
			if (npos >= op->nparams)
				return perr(p, e->args[i]->loc, "%s: takes at most %d argument%s, got %d",
					    op->name, op->nparams, op->nparams == 1 ? "" : "s", e->nargs);
			k = npos++;
		} else {
			for (k = 0; k < op->nparams; k++)
				if (!strcmp(op->params[k].name, e->argnames[i]))
					break;
			if (k == op->nparams)
				return perr(p, e->args[i]->loc, "%s: unexpected keyword argument '%s'", op->name, e->argnames[i]);
			if (given[k])
				return perr(p, e->args[i]->loc, "%s: argument '%s' given twice", op->name, e->argnames[i]);
		}
		given[k] = 1;
		arg[k] = e->args[i];
	}
	for (int k = 0; k < op->nparams; k++)
		if (op->params[k].required && !given[k])
			return perr(p, e->loc, "%s: missing required argument '%s' (expects %s(%s%s...))", op->name,
				    op->params[k].name, op->name, op->params[0].name, op->nparams > 1 ? ", " : "");
	{
		int ins[KJ_MAX_OPERANDS];
		kj_loc inloc[KJ_MAX_OPERANDS];
		kj_expr *attrs[KJ_MAX_ATTRS] = { 0 };
		for (int k = 0; k < op->nparams; k++) {
			if (op->params[k].kind == KJ_ATTR_TENSOR) {
				ins[ti] = -1;
				if (arg[k]) {
					if (arg[k]->kind == KJ_X_LIST || arg[k]->kind == KJ_X_STR)
						return perr(p, arg[k]->loc, "%s: argument '%s' must be a tensor", op->name, op->params[k].name);
					ins[ti] = lower(p, arg[k], -1);
					if (ins[ti] < 0)
						return KJ_E_PARSE;
					inloc[ti] = arg[k]->loc;
				}
				ti++;
			} else {
				attrs[ai++] = (kj_expr *)arg[k];
			}
		}
		ni = new_node(p, op, e->loc);
		for (int i = 0; i < ti; i++) {
			p->t->nodes[ni].in[i] = ins[i];
			p->t->nodes[ni].in_loc[i] = inloc[i];
		}
		for (int i = 0; i < ai; i++)
			p->t->nodes[ni].attr[i] = attrs[i];
	}
	return finish_node(p, ni, target);
}

/* Lowers e to a value; target >= 0 names the value the result must land in.
 * Returns the value index or a negative code. */
static int lower(struct parser *p, const kj_expr *e, int target)
{
	int vi, ni, a, b;
	const kj_op *op;
	switch (e->kind) {
	case KJ_X_INT:
	case KJ_X_FLOAT:
	case KJ_X_BOOL:
		vi = new_value(p->t, NULL, KJ_V_CONST, e->loc);
		p->t->vals[vi].cval = e->fval;
		p->t->vals[vi].cdtype = e->kind == KJ_X_FLOAT ? KJ_F32 : e->kind == KJ_X_INT ? KJ_I64 : KJ_BOOL;
		p->t->vals[vi].assigned = 1;
		if (target < 0)
			return vi;
		goto copy;
	case KJ_X_IDENT:
		vi = find_value(p->t, e->name);
		if (vi < 0) {
			if (find_sym(p->t, e->name) >= 0)
				return perr(p, e->loc, "'%s' is a dim symbol; tensors expressions cannot use dims directly", e->name);
			if (kj_op_find(e->name))
				return perr(p, e->loc, "'%s' is an op: call it as %s(...)", e->name, e->name);
			return perr(p, e->loc, "undefined name '%s'", e->name);
		}
		if (!p->t->vals[vi].assigned && p->t->vals[vi].kind != KJ_V_INPUT &&
		    p->t->vals[vi].kind != KJ_V_PARAM)
			return perr(p, e->loc, "'%s' is used before it is assigned", e->name);
		if (target < 0)
			return vi;
	copy:
		op = need_op(p, KJ_OP_COPY, e->loc);
		if (!op)
			return KJ_E_PARSE;
		ni = new_node(p, op, e->loc);
		p->t->nodes[ni].in[0] = vi;
		p->t->nodes[ni].in_loc[0] = e->loc;
		return finish_node(p, ni, target);
	case KJ_X_NEG:
		a = lower(p, e->args[0], -1);
		if (a < 0)
			return a;
		op = need_op(p, KJ_OP_NEG, e->loc);
		if (!op)
			return KJ_E_PARSE;
		ni = new_node(p, op, e->loc);
		p->t->nodes[ni].in[0] = a;
		p->t->nodes[ni].in_loc[0] = e->args[0]->loc;
		return finish_node(p, ni, target);
	case KJ_X_BIN: {
		const char *name = e->op == '+' ? KJ_OP_ADD : e->op == '-' ? KJ_OP_SUB :
				   e->op == '*' ? KJ_OP_MUL : e->op == '/' ? KJ_OP_DIV : KJ_OP_POW;
		a = lower(p, e->args[0], -1);
		if (a < 0)
			return a;
		b = lower(p, e->args[1], -1);
		if (b < 0)
			return b;
		op = need_op(p, name, e->loc);
		if (!op)
			return KJ_E_PARSE;
		ni = new_node(p, op, e->loc);
		p->t->nodes[ni].in[0] = a;
		p->t->nodes[ni].in[1] = b;
		p->t->nodes[ni].in_loc[0] = e->args[0]->loc;
		p->t->nodes[ni].in_loc[1] = e->args[1]->loc;
		return finish_node(p, ni, target);
	}
	case KJ_X_CALL:
		return lower_call(p, e, target);
	case KJ_X_STR:
		return perr(p, e->loc, "expected a tensor expression, got a string");
	case KJ_X_LIST:
		return perr(p, e->loc, "expected a tensor expression, got a list");
	}
	return perr(p, e->loc, "expected a tensor expression");
}

static int parse_assign(struct parser *p)
{
	char name[256];
	kj_loc loc = here(p);
	kj_expr *e;
	int vi;
	memcpy(name, p->lx.text, sizeof(name));
	next(p);
	if (expect(p, "=", "after the name in an assignment"))
		return KJ_E_PARSE;
	if (find_sym(p->t, name) >= 0)
		return perr(p, loc, "'%s' is a dim symbol and cannot be assigned", name);
	if (is_reserved(name))
		return perr(p, loc, "'%s' is reserved and cannot be assigned", name);
	if (kj_op_find(name))
		return perr(p, loc, "'%s' is an op name and cannot be assigned", name);
	vi = find_value(p->t, name);
	if (vi >= 0) {
		kj_value *v = &p->t->vals[vi];
		if (v->kind == KJ_V_INPUT || v->kind == KJ_V_PARAM)
			return perr(p, loc, "cannot assign to %s '%s' (declared at line %d)",
				    v->kind == KJ_V_INPUT ? "input" : "param", name, v->loc.line);
		if (v->assigned)
			return perr(p, loc, "duplicate assignment to '%s' (first assigned at line %d): statements are single-assignment",
				    name, v->loc.line);
	}
	e = parse_expr(p);
	if (!e)
		return KJ_E_PARSE;
	if (p->lx.tok != KJ_T_NEWLINE && p->lx.tok != KJ_T_EOF)
		return expected(p, "an operator or end of line after the expression");
	if (vi < 0)
		vi = new_value(p->t, name, KJ_V_TEMP, loc);
	else
		p->t->vals[vi].loc = loc;
	return lower(p, e, vi) < 0 ? KJ_E_PARSE : 0;
}

/* ---- shapes, tolerances ---- */

static int parse_bindings(struct parser *p, int bench)
{
	next(p);
	if (bench && p->lx.tok == KJ_T_IDENT && !strcmp(p->lx.text, "cpu")) {
		struct kj_lexer save = p->lx;
		next(p);
		if (kj_lex_is(&p->lx, "="))
			p->lx = save; /* a dim named cpu */
		else
			bench = 2;
	}
	for (;;) {
		kj_task *t = p->t;
		kj_binding *b;
		int *seen;
		t->binds = realloc(t->binds, (size_t)(t->nbind + 1) * sizeof(*t->binds));
		if (!t->binds)
			abort();
		b = &t->binds[t->nbind++];
		memset(b, 0, sizeof(*b));
		b->val = xcalloc((size_t)t->nsyms + 1, sizeof(int64_t));
		b->bench = bench;
		b->loc = here(p);
		seen = xcalloc((size_t)t->nsyms + 1, sizeof(int));
		while (p->lx.tok == KJ_T_IDENT) {
			char name[256];
			kj_loc loc = here(p);
			int si, neg = 0;
			memcpy(name, p->lx.text, sizeof(name));
			next(p);
			if (expect(p, "=", "after a dim name in a shape")) {
				free(seen);
				return KJ_E_PARSE;
			}
			if (!strcmp(name, "weight")) {
				if (!bench) {
					free(seen);
					return perr(p, loc, "check shapes have no weight (weights belong to bench shapes)");
				}
				if (p->lx.tok != KJ_T_INT && p->lx.tok != KJ_T_FLOAT) {
					free(seen);
					return expected(p, "a number for weight");
				}
				b->weight = p->lx.fval;
				if (!(b->weight > 0) || !isfinite(b->weight)) {
					free(seen);
					return perr(p, here(p), "weight must be a finite number > 0, not %s", p->lx.text);
				}
				next(p);
				continue;
			}
			si = find_sym(t, name);
			if (si < 0) {
				free(seen);
				return perr(p, loc, "unknown dim symbol '%s' in shape", name);
			}
			if (seen[si]) {
				free(seen);
				return perr(p, loc, "dim '%s' bound twice in one shape", name);
			}
			neg = accept(p, "-");
			if (p->lx.tok != KJ_T_INT) {
				free(seen);
				return expected(p, "an integer dim value");
			}
			if (neg || p->lx.ival < 1) {
				free(seen);
				return perr(p, here(p), "dim '%s' must be >= 1", name);
			}
			seen[si] = 1;
			b->val[si] = p->lx.ival;
			next(p);
		}
		for (int i = 0; i < t->nsyms; i++)
			if (!seen[i]) {
				free(seen);
				return perr(p, b->loc, "shape does not bind dim '%s'", t->syms[i]);
			}
		free(seen);
		if (bench && b->weight == 0)
			b->weight = 1;
		if (accept(p, ";")) {
			if (p->lx.tok == KJ_T_NEWLINE || p->lx.tok == KJ_T_EOF)
				return 0;
			continue;
		}
		if (p->lx.tok != KJ_T_NEWLINE && p->lx.tok != KJ_T_EOF)
			return expected(p, "'dim=value', ';' or end of line");
		return 0;
	}
}

static int parse_number(struct parser *p, double *out)
{
	int neg = accept(p, "-");
	if (p->lx.tok != KJ_T_INT && p->lx.tok != KJ_T_FLOAT)
		return expected(p, "a number");
	*out = neg ? -p->lx.fval : p->lx.fval;
	if (!isfinite(*out))
		return perr(p, here(p), "a finite number is needed here, not %s", p->lx.text);
	next(p);
	return 0;
}

static int parse_tol(struct parser *p)
{
	kj_tol *tol = &p->t->tol;
	int got = 0;
	next(p);
	tol->has_tol = 1;
	tol->atol = tol->rtol = 0;
	while (p->lx.tok == KJ_T_IDENT) {
		double *dst = !strcmp(p->lx.text, "atol") ? &tol->atol :
			      !strcmp(p->lx.text, "rtol") ? &tol->rtol : NULL;
		if (!dst)
			return expected(p, "atol= or rtol=");
		next(p);
		if (expect(p, "=", "after atol/rtol") || parse_number(p, dst))
			return KJ_E_PARSE;
		if (*dst < 0)
			return perr(p, here(p), "tolerances must be >= 0");
		got++;
	}
	if (!got)
		return expected(p, "atol=X and/or rtol=Y");
	return 0;
}

static int parse_metric(struct parser *p)
{
	kj_tol *tol = &p->t->tol;
	int got = 0;
	next(p);
	tol->has_metric = 1;
	tol->cos_min = tol->l1_max = tol->rmse_max = -1;
	while (p->lx.tok == KJ_T_IDENT) {
		char name[32];
		double *dst;
		const char *cmp;
		snprintf(name, sizeof(name), "%s", p->lx.text);
		if (!strcmp(name, "cos")) {
			dst = &tol->cos_min;
			cmp = ">=";
		} else if (!strcmp(name, "l1")) {
			dst = &tol->l1_max;
			cmp = "<=";
		} else if (!strcmp(name, "rmse")) {
			dst = &tol->rmse_max;
			cmp = "<=";
		} else {
			return expected(p, "cos>=X, l1<=Y or rmse<=Z");
		}
		next(p);
		if (!kj_lex_is(&p->lx, cmp)) {
			char what[64];
			snprintf(what, sizeof(what), "'%s' after %s", cmp, name);
			return expected(p, what);
		}
		next(p);
		{
			kj_loc at = here(p);
			if (parse_number(p, dst))
				return KJ_E_PARSE;
			/* a bound no output can meet is a typo that fails every candidate */
			if (dst == &tol->cos_min && !(*dst <= 1))
				return perr(p, at, "cos>=%g cannot be met: a cosine is at most 1", *dst);
			if (dst != &tol->cos_min && !(*dst >= 0))
				return perr(p, at, "%s<=%g cannot be met: %s is never negative", name, *dst, name);
		}
		got++;
	}
	if (!got)
		return expected(p, "cos>=X, l1<=Y or rmse<=Z");
	return 0;
}

/* `tf32 allowed` or `tf32 strict`: whether the baseline's f32 matmuls and
 * convolutions may use TF32 (kj_task.tf32). */
static int parse_tf32(struct parser *p, kj_loc loc)
{
	if (p->t->has_tf32)
		return perr(p, loc, "second 'tf32' line");
	next(p);
	if (p->lx.tok != KJ_T_IDENT || (strcmp(p->lx.text, "allowed") && strcmp(p->lx.text, "strict")))
		return expected(p, "'allowed' or 'strict' after tf32");
	p->t->tf32 = !strcmp(p->lx.text, "allowed");
	p->t->has_tf32 = 1;
	next(p);
	return 0;
}

static int end_of_statement(struct parser *p)
{
	if (p->lx.tok == KJ_T_NEWLINE || p->lx.tok == KJ_T_EOF)
		return 0;
	return expected(p, "end of line");
}

static int parse_statement(struct parser *p)
{
	const char *kw = p->lx.text;
	kj_loc loc = here(p);
	kj_task *t = p->t;
	if (p->lx.tok == KJ_T_ERROR)
		return perr(p, loc, "%s", p->lx.text);
	if (p->lx.tok != KJ_T_IDENT)
		return expected(p, "a statement (task, level, category, about, input, param, output, check, bench, tol, metric, tf32 or name = expression)");
	{
		struct kj_lexer save = p->lx;
		next(p);
		if (kj_lex_is(&p->lx, "=")) {
			p->lx = save;
			return parse_assign(p);
		}
		p->lx = save;
	}
	if (!strcmp(kw, "task")) {
		next(p);
		if (p->lx.tok != KJ_T_IDENT)
			return expected(p, "a task name (an identifier: it is also the candidate's function name)");
		if (t->name)
			return perr(p, loc, "second 'task' line");
		if (is_reserved(p->lx.text) || is_libc_name(p->lx.text))
			return perr(p, here(p), "'%s' cannot name a task: it is a keyword, a C name or a C library "
				    "function (the task's name is the candidate's function name)", p->lx.text);
		t->name = xstrdup(p->lx.text);
		p->have_task = 1;
		next(p);
	} else if (!strcmp(kw, "level")) {
		next(p);
		if (p->lx.tok != KJ_T_INT || p->lx.ival < 1 || p->lx.ival > 3)
			return expected(p, "a level 1, 2 or 3");
		t->level = (int)p->lx.ival;
		next(p);
	} else if (!strcmp(kw, "category")) {
		int ok = 0;
		next(p);
		if (p->lx.tok != KJ_T_IDENT)
			return expected(p, "a category name");
		for (int i = 0; categories[i]; i++)
			ok |= !strcmp(categories[i], p->lx.text);
		if (!ok)
			return perr(p, here(p), "unknown category '%s' (expected one of Math Activation Reduce Normalization Loss Index Quantization Optimizer SpatialOps Convolution Pooling MatrixMultiply LinearAlgebra Fusion Random Architecture)", p->lx.text);
		free(t->category);
		t->category = xstrdup(p->lx.text);
		next(p);
	} else if (!strcmp(kw, "about")) {
		next(p);
		if (p->lx.tok != KJ_T_STRING)
			return expected(p, "a quoted description");
		free(t->about);
		t->about = xstrdup(p->lx.text);
		next(p);
	} else if (!strcmp(kw, "input")) {
		if (parse_decl(p, KJ_V_INPUT))
			return KJ_E_PARSE;
	} else if (!strcmp(kw, "param")) {
		if (parse_decl(p, KJ_V_PARAM))
			return KJ_E_PARSE;
	} else if (!strcmp(kw, "output")) {
		if (parse_decl(p, KJ_V_OUTPUT))
			return KJ_E_PARSE;
	} else if (!strcmp(kw, "check")) {
		if (parse_bindings(p, 0))
			return KJ_E_PARSE;
	} else if (!strcmp(kw, "bench")) {
		if (parse_bindings(p, 1))
			return KJ_E_PARSE;
	} else if (!strcmp(kw, "tol")) {
		if (parse_tol(p))
			return KJ_E_PARSE;
	} else if (!strcmp(kw, "metric")) {
		if (parse_metric(p))
			return KJ_E_PARSE;
	} else if (!strcmp(kw, "tf32")) {
		if (parse_tf32(p, loc))
			return KJ_E_PARSE;
	} else {
		return perr(p, loc, "unknown statement '%s' (expected task, level, category, about, input, param, output, check, bench, tol, metric, tf32 or name = expression)", kw);
	}
	return end_of_statement(p);
}

static int validate(struct parser *p)
{
	kj_task *t = p->t;
	kj_loc top = { 1, 1 };
	int nout = 0, ncheck = 0;
	if (!t->name)
		return perr(p, top, "missing 'task NAME' line");
	for (int i = 0; i < t->nvals; i++) {
		kj_value *v = &t->vals[i];
		if (v->kind == KJ_V_OUTPUT) {
			nout++;
			if (!v->assigned)
				return perr(p, v->loc, "output '%s' is never assigned", v->name);
		}
	}
	if (!nout)
		return perr(p, top, "the task declares no output");
	for (int i = 0; i < t->nvals; i++) {
		kj_value *v = &t->vals[i];
		int used = 0;
		if (v->kind != KJ_V_INPUT && v->kind != KJ_V_PARAM && v->kind != KJ_V_TEMP)
			continue;
		for (int n = 0; n < t->nnodes && !used; n++)
			for (int k = 0; k < KJ_MAX_OPERANDS; k++)
				used |= t->nodes[n].in[k] == i;
		if (!used)
			return perr(p, v->loc, "%s '%s' is never used", v->kind == KJ_V_INPUT ? "input" :
				    v->kind == KJ_V_PARAM ? "param" : "temporary", v->name);
	}
	for (int i = 0; i < t->nbind; i++)
		ncheck += t->binds[i].bench == 0;
	if (!ncheck)
		return perr(p, top, "the task has no 'check' shapes");
	return 0;
}

static const char *task_id_of(const char *given, char *buf, size_t len)
{
	char real[PATH_MAX];
	/* the file's one canonical path: tasks/level1/../level1/relu.kt is
	 * level1/relu, not a second task */
	const char *path = realpath(given, real) ? real : given;
	const char *s = strstr(path, "tasks/"), *last = NULL;
	size_t n;
	while (s) { /* the last "tasks/" component */
		last = s;
		s = strstr(s + 1, "tasks/");
	}
	s = last ? last + 6 : path;
	n = strlen(s);
	if (n > 3 && !strcmp(s + n - 3, ".kt"))
		n -= 3;
	if (n >= len)
		n = len - 1;
	memcpy(buf, s, n);
	buf[n] = 0;
	return buf;
}

/* Bench weights of one kind (GPU, CPU) are shares of the score: they sum to
 * 1 (within rounding of the printed shares). */
static int check_weights(struct parser *p)
{
	for (int kind = 1; kind <= 2; kind++) {
		double sum = 0;
		int n = 0;
		kj_loc at = {0};
		for (int i = 0; i < p->t->nbind; i++)
			if (p->t->binds[i].bench == kind) {
				sum += p->t->binds[i].weight;
				at = n++ ? at : p->t->binds[i].loc;
			}
		if (n && fabs(sum - 1) > 0.01)
			return perr(p, at, "the weights of the %sbench shapes sum to %g, not 1 (a weight is the shape's "
				    "share of the score)", kind == 2 ? "cpu " : "", sum);
	}
	return 0;
}

/* What judging one shape holds at once, about: every value at its dtype
 * and the fp64 reference's copy of it.  A check shape is judged on the
 * CPU too and must fit in KJ_CHECK_BYTES; a bench shape in the device's
 * memory (KJ_BENCH_BYTES, an H200 less room for the judge). */
#define KJ_CHECK_BYTES (8.0 * (1 << 30))
#define KJ_BENCH_BYTES (100.0 * (1 << 30))
#define KJ_CPU_BENCH_BYTES (16.0 * (1 << 30))
static int check_size(struct parser *p, int bind, const kj_plan *plan)
{
	const kj_binding *b = &p->t->binds[bind];
	double bytes = 0, cap = b->bench == 0 ? KJ_CHECK_BYTES : b->bench == 1 ? KJ_BENCH_BYTES : KJ_CPU_BENCH_BYTES;
	char bs[512];
	for (int i = 0; i < p->t->nvals; i++)
		bytes += (double)kj_shape_numel(&plan->vals[i].shape) * (double)(kj_dtype_size(plan->vals[i].dtype) + 8);
	if (bytes <= cap)
		return 0;
	return perr(p, b->loc, "%s shape %s needs about %.1f GiB to judge (every value at its dtype and in "
		    "fp64), more than the %.0f GiB a %s shape may use", b->bench ? "bench" : "check",
		    kj_binding_str(p->t, b, bs, sizeof(bs)), bytes / (1 << 30), cap / (1 << 30),
		    b->bench == 0 ? "check" : b->bench == 1 ? "bench" : "cpu bench");
}

int kj_task_parse(const char *text, size_t len, const char *path, kj_task **out,
		  struct kj_err *err)
{
	struct parser p;
	char id[1024];
	int rc = 0;
	memset(&p, 0, sizeof(p));
	p.err = err;
	p.t = xcalloc(1, sizeof(kj_task));
	p.t->path = xstrdup(path ? path : "<input>");
	p.t->id = xstrdup(task_id_of(p.t->path, id, sizeof(id)));
	p.t->level = 1;
	p.t->category = xstrdup("Math");
	p.t->about = xstrdup("");
	for (size_t i = 0; i < len; i++)
		if (text[i] == 0) {
			int line = 1, col = 1;
			for (size_t j = 0; j < i; j++) {
				col = text[j] == '\n' ? 1 : col + 1;
				line += text[j] == '\n';
			}
			kj_err_set(err, KJ_E_PARSE, "%s:%d:%d: NUL byte in task file (expected text)",
				   p.t->path, line, col);
			kj_task_free(p.t);
			return KJ_E_PARSE;
		}
	kj_lex_init(&p.lx, text, len);
	next(&p);
	while (!p.failed) {
		while (p.lx.tok == KJ_T_NEWLINE)
			next(&p);
		if (p.lx.tok == KJ_T_EOF)
			break;
		if (parse_statement(&p))
			break;
	}
	if (!p.failed)
		validate(&p);
	if (!p.failed) {
		for (int i = 0; i < p.t->nbind && !rc; i++) {
			kj_plan plan;
			rc = kj_plan_build(p.t, i, &plan, err);
			if (!rc) {
				rc = check_size(&p, i, &plan);
				kj_plan_release(&plan);
			}
		}
		if (!rc)
			rc = check_weights(&p);
	} else {
		rc = KJ_E_PARSE;
	}
	if (rc) {
		kj_task_free(p.t);
		return rc;
	}
	*out = p.t;
	return 0;
}

int kj_task_load(const char *path, kj_task **out, struct kj_err *err)
{
	const char *kind;
	int fd = kj_open_regular(path, &kind);
	FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
	char *buf;
	long n;
	int rc;
	if (fd < 0 && *kind)
		return kj_err_set(err, KJ_E_USAGE, "task '%s' is %s, not a task file", path, kind);
	if (!f) {
		if (fd >= 0)
			close(fd);
		return kj_err_sys(err, "cannot open task '%s'", path);
	}
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return kj_err_sys(err, "cannot read task '%s'", path);
	}
	if (n > (1 << 20)) {
		fclose(f);
		return kj_err_set(err, KJ_E_PARSE, "task '%s' is larger than 1 MiB", path);
	}
	buf = malloc((size_t)n + 1);
	if (!buf) {
		fclose(f);
		return kj_err_set(err, KJ_E_NOMEM, "out of memory reading '%s'", path);
	}
	if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		fclose(f);
		return kj_err_sys(err, "cannot read task '%s'", path);
	}
	fclose(f);
	buf[n] = 0;
	rc = kj_task_parse(buf, (size_t)n, path, out, err);
	free(buf);
	return rc;
}

void kj_task_free(kj_task *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->nexprs; i++) {
		kj_expr *e = t->exprs[i];
		for (int k = 0; k < e->nargs; k++)
			free(e->argnames[k]);
		free(e->args);
		free(e->argnames);
		free(e->name);
		free(e);
	}
	free(t->exprs);
	for (int i = 0; i < t->nvals; i++)
		free(t->vals[i].name);
	free(t->vals);
	free(t->nodes);
	for (int i = 0; i < t->nsyms; i++)
		free(t->syms[i]);
	free(t->syms);
	for (int i = 0; i < t->nbind; i++)
		free(t->binds[i].val);
	free(t->binds);
	free(t->path);
	free(t->id);
	free(t->name);
	free(t->category);
	free(t->about);
	free(t->kb);
	free(t);
}
