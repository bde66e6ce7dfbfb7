/*
 * From the aggregates of a trace to a suite: tasks grouped by computation,
 * one bench shape per distinct size, importance weights from GPU time; the
 * files of a suite (.kt + suite.json), the refresh of its weights from a new
 * trace, and the weights a report reads back.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kjudge/fsutil.h"
#include "kjudge/task.h"
#include "trace/trace_internal.h"

#define CPU_BENCH_WORK ((int64_t)1 << 21) /* product of the dims of a `bench cpu` shape */

struct pshape {
	int64_t val[MAP_MAX_SYMS];
	double us;
	int kernels;
};

struct pend {
	char *sig, *phase, *op, *decl, *body, *base, *about, *tol;
	const char *category;
	int nsym;
	char sym[MAP_MAX_SYMS][8];
	struct pshape *sh;
	int nsh;
	double us;
};

static void pend_release(struct pend *p)
{
	free(p->sig), free(p->phase), free(p->op), free(p->decl), free(p->body);
	free(p->base), free(p->about), free(p->tol), free(p->sh);
}

void kj_suite_free(kj_suite *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->ntasks; i++) {
		struct kj_suite_task *t = &s->tasks[i];
		free(t->name), free(t->phase), free(t->op), free(t->signature), free(t->text);
		for (int j = 0; j < t->nshapes; j++)
			free(t->shapes[j].bind);
		free(t->shapes);
	}
	for (int i = 0; i < s->nunmapped; i++)
		free(s->unmapped[i].op), free(s->unmapped[i].reason);
	free(s->tasks);
	free(s->unmapped);
	free(s->name);
	free(s->source);
	free(s);
}

static int add_unmapped(kj_suite *s, const char *op, const char *reason, double share, int kernels)
{
	struct kj_suite_unmapped *nv;
	for (int i = 0; i < s->nunmapped; i++)
		if (!strcmp(s->unmapped[i].op, op)) {
			struct kj_suite_unmapped *u = &s->unmapped[i];
			u->share += share;
			u->kernels += kernels;
			if (!strstr(u->reason, reason) && strlen(u->reason) < 400) {
				size_t n = strlen(u->reason) + strlen(reason) + 3;
				char *r = malloc(n);
				if (!r)
					return KJ_E_NOMEM;
				snprintf(r, n, "%s; %s", u->reason, reason);
				free(u->reason);
				u->reason = r;
			}
			return 0;
		}
	nv = realloc(s->unmapped, (size_t)(s->nunmapped + 1) * sizeof(*nv));
	if (!nv)
		return KJ_E_NOMEM;
	s->unmapped = nv;
	nv[s->nunmapped].op = strdup(op);
	nv[s->nunmapped].reason = strdup(reason);
	nv[s->nunmapped].share = share;
	nv[s->nunmapped].kernels = kernels;
	s->nunmapped++;
	return nv[s->nunmapped - 1].op && nv[s->nunmapped - 1].reason ? 0 : KJ_E_NOMEM;
}

static int cmp_unmapped(const void *a, const void *b)
{
	const struct kj_suite_unmapped *x = a, *y = b;
	if (x->share != y->share)
		return x->share > y->share ? -1 : 1;
	return strcmp(x->op, y->op);
}

static int cmp_pend(const void *a, const void *b)
{
	const struct pend *x = a, *y = b;
	if (x->us != y->us)
		return x->us > y->us ? -1 : 1;
	return strcmp(x->sig, y->sig);
}

static int cmp_pshape(const void *a, const void *b)
{
	const struct pshape *x = a, *y = b;
	if (x->us != y->us)
		return x->us > y->us ? -1 : 1;
	return memcmp(x->val, y->val, sizeof(x->val));
}

static void bind_text(const struct pend *p, const int64_t *val, struct sb *b)
{
	for (int i = 0; i < p->nsym; i++)
		sb_printf(b, "%s%s=%lld", i ? " " : "", p->sym[i], (long long)val[i]);
}

/* Adds the aggregate's shape to the pending task with the same signature. */
static int add_shape(struct pend **pv, int *np, struct map *m, const struct kj_trace_agg *a)
{
	struct sb sig = { 0 };
	struct pend *p = NULL;
	sb_printf(&sig, "phase %s\n%s%s%s", a->phase, m->decl.p, m->body.p, m->tol);
	if (sig.oom)
		return KJ_E_NOMEM;
	for (int i = 0; i < *np; i++)
		if (!strcmp((*pv)[i].sig, sig.p))
			p = &(*pv)[i];
	if (!p) {
		struct pend *nv = realloc(*pv, (size_t)(*np + 1) * sizeof(*nv));
		if (!nv) {
			sb_release(&sig);
			return KJ_E_NOMEM;
		}
		*pv = nv;
		p = &nv[(*np)++];
		memset(p, 0, sizeof(*p));
		p->sig = sig.p;
		sig.p = NULL;
		p->phase = strdup(a->phase);
		p->op = strdup(a->op);
		p->decl = strdup(m->decl.p);
		p->body = strdup(m->body.p);
		p->base = strdup(m->base);
		p->about = strdup(m->about);
		p->tol = strdup(m->tol);
		p->category = m->category;
		p->nsym = m->nsym;
		memcpy(p->sym, m->sym, sizeof(m->sym));
		if (!p->phase || !p->op || !p->decl || !p->body || !p->base || !p->about || !p->tol)
			return KJ_E_NOMEM;
	}
	sb_release(&sig);
	p->us += a->us;
	for (int i = 0; i < p->nsh; i++)
		if (!memcmp(p->sh[i].val, m->val, sizeof(m->val))) {
			p->sh[i].us += a->us;
			p->sh[i].kernels += a->kernels;
			return 0;
		}
	struct pshape *ns = realloc(p->sh, (size_t)(p->nsh + 1) * sizeof(*ns));
	if (!ns)
		return KJ_E_NOMEM;
	p->sh = ns;
	memset(&ns[p->nsh], 0, sizeof(ns[0]));
	memcpy(ns[p->nsh].val, m->val, sizeof(m->val));
	ns[p->nsh].us = a->us;
	ns[p->nsh].kernels = a->kernels;
	p->nsh++;
	return 0;
}

/* The check shapes: all ones; distinct small primes; the largest symbol of
 * the trace at 1000 (a size no tile divides) and the others at 2. */
static void check_lines(const struct pend *p, struct sb *b)
{
	static const int primes[MAP_MAX_SYMS] = { 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41 };
	int big = 0;
	for (int i = 1; i < p->nsym; i++)
		if (p->sh[0].val[i] > p->sh[0].val[big])
			big = i;
	sb_printf(b, "check ");
	for (int i = 0; i < p->nsym; i++)
		sb_printf(b, "%s%s=1", i ? " " : "", p->sym[i]);
	sb_printf(b, "; ");
	for (int i = 0; i < p->nsym; i++)
		sb_printf(b, "%s%s=%d", i ? " " : "", p->sym[i], primes[i]);
	sb_printf(b, "; ");
	for (int i = 0; i < p->nsym; i++)
		sb_printf(b, "%s%s=%d", i ? " " : "", p->sym[i], i == big ? 1000 : 2);
	sb_printf(b, "\n");
}

/* A CPU bench shape: the top shape with its largest dims halved until the
 * product of all dims is at most CPU_BENCH_WORK. */
static void cpu_bench(const struct pend *p, int64_t *val)
{
	memcpy(val, p->sh[0].val, sizeof(p->sh[0].val));
	for (;;) {
		double prod = 1;
		int big = 0;
		for (int i = 0; i < p->nsym; i++) {
			prod *= (double)val[i];
			if (val[i] > val[big])
				big = i;
		}
		if (prod <= (double)CPU_BENCH_WORK || val[big] <= 1)
			return;
		val[big] = (val[big] + 1) / 2;
	}
}

static char *task_text(const kj_suite *s, const struct pend *p, const char *name)
{
	struct sb b = { 0 };
	int64_t cv[MAP_MAX_SYMS];
	sb_printf(&b, "# Generated by `kjudge trace import` from %s (suite %s, phase %s): %s.\n",
		  s->source, s->name, p->phase, p->op);
	sb_printf(&b, "# Bench shapes are the trace's; a shape's weight is its share of this task's\n"
		      "# GPU time in the trace.  suite.json holds the suite's importance weights;\n"
		      "# `kjudge trace import NEW --refresh DIR` rewrites only the weights.\n");
	sb_printf(&b, "task %s\nlevel 1\ncategory %s\nabout \"%s (trace %s, %s)\"\n", name, p->category,
		  p->about, s->name, p->phase);
	sb_printf(&b, "%s%s%s", p->decl, p->body, p->tol);
	check_lines(p, &b);
	for (int i = 0; i < p->nsh; i++) {
		double w = p->sh[i].us / p->us;
		sb_printf(&b, "bench ");
		bind_text(p, p->sh[i].val, &b);
		sb_printf(&b, " weight=%.9g\n", w > 1e-9 ? w : 1e-9);
	}
	cpu_bench(p, cv);
	sb_printf(&b, "bench cpu ");
	bind_text(p, cv, &b);
	sb_printf(&b, " weight=1\n");
	if (b.oom) {
		sb_release(&b);
		return NULL;
	}
	return b.p;
}

int kj_suite_build(const kj_trace *t, const struct kj_suite_opts *o, kj_suite **out,
		   struct kj_err *err)
{
	kj_suite *s = calloc(1, sizeof(*s));
	struct pend *pv = NULL;
	int np = 0, rc = KJ_E_NOMEM;
	const char *src = strrchr(t->path, '/');
	double mapped_us = 0;
	*out = NULL;
	if (!s)
		return kj_err_set(err, KJ_E_NOMEM, "out of memory building a suite");
	s->name = strdup(o && o->name ? o->name : "trace");
	s->source = strdup(src ? src + 1 : t->path);
	s->total_us = t->total_us;
	s->kernels = t->kernels;
	s->min_share = o ? o->min_share : 0;
	if (!s->name || !s->source)
		goto fail;
	for (size_t i = 0; i < t->nagg; i++) {
		const struct kj_trace_agg *a = &t->agg[i];
		double share = a->us / t->total_us;
		struct map m;
		map_agg(a, &m);
		if (!m.ok) {
			if (add_unmapped(s, a->op, m.reason, share, a->kernels)) {
				map_release(&m);
				goto fail;
			}
			s->unmapped_share += share;
		} else if (share < s->min_share) {
			s->below_share += share;
		} else if (add_shape(&pv, &np, &m, a)) {
			map_release(&m);
			goto fail;
		}
		map_release(&m);
	}
	if (np)
		qsort(pv, (size_t)np, sizeof(*pv), cmp_pend);
	s->tasks = calloc((size_t)(np ? np : 1), sizeof(*s->tasks));
	if (!s->tasks)
		goto fail;
	for (int i = 0; i < np; i++) {
		struct pend *p = &pv[i];
		struct kj_suite_task *st = &s->tasks[s->ntasks];
		char name[128];
		int same = 0;
		kj_task *kt = NULL;
		struct kj_err perr;
		qsort(p->sh, (size_t)p->nsh, sizeof(*p->sh), cmp_pshape);
		for (int j = 0; j < i; j++)
			same += !strcmp(pv[j].base, p->base) && !strcmp(pv[j].phase, p->phase);
		if (same)
			snprintf(name, sizeof(name), "%s_%s_%d", p->phase, p->base, same + 1);
		else
			snprintf(name, sizeof(name), "%s_%s", p->phase, p->base);
		memset(st, 0, sizeof(*st));
		st->text = task_text(s, p, name);
		if (!st->text)
			goto fail;
		kj_err_init(&perr);
		if (kj_task_parse(st->text, strlen(st->text), name, &kt, &perr)) {
			char reason[1200];
			snprintf(reason, sizeof(reason), "generated task does not load: %s", perr.msg);
			free(st->text);
			st->text = NULL;
			if (add_unmapped(s, p->op, reason, p->us / t->total_us, 0))
				goto fail;
			s->unmapped_share += p->us / t->total_us;
			continue;
		}
		kj_task_free(kt);
		st->name = strdup(name);
		st->phase = strdup(p->phase);
		st->op = strdup(p->op);
		{
			struct sb sg = { 0 };
			sb_printf(&sg, "%s%s%s", p->decl, p->body, p->tol);
			st->signature = sg.p;
			if (sg.oom)
				goto fail;
		}
		st->share = p->us / t->total_us;
		st->shapes = calloc((size_t)p->nsh, sizeof(*st->shapes));
		if (!st->name || !st->phase || !st->op || !st->signature || !st->shapes)
			goto fail;
		s->ntasks++;
		st->nshapes = p->nsh;
		for (int j = 0; j < p->nsh; j++) {
			struct sb bb = { 0 };
			bind_text(p, p->sh[j].val, &bb);
			if (bb.oom)
				goto fail;
			st->shapes[j].bind = bb.p;
			st->shapes[j].share = p->sh[j].us / t->total_us;
			st->shapes[j].kernels = p->sh[j].kernels;
		}
		mapped_us += p->us;
		s->nshapes += p->nsh;
	}
	for (int i = 0; i < s->ntasks; i++) {
		struct kj_suite_task *st = &s->tasks[i];
		st->weight = 0;
		for (int j = 0; j < st->nshapes; j++) {
			st->shapes[j].weight = st->shapes[j].share * t->total_us / mapped_us;
			st->weight += st->shapes[j].weight;
		}
	}
	s->mapped_share = mapped_us / t->total_us;
	if (s->nunmapped)
		qsort(s->unmapped, (size_t)s->nunmapped, sizeof(*s->unmapped), cmp_unmapped);
	for (int i = 0; i < np; i++)
		pend_release(&pv[i]);
	free(pv);
	*out = s;
	return 0;
fail:
	for (int i = 0; i < np; i++)
		pend_release(&pv[i]);
	free(pv);
	kj_suite_free(s);
	return kj_err_set(err, rc, "out of memory building a suite from '%s'", t->path);
}

/* ---- files ----------------------------------------------------------------- */

/* The four coverage figures, in the order both JSON files list them. */
static void set_shares(json_t *o, const kj_suite *s)
{
	json_object_set_new(o, "min_share", json_real(s->min_share));
	json_object_set_new(o, "coverage", json_real(s->mapped_share));
	json_object_set_new(o, "below_min_share", json_real(s->below_share));
	json_object_set_new(o, "unmapped_share", json_real(s->unmapped_share));
}

/* The ops no task covers, as a JSON array (new reference). */
static json_t *unmapped_arr(const kj_suite *s)
{
	json_t *um = json_array();
	for (int i = 0; i < s->nunmapped; i++) {
		json_t *u = json_object();
		json_object_set_new(u, "op", json_string(s->unmapped[i].op));
		json_object_set_new(u, "share", json_real(s->unmapped[i].share));
		json_object_set_new(u, "kernels", json_integer(s->unmapped[i].kernels));
		json_object_set_new(u, "reason", json_string(s->unmapped[i].reason));
		json_array_append_new(um, u);
	}
	return um;
}

/* A string member of o, or NULL. */
static const char *jstr(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static json_t *manifest_obj(const kj_suite *s)
{
	json_t *o = json_object(), *tasks = json_array();
	json_object_set_new(o, "schema", json_string("kjudge.suite/1"));
	json_object_set_new(o, "name", json_string(s->name));
	json_object_set_new(o, "source", json_string(s->source));
	json_object_set_new(o, "gpu_time_us", json_real(s->total_us));
	json_object_set_new(o, "kernels", json_integer(s->kernels));
	set_shares(o, s);
	for (int i = 0; i < s->ntasks; i++) {
		const struct kj_suite_task *t = &s->tasks[i];
		json_t *to = json_object(), *sh = json_array();
		char file[160];
		snprintf(file, sizeof(file), "%s.kt", t->name);
		json_object_set_new(to, "task", json_string(t->name));
		json_object_set_new(to, "file", json_string(file));
		json_object_set_new(to, "phase", json_string(t->phase));
		json_object_set_new(to, "op", json_string(t->op));
		json_object_set_new(to, "weight", json_real(t->weight));
		json_object_set_new(to, "share", json_real(t->share));
		json_object_set_new(to, "signature", json_string(t->signature));
		for (int j = 0; j < t->nshapes; j++) {
			json_t *so = json_object();
			json_object_set_new(so, "bind", json_string(t->shapes[j].bind));
			json_object_set_new(so, "weight", json_real(t->shapes[j].weight));
			json_object_set_new(so, "share", json_real(t->shapes[j].share));
			json_object_set_new(so, "kernels", json_integer(t->shapes[j].kernels));
			json_array_append_new(sh, so);
		}
		json_object_set_new(to, "shapes", sh);
		json_array_append_new(tasks, to);
	}
	json_object_set_new(o, "tasks", tasks);
	json_object_set_new(o, "unmapped", unmapped_arr(s));
	return o;
}

static int dump(json_t *o, char **out, struct kj_err *err)
{
	*out = o ? json_dumps(o, JSON_INDENT(2) | JSON_REAL_PRECISION(17)) : NULL;
	json_decref(o);
	if (!*out)
		return kj_err_set(err, KJ_E_NOMEM, "out of memory writing JSON");
	return 0;
}

int kj_suite_manifest_json(const kj_suite *s, char **out, struct kj_err *err)
{
	return dump(manifest_obj(s), out, err);
}

int kj_suite_summary_json(const kj_trace *t, const kj_suite *s, const char *dir, char **out,
			  struct kj_err *err)
{
	json_t *o = json_object(), *ph = json_array(), *tasks = json_array();
	json_object_set_new(o, "schema", json_string("kjudge.trace_import/1"));
	json_object_set_new(o, "trace", json_string(t->path));
	json_object_set_new(o, "kernels", json_integer(t->kernels));
	json_object_set_new(o, "cpu_ops", json_integer(t->cpu_ops));
	json_object_set_new(o, "gpu_time_us", json_real(t->total_us));
	json_object_set_new(o, "by_correlation", json_integer(t->by_correlation));
	json_object_set_new(o, "by_external_id", json_integer(t->by_external_id));
	json_object_set_new(o, "unattributed", json_integer(t->unattributed));
	json_object_set_new(o, "aggregates", json_integer((json_int_t)t->nagg));
	for (int i = 0; i < t->nphases; i++)
		json_array_append_new(ph, json_string(t->phases[i]));
	json_object_set_new(o, "phases", ph);
	json_object_set_new(o, "suite", json_string(s->name));
	json_object_set_new(o, "dir", dir ? json_string(dir) : json_null());
	set_shares(o, s);
	json_object_set_new(o, "tasks", json_integer(s->ntasks));
	json_object_set_new(o, "shapes", json_integer(s->nshapes));
	for (int i = 0; i < s->ntasks; i++) {
		const struct kj_suite_task *st = &s->tasks[i];
		json_t *to = json_object();
		json_object_set_new(to, "task", json_string(st->name));
		json_object_set_new(to, "phase", json_string(st->phase));
		json_object_set_new(to, "op", json_string(st->op));
		json_object_set_new(to, "share", json_real(st->share));
		json_object_set_new(to, "weight", json_real(st->weight));
		json_object_set_new(to, "shapes", json_integer(st->nshapes));
		json_array_append_new(tasks, to);
	}
	json_object_set_new(o, "task_list", tasks);
	json_object_set_new(o, "unmapped", unmapped_arr(s));
	return dump(o, out, err);
}

static int write_file(const char *path, const char *text, struct kj_err *err)
{
	FILE *f = fopen(path, "w");
	size_t n = strlen(text);
	if (!f)
		return kj_err_sys(err, "cannot create '%s'", path);
	if (fwrite(text, 1, n, f) != n) {
		fclose(f);
		return kj_err_sys(err, "cannot write '%s'", path);
	}
	if (fclose(f))
		return kj_err_sys(err, "cannot write '%s'", path);
	return 0;
}

/* A manifest file: DIR/suite.json, or path itself when it is a file. */
static void manifest_path(const char *path, char *buf, size_t n)
{
	struct stat st;
	if (!stat(path, &st) && S_ISDIR(st.st_mode))
		snprintf(buf, n, "%s/suite.json", path);
	else
		snprintf(buf, n, "%s", path);
}

static int load_manifest(const char *path, json_t **out, struct kj_err *err)
{
	json_error_t je;
	json_t *o = json_load_file(path, 0, &je), *tasks;
	*out = NULL;
	if (!o) {
		if (access(path, R_OK))
			return kj_err_sys(err, "cannot read suite manifest '%s'", path);
		return kj_err_set(err, KJ_E_PARSE, "suite manifest '%s': %s at line %d, column %d", path,
				  je.text, je.line, je.column);
	}
	tasks = json_object_get(o, "tasks");
	if (strcmp(jstr(o, "schema") ? jstr(o, "schema") : "", "kjudge.suite/1") ||
	    !json_is_array(tasks)) {
		json_decref(o);
		return kj_err_set(err, KJ_E_PARSE,
				  "'%s' is not a suite manifest (schema kjudge.suite/1 with \"tasks\")", path);
	}
	*out = o;
	return 0;
}

/* A file name from a manifest: one path component. */
static int plain_name(const char *s)
{
	return s && *s && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..");
}

int kj_suite_write(const kj_suite *s, const char *dir, int force, struct kj_err *err)
{
	char path[4096];
	char *text;
	int rc;
	if (kj_mkdir_p(dir))
		return kj_err_sys(err, "cannot create folder '%s'", dir);
	snprintf(path, sizeof(path), "%s/suite.json", dir);
	if (!access(path, F_OK)) {
		json_t *old, *v;
		size_t i;
		if (!force)
			return kj_err_set(err, KJ_E_USAGE,
					  "'%s' already holds a suite (--refresh DIR updates its weights, "
					  "--force replaces it)",
					  dir);
		if ((rc = load_manifest(path, &old, err)))
			return rc;
		json_array_foreach(json_object_get(old, "tasks"), i, v)
		{
			const char *f = jstr(v, "file");
			char fp[4096];
			if (!plain_name(f))
				continue;
			snprintf(fp, sizeof(fp), "%s/%s", dir, f);
			if (unlink(fp) && errno != ENOENT) {
				json_decref(old);
				return kj_err_sys(err, "cannot remove '%s'", fp);
			}
		}
		json_decref(old);
	}
	for (int i = 0; i < s->ntasks; i++) {
		snprintf(path, sizeof(path), "%s/%s.kt", dir, s->tasks[i].name);
		if ((rc = write_file(path, s->tasks[i].text, err)))
			return rc;
	}
	if ((rc = kj_suite_manifest_json(s, &text, err)))
		return rc;
	snprintf(path, sizeof(path), "%s/suite.json", dir);
	rc = write_file(path, text, err);
	free(text);
	return rc;
}

/* ---- refresh ----------------------------------------------------------------- */

static const struct kj_suite_task *fresh_task(const kj_suite *f, const char *phase, const char *sig)
{
	for (int i = 0; i < f->ntasks; i++)
		if (!strcmp(f->tasks[i].phase, phase) && !strcmp(f->tasks[i].signature, sig))
			return &f->tasks[i];
	return NULL;
}

static double fresh_share(const struct kj_suite_task *t, const char *bind, int *kernels)
{
	for (int j = 0; t && j < t->nshapes; j++)
		if (!strcmp(t->shapes[j].bind, bind)) {
			*kernels = t->shapes[j].kernels;
			return t->shapes[j].share;
		}
	*kernels = 0;
	return 0;
}

/* Rewrites the weight= of the `bench` lines of a .kt text; bind -> weight
 * through the manifest task's shapes (already refreshed). */
static char *rewrite_kt(const char *text, json_t *shapes)
{
	struct sb b = { 0 };
	const char *p = text;
	double tot = 0;
	size_t i;
	json_t *v;
	json_array_foreach(shapes, i, v)
		tot += json_number_value(json_object_get(v, "weight"));
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		const char *w = NULL;
		if (len > 6 && !strncmp(p, "bench ", 6) && strncmp(p, "bench cpu", 9)) {
			for (const char *q = p; q + 8 <= p + len; q++)
				if (!strncmp(q, " weight=", 8))
					w = q;
		}
		if (w) {
			size_t bl = (size_t)(w - (p + 6));
			double nw = 1e-9;
			json_array_foreach(shapes, i, v)
			{
				const char *bind = jstr(v, "bind");
				if (bind && strlen(bind) == bl && !strncmp(bind, p + 6, bl) && tot > 0) {
					double x = json_number_value(json_object_get(v, "weight")) / tot;
					nw = x > 1e-9 ? x : 1e-9;
				}
			}
			sb_printf(&b, "%.*s weight=%.9g\n", (int)(w - p), p, nw);
		} else {
			sb_printf(&b, "%.*s%s", (int)len, p, nl ? "\n" : "");
		}
		p += len + (nl ? 1 : 0);
	}
	if (b.oom) {
		sb_release(&b);
		return NULL;
	}
	return b.p ? b.p : strdup("");
}

static int read_text(const char *path, char **out, struct kj_err *err)
{
	FILE *f = fopen(path, "r");
	struct sb b = { 0 };
	char buf[4096];
	size_t n;
	if (!f)
		return kj_err_sys(err, "cannot open '%s'", path);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		sb_printf(&b, "%.*s", (int)n, buf);
	fclose(f);
	if (b.oom) {
		sb_release(&b);
		return kj_err_set(err, KJ_E_NOMEM, "out of memory reading '%s'", path);
	}
	*out = b.p ? b.p : strdup("");
	return 0;
}

int kj_suite_refresh(const kj_suite *fresh, const char *dir, struct kj_suite_refresh_info *info,
		     struct kj_err *err)
{
	char mpath[4096];
	json_t *man, *tasks, *t, *s;
	size_t i, j;
	double covered = 0;
	int rc;
	char *text;
	memset(info, 0, sizeof(*info));
	manifest_path(dir, mpath, sizeof(mpath));
	if ((rc = load_manifest(mpath, &man, err)))
		return rc;
	tasks = json_object_get(man, "tasks");
	/* pass 1: shares from the new trace */
	json_array_foreach(tasks, i, t)
	{
		const char *phase = jstr(t, "phase");
		const char *sig = jstr(t, "signature");
		const struct kj_suite_task *ft = phase && sig ? fresh_task(fresh, phase, sig) : NULL;
		info->tasks++;
		json_array_foreach(json_object_get(t, "shapes"), j, s)
		{
			const char *bind = jstr(s, "bind");
			int k = 0;
			double sh = bind ? fresh_share(ft, bind, &k) : 0;
			info->shapes++;
			info->shapes_found += sh > 0;
			covered += sh;
			json_object_set_new(s, "share", json_real(sh));
			json_object_set_new(s, "kernels", json_integer(k));
		}
	}
	if (!(covered > 0)) {
		rc = kj_err_set(err, KJ_E_NOTFOUND,
				"no shape of the suite in '%s' appears in trace '%s' (another model?)", dir,
				fresh->source);
		goto fail;
	}
	/* pass 2: weights; the new trace's shapes the suite lacks */
	json_array_foreach(tasks, i, t)
	{
		double tw = 0, ts = 0;
		json_array_foreach(json_object_get(t, "shapes"), j, s)
		{
			double sh = json_number_value(json_object_get(s, "share"));
			json_object_set_new(s, "weight", json_real(sh / covered));
			tw += sh / covered;
			ts += sh;
		}
		json_object_set_new(t, "weight", json_real(tw));
		json_object_set_new(t, "share", json_real(ts));
	}
	for (int a = 0; a < fresh->ntasks; a++) {
		const struct kj_suite_task *ft = &fresh->tasks[a];
		for (int b = 0; b < ft->nshapes; b++) {
			int found = 0;
			json_array_foreach(tasks, i, t)
			{
				const char *phase = jstr(t, "phase");
				const char *sig = jstr(t, "signature");
				if (!phase || !sig || strcmp(phase, ft->phase) || strcmp(sig, ft->signature))
					continue;
				json_array_foreach(json_object_get(t, "shapes"), j, s)
				{
					const char *bind = jstr(s, "bind");
					found |= bind && !strcmp(bind, ft->shapes[b].bind);
				}
			}
			if (!found) {
				info->new_shapes++;
				info->new_share += ft->shapes[b].share;
			}
		}
	}
	info->covered_share = covered;
	json_object_set_new(man, "source", json_string(fresh->source));
	json_object_set_new(man, "gpu_time_us", json_real(fresh->total_us));
	json_object_set_new(man, "kernels", json_integer(fresh->kernels));
	json_object_set_new(man, "coverage", json_real(covered));
	json_object_set_new(man, "not_in_suite_share", json_real(info->new_share));
	json_object_set_new(man, "unmapped_share", json_real(fresh->unmapped_share));
	json_object_del(man, "below_min_share");
	/* the .kt files first, then the manifest: a failure leaves the old one */
	json_array_foreach(tasks, i, t)
	{
		const char *f = jstr(t, "file");
		char kpath[4096];
		char *old = NULL, *neu;
		if (!plain_name(f))
			continue;
		snprintf(kpath, sizeof(kpath), "%s/%s", dir, f);
		if ((rc = read_text(kpath, &old, err)))
			goto fail;
		neu = rewrite_kt(old, json_object_get(t, "shapes"));
		free(old);
		if (!neu) {
			rc = kj_err_set(err, KJ_E_NOMEM, "out of memory rewriting '%s'", kpath);
			goto fail;
		}
		rc = write_file(kpath, neu, err);
		free(neu);
		if (rc)
			goto fail;
	}
	if ((rc = dump(man, &text, err)))
		return rc;
	rc = write_file(mpath, text, err);
	free(text);
	return rc;
fail:
	json_decref(man);
	return rc;
}

/* ---- weights for reports ------------------------------------------------------ */

int kj_suite_weights_load(const char *path, struct kj_score_weights *w, struct kj_err *err)
{
	char mpath[4096];
	json_t *man, *t;
	size_t i, n;
	int rc;
	memset(w, 0, sizeof(*w));
	manifest_path(path, mpath, sizeof(mpath));
	if ((rc = load_manifest(mpath, &man, err)))
		return rc;
	n = json_array_size(json_object_get(man, "tasks"));
	w->task = calloc(n ? n : 1, sizeof(*w->task));
	w->w = calloc(n ? n : 1, sizeof(*w->w));
	w->source = strdup(mpath);
	if (!w->task || !w->w || !w->source)
		goto oom;
	json_array_foreach(json_object_get(man, "tasks"), i, t)
	{
		const char *name = jstr(t, "task");
		json_t *wv = json_object_get(t, "weight");
		if (!name || !json_is_number(wv) || json_number_value(wv) < 0) {
			rc = kj_err_set(err, KJ_E_PARSE,
					"suite manifest '%s': task %zu has no name or no weight >= 0", mpath,
					i + 1);
			goto fail;
		}
		w->task[w->n] = strdup(name);
		w->w[w->n] = json_number_value(wv);
		if (!w->task[w->n])
			goto oom;
		w->n++;
	}
	json_decref(man);
	return 0;
oom:
	rc = kj_err_set(err, KJ_E_NOMEM, "out of memory reading '%s'", mpath);
fail:
	json_decref(man);
	kj_score_weights_release(w);
	return rc;
}
