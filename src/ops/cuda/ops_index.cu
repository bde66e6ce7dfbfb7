/*
 * CUDA indexing and layout ops of table D (cat, narrow, pad, flip, where,
 * masked_fill, triu, tril, embedding) for the eager baseline and the
 * reference, mirroring src/ops/cpu/misc_impl.h.
 *
 * They move elements as opaque words of the element size (8 bytes in the
 * reference), so one kernel serves every dtype; contiguous copies use the
 * widest word (up to 16 bytes) that every offset and length allows.
 * Integer indices (embedding) are checked in the kernel: the smallest bad
 * position goes to a device variable that kj_cuda_embedding_check reads.
 */
#include "ops/cuda/ops_common.cuh"

#include <limits.h>
#include <stdio.h>

extern "C" {
#include "ops/table_d.h"
}

static size_t elem_bytes(kj_dtype t, int reference)
{
	return reference ? 8 : kj_dtype_size(t);
}

/* ================= words: layout ops ================= */

/* Runs the statements given with W the word type of `bytes` bytes. */
#define KJM_WORD_DISPATCH(bytes, ...) \
	switch (bytes) { \
	case 16: { typedef uint4 W; __VA_ARGS__; break; } \
	case 8: { typedef unsigned long long W; __VA_ARGS__; break; } \
	case 4: { typedef unsigned int W; __VA_ARGS__; break; } \
	case 2: { typedef unsigned short W; __VA_ARGS__; break; } \
	default: { typedef unsigned char W; __VA_ARGS__; break; } \
	}

/* The widest word (16, 8, 4, 2, 1 bytes) dividing every value given. */
static int widest_word(const int64_t *v, int nv)
{
	for (int w = 16; w > 1; w >>= 1) {
		int okw = 1;
		for (int i = 0; i < nv && okw; i++)
			okw = v[i] % w == 0;
		if (okw)
			return w;
	}
	return 1;
}

/* dst[o*dld + j] = src[o*sld + j], o < rows, j < width (in words).  A block
 * of bx x by threads with bx the power of two covering a row (at most 256)
 * takes by rows at once, so that short rows (a narrow of 64 bf16, 8 words)
 * keep every lane busy: a block per row of 8 words ran the H200 at 12% of
 * copy bandwidth. */
template <class W>
__global__ void copy2d_k(W *__restrict__ dst, int64_t dld, const W *__restrict__ src, int64_t sld,
			 int64_t rows, int64_t width)
{
	for (int64_t o = (int64_t)blockIdx.x * blockDim.y + threadIdx.y; o < rows;
	     o += (int64_t)gridDim.x * blockDim.y)
		for (int64_t j = threadIdx.x; j < width; j += blockDim.x)
			dst[o * dld + j] = src[o * sld + j];
}

/* A 2-D copy given in bytes (every value a multiple of the element size). */
static int copy2d(kj_gpu *g, void *dst, int64_t dld, const void *src, int64_t sld, int64_t rows,
		  int64_t width, struct kj_err *err)
{
	int64_t v[5] = {dld, sld, width, (int64_t)(uintptr_t)dst, (int64_t)(uintptr_t)src};
	int w = widest_word(v, 5), bx = 1;
	if (rows == 0 || width == 0)
		return 0;
	while (bx < 256 && bx < width / w)
		bx *= 2;
	dim3 block((unsigned)bx, (unsigned)(256 / bx));
	unsigned grid = grid_cap((rows + block.y - 1) / block.y, (int64_t)g->info.sm_count * 16);
	KJM_WORD_DISPATCH(w, (copy2d_k<W><<<grid, block, 0, g->stream>>>(
				      (W *)dst, dld / w, (const W *)src, sld / w, rows, width / w)));
	KJM_CHECK(err, "copy");
	return 0;
}

/* cat with short pieces (an interleave: cat of [..., 1] tensors along the
 * last dim, as an int4 unpack does): the output is written in 16-byte words,
 * each thread gathering its V elements from the inputs, where copy2d would
 * move one element per thread with half-empty stores (the byte interleave
 * of w4a16_gemm took 94 ms for 235 MB on the H200). */
struct kjm_catg {
	int nseg;
	const void *src[KJ_MAX_OPERANDS];
	int64_t start[KJ_MAX_OPERANDS + 1]; /* piece k: row columns [start[k], start[k+1]) */
	int64_t rw;                         /* output row length in elements */
};

template <class E, int V>
__global__ void cat_gather_k(E *__restrict__ y, int64_t nvec, kjm_catg gm)
{
	for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < nvec;
	     t += (int64_t)gridDim.x * blockDim.x) {
		int64_t e = t * V, o = e / gm.rw, c = e - o * gm.rw;
		union {
			E e[V];
			uint4 u;
		} w;
		int k = 0;
		while (c >= gm.start[k + 1])
			k++;
#pragma unroll
		for (int i = 0; i < V; i++) {
			int64_t wk = gm.start[k + 1] - gm.start[k];
			w.e[i] = ((const E *)gm.src[k])[o * wk + c - gm.start[k]];
			if (++c == gm.start[k + 1]) {
				k++;
				if (c == gm.rw) {
					c = 0;
					k = 0;
					o++;
				}
				while (k < gm.nseg - 1 && c >= gm.start[k + 1])
					k++;
			}
		}
		if (V * sizeof(E) == 16)
			((uint4 *)y)[t] = w.u;
		else
			y[t] = w.e[0];
	}
}

template <class E>
static void cat_gather_launch(kj_gpu *g, void *y, int64_t total, const kjm_catg &gm)
{
	const int V = 16 / sizeof(E);
	if (total % V == 0 && kj_aligned16(y)) {
		cat_gather_k<E, V><<<kj_blocks(g, total / V, 256), 256, 0, g->stream>>>((E *)y, total / V,
											 gm);
	} else {
		cat_gather_k<E, 1><<<kj_blocks(g, total, 256), 256, 0, g->stream>>>((E *)y, total, gm);
	}
}

int kj_cuda_cat(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out, int reference,
		struct kj_err *err)
{
	int dim = kjm_cat_dim(n);
	int64_t outer, len, inner, off = 0, total = n->out.shape.d[dim];
	int64_t es = (int64_t)elem_bytes(n->out.dtype, reference), shortest = INT64_MAX;
	kjm_catg gm;
	kjo_split(&n->out.shape, dim, &outer, &len, &inner);
	memset(&gm, 0, sizeof(gm));
	for (int k = 0; k < n->nin; k++) {
		if (!n->present[k] || n->in[k].shape.d[dim] == 0)
			continue;
		gm.src[gm.nseg] = in[k];
		gm.start[gm.nseg++] = off;
		off += n->in[k].shape.d[dim] * inner;
		if (n->in[k].shape.d[dim] * inner * es < shortest)
			shortest = n->in[k].shape.d[dim] * inner * es;
	}
	gm.start[gm.nseg] = off;
	gm.rw = off;
	if (gm.nseg == 0 || outer == 0)
		return 0;
	/* pieces shorter than 64 bytes per row: gather by output words */
	if (shortest < 64 && gm.nseg > 1) {
		int64_t nel = outer * gm.rw;
		switch (es) {
		case 1:
			cat_gather_launch<uint8_t>(g, out, nel, gm);
			break;
		case 2:
			cat_gather_launch<uint16_t>(g, out, nel, gm);
			break;
		case 4:
			cat_gather_launch<uint32_t>(g, out, nel, gm);
			break;
		default:
			cat_gather_launch<unsigned long long>(g, out, nel, gm);
			break;
		}
		KJM_CHECK(err, "cat");
		return 0;
	}
	for (int k = 0; k < gm.nseg; k++) {
		int64_t wk = (gm.start[k + 1] - gm.start[k]) * es;
		int rc = copy2d(g, (char *)out + gm.start[k] * es, total * inner * es, gm.src[k], wk, outer,
				wk, err);
		if (rc)
			return rc;
	}
	return 0;
}

int kj_cuda_narrow(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out, int reference,
		   struct kj_err *err)
{
	int dim;
	int64_t start, length, outer, len, inner, es = (int64_t)elem_bytes(n->out.dtype, reference);
	kjm_narrow(n, &dim, &start, &length);
	kjo_split(&n->in[0].shape, dim, &outer, &len, &inner);
	return copy2d(g, out, length * inner * es, (const char *)in[0] + start * inner * es,
		      len * inner * es, outer, length * inner * es, err);
}

/* N-d gather for pad and flip: output coordinate c maps to source
 * coordinate flip ? d - 1 - c : c - lo, outside [0, sd) gives `fill`. */
struct kjm_ndg {
	int r;
	unsigned flip;
	int64_t d[KJ_MAX_RANK], lo[KJ_MAX_RANK], sd[KJ_MAX_RANK], st[KJ_MAX_RANK];
};

/* A block (or, with WARP, a warp: rows of up to 4096 words, where a block
 * per row left the H200 at 23% of copy bandwidth on pad_2d) per output row
 * (every dim but the last): the row's source offset and whether it lies
 * inside once, then the last dim along the threads. */
template <class W, bool WARP>
__global__ void ndgather_k(const W *__restrict__ x, W *__restrict__ y, int64_t rows, kjm_ndg gm,
			   W fill)
{
	int q = gm.r - 1;
	int64_t W_ = gm.d[q], lo = gm.lo[q], sd = gm.sd[q];
	bool fl = (gm.flip >> q) & 1u;
	const int lanes = WARP ? 32 : (int)blockDim.x, tid = WARP ? (int)(threadIdx.x & 31) : (int)threadIdx.x;
	const int64_t first = WARP ? (int64_t)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5) : blockIdx.x;
	const int64_t step = WARP ? (int64_t)gridDim.x * (blockDim.x >> 5) : gridDim.x;
	for (int64_t row = first; row < rows; row += step) {
		int64_t rem = row, off = 0;
		bool inside = true;
		for (int k = q - 1; k >= 0; k--) {
			int64_t qq = rem / gm.d[k], c = rem - qq * gm.d[k], s;
			rem = qq;
			s = (gm.flip >> k) & 1u ? gm.d[k] - 1 - c : c - gm.lo[k];
			inside = inside && s >= 0 && s < gm.sd[k];
			off += s * gm.st[k];
		}
		W *yr = y + row * W_;
		for (int64_t j = tid; j < W_; j += lanes) {
			int64_t s = fl ? W_ - 1 - j : j - lo;
			yr[j] = inside && s >= 0 && s < sd ? x[off + s] : fill;
		}
	}
}

/* ndgather_k for a flip of the last dim with no padding, in 16-byte words:
 * output word j of a row holds source word nw - 1 - j with its V elements
 * (of E) reversed.  Needs the row length a multiple of V and aligned rows. */
template <class E, int V>
__global__ void ndgather_rev_k(const E *__restrict__ x, E *__restrict__ y, int64_t rows, kjm_ndg gm)
{
	int q = gm.r - 1;
	int64_t nw = gm.d[q] / V;
	for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
		int64_t rem = row, off = 0;
		for (int k = q - 1; k >= 0; k--) {
			int64_t qq = rem / gm.d[k], c = rem - qq * gm.d[k];
			rem = qq;
			off += ((gm.flip >> k) & 1u ? gm.d[k] - 1 - c : c) * gm.st[k];
		}
		const uint4 *xr = (const uint4 *)(x + off);
		uint4 *yr = (uint4 *)(y + row * gm.d[q]);
		for (int64_t j = threadIdx.x; j < nw; j += blockDim.x) {
			uint4 a = xr[nw - 1 - j], b;
			const E *ae = (const E *)&a;
			E *be = (E *)&b;
#pragma unroll
			for (int t = 0; t < V; t++)
				be[t] = ae[V - 1 - t];
			yr[j] = b;
		}
	}
}

/* Merges adjacent dims that neither pad nor flip touch, drops unit dims,
 * and treats the innermost untouched run as whole words where possible. */
static int ndgather(kj_gpu *g, const kj_bnode *n, const void *x, void *y, int reference,
		    const int64_t *lo, const int64_t *hi, unsigned flip, double fillv,
		    struct kj_err *err)
{
	const kj_shape *xs = &n->in[0].shape;
	int64_t es = (int64_t)elem_bytes(n->out.dtype, reference), total;
	kjm_ndg gm;
	unsigned char fb[8] = {0};
	int r = 0;
	memset(&gm, 0, sizeof(gm));
	for (int i = 0; i < xs->rank; i++) {
		int touched = lo[i] || hi[i] || ((flip >> i) & 1u);
		int64_t d = xs->d[i] + lo[i] + hi[i];
		if (r > 0 && !touched && !gm.lo[r - 1] && gm.d[r - 1] == gm.sd[r - 1] &&
		    !((gm.flip >> (r - 1)) & 1u)) {
			gm.d[r - 1] *= d;
			gm.sd[r - 1] *= d;
			continue;
		}
		gm.d[r] = d;
		gm.sd[r] = xs->d[i];
		gm.lo[r] = lo[i];
		if ((flip >> i) & 1u)
			gm.flip |= 1u << r;
		r++;
	}
	if (r == 0) {
		gm.d[0] = gm.sd[0] = 1;
		r = 1;
	}
	gm.r = r;
	/* the innermost dim untouched: copy its elements as wider words */
	int64_t wunit = es;
	if (!gm.lo[r - 1] && gm.d[r - 1] == gm.sd[r - 1] && !((gm.flip >> (r - 1)) & 1u)) {
		int64_t v[3] = {gm.d[r - 1] * es, (int64_t)(uintptr_t)x, (int64_t)(uintptr_t)y};
		int w = widest_word(v, 3);
		if (w > es && fillv == 0.0) {
			gm.d[r - 1] = gm.sd[r - 1] = gm.d[r - 1] * es / w;
			wunit = w;
		}
	}
	{
		int64_t m = 1;
		for (int k = r - 1; k >= 0; k--) {
			gm.st[k] = m;
			m *= gm.sd[k];
		}
	}
	total = 1;
	for (int k = 0; k < r; k++)
		total *= gm.d[k];
	if (reference)
		memcpy(fb, &fillv, 8);
	else
		kj_store(n->out.dtype, fb, 0, fillv);
	if (total == 0)
		return 0;
	{
		/* a flipped last dim without padding: reversed 16-byte words */
		int q = r - 1, nopad = 1;
		for (int k = 0; k < r; k++)
			nopad = nopad && !gm.lo[k] && gm.d[k] == gm.sd[k];
		int64_t v = es > 0 ? 16 / es : 0;
		if (nopad && ((gm.flip >> q) & 1u) && (es == 4 || es == 2 || es == 8) &&
		    gm.d[q] % v == 0 && ((uintptr_t)x & 15) == 0 && ((uintptr_t)y & 15) == 0) {
			int64_t rows = total / gm.d[q];
			if (es == 4)
				ndgather_rev_k<unsigned, 4><<<row_blocks(g, rows), 256, 0, g->stream>>>(
					(const unsigned *)x, (unsigned *)y, rows, gm);
			else if (es == 2)
				ndgather_rev_k<unsigned short, 8><<<row_blocks(g, rows), 256, 0, g->stream>>>(
					(const unsigned short *)x, (unsigned short *)y, rows, gm);
			else
				ndgather_rev_k<unsigned long long, 2><<<row_blocks(g, rows), 256, 0,
									 g->stream>>>(
					(const unsigned long long *)x, (unsigned long long *)y, rows, gm);
			KJM_CHECK(err, n->op->name);
			return 0;
		}
	}
	KJM_WORD_DISPATCH(wunit, {
		W fw;
		memset(&fw, 0, sizeof(fw));
		if (sizeof(W) <= 8)
			memcpy(&fw, fb, sizeof(W));
		int64_t rows = total / gm.d[r - 1];
		if (gm.d[r - 1] <= 4096)
			ndgather_k<W, true><<<row_blocks(g, (rows + 7) / 8), 256, 0, g->stream>>>(
				(const W *)x, (W *)y, rows, gm, fw);
		else
			ndgather_k<W, false><<<row_blocks(g, rows), 256, 0, g->stream>>>(
				(const W *)x, (W *)y, rows, gm, fw);
	});
	KJM_CHECK(err, n->op->name);
	return 0;
}

int kj_cuda_pad(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out, int reference,
		struct kj_err *err)
{
	int64_t lo[KJ_MAX_RANK], hi[KJ_MAX_RANK];
	kjm_pad(n, lo, hi);
	return ndgather(g, n, in[0], out, reference, lo, hi, 0, kjo_attr_f(n, 2, 0.0), err);
}

int kj_cuda_flip(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out, int reference,
		 struct kj_err *err)
{
	int64_t z[KJ_MAX_RANK] = {0};
	return ndgather(g, n, in[0], out, reference, z, z, kjm_flip_mask(n), 0.0, err);
}

/* ---- where, masked_fill ---- */

/* Broadcast offsets of up to three operands from an output index. */
struct kjm_bc {
	int r;
	int64_t d[KJ_MAX_RANK], s[3][KJ_MAX_RANK];
};

/* Offsets of the start of output row `e` (every dim but the last). */
__device__ __forceinline__ void bc_offsets(const kjm_bc &b, int64_t e, int64_t *o0, int64_t *o1,
					   int64_t *o2)
{
	int64_t a0 = 0, a1 = 0, a2 = 0;
	for (int k = b.r - 2; k >= 0; k--) {
		int64_t q = e / b.d[k], c = e - q * b.d[k];
		e = q;
		a0 += c * b.s[0][k];
		a1 += c * b.s[1][k];
		a2 += c * b.s[2][k];
	}
	*o0 = a0;
	*o1 = a1;
	*o2 = a2;
}

/* out = cond ? a : b.  full: every operand has the output's shape.  W: the
 * element word when a, b and out share the element type; DYN converts by
 * dtype (adt, bdt -> odt). */
template <class W, bool DYN>
__global__ void where_k(const void *c, int cdt, const void *a, int adt, const void *b, int bdt,
			void *y, int odt, int64_t rows, kjm_bc bc)
{
	int q = bc.r - 1;
	int64_t Wd = bc.d[q], s0 = bc.s[0][q], s1 = bc.s[1][q], s2 = bc.s[2][q];
	for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
		int64_t b0, b1, b2;
		bc_offsets(bc, row, &b0, &b1, &b2);
		for (int64_t j = threadIdx.x; j < Wd; j += blockDim.x) {
			int64_t e = row * Wd + j, o0 = b0 + j * s0, o1 = b1 + j * s1, o2 = b2 + j * s2;
			bool t = cdt == KJ_BOOL ? ((const unsigned char *)c)[o0] != 0
						: kjd_load(cdt, c, o0) != 0;
			if (DYN)
				kjd_store(odt, y, e, t ? kjd_load(adt, a, o1) : kjd_load(bdt, b, o2));
			else
				((W *)y)[e] = t ? ((const W *)a)[o1] : ((const W *)b)[o2];
		}
	}
}

/* where_k when cond is a bool of the output's shape, a and b either have
 * the output's shape or are one element (SA, SB: broadcast from their
 * element 0, as the literal 0.0 of dropout), and a, b and out share a 4- or
 * 2-byte type: 16-byte words of a, b and out with the matching 4- or 8-byte
 * word of cond (aligned buffers; the first thread does the last total % V
 * elements one by one). */
template <class E, int V, class CW, bool SA, bool SB>
__global__ void where_vec_k(const CW *__restrict__ c, const uint4 *__restrict__ a,
			    const uint4 *__restrict__ b, uint4 *__restrict__ y, int64_t nw, int64_t total)
{
	const E a0 = SA ? *(const E *)a : E(), b0 = SB ? *(const E *)b : E();
	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < nw;
	     i += (int64_t)gridDim.x * blockDim.x) {
		CW cw = c[i];
		uint4 av, bv, r;
		if (!SA)
			av = a[i];
		if (!SB)
			bv = b[i];
		const unsigned char *cb = (const unsigned char *)&cw;
		const E *ae = (const E *)&av, *be = (const E *)&bv;
		E *re = (E *)&r;
#pragma unroll
		for (int t = 0; t < V; t++)
			re[t] = cb[t] ? (SA ? a0 : ae[t]) : (SB ? b0 : be[t]);
		y[i] = r;
	}
	if (blockIdx.x == 0 && threadIdx.x == 0) /* the last total % V elements */
		for (int64_t e = nw * V; e < total; e++)
			((E *)y)[e] = ((const unsigned char *)c)[e] ? (SA ? a0 : ((const E *)a)[e])
								     : (SB ? b0 : ((const E *)b)[e]);
}

template <class E, int V, class CW>
static void where_vec_launch(kj_gpu *g, const void *c, const void *a, const void *b, void *y, int64_t total,
			     bool sa, bool sb)
{
	const int64_t nw = total / V;
	unsigned bl = kj_blocks(g, nw, 256);
	const CW *cw = (const CW *)c;
	const uint4 *av = (const uint4 *)a, *bv = (const uint4 *)b;
	if (sa && sb)
		where_vec_k<E, V, CW, true, true><<<bl, 256, 0, g->stream>>>(cw, av, bv, (uint4 *)y, nw, total);
	else if (sa)
		where_vec_k<E, V, CW, true, false><<<bl, 256, 0, g->stream>>>(cw, av, bv, (uint4 *)y, nw, total);
	else if (sb)
		where_vec_k<E, V, CW, false, true><<<bl, 256, 0, g->stream>>>(cw, av, bv, (uint4 *)y, nw, total);
	else
		where_vec_k<E, V, CW, false, false><<<bl, 256, 0, g->stream>>>(cw, av, bv, (uint4 *)y, nw, total);
}

/* Broadcast strides of the operands through the output shape; returns the
 * number of output rows (elements / last extent). */
static int64_t bc_init(kjm_bc *bc, const kj_shape *os, const kj_shape *const *ops, int nops)
{
	memset(bc, 0, sizeof(*bc));
	bc->r = os->rank;
	for (int i = 0; i < os->rank; i++)
		bc->d[i] = os->d[i];
	for (int k = 0; k < nops; k++)
		kjo_bcast_strides(ops[k], os, bc->s[k]);
	if (bc->r == 0) {
		bc->r = 1;
		bc->d[0] = 1;
	}
	return kjo_numel(os) / bc->d[bc->r - 1];
}

int kj_cuda_where(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out, int reference,
		  struct kj_err *err)
{
	const kj_shape *ops[3] = {&n->in[0].shape, &n->in[1].shape, &n->in[2].shape};
	int64_t total = kjo_numel(&n->out.shape);
	int cdt = kj_buf_dt(n->in[0].dtype, reference), adt = kj_buf_dt(n->in[1].dtype, reference);
	int bdt = kj_buf_dt(n->in[2].dtype, reference), odt = kj_buf_dt(n->out.dtype, reference);
	int64_t rows;
	unsigned blocks;
	kjm_bc bc;
	if (total == 0)
		return 0;
	rows = bc_init(&bc, &n->out.shape, ops, 3);
	blocks = row_blocks(g, rows);
	{
		/* the 16-byte path: cond full-shape bool, a and b full-shape or
		 * one element, all of the output's 4- or 2-byte type */
		int es = reference ? 8 : (int)kj_dtype_size(n->out.dtype), v = es == 4 ? 4 : es == 2 ? 8 : 0;
		bool sa = kjo_numel(ops[1]) == 1 && total > 1, sb = kjo_numel(ops[2]) == 1 && total > 1;
		bool full = kjo_numel(ops[0]) == total && (sa || kjo_numel(ops[1]) == total) &&
			    (sb || kjo_numel(ops[2]) == total);
		uintptr_t al = (uintptr_t)in[0] | (uintptr_t)out | (sa ? 0 : (uintptr_t)in[1]) |
			       (sb ? 0 : (uintptr_t)in[2]);
		if (full && v && n->in[0].dtype == KJ_BOOL && adt == odt && bdt == odt && total >= v &&
		    (al & 15) == 0) {
			if (v == 4)
				where_vec_launch<unsigned, 4, unsigned>(g, in[0], in[1], in[2], out, total, sa, sb);
			else
				where_vec_launch<unsigned short, 8, unsigned long long>(g, in[0], in[1], in[2], out,
											total, sa, sb);
			KJM_CHECK(err, "where");
			return 0;
		}
	}
	if (adt == odt && bdt == odt) {
		KJM_WORD_DISPATCH(reference ? 8 : (int)kj_dtype_size(n->out.dtype),
				  (where_k<W, false><<<blocks, 256, 0, g->stream>>>(
					  in[0], cdt, in[1], adt, in[2], bdt, out, odt, rows, bc)));
	} else {
		where_k<unsigned char, true><<<blocks, 256, 0, g->stream>>>(
			in[0], cdt, in[1], adt, in[2], bdt, out, odt, rows, bc);
	}
	KJM_CHECK(err, "where");
	return 0;
}

template <class W>
__global__ void masked_fill_k(const W *__restrict__ x, const void *mask, int mdt, W *__restrict__ y,
			      W value, int64_t rows, kjm_bc bc)
{
	int q = bc.r - 1;
	int64_t Wd = bc.d[q], s0 = bc.s[0][q];
	for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
		int64_t b0, b1, b2;
		bc_offsets(bc, row, &b0, &b1, &b2);
		for (int64_t j = threadIdx.x; j < Wd; j += blockDim.x) {
			int64_t e = row * Wd + j, o0 = b0 + j * s0;
			bool t = mdt == KJ_BOOL ? ((const unsigned char *)mask)[o0] != 0
						: kjd_load(mdt, mask, o0) != 0;
			y[e] = t ? value : x[e];
		}
	}
}

/* masked_fill_k when the mask is a bool of the output's shape and the
 * element is 4 or 2 bytes: 16-byte words of x and y with the matching 4- or
 * 8-byte word of the mask (aligned buffers; the first thread does the last
 * total % V elements one by one). */
template <class E, int V, class CW>
__global__ void masked_fill_vec_k(const uint4 *__restrict__ x, const CW *__restrict__ mask,
				  uint4 *__restrict__ y, E value, int64_t nw, int64_t total)
{
	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < nw;
	     i += (int64_t)gridDim.x * blockDim.x) {
		CW mw = mask[i];
		uint4 xv = x[i];
		const unsigned char *mb = (const unsigned char *)&mw;
		E *xe = (E *)&xv;
#pragma unroll
		for (int t = 0; t < V; t++)
			if (mb[t])
				xe[t] = value;
		y[i] = xv;
	}
	if (blockIdx.x == 0 && threadIdx.x == 0) /* the last total % V elements */
		for (int64_t e = nw * V; e < total; e++)
			((E *)y)[e] = ((const unsigned char *)mask)[e] ? value : ((const E *)x)[e];
}

int kj_cuda_masked_fill(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
			int reference, struct kj_err *err)
{
	const kj_shape *ops[1] = {&n->in[1].shape};
	int64_t total = kjo_numel(&n->out.shape);
	int64_t rows;
	double v = kjo_attr_f(n, 0, 0.0);
	unsigned char vb[16] = {0};
	kjm_bc bc;
	if (total == 0)
		return 0;
	/* the input is dense; s[0] holds the mask's broadcast strides */
	rows = bc_init(&bc, &n->out.shape, ops, 1);
	if (reference)
		memcpy(vb, &v, 8);
	else
		kj_store(n->out.dtype, vb, 0, v);
	{
		int es = reference ? 8 : (int)kj_dtype_size(n->out.dtype), vw = es == 4 ? 4 : es == 2 ? 8 : 0;
		if (vw && n->in[1].dtype == KJ_BOOL && kjo_numel(ops[0]) == total && total >= vw &&
		    (((uintptr_t)in[0] | (uintptr_t)in[1] | (uintptr_t)out) & 15) == 0) {
			int64_t nw = total / vw;
			unsigned bl = kj_blocks(g, nw, 256);
			if (vw == 4) {
				unsigned val;
				memcpy(&val, vb, 4);
				masked_fill_vec_k<unsigned, 4, unsigned><<<bl, 256, 0, g->stream>>>(
					(const uint4 *)in[0], (const unsigned *)in[1], (uint4 *)out, val, nw, total);
			} else {
				unsigned short val;
				memcpy(&val, vb, 2);
				masked_fill_vec_k<unsigned short, 8, unsigned long long><<<bl, 256, 0, g->stream>>>(
					(const uint4 *)in[0], (const unsigned long long *)in[1], (uint4 *)out, val,
					nw, total);
			}
			KJM_CHECK(err, "masked_fill");
			return 0;
		}
	}
	KJM_WORD_DISPATCH(reference ? 8 : (int)kj_dtype_size(n->out.dtype), {
		W wv;
		memcpy(&wv, vb, sizeof(W));
		masked_fill_k<W><<<row_blocks(g, rows), 256, 0, g->stream>>>(
			(const W *)in[0], in[1], kj_buf_dt(n->in[1].dtype, reference), (W *)out, wv, rows,
			bc);
	});
	KJM_CHECK(err, "masked_fill");
	return 0;
}

/* ---- triu, tril ---- */

template <class W, bool UPPER>
__global__ void tri_k(const W *__restrict__ x, W *__restrict__ y, int64_t rows, int64_t R,
		      int64_t C, int64_t diag)
{
	W z;
	memset(&z, 0, sizeof(z));
	for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
		int64_t i = row % R;
		for (int64_t j = threadIdx.x; j < C; j += blockDim.x) {
			bool keep = UPPER ? j - i >= diag : j - i <= diag;
			y[row * C + j] = keep ? x[row * C + j] : z;
		}
	}
}

template <bool UPPER>
static int tri_run(kj_gpu *g, const kj_bnode *n, const void *x, void *y, int reference,
		   struct kj_err *err)
{
	const kj_shape *s = &n->in[0].shape;
	int64_t total = kjo_numel(s), R = s->d[s->rank - 2], C = s->d[s->rank - 1];
	int64_t diag = kjo_attr_i(n, 0, 0);
	if (total == 0)
		return 0;
	KJM_WORD_DISPATCH(reference ? 8 : (int)kj_dtype_size(n->out.dtype),
			  (tri_k<W, UPPER><<<row_blocks(g, total / C), 256, 0, g->stream>>>(
				  (const W *)x, (W *)y, total / C, R, C, diag)));
	KJM_CHECK(err, n->op->name);
	return 0;
}

int kj_cuda_triu(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out, int reference,
		 struct kj_err *err)
{
	return tri_run<true>(g, n, in[0], out, reference, err);
}

int kj_cuda_tril(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out, int reference,
		 struct kj_err *err)
{
	return tri_run<false>(g, n, in[0], out, reference, err);
}

/* ---- embedding ---- */

/* The smallest position whose index is out of range; all ones when none.
 * One per device: kj_cuda_embedding resets it and kj_cuda_embedding_check
 * reads it on the op's stream; that needs one thread driving a device at a
 * time, as run, worker and serve do (one evaluation thread per GPU). */
__device__ unsigned long long kjm_emb_bad;

/* A warp per index: row idx of the table (D words) into output row e. */
template <class W>
__global__ void embedding_k(const void *idx, int idt, const W *__restrict__ w, W *__restrict__ y,
			    int64_t cnt, int64_t V, int64_t D)
{
	int lane = threadIdx.x & 31;
	int64_t warp = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
	int64_t nwarps = ((int64_t)gridDim.x * blockDim.x) >> 5;
	for (int64_t e = warp; e < cnt; e += nwarps) {
		double t = idt == KJ_I64 ? (double)((const long long *)idx)[e]
			 : idt == KJ_I32 ? (double)((const int *)idx)[e]
					 : kjd_load(idt, idx, e);
		if (!(t >= 0 && t < (double)V)) {
			if (lane == 0)
				atomicMin(&kjm_emb_bad, (unsigned long long)e);
			continue;
		}
		const W *src = w + (int64_t)t * D;
		W *dst = y + e * D;
		for (int64_t j = lane; j < D; j += 32)
			dst[j] = src[j];
	}
}

int kj_cuda_embedding(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
		      int reference, struct kj_err *err)
{
	int64_t cnt = kjo_numel(&n->in[0].shape), V = n->in[1].shape.d[0], D = n->in[1].shape.d[1];
	int64_t es = (int64_t)elem_bytes(n->out.dtype, reference);
	int64_t v[3] = {D * es, (int64_t)(uintptr_t)in[1], (int64_t)(uintptr_t)out};
	int w = widest_word(v, 3);
	void *flag = NULL;
	KJ_CUDA_CHECK(err, cudaGetSymbolAddress(&flag, kjm_emb_bad));
	KJ_CUDA_CHECK(err, cudaMemsetAsync(flag, 0xff, sizeof(unsigned long long), g->stream));
	if (cnt == 0 || D == 0)
		return 0;
	KJM_WORD_DISPATCH(w, (embedding_k<W><<<grid_cap((cnt + 7) / 8, (int64_t)g->info.sm_count * 16),
					       256, 0, g->stream>>>(
				      in[0], kj_buf_dt(n->in[0].dtype, reference), (const W *)in[1],
				      (W *)out, cnt, V, D * es / w)));
	KJM_CHECK(err, "embedding");
	return 0;
}

int kj_cuda_embedding_check(kj_gpu *g, const kj_bnode *n, const void *const *in, int reference,
			    char *msg, size_t msglen, struct kj_err *err)
{
	unsigned long long bad = 0;
	kj_dtype it = n->in[0].dtype;
	size_t es = reference ? 8 : kj_dtype_size(it);
	unsigned char raw[8] = {0};
	double t;
	KJ_CUDA_CHECK(err, cudaMemcpyFromSymbolAsync(&bad, kjm_emb_bad, sizeof(bad), 0,
						     cudaMemcpyDeviceToHost, g->stream));
	KJ_CUDA_CHECK(err, cudaStreamSynchronize(g->stream));
	if (bad == ~0ull)
		return 0;
	KJ_CUDA_CHECK(err, cudaMemcpyAsync(raw, (const unsigned char *)in[0] + bad * es, es,
					   cudaMemcpyDeviceToHost, g->stream));
	KJ_CUDA_CHECK(err, cudaStreamSynchronize(g->stream));
	if (reference)
		memcpy(&t, raw, sizeof(t));
	else
		t = kj_load(it, raw, 0);
	snprintf(msg, msglen, "embedding: index %.17g out of range [0, %lld) at position %lld", t,
		 (long long)n->in[1].shape.d[0], (long long)bad);
	return 1;
}
