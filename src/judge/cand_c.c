/*
 * The C and CUDA candidate kind (struct kjj_cand, judge_internal.h): the
 * source's own limits, kj_compile (cc or nvcc in the jail, the compile
 * cache; compile.c) into a shared object, the symbol policy on that object
 * (kj_symcheck_so, symcheck.c), and kjudge-worker, which dlopens it.  The
 * track it runs on, CPU or CUDA, is the backend's.
 *
 * Ownership: the compile result (its object path, which LOAD loads) is in
 * this kind's state from prepare until release.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/judge_internal.h"
#include "kjudge/compile.h"

struct cand_c {
	struct kj_compile_result cr;
};

static int c_init(struct judge *j)
{
	struct cand_c *c = calloc(1, sizeof(*c));
	if (!c)
		return kj_err_set(j->err, KJ_E_NOMEM, "out of memory");
	j->cand_state = c;
	j->load_timeout_s = j->o->call_timeout_s;
	return 0;
}

/* The verdict of a failed compile: the limit it hit, or the compiler's
 * first error line. */
static void compile_failed(struct judge *j, const struct kj_compile_result *cr, const char *src, size_t len)
{
	const char *l, *e, *line;
	int cuda;
	if (cr->limit[0]) {
		kjj_fail(j, KJ_ST_COMPILE_ERROR, KJ_STAGE_COMPILE, "%s", cr->limit);
		return;
	}
	l = j->v->compile_log ? j->v->compile_log : "";
	e = strstr(l, "error");
	line = e ? e : l;
	while (e && line > l && line[-1] != '\n')
		line--;
	/* CUDA source given to the C compiler: say which backend it wants */
	cuda = j->o->backend == KJ_BACKEND_CPU && (memmem(src, len, "__global__", 10) || memmem(src, len, "<<<", 3));
	if (!*line)
		kjj_fail(j, KJ_ST_COMPILE_ERROR, KJ_STAGE_COMPILE, "compiler failed and printed nothing");
	else
		kjj_fail(j, KJ_ST_COMPILE_ERROR, KJ_STAGE_COMPILE, "compiler failed: %.*s%s", (int)strcspn(line, "\n"),
			 line, cuda ? " (this is CUDA source on the CPU track: judge it with --backend cuda)" : "");
}

/* The static check of the source, the compile, the symbol policy.  A part
 * of the profile left open by a return is closed at kj_eval's exit. */
static int c_prepare(struct judge *j, const char *src, size_t len)
{
	struct cand_c *c = j->cand_state;
	const struct kj_eval_opts *o = j->o;
	kj_verdict *v = j->v;
	struct kj_compile_opts co;
	struct kj_symcheck sc;
	double ts = kjj_now_s();
	int rc;

	kjj_prof_begin(j, KJ_PROF_STATIC);
	if (kjj_stage_static(j, src, len))
		return 1;
	kjj_prof_end(j);
	v->stage_s[KJ_STAGE_STATIC] = kjj_now_s() - ts;

	ts = kjj_now_s();
	kjj_progress(j, "compile");
	memset(&co, 0, sizeof(co));
	co.backend = o->backend;
	co.cache_dir = o->cache_dir;
	co.include_dir = o->include_dir;
	co.no_cache = o->no_cache;
	co.unconfined = j->unconfined;
	if (j->gpu)
		co.arch = kj_gpu_get_info(j->gpu)->arch;
	kjj_prof_begin(j, KJ_PROF_COMPILE);
	if ((rc = kj_compile(src, len, &co, &c->cr, j->err)))
		return rc;
	kjj_prof_end(j);
	v->compile_cached = c->cr.cached;
	v->compile_s = c->cr.seconds;
	if (c->cr.limits[0])
		snprintf(v->limits, sizeof(v->limits), "compile: %s", c->cr.limits);
	v->compile_log = c->cr.log;
	c->cr.log = NULL;
	v->stage_s[KJ_STAGE_COMPILE] = kjj_now_s() - ts;
	if (!c->cr.ok) {
		compile_failed(j, &c->cr, src, len);
		return 1;
	}

	ts = kjj_now_s();
	kjj_prof_begin(j, KJ_PROF_STATIC);
	if ((rc = kj_symcheck_so(c->cr.so_path, o->backend, &sc, j->err)))
		return rc;
	if (sc.verdict == 2) {
		kjj_fail(j, KJ_ST_REJECTED, KJ_STAGE_STATIC, "%s", sc.reason);
		return 1;
	}
	if (sc.verdict == 1) {
		v->flags |= KJ_FLAG_FALLBACK;
		snprintf(v->fallback_libs, sizeof(v->fallback_libs), "%s", sc.libs);
		if (o->policy == KJ_POLICY_STRICT) {
			kjj_fail(j, KJ_ST_REJECTED, KJ_STAGE_STATIC, "%s (policy strict)", sc.reason);
			return 1;
		}
	}
	kjj_prof_end(j);
	v->stage_s[KJ_STAGE_STATIC] += kjj_now_s() - ts;
	j->load_path = c->cr.so_path;
	return 0;
}

static void c_release(struct judge *j)
{
	struct cand_c *c = j->cand_state;
	if (!c)
		return;
	kj_compile_result_release(&c->cr);
	free(c);
	j->cand_state = NULL;
	j->load_path = NULL;
}

/* The worker is the judge's own kjudge-worker (the common options): no
 * hook for it, nor for SETUP's and LOAD's replies, which the common
 * mapping reads. */
const struct kjj_cand kjj_cand_c = {
	.name = "c",
	.maps_check = 1,
	.train_call_ms = 0,
	.init = c_init,
	.prepare = c_prepare,
	.release = c_release,
};
