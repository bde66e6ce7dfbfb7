/*
 * kj_eval (include/kjudge/judge.h): one stage sequence for every candidate
 * kind and track (judge_internal.h says which interface holds what), the
 * worker's start with its trusted round-trip floor, and the single exit
 * that releases what the evaluation held.
 *
 * Trust boundary: everything here runs in the judge process.  The worker
 * receives an arena (shared memory) holding only the candidate's own input
 * copies and output buffers.  References stay in this process; inputs are
 * compared against the judge's pristine copies after every call; times come
 * from the judge's clock minus the measured round trip of an empty call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "judge/judge_internal.h"
#include "kjudge/fsutil.h"
#include "kjudge/hash.h"
#include "kjudge/jail.h"
#include "kjudge/judge.h"
#include "kjudge/sandbox.h"

uint64_t kj_seed_from_secret(const char *secret)
{
	char buf[4096], hex[65];
	uint64_t v = 0;
	int n = snprintf(buf, sizeof(buf), "kjudge-seed-secret/1%s", secret);
	kj_sha256_hex(buf, (size_t)(n < (int)sizeof(buf) ? n : (int)sizeof(buf) - 1), hex);
	for (int i = 0; i < 16; i++)
		v = (v << 4) | (uint64_t)(hex[i] <= '9' ? hex[i] - '0' : hex[i] - 'a' + 10);
	return v;
}

void kj_eval_opts_init(struct kj_eval_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->backend = KJ_BACKEND_CPU;
	o->seeds = 5;
	o->base_seed = 0x6b6a75646765ULL; /* "kjudge": fixed, so verdicts repeat */
	o->call_timeout_s = 10;
	o->perf_budget_s = 1.0;
}

void kj_eval_opts_settings(const struct kj_eval_opts *o, struct kj_verdict_settings *s)
{
	memset(s, 0, sizeof(*s));
	s->backend = o->backend;
	s->seeds = o->seeds;
	s->base_seed = o->base_seed;
	s->no_perf = o->no_perf;
	s->call_timeout_s = o->call_timeout_s;
	s->perf_budget_s = o->perf_budget_s;
	s->strict = o->policy == KJ_POLICY_STRICT;
	s->unconfined = o->unconfined;
	s->max_noise = o->max_noise;
}

static void cpu_device(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];
	snprintf(buf, len, "cpu");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *c = strchr(line, ':');
		if (!strncmp(line, "model name", 10) && c) {
			c++;
			while (*c == ' ')
				c++;
			c[strcspn(c, "\n")] = 0;
			snprintf(buf, len, "cpu: %s", c);
			break;
		}
	}
	fclose(f);
}

/* Stops the worker, keeping its log in the verdict (a second worker's log
 * follows the first's). */
static void stop_worker(struct judge *j)
{
	kj_verdict *v = j->v;
	if (!j->worker_up)
		return;
	if (j->w.log.total > j->w.log.len)
		v->flags |= KJ_FLAG_OUTPUT_TRUNCATED;
	if (j->w.log.buf) {
		size_t have = v->worker_log ? strlen(v->worker_log) : 0, add = strlen(j->w.log.buf);
		char *nl = realloc(v->worker_log, have + add + 1);
		if (nl) {
			memcpy(nl + have, j->w.log.buf, add + 1);
			v->worker_log = nl;
		}
	}
	v->worker_log_total += j->w.log.total;
	kj_worker_stop(&j->w);
	j->worker_up = 0;
}

/* The worker's common options, then the kind's (its path, argv, jail);
 * uuid: the device's ("GPU-..."), NULL on the CPU track.  Returns 0 or an
 * error. */
static int worker_opts(struct judge *j, const char *uuid, struct kj_worker_opts *wo)
{
	const struct kj_eval_opts *o = j->o;
	memset(wo, 0, sizeof(*wo));
	wo->worker_path = o->worker_path;
	wo->unconfined = j->unconfined;
	wo->scratch_dir = j->scratch;
	/* the CUDA worker spins a core while it waits for the device, so its CPU
	 * time follows GPU time over the whole evaluation */
	wo->cpu_limit_s = uuid ? 3600 : 2 * o->call_timeout_s + 60;
	wo->cuda = uuid != NULL;
	wo->device = o->device;
	/* the CPU track's worker runs only between a request and its reply;
	 * on the CUDA track the judge's clock bounds the call, so it waits
	 * awake */
	wo->freeze = j->track->baseline_after_candidate;
	wo->spin = !j->track->baseline_after_candidate;
	wo->cuda_uuid = uuid;
	return j->cand->worker_opts ? j->cand->worker_opts(j, wo) : 0;
}

/* Starts the worker and, on a GPU, its CUDA context: trusted, nothing of
 * the candidate's is in it yet.  Returns 0, or an error. */
static int spawn_worker(struct judge *j)
{
	struct kj_worker_opts wo;
	struct kj_call_result res;
	int rc;

	if (j->cand->start_worker) {
		/* started ahead (or now) by the kind, SETUP's reply in res */
		if ((rc = j->cand->start_worker(j, &res)))
			return rc;
		goto set_up;
	}
	if ((rc = worker_opts(j, j->gpu ? kj_gpu_get_info(j->gpu)->uuid : NULL, &wo)))
		return rc;
	kjj_prof_begin(j, KJ_PROF_SPAWN);
	rc = kj_worker_start(&j->w, &wo, j->err);
	kjj_prof_end(j);
	if (rc)
		return rc;
	j->worker_up = 1;
	/* Trusted: nothing of the candidate's is in the worker yet.  The
	 * CUDA context first (SETUP), then empty calls through the CALL
	 * path. */
	if (j->gpu) {
		kjj_prof_begin(j, KJ_PROF_CONTEXT);
		rc = kj_worker_setup(&j->w, j->load_timeout_s, &res, j->err);
		kjj_prof_end(j);
		if (rc)
			return rc;
	}
set_up:
	if (j->w.limits[0] && !strstr(j->v->limits, "worker: ")) {
		size_t len = strlen(j->v->limits);
		snprintf(j->v->limits + len, sizeof(j->v->limits) - len, "%sworker: %s", len ? "; " : "",
			 j->w.limits);
	}
	if (j->gpu) {
		if (j->cand->env_error && (rc = j->cand->env_error(j, &res)))
			return rc;
		if (res.status != KJ_CALL_OK)
			return kj_err_set(j->err, KJ_E_WORKER, "the worker could not set up its device: %s",
					  res.msg);
		if (j->cand->post_setup && (rc = j->cand->post_setup(j)))
			return rc;
	}
	return 0;
}

/* The trusted round-trip floor, measured before the candidate exists in the
 * worker: empty calls, then each perf shape's timed empty call.  Returns 0,
 * or an error. */
static int measure_floor(struct judge *j)
{
	const struct kj_eval_opts *o = j->o;
	struct kj_call_result res;
	double rt[FLOOR_PROBES], m, q;
	int rc, dummy;
	kjj_prof_begin(j, KJ_PROF_FLOOR);
	for (int i = 0; i < FLOOR_PROBES; i++) {
		if ((rc = kj_worker_probe(&j->w, NULL, 0, NULL, 0, o->call_timeout_s, &res, j->err)))
			return rc;
		if (res.status != KJ_CALL_OK)
			return kj_err_set(j->err, KJ_E_WORKER, "the worker failed an empty call before the "
					  "candidate was loaded: %s", res.msg);
		rt[i] = (double)res.judge_ns;
	}
	kjj_prof_end(j);
	kj_timing_summary(rt, FLOOR_PROBES, &m, &q, &dummy);
	j->floor_ns = (int64_t)m;
	j->v->rtt_floor_us = m / 1e3;
	/* each perf shape's floor, the way its timed calls are measured */
	if (j->track->probe_floor && !o->no_perf) {
		int pb[PERF_MAX_SHAPES], npb = kjj_perf_binds(j->t, o->backend, pb, PERF_MAX_SHAPES);
		if (npb == 0) {
			pb[0] = kjj_largest_check(j->t, 0);
			npb = 1;
		}
		for (int pi = 0; pi < npb; pi++)
			if ((rc = j->track->probe_floor(j, pb[pi], &j->floor_ms[pi])))
				return rc;
	}
	return 0;
}

/* Loads the candidate into the worker.  Returns 0 (a failed load sets the
 * verdict), or an error. */
static int load_candidate(struct judge *j)
{
	struct kj_call_result res;
	int rc;
	kjj_prof_begin(j, KJ_PROF_LOAD);
	rc = kj_worker_load(&j->w, j->load_path, j->t->name, j->load_nptr, j->t->nsyms, j->load_timeout_s, &res,
			    j->err);
	kjj_prof_end(j);
	if (rc)
		return rc;
	if (j->cand->env_error && (rc = j->cand->env_error(j, &res)))
		return rc;
	if (j->cand->map_error && j->cand->map_error(j, &res))
		return 0;
	if (res.status == KJ_CALL_ERROR) {
		kjj_fail(j, KJ_ST_CALL_ERROR, KJ_STAGE_CALL, "cannot load the candidate: %s", res.msg);
		return 0;
	}
	if (!kjj_call_failed(j, &res, KJ_STAGE_CALL, kjj_largest_check(j->t, 1)))
		kjj_check_mapped_libs(j);
	return 0;
}

/* Creates the scratch folder (unless the caller gave one) into scratch.
 * Returns 0, or an error. */
static int make_scratch(const struct kj_eval_opts *o, char *scratch, size_t len, struct kj_err *err)
{
	if (scratch[0])
		return 0;
	if (o->scratch_dir) {
		snprintf(scratch, len, "%s", o->scratch_dir);
	} else {
		const char *tmp = getenv("TMPDIR");
		snprintf(scratch, len, "%s/kjudge-XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(scratch)) {
			int rc = kj_err_sys(err, "cannot create scratch folder '%s'", scratch);
			scratch[0] = '\0';
			return rc;
		}
	}
	return 0;
}

/* Opens the device (or takes the caller's) and reads its state and its
 * calibration (measured once per GPU when the cache has none).  j->gpu is
 * set as soon as it is open, so that the exit closes it whatever fails
 * after.  Returns 0, or an error. */
static int open_device(struct judge *j, kj_calib *calib)
{
	const struct kj_eval_opts *o = j->o;
	kj_verdict *v = j->v;
	const kj_gpu_info *gi;
	struct kj_err se;
	int rc;
	if (!kj_gpu_available())
		return kj_err_set(j->err, KJ_E_UNSUPPORTED, "the %s backend needs a CUDA device and a "
				  "kjudge built with nvcc: no CUDA device here; use --backend cpu here",
				  kj_backend_name(o->backend));
	if (o->gpu)
		j->gpu = o->gpu;
	else if ((rc = kj_gpu_open(o->device, &j->gpu, j->err)))
		return rc;
	gi = kj_gpu_get_info(j->gpu);
	snprintf(v->device, sizeof(v->device), "%s (%s, %s)", gi->name, gi->arch, gi->uuid);
	kjj_gpu_baseline_id(v->baseline_id, sizeof(v->baseline_id));
	/* the GPU's clocks, power, temperature and settings now and at the
	 * end: what its times mean */
	kj_err_init(&se);
	if (kj_gpu_state_read(gi->uuid, &v->gpu_start, &se) == 0)
		v->gpu_states = 1;
	else
		snprintf(v->gpu_state_err, sizeof(v->gpu_state_err), "%s", se.msg);
	if (kj_calib_load(o->cache_dir, gi->uuid, calib) == 0) {
		j->calib = calib;
	} else {
		kjj_progress(j, "calibrating %s (once per GPU)", gi->name);
		if (kj_gpu_calibrate(j->gpu, calib, j->err) == 0) {
			kj_calib_store(o->cache_dir, calib);
			j->calib = calib;
		}
		kj_err_init(j->err); /* no calibration: no roofline, not an error */
	}
	return 0;
}

/* The sequence.  Every step that fails, or sets the verdict, goes to the
 * single exit (out:), which releases what the evaluation holds whichever
 * step it came from: the profile's open parts, the worker (its log kept in
 * the verdict), the CPU pin, the GPU context it opened and the track's
 * device buffers, the GPU's end state, the scratch folder it made, the
 * kind's state (compile result, Python state), the baseline's distances.
 * rc: 0 go on, > 0 the verdict is set (returned as 0), < 0 an error. */
int kj_eval(const kj_task *t, const char *source, size_t len, const struct kj_eval_opts *o,
	    kj_verdict *v, struct kj_err *err)
{
	struct judge j;
	double t0 = kjj_now_s(), ts;
	int rc = 0, abi[KJ_WIRE_MAX_ABI + 1];
	kj_calib calib;
	struct kjj_pin pin;
	const char *survey = getenv("KJ_SECCOMP_SURVEY");
	memset(&j, 0, sizeof(j));
	memset(&pin, 0, sizeof(pin));
	j.t = t;
	j.o = o;
	j.v = v;
	j.err = err;
	j.cur_perf = -1;
	j.cand = kj_backend_is_python(o->backend) ? &kjj_cand_py : &kjj_cand_c;
	j.track = kj_backend_is_gpu(o->backend) ? &kjj_track_cuda : &kjj_track_cpu;
	kj_verdict_init(v);
	kjj_prof_track(&j);
	if ((rc = j.cand->init(&j)))
		goto out;
	j.bdist = calloc((size_t)(t->nbind > 0 ? t->nbind : 1) * KJJ_MAX_OUTPUTS * KJJ_FLAVOURS, sizeof(*j.bdist));
	if (!j.bdist) {
		rc = kj_err_set(err, KJ_E_NOMEM, "out of memory");
		goto out;
	}
	snprintf(v->task, sizeof(v->task), "%s", t->id);
	v->backend = o->backend;
	v->seeds = o->seeds;
	v->base_seed = o->base_seed;
	v->seed_hidden = o->seed_hidden;
	kj_sha256_hex(source, len, v->sha256);
	v->status = KJ_ST_PASS;
	v->stage = KJ_STAGE_DONE;
	/* the candidate is confined unless the user said otherwise; a profiler
	 * must be able to reach it, and the seccomp survey logs instead of
	 * refusing: both judge unconfined code */
	j.unconfined = o->unconfined || kj_worker_profile_mode();
	if (j.unconfined || (survey && !strcmp(survey, "1")))
		v->flags |= KJ_FLAG_UNCONFINED;
	if (!j.unconfined && (rc = kj_jail_available(err)))
		goto out;
	snprintf(v->sandbox, sizeof(v->sandbox), "%s",
		 j.unconfined ? (o->unconfined ? "none (--unsafe-no-sandbox)" : "none (KJUDGE_PROFILE=1)") :
				kj_jail_describe());
	if (j.cand->precheck && (rc = j.cand->precheck(&j, source, len)))
		goto out;
	if (kj_backend_is_gpu(o->backend)) {
		kjj_prof_begin(&j, KJ_PROF_SETUP);
		if ((rc = open_device(&j, &calib)))
			goto out;
		kjj_prof_end(&j);
	} else {
		cpu_device(v->device, sizeof(v->device));
	}
	if (kj_task_abi_values(t, abi, KJ_WIRE_MAX_ABI + 1) > KJ_WIRE_MAX_ABI) {
		rc = kj_err_set(err, KJ_E_UNSUPPORTED, "task %s passes more than %d tensors", t->id,
				KJ_WIRE_MAX_ABI);
		goto out;
	}
	if (t->nsyms > KJ_WIRE_MAX_DIMS) {
		rc = kj_err_set(err, KJ_E_UNSUPPORTED, "task %s has %d dims, more than the %d a call carries",
				t->id, t->nsyms, KJ_WIRE_MAX_DIMS);
		goto out;
	}
	j.load_nptr = kj_task_abi_values(t, abi, KJ_WIRE_MAX_ABI);
	/* static checks, compile or build, checks of the object: what LOAD loads */
	if ((rc = j.cand->prepare(&j, source, len)))
		goto out;

	ts = kjj_now_s();
	/* a worker the kind starts brings its own scratch folder */
	if (!j.cand->start_worker && (rc = make_scratch(o, j.scratch, sizeof(j.scratch), err)))
		goto out;
	v->stage_s[KJ_STAGE_CALL] = kjj_now_s() - ts;
	/* the GPU's baseline, while no process of this candidate exists (and
	 * none of the kind's is starting) */
	if (j.gpu && !o->no_perf) {
		if (j.cand->quiesce)
			j.cand->quiesce(&j);
		ts = kjj_now_s();
		kjj_prof_begin(&j, KJ_PROF_BASELINE);
		if ((rc = kjj_baseline_prepass(&j)))
			goto out;
		kjj_prof_end(&j);
		v->stage_s[KJ_STAGE_PERFORMANCE] += kjj_now_s() - ts;
	}
	ts = kjj_now_s();
	/* the CPU track times on one CPU: the worker inherits the judge's
	 * affinity, and the baseline runs in this thread (pin.c);
	 * KJUDGE_NO_PIN set: not (a host with more timing jobs than CPUs) */
	if (j.inner == &kjj_track_cpu && !o->no_perf && !getenv("KJUDGE_NO_PIN") && kjj_pin(&pin) >= 0)
		v->pinned_cpu = 1 + pin.cpu;
	if ((rc = spawn_worker(&j)) || (rc = measure_floor(&j)))
		goto out;
	if (j.cand->after_floor)
		j.cand->after_floor(&j);
	if ((rc = load_candidate(&j)) || v->status != KJ_ST_PASS)
		goto out;
	v->stage_s[KJ_STAGE_CALL] += kjj_now_s() - ts;

	ts = kjj_now_s();
	if ((rc = kjj_stage_correctness(&j)) || v->status != KJ_ST_PASS)
		goto out;
	if (j.cand->after_stage && ((rc = j.cand->after_stage(&j)) || v->status != KJ_ST_PASS))
		goto out;
	v->stage_s[KJ_STAGE_CORRECTNESS] = kjj_now_s() - ts;
	if (!o->no_perf) {
		if (j.cand->quiesce)
			j.cand->quiesce(&j);
		ts = kjj_now_s();
		if ((rc = kjj_stage_perf(&j)) || v->status != KJ_ST_PASS)
			goto out;
		if (j.cand->after_stage && ((rc = j.cand->after_stage(&j)) || v->status != KJ_ST_PASS))
			goto out;
		v->stage_s[KJ_STAGE_PERFORMANCE] += kjj_now_s() - ts;
	}
out:
	/* a part left by a goto ends here */
	while (j.prof_depth > 0)
		kjj_prof_end(&j);
	kjj_prof_begin(&j, KJ_PROF_TEARDOWN);
	stop_worker(&j);
	kjj_unpin(&pin);
	if (j.gpu) {
		kjj_gpu_release(&j);
		if (!o->gpu)
			kj_gpu_close(j.gpu);
	}
	if (v->gpu_states == 1 && kj_gpu_state_read(v->gpu_start.uuid, &v->gpu_end, NULL) == 0) {
		v->gpu_states = 2;
		if (kj_gpu_state_drift(&v->gpu_start, &v->gpu_end, v->gpu_drift, sizeof(v->gpu_drift)))
			v->flags |= KJ_FLAG_GPU_DRIFT;
	}
	if (j.scratch[0] && (!o->scratch_dir || j.scratch_own))
		kj_rm_tree(j.scratch);
	j.cand->release(&j);
	free(j.bdist);
	v->total_s = kjj_now_s() - t0;
	kjj_prof_finish(&j);
	return rc < 0 ? rc : 0;
}
