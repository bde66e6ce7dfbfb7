/*
 * The task of a KernelBench problem file, built from the description that
 * the trusted describe step prints (python/kjudge_pyworker.py --describe,
 * src/judge/kbprob.c runs it).  There is no op graph: the reference is the
 * problem's own Model, run by a trusted Python reference worker
 * (src/judge/ref_kb.c); the task only says what the judge generates,
 * compares and times: the tensors' shapes and dtypes at the problem's one
 * size, and the description itself (kj_task.kb) for the two workers.
 */
#include <ctype.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "kjudge/task.h"

static char *xstrdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

static kj_expr *num_expr(kj_task *t, int is_float, double v)
{
	kj_expr *e;
	if (t->nexprs == t->capexprs) {
		int cap = t->capexprs ? 2 * t->capexprs : 32;
		kj_expr **n = realloc(t->exprs, (size_t)cap * sizeof(*n));
		if (!n)
			return NULL;
		t->exprs = n;
		t->capexprs = cap;
	}
	if (!(e = calloc(1, sizeof(*e))))
		return NULL;
	e->kind = is_float ? KJ_X_FLOAT : KJ_X_INT;
	e->ival = (int64_t)v;
	e->fval = v;
	t->exprs[t->nexprs++] = e;
	return e;
}

/* "float32" (torch's name, as the describe step prints it) -> kj_dtype */
static int torch_dtype(const char *s, kj_dtype *out)
{
	static const struct {
		const char *torch, *kj;
	} map[] = { { "float32", "f32" }, { "float16", "f16" },	 { "bfloat16", "bf16" },
		    { "int64", "i64" },	  { "int32", "i32" },	 { "int16", "i16" },	 { "int8", "i8" },
		    { "uint8", "u8" },	  { "bool", "bool" },	 { "float8_e4m3fn", "f8e4m3" } };
	for (size_t i = 0; s && i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(s, map[i].torch))
			return kj_dtype_from_name(map[i].kj, out);
	return -1;
}

/* One tensor of the description (an input or an output) as value vi. */
static int add_tensor(kj_task *t, json_t *d, kj_value_kind kind, int k, const char *path, struct kj_err *err)
{
	kj_value *v = &t->vals[t->nvals];
	json_t *shape = json_object_get(d, "shape");
	const char *dts = json_string_value(json_object_get(d, "dtype"));
	const char *what = kind == KJ_V_OUTPUT ? "output" : "input";
	char name[32];
	size_t i;
	json_t *x;
	memset(v, 0, sizeof(*v));
	if (!json_is_array(shape) || json_array_size(shape) > KJ_MAX_RANK)
		return kj_err_set(err, json_is_array(shape) ? KJ_E_UNSUPPORTED : KJ_E_PARSE,
				  "%s: %s %d: %s", path, what, k,
				  json_is_array(shape) ? "more dims than kjudge carries" : "no shape in the description");
	if (torch_dtype(dts, &v->dtype))
		return kj_err_set(err, KJ_E_UNSUPPORTED, "%s: %s %d has dtype %s, which kjudge does not judge", path,
				  what, k, dts ? dts : "(none)");
	snprintf(name, sizeof(name), "%c%d", kind == KJ_V_OUTPUT ? 'y' : 'x', k);
	if (!(v->name = strdup(name)))
		return kj_err_set(err, KJ_E_NOMEM, "out of memory");
	t->nvals++;
	v->kind = kind;
	v->loc.line = 1;
	v->assigned = kind == KJ_V_OUTPUT;
	v->rank = (int)json_array_size(shape);
	json_array_foreach(shape, i, x) {
		if (!json_is_integer(x) || json_integer_value(x) < 1)
			return kj_err_set(err, KJ_E_UNSUPPORTED, "%s: %s %d: dim %d is not a size >= 1 (kjudge has "
					  "no empty tensors)", path, what, k, (int)i);
		if (!(v->dims[i] = num_expr(t, 0, (double)json_integer_value(x))))
			return kj_err_set(err, KJ_E_NOMEM, "out of memory");
	}
	v->dist = KJ_DIST_NORMAL;
	if (kind == KJ_V_INPUT) {
		json_t *mn = json_object_get(d, "min"), *mx = json_object_get(d, "max");
		double lo = json_is_number(mn) ? json_number_value(mn) : -1, hi = json_is_number(mx) ? json_number_value(mx) : 1;
		if (v->dtype == KJ_BOOL) {
			lo = 0;
			hi = 1;
		}
		if (!kj_dtype_is_float(v->dtype)) {
			/* integers (class indices, lengths): the range the problem's
			 * own get_inputs drew from, as observed */
			v->dist = KJ_DIST_RANDINT;
			if (!(v->dist_args[0] = num_expr(t, 0, lo)) || !(v->dist_args[1] = num_expr(t, 0, hi + 1)))
				return kj_err_set(err, KJ_E_NOMEM, "out of memory");
		} else if (lo >= 0) {
			/* non-negative inputs (torch.rand: probabilities, variances)
			 * stay non-negative */
			v->dist = KJ_DIST_UNIFORM;
			if (!(v->dist_args[0] = num_expr(t, 1, 0)) || !(v->dist_args[1] = num_expr(t, 1, 1)))
				return kj_err_set(err, KJ_E_NOMEM, "out of memory");
		}
	}
	return 0;
}

/* "19_ReLU" from ".../level1/19_ReLU.py", and the level from the folder. */
static void names_of(const char *path, char *base, size_t blen, int *level)
{
	const char *b = strrchr(path, '/'), *lv;
	size_t n;
	b = b ? b + 1 : path;
	n = strlen(b);
	if (n > 3 && !strcmp(b + n - 3, ".py"))
		n -= 3;
	snprintf(base, blen, "%.*s", (int)n, b);
	*level = 0;
	for (lv = strstr(path, "level"); lv; lv = strstr(lv + 1, "level"))
		if (isdigit((unsigned char)lv[5]) && (lv == path || lv[-1] == '/')) {
			char *end;
			long l = strtol(lv + 5, &end, 10);
			if (*end == '/' && end < b)
				*level = (int)l;
		}
}

static int build(kj_task *t, json_t *root, const char *path, struct kj_err *err)
{
	json_t *ins = json_object_get(root, "inputs"), *outs = json_object_get(root, "outputs"), *x;
	size_t i, nin = json_array_size(ins), nout = json_array_size(outs);
	char base[256], idbuf[400], name[300];
	int rc, k = 0;
	if (!json_is_array(ins) || !json_is_array(outs) || !json_is_array(json_object_get(root, "init")))
		return kj_err_set(err, KJ_E_PARSE, "%s: the description lacks inputs, outputs or init", path);
	if (nout == 0)
		return kj_err_set(err, KJ_E_UNSUPPORTED, "%s: forward returns no tensor", path);
	if (!(t->vals = calloc(nin + nout + 1, sizeof(*t->vals))) || !(t->binds = calloc(1, sizeof(*t->binds))) ||
	    !(t->binds[0].val = calloc(1, sizeof(int64_t))))
		return kj_err_set(err, KJ_E_NOMEM, "out of memory");
	t->nbind = 1;
	json_array_foreach(ins, i, x) {
		if (!json_is_object(x))
			return kj_err_set(err, KJ_E_PARSE, "%s: input %d of the description is not an object", path, (int)i);
		if (!json_is_true(json_object_get(x, "tensor"))) {
			if (!json_object_get(x, "value"))
				return kj_err_set(err, KJ_E_PARSE, "%s: input %d is neither a tensor nor a value", path,
						  (int)i);
			continue; /* a scalar: the workers pass the problem's value */
		}
		if ((rc = add_tensor(t, x, KJ_V_INPUT, k++, path, err)))
			return rc;
	}
	if (k == 0)
		return kj_err_set(err, KJ_E_UNSUPPORTED, "%s: get_inputs() returns no tensor", path);
	json_array_foreach(outs, i, x)
		if ((rc = add_tensor(t, x, KJ_V_OUTPUT, (int)i, path, err)))
			return rc;
	if (t->nvals > 64)
		return kj_err_set(err, KJ_E_UNSUPPORTED, "%s: %d tensors, more than a call carries (64)", path, t->nvals);
	t->binds[0].bench = 1;
	t->binds[0].weight = 1;
	t->binds[0].loc.line = 1;
	names_of(path, base, sizeof(base), &t->level);
	if (t->level)
		snprintf(idbuf, sizeof(idbuf), "kernelbench/level%d/%s", t->level, base);
	else
		snprintf(idbuf, sizeof(idbuf), "kernelbench/%s", base);
	/* the name is a symbol (the prompt, the wire's LOAD) */
	snprintf(name, sizeof(name), "kb_%s", base);
	for (char *c = name; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '_')
			*c = '_';
	if (!(t->path = xstrdup(path)) || !(t->id = xstrdup(idbuf)) || !(t->name = xstrdup(name)) ||
	    !(t->category = xstrdup("KernelBench")))
		return kj_err_set(err, KJ_E_NOMEM, "out of memory");
	{
		char about[600];
		snprintf(about, sizeof(about), "KernelBench L%d #%s (problem file %s)", t->level, base, path);
		if (!(t->about = strdup(about)))
			return kj_err_set(err, KJ_E_NOMEM, "out of memory");
	}
	if (!(t->kb = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER)))
		return kj_err_set(err, KJ_E_NOMEM, "out of memory");
	return 0;
}

int kj_task_from_kernelbench(const char *json, const char *path, kj_task **out, struct kj_err *err)
{
	json_error_t je;
	json_t *root;
	kj_task *t;
	int rc;
	*out = NULL;
	root = json_loads(json ? json : "", JSON_DISABLE_EOF_CHECK, &je);
	if (!json_is_object(root)) {
		json_decref(root);
		return kj_err_set(err, KJ_E_PARSE, "%s: the problem's description is not JSON: %s", path, je.text);
	}
	if (!json_is_true(json_object_get(root, "ok"))) {
		const char *why = json_string_value(json_object_get(root, "error"));
		rc = kj_err_set(err, KJ_E_PARSE, "%s: %s", path, why ? why : "the description says it failed");
		json_decref(root);
		return rc;
	}
	if (!(t = calloc(1, sizeof(*t)))) {
		json_decref(root);
		return kj_err_set(err, KJ_E_NOMEM, "out of memory");
	}
	rc = build(t, root, path, err);
	json_decref(root);
	if (rc) {
		kj_task_free(t);
		return rc;
	}
	*out = t;
	return 0;
}
