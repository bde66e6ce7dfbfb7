/*
 * Reading a PyTorch profiler trace (Chrome-trace JSON, plain or gzipped) and
 * attributing its GPU kernel time to aten operators and phases
 * (include/kjudge/trace.h says how).
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "kjudge/trace.h"

#define TRACE_MAX_BYTES ((size_t)2 << 30) /* 2 GiB of JSON */

/* Reads the whole file through zlib, which passes plain files through. */
static int read_all(const char *path, char **buf, size_t *len, struct kj_err *err)
{
	gzFile f = gzopen(path, "rb");
	size_t cap = 1 << 20, n = 0;
	char *b;
	int zerr;
	if (!f)
		return kj_err_sys(err, "cannot open trace '%s'", path);
	b = malloc(cap + 1);
	if (!b) {
		gzclose(f);
		return kj_err_set(err, KJ_E_NOMEM, "out of memory reading trace '%s'", path);
	}
	for (;;) {
		int got;
		if (n == cap) {
			char *nb;
			if (cap >= TRACE_MAX_BYTES) {
				free(b);
				gzclose(f);
				return kj_err_set(err, KJ_E_IO, "trace '%s' is larger than 2 GiB", path);
			}
			nb = realloc(b, 2 * cap + 1);
			if (!nb) {
				free(b);
				gzclose(f);
				return kj_err_set(err, KJ_E_NOMEM, "out of memory reading trace '%s'", path);
			}
			b = nb;
			cap *= 2;
		}
		got = gzread(f, b + n, (unsigned)(cap - n > (1u << 30) ? (1u << 30) : cap - n));
		if (got < 0) {
			const char *m = gzerror(f, &zerr);
			kj_err_set(err, KJ_E_IO, "cannot read trace '%s': %s", path,
				   zerr == Z_ERRNO ? "read error" : m);
			free(b);
			gzclose(f);
			return KJ_E_IO;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	/* a gzip stream cut short reads as EOF with Z_BUF_ERROR pending */
	gzerror(f, &zerr);
	if (zerr != Z_OK && zerr != Z_STREAM_END) {
		kj_err_set(err, KJ_E_IO, "trace '%s' is truncated or corrupt (gzip: %s) after %zu bytes",
			   path, gzerror(f, &zerr), n);
		free(b);
		gzclose(f);
		return KJ_E_IO;
	}
	gzclose(f);
	b[n] = 0;
	*buf = b;
	*len = n;
	return 0;
}

static double num(json_t *o, const char *key, double dflt)
{
	json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : dflt;
}

/* Thread ids are numbers or strings in Chrome traces; compare as text. */
static void tid_key(json_t *e, char *buf, size_t n)
{
	json_t *p = json_object_get(e, "pid"), *t = json_object_get(e, "tid");
	char a[64], b[64];
	if (json_is_integer(p))
		snprintf(a, sizeof(a), "%lld", (long long)json_integer_value(p));
	else
		snprintf(a, sizeof(a), "%s", json_is_string(p) ? json_string_value(p) : "");
	if (json_is_integer(t))
		snprintf(b, sizeof(b), "%lld", (long long)json_integer_value(t));
	else
		snprintf(b, sizeof(b), "%s", json_is_string(t) ? json_string_value(t) : "");
	snprintf(buf, n, "%s/%s", a, b);
}

struct span {
	char tid[80];
	double ts, end;
	json_t *e;      /* borrowed from the document */
	long long ext;  /* External id, -1 when none */
};

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	int d = strcmp(x->tid, y->tid);
	if (d)
		return d;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	/* the enclosing one first */
	return (x->end < y->end) - (x->end > y->end);
}

/* The innermost span of v (sorted by cmp_span) on thread tid holding time t:
 * spans nest, so it is the latest-starting one that still holds t. */
static const struct span *innermost(const struct span *v, size_t n, const char *tid, double t)
{
	size_t lo = 0, hi = n;
	while (lo < hi) { /* first span with (tid, ts) > (tid, t) */
		size_t mid = (lo + hi) / 2;
		int d = strcmp(v[mid].tid, tid);
		if (d < 0 || (d == 0 && v[mid].ts <= t))
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo > 0) {
		const struct span *s = &v[--lo];
		if (strcmp(s->tid, tid))
			break;
		if (s->end >= t)
			return s;
	}
	return NULL;
}

/* The outermost span holding t on tid (phases). */
static const struct span *outermost(const struct span *v, size_t n, const char *tid, double t)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].tid, tid) && v[i].ts <= t && t <= v[i].end)
			return &v[i];
	return NULL;
}

static const char *str_or(const char *s, const char *dflt)
{
	return s ? s : dflt;
}

static char *compact(json_t *v)
{
	char *s = v ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
	return s ? s : strdup("null");
}

/* A phase name as an identifier: lower-case letters, digits and '_'. */
static char *phase_name(const char *s)
{
	char buf[25];
	size_t n = 0;
	for (; *s && n < sizeof(buf) - 1; s++) {
		char c = *s;
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
			buf[n++] = c;
		else if (n && buf[n - 1] != '_')
			buf[n++] = '_';
	}
	while (n && buf[n - 1] == '_')
		n--;
	buf[n] = 0;
	if (!n || !(buf[0] >= 'a' && buf[0] <= 'z')) {
		char t[32];
		snprintf(t, sizeof(t), "p_%s", buf);
		return strdup(t);
	}
	return strdup(buf);
}

struct agg_tab {
	struct kj_trace_agg *v;
	size_t n, cap;
};

static int agg_add(struct agg_tab *t, const char *op, json_t *args, const char *phase, double us,
		   const char *kernel)
{
	char *dims = compact(args ? json_object_get(args, "Input Dims") : NULL);
	char *types = compact(args ? json_object_get(args, "Input type") : NULL);
	if (!dims || !types)
		goto nomem;
	for (size_t i = 0; i < t->n; i++) {
		struct kj_trace_agg *a = &t->v[i];
		if (!strcmp(a->op, op) && !strcmp(a->dims, dims) && !strcmp(a->types, types) &&
		    !strcmp(a->phase, phase)) {
			a->us += us;
			a->kernels++;
			free(dims);
			free(types);
			return 0;
		}
	}
	if (t->n == t->cap) {
		size_t nc = t->cap ? 2 * t->cap : 64;
		struct kj_trace_agg *nv = realloc(t->v, nc * sizeof(*nv));
		if (!nv)
			goto nomem;
		t->v = nv;
		t->cap = nc;
	}
	struct kj_trace_agg *a = &t->v[t->n];
	memset(a, 0, sizeof(*a));
	a->op = strdup(op);
	a->dims = dims;
	a->types = types;
	a->strides = compact(args ? json_object_get(args, "Input Strides") : NULL);
	a->concrete = compact(args ? json_object_get(args, "Concrete Inputs") : NULL);
	a->phase = strdup(phase);
	a->kernel = strdup(kernel);
	a->us = us;
	a->kernels = 1;
	t->n++;
	if (!a->op || !a->strides || !a->concrete || !a->phase || !a->kernel)
		return KJ_E_NOMEM;
	return 0;
nomem:
	free(dims);
	free(types);
	return KJ_E_NOMEM;
}

static int cmp_agg(const void *a, const void *b)
{
	const struct kj_trace_agg *x = a, *y = b;
	if (x->us != y->us)
		return x->us > y->us ? -1 : 1;
	return strcmp(x->op, y->op);
}

void kj_trace_free(kj_trace *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nagg; i++) {
		struct kj_trace_agg *a = &t->agg[i];
		free(a->op), free(a->dims), free(a->types), free(a->strides);
		free(a->concrete), free(a->phase), free(a->kernel);
	}
	for (int i = 0; i < t->nphases; i++)
		free(t->phases[i]);
	free(t->phases);
	free(t->agg);
	free(t->path);
	free(t);
}

static int add_phase(kj_trace *t, const char *name)
{
	char **nv;
	for (int i = 0; i < t->nphases; i++)
		if (!strcmp(t->phases[i], name))
			return 0;
	nv = realloc(t->phases, (size_t)(t->nphases + 1) * sizeof(*nv));
	if (!nv)
		return KJ_E_NOMEM;
	t->phases = nv;
	t->phases[t->nphases] = strdup(name);
	return t->phases[t->nphases++] ? 0 : KJ_E_NOMEM;
}

struct launch {
	long long corr;
	char tid[80];
	double ts;
};

static int cmp_launch(const void *a, const void *b)
{
	const struct launch *x = a, *y = b;
	return (x->corr > y->corr) - (x->corr < y->corr);
}

static int cmp_ext(const void *a, const void *b)
{
	const struct span *x = *(const struct span *const *)a, *y = *(const struct span *const *)b;
	return (x->ext > y->ext) - (x->ext < y->ext);
}

static long long int_arg(json_t *args, const char *key)
{
	json_t *v = json_object_get(args, key);
	return json_is_integer(v) ? (long long)json_integer_value(v) : -1;
}

int kj_trace_load(const char *path, kj_trace **out, struct kj_err *err)
{
	char *buf = NULL;
	size_t len = 0, nev, nops = 0, nann = 0, nl = 0, nk = 0;
	json_error_t je;
	json_t *doc, *evs;
	struct span *ops = NULL, *ann = NULL, **byext = NULL;
	struct launch *ls = NULL;
	json_t **ks = NULL;
	struct agg_tab tab = { 0 };
	kj_trace *t = NULL;
	int rc;
	*out = NULL;
	if ((rc = read_all(path, &buf, &len, err)))
		return rc;
	{
		size_t i = 0;
		while (i < len && (buf[i] == ' ' || buf[i] == '\n' || buf[i] == '\r' || buf[i] == '\t'))
			i++;
		if (i == len) {
			free(buf);
			return kj_err_set(err, KJ_E_IO, "trace '%s' is empty", path);
		}
	}
	doc = json_loadb(buf, len, JSON_ALLOW_NUL, &je);
	free(buf);
	if (!doc)
		return kj_err_set(err, KJ_E_PARSE,
				  "trace '%s' is not valid JSON: %s at line %d, column %d (byte %d)%s", path,
				  je.text, je.line, je.column, je.position,
				  strstr(je.text, "end of") || strstr(je.text, "premature")
					  ? " (is the file truncated?)"
					  : "");
	evs = json_is_object(doc) ? json_object_get(doc, "traceEvents") : json_is_array(doc) ? doc : NULL;
	if (!json_is_array(evs)) {
		json_decref(doc);
		return kj_err_set(err, KJ_E_PARSE,
				  "trace '%s' is not a Chrome trace: no \"traceEvents\" array", path);
	}
	nev = json_array_size(evs);
	ops = calloc(nev + 1, sizeof(*ops));
	ann = calloc(nev + 1, sizeof(*ann));
	ls = calloc(nev + 1, sizeof(*ls));
	ks = calloc(nev + 1, sizeof(*ks));
	byext = calloc(nev + 1, sizeof(*byext));
	t = calloc(1, sizeof(*t));
	if (!ops || !ann || !ls || !ks || !byext || !t || !(t->path = strdup(path))) {
		rc = kj_err_set(err, KJ_E_NOMEM, "out of memory reading trace '%s'", path);
		goto out;
	}
	for (size_t i = 0; i < nev; i++) {
		json_t *e = json_array_get(evs, i), *args;
		const char *cat, *ph;
		if (!json_is_object(e))
			continue;
		cat = json_string_value(json_object_get(e, "cat"));
		ph = json_string_value(json_object_get(e, "ph"));
		args = json_object_get(e, "args");
		if (!cat || !ph || strcmp(ph, "X"))
			continue;
		if (!strcmp(cat, "kernel")) {
			ks[nk++] = e;
		} else if (!strcmp(cat, "cpu_op") || !strcmp(cat, "user_annotation")) {
			struct span *s = !strcmp(cat, "cpu_op") ? &ops[nops++] : &ann[nann++];
			tid_key(e, s->tid, sizeof(s->tid));
			s->ts = num(e, "ts", 0);
			s->end = s->ts + num(e, "dur", 0);
			s->e = e;
			s->ext = int_arg(args, "External id");
		} else if ((!strcmp(cat, "cuda_runtime") || !strcmp(cat, "cuda_driver")) &&
			   int_arg(args, "correlation") >= 0) {
			struct launch *l = &ls[nl++];
			l->corr = int_arg(args, "correlation");
			tid_key(e, l->tid, sizeof(l->tid));
			l->ts = num(e, "ts", 0);
		}
	}
	if (!nk) {
		rc = kj_err_set(err, KJ_E_PARSE,
				"trace '%s' has no GPU kernels (cat \"kernel\"): profile with "
				"ProfilerActivity.CUDA",
				path);
		goto out;
	}
	qsort(ops, nops, sizeof(*ops), cmp_span);
	qsort(ann, nann, sizeof(*ann), cmp_span);
	qsort(ls, nl, sizeof(*ls), cmp_launch);
	for (size_t i = 0; i < nops; i++)
		byext[i] = &ops[i];
	qsort(byext, nops, sizeof(*byext), cmp_ext);
	t->cpu_ops = (int)nops;
	for (size_t i = 0; i < nann; i++) {
		char *p = phase_name(str_or(json_string_value(json_object_get(ann[i].e, "name")), ""));
		if (!p || add_phase(t, p)) {
			free(p);
			rc = kj_err_set(err, KJ_E_NOMEM, "out of memory reading trace '%s'", path);
			goto out;
		}
		free(p);
	}
	for (size_t i = 0; i < nk; i++) {
		json_t *k = ks[i], *args = json_object_get(k, "args");
		double dur = num(k, "dur", 0);
		struct launch key = { .corr = int_arg(args, "correlation") };
		const struct launch *l = key.corr >= 0 ? bsearch(&key, ls, nl, sizeof(*ls), cmp_launch) : NULL;
		const struct span *op = NULL, *phs = NULL;
		char *phase;
		t->kernels++;
		t->total_us += dur;
		if (l) {
			op = innermost(ops, nops, l->tid, l->ts);
			phs = outermost(ann, nann, l->tid, l->ts);
			if (op)
				t->by_correlation++;
		}
		if (!op) {
			struct span ks_ = { .ext = int_arg(args, "External id") }, *kp = &ks_;
			struct span **hit = ks_.ext >= 0 ? bsearch(&kp, byext, nops, sizeof(*byext), cmp_ext) : NULL;
			if (hit) {
				op = *hit;
				t->by_external_id++;
				if (!phs)
					phs = outermost(ann, nann, op->tid, op->ts);
			}
		}
		if (!op)
			t->unattributed++;
		phase = phs ? phase_name(str_or(json_string_value(json_object_get(phs->e, "name")), ""))
			    : strdup(nann ? "other" : "all");
		if (!phase || add_phase(t, phase) ||
		    agg_add(&tab, op ? str_or(json_string_value(json_object_get(op->e, "name")), "(unnamed op)")
				     : "(no operator)",
			    op ? json_object_get(op->e, "args") : NULL, phase, dur,
			    str_or(json_string_value(json_object_get(k, "name")), ""))) {
			free(phase);
			rc = kj_err_set(err, KJ_E_NOMEM, "out of memory reading trace '%s'", path);
			goto out;
		}
		free(phase);
	}
	qsort(tab.v, tab.n, sizeof(*tab.v), cmp_agg);
	t->agg = tab.v;
	t->nagg = tab.n;
	tab.v = NULL;
	tab.n = 0;
	if (!(t->total_us > 0)) {
		rc = kj_err_set(err, KJ_E_PARSE, "trace '%s': its %d GPU kernels have no duration", path,
				t->kernels);
		goto out;
	}
	*out = t;
	t = NULL;
	rc = 0;
out:
	for (size_t i = 0; i < tab.n; i++) {
		struct kj_trace_agg *a = &tab.v[i];
		free(a->op), free(a->dims), free(a->types), free(a->strides);
		free(a->concrete), free(a->phase), free(a->kernel);
	}
	free(tab.v);
	kj_trace_free(t);
	free(ops), free(ann), free(ls), free(ks), free(byext);
	json_decref(doc);
	return rc;
}
