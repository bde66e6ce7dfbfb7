/*
 * cuDNN's fused attention for the 16-bit eager baseline's sdpa, as PyTorch
 * runs sdpa on Hopper (its cuDNN attention backend): one operation graph
 * built with the cuDNN backend API (there is no cudnn-frontend header
 * here), which cuDNN's heuristics match to its fused flash-attention engine.
 *
 * The graph (tensors 4-D [b, h, rows, cols] with b = the flattened batch,
 * h = 1; every tensor 16-byte aligned; "v" = virtual, "val" = a host
 * scalar passed by value; f32 = CUDNN_DATA_FLOAT, io = the task's f16/bf16):
 *   Q  [b,1,L,E] io, strides [L*E, L*E, E, 1]          uid 1
 *   KT [b,1,E,S] io, strides [S*E, S*E, 1, E]          uid 2 (K read as K^T)
 *   V  [b,1,S,E] io, strides [S*E, S*E, E, 1]          uid 3
 *   O  [b,1,L,E] io, strides as Q                      uid 4
 *   scale [1,1,1,1] f32 val (a->scale)                 uid 5
 *   ninf  [1,1,1,1] f32 val (-inf), causal only        uid 6
 *   S1 = matmul(Q, KT)                  [b,1,L,S] f32 v (compute f32)
 *   S2 = pointwise MUL(S1, scale)       [b,1,L,S] f32 v
 *   causal only (top-left: key j seen by query i iff j <= i, the mask of
 *   kjm_attn_keys and of cudnn-frontend's causal_mask, for any L and S):
 *     R  = pointwise GEN_INDEX(S2), axis 2   [b,1,L,S] int32 v (math int32)
 *     C  = pointwise GEN_INDEX(S2), axis 3   [b,1,L,S] int32 v (math int32)
 *     M  = pointwise CMP_GE(R, C)            [b,1,L,S] bool v (math bool)
 *     S2 = pointwise BINARY_SELECT(S2, ninf, M)   [b,1,L,S] f32 v
 *   MX = reduction MAX(S2)              [b,1,L,1] f32 v, strides [L, L, 1, 1]
 *   D  = pointwise SUB(S2, MX)          [b,1,L,S] f32 v
 *   X  = pointwise EXP(D)               [b,1,L,S] f32 v
 *   SM = reduction ADD(X)               [b,1,L,1] f32 v
 *   LG = pointwise LOG(SM), ST = pointwise ADD(MX, LG)   [b,1,L,1] f32 v
 *        (the softmax statistics, unused here; cudnn-frontend adds them for
 *        inference too, so the first graph tried has them, the second not)
 *   P  = pointwise DIV(X, SM)           [b,1,L,S] io v (P rounded to the
 *        io dtype, the operand type the second matmul takes)
 *   O  = matmul(P, V)                   (compute f32)
 * Strides of the virtual [b,1,L,S] tensors: [L*S, L*S, S, 1].  Pointwise
 * and reduction math is f32 unless noted.  The engine configs come from
 * CUDNN_HEUR_MODE_A; the first whose execution plan finalizes (workspace up
 * to 1 GiB) is kept.
 *
 * Plans are cached per (dtype, batch, L, S, E, causal, scale) in g->attn;
 * a shape cuDNN refuses is remembered as refused.  The plan keeps every
 * descriptor it was built from until kj_cuda_attn_release.  A variant pack
 * is kept per plan and rebuilt when the buffers change.  The workspace is
 * one device buffer grown to the largest plan's need.  Nothing is printed
 * unless KJ_SDPA_DEBUG=1 is set (then one stderr line per decided shape).
 */
#include "ops/cuda/ops_attn_cudnn.h"

#include "ops/cuda/cudnn_check.h"
#include "kjudge/knobs.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KJA_SET(err, d, name, type, n, v) KJ_CUDNN_CHECK(err, cudnnBackendSetAttribute((d), (name), (type), (n), (v)))

#define KJA_KEEP 96 /* descriptors of one plan's graph (about 48 + the engine configs) */
#define KJA_MAX_PLANS 256
#define KJA_MAX_CFGS 16 /* engine configs tried per graph */
#define KJA_WS_CAP ((int64_t)1 << 30)
#define KJA_REPS 3

enum { KJA_UNDECIDED = 0, KJA_CUDNN, KJA_FUSED };
enum { KJA_UID_Q = 1, KJA_UID_K, KJA_UID_V, KJA_UID_O, KJA_UID_SCALE, KJA_UID_NINF, KJA_UID_VIRT = 100 };

struct kja_plan {
	kj_dtype dt;
	int64_t batch, L, S, E;
	int causal;
	double scale;
	int ok;     /* 1: plan ready; 0: cuDNN refused the shape */
	int choice; /* KJA_UNDECIDED, KJA_CUDNN or KJA_FUSED */
	float scale_v, ninf_v; /* the by-value scalars, read at each execution */
	cudnnBackendDescriptor_t plan, vpack;
	const void *vp_in[3];
	void *vp_out, *vp_ws;
	int64_t ws;
	int nkeep;
	cudnnBackendDescriptor_t keep[KJA_KEEP];
};

struct kja_ctx {
	cudnnHandle_t h;
	int broken; /* cudnnCreate failed: cuDNN serves nothing */
	struct kja_plan **plans;
	int n;
	void *ws;
	size_t ws_bytes;
	cudaEvent_t e0, e1;
};

int kj_sdpa_path_forced(void)
{
	const char *v = kj_knob_str("KJ_SDPA_PATH");
	if (!strcmp(v, "cudnn"))
		return KJ_SDPA_FORCE_CUDNN;
	if (!strcmp(v, "fused"))
		return KJ_SDPA_FORCE_FUSED;
	if (!strcmp(v, "gemm"))
		return KJ_SDPA_FORCE_GEMM;
	return KJ_SDPA_AUTO;
}

/* KJ_SDPA_DEBUG=1 in the environment: one line on stderr per shape when
 * its route is decided (cuDNN's refusal with the reason, or both timings),
 * to see on a GPU machine which route a bench shape takes. */
static int kja_debug(void)
{
	return kj_knob_int("KJ_SDPA_DEBUG") != 0;
}

/* Destroys what p holds (not p). */
static void plan_drop(struct kja_plan *p)
{
	if (p->vpack)
		cudnnBackendDestroyDescriptor(p->vpack);
	if (p->plan)
		cudnnBackendDestroyDescriptor(p->plan);
	while (p->nkeep > 0)
		cudnnBackendDestroyDescriptor(p->keep[--p->nkeep]);
	p->vpack = p->plan = NULL;
}

void kj_cuda_attn_release(kj_gpu *g)
{
	struct kja_ctx *c = (struct kja_ctx *)g->attn;
	if (!c)
		return;
	for (int i = 0; i < c->n; i++) {
		plan_drop(c->plans[i]);
		free(c->plans[i]);
	}
	free(c->plans);
	if (c->h)
		cudnnDestroy(c->h);
	if (c->ws)
		cudaFree(c->ws);
	if (c->e0)
		cudaEventDestroy(c->e0);
	if (c->e1)
		cudaEventDestroy(c->e1);
	free(c);
	g->attn = NULL;
}

/* ---- graph building ---- */

/* A new descriptor of type t, owned by p (destroyed by plan_drop). */
static int kja_new(struct kja_plan *p, cudnnBackendDescriptorType_t t, cudnnBackendDescriptor_t *d,
		   struct kj_err *err)
{
	*d = NULL;
	if (p->nkeep >= KJA_KEEP)
		return kj_err_set(err, KJ_E_INTERNAL, "cuDNN attention: more than %d descriptors", KJA_KEEP);
	KJ_CUDNN_CHECK(err, cudnnBackendCreateDescriptor(t, d));
	p->keep[p->nkeep++] = *d;
	return 0;
}

static int kja_tensor(struct kja_plan *p, int64_t uid, cudnnDataType_t dt, const int64_t dim[4],
		      const int64_t str[4], bool virt, bool byval, cudnnBackendDescriptor_t *t,
		      struct kj_err *err)
{
	const int64_t align = 16;
	int rc = kja_new(p, CUDNN_BACKEND_TENSOR_DESCRIPTOR, t, err);
	if (rc)
		return rc;
	KJA_SET(err, *t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt);
	KJA_SET(err, *t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dim);
	KJA_SET(err, *t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, str);
	KJA_SET(err, *t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid);
	KJA_SET(err, *t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align);
	KJA_SET(err, *t, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &virt);
	if (byval)
		KJA_SET(err, *t, CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &byval);
	KJ_CUDNN_CHECK(err, cudnnBackendFinalize(*t));
	return 0;
}

/* y = mode(x[, b[, t]]) with math precision prec (axis: GEN_INDEX's, else
 * -1); the operation goes to ops[(*nops)++]. */
static int kja_pointwise(struct kja_plan *p, cudnnPointwiseMode_t mode, cudnnDataType_t prec, int64_t axis,
			 cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t b, cudnnBackendDescriptor_t t,
			 cudnnBackendDescriptor_t y, cudnnBackendDescriptor_t *ops, int *nops,
			 struct kj_err *err)
{
	cudnnBackendDescriptor_t pw, op;
	int rc;
	if ((rc = kja_new(p, CUDNN_BACKEND_POINTWISE_DESCRIPTOR, &pw, err)))
		return rc;
	KJA_SET(err, pw, CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, 1, &mode);
	KJA_SET(err, pw, CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, 1, &prec);
	if (axis >= 0)
		KJA_SET(err, pw, CUDNN_ATTR_POINTWISE_AXIS, CUDNN_TYPE_INT64, 1, &axis);
	KJ_CUDNN_CHECK(err, cudnnBackendFinalize(pw));
	if ((rc = kja_new(p, CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, &op, err)))
		return rc;
	KJA_SET(err, op, CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &pw);
	KJA_SET(err, op, CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
	if (b)
		KJA_SET(err, op, CUDNN_ATTR_OPERATION_POINTWISE_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &b);
	if (t)
		KJA_SET(err, op, CUDNN_ATTR_OPERATION_POINTWISE_TDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &t);
	KJA_SET(err, op, CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y);
	KJ_CUDNN_CHECK(err, cudnnBackendFinalize(op));
	ops[(*nops)++] = op;
	return 0;
}

static int kja_reduction(struct kja_plan *p, cudnnReduceTensorOp_t how, cudnnBackendDescriptor_t x,
			 cudnnBackendDescriptor_t y, cudnnBackendDescriptor_t *ops, int *nops,
			 struct kj_err *err)
{
	const cudnnDataType_t f32 = CUDNN_DATA_FLOAT;
	cudnnBackendDescriptor_t rd, op;
	int rc;
	if ((rc = kja_new(p, CUDNN_BACKEND_REDUCTION_DESCRIPTOR, &rd, err)))
		return rc;
	KJA_SET(err, rd, CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, 1, &how);
	KJA_SET(err, rd, CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &f32);
	KJ_CUDNN_CHECK(err, cudnnBackendFinalize(rd));
	if ((rc = kja_new(p, CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR, &op, err)))
		return rc;
	KJA_SET(err, op, CUDNN_ATTR_OPERATION_REDUCTION_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &x);
	KJA_SET(err, op, CUDNN_ATTR_OPERATION_REDUCTION_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &y);
	KJA_SET(err, op, CUDNN_ATTR_OPERATION_REDUCTION_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &rd);
	KJ_CUDNN_CHECK(err, cudnnBackendFinalize(op));
	ops[(*nops)++] = op;
	return 0;
}

/* c = a @ b, f32 accumulation. */
static int kja_matmul(struct kja_plan *p, cudnnBackendDescriptor_t a, cudnnBackendDescriptor_t b,
		      cudnnBackendDescriptor_t c, cudnnBackendDescriptor_t *ops, int *nops, struct kj_err *err)
{
	const cudnnDataType_t f32 = CUDNN_DATA_FLOAT;
	cudnnBackendDescriptor_t mm, op;
	int rc;
	if ((rc = kja_new(p, CUDNN_BACKEND_MATMUL_DESCRIPTOR, &mm, err)))
		return rc;
	KJA_SET(err, mm, CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &f32);
	KJ_CUDNN_CHECK(err, cudnnBackendFinalize(mm));
	if ((rc = kja_new(p, CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR, &op, err)))
		return rc;
	KJA_SET(err, op, CUDNN_ATTR_OPERATION_MATMUL_ADESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &a);
	KJA_SET(err, op, CUDNN_ATTR_OPERATION_MATMUL_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &b);
	KJA_SET(err, op, CUDNN_ATTR_OPERATION_MATMUL_CDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &c);
	KJA_SET(err, op, CUDNN_ATTR_OPERATION_MATMUL_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &mm);
	KJ_CUDNN_CHECK(err, cudnnBackendFinalize(op));
	ops[(*nops)++] = op;
	return 0;
}

/* The operation graph of the header comment for p's shape, finalized, in
 * *graph (owned by p); stats: whether the softmax statistics are in it. */
static int kja_graph(cudnnHandle_t h, struct kja_plan *p, int stats, cudnnBackendDescriptor_t *graph,
		     struct kj_err *err)
{
	const cudnnDataType_t io = p->dt == KJ_F16 ? CUDNN_DATA_HALF : CUDNN_DATA_BFLOAT16;
	const cudnnDataType_t f32 = CUDNN_DATA_FLOAT, i32 = CUDNN_DATA_INT32, bl = CUDNN_DATA_BOOLEAN;
	const int64_t b = p->batch, L = p->L, S = p->S, E = p->E;
	const int64_t qd[4] = { b, 1, L, E }, qs[4] = { L * E, L * E, E, 1 };
	const int64_t kd[4] = { b, 1, E, S }, ks[4] = { S * E, S * E, 1, E };
	const int64_t vd[4] = { b, 1, S, E }, vs[4] = { S * E, S * E, E, 1 };
	const int64_t sd[4] = { b, 1, L, S }, ss[4] = { L * S, L * S, S, 1 };
	const int64_t rd[4] = { b, 1, L, 1 }, rs[4] = { L, L, 1, 1 };
	const int64_t one[4] = { 1, 1, 1, 1 };
	cudnnBackendDescriptor_t q, k, v, o, sc, ninf, s1, s2, s3, ri, ci, m, mx, d, x, sm, lg, st, pr;
	cudnnBackendDescriptor_t ops[16];
	int64_t uid = KJA_UID_VIRT;
	int nops = 0, rc;

	if ((rc = kja_tensor(p, KJA_UID_Q, io, qd, qs, false, false, &q, err)) ||
	    (rc = kja_tensor(p, KJA_UID_K, io, kd, ks, false, false, &k, err)) ||
	    (rc = kja_tensor(p, KJA_UID_V, io, vd, vs, false, false, &v, err)) ||
	    (rc = kja_tensor(p, KJA_UID_O, io, qd, qs, false, false, &o, err)) ||
	    (rc = kja_tensor(p, KJA_UID_SCALE, f32, one, one, false, true, &sc, err)) ||
	    (rc = kja_tensor(p, uid++, f32, sd, ss, true, false, &s1, err)) ||
	    (rc = kja_tensor(p, uid++, f32, sd, ss, true, false, &s2, err)))
		return rc;
	if ((rc = kja_matmul(p, q, k, s1, ops, &nops, err)) ||
	    (rc = kja_pointwise(p, CUDNN_POINTWISE_MUL, f32, -1, s1, sc, NULL, s2, ops, &nops, err)))
		return rc;
	if (p->causal) {
		if ((rc = kja_tensor(p, KJA_UID_NINF, f32, one, one, false, true, &ninf, err)) ||
		    (rc = kja_tensor(p, uid++, i32, sd, ss, true, false, &ri, err)) ||
		    (rc = kja_tensor(p, uid++, i32, sd, ss, true, false, &ci, err)) ||
		    (rc = kja_tensor(p, uid++, bl, sd, ss, true, false, &m, err)) ||
		    (rc = kja_tensor(p, uid++, f32, sd, ss, true, false, &s3, err)) ||
		    (rc = kja_pointwise(p, CUDNN_POINTWISE_GEN_INDEX, i32, 2, s2, NULL, NULL, ri, ops, &nops, err)) ||
		    (rc = kja_pointwise(p, CUDNN_POINTWISE_GEN_INDEX, i32, 3, s2, NULL, NULL, ci, ops, &nops, err)) ||
		    (rc = kja_pointwise(p, CUDNN_POINTWISE_CMP_GE, bl, -1, ri, ci, NULL, m, ops, &nops, err)) ||
		    (rc = kja_pointwise(p, CUDNN_POINTWISE_BINARY_SELECT, f32, -1, s2, ninf, m, s3, ops, &nops,
					err)))
			return rc;
		s2 = s3;
	}
	if ((rc = kja_tensor(p, uid++, f32, rd, rs, true, false, &mx, err)) ||
	    (rc = kja_tensor(p, uid++, f32, sd, ss, true, false, &d, err)) ||
	    (rc = kja_tensor(p, uid++, f32, sd, ss, true, false, &x, err)) ||
	    (rc = kja_tensor(p, uid++, f32, rd, rs, true, false, &sm, err)) ||
	    (rc = kja_tensor(p, uid++, io, sd, ss, true, false, &pr, err)) ||
	    (rc = kja_reduction(p, CUDNN_REDUCE_TENSOR_MAX, s2, mx, ops, &nops, err)) ||
	    (rc = kja_pointwise(p, CUDNN_POINTWISE_SUB, f32, -1, s2, mx, NULL, d, ops, &nops, err)) ||
	    (rc = kja_pointwise(p, CUDNN_POINTWISE_EXP, f32, -1, d, NULL, NULL, x, ops, &nops, err)) ||
	    (rc = kja_reduction(p, CUDNN_REDUCE_TENSOR_ADD, x, sm, ops, &nops, err)))
		return rc;
	if (stats &&
	    ((rc = kja_tensor(p, uid++, f32, rd, rs, true, false, &lg, err)) ||
	     (rc = kja_tensor(p, uid++, f32, rd, rs, true, false, &st, err)) ||
	     (rc = kja_pointwise(p, CUDNN_POINTWISE_LOG, f32, -1, sm, NULL, NULL, lg, ops, &nops, err)) ||
	     (rc = kja_pointwise(p, CUDNN_POINTWISE_ADD, f32, -1, mx, lg, NULL, st, ops, &nops, err))))
		return rc;
	if ((rc = kja_pointwise(p, CUDNN_POINTWISE_DIV, f32, -1, x, sm, NULL, pr, ops, &nops, err)) ||
	    (rc = kja_matmul(p, pr, v, o, ops, &nops, err)))
		return rc;
	if ((rc = kja_new(p, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, graph, err)))
		return rc;
	KJA_SET(err, *graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h);
	KJA_SET(err, *graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, nops, ops);
	KJ_CUDNN_CHECK(err, cudnnBackendFinalize(*graph));
	return 0;
}

/* p->plan from the first engine config of the heuristics whose plan
 * finalizes with a workspace under KJA_WS_CAP. */
static int kja_plan_for(cudnnHandle_t h, struct kja_plan *p, cudnnBackendDescriptor_t graph, struct kj_err *err)
{
	const cudnnBackendHeurMode_t mode = CUDNN_HEUR_MODE_A;
	cudnnBackendDescriptor_t heur, cfgs[KJA_MAX_CFGS];
	int64_t n = 0;
	int rc;

	if ((rc = kja_new(p, CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur, err)))
		return rc;
	KJA_SET(err, heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph);
	KJA_SET(err, heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode);
	KJ_CUDNN_CHECK(err, cudnnBackendFinalize(heur));
	KJ_CUDNN_CHECK(err, cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
						0, &n, NULL));
	if (n < 1)
		return kj_err_set(err, KJ_E_UNSUPPORTED, "cuDNN attention: the heuristics offer no engine");
	if (n > KJA_MAX_CFGS)
		n = KJA_MAX_CFGS;
	for (int64_t i = 0; i < n; i++)
		if ((rc = kja_new(p, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfgs[i], err)))
			return rc;
	KJ_CUDNN_CHECK(err, cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR,
						n, &n, cfgs));
	for (int64_t i = 0; i < n && i < KJA_MAX_CFGS; i++) {
		cudnnBackendDescriptor_t plan = NULL;
		int64_t ws = 0, got = 0;
		if (cudnnBackendCreateDescriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan) !=
		    CUDNN_STATUS_SUCCESS)
			continue;
		if (cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &h) ==
			    CUDNN_STATUS_SUCCESS &&
		    cudnnBackendSetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG,
					     CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfgs[i]) == CUDNN_STATUS_SUCCESS &&
		    cudnnBackendFinalize(plan) == CUDNN_STATUS_SUCCESS &&
		    cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1,
					     &got, &ws) == CUDNN_STATUS_SUCCESS &&
		    got == 1 && ws >= 0 && ws <= KJA_WS_CAP) {
			p->plan = plan;
			p->ws = ws;
			return 0;
		}
		cudnnBackendDestroyDescriptor(plan);
	}
	return kj_err_set(err, KJ_E_UNSUPPORTED, "cuDNN attention: no execution plan of %lld engine configs finalized",
			  (long long)n);
}

/* Builds p's plan: the graph with the softmax statistics, else without. */
static int kja_build(cudnnHandle_t h, struct kja_plan *p, struct kj_err *err)
{
	char why[2][KJ_ERR_MSG];
	for (int stats = 1; stats >= 0; stats--) {
		cudnnBackendDescriptor_t graph = NULL;
		struct kj_err e;
		kj_err_init(&e);
		if (!kja_graph(h, p, stats, &graph, &e) && !kja_plan_for(h, p, graph, &e))
			return 0;
		snprintf(why[stats], sizeof(why[stats]), "%s", e.msg);
		plan_drop(p);
	}
	return kj_err_set(err, KJ_E_UNSUPPORTED, "with the softmax statistics: %.400s; without: %.400s", why[1],
			  why[0]);
}

/* ---- plans of a context ---- */

/* g's attention state, made on first use; NULL when cuDNN is unusable
 * (its handle could not be made) or memory ran out. */
static struct kja_ctx *kja_ctx_get(kj_gpu *g)
{
	struct kja_ctx *c = (struct kja_ctx *)g->attn;
	if (!c) {
		c = (struct kja_ctx *)calloc(1, sizeof(*c));
		if (!c)
			return NULL;
		g->attn = c;
		if (cudnnCreate(&c->h) != CUDNN_STATUS_SUCCESS) {
			c->h = NULL;
			c->broken = 1;
		}
	}
	return c->broken ? NULL : c;
}

static int kja_serves(kj_dtype dt, const kjm_attn *a, const void *const *in, const void *out)
{
	if ((dt != KJ_F16 && dt != KJ_BF16) || a->E != a->Ev || a->E % 8 || a->E < 8 || a->E > 128)
		return 0;
	if (a->batch < 1 || a->batch > 65535 || a->L < 1 || a->S < 1 || a->L > INT32_MAX || a->S > INT32_MAX)
		return 0;
	if (!isfinite(a->scale))
		return 0;
	for (int i = 0; i < 3; i++)
		if ((uintptr_t)in[i] & 15)
			return 0;
	return ((uintptr_t)out & 15) == 0;
}

/* The plan of the shape (built now on its first call), or NULL when cuDNN
 * does not serve it. */
static struct kja_plan *kja_find(struct kja_ctx *c, kj_dtype dt, const kjm_attn *a)
{
	struct kja_plan *p;
	struct kj_err scratch;
	for (int i = 0; i < c->n; i++) {
		p = c->plans[i];
		if (p->dt == dt && p->batch == a->batch && p->L == a->L && p->S == a->S && p->E == a->E &&
		    p->causal == (a->causal != 0) && p->scale == a->scale)
			return p->ok ? p : NULL;
	}
	if (c->n >= KJA_MAX_PLANS)
		return NULL;
	if (c->n % 16 == 0) {
		struct kja_plan **np =
			(struct kja_plan **)realloc(c->plans, (size_t)(c->n + 16) * sizeof(*np));
		if (!np)
			return NULL;
		c->plans = np;
	}
	p = (struct kja_plan *)calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->dt = dt;
	p->batch = a->batch;
	p->L = a->L;
	p->S = a->S;
	p->E = a->E;
	p->causal = a->causal != 0;
	p->scale = a->scale;
	p->scale_v = (float)a->scale;
	p->ninf_v = -INFINITY;
	kj_err_init(&scratch);
	p->ok = kja_build(c->h, p, &scratch) == 0;
	c->plans[c->n++] = p;
	if (!p->ok && kja_debug())
		fprintf(stderr, "kjudge: sdpa %s batch=%lld L=%lld S=%lld E=%lld causal=%d: no cuDNN plan: %s\n",
			kj_dtype_name(dt), (long long)a->batch, (long long)a->L, (long long)a->S,
			(long long)a->E, p->causal, scratch.msg);
	return p->ok ? p : NULL;
}

/* Enqueues p on g->stream.  Returns 0, 1 when cuDNN refused (nothing was
 * enqueued, the CUDA context is fine) or KJ_E_CUDA with err set. */
static int kja_exec(kj_gpu *g, struct kja_ctx *c, struct kja_plan *p, const void *const *in, void *out,
		    struct kj_err *err)
{
	cudnnStatus_t st;
	if ((size_t)p->ws > c->ws_bytes) {
		if (c->ws) {
			cudaFree(c->ws);
			c->ws = NULL;
			c->ws_bytes = 0;
		}
		if (cudaMalloc(&c->ws, (size_t)p->ws) != cudaSuccess) {
			c->ws = NULL;
			(void)cudaGetLastError(); /* out of memory is not sticky */
			return 1;
		}
		c->ws_bytes = (size_t)p->ws;
	}
	if (!p->vpack || p->vp_in[0] != in[0] || p->vp_in[1] != in[1] || p->vp_in[2] != in[2] ||
	    p->vp_out != out || p->vp_ws != c->ws) {
		int64_t uids[6] = { KJA_UID_Q, KJA_UID_K, KJA_UID_V, KJA_UID_O, KJA_UID_SCALE, KJA_UID_NINF };
		void *ptrs[6] = { (void *)in[0], (void *)in[1], (void *)in[2], out, &p->scale_v, &p->ninf_v };
		int64_t n = p->causal ? 6 : 5;
		void *ws = c->ws;
		cudnnBackendDescriptor_t vp = NULL;
		if (p->vpack)
			cudnnBackendDestroyDescriptor(p->vpack);
		p->vpack = NULL;
		if (cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &vp) != CUDNN_STATUS_SUCCESS)
			return 1;
		if (cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, n, uids) !=
			    CUDNN_STATUS_SUCCESS ||
		    cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, n,
					     ptrs) != CUDNN_STATUS_SUCCESS ||
		    cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &ws) !=
			    CUDNN_STATUS_SUCCESS ||
		    cudnnBackendFinalize(vp) != CUDNN_STATUS_SUCCESS) {
			cudnnBackendDestroyDescriptor(vp);
			return 1;
		}
		p->vpack = vp;
		p->vp_in[0] = in[0];
		p->vp_in[1] = in[1];
		p->vp_in[2] = in[2];
		p->vp_out = out;
		p->vp_ws = c->ws;
	}
	if (cudnnSetStream(c->h, g->stream) != CUDNN_STATUS_SUCCESS)
		return 1;
	st = cudnnBackendExecute(c->h, p->plan, p->vpack);
	if (st != CUDNN_STATUS_SUCCESS) {
		cudaError_t ce = cudaGetLastError();
		if (ce != cudaSuccess) {
			kj_err_set(err, KJ_E_CUDA, "cudnnBackendExecute failed: %s (%s)", cudnnGetErrorString(st),
				   cudaGetErrorString(ce));
			if (err)
				err->vendor_status = (int)st;
			return KJ_E_CUDA;
		}
		return 1;
	}
	return 0;
}

int kj_sdpa_cudnn(kj_gpu *g, kj_dtype dt, const kjm_attn *a, const void *const *in, void *out,
		  int *handled, struct kj_err *err)
{
	struct kja_ctx *c;
	struct kja_plan *p;
	int rc;
	*handled = 0;
	if (!kja_serves(dt, a, in, out) || !(c = kja_ctx_get(g)) || !(p = kja_find(c, dt, a)))
		return 0;
	rc = kja_exec(g, c, p, in, out, err);
	if (rc == 1) {
		p->ok = 0; /* refused at execution: not retried */
		if (kja_debug())
			fprintf(stderr, "kjudge: sdpa %s batch=%lld L=%lld S=%lld E=%lld causal=%d: cuDNN refused "
				"to execute its plan (or no workspace)\n",
				kj_dtype_name(dt), (long long)a->batch, (long long)a->L, (long long)a->S,
				(long long)a->E, p->causal);
		return 0;
	}
	if (rc == 0) {
		*handled = 1;
		g->sdpa_path = "cudnn";
	}
	return rc;
}

/* ---- the choice between cuDNN and the own fused kernel ---- */

/* *ms = the median of KJA_REPS timed runs after one warm-up, of p (fused
 * NULL) or of fused.  Returns as kja_exec. */
static int kja_time(kj_gpu *g, struct kja_ctx *c, struct kja_plan *p, kj_sdpa_fused_fn fused,
		    const kjm_attn *a, const void *const *in, void *out, float *ms, struct kj_err *err)
{
	float t[KJA_REPS];
	int rc;
	for (int i = -1; i < KJA_REPS; i++) {
		if (i >= 0)
			KJ_CUDA_CHECK(err, cudaEventRecord(c->e0, g->stream));
		rc = fused ? fused(g, a, in, out, err) : kja_exec(g, c, p, in, out, err);
		if (rc)
			return rc;
		if (i >= 0) {
			KJ_CUDA_CHECK(err, cudaEventRecord(c->e1, g->stream));
			KJ_CUDA_CHECK(err, cudaEventSynchronize(c->e1));
			KJ_CUDA_CHECK(err, cudaEventElapsedTime(&t[i], c->e0, c->e1));
		}
	}
	for (int i = 1; i < KJA_REPS; i++)
		for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
			float s = t[j];
			t[j] = t[j - 1];
			t[j - 1] = s;
		}
	*ms = t[KJA_REPS / 2];
	return 0;
}

int kj_sdpa_cudnn_pick(kj_gpu *g, kj_dtype dt, const kjm_attn *a, const void *const *in, void *out,
		       kj_sdpa_fused_fn fused, const char *fused_name, int *handled, struct kj_err *err)
{
	struct kja_ctx *c;
	struct kja_plan *p;
	float t_cudnn = 0, t_fused = 0;
	int rc;

	*handled = 0;
	if (kj_sdpa_path_forced() == KJ_SDPA_FORCE_CUDNN || !fused)
		return kj_sdpa_cudnn(g, dt, a, in, out, handled, err);
	if (!kja_serves(dt, a, in, out) || !(c = kja_ctx_get(g)) || !(p = kja_find(c, dt, a)))
		return 0;
	if (p->choice == KJA_UNDECIDED) {
		if (!c->e0 && cudaEventCreate(&c->e0) != cudaSuccess) {
			c->e0 = NULL;
			return kj_err_set(err, KJ_E_CUDA, "cudaEventCreate failed for the sdpa path timing");
		}
		if (!c->e1 && cudaEventCreate(&c->e1) != cudaSuccess) {
			c->e1 = NULL;
			return kj_err_set(err, KJ_E_CUDA, "cudaEventCreate failed for the sdpa path timing");
		}
		rc = kja_time(g, c, p, NULL, a, in, out, &t_cudnn, err);
		if (rc == 1) {
			p->ok = 0;
			return 0;
		}
		if (rc || (rc = kja_time(g, c, p, fused, a, in, out, &t_fused, err)))
			return rc;
		p->choice = t_cudnn < t_fused ? KJA_CUDNN : KJA_FUSED;
		if (kja_debug())
			fprintf(stderr,
				"kjudge: sdpa %s batch=%lld L=%lld S=%lld E=%lld causal=%d: cudnn %.4f ms, "
				"%s %.4f ms: %s\n",
				kj_dtype_name(dt), (long long)a->batch, (long long)a->L, (long long)a->S,
				(long long)a->E, p->causal, t_cudnn, fused_name, t_fused,
				p->choice == KJA_CUDNN ? "cudnn" : fused_name);
	}
	if (p->choice == KJA_FUSED) {
		if ((rc = fused(g, a, in, out, err)))
			return rc;
		*handled = 1;
		g->sdpa_path = fused_name;
		return 0;
	}
	return kj_sdpa_cudnn(g, dt, a, in, out, handled, err);
}

extern "C" const char *kj_gpu_sdpa_path(const kj_gpu *g)
{
	return g && g->sdpa_path ? g->sdpa_path : "";
}
