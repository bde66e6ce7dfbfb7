/*
 * The judge's runtime stages, written once for every track (the kjj_track
 * of judge_internal.h): correctness over every check and bench shape and
 * seed with the determinism rerun, the timed calls with a check of every
 * one, the eager baseline, speedups and the roofline; and the run-time
 * library check after every call.
 *
 * Every timed call is checked.  Where the fp64 reference is cheap (the CPU
 * track, or at most 5 ms on the GPU) each timed call is verified against
 * it; where it is not, each timed call is checked against the eager
 * baseline's output on the same inputs within a bound that every output
 * within the task's tolerance meets (kjj_base_bound), and a random share of
 * the calls (one in 4, or one in 8 above 50 ms), drawn from the kernel's
 * random source after the call, is verified against the reference as well.
 * Nothing the candidate can see decides which: a call that skips its work or
 * computes something cheaper fails.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "judge/judge_internal.h"

/* The perf index of a binding, or -1. */
int kjj_perf_index(struct judge *j, int bind)
{
	int pb[PERF_MAX_SHAPES], n = kjj_perf_binds(j->t, j->o->backend, pb, PERF_MAX_SHAPES);
	for (int i = 0; i < n; i++)
		if (pb[i] == bind)
			return i;
	return -1;
}

int kjj_layout(struct judge *j, int bind, const kj_plan *plan, int *abi, uint64_t *off, size_t *bytes,
	       size_t *arena, int64_t *dims)
{
	const kj_task *t = j->t;
	int nabi = kj_task_abi_values(t, abi, KJ_WIRE_MAX_ABI);
	size_t at = 0;
	if (nabi > KJ_WIRE_MAX_ABI || t->nsyms > KJ_WIRE_MAX_DIMS)
		return kj_err_set(j->err, KJ_E_UNSUPPORTED, "task %s has more than %d tensors or %d dims", t->id,
				  KJ_WIRE_MAX_ABI, KJ_WIRE_MAX_DIMS);
	for (int i = 0; i < nabi; i++) {
		const kj_tinfo *ti = &plan->vals[abi[i]];
		bytes[i] = (size_t)kj_shape_numel(&ti->shape) * kj_dtype_size(ti->dtype);
		off[i] = at;
		at += (bytes[i] + 255) / 256 * 256;
		if (!bytes[i])
			at += 256;
	}
	*arena = at ? at : 256;
	for (int i = 0; i < t->nsyms; i++)
		dims[i] = t->binds[bind].val[i];
	return nabi;
}

/* ---- libraries in the worker, whatever loaded them ---- */

struct mapped_rule {
	const char *prefix; /* of the file's name */
	const char *lib;
};

static const struct mapped_rule mapped_rules[] = {
	{"libblas", "BLAS"},       {"libcblas", "BLAS"},       {"libopenblas", "BLAS"},
	{"libatlas", "BLAS"},      {"libblis", "BLAS"},        {"libflexiblas", "BLAS"},
	{"liblapack", "LAPACK"},   {"libmkl", "MKL"},          {"libcublas", "cuBLAS"},
	{"libnvblas", "cuBLAS"},   {"libcudnn", "cuDNN"},      {"libcufft", "cuFFT"},
	{"libcusparse", "cuSPARSE"}, {"libcusolver", "cuSOLVER"}, {"libtorch", "PyTorch"},
	{"libc10", "PyTorch"},     {"libdnnl", "oneDNN"},      {"libmkldnn", "oneDNN"},
};

static void add_lib(char *libs, size_t len, const char *lib)
{
	size_t n = strlen(libs);
	const char *p = libs;
	size_t l = strlen(lib);
	while ((p = strstr(p, lib))) {
		if ((p == libs || p[-1] == ',') && (p[l] == ',' || p[l] == '\0'))
			return;
		p += l;
	}
	snprintf(libs + n, len - n, "%s%s", n ? "," : "", lib);
}

int kjj_check_mapped_libs(struct judge *j)
{
	struct kj_capbuf maps;
	char found[256] = "", first[512] = "";
	const char *line;
	int anon_exec = 0;

	if ((j->cand && !j->cand->maps_check) || !j->worker_up || j->w.dead)
		return 0;
	kj_capbuf_init(&maps, (size_t)4 << 20);
	if (kj_worker_read_maps(&j->w, &maps) < 0) {
		kj_capbuf_release(&maps);
		return 0; /* gone: the call's own result says why */
	}
	for (line = maps.buf; line && *line;) {
		const char *nl = strchr(line, '\n'), *path = NULL, *base;
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char perms[8] = "", buf[600];
		int field = 0;
		/* "start-end perms offset dev inode   path" */
		snprintf(buf, sizeof(buf), "%.*s", (int)(len < sizeof(buf) ? len : sizeof(buf) - 1), line);
		for (char *p = buf, *tok; (tok = strtok_r(p, " ", &p)) && field < 6; field++) {
			if (field == 1)
				snprintf(perms, sizeof(perms), "%s", tok);
			if (field == 5) {
				path = line + (tok - buf);
				break;
			}
		}
		if (path) {
			base = memrchr(path, '/', len - (size_t)(path - line));
			base = base ? base + 1 : path;
			for (size_t r = 0; r < sizeof(mapped_rules) / sizeof(mapped_rules[0]); r++)
				if (!strncmp(base, mapped_rules[r].prefix, strlen(mapped_rules[r].prefix))) {
					add_lib(found, sizeof(found), mapped_rules[r].lib);
					if (!first[0])
						snprintf(first, sizeof(first), "%.*s", (int)(len - (size_t)(path - line)), path);
				}
		} else if (strchr(perms, 'x') && (j->inner ? j->inner : j->track) == &kjj_track_cpu) {
			/* (j->track is the profile's wrapper of the real track) */
			/* code in memory no file backs: a library loaded by hand */
			anon_exec = 1;
		}
		line = nl ? nl + 1 : NULL;
	}
	kj_capbuf_release(&maps);
	if (anon_exec) {
		add_lib(found, sizeof(found), "code loaded by hand");
		if (!first[0])
			snprintf(first, sizeof(first), "anonymous executable memory");
	}
	if (!found[0])
		return 0;
	j->v->flags |= KJ_FLAG_FALLBACK;
	{
		char libs[256];
		snprintf(libs, sizeof(libs), "%s", j->v->fallback_libs);
		for (char *p = found, *tok; (tok = strtok_r(p, ",", &p));)
			add_lib(libs, sizeof(libs), tok);
		snprintf(j->v->fallback_libs, sizeof(j->v->fallback_libs), "%s", libs);
	}
	if (j->o->policy == KJ_POLICY_STRICT) {
		kjj_fail(j, KJ_ST_REJECTED, KJ_STAGE_STATIC,
			 "the worker had %s mapped after a call: library fallback (%s) instead of a kernel "
			 "(policy strict)", first, found);
		return 1;
	}
	return 0;
}

/* ---- the cheap check's bound ---- */

double kjj_base_bound(const kj_task *t, kj_dtype dt, double n, double bn2, double babs1,
		      double base_l2, const struct kjj_base_dist *bd)
{
	double atol, rtol, b, g = 1;
	int have = bd && bd->have;
	kj_tolerance(t, dt, &atol, &rtol);
	/* the error budget widens each limit to KJ_BUDGET_MULT times the
	 * baseline's own distance where that is larger (kjj_judge_output) */
	if (have && isfinite(bd->ratio))
		g = fmax(1, KJ_BUDGET_MULT * bd->ratio);
	/* |c - r| <= g (atol + rtol |r|) per element gives ||c - r|| <= g
	 * (sqrt(n) atol + rtol ||r||), and ||r|| <= ||b|| + ||b - r|| */
	b = g * (sqrt(n) * atol + rtol * (bn2 + base_l2)) + 4 * base_l2;
	if (t->tol.has_metric) {
		double rmse = t->tol.rmse_max, l1 = t->tol.l1_max, omc = 1 - t->tol.cos_min;
		if (have) {
			rmse = fmax(rmse, KJ_BUDGET_MULT * bd->rmse);
			l1 = fmax(l1, KJ_BUDGET_MULT * bd->l1);
			omc = fmax(omc, KJ_BUDGET_MULT * bd->omc);
		}
		if (t->tol.rmse_max >= 0)
			b = fmax(b, sqrt(n) * rmse + 4 * base_l2);
		if (t->tol.l1_max >= 0) /* ||x||_2 <= ||x||_1 */
			b = fmax(b, l1 * (babs1 + sqrt(n) * base_l2) + 4 * base_l2);
		if (t->tol.cos_min >= 0) /* ||c/|c| - r/|r||| = sqrt(2 - 2 cos) */
			b = fmax(b, (sqrt(fmax(0, 2 * omc)) + 1e-3) * 2 * (bn2 + base_l2) + 4 * base_l2);
	}
	return b;
}

/* Inputs for a timed call: the track's fast generator where it has one. */
static int kjj_gen_timed(struct judge *j, struct kjj_shape *s, uint64_t seed)
{
	if (j->track->gen_timed)
		return j->track->gen_timed(j, s, seed);
	return j->track->gen(j, s, seed, KJ_SEED_DECLARED);
}

/* ---- correctness ---- */

static int one_call(struct judge *j, struct kjj_shape *s, int bind, int garbage, int timed,
		    kj_stage sg, struct kjj_call *c, int *stop)
{
	int rc, changed = 0;
	*stop = 1;
	if ((rc = j->track->call(j, s, garbage, timed, c)))
		return rc;
	if (kjj_call_failed(j, &c->res, sg, bind) || kjj_check_mapped_libs(j))
		return 0;
	if ((rc = j->track->inputs_changed(j, s, sg, bind, &changed)) || changed)
		return rc;
	*stop = 0;
	return 0;
}

int kjj_stage_correctness(struct judge *j)
{
	const kj_task *t = j->t;
	int order[256], n = kjj_correctness_order(t, j->o->backend, order, 256), rc = 0;
	for (int oi = 0; oi < n && !rc; oi++) {
		int bind = order[oi];
		struct kjj_shape *s;
		if ((rc = j->track->shape_init(j, bind, &s)))
			return rc;
		/* a KernelBench problem's own get_inputs() values: one seed more */
		int extra = t->kb && j->track->gen_problem ? 1 : 0;
		for (int k = 0; k < j->o->seeds + extra; k++) {
			uint64_t seed = kj_seed_for(j->o->base_seed, k);
			kj_seed_flavour fl = k < j->o->seeds ? kj_seed_flavour_for(k) : KJ_SEED_DECLARED;
			kj_stage sg = (oi == 0 && k == 0) ? KJ_STAGE_CALL : KJ_STAGE_CORRECTNESS;
			struct kjj_call c;
			char sd[320];
			int stop = 0, bad = 0;
			kjj_progress(j, "correctness: %s seed %d (%s)", kjj_shape_desc(j, bind, sd, sizeof(sd)), k,
				     k < j->o->seeds ? kj_seed_flavour_name(fl) : "the problem's get_inputs()");
			if (k < j->o->seeds)
				rc = kjj_inputs_ref_base(j, s, bind, seed, fl);
			else if (!(rc = j->track->gen_problem(j, s)) && !(rc = j->track->run_ref(j, s)))
				rc = j->track->run_base(j, s);
			if (rc) {
				kj_err_prefix(j->err, "reference for %s", sd);
				break;
			}
			if ((rc = one_call(j, s, bind, 0, 0, sg, &c, &stop)) || stop)
				break;
			if ((rc = j->track->outputs(j, s, bind, k, seed, fl, KJ_STAGE_CORRECTNESS, c.ms, 1, &bad)) ||
			    bad)
				break;
		}
		j->track->shape_free(j, s);
		if (rc || j->v->status != KJ_ST_PASS)
			return rc;
	}
	/* Determinism rerun: seed 0 again on the smallest and the largest check
	 * shape, outputs pre-filled with ordinary numbers instead of NaN, so a
	 * result that depended on what the buffers held (uninitialised reads,
	 * NaN-propagation tricks) shows. */
	for (int r = 0; r < 2; r++) {
		int bind = kjj_largest_check(t, r == 0), stop = 0, bad = 0;
		uint64_t seed = kj_seed_for(j->o->base_seed, 0);
		struct kjj_shape *s;
		struct kjj_call c;
		if ((rc = j->track->shape_init(j, bind, &s)))
			return rc;
		kjj_progress(j, "determinism rerun");
		if (!(rc = kjj_inputs_ref_base(j, s, bind, seed, kj_seed_flavour_for(0))) &&
		    !(rc = one_call(j, s, bind, 1, 0, KJ_STAGE_CORRECTNESS, &c, &stop)) && !stop)
			rc = j->track->outputs(j, s, bind, 0, seed, kj_seed_flavour_for(0), KJ_STAGE_CORRECTNESS, 0, 0,
					       &bad);
		j->track->shape_free(j, s);
		if (!rc && j->v->status != KJ_ST_PASS && !strstr(j->v->reason, "(SIGSYS)") &&
		    j->v->status != KJ_ST_REJECTED)
			strncat(j->v->reason, KJ_RERUN_NOTE, sizeof(j->v->reason) - strlen(j->v->reason) - 1);
		if (rc || j->v->status != KJ_ST_PASS)
			return rc;
	}
	return 0;
}

/* ---- timing ---- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Median, IQR; *stable when the median's ~95% confidence half-width (order
 * statistics n/2 -+ 0.98 sqrt(n)) is within 0.5% of it. */
void kj_timing_summary(double *xs, int n, double *med, double *iqr, int *stable)
{
	if (n <= 0) {
		*med = *iqr = 0;
		*stable = 0;
		return;
	}
	qsort(xs, (size_t)n, sizeof(double), cmp_double);
	*med = n % 2 ? xs[n / 2] : 0.5 * (xs[n / 2 - 1] + xs[n / 2]);
	*iqr = xs[(3 * n) / 4 < n ? (3 * n) / 4 : n - 1] - xs[n / 4];
	*stable = n >= PERF_MIN_SAMPLES && kjj_median_halfwidth(xs, n) <= 0.005;
}

/* The stop rule: kj_timing_summary's 0.5%, or --max-noise's limit; a
 * caller's tighter limit (noise > 0) holds as well. */
static int settled(struct judge *j, const double *xs, int n, double noise)
{
	double tmp[PERF_MAX_SAMPLES], med, iqr;
	int st;
	if (n < PERF_MIN_SAMPLES)
		return 0;
	memcpy(tmp, xs, (size_t)n * sizeof(double));
	kj_timing_summary(tmp, n, &med, &iqr, &st);
	if (j->o->max_noise > 0)
		st = kjj_median_halfwidth(tmp, n) <= j->o->max_noise;
	if (st && noise > 0)
		st = kjj_median_halfwidth(tmp, n) <= noise;
	return st;
}

int kjj_timing_loop(struct judge *j, double (*fn)(struct judge *, void *, int, int *), void *ctx,
		    int min_n, double noise, double *samples, int *ns, int *stable, int *rc)
{
	double t0 = kjj_now_s(), budget = j->o->perf_budget_s;
	*ns = 0;
	*stable = 0;
	/* --max-noise on the CPU track: more samples until the rule holds,
	 * within ten budgets and the cap */
	if (j->o->max_noise > 0 && j->track->baseline_after_candidate)
		budget *= 10;
	for (int it = 0; it < PERF_MAX_SAMPLES + 1; it++) {
		double ms = fn(j, ctx, it, rc);
		if (ms < 0)
			return -1;
		if (it == 0)
			continue; /* warm-up: checked, not timed */
		samples[(*ns)++] = ms;
		if (*ns >= PERF_MIN_SAMPLES) {
			*stable = settled(j, samples, *ns, noise);
			if ((*stable && *ns >= min_n) || kjj_now_s() - t0 > budget)
				break;
		}
	}
	return 0;
}

/* A random draw the candidate cannot reproduce: the kernel's source, not
 * the base seed (which a candidate with the public default seed knows). */
uint32_t kjj_fresh_random(void)
{
	uint32_t r = 0;
	if (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r))
		r = (uint32_t)(kjj_now_s() * 1e9);
	return r;
}

struct perf_ctx {
	struct kjj_shape *s;
	int bind, pi;
	kj_perf *pf;
	int verify_every; /* 1: every timed call against the reference */
	double *walls;    /* the judge's bound per sample */
	int nwalls;
	int ngaps;        /* timed calls whose time was the judge's bound, not the worker's */
};

/* One timed call on fresh inputs (a new seed every call, so nothing a
 * candidate remembers from an earlier call applies), its outputs checked. */
static double candidate_sample(struct judge *j, void *vc, int it, int *rc)
{
	struct perf_ctx *c = vc;
	struct kjj_call call;
	int stop = 0, bad = 0, verify;
	char extra[64];
	*rc = 0;
	if ((*rc = kjj_gen_timed(j, c->s, kj_seed_for(j->o->base_seed ^ 0x70657266ULL, (uint64_t)it))))
		return -1;
	if ((*rc = one_call(j, c->s, c->bind, 0, 1, KJ_STAGE_PERFORMANCE, &call, &stop)) || stop)
		return -1;
	/* decided after the call: nothing in the call can depend on it */
	verify = c->verify_every <= 1 || it == 0 || !j->track->outputs_vs_base ||
		 kjj_fresh_random() % (uint32_t)c->verify_every == 0;
	if (verify) {
		if ((*rc = j->track->run_ref(j, c->s)) ||
		    (*rc = j->track->outputs(j, c->s, c->bind, it, 0, KJ_SEED_DECLARED, KJ_STAGE_PERFORMANCE,
					     call.ms, 0, &bad)))
			return -1;
		c->pf->verified++;
	} else {
		if ((*rc = j->track->run_base(j, c->s)) ||
		    (*rc = j->track->outputs_vs_base(j, c->s, c->bind, it, &bad)))
			return -1;
	}
	if (bad) {
		snprintf(extra, sizeof(extra), " [timed call %d%s]", it, verify ? "" : ", checked against the eager baseline");
		strncat(j->v->reason, extra, sizeof(j->v->reason) - strlen(j->v->reason) - 1);
		return -1;
	}
	c->pf->checked++;
	if (call.gap && it > 0)
		c->ngaps++;
	if (it > 0 && c->nwalls < PERF_MAX_SAMPLES)
		c->walls[c->nwalls++] = call.wall_ms;
	return call.ms;
}

static double baseline_sample(struct judge *j, void *vc, int it, int *rc)
{
	struct perf_ctx *c = vc;
	double ms = 0;
	*rc = 0;
	if ((*rc = j->track->gen(j, c->s, kj_seed_for(j->o->base_seed ^ 0x626173ULL, (uint64_t)it),
				 KJ_SEED_DECLARED)) ||
	    (*rc = j->track->time_base(j, c->s, &ms)))
		return -1;
	return ms;
}

/* Candidate samples until their median settles, the budget is spent or the
 * cap is reached; then, on a track that times its baseline here (the CPU
 * track, whose worker stays frozen meanwhile), baseline samples the same
 * way.  Not interleaved: a judge core that just slept through a candidate's
 * call runs the next baseline sample at a lower clock, which makes the
 * baseline look slower than it is.  Returns -1 when a sample stopped it
 * (verdict set, or a judge error in *rc). */
static int timing_loop(struct judge *j, struct perf_ctx *c, double *cs, int *ncs, double *bs, int *nbs,
		       int *rc)
{
	int stable;
	*nbs = 0;
	if (kjj_timing_loop(j, candidate_sample, c, PERF_MIN_SAMPLES, 0, cs, ncs, &stable, rc) < 0)
		return -1;
	if (!j->track->baseline_after_candidate)
		return 0;
	return kjj_timing_loop(j, baseline_sample, c, PERF_MIN_SAMPLES, 0, bs, nbs, &stable, rc);
}

static void roofline(struct judge *j, struct kjj_shape *s, kj_perf *pf, const kj_plan *plan, int *scored)
{
	double bw, peak, tb, tf;
	(void)s;
	if (!j->calib || j->calib->copy_gbs <= 0)
		return;
	/* the bandwidth roof is the best the memory showed: a read-only stream
	 * beats a copy */
	bw = j->calib->read_gbs > j->calib->copy_gbs ? j->calib->read_gbs : j->calib->copy_gbs;
	peak = kj_plan_peak_tflops(plan, j->calib);
	tb = pf->bytes / (bw * 1e9) * 1e3;
	tf = peak > 0 ? pf->flops / (peak * 1e12) * 1e3 : 0;
	pf->sol_ms = tb > tf ? tb : tf;
	if (pf->ms <= 0)
		return;
	pf->sol_frac = pf->sol_ms / pf->ms;
	pf->iou = (pf->bytes / (pf->ms * 1e-3)) / (bw * 1e9);
	pf->mfu = peak > 0 ? (pf->flops / (pf->ms * 1e-3)) / (peak * 1e12) : -1;
	/* The roof is a measured rate, which a pure streaming read beats by up
	 * to ~12% on the H200 (a copy reaches 4.27 TB/s of HBM3e's 4.8); more
	 * than 15% under it is not a faster kernel. */
	if (pf->ms < 0.85 * pf->sol_ms) {
		j->v->flags |= KJ_FLAG_FASTER_THAN_ROOFLINE;
		*scored = 0;
	}
}

/* The plan of a shape, for the roofline: tracks keep theirs opaque, so the
 * stage builds its own (cheap: shapes and costs, no buffers). */
int kjj_stage_perf(struct judge *j)
{
	const kj_task *t = j->t;
	int pb[PERF_MAX_SHAPES], npb = kjj_perf_binds(t, j->o->backend, pb, PERF_MAX_SHAPES), rc = 0;
	int counted[PERF_MAX_SHAPES] = { 0 };
	struct kjj_perf_keep keep[PERF_MAX_SHAPES];
	double wsum = 0, lsum = 0;
	double *cs = malloc(PERF_MAX_SAMPLES * sizeof(double)), *bs = malloc(PERF_MAX_SAMPLES * sizeof(double)),
	       *walls = malloc(PERF_MAX_SAMPLES * sizeof(double));
	if (!cs || !bs || !walls) {
		free(cs);
		free(bs);
		free(walls);
		return kj_err_set(j->err, KJ_E_NOMEM, "out of memory");
	}
	memset(keep, 0, sizeof(keep));
	if (npb == 0) {
		pb[0] = kjj_largest_check(t, 0);
		npb = 1;
	}
	j->v->perf = calloc((size_t)npb, sizeof(kj_perf));
	if (!j->v->perf) {
		free(cs);
		free(bs);
		free(walls);
		return kj_err_set(j->err, KJ_E_NOMEM, "out of memory");
	}
	for (int pi = 0; pi < npb && !rc; pi++) {
		int bind = pb[pi], ncs = 0, nbs = 0, stable = 0, scored = 1;
		struct kjj_shape *s;
		kj_perf *pf = &j->v->perf[pi];
		struct perf_ctx c;
		kj_plan plan;
		char sd[320];
		double ref_ms, dummy;
		if ((rc = j->track->shape_init(j, bind, &s)))
			break;
		if ((rc = kj_plan_build(t, bind, &plan, j->err))) {
			j->track->shape_free(j, s);
			break;
		}
		j->v->nperf = pi + 1;
		j->cur_perf = pi;
		pf->bind = bind;
		pf->weight = t->binds[bind].bench ? t->binds[bind].weight : 1;
		pf->flops = plan.flops;
		pf->bytes = plan.min_bytes;
		pf->sol_ms = pf->sol_frac = pf->iou = pf->mfu = -1;
		kjj_shape_desc(j, bind, sd, sizeof(sd));
		memset(&c, 0, sizeof(c));
		c.s = s;
		c.bind = bind;
		c.pi = pi;
		c.pf = pf;
		c.walls = walls;
		/* what the fp64 reference costs here decides how many timed calls
		 * are verified against it: all of them when it is cheap */
		ref_ms = j->track->ref_cost_ms(j, s);
		c.verify_every = !j->track->outputs_vs_base || ref_ms <= 5 ? 1 : ref_ms <= 50 ? 4 : 8;
		kjj_progress(j, "performance: %s on %s", j->track->baseline_after_candidate ? "candidate, then baseline" :
			     "candidate", sd);
		if (timing_loop(j, &c, cs, &ncs, bs, &nbs, &rc) == 0) {
			/* the samples in the order taken, for the interval */
			if (kjj_keep_samples(&keep[pi].cand, &keep[pi].ncand, cs, ncs) ||
			    kjj_keep_samples(&keep[pi].base, &keep[pi].nbase, bs, nbs))
				rc = kj_err_set(j->err, KJ_E_NOMEM, "out of memory");
			kj_timing_summary(cs, ncs, &pf->ms, &pf->iqr_ms, &stable);
			pf->n = ncs;
			/* one call's bound can be noisy (a host wake-up); most calls'
			 * cannot be, unless the worker's times are not the work's */
			if (2 * c.ngaps > ncs)
				j->v->flags |= KJ_FLAG_TIMING_GAP;
			if (!stable)
				j->v->flags |= KJ_FLAG_UNSTABLE_TIMING;
			kj_timing_summary(walls, c.nwalls, &pf->wall_ms, &dummy, &stable);
			pf->call_ms = pf->ms;
			/* short calls: timed as a train of them back to back, each on
			 * inputs of its own, on the judge's clock as well as the
			 * worker's events; such a shape's time is the train's, and
			 * its baseline's is the baseline's own train */
			if (j->track->train) {
				struct kjj_train tr;
				int bad = 0;
				if (!(rc = j->track->train(j, s, bind, pf->wall_ms, &tr, &bad)) && !bad && tr.reps) {
					pf->train_reps = tr.reps;
					pf->train_ms = tr.bound_ms;
					/* single calls far below the train: forged, or
					 * work outside the events */
					if (pf->call_ms < tr.loose_ms)
						j->v->flags |= KJ_FLAG_TIMING_GAP;
					if (tr.gap)
						j->v->flags |= KJ_FLAG_TIMING_GAP;
					pf->ms = tr.ms;
					keep[pi].widen = hypot(keep[pi].widen, tr.spread);
				}
			}
			if (rc || j->v->status != KJ_ST_PASS) {
				/* the train failed: no speedup */
			} else if (j->track->baseline_after_candidate) {
				kj_timing_summary(bs, nbs, &pf->baseline_ms, &pf->baseline_iqr_ms, &stable);
				pf->baseline_n = nbs;
				pf->baseline_call_ms = pf->baseline_ms;
			} else if (j->base[pi].have) {
				pf->baseline_call_ms = j->base[pi].ms;
				pf->baseline_ms = j->base[pi].train_reps ? j->base[pi].train_ms : j->base[pi].ms;
				pf->baseline_train_reps = j->base[pi].train_reps;
				pf->baseline_iqr_ms = j->base[pi].iqr_ms;
				pf->baseline_n = j->base[pi].n;
				if (pf->baseline_train_reps)
					keep[pi].widen = hypot(keep[pi].widen, j->base[pi].train_spread);
			}
			if (pf->baseline_n > 0) {
				pf->speedup = pf->ms > 0 ? pf->baseline_ms / pf->ms : 0;
				roofline(j, s, pf, &plan, &scored);
				if (scored && pf->speedup > 0) {
					counted[pi] = 1;
					wsum += pf->weight;
					lsum += pf->weight * log(pf->speedup);
				}
			}
		}
		j->cur_perf = -1;
		kj_plan_release(&plan);
		j->track->shape_free(j, s);
		if (j->v->status != KJ_ST_PASS)
			break;
	}
	free(cs);
	free(bs);
	free(walls);
	j->v->speedup = wsum > 0 ? exp(lsum / wsum) : 0;
	kjj_perf_intervals(j, keep, counted);
	return rc;
}

/* ---- the baseline while no candidate runs ---- */

struct base_ctx {
	struct kjj_shape *s;
};

static double prepass_sample(struct judge *j, void *vctx, int it, int *rc)
{
	struct base_ctx *b = vctx;
	double ms = 0;
	*rc = 0;
	if ((*rc = kjj_gen_timed(j, b->s, kj_seed_for(j->o->base_seed ^ 0x70657266ULL, (uint64_t)it + 100000))) ||
	    (*rc = j->track->time_base(j, b->s, &ms)))
		return -1;
	return ms;
}

/* The baseline's prepass on the CUDA track, once per (task, shape, device,
 * build) since it is cached: BASE_WARM_S of untimed calls (at least
 * BASE_WARM_MIN), then at least BASE_MIN_SAMPLES timed ones.  Measured on
 * the H200 (bench/timing_trace.sh, 2026-12-03): on the second bench shape
 * of layer_norm (B=32 S=2048 D=8192) the first five calls took 1.24 ms and
 * the rest 1.14, on softmax's 2048 x 262144 the first nine 1.50-1.53 ms
 * and the rest 1.46-1.50; with one warm-up call and 10-20 samples the
 * samples' halves differed by 4% and the speedup's interval was 8-9% wide
 * on a kernel whose speedup repeated within 0.2%. */
/* Timed once and cached, the baseline settles tighter than a candidate's
 * 0.5%: its median's half-width is half of every speedup interval's
 * baseline side (measured on the H200: softmax's 2048 x 262144 baseline,
 * calls 1% apart, stopped at 36 samples and a 0.5% half-width, which with
 * the candidate's left its intervals 3.3-3.8% wide). */
#define BASE_NOISE 0.0025
#define BASE_WARM_S 0.05
#define BASE_WARM_MIN 3
#define BASE_MIN_SAMPLES 30
int kjj_baseline_prepass(struct judge *j)
{
	double warm0 = 0;
	int pb[PERF_MAX_SHAPES], npb = kjj_perf_binds(j->t, j->o->backend, pb, PERF_MAX_SHAPES), rc = 0;
	double *xs;
	if (npb == 0) {
		pb[0] = kjj_largest_check(j->t, 0);
		npb = 1;
	}
	if (!(xs = malloc(PERF_MAX_SAMPLES * sizeof(double))))
		return kj_err_set(j->err, KJ_E_NOMEM, "out of memory");
	for (int pi = 0; pi < npb && !rc; pi++) {
		struct kjj_base_time tmp;
		struct base_ctx b;
		int ns = 0, stable = 0;
		char sd[320];
		memset(&tmp, 0, sizeof(tmp));
		if (kjj_baseline_load(j, pb[pi], &tmp) == 0) {
			j->base[pi] = tmp;
			continue;
		}
		if ((rc = j->track->shape_init(j, pb[pi], &b.s)))
			break;
		kjj_progress(j, "performance: baseline on %s", kjj_shape_desc(j, pb[pi], sd, sizeof(sd)));
		/* untimed calls first: on a shape's fresh buffers the first
		 * calls run slower */
		warm0 = kjj_now_s();
		for (int w = 0; w < BASE_WARM_MIN || kjj_now_s() - warm0 < BASE_WARM_S; w++)
			if (prepass_sample(j, &b, 200000 + w, &rc) < 0)
				break;
		if (!rc && kjj_timing_loop(j, prepass_sample, &b, BASE_MIN_SAMPLES, BASE_NOISE, xs, &ns, &stable, &rc) == 0 &&
		    ns > 0) {
			/* the samples in the order taken, for the intervals (and the cache) */
			if (kjj_keep_samples(&tmp.xs, &tmp.nxs, xs, ns))
				tmp.nxs = 0;
			kj_timing_summary(xs, ns, &tmp.ms, &tmp.iqr_ms, &stable);
			tmp.n = ns;
			/* short calls: the baseline back to back too, as the
			 * candidate's short calls are timed (kjj_stage_perf) */
			if (j->track->time_base_train &&
			    (rc = j->track->time_base_train(j, b.s, tmp.ms, &tmp.train_ms, &tmp.train_reps,
							    &tmp.train_spread)))
				tmp.train_reps = 0;
			if (!rc) {
				tmp.have = 1;
				j->base[pi] = tmp;
				kjj_baseline_store(j, pb[pi], &tmp);
			} else {
				free(tmp.xs);
			}
		}
		j->track->shape_free(j, b.s);
	}
	free(xs);
	return rc;
}
