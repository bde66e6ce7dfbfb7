/*
 * CUDA baseline and fp64 reference of table E (src/ops/table_e.h): rand_like,
 * randn_like and the comparisons less, less_equal, greater, greater_equal.
 *
 * rand_like: one thread per Philox4x32-10 block (four consecutive output
 * elements), the block computed by table_e.h's kje_rand_block (the same
 * integer code as the CPU kernels, so the bits agree), the four uniforms
 * written with one 16-byte store (two for the reference's doubles) when the
 * block is whole and the output 16-byte aligned (vec). The values are
 * multiples of 2^-24 below 1, exact in f32 and in double, so baseline and
 * reference agree bit for bit.
 *
 * randn_like: one thread per block (four elements: two Box-Muller pairs,
 * each giving its cosine and its sine), in float with logf, sqrtf and one
 * sincospif(2 u2) per pair (2 u2 is exact), the four values written as
 * rand_like's are (the reference: log, sqrt, sincospi in double).
 *
 * Comparisons: each operand is read by its runtime dtype (kjd_load),
 * converted to the promoted dtype of the two (kjd_round_to, as the CPU
 * kernels do with kj_round_to) and compared; the result is a bool byte
 * (baseline) or 0.0/1.0 (reference). An operand with the output's shape is
 * read at the element's own index, a one-element one at index 0, anything
 * else through broadcast strides. Nothing here allocates.
 */
#include "ops/cuda/ops_common.cuh"

extern "C" {
#include "ops/table_e.h"
}

/* ---- rand_like ---- */

template <class T>
__global__ void rand_like_k(T *__restrict__ y, int64_t total, uint64_t seed, uint64_t offset,
			     int vec)
{
	int64_t nblk = (total + 3) / 4, stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t b = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; b < nblk; b += stride) {
		uint32_t w[4];
		T v[4];
		int64_t e = 4 * b;
		kje_rand_block(seed, offset + (uint64_t)b, w);
#pragma unroll
		for (int k = 0; k < 4; k++)
			v[k] = (T)(w[k] >> 8) * (T)KJE_2M24;
		if (vec && e + 4 <= total) {
			if (sizeof(T) == 4) {
				*(float4 *)(void *)(y + e) = make_float4((float)v[0], (float)v[1], (float)v[2],
									 (float)v[3]);
			} else {
				double2 *p = (double2 *)(void *)(y + e);
				p[0] = make_double2((double)v[0], (double)v[1]);
				p[1] = make_double2((double)v[2], (double)v[3]);
			}
		} else {
			for (int k = 0; e + k < total; k++)
				y[e + k] = v[k];
		}
	}
}

/* ---- randn_like ---- */

__device__ __forceinline__ void kje_sincos2pi(float u, float *s, float *c)
{
	sincospif(2.0f * u, s, c);
}
__device__ __forceinline__ void kje_sincos2pi(double u, double *s, double *c)
{
	sincospi(2.0 * u, s, c);
}

/* One thread per Philox block: elements 4b .. 4b + 3, pair p giving 4b + 2p
 * (its cosine) and 4b + 2p + 1 (its sine). */
template <class T>
__global__ void randn_like_k(T *__restrict__ y, int64_t total, uint64_t seed, uint64_t offset,
			      int vec)
{
	int64_t nblk = (total + 3) / 4, stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t b = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; b < nblk; b += stride) {
		uint32_t w[4];
		T v[4];
		int64_t e = 4 * b;
		kje_rand_block(seed, offset + (uint64_t)b, w);
#pragma unroll
		for (int p = 0; p < 2; p++) {
			uint32_t m1, m2;
			T r, sn, cs;
			kje_randn_pair(w, p, &m1, &m2);
			r = m_sqrt((T)-2 * m_log((T)m1 * (T)KJE_2M24));
			kje_sincos2pi((T)m2 * (T)KJE_2M24, &sn, &cs);
			v[2 * p] = r * cs;
			v[2 * p + 1] = r * sn;
		}
		if (vec && e + 4 <= total) {
			if (sizeof(T) == 4) {
				*(float4 *)(void *)(y + e) = make_float4((float)v[0], (float)v[1], (float)v[2],
									 (float)v[3]);
			} else {
				double2 *q = (double2 *)(void *)(y + e);
				q[0] = make_double2((double)v[0], (double)v[1]);
				q[1] = make_double2((double)v[2], (double)v[3]);
			}
		} else {
			for (int k = 0; e + k < total; k++)
				y[e + k] = v[k];
		}
	}
}

/* rand_like (normal 0) or randn_like (1): f32 of the output's shape (double
 * buffers in the reference), a thread per Philox block of 4 outputs. */
static int random_run(kj_gpu *g, const kj_bnode *n, void *out, int reference, int normal,
		      struct kj_err *err)
{
	const char *name = normal ? "randn_like" : "rand_like";
	int64_t total = kjo_numel(&n->out.shape), nblk = (total + 3) / 4;
	uint64_t seed = (uint64_t)kjo_attr_i(n, KJE_RAND_SEED, 0);
	uint64_t off = (uint64_t)kjo_attr_i(n, KJE_RAND_OFFSET, 0);
	int vec = kj_aligned16(out);
	unsigned blocks;
	if (total == 0)
		return 0;
	if (n->out.dtype != KJ_F32)
		return kj_err_set(err, KJ_E_UNSUPPORTED, "%s: output dtype %s (expected f32)", name,
				  kj_dtype_name(n->out.dtype));
	blocks = kj_blocks(g, nblk, 256);
	if (normal && reference)
		randn_like_k<double><<<blocks, 256, 0, g->stream>>>((double *)out, total, seed, off, vec);
	else if (normal)
		randn_like_k<float><<<blocks, 256, 0, g->stream>>>((float *)out, total, seed, off, vec);
	else if (reference)
		rand_like_k<double><<<blocks, 256, 0, g->stream>>>((double *)out, total, seed, off, vec);
	else
		rand_like_k<float><<<blocks, 256, 0, g->stream>>>((float *)out, total, seed, off, vec);
	KJ_LAUNCH_CHECK(err, name);
	return 0;
}

int kj_cuda_rand_like(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
		      int reference, struct kj_err *err)
{
	(void)in;
	return random_run(g, n, out, reference, 0, err);
}

int kj_cuda_randn_like(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
		       int reference, struct kj_err *err)
{
	(void)in;
	return random_run(g, n, out, reference, 1, err);
}

/* ---- comparisons ---- */

/* How an operand is indexed from an output index. */
enum { KJE_IX_SAME, KJE_IX_ONE, KJE_IX_BCAST };

struct kje_cmp_geom {
	int rank, ia, ib; /* ia, ib: KJE_IX_* of a and b */
	int adt, bdt, pdt, odt;
	int64_t d[KJ_MAX_RANK], sa[KJ_MAX_RANK], sb[KJ_MAX_RANK];
};

__device__ __forceinline__ int64_t cmp_offset(const kje_cmp_geom &g, int ix, const int64_t *st,
					      int64_t e)
{
	int64_t o = 0;
	if (ix == KJE_IX_SAME)
		return e;
	if (ix == KJE_IX_ONE)
		return 0;
	for (int k = g.rank - 1; k >= 0; k--) {
		int64_t q = e / g.d[k];
		o += (e - q * g.d[k]) * st[k];
		e = q;
	}
	return o;
}

template <int KIND>
__global__ void compare_k(const void *a, const void *b, void *y, int64_t total, kje_cmp_geom g)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += stride) {
		double va = kjd_round_to(g.pdt, kjd_load(g.adt, a, (size_t)cmp_offset(g, g.ia, g.sa, e)));
		double vb = kjd_round_to(g.pdt, kjd_load(g.bdt, b, (size_t)cmp_offset(g, g.ib, g.sb, e)));
		kjd_store(g.odt, y, (size_t)e, kje_compare(KIND, va, vb) ? 1.0 : 0.0);
	}
}

/* The baseline's common case: a full-shape float operand a (f32, f16 or
 * bf16, also the promoted type, so rounding is the identity) against a
 * full-shape b of the same type or one element b of any type (a literal:
 * rounded to a's type once).  Each thread takes 16-byte words of a (and b)
 * and stores the matching 4- or 8-byte word of bools (the last total % V
 * elements one by one, by the first thread); comparing in float
 * is exact for these types, NaN compares false as in double. */
template <int KIND>
__device__ __forceinline__ unsigned char cmp_f(float a, float b)
{
	return KIND == KJE_LT ? a < b : KIND == KJE_LE ? a <= b : KIND == KJE_GT ? a > b : a >= b;
}

template <class E>
__device__ __forceinline__ float cmp_to_f(E v);
template <>
__device__ __forceinline__ float cmp_to_f<float>(float v)
{
	return v;
}
template <>
__device__ __forceinline__ float cmp_to_f<__half>(__half v)
{
	return __half2float(v);
}
template <>
__device__ __forceinline__ float cmp_to_f<__nv_bfloat16>(__nv_bfloat16 v)
{
	return __bfloat162float(v);
}

template <int KIND, class E, class CW, bool SB>
__global__ void compare_vec_k(const uint4 *__restrict__ a, const void *__restrict__ b, CW *__restrict__ y,
			      int64_t nw, int64_t total, int bdt, int pdt)
{
	constexpr int V = 16 / sizeof(E);
	float b0 = 0.0f;
	if (SB)
		b0 = (float)kjd_round_to(pdt, kjd_load(bdt, b, 0));
	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < nw;
	     i += (int64_t)gridDim.x * blockDim.x) {
		uint4 av = a[i], bv;
		if (!SB)
			bv = ((const uint4 *)b)[i];
		const E *ae = (const E *)&av, *be = (const E *)&bv;
		CW r;
		unsigned char *rb = (unsigned char *)&r;
#pragma unroll
		for (int t = 0; t < V; t++)
			rb[t] = cmp_f<KIND>(cmp_to_f<E>(ae[t]), SB ? b0 : cmp_to_f<E>(be[t]));
		y[i] = r;
	}
	if (blockIdx.x == 0 && threadIdx.x == 0) /* the last total % V elements */
		for (int64_t e = nw * V; e < total; e++)
			((unsigned char *)y)[e] = cmp_f<KIND>(cmp_to_f<E>(((const E *)a)[e]),
							      SB ? b0 : cmp_to_f<E>(((const E *)b)[e]));
}

template <int KIND, class E, class CW>
static void compare_vec_launch(kj_gpu *g, const void *a, const void *b, void *y, int64_t nw, int64_t total,
			       bool sb, int bdt, int pdt)
{
	unsigned bl = kj_blocks(g, nw, 256);
	if (sb)
		compare_vec_k<KIND, E, CW, true><<<bl, 256, 0, g->stream>>>((const uint4 *)a, b, (CW *)y, nw,
									     total, bdt, pdt);
	else
		compare_vec_k<KIND, E, CW, false><<<bl, 256, 0, g->stream>>>((const uint4 *)a, b, (CW *)y, nw,
									      total, bdt, pdt);
}

template <int KIND>
static void compare_vec_dt(kj_gpu *g, int adt, const void *a, const void *b, void *y, int64_t total,
			   bool sb, int bdt, int pdt)
{
	if (adt == KJ_F32)
		compare_vec_launch<KIND, float, unsigned>(g, a, b, y, total / 4, total, sb, bdt, pdt);
	else if (adt == KJ_F16)
		compare_vec_launch<KIND, __half, unsigned long long>(g, a, b, y, total / 8, total, sb, bdt, pdt);
	else
		compare_vec_launch<KIND, __nv_bfloat16, unsigned long long>(g, a, b, y, total / 8, total, sb, bdt,
									     pdt);
}

/* Whether compare_vec_k serves the comparison (then launched): *kind is
 * mirrored when the one-element operand is the first. */
static bool compare_vec(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out, int kind,
			int64_t total, const kje_cmp_geom *gm)
{
	int ia = gm->ia, ib = gm->ib, adt = gm->adt, bdt = gm->bdt;
	const void *a = in[0], *b = in[1];
	(void)n;
	if (ia == KJE_IX_ONE && ib == KJE_IX_SAME && total > 1) { /* c > x is x < c */
		static const int mirror[4] = {KJE_GT, KJE_GE, KJE_LT, KJE_LE};
		kind = mirror[kind];
		a = in[1];
		b = in[0];
		ia = KJE_IX_SAME;
		ib = KJE_IX_ONE;
		adt = gm->bdt;
		bdt = gm->adt;
	}
	if (ia != KJE_IX_SAME || (adt != KJ_F32 && adt != KJ_F16 && adt != KJ_BF16) || gm->pdt != adt)
		return false;
	bool sb = ib == KJE_IX_ONE && total > 1;
	if (!sb && (ib != KJE_IX_SAME || bdt != adt))
		return false;
	int v = adt == KJ_F32 ? 4 : 8;
	if (total < v || (((uintptr_t)a | (uintptr_t)out | (sb ? 0 : (uintptr_t)b)) & 15))
		return false;
	switch (kind) {
	case KJE_LT:
		compare_vec_dt<KJE_LT>(g, adt, a, b, out, total, sb, bdt, gm->pdt);
		break;
	case KJE_LE:
		compare_vec_dt<KJE_LE>(g, adt, a, b, out, total, sb, bdt, gm->pdt);
		break;
	case KJE_GT:
		compare_vec_dt<KJE_GT>(g, adt, a, b, out, total, sb, bdt, gm->pdt);
		break;
	default:
		compare_vec_dt<KJE_GE>(g, adt, a, b, out, total, sb, bdt, gm->pdt);
		break;
	}
	return true;
}

static int operand_ix(const kj_shape *s, const kj_shape *os)
{
	if (kj_shape_eq(s, os))
		return KJE_IX_SAME;
	if (kjo_numel(s) == 1)
		return KJE_IX_ONE;
	return KJE_IX_BCAST;
}

static int run_compare(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
		       int reference, int kind, struct kj_err *err)
{
	const kj_shape *os = &n->out.shape;
	int64_t total = kjo_numel(os);
	kje_cmp_geom gm;
	unsigned blocks;
	if (total == 0)
		return 0;
	memset(&gm, 0, sizeof(gm));
	gm.rank = os->rank;
	for (int i = 0; i < os->rank; i++)
		gm.d[i] = os->d[i];
	kjo_bcast_strides(&n->in[0].shape, os, gm.sa);
	kjo_bcast_strides(&n->in[1].shape, os, gm.sb);
	gm.ia = operand_ix(&n->in[0].shape, os);
	gm.ib = operand_ix(&n->in[1].shape, os);
	gm.adt = kj_buf_dt(n->in[0].dtype, reference);
	gm.bdt = kj_buf_dt(n->in[1].dtype, reference);
	gm.pdt = (int)kj_promote(&n->in[0], &n->in[1]);
	gm.odt = kj_buf_dt(KJ_BOOL, reference);
	if (!reference && compare_vec(g, n, in, out, kind, total, &gm)) {
		KJ_LAUNCH_CHECK(err, n->op->name);
		return 0;
	}
	blocks = kj_blocks(g, total, 256);
	switch (kind) {
	case KJE_LT:
		compare_k<KJE_LT><<<blocks, 256, 0, g->stream>>>(in[0], in[1], out, total, gm);
		break;
	case KJE_LE:
		compare_k<KJE_LE><<<blocks, 256, 0, g->stream>>>(in[0], in[1], out, total, gm);
		break;
	case KJE_GT:
		compare_k<KJE_GT><<<blocks, 256, 0, g->stream>>>(in[0], in[1], out, total, gm);
		break;
	default:
		compare_k<KJE_GE><<<blocks, 256, 0, g->stream>>>(in[0], in[1], out, total, gm);
		break;
	}
	KJ_LAUNCH_CHECK(err, n->op->name);
	return 0;
}

#define KJE_CUDA_CMP(name, kind) \
	int kj_cuda_##name(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out, \
			   int reference, struct kj_err *err) \
	{ \
		return run_compare(g, n, in, out, reference, kind, err); \
	}
KJE_CUDA_CMP(less, KJE_LT)
KJE_CUDA_CMP(less_equal, KJE_LE)
KJE_CUDA_CMP(greater, KJE_GT)
KJE_CUDA_CMP(greater_equal, KJE_GE)
