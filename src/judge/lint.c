/*
 * The degeneracy lint: see include/kjudge/lint.h.  Inputs are drawn exactly
 * as the judge's correctness stage draws them (declared distributions,
 * tensor ids counted over inputs and params in ABI order, values rounded
 * through the tensor's dtype) and tolerances are the judge's, so "differs"
 * here means "a candidate returning the other value would be caught".
 */
#include "kjudge/judge.h"
#include "kjudge/lint.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kjudge/exec.h"

#define MAX_ABI 64

struct out_stat {
	int vi;
	kj_dtype dt;
	int isf;
	double atol, rtol;
	int var_ok;        /* some element differs between two seeds */
	int have_v0, two_values;
	double v0;         /* integer outputs: the first value seen */
	int axis_seen[KJ_MAX_RANK], axis_varies[KJ_MAX_RANK];
	int *matters;      /* per abi input slot */
	double sumsq;
	int64_t cnt;
	double *ref;       /* this binding's seed-0 outputs */
};

struct lint {
	const kj_task *t;
	const kj_lint_opts *o;
	int nabi, abi[MAX_ABI];
	int nout;
	struct out_stat *outs;
};

void kj_lint_opts_init(kj_lint_opts *o)
{
	o->base_seed = 0x6b6a75646765ULL; /* the judge's default base seed */
	o->seeds = 3;
}


static int differs(double a, double b, double atol, double rtol)
{
	if (isnan(a) || isnan(b))
		return !(isnan(a) && isnan(b));
	if (isinf(a) || isinf(b))
		return a != b;
	return !(fabs(a - b) <= atol + rtol * fabs(b));
}

static void add_reason(kj_lint_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add_reason(kj_lint_result *r, const char *fmt, ...)
{
	char buf[KJ_LINT_REASON_LEN];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (int i = 0; i < r->nreasons; i++)
		if (!strcmp(r->reason[i], buf))
			return;
	if (r->nreasons == KJ_LINT_MAX_REASONS) {
		r->truncated = 1;
		return;
	}
	memcpy(r->reason[r->nreasons++], buf, sizeof(buf));
}

/* Fills abi slot j's executor buffer with the draw for seed. */
static void fill_one(struct lint *l, const kj_plan *p, kj_exec64 *x, int j, uint64_t seed)
{
	int vi = l->abi[j];
	const kj_tinfo *ti = &p->vals[vi];
	size_t n = (size_t)kj_shape_numel(&ti->shape);
	for (size_t k = 0; k < n; k++)
		x->buf[vi][k] = kj_round_to(ti->dtype,
					    kj_gen_value(&p->dists[vi], NULL, seed, (uint32_t)j, k));
}

static void fill_all(struct lint *l, const kj_plan *p, kj_exec64 *x, uint64_t seed)
{
	for (int j = 0; j < l->nabi; j++)
		fill_one(l, p, x, j, seed);
}

static double out_val(const struct out_stat *s, const double *y, int64_t k)
{
	return s->isf ? y[k] : kj_round_to(s->dt, y[k]);
}

/* Per-seed statistics: constant axes, RMS, distinct integer values. */
static void seed_stats(struct out_stat *s, const kj_tinfo *ti, const double *y)
{
	int64_t n = kj_shape_numel(&ti->shape);
	for (int64_t k = 0; k < n; k++) {
		double v = out_val(s, y, k);
		if (s->isf && isfinite(v)) {
			s->sumsq += v * v;
			s->cnt++;
		}
		if (!s->have_v0) {
			s->have_v0 = 1;
			s->v0 = v;
		} else if (!s->two_values && differs(v, s->v0, 0, 0)) {
			s->two_values = 1;
		}
	}
	for (int a = 0; a < ti->shape.rank; a++) {
		int64_t dk = ti->shape.d[a], outer = 1, inner = 1;
		if (dk < 2 || s->axis_varies[a])
			continue;
		s->axis_seen[a] = 1;
		for (int b = 0; b < a; b++)
			outer *= ti->shape.d[b];
		for (int b = a + 1; b < ti->shape.rank; b++)
			inner *= ti->shape.d[b];
		for (int64_t o = 0; o < outer && !s->axis_varies[a]; o++)
			for (int64_t i = 1; i < dk && !s->axis_varies[a]; i++)
				for (int64_t in = 0; in < inner; in++) {
					double base = out_val(s, y, o * dk * inner + in);
					double v = out_val(s, y, (o * dk + i) * inner + in);
					if (differs(v, base, s->atol, s->rtol)) {
						s->axis_varies[a] = 1;
						break;
					}
				}
	}
}

/* 1 when y differs from the seed-0 reference somewhere beyond tolerance. */
static int differs_from_ref(const struct out_stat *s, const kj_tinfo *ti, const double *y)
{
	int64_t n = kj_shape_numel(&ti->shape);
	for (int64_t k = 0; k < n; k++)
		if (differs(out_val(s, y, k), out_val(s, s->ref, k), s->atol, s->rtol))
			return 1;
	return 0;
}

static int lint_binding(struct lint *l, int bind, struct kj_err *err)
{
	kj_plan p;
	kj_exec64 x;
	int rc;
	uint64_t seed0 = kj_seed_for(l->o->base_seed, 0);
	if ((rc = kj_plan_build(l->t, bind, &p, err)))
		return rc;
	if ((rc = kj_exec64_init(&x, &p, err))) {
		kj_plan_release(&p);
		return rc;
	}
	for (int i = 0; i < l->nout; i++) {
		int64_t n = kj_shape_numel(&p.vals[l->outs[i].vi].shape);
		l->outs[i].ref = malloc((size_t)(n ? n : 1) * sizeof(double));
		if (!l->outs[i].ref) {
			rc = kj_err_set(err, KJ_E_NOMEM, "out of memory for %lld outputs", (long long)n);
			goto out;
		}
	}
	for (int k = 0; k < l->o->seeds; k++) {
		fill_all(l, &p, &x, kj_seed_for(l->o->base_seed, k));
		if ((rc = kj_exec64_run(&x, err)))
			goto out;
		for (int i = 0; i < l->nout; i++) {
			struct out_stat *s = &l->outs[i];
			const kj_tinfo *ti = &p.vals[s->vi];
			seed_stats(s, ti, x.buf[s->vi]);
			if (k == 0)
				memcpy(s->ref, x.buf[s->vi],
				       (size_t)kj_shape_numel(&ti->shape) * sizeof(double));
			else if (!s->var_ok && differs_from_ref(s, ti, x.buf[s->vi]))
				s->var_ok = 1;
		}
	}
	fill_all(l, &p, &x, seed0);
	for (int j = 0; j < l->nabi; j++) {
		fill_one(l, &p, &x, j, kj_seed_for(l->o->base_seed ^ 0x6c696e74ULL, j + 1));
		if ((rc = kj_exec64_run(&x, err)))
			goto out;
		for (int i = 0; i < l->nout; i++) {
			struct out_stat *s = &l->outs[i];
			if (!s->matters[j] && differs_from_ref(s, &p.vals[s->vi], x.buf[s->vi]))
				s->matters[j] = 1;
		}
		fill_one(l, &p, &x, j, seed0);
	}
out:
	for (int i = 0; i < l->nout; i++) {
		free(l->outs[i].ref);
		l->outs[i].ref = NULL;
	}
	kj_exec64_release(&x);
	kj_plan_release(&p);
	return rc;
}

static void dim_name(const kj_value *v, int a, char *buf, size_t len)
{
	const kj_expr *e = v->dims[a];
	if (e && e->kind == KJ_X_IDENT)
		snprintf(buf, len, "%s", e->name);
	else if (e && e->kind == KJ_X_INT)
		snprintf(buf, len, "%lld", (long long)e->ival);
	else
		snprintf(buf, len, "expr");
}

static void report(struct lint *l, kj_lint_result *r)
{
	const kj_task *t = l->t;
	/* an input must change some output, not each: with h = x + r and
	 * y = layer_norm(h, weight=g), g cannot change h */
	for (int j = 0; j < l->nabi; j++) {
		const kj_value *in = &t->vals[l->abi[j]];
		int used = 0;
		for (int i = 0; i < l->nout; i++)
			used |= l->outs[i].matters[j];
		if (used)
			continue;
		if (l->nout == 1)
			add_reason(r, "%s %s does not change output %s",
				   in->kind == KJ_V_PARAM ? "param" : "input", in->name,
				   t->vals[l->outs[0].vi].name);
		else
			add_reason(r, "%s %s does not change any output",
				   in->kind == KJ_V_PARAM ? "param" : "input", in->name);
	}
	for (int i = 0; i < l->nout; i++) {
		struct out_stat *s = &l->outs[i];
		const kj_value *v = &t->vals[s->vi];
		if (!s->var_ok && !(!s->isf && s->two_values))
			add_reason(r, "output %s does not vary across %d seeds beyond tolerance", v->name,
				   l->o->seeds);
		for (int a = 0; a < v->rank; a++)
			if (s->axis_seen[a] && !s->axis_varies[a]) {
				char d[64];
				dim_name(v, a, d, sizeof(d));
				add_reason(r, "output %s is constant along dim %d (%s)", v->name, a, d);
			}
		if (s->isf && s->cnt > 0 && s->atol > 0) {
			double rms = sqrt(s->sumsq / (double)s->cnt);
			if (rms < 10 * s->atol)
				add_reason(r, "output %s has RMS %.3g, below 10 x atol %.3g", v->name, rms,
					   s->atol);
		}
	}
}

int kj_lint_task(const kj_task *t, const kj_lint_opts *o, kj_lint_result *r, struct kj_err *err)
{
	struct lint l;
	kj_lint_opts def;
	int abi[MAX_ABI], n, rc = 0;
	memset(r, 0, sizeof(*r));
	if (!o) {
		kj_lint_opts_init(&def);
		o = &def;
	}
	if (o->seeds < 2)
		return kj_err_set(err, KJ_E_USAGE, "the lint needs at least 2 seeds, got %d", o->seeds);
	memset(&l, 0, sizeof(l));
	l.t = t;
	l.o = o;
	n = kj_task_abi_values(t, abi, MAX_ABI);
	if (n > MAX_ABI)
		return kj_err_set(err, KJ_E_UNSUPPORTED, "task %s has more than %d tensors", t->id, MAX_ABI);
	l.outs = calloc((size_t)(n ? n : 1), sizeof(*l.outs));
	if (!l.outs)
		return kj_err_set(err, KJ_E_NOMEM, "out of memory");
	for (int i = 0; i < n; i++) {
		const kj_value *v = &t->vals[abi[i]];
		if (v->kind != KJ_V_OUTPUT) {
			l.abi[l.nabi++] = abi[i];
			continue;
		}
		struct out_stat *s = &l.outs[l.nout++];
		s->vi = abi[i];
		s->dt = v->dtype;
		s->isf = kj_dtype_is_float(v->dtype);
		kj_tolerance(t, v->dtype, &s->atol, &s->rtol);
	}
	for (int i = 0; i < l.nout && !rc; i++) {
		l.outs[i].matters = calloc((size_t)(l.nabi ? l.nabi : 1), sizeof(int));
		if (!l.outs[i].matters)
			rc = kj_err_set(err, KJ_E_NOMEM, "out of memory");
	}
	for (int b = 0; b < t->nbind && !rc; b++) {
		if (t->binds[b].bench == 1)
			continue;
		rc = lint_binding(&l, b, err);
		r->nbind++;
	}
	if (!rc)
		report(&l, r);
	for (int i = 0; i < l.nout; i++)
		free(l.outs[i].matters);
	free(l.outs);
	return rc;
}

/* ---- bench sizing ---- */

void kj_calib_h200(kj_calib *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "NVIDIA H200 (built-in figures)");
	c->copy_gbs = 4242;
	c->read_gbs = 4036;
	c->fp64_tflops = 62.4;
	c->fp32_tflops = 51.3;
	c->tf32_tflops = 407.9;
	c->fp16_tflops = 753.6;
	c->bf16_tflops = 781.6;
	c->int8_tops = 1494.4;
	c->fp8_tflops = 1438.4;
}

static double numel_of(const kj_tinfo *ti)
{
	double n = 1;
	for (int k = 0; k < ti->shape.rank; k++)
		n *= (double)ti->shape.d[k];
	return n;
}

/* ---- measured sizing table ---- */

struct sizing_entry {
	char *task, *shape; /* shape canonical: its NAME=VALUE pairs sorted */
	double ms;
};

struct kj_sizing_table {
	struct sizing_entry *e;
	int n, cap;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The pairs of shape sorted and joined by single spaces, into out (of
 * outsz bytes); returns 0, or -1 when it does not fit or has too many. */
static int canon_shape(const char *shape, char *out, size_t outsz)
{
	char buf[512], *tok[64], *save = NULL;
	int n = 0;
	size_t len = 0;
	size_t sl = strlen(shape);
	if (sl >= sizeof(buf))
		return -1;
	memcpy(buf, shape, sl + 1);
	for (char *p = strtok_r(buf, " \t", &save); p; p = strtok_r(NULL, " \t", &save)) {
		if (n == 64)
			return -1;
		tok[n++] = p;
	}
	qsort(tok, (size_t)n, sizeof(tok[0]), cmp_str);
	out[0] = 0;
	for (int i = 0; i < n; i++) {
		size_t l = strlen(tok[i]);
		if (len + l + 2 > outsz)
			return -1;
		if (i)
			out[len++] = ' ';
		memcpy(out + len, tok[i], l + 1);
		len += l;
	}
	return 0;
}

void kj_sizing_table_free(kj_sizing_table *tb)
{
	if (!tb)
		return;
	for (int i = 0; i < tb->n; i++) {
		free(tb->e[i].task);
		free(tb->e[i].shape);
	}
	free(tb->e);
	free(tb);
}

int kj_sizing_table_count(const kj_sizing_table *tb)
{
	return tb ? tb->n : 0;
}

int kj_sizing_table_load(const char *path, kj_sizing_table **out, struct kj_err *err)
{
	kj_sizing_table *tb = calloc(1, sizeof(*tb));
	char line[1024], canon[512];
	int lineno = 0, rc = 0;
	FILE *f;
	*out = NULL;
	if (!tb)
		return kj_err_set(err, KJ_E_NOMEM, "out of memory");
	if (!(f = fopen(path, "r"))) {
		if (errno == ENOENT) {
			*out = tb;
			return 0;
		}
		kj_sizing_table_free(tb);
		return kj_err_set(err, KJ_E_IO, "%s: %s", path, strerror(errno));
	}
	while (!rc && fgets(line, sizeof(line), f)) {
		char *task, *shape, *ms, *end, *save = NULL;
		double v;
		lineno++;
		line[strcspn(line, "\r\n")] = 0;
		if (!line[0] || line[0] == '#')
			continue;
		task = strtok_r(line, "\t", &save);
		shape = strtok_r(NULL, "\t", &save);
		ms = strtok_r(NULL, "\t", &save);
		if (!task || !shape || !ms || strtok_r(NULL, "\t", &save)) {
			rc = kj_err_set(err, KJ_E_PARSE, "%s:%d: expected task<TAB>shape<TAB>ms", path, lineno);
			break;
		}
		v = strtod(ms, &end);
		if (end == ms || *end || !(v > 0) || v > 1e9) {
			rc = kj_err_set(err, KJ_E_PARSE, "%s:%d: '%s' is not a time in ms", path, lineno, ms);
			break;
		}
		if (canon_shape(shape, canon, sizeof(canon))) {
			rc = kj_err_set(err, KJ_E_PARSE, "%s:%d: shape '%.60s' is too long", path, lineno, shape);
			break;
		}
		if (tb->n == tb->cap) {
			int nc = tb->cap ? 2 * tb->cap : 256;
			struct sizing_entry *ne = realloc(tb->e, (size_t)nc * sizeof(*ne));
			if (!ne) {
				rc = kj_err_set(err, KJ_E_NOMEM, "out of memory");
				break;
			}
			tb->e = ne;
			tb->cap = nc;
		}
		tb->e[tb->n].task = strdup(task);
		tb->e[tb->n].shape = strdup(canon);
		tb->e[tb->n].ms = v;
		if (!tb->e[tb->n].task || !tb->e[tb->n].shape) {
			free(tb->e[tb->n].task);
			free(tb->e[tb->n].shape);
			rc = kj_err_set(err, KJ_E_NOMEM, "out of memory");
			break;
		}
		tb->n++;
	}
	if (!rc && ferror(f))
		rc = kj_err_set(err, KJ_E_IO, "%s: read error", path);
	fclose(f);
	if (rc) {
		kj_sizing_table_free(tb);
		return rc;
	}
	*out = tb;
	return 0;
}

double kj_sizing_table_find(const kj_sizing_table *tb, const char *task, const char *shape)
{
	char canon[512];
	if (!tb || !tb->n || canon_shape(shape, canon, sizeof(canon)))
		return -1;
	for (int i = tb->n - 1; i >= 0; i--) /* a later line wins */
		if (!strcmp(tb->e[i].task, task) && !strcmp(tb->e[i].shape, canon))
			return tb->e[i].ms;
	return -1;
}

int kj_lint_sizing(const kj_task *t, const kj_calib *c, const kj_sizing_table *meas, kj_sizing *s,
		   int cap, kj_lint_result *r, struct kj_err *err)
{
	int n = 0, abi[MAX_ABI], nabi = kj_task_abi_values(t, abi, MAX_ABI);
	/* suites of deployment shapes keep theirs, however short (a decode GEMV
	 * takes tens of microseconds); only the memory limit applies to them */
	int real_shapes = !strncmp(t->id, "serving/", 8) || !strncmp(t->id, "trace/", 6);
	double bw = (c->copy_gbs > 0 ? c->copy_gbs : 1) * 1e9;
	char bs[256];

	for (int b = 0; b < t->nbind; b++) {
		kj_plan p;
		double ms = 0, mem = 0;
		int rc;
		if (t->binds[b].bench != 1)
			continue;
		if ((rc = kj_plan_build(t, b, &p, err)))
			return rc;
		for (int i = 0; i < t->nnodes; i++) {
			kj_cost cost = { 0, 0 };
			double rate = kj_node_peak_tflops(&p, i, c) * 1e12;
			p.task->nodes[i].op->cost(&p.nodes[i], &cost);
			double tf = rate > 0 ? cost.flops / rate : 0, tb = cost.min_bytes / bw;
			ms += (tf > tb ? tf : tb) * 1e3;
		}
		for (int v = 0; v < t->nvals; v++)
			mem += numel_of(&p.vals[v]) * ((double)kj_dtype_size(p.vals[v].dtype) + 8.0);
		for (int i = 0; i < nabi && i < MAX_ABI; i++)
			mem += numel_of(&p.vals[abi[i]]) * (double)kj_dtype_size(p.vals[abi[i]].dtype);
		kj_binding_str(t, &t->binds[b], bs, sizeof(bs));
		double mm = kj_sizing_table_find(meas, t->id, bs), use = mm > 0 ? mm : ms;
		if (!real_shapes && (use < KJ_SIZING_MIN_MS || use > KJ_SIZING_MAX_MS)) {
			if (mm > 0)
				add_reason(r, "bench %s: eager baseline measured at %.3g ms on the H200 "
					   "(sizing table; estimated %.3g ms), outside [%g, %g] ms", bs, mm, ms,
					   KJ_SIZING_MIN_MS, KJ_SIZING_MAX_MS);
			else
				add_reason(r, "bench %s: eager baseline estimated at %.3g ms on %s, outside "
					   "[%g, %g] ms", bs, ms, c->name, KJ_SIZING_MIN_MS, KJ_SIZING_MAX_MS);
		}
		if (mem > KJ_SIZING_MAX_BYTES)
			add_reason(r, "bench %s: needs about %.1f GB of device memory (over %.0f GB)", bs,
				   mem / 1e9, KJ_SIZING_MAX_BYTES / 1e9);
		if (n < cap) {
			s[n].bind = b;
			s[n].est_ms = ms;
			s[n].meas_ms = mm;
			s[n].mem_bytes = mem;
		}
		n++;
		kj_plan_release(&p);
	}
	return n;
}
