/*
 * Direct 2-D sliding windows (ops_window2d.h): depthwise convolution, max
 * and average pooling of the float baseline.
 *
 * A block of 256 threads owns an output tile of one plane: bw columns (64,
 * 32 or 16, the narrowest that covers the plane's width) by (256 / bw) * ry
 * rows.  It first copies the input tile that the outputs' windows cover,
 * th x tw elements ((rows - 1) * stride + (k - 1) * dilation + 1 each way),
 * into shared memory: consecutive threads read consecutive elements of a
 * tile row, U elements per thread loaded before they are stored, so that
 * every thread has U loads in flight; positions outside the input are not
 * read.  Then thread (tx, ty) computes the outputs (ty + i * 256 / bw, tx)
 * for i < ry from shared memory and stores them (consecutive lanes,
 * consecutive columns).  A plane's tiles and the planes are the blocks of a
 * 1-D grid; the windows of neighbouring tiles overlap by (k - 1) * dilation
 * + 1 - stride rows or columns, read twice, mostly from L2.
 *
 * Every input element then crosses DRAM about once and every output once,
 * what a copy of the same bytes costs: cuDNN's general convolutions
 * (implicit GEMM over a group of one channel) and its pooling ran
 * KernelBench's conv2d_depthwise_asym_kernel (N=64 C=8 512 x 512, 3 x 1)
 * at 4.4x and avg_pool2d (N=16 C=64 2048 x 2048, 3 x 3 stride 3) at 1.5x
 * PyTorch's time, whose own direct kernels read through L1.
 *
 * The sums run in float in a fixed order (rows, then columns, of the
 * window), so results are the same on every run: a conv multiplies the
 * zeros of its padding as cuDNN's implicit zero padding does (the tile
 * holds them; 3 x 3 and 3 x 1 kernels unrolled), a max pool skips
 * such taps too and keeps the first NaN it meets (as max_pool_k), an
 * average pool sums the clipped window and divides by avg_pool_k's count
 * (count_include_pad, ceil mode).  The bias is added to the float sum
 * before the one rounding to the output dtype.
 */
#include "ops/cuda/ops_common.cuh"
#include "ops/cuda/ops_window2d.h"

#include <limits.h>

enum { KJW_CONV, KJW_MAX, KJW_AVG };

#define KJW_THREADS 256
#define KJW_MAX_TAPS 256
/* loads in flight per thread while a tile is copied */
#define KJW_U 8
/* the tile's shared memory: the largest ry whose tile fits the first bound
 * (eight blocks of 256 threads per SM), else ry = 1 up to the second
 * (48 KB, the most without an opt-in, less the weights and the reserved 1 KB each) */
#define KJW_SMEM_SOFT (24 << 10)
#define KJW_SMEM_HARD (44 << 10)

struct kjw_geom {
	int H, W, OH, OW;
	int kh, kw, sh, sw, ph, pw, dh, dw;
	int lbw, ry;	  /* tile: 1 << lbw columns, (256 >> lbw) * ry rows */
	int th, tw;	  /* input tile rows and columns (tw its pitch) */
	int tiles_x, tiles_y;
	int cin, cout, mult; /* conv: output channel co reads input channel co / mult */
	int cip;	     /* avg: count_include_pad */
};

/* 8 blocks per SM (32 registers) where that does not spill: the 16-bit
 * average pool's conversions want a few more */
template <class T, int OP, int KH, int KW>
__global__ void __launch_bounds__(KJW_THREADS, sizeof(T) == 4 || OP != KJW_AVG ? 8 : 6)
	window2d_k(kjw_geom g, const T *__restrict__ x, const T *__restrict__ w,
		   const T *__restrict__ b, T *__restrict__ y)
{
	typedef typename kjt<T>::acc A;
	extern __shared__ __align__(16) unsigned char kjw_dyn[];
	__shared__ A wsm[OP == KJW_CONV ? KJW_MAX_TAPS : 1];
	A *s = (A *)kjw_dyn;
	const int tid = threadIdx.x, bw = 1 << g.lbw, rp = KJW_THREADS >> g.lbw;
	const int tx = tid & (bw - 1), ty = tid >> g.lbw;
	int64_t blk = blockIdx.x, t = blk / g.tiles_x;
	int tile_x = (int)(blk - t * g.tiles_x);
	int64_t plane = t / g.tiles_y;
	int tile_y = (int)(t - plane * g.tiles_y);
	int64_t pin = plane;
	int co = 0;

	if (OP == KJW_CONV) {
		int64_t n = plane / g.cout;
		co = (int)(plane - n * g.cout);
		pin = n * g.cin + co / g.mult;
		for (int i = tid; i < g.kh * g.kw; i += KJW_THREADS)
			wsm[i] = kjt<T>::ld(w[(int64_t)co * g.kh * g.kw + i]);
	}
	const T *xp = x + pin * ((int64_t)g.H * g.W);
	const int ox0 = tile_x << g.lbw, oy0 = tile_y * rp * g.ry;
	const int ix0 = ox0 * g.sw - g.pw, iy0 = oy0 * g.sh - g.ph;

	/* the input tile: element e = r * tw + c of the tile; each thread
	 * walks e = tid, tid + 256, ... keeping (r, c) by increments */
	{
		const int total = g.th * g.tw, dr = KJW_THREADS / g.tw, dc = KJW_THREADS - dr * g.tw;
		int r = tid / g.tw, c = tid - r * g.tw;
		for (int e0 = 0; e0 < total; e0 += KJW_THREADS * KJW_U) {
			A v[KJW_U];
#pragma unroll
			for (int u = 0; u < KJW_U; u++) {
				int e = e0 + tid + u * KJW_THREADS, iy = iy0 + r, ix = ix0 + c;
				v[u] = 0;
				if (e < total && iy >= 0 && iy < g.H && ix >= 0 && ix < g.W)
					v[u] = kjt<T>::ld(xp[iy * g.W + ix]);
				c += dc;
				r += dr;
				if (c >= g.tw) {
					c -= g.tw;
					r++;
				}
			}
#pragma unroll
			for (int u = 0; u < KJW_U; u++) {
				int e = e0 + tid + u * KJW_THREADS;
				if (e < total)
					s[e] = v[u];
			}
		}
	}
	__syncthreads();

	const int ox = ox0 + tx;
	if (ox >= g.OW)
		return;
	A bias = 0, wreg[KH && KW ? KH * KW : 1];
	if (OP == KJW_CONV && b)
		bias = kjt<T>::ld(b[co]);
	if (OP == KJW_CONV && KH && KW)
#pragma unroll
		for (int i = 0; i < (KH && KW ? KH * KW : 1); i++)
			wreg[i] = wsm[i];
	T *yp = y + plane * ((int64_t)g.OH * g.OW);
	for (int i = 0; i < g.ry; i++) {
		const int oyl = ty + i * rp, oy = oy0 + oyl;
		if (oy >= g.OH)
			break;
		/* the window's top-left tap in the tile */
		const A *sp = s + oyl * g.sh * g.tw + tx * g.sw;
		const int iyw = oy * g.sh - g.ph, ixw = ox * g.sw - g.pw;
		A acc;
		if (OP == KJW_CONV) {
			/* the tile holds zeros over the padding (as cuDNN's
			 * implicit zero padding): no bounds tests per tap */
			acc = 0;
			if (KH && KW) {
#pragma unroll
				for (int ky = 0; ky < KH; ky++)
#pragma unroll
					for (int kx = 0; kx < KW; kx++)
						acc += sp[ky * g.dh * g.tw + kx * g.dw] * wreg[KH && KW ? ky * KW + kx : 0];
			} else {
				for (int ky = 0; ky < g.kh; ky++) {
					const A *row = sp + ky * g.dh * g.tw;
					const A *wr = wsm + ky * g.kw;
					for (int kx = 0; kx < g.kw; kx++)
						acc += row[kx * g.dw] * wr[kx];
				}
			}
			acc += bias;
		} else if (OP == KJW_MAX) {
			acc = -m_inf<A>();
			for (int ky = 0; ky < g.kh; ky++) {
				int iy = iyw + ky * g.dh;
				if (iy < 0 || iy >= g.H)
					continue;
				const A *row = sp + ky * g.dh * g.tw;
				for (int kx = 0; kx < g.kw; kx++) {
					int ix = ixw + kx * g.dw;
					if (ix < 0 || ix >= g.W)
						continue;
					A v = row[kx * g.dw];
					if (v > acc || v != v)
						acc = v;
				}
			}
		} else {
			/* avg_pool_k's window: [a, b) clipped to the padded extent
			 * for the count, to the input for the sum */
			int ay = iyw, by = ay + g.kh, ax = ixw, bx = ax + g.kw;
			if (by > g.H + g.ph)
				by = g.H + g.ph;
			if (bx > g.W + g.pw)
				bx = g.W + g.pw;
			int cy = by - ay, cx = bx - ax;
			int ly = ay < 0 ? 0 : ay, hy = by > g.H ? g.H : by;
			int lx = ax < 0 ? 0 : ax, hx = bx > g.W ? g.W : bx;
			if (!g.cip) {
				cy = hy - ly;
				cx = hx - lx;
			}
			acc = 0;
			if (KH && KW && ly == ay && hy == ay + KH && lx == ax && hx == ax + KW) {
				/* a whole window inside the input: the same adds,
				 * unrolled */
#pragma unroll
				for (int ky = 0; ky < KH; ky++)
#pragma unroll
					for (int kx = 0; kx < KW; kx++)
						acc += sp[ky * g.tw + kx];
			} else {
				for (int iy = ly; iy < hy; iy++) {
					const A *row = sp + (iy - iyw) * g.tw;
					for (int ix = lx; ix < hx; ix++)
						acc += row[ix - ixw];
				}
			}
			acc = acc / (A)(cy * cx);
		}
		yp[oy * g.OW + ox] = kjt<T>::st(acc);
	}
}

/* The tile rows of ry passes of 256 >> lbw rows, and its bytes. */
static int64_t tile_rows(const kjc_geom *ge, int lbw, int ry)
{
	return ((int64_t)(KJW_THREADS >> lbw) * ry - 1) * ge->s[1] + (ge->k[1] - 1) * ge->d[1] + 1;
}

template <class T, int OP, int KH, int KW>
static int launch(kj_gpu *g, const kjw_geom &kg, int64_t blocks, size_t smem, const void *x,
		  const void *w, const void *b, void *y, struct kj_err *err)
{
	window2d_k<T, OP, KH, KW><<<(unsigned)blocks, KJW_THREADS, smem, g->stream>>>(
		kg, (const T *)x, (const T *)w, (const T *)b, (T *)y);
	KJ_LAUNCH_CHECK(err, OP == KJW_CONV ? "depthwise conv2d" : "pool2d");
	return 0;
}

template <class T>
static int launch_op(kj_gpu *g, int op, const kjw_geom &kg, int64_t blocks, size_t smem,
		     const void *x, const void *w, const void *b, void *y, struct kj_err *err)
{
	/* the common depthwise kernels unrolled with their weights in
	 * registers: a 3 x 3 conv at stride 1 spends ~6 instructions a tap
	 * with run-time loops, which would make it bound by issue rather
	 * than by its bytes */
	if (op == KJW_CONV && kg.kh == 3 && kg.kw == 3)
		return launch<T, KJW_CONV, 3, 3>(g, kg, blocks, smem, x, w, b, y, err);
	if (op == KJW_CONV && kg.kh == 3 && kg.kw == 1)
		return launch<T, KJW_CONV, 3, 1>(g, kg, blocks, smem, x, w, b, y, err);
	if (op == KJW_CONV)
		return launch<T, KJW_CONV, 0, 0>(g, kg, blocks, smem, x, w, b, y, err);
	if (op == KJW_MAX)
		return launch<T, KJW_MAX, 0, 0>(g, kg, blocks, smem, x, w, b, y, err);
	/* KernelBench's avg_pool2d (3 x 3 at stride 3) writes an output per
	 * 9 inputs: the run-time window loop cost about 70% of the issue
	 * slots that its bytes take */
	if (kg.kh == 3 && kg.kw == 3)
		return launch<T, KJW_AVG, 3, 3>(g, kg, blocks, smem, x, w, b, y, err);
	return launch<T, KJW_AVG, 0, 0>(g, kg, blocks, smem, x, w, b, y, err);
}

int kj_window2d(kj_gpu *g, const kjc_geom *ge, kj_dtype dt, const void *x, const void *w,
		const void *b, void *y, int *handled, struct kj_err *err)
{
	int op = ge->kind == KJC_CONV ? KJW_CONV : ge->kind == KJC_MAXPOOL ? KJW_MAX :
		 ge->kind == KJC_AVGPOOL ? KJW_AVG : -1;
	kjw_geom kg;
	int64_t lim = INT_MAX / 4;

	*handled = 0;
	if (op < 0 || ge->nd != 2 || (dt != KJ_F32 && dt != KJ_F16 && dt != KJ_BF16))
		return 0;
	if (op == KJW_CONV &&
	    (ge->groups != ge->cin || ge->cin < 1 || ge->cout % ge->cin || ge->k[1] * ge->k[2] > KJW_MAX_TAPS))
		return 0;
	/* small planes leave most of a tile's threads idle: cuDNN's kernels */
	if (ge->out[1] * ge->out[2] < 1024)
		return 0;
	for (int i = 1; i < 3; i++)
		if (ge->in[i] > lim || ge->out[i] > lim || ge->k[i] > lim || ge->s[i] > 4096 ||
		    ge->p[i] > lim || ge->d[i] > 4096 || (ge->k[i] - 1) * ge->d[i] > 65536)
			return 0;
	if (ge->cout > lim || ge->cin > lim)
		return 0;
	if (ge->in[1] * ge->in[2] > INT_MAX || ge->out[1] * ge->out[2] > INT_MAX)
		return 0;

	int lbw = ge->out[2] <= 16 ? 4 : ge->out[2] <= 32 ? 5 : 6, ry = 0;
	size_t es = sizeof(float); /* the tile holds float */
	int64_t tw = (((int64_t)1 << lbw) - 1) * ge->s[2] + (ge->k[2] - 1) * ge->d[2] + 1, rp = KJW_THREADS >> lbw;
	/* the smallest ry whose tile covers the plane's height, at most 8,
	 * then down while the tile passes the soft bound */
	int want = 1;
	while (want < 8 && rp * want < ge->out[1])
		want *= 2;
	for (int r = want; r >= 1; r /= 2)
		if ((size_t)(tile_rows(ge, lbw, r) * tw) * es <= KJW_SMEM_SOFT) {
			ry = r;
			break;
		}
	if (!ry && (size_t)(tile_rows(ge, lbw, 1) * tw) * es <= KJW_SMEM_HARD)
		ry = 1;
	if (!ry)
		return 0;

	int64_t th = tile_rows(ge, lbw, ry), tiles_x = (ge->out[2] + ((int64_t)1 << lbw) - 1) >> lbw,
		tiles_y = (ge->out[1] + rp * ry - 1) / (rp * ry);
	int64_t planes = ge->N * ge->cout, blocks = planes * tiles_x * tiles_y;
	if (blocks > INT_MAX || blocks < 1)
		return 0;
	kg.H = (int)ge->in[1];
	kg.W = (int)ge->in[2];
	kg.OH = (int)ge->out[1];
	kg.OW = (int)ge->out[2];
	kg.kh = (int)ge->k[1];
	kg.kw = (int)ge->k[2];
	kg.sh = (int)ge->s[1];
	kg.sw = (int)ge->s[2];
	kg.ph = (int)ge->p[1];
	kg.pw = (int)ge->p[2];
	kg.dh = (int)ge->d[1];
	kg.dw = (int)ge->d[2];
	kg.lbw = lbw;
	kg.ry = ry;
	kg.th = (int)th;
	kg.tw = (int)tw;
	kg.tiles_x = (int)tiles_x;
	kg.tiles_y = (int)tiles_y;
	kg.cin = (int)ge->cin;
	kg.cout = (int)ge->cout;
	kg.mult = op == KJW_CONV ? (int)(ge->cout / ge->cin) : 1;
	kg.cip = ge->count_include_pad;
	size_t smem = (size_t)(th * tw) * es;

	*handled = 1;
	if (dt == KJ_F16)
		return launch_op<__half>(g, op, kg, blocks, smem, x, w, b, y, err);
	if (dt == KJ_BF16)
		return launch_op<__nv_bfloat16>(g, op, kg, blocks, smem, x, w, b, y, err);
	return launch_op<float>(g, op, kg, blocks, smem, x, w, b, y, err);
}
