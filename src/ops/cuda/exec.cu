/*
 * The GPU executors of a bound task (include/kjudge/gpu.h): one device
 * buffer per plan value, allocated at init (constants filled there), and a
 * run that calls each node's CUDA implementation (ops_table.cu) in order on
 * the context's stream.  reference = 1 stores every value as double and, like
 * kj_exec64, rounds integer-dtype results after each node (kj_store rules);
 * reference = 0 is the eager baseline in the values' own dtypes.
 *
 * A reshape's output is a view: it shares its input's buffer and its node
 * launches nothing (values are written once, by their own node, so the
 * sharing cannot be observed), as PyTorch's reshape of a contiguous tensor;
 * so is the baseline's cast to the dtype a value already has (x.to(x.dtype)
 * returns x in PyTorch).
 *
 * Ownership: kj_gpu_exec_init allocates the executor and its buffers
 * (through kj_gpu_alloc); kj_gpu_exec_free releases both (shared buffers
 * once).  The plan and the
 * context must outlive the executor.
 */
#include "ops/cuda/ops_common.cuh"

#include <stdlib.h>

struct kj_gpu_exec {
	kj_gpu *g;
	const kj_plan *plan;
	int reference;
	void **buf;
	unsigned char *alias; /* per value: its buffer is another value's (a reshape) */
	kj_cuda_op_fn *fn;
	kj_cuda_check_fn *check;
};

__global__ void exec_round_k(double *p, int dt, int64_t n)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		p[i] = kjd_round_to(dt, p[i]);
}

extern "C" int kj_gpu_has_op(const char *name)
{
	return kj_cuda_op_find(name) != NULL;
}

extern "C" void kj_gpu_exec_free(kj_gpu_exec *x)
{
	if (!x)
		return;
	if (x->buf)
		for (int i = 0; i < x->plan->task->nvals; i++)
			if (!x->alias || !x->alias[i])
				kj_gpu_free(x->g, x->buf[i]);
	free(x->buf);
	free(x->alias);
	free(x->fn);
	free(x->check);
	free(x);
}

static int fill_const(kj_gpu_exec *x, int i, struct kj_err *err)
{
	const kj_value *v = &x->plan->task->vals[i];
	unsigned char tmp[8] = {0};
	size_t bytes = 8;

	if (x->reference)
		memcpy(tmp, &v->cval, sizeof(double));
	else {
		kj_store(x->plan->vals[i].dtype, tmp, 0, v->cval);
		bytes = kj_dtype_size(x->plan->vals[i].dtype);
	}
	return kj_gpu_copy(x->g, x->buf[i], tmp, bytes, 0, err);
}

extern "C" int kj_gpu_exec_init(kj_gpu *g, const kj_plan *p, int reference, kj_gpu_exec **out,
				struct kj_err *err)
{
	const kj_task *t = p->task;
	kj_gpu_exec *x;
	int rc = 0;

	*out = NULL;
	x = (kj_gpu_exec *)calloc(1, sizeof(*x));
	if (!x)
		return kj_err_set(err, KJ_E_NOMEM, "out of memory");
	x->g = g;
	x->plan = p;
	x->reference = reference;
	x->buf = (void **)calloc((size_t)t->nvals + 1, sizeof(*x->buf));
	x->fn = (kj_cuda_op_fn *)calloc((size_t)t->nnodes + 1, sizeof(*x->fn));
	x->check = (kj_cuda_check_fn *)calloc((size_t)t->nnodes + 1, sizeof(*x->check));
	x->alias = (unsigned char *)calloc((size_t)t->nvals + 1, 1);
	if (!x->buf || !x->fn || !x->check || !x->alias) {
		kj_gpu_exec_free(x);
		return kj_err_set(err, KJ_E_NOMEM, "out of memory");
	}
	for (int n = 0; n < t->nnodes; n++) {
		const char *name = p->nodes[n].op->name;
		x->fn[n] = kj_cuda_op_find(name);
		x->check[n] = kj_cuda_op_find_check(name);
		if (!x->fn[n]) {
			kj_gpu_exec_free(x);
			return kj_err_set(err, KJ_E_UNSUPPORTED, "%s:%d:%d: op '%s' has no CUDA implementation",
					  t->path, t->nodes[n].loc.line, t->nodes[n].loc.col, name);
		}
	}
	/* a reshape is a view, as in PyTorch: its output shares the input's
	 * buffer (values are written once, by their node, so sharing is safe) */
	for (int n = 0; n < t->nnodes; n++) {
		const kj_bnode *bn = &p->nodes[n];
		/* a cast to the dtype it has is the tensor itself in PyTorch
		 * (x.to(x.dtype) is x); the reference's cast rounds, so not there */
		int same_cast = !reference && !strcmp(bn->op->name, "cast") && bn->nin >= 1 &&
				bn->in[0].dtype == bn->out.dtype;
		if ((!strcmp(bn->op->name, "reshape") || same_cast) && t->nodes[n].in[0] >= 0)
			x->alias[t->nodes[n].out] = 1;
	}
	for (int i = 0; i < t->nvals && !rc; i++) {
		size_t es = reference ? 8 : kj_dtype_size(p->vals[i].dtype);
		if (x->alias[i])
			continue;
		size_t bytes = (size_t)kj_shape_numel(&p->vals[i].shape) * es;
		/* a value never has fewer than 16 bytes, so any buffer takes vector loads */
		rc = kj_gpu_alloc(g, bytes < 16 ? 16 : bytes, &x->buf[i], err);
		if (!rc && t->vals[i].kind == KJ_V_CONST)
			rc = fill_const(x, i, err);
	}
	for (int n = 0; n < t->nnodes && !rc; n++)
		if (x->alias[t->nodes[n].out])
			x->buf[t->nodes[n].out] = x->buf[t->nodes[n].in[0]];
	if (rc) {
		kj_err_prefix(err, "GPU %s executor of %s", reference ? "reference" : "baseline", t->id);
		kj_gpu_exec_free(x);
		return rc;
	}
	*out = x;
	return 0;
}

extern "C" void *kj_gpu_exec_buf(kj_gpu_exec *x, int value)
{
	if (!x || value < 0 || value >= x->plan->task->nvals)
		return NULL;
	return x->buf[value];
}

extern "C" int kj_gpu_exec_rebind(kj_gpu_exec *x, int value, void *ptr)
{
	const kj_task *t;
	if (!x || value < 0 || value >= x->plan->task->nvals || x->alias[value] || !ptr)
		return -1;
	t = x->plan->task;
	x->buf[value] = ptr;
	/* views follow what they view, in node order (a view of a view) */
	for (int n = 0; n < t->nnodes; n++)
		if (x->alias[t->nodes[n].out])
			x->buf[t->nodes[n].out] = x->buf[t->nodes[n].in[0]];
	return 0;
}

/* Enqueues every node; with ev (nnodes + 1 events) records ev[0] before the
 * first node and ev[n + 1] after node n. */
static int run_nodes_(kj_gpu_exec *x, cudaEvent_t *ev, struct kj_err *err)
{
	const kj_plan *p = x->plan;
	const kj_task *t = p->task;
	kj_gpu *g = x->g;

	KJ_CUDA_CHECK(err, cudaSetDevice(g->device));
	if (ev)
		KJ_CUDA_CHECK(err, cudaEventRecord(ev[0], g->stream));
	for (int n = 0; n < t->nnodes; n++) {
		const kj_node *node = &t->nodes[n];
		const kj_bnode *bn = &p->nodes[n];
		const void *in[KJ_MAX_OPERANDS] = {0};
		void *out = x->buf[node->out];
		char msg[512] = "";
		int rc;

		if (x->alias[node->out]) { /* a view: nothing to run */
			if (ev)
				KJ_CUDA_CHECK(err, cudaEventRecord(ev[n + 1], g->stream));
			continue;
		}
		for (int k = 0; k < bn->nin; k++)
			in[k] = node->in[k] >= 0 ? x->buf[node->in[k]] : NULL;
		rc = x->fn[n](g, bn, in, out, x->reference, err);
		if (rc) {
			kj_err_prefix(err, "%s:%d:%d: %s", t->path, node->loc.line, node->loc.col,
				      bn->op->name);
			return rc;
		}
		if (x->reference && !kj_dtype_is_float(bn->out.dtype)) {
			int64_t m = kj_shape_numel(&bn->out.shape);
			if (m > 0)
				exec_round_k<<<kj_blocks(g, m, 256), 256, 0, g->stream>>>(
					(double *)out, (int)bn->out.dtype, m);
			KJ_LAUNCH_CHECK(err, "integer rounding");
		}
		if (x->check[n]) {
			rc = x->check[n](g, bn, in, x->reference, msg, sizeof(msg), err);
			if (rc < 0)
				return rc;
			if (rc)
				return kj_err_set(err, KJ_E_TYPE, "%s:%d:%d: %s", t->path, node->loc.line,
						  node->loc.col, msg);
		}
		if (ev)
			KJ_CUDA_CHECK(err, cudaEventRecord(ev[n + 1], g->stream));
	}
	return 0;
}

/* run_nodes_ with the task's TF32 policy in force for the baseline's ops
 * (g->tf32: a task with `tf32 allowed`; never the fp64 reference), and
 * strict f32 again afterwards for whatever runs next on the context. */
static int run_nodes(kj_gpu_exec *x, cudaEvent_t *ev, struct kj_err *err)
{
	int rc;
	x->g->tf32 = !x->reference && x->plan->task->tf32;
	rc = run_nodes_(x, ev, err);
	x->g->tf32 = 0;
	return rc;
}

extern "C" int kj_gpu_exec_run(kj_gpu_exec *x, struct kj_err *err)
{
	return run_nodes(x, NULL, err);
}

extern "C" int kj_gpu_exec_profile(kj_gpu_exec *x, int flush, double *node_ms,
				   struct kj_err *err)
{
	int nn = x->plan->task->nnodes, ne = 0, rc = 0;
	cudaEvent_t *ev = (cudaEvent_t *)calloc((size_t)nn + 1, sizeof(*ev));
	cudaError_t ce = cudaSuccess;

	if (!ev)
		return kj_err_set(err, KJ_E_NOMEM, "out of memory");
	KJ_CUDA_CHECK(err, cudaSetDevice(x->g->device));
	for (; ne <= nn && ce == cudaSuccess; ne++)
		ce = cudaEventCreate(&ev[ne]);
	if (ce != cudaSuccess) {
		ne--;
		rc = kj_err_set(err, KJ_E_CUDA, "cudaEventCreate: %s", cudaGetErrorString(ce));
	}
	if (!rc && flush)
		rc = kj_gpu_l2_flush(x->g, err);
	if (!rc)
		rc = run_nodes(x, ev, err);
	if (!rc && (ce = cudaEventSynchronize(ev[nn])) != cudaSuccess)
		rc = kj_err_set(err, KJ_E_CUDA, "cudaEventSynchronize: %s", cudaGetErrorString(ce));
	for (int n = 0; n < nn && !rc; n++) {
		float ms = 0.0f;
		if ((ce = cudaEventElapsedTime(&ms, ev[n], ev[n + 1])) != cudaSuccess)
			rc = kj_err_set(err, KJ_E_CUDA, "cudaEventElapsedTime: %s", cudaGetErrorString(ce));
		node_ms[n] = ms;
	}
	for (int i = 0; i < ne; i++)
		cudaEventDestroy(ev[i]);
	free(ev);
	return rc;
}
