/*
 * Output checks on the device: byte equality (inputs left unchanged) and the
 * elementwise comparison of the CPU track (compare() in src/judge/judge.c),
 * with the same verdict per element.  The tolerance test and the sums use
 * __dadd_rn/__dmul_rn, which never fuse, so an element on the edge of the
 * tolerance gets the CPU's verdict.  The sums are reduced in two passes (one
 * partial per block in the context's scratch, then one block in a fixed
 * order) instead of with floating-point atomics: the same inputs give the
 * same bits every time, so a verdict's cosine or L1 does not wobble between
 * runs.  Their order still differs from the CPU loop's, so they agree with
 * the CPU to rounding, not bit for bit; counts, first_bad, expected, got and
 * the maxima agree exactly.
 */
#include "ops/cuda/gpu_internal.h"
#include "ops/cuda/dtype_dev.h"

#include <string.h>

#define KJ_CMP_BLOCK 256
#define KJ_NONE 0xffffffffffffffffull

struct cmp_part {
	unsigned long long nbad, first_bad, nfbad;
	double max_abs, max_rel, ratio, dot, gg, rr, l1num, l1den, sq;
};

struct cmp_result {
	struct cmp_part p;
	double expected, got;
};

__device__ __forceinline__ void part_zero(cmp_part *p)
{
	p->nbad = p->nfbad = 0;
	p->first_bad = KJ_NONE;
	p->max_abs = p->max_rel = p->ratio = p->dot = p->gg = p->rr = p->l1num = p->l1den = p->sq = 0.0;
}

/* Merges q into p; every merge is in a fixed order, see the file comment. */
__device__ __forceinline__ void part_merge(cmp_part *p, const cmp_part *q)
{
	p->nbad += q->nbad;
	p->nfbad += q->nfbad;
	if (q->first_bad < p->first_bad)
		p->first_bad = q->first_bad;
	if (q->max_abs > p->max_abs)
		p->max_abs = q->max_abs;
	if (q->max_rel > p->max_rel)
		p->max_rel = q->max_rel;
	if (q->ratio > p->ratio)
		p->ratio = q->ratio;
	p->dot = __dadd_rn(p->dot, q->dot);
	p->gg = __dadd_rn(p->gg, q->gg);
	p->rr = __dadd_rn(p->rr, q->rr);
	p->l1num = __dadd_rn(p->l1num, q->l1num);
	p->l1den = __dadd_rn(p->l1den, q->l1den);
	p->sq = __dadd_rn(p->sq, q->sq);
}

__device__ __forceinline__ void part_shfl_down(cmp_part *q, const cmp_part *p, int off)
{
	const unsigned m = 0xffffffffu;
	q->nbad = __shfl_down_sync(m, p->nbad, off);
	q->nfbad = __shfl_down_sync(m, p->nfbad, off);
	q->first_bad = __shfl_down_sync(m, p->first_bad, off);
	q->max_abs = __shfl_down_sync(m, p->max_abs, off);
	q->max_rel = __shfl_down_sync(m, p->max_rel, off);
	q->ratio = __shfl_down_sync(m, p->ratio, off);
	q->dot = __shfl_down_sync(m, p->dot, off);
	q->gg = __shfl_down_sync(m, p->gg, off);
	q->rr = __shfl_down_sync(m, p->rr, off);
	q->l1num = __shfl_down_sync(m, p->l1num, off);
	q->l1den = __shfl_down_sync(m, p->l1den, off);
	q->sq = __shfl_down_sync(m, p->sq, off);
}

/* Reduces one part per thread to thread 0's (blockDim.x a multiple of 32,
 * at most 1024). */
__device__ void block_reduce(cmp_part *p)
{
	__shared__ cmp_part warps[32];
	int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
	cmp_part q;

	for (int off = 16; off > 0; off >>= 1) {
		part_shfl_down(&q, p, off);
		part_merge(p, &q);
	}
	if (lane == 0)
		warps[w] = *p;
	__syncthreads();
	if (w == 0) {
		if (lane < nw)
			*p = warps[lane];
		else
			part_zero(p);
		for (int off = 16; off > 0; off >>= 1) {
			part_shfl_down(&q, p, off);
			part_merge(p, &q);
		}
	}
}

/* Element i as compare() sees it: g, and r rounded to the dtype for
 * integers.  Returns 0 when the element passes, 1 when it fails, 2 when it
 * fails on a NaN/Inf disagreement (a float element; counted in nfbad). */
template <int T>
__device__ __forceinline__ int cmp_elem(const void *got, const double *ref, size_t i, double atol,
					double rtol, double *gp, double *rp, cmp_part *p)
{
	const bool isf = T == KJ_F32 || T == KJ_F16 || T == KJ_BF16 || T == KJ_F8E4M3 || T == KJD_F64;
	double r = ref[i], g;
	int bad;

	if (T == KJ_BOOL && ((const unsigned char *)got)[i] > 1)
		g = __longlong_as_double(0x7ff8000000000000ll);
	else
		g = kjd_load(T, got, i);
	if (!isf) {
		double rr = kjd_round_to(T, r);
		bad = !(g == rr);
		r = rr;
		if (p && !isnan(g)) {
			double d = fabs(__dsub_rn(g, r));
			if (d > p->max_abs)
				p->max_abs = d;
		}
	} else if (isnan(r) || isnan(g)) {
		bad = isnan(r) && isnan(g) ? 0 : 2;
	} else if (isinf(r) || isinf(g)) {
		bad = r != g ? 2 : 0;
	} else {
		double d = fabs(__dsub_rn(g, r)), ar = fabs(r), tl = __dadd_rn(atol, __dmul_rn(rtol, ar));
		bad = !(d <= tl);
		if (p) {
			/* the worst error over the tolerance, as compare() computes it */
			double q = d == 0 ? 0.0 : tl > 0 ? __ddiv_rn(d, tl) : __longlong_as_double(0x7ff0000000000000ll);
			if (q > p->ratio)
				p->ratio = q;
			if (d > p->max_abs)
				p->max_abs = d;
			if (r != 0 && __ddiv_rn(d, ar) > p->max_rel)
				p->max_rel = __ddiv_rn(d, ar);
			p->dot = __dadd_rn(p->dot, __dmul_rn(g, r));
			p->gg = __dadd_rn(p->gg, __dmul_rn(g, g));
			p->rr = __dadd_rn(p->rr, __dmul_rn(r, r));
			p->l1num = __dadd_rn(p->l1num, d);
			p->l1den = __dadd_rn(p->l1den, ar);
			p->sq = __dadd_rn(p->sq, __dmul_rn(d, d));
		}
	}
	*gp = g;
	*rp = r;
	return bad;
}

template <int T>
__global__ void cmp_kernel(const void *got, const double *ref, size_t n, double atol, double rtol,
			   cmp_part *parts)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	size_t stride = (size_t)gridDim.x * blockDim.x;
	cmp_part p;
	double g, r;

	part_zero(&p);
	for (; i < n; i += stride) {
		int bad = cmp_elem<T>(got, ref, i, atol, rtol, &g, &r, &p);
		if (bad) {
			p.nbad++;
			p.nfbad += bad == 2;
			if (p.first_bad == KJ_NONE)
				p.first_bad = i;
		}
	}
	block_reduce(&p);
	if (threadIdx.x == 0)
		parts[blockIdx.x] = p;
}

/* One block: folds the per-block parts in a fixed order and reads the
 * values at first_bad. */
template <int T>
__global__ void cmp_final(const void *got, const double *ref, const cmp_part *parts, int nparts,
			  double atol, double rtol, cmp_result *res)
{
	cmp_part p;

	part_zero(&p);
	for (int k = threadIdx.x; k < nparts; k += blockDim.x)
		part_merge(&p, &parts[k]);
	block_reduce(&p);
	if (threadIdx.x == 0) {
		res->p = p;
		res->expected = res->got = 0.0;
		if (p.first_bad != KJ_NONE) {
			double g, r;
			cmp_elem<T>(got, ref, (size_t)p.first_bad, atol, rtol, &g, &r, NULL);
			res->expected = r;
			res->got = g;
		}
	}
}

template <int T>
static void cmp_launch(kj_gpu *g, const void *got, const double *ref, size_t n, double atol,
		       double rtol, unsigned grid, cmp_part *parts, cmp_result *res)
{
	cmp_kernel<T><<<grid, KJ_CMP_BLOCK, 0, g->stream>>>(got, ref, n, atol, rtol, parts);
	cmp_final<T><<<1, KJ_CMP_BLOCK, 0, g->stream>>>(got, ref, parts, (int)grid, atol, rtol, res);
}

extern "C" int kj_gpu_compare(kj_gpu *g, kj_dtype t, const void *got, const double *ref, size_t n,
			      double atol, double rtol, kj_gpu_cmp *out, struct kj_err *err)
{
	cmp_result *res = (cmp_result *)g->scratch;
	cmp_part *parts = (cmp_part *)((char *)g->scratch + 256);
	size_t maxparts = (g->scratch_bytes - 256) / sizeof(cmp_part);
	unsigned grid = kj_grid_for(g, n, KJ_CMP_BLOCK);
	cmp_result h;

	static_assert(sizeof(cmp_result) <= 256, "result fits before the parts");
	memset(out, 0, sizeof(*out));
	out->n = (int64_t)n;
	out->first_bad = -1;
	if ((int)t < 0 || (int)t > KJD_F64)
		return kj_err_set(err, KJ_E_USAGE, "kj_gpu_compare: bad dtype %d", (int)t);
	if (n == 0)
		return 0;
	if (grid > maxparts)
		grid = (unsigned)maxparts;
	KJ_CUDA_CHECK(err, cudaSetDevice(g->device));
	switch ((int)t) {
	case KJ_F32:
		cmp_launch<KJ_F32>(g, got, ref, n, atol, rtol, grid, parts, res);
		break;
	case KJ_F16:
		cmp_launch<KJ_F16>(g, got, ref, n, atol, rtol, grid, parts, res);
		break;
	case KJ_BF16:
		cmp_launch<KJ_BF16>(g, got, ref, n, atol, rtol, grid, parts, res);
		break;
	case KJ_I8:
		cmp_launch<KJ_I8>(g, got, ref, n, atol, rtol, grid, parts, res);
		break;
	case KJ_I32:
		cmp_launch<KJ_I32>(g, got, ref, n, atol, rtol, grid, parts, res);
		break;
	case KJ_I64:
		cmp_launch<KJ_I64>(g, got, ref, n, atol, rtol, grid, parts, res);
		break;
	case KJ_BOOL:
		cmp_launch<KJ_BOOL>(g, got, ref, n, atol, rtol, grid, parts, res);
		break;
	case KJ_F8E4M3:
		cmp_launch<KJ_F8E4M3>(g, got, ref, n, atol, rtol, grid, parts, res);
		break;
	default:
		cmp_launch<KJD_F64>(g, got, ref, n, atol, rtol, grid, parts, res);
		break;
	}
	KJ_CUDA_CHECK(err, cudaGetLastError());
	KJ_CUDA_CHECK(err, cudaMemcpyAsync(&h, res, sizeof(h), cudaMemcpyDeviceToHost, g->stream));
	KJ_CUDA_CHECK(err, cudaStreamSynchronize(g->stream));
	out->nbad = (int64_t)h.p.nbad;
	out->nfbad = (int64_t)h.p.nfbad;
	out->first_bad = h.p.first_bad == KJ_NONE ? -1 : (int64_t)h.p.first_bad;
	out->expected = h.expected;
	out->got = h.got;
	out->max_abs = h.p.max_abs;
	out->max_rel = h.p.max_rel;
	out->ratio = h.p.ratio;
	out->dot = h.p.dot;
	out->gg = h.p.gg;
	out->rr = h.p.rr;
	out->l1num = h.p.l1num;
	out->l1den = h.p.l1den;
	out->sq = h.p.sq;
	return 0;
}

/* ---- byte equality ---- */

__device__ __forceinline__ unsigned long long warp_min(unsigned long long v)
{
	for (int off = 16; off > 0; off >>= 1) {
		unsigned long long o = __shfl_down_sync(0xffffffffu, v, off);
		if (o < v)
			v = o;
	}
	return v;
}

/* The lowest-address differing byte of two 4-byte words, little-endian. */
__device__ __forceinline__ unsigned first_byte(uint32_t x, uint32_t y)
{
	return (unsigned)(__ffs((int)(x ^ y)) - 1) >> 3;
}

/* 16 bytes per step over the aligned prefix; a thread stops at its first
 * difference, later ones being larger. */
__global__ void equal16_kernel(const uint4 *a, const uint4 *b, size_t nw,
			       unsigned long long *first)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	size_t stride = (size_t)gridDim.x * blockDim.x;
	unsigned long long m = KJ_NONE;

	for (; i < nw; i += stride) {
		uint4 x = a[i], y = b[i];
		unsigned off;
		if (x.x == y.x && x.y == y.y && x.z == y.z && x.w == y.w)
			continue;
		if (x.x != y.x)
			off = first_byte(x.x, y.x);
		else if (x.y != y.y)
			off = 4 + first_byte(x.y, y.y);
		else if (x.z != y.z)
			off = 8 + first_byte(x.z, y.z);
		else
			off = 12 + first_byte(x.w, y.w);
		m = (unsigned long long)i * 16 + off;
		break;
	}
	m = warp_min(m);
	if ((threadIdx.x & 31) == 0 && m != KJ_NONE)
		atomicMin(first, m);
}

__global__ void equal1_kernel(const unsigned char *a, const unsigned char *b, size_t n,
			      size_t base, unsigned long long *first)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	size_t stride = (size_t)gridDim.x * blockDim.x;
	unsigned long long m = KJ_NONE;

	for (; i < n; i += stride) {
		if (a[i] != b[i]) {
			m = base + i;
			break;
		}
	}
	m = warp_min(m);
	if ((threadIdx.x & 31) == 0 && m != KJ_NONE)
		atomicMin(first, m);
}

extern "C" int kj_gpu_equal(kj_gpu *g, const void *a, const void *b, size_t bytes,
			    int64_t *first_diff, struct kj_err *err)
{
	unsigned long long *first = (unsigned long long *)g->scratch, h;
	const unsigned char *pa = (const unsigned char *)a, *pb = (const unsigned char *)b;
	size_t head = 0;

	*first_diff = -1;
	if (bytes == 0)
		return 0;
	KJ_CUDA_CHECK(err, cudaSetDevice(g->device));
	KJ_CUDA_CHECK(err, cudaMemsetAsync(first, 0xff, sizeof(*first), g->stream));
	if ((((uintptr_t)a | (uintptr_t)b) & 15) == 0) {
		size_t nw = bytes / 16;
		head = nw * 16;
		if (nw)
			equal16_kernel<<<kj_grid_for(g, nw, 256), 256, 0, g->stream>>>(
				(const uint4 *)a, (const uint4 *)b, nw, first);
	}
	if (head < bytes)
		equal1_kernel<<<kj_grid_for(g, bytes - head, 256), 256, 0, g->stream>>>(
			pa + head, pb + head, bytes - head, head, first);
	KJ_CUDA_CHECK(err, cudaGetLastError());
	KJ_CUDA_CHECK(err, cudaMemcpyAsync(&h, first, sizeof(h), cudaMemcpyDeviceToHost, g->stream));
	KJ_CUDA_CHECK(err, cudaStreamSynchronize(g->stream));
	*first_diff = h == KJ_NONE ? -1 : (int64_t)h;
	return 0;
}
