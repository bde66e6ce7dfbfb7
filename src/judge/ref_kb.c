/*
 * The reference and the eager baseline of a KernelBench problem file's task
 * (kj_task.kb): the problem's own Model, run by a trusted Python process of
 * its own, never the candidate's (kjudge_pyworker.py --reference PROBLEM,
 * the worker protocol on its own socket).  It runs the problem's code only;
 * its results are believed as the judge's own executors' are.
 *
 * The judge still owns the data: it generates the inputs into its baseline
 * buffers (judge_gpu.c), copies them into an arena of its own that only
 * this worker opens (CUDA IPC), and copies the results back out: the
 * float64 outputs into the reference executor's buffers (the ground truth:
 * the problem's Model in float64, inputs cast to float64), the problem-dtype
 * outputs into the baseline's (the eager baseline).  The baseline is timed
 * by this worker's CUDA events around the forward, after the judge flushed
 * the L2 from its own context (as for the C baseline); the prepass times it
 * before any candidate process exists.
 *
 * Arena layout: the tensor inputs (the problem's dtypes), the outputs (the
 * problem's dtypes), the outputs as float64, each at a 256-byte boundary.
 * A CALL's one dim picks the work: 0 reference, 1 baseline, 2 the
 * problem's own get_inputs() values (drawn under its seed) into the inputs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "judge/judge_internal.h"
#include "kjudge/fsutil.h"
#include "kjudge/jail.h"
#include "kjudge/python.h"

#define KB_LOAD_TIMEOUT_S 900.0
#define KB_MAX_ARGS KJ_WIRE_MAX_ABI

struct kjj_kbref {
	struct kj_worker w;
	int up, ready; /* started; loaded the problem (a start that failed is not retried) */
	void *arena;
	size_t arena_size;
	int nargs, nin, nout;
	int val[KB_MAX_ARGS];          /* the task's value of each argument */
	uint64_t off[KB_MAX_ARGS];
	size_t bytes[KB_MAX_ARGS];
	char python[4096], worker[4096], worker_in[256], scratch[4200], cache[4096];
	char *abi;
	char *argv[12];
	struct kj_jail *jail;
};

static size_t align256(size_t x)
{
	return (x + 255) & ~(size_t)255;
}

static int layout(struct kjj_kbref *r, const kj_task *t, const kj_plan *p, struct kj_err *err)
{
	size_t at = 0;
	r->nargs = r->nin = r->nout = 0;
	for (int pass = 0; pass < 3; pass++)
		for (int vi = 0; vi < t->nvals; vi++) {
			int out = t->vals[vi].kind == KJ_V_OUTPUT;
			size_t n = (size_t)kj_shape_numel(&p->vals[vi].shape);
			if ((pass == 0) == out)
				continue;
			if (r->nargs >= KB_MAX_ARGS)
				return kj_err_set(err, KJ_E_UNSUPPORTED, "%s: more tensors than a call carries", t->id);
			r->val[r->nargs] = vi;
			r->off[r->nargs] = at;
			r->bytes[r->nargs] = n * (pass == 2 ? 8 : kj_dtype_size(p->vals[vi].dtype));
			at = align256(at + (r->bytes[r->nargs] ? r->bytes[r->nargs] : 1));
			r->nargs++;
			if (pass == 0)
				r->nin++;
			else if (pass == 1)
				r->nout++;
		}
	r->arena_size = at;
	return 0;
}

void kjj_kb_release(struct judge *j)
{
	struct kjj_kbref *r = j->kbref;
	if (!r)
		return;
	if (r->up)
		kj_worker_stop(&r->w);
	if (r->arena && j->gpu)
		kj_gpu_free(j->gpu, r->arena);
	if (r->scratch[0])
		kj_rm_tree(r->scratch);
	free(r->abi);
	free(r->jail);
	free(r);
	j->kbref = NULL;
}

/* The reference worker's failure is the judge's error (the problem's code
 * or the environment), never the candidate's verdict. */
static int worker_failed(struct judge *j, const char *what, const struct kj_call_result *res)
{
	return kj_err_set(j->err, strncmp(res->msg, "kjudge-env: ", 12) ? KJ_E_WORKER : KJ_E_UNSUPPORTED,
			  "the reference worker of %s failed %s: %s", j->t->path, what,
			  res->msg[0] ? res->msg : kj_call_status_name(res->status));
}

/* Starts the reference worker for this shape (once per evaluation: a
 * problem file's task has one shape): jail, SETUP, the arena, LOAD. */
static int start(struct judge *j, const kj_plan *p)
{
	struct kjj_kbref *r;
	struct kj_worker_opts wo;
	struct kj_call_result res;
	unsigned char h[64];
	const char *uuid = kj_gpu_get_info(j->gpu) ? kj_gpu_get_info(j->gpu)->uuid : NULL;
	int rc, n = 0;
	if (j->kbref)
		return j->kbref->ready ? 0 :
			kj_err_set(j->err, KJ_E_WORKER, "the reference worker of %s did not start", j->t->path);
	if (j->o->backend != KJ_BACKEND_KERNELBENCH)
		return kj_err_set(j->err, KJ_E_USAGE, "%s is a KernelBench problem file: its candidates are judged "
				  "with --backend kernelbench", j->t->path);
	if (!(r = calloc(1, sizeof(*r))))
		return kj_err_set(j->err, KJ_E_NOMEM, "out of memory");
	j->kbref = r;
	if ((rc = layout(r, j->t, p, j->err)) || (rc = kjj_py_find_python(r->python, sizeof(r->python), j->err)) ||
	    (rc = kjj_py_find_worker(j->o, r->worker, sizeof(r->worker), j->err)) ||
	    (rc = kj_cache_dir(j->o->cache_dir, r->cache, sizeof(r->cache), j->err)))
		return rc;
	if (!(r->abi = kjj_py_abi_json(j->t)))
		return kj_err_set(j->err, KJ_E_NOMEM, "out of memory");
	/* a scratch folder of its own, not under the candidate's (which the
	 * candidate's worker may write) */
	{
		const char *tmp = getenv("TMPDIR");
		snprintf(r->scratch, sizeof(r->scratch), "%s/kjudge-kbref-XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(r->scratch)) {
			rc = kj_err_sys(j->err, "cannot create the reference worker's scratch folder '%s'", r->scratch);
			r->scratch[0] = '\0';
			return rc;
		}
	}
	if (!j->unconfined &&
	    (rc = kj_python_jail(r->python, r->worker, NULL, &r->jail, r->python, sizeof(r->python), j->err)))
		return rc;
	snprintf(r->worker_in, sizeof(r->worker_in), "%s",
		 j->unconfined ? r->worker : KJ_JAIL_STAGE "/kjudge_pyworker.py");
	r->argv[n++] = r->python;
	r->argv[n++] = "-I";
	r->argv[n++] = r->worker_in;
	r->argv[n++] = "--reference";
	r->argv[n++] = j->t->path;
	r->argv[n++] = "--abi";
	r->argv[n++] = r->abi;
	r->argv[n] = NULL;
	memset(&wo, 0, sizeof(wo));
	wo.worker_path = r->python;
	wo.argv = (const char *const *)r->argv;
	wo.jail = r->jail;
	wo.unconfined = j->unconfined;
	wo.scratch_dir = r->scratch;
	wo.cpu_limit_s = 3600;
	wo.cuda = 1;
	wo.device = j->o->device;
	wo.cuda_uuid = uuid;
	wo.fsize_limit = (size_t)64 << 20;
	if ((rc = kj_worker_start(&r->w, &wo, j->err)))
		return rc;
	r->up = 1;
	if ((rc = kj_worker_setup(&r->w, KB_LOAD_TIMEOUT_S, &res, j->err)))
		return rc;
	if (res.status != KJ_CALL_OK)
		return worker_failed(j, "to set up its device", &res);
	if ((rc = kj_gpu_alloc(j->gpu, r->arena_size, &r->arena, j->err)) ||
	    (rc = kj_gpu_ipc_handle(j->gpu, r->arena, h, j->err)) ||
	    (rc = kj_worker_arena_cuda(&r->w, h, r->arena_size, j->err)))
		return rc;
	if ((rc = kj_worker_load(&r->w, j->t->path, "Model", r->nargs, 1, KB_LOAD_TIMEOUT_S, &res, j->err)))
		return rc;
	if (res.status != KJ_CALL_OK)
		return worker_failed(j, "to build the problem's Model", &res);
	r->ready = 1;
	return 0;
}

/* Inputs from the baseline's buffers (the pristine copies) into the arena. */
static int inputs_in(struct judge *j, kj_gpu_exec *base)
{
	struct kjj_kbref *r = j->kbref;
	int rc = 0;
	for (int i = 0; i < r->nin && !rc; i++)
		if (r->bytes[i])
			rc = kj_gpu_copy(j->gpu, (char *)r->arena + r->off[i], kj_gpu_exec_buf(base, r->val[i]), r->bytes[i],
					 2, j->err);
	return rc;
}

/* One CALL of the reference worker (mode 0 reference, 1 baseline). */
static int call(struct judge *j, int64_t mode, struct kj_call_result *res)
{
	struct kjj_kbref *r = j->kbref;
	int rc = kj_worker_call(&r->w, r->off, r->nargs, &mode, 1, j->o->call_timeout_s > 60 ? j->o->call_timeout_s : 60,
				res, j->err);
	if (rc)
		return rc;
	if (res->status != KJ_CALL_OK)
		return worker_failed(j, mode == 2 ? "to draw the problem's get_inputs()" :
				     mode ? "the eager baseline's forward" : "the float64 reference's forward", res);
	return 0;
}

/* Results out of the arena: mode 0 the float64 outputs into ref's buffers,
 * mode 1 the problem-dtype outputs into base's. */
static int outputs_out(struct judge *j, kj_gpu_exec *dst, int mode)
{
	struct kjj_kbref *r = j->kbref;
	int rc = 0;
	for (int o = 0; o < r->nout && !rc; o++) {
		int i = r->nin + (mode ? 0 : r->nout) + o;
		if (r->bytes[i])
			rc = kj_gpu_copy(j->gpu, kj_gpu_exec_buf(dst, r->val[i]), (char *)r->arena + r->off[i], r->bytes[i],
					 2, j->err);
	}
	return rc ? rc : kj_gpu_sync(j->gpu, j->err);
}

int kjj_kb_run(struct judge *j, const kj_plan *p, kj_gpu_exec *base, kj_gpu_exec *ref, int reference)
{
	struct kj_call_result res;
	int rc;
	if ((rc = start(j, p)) || (rc = inputs_in(j, base)) || (rc = kj_gpu_sync(j->gpu, j->err)) ||
	    (rc = call(j, reference ? 0 : 1, &res)))
		return rc;
	return outputs_out(j, reference ? ref : base, !reference);
}

int kjj_kb_problem_inputs(struct judge *j, const kj_plan *p, kj_gpu_exec *base)
{
	struct kj_call_result res;
	int rc;
	if ((rc = start(j, p)) || (rc = call(j, 2, &res)))
		return rc;
	for (int i = 0; i < j->kbref->nin && !rc; i++)
		if (j->kbref->bytes[i])
			rc = kj_gpu_copy(j->gpu, kj_gpu_exec_buf(base, j->kbref->val[i]),
					 (char *)j->kbref->arena + j->kbref->off[i], j->kbref->bytes[i], 2, j->err);
	return rc ? rc : kj_gpu_sync(j->gpu, j->err);
}

int kjj_kb_time_base(struct judge *j, const kj_plan *p, kj_gpu_exec *base, double *ms)
{
	struct kj_call_result res;
	int rc;
	*ms = 0;
	if ((rc = start(j, p)) || (rc = inputs_in(j, base)) || (rc = kj_gpu_l2_flush(j->gpu, j->err)) ||
	    (rc = kj_gpu_sync(j->gpu, j->err)) || (rc = call(j, 1, &res)))
		return rc;
	if (res.gpu_ns <= 0)
		return kj_err_set(j->err, KJ_E_WORKER, "the reference worker of %s gave no event time", j->t->path);
	*ms = (double)res.gpu_ns / 1e6;
	return 0;
}

/* The baseline as a train: *reps forward calls back to back in one CALL,
 * each on its own copy of fresh inputs (gen(j, ctx, r) puts them into
 * base's buffers, enqueued) laid out as the arena, repeated, in a device
 * buffer the worker opens for the train instead of its arena; the L2
 * flushed before each of KB_TRAIN_PASSES timed passes after an untimed
 * one.  *ms the median pass's time per call, *spread the median's
 * relative 95% half-width (kjj_passes_spread); *reps 0 when there is no
 * room for a train (the single calls stand). */
#define KB_TRAIN_PASSES 9
#define KB_TRAIN_MAX_BYTES ((size_t)8 << 30)
int kjj_kb_time_train(struct judge *j, const kj_plan *p, kj_gpu_exec *base, int *reps,
		      int (*gen)(struct judge *, void *, int), void *ctx, double *ms, double *spread)
{
	struct kjj_kbref *r;
	struct kj_call_result res;
	unsigned char h[64];
	void *mem = NULL;
	double xs[KB_TRAIN_PASSES];
	int64_t mode = 1;
	size_t stride;
	int rc, n = *reps;
	*ms = 0;
	*spread = 0;
	if ((rc = start(j, p)))
		return rc;
	r = j->kbref;
	stride = r->arena_size;
	if ((size_t)n > KB_TRAIN_MAX_BYTES / stride)
		n = (int)(KB_TRAIN_MAX_BYTES / stride);
	if ((rc = kjj_alloc_train(j, stride, &n, &mem)))
		return rc;
	*reps = 0;
	if (n < 2)
		return 0;
	for (int k = 0; k < n && !rc; k++) {
		if ((rc = gen(j, ctx, k)))
			break;
		for (int i = 0; i < r->nin && !rc; i++)
			if (r->bytes[i])
				rc = kj_gpu_copy_d2d_async(j->gpu, (char *)mem + (size_t)k * stride + r->off[i],
							   kj_gpu_exec_buf(base, r->val[i]), r->bytes[i], j->err);
	}
	if (!rc && !(rc = kj_gpu_sync(j->gpu, j->err)) && !(rc = kj_gpu_ipc_handle(j->gpu, mem, h, j->err)))
		rc = kj_worker_arena_cuda(&r->w, h, (size_t)n * stride, j->err);
	for (int pass = 0; pass <= KB_TRAIN_PASSES && !rc; pass++) {
		if ((rc = kj_gpu_l2_flush(j->gpu, j->err)) || (rc = kj_gpu_sync(j->gpu, j->err)) ||
		    (rc = kj_worker_train(&r->w, r->off, r->nargs, &mode, 1, n, stride,
					  j->o->call_timeout_s > 60 ? j->o->call_timeout_s : 60, &res, j->err)))
			break;
		if (res.status != KJ_CALL_OK || res.gpu_ns <= 0) {
			rc = res.status != KJ_CALL_OK ? worker_failed(j, "the eager baseline's train", &res) :
				kj_err_set(j->err, KJ_E_WORKER, "the reference worker of %s gave no event time",
					   j->t->path);
			break;
		}
		if (pass)
			xs[pass - 1] = (double)res.gpu_ns / 1e6 / n;
	}
	/* the worker's own arena back, whatever happened */
	if (!r->w.dead) {
		struct kj_err e2;
		int rc2;
		kj_err_init(&e2);
		if (!(rc2 = kj_gpu_ipc_handle(j->gpu, r->arena, h, &e2)))
			rc2 = kj_worker_arena_cuda(&r->w, h, r->arena_size, &e2);
		if (!rc && rc2) {
			*j->err = e2;
			rc = rc2;
		}
	}
	kj_gpu_free(j->gpu, mem);
	if (rc)
		return rc;
	{
		double iqr;
		int stable;
		kj_timing_summary(xs, KB_TRAIN_PASSES, ms, &iqr, &stable);
		*spread = kjj_passes_spread(xs, KB_TRAIN_PASSES);
	}
	*reps = n;
	return 0;
}
