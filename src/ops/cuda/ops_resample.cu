/*
 * CUDA baseline and fp64 reference of table F's resampling ops
 * (src/ops/table_f.h): interpolate and grid_sample.
 *
 * interpolate: source indices and weights from table_f.h's float formulas
 * (so the nearest index equals the CPU's bit for bit), the blend in float
 * (baseline, any float dtype) or double (reference).  The baseline
 * (interp_rows_k) gives a thread 8 consecutive output columns of a row and
 * walks rows: its column taps and weights are computed once, a row's source
 * rows and weight once a row, taps shared by neighbouring columns loaded
 * once, and the outputs go out as 16-byte stores where rows are aligned.
 * The reference (and the baseline for extents beyond 2^30) is interp_k, one
 * thread per output element.
 *
 * grid_sample: the baseline with many channels (C >= 32, a multiple of the
 * 16-byte vector) goes channels-last (gs_try_cl: x transposed into
 * g->big, then 32 output pixels a block, a tap's channels read 16 bytes a
 * lane); otherwise, and for the reference, grid_sample_k: a thread per
 * output pixel (n, ho, wo), grid-strided with 64-bit indices, reads its
 * (x, y) as one 2-element load, computes the pixel coordinates with
 * table_f.h's kjf_gs_coord_f (baseline, float, any float dtype) or
 * kjf_gs_coord_d (reference, double), its taps and weights once, then
 * loops over the channels: the input reads are gathers, the output stores
 * are coalesced along Wo (neighbouring threads own neighbouring pixels of
 * one channel plane).  Both skip taps outside the image, as the CPU
 * kernels do, and add them in the same order (nw, ne, sw, se).
 */
#include <limits.h>

#include "ops/cuda/ops_common.cuh"

extern "C" {
#include "ops/table_f.h"
}

/* ---- interpolate ---- */

struct kjf_interp_geom {
	int64_t ih, iw, oh, ow, total;
	float sh, sw;
	int bilinear, align;
};

template <class T>
__global__ void interp_k(const T *__restrict__ x, T *__restrict__ y, kjf_interp_geom g)
{
	typedef typename kjt<T>::acc A;
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < g.total; e += stride) {
		int64_t c = e % g.ow, t = e / g.ow, r = t % g.oh, p = t / g.oh;
		const T *xp = x + p * g.ih * g.iw;
		if (!g.bilinear) {
			y[e] = xp[kjf_nearest(r, g.sh, g.ih) * g.iw + kjf_nearest(c, g.sw, g.iw)];
			continue;
		}
		int64_t h0, hs, w0, ws;
		float hl, wl;
		kjf_linear_src(r, g.sh, g.ih, g.align, &h0, &hs, &hl);
		kjf_linear_src(c, g.sw, g.iw, g.align, &w0, &ws, &wl);
		const T *x0 = xp + h0 * g.iw, *x1 = xp + (h0 + hs) * g.iw;
		A h1l = (A)hl, h0l = (A)(1.0f - hl), w1l = (A)wl, w0l = (A)(1.0f - wl);
		A v = h0l * (w0l * kjt<T>::ld(x0[w0]) + w1l * kjt<T>::ld(x0[w0 + ws])) +
		      h1l * (w0l * kjt<T>::ld(x1[w0]) + w1l * kjt<T>::ld(x1[w0 + ws]));
		y[e] = kjt<T>::st(v);
	}
}

/* The baseline kernel: a thread owns KJ_INTERP_U consecutive output columns
 * and walks output rows (plane, row) grid-strided along y, so its source
 * columns and column weights are computed once, before the row loop, and a
 * row's source row(s) and row weight once per row; nothing per element
 * divides.  Column offsets are int (interp_launch checks the extents),
 * rows and planes int64.  A tap at the address of the previous
 * column's tap is reused rather than loaded again (2x upsampling loads each
 * source value once per thread and row).  Stores are 16-byte vectors when
 * every row start is aligned (vec: ow a multiple of the vector width and y
 * aligned), scalars otherwise. */
#define KJ_INTERP_U 8

struct kjf_interp_rows {
	int64_t rows, plane; /* planes * oh, ih * iw */
	int ih, iw, oh, ow;
	float sh, sw;
	int align, vec;
};

template <class T, int BIL>
__global__ void __launch_bounds__(256) interp_rows_k(const T *__restrict__ x, T *__restrict__ y,
						     kjf_interp_rows g)
{
	typedef typename kjt<T>::acc A;
	enum { U = KJ_INTERP_U, V = kjv<T>::N };
	static_assert(U % V == 0, "a thread's columns are whole 16-byte vectors");
	const int64_t step = (int64_t)gridDim.y * blockDim.y;
	const int64_t step_p = step / g.oh;
	const int step_r = (int)(step - step_p * g.oh);
	const int64_t row0 = (int64_t)blockIdx.y * blockDim.y + threadIdx.y;
	const int cstep = (int)(gridDim.x * blockDim.x) * U;

	for (int c0 = (int)(blockIdx.x * blockDim.x + threadIdx.x) * U; c0 < g.ow; c0 += cstep) {
		const int n = g.ow - c0 < U ? g.ow - c0 : U;
		/* lo: the (lower) tap; bits k, U + k and 2U + k of tap: column k's
		 * taps are the previous column's (same), its lower tap is the
		 * previous upper one (shift), its upper tap is lo + 1 (else lo). */
		int lo[U], tap = 0, hi_prev = -1;
		float wl[U];
#pragma unroll
		for (int k = 0; k < U; k++) {
			int c = k < n ? c0 + k : c0 + n - 1, hi;
			if (BIL) {
				int64_t i0, st;
				kjf_linear_src(c, g.sw, g.iw, g.align, &i0, &st, &wl[k]);
				lo[k] = (int)i0;
				hi = (int)(i0 + st);
			} else {
				lo[k] = hi = (int)kjf_nearest(c, g.sw, g.iw);
				wl[k] = 0.0f;
			}
			if (k > 0 && lo[k] == lo[k - 1] && hi == hi_prev)
				tap |= 1 << k;
			if (k > 0 && lo[k] == hi_prev)
				tap |= 1 << (U + k);
			if (hi != lo[k])
				tap |= 1 << (2 * U + k);
			hi_prev = hi;
		}
		int64_t row = row0, p = row0 / g.oh;
		int r = (int)(row0 - p * g.oh);
		for (; row < g.rows; row += step) {
			const T *xp = x + p * g.plane;
			T *yr = y + row * g.ow + c0;
			kjv<T> o[U / V];
			if (BIL) {
				int64_t h0, hs;
				float hl;
				kjf_linear_src(r, g.sh, g.ih, g.align, &h0, &hs, &hl);
				const T *x0 = xp + h0 * g.iw, *x1 = xp + (h0 + hs) * g.iw;
				A h1l = (A)hl, h0l = (A)(1.0f - hl), a0 = 0, b0 = 0, a1 = 0, b1 = 0;
#pragma unroll
				for (int k = 0; k < U; k++) {
					if (!(tap >> k & 1)) {
						int hi = lo[k] + (tap >> (2 * U + k) & 1);
						if (tap >> (U + k) & 1) {
							a0 = b0;
							a1 = b1;
						} else {
							a0 = kjt<T>::ld(x0[lo[k]]);
							a1 = kjt<T>::ld(x1[lo[k]]);
						}
						b0 = kjt<T>::ld(x0[hi]);
						b1 = kjt<T>::ld(x1[hi]);
					}
					A w1 = (A)wl[k], w0 = (A)(1.0f - wl[k]);
					A v = h0l * (w0 * a0 + w1 * b0) + h1l * (w0 * a1 + w1 * b1);
					o[k / V].e[k % V] = kjt<T>::st(v);
				}
			} else {
				const T *xr = xp + kjf_nearest(r, g.sh, g.ih) * g.iw;
				T v = xr[lo[0]];
#pragma unroll
				for (int k = 0; k < U; k++) {
					if (k > 0 && !(tap >> k & 1))
						v = xr[lo[k]];
					o[k / V].e[k % V] = v;
				}
			}
#pragma unroll
			for (int j = 0; j < U / V; j++) {
				if (g.vec && n >= (j + 1) * V) {
					*(kjv<T> *)(yr + j * V) = o[j];
				} else {
#pragma unroll
					for (int k = 0; k < V; k++)
						if (j * V + k < n)
							yr[j * V + k] = o[j].e[k];
				}
			}
			r += step_r;
			p += step_p;
			if (r >= g.oh) {
				r -= g.oh;
				p++;
			}
		}
	}
}

/* interp_rows_k's shape for kernel k: about 256 threads a block, as many
 * along a row as its column groups need (at most 256), the rest on further
 * rows (narrow rows share a warp, their stores still contiguous); along y
 * one full wave of resident blocks (every block walks
 * the same number of rows and none waits for a second wave), fewer when
 * there are fewer rows. */
static void interp_rows_cfg(const kj_gpu *g, const void *k, int64_t ow, int64_t rows, dim3 *grid,
			    dim3 *block)
{
	int64_t groups = (ow + KJ_INTERP_U - 1) / KJ_INTERP_U, gx, gy, cap;
	unsigned tx = groups >= 256 ? 256u : (unsigned)groups, ty = 256u / tx;
	int per_sm = 0;
	if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, (int)(tx * ty), 0) !=
		    cudaSuccess ||
	    per_sm < 1) {
		(void)cudaGetLastError();
		per_sm = 2;
	}
	gx = (groups + tx - 1) / tx;
	gy = (rows + ty - 1) / ty;
	cap = (int64_t)g->info.sm_count * per_sm / gx;
	if (cap > 65535)
		cap = 65535;
	if (gy > cap)
		gy = cap;
	if (gy < 1)
		gy = 1;
	*block = dim3(tx, ty, 1);
	*grid = dim3((unsigned)gx, (unsigned)gy, 1);
}

/* The baseline for one float dtype: interp_rows_k, or interp_k (64-bit
 * indices) when an extent exceeds 2^30. */
template <class T>
static void interp_launch(kj_gpu *g, const void *x, void *y, const kjf_interp_geom *gm)
{
	const int64_t big = (int64_t)1 << 30;
	void (*k)(const T *, T *, kjf_interp_rows) =
		gm->bilinear ? interp_rows_k<T, 1> : interp_rows_k<T, 0>;
	kjf_interp_rows rg;
	dim3 grid, block;
	if (gm->ih > big || gm->iw > big || gm->oh > big || gm->ow > big) {
		interp_k<T><<<kj_blocks(g, gm->total, 256), 256, 0, g->stream>>>((const T *)x, (T *)y,
										 *gm);
		return;
	}
	rg.rows = gm->total / gm->ow;
	rg.plane = gm->ih * gm->iw;
	rg.ih = (int)gm->ih;
	rg.iw = (int)gm->iw;
	rg.oh = (int)gm->oh;
	rg.ow = (int)gm->ow;
	rg.sh = gm->sh;
	rg.sw = gm->sw;
	rg.align = gm->align;
	rg.vec = gm->ow % kjv<T>::N == 0 && kj_aligned16(y);
	interp_rows_cfg(g, (const void *)k, gm->ow, rg.rows, &grid, &block);
	k<<<grid, block, 0, g->stream>>>((const T *)x, (T *)y, rg);
}

int kj_cuda_interpolate(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
			int reference, struct kj_err *err)
{
	const kj_shape *xs = &n->in[0].shape, *os = &n->out.shape;
	kjf_interp_geom gm;
	unsigned blocks;
	gm.ih = xs->d[2];
	gm.iw = xs->d[3];
	gm.oh = os->d[2];
	gm.ow = os->d[3];
	gm.total = kjo_numel(os);
	gm.align = kjo_attr_i(n, KJF_INTERP_ALIGN, 0) != 0;
	gm.bilinear = !strcmp(kjo_attr(n, KJF_INTERP_MODE)->s, "bilinear");
	gm.sh = kjf_scale(gm.ih, gm.oh, gm.align);
	gm.sw = kjf_scale(gm.iw, gm.ow, gm.align);
	if (gm.total == 0)
		return 0;
	blocks = kj_blocks(g, gm.total, 256);
	if (reference) {
		interp_k<double><<<blocks, 256, 0, g->stream>>>((const double *)in[0], (double *)out, gm);
	} else {
		switch (n->in[0].dtype) {
		case KJ_F32:
			interp_launch<float>(g, in[0], out, &gm);
			break;
		case KJ_F16:
			interp_launch<__half>(g, in[0], out, &gm);
			break;
		case KJ_BF16:
			interp_launch<__nv_bfloat16>(g, in[0], out, &gm);
			break;
		default:
			return kj_err_set(err, KJ_E_UNSUPPORTED, "interpolate: dtype %s",
					  kj_dtype_name(n->in[0].dtype));
		}
	}
	KJ_LAUNCH_CHECK(err, "interpolate");
	return 0;
}

/* ---- grid_sample ---- */

struct kjf_gs_geom {
	int64_t ch, ih, iw, opix, total; /* total: N * Ho * Wo pixels */
	int align, pad;
};

__device__ __forceinline__ float gs_coord(float g, int64_t size, int align, int pad)
{
	return kjf_gs_coord_f(g, size, align, pad);
}
__device__ __forceinline__ double gs_coord(double g, int64_t size, int align, int pad)
{
	return kjf_gs_coord_d(g, size, align, pad);
}

template <class T, int NEAR, int U>
__global__ void __launch_bounds__(256) grid_sample_k(const T *__restrict__ x,
						      const T *__restrict__ grid,
						      T *__restrict__ y, kjf_gs_geom g)
{
	typedef typename kjt<T>::acc A;
	const int64_t stride = (int64_t)gridDim.x * blockDim.x, plane = g.ih * g.iw;
	for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < g.total; e += stride) {
		const int64_t b = e / g.opix, q = e - b * g.opix;
		const T *xb = x + b * g.ch * plane;
		T *yb = y + b * g.ch * g.opix + q;
		A cx = gs_coord(kjt<T>::ld(grid[2 * e]), g.iw, g.align, g.pad);
		A cy = gs_coord(kjt<T>::ld(grid[2 * e + 1]), g.ih, g.align, g.pad);
		if (!kjf_gs_in_range((double)cx, g.iw) || !kjf_gs_in_range((double)cy, g.ih))
			cx = cy = (A)-2;
		if (NEAR) {
			int64_t px = (int64_t)rint(cx), py = (int64_t)rint(cy);
			if (px >= 0 && px < g.iw && py >= 0 && py < g.ih) {
				const T *xp = xb + py * g.iw + px;
				for (int64_t c = 0; c < g.ch; c++)
					yb[c * g.opix] = xp[c * plane];
			} else {
				const T z = kjt<T>::st((A)0);
				for (int64_t c = 0; c < g.ch; c++)
					yb[c * g.opix] = z;
			}
			continue;
		}
		A fx0 = floor(cx), fy0 = floor(cy);
		int64_t x0 = (int64_t)fx0, y0 = (int64_t)fy0;
		A ex = cx - fx0, wx = (fx0 + (A)1) - cx, ey = cy - fy0, wy = (fy0 + (A)1) - cy;
		A wt[4] = {wx * wy, ex * wy, wx * ey, ex * ey};
		int64_t off[4];
		int use = 0;
#pragma unroll
		for (int k = 0; k < 4; k++) {
			int64_t tx = x0 + (k & 1), ty = y0 + (k >> 1);
			int in = tx >= 0 && tx < g.iw && ty >= 0 && ty < g.ih;
			use |= in << k;
			off[k] = in ? ty * g.iw + tx : 0;
		}
		/* channels unrolled U times: more gathers in flight, but U input
		 * planes per block live in L1 at once */
#pragma unroll U
		for (int64_t c = 0; c < g.ch; c++) {
			const T *xc = xb + c * plane;
			A v = 0;
#pragma unroll
			for (int k = 0; k < 4; k++)
				if (use >> k & 1)
					v += kjt<T>::ld(xc[off[k]]) * wt[k];
			yb[c * g.opix] = kjt<T>::st(v);
		}
	}
}

/* ---- grid_sample, channels last ----
 * The NCHW kernel above gathers one element per tap and channel: 32 lanes
 * of a warp read 32 random places of a channel plane, each a separate L1
 * line, and the bench shapes ran at 2x PyTorch.  With x transposed to
 * [N, H * W, C] (gs_nhwc_k, into g->big), a tap's channels are contiguous:
 * 8 lanes read one pixel's 8 x 16 bytes of a chunk of channels, a warp 4
 * pixels, so one line serves 32 (f32) or 64 (16-bit) channels.  A block
 * takes 32 output pixels: their taps and weights computed once into shared
 * memory, then per chunk of channels the blended values go through shared
 * memory to be stored as rows of 32 consecutive pixels per channel. */
#define GS_TP 32

template <class T>
__global__ void __launch_bounds__(256) gs_nhwc_k(const T *__restrict__ x, T *__restrict__ xt,
						  int64_t C, int64_t P)
{
	__shared__ T t[32][33];
	const int64_t n = blockIdx.z, c0 = (int64_t)blockIdx.y * 32, p0 = (int64_t)blockIdx.x * 32;
	const T *xn = x + n * C * P;
	T *yn = xt + n * C * P;
	const int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;
	for (int r = ty; r < 32; r += 8)
		if (c0 + r < C && p0 + tx < P)
			t[r][tx] = xn[(c0 + r) * P + p0 + tx];
	__syncthreads();
	for (int r = ty; r < 32; r += 8)
		if (p0 + r < P && c0 + tx < C)
			yn[(p0 + r) * C + c0 + tx] = t[tx][r];
}

template <class T, int NEAR>
__global__ void __launch_bounds__(256) gs_cl_k(const T *__restrict__ xt, const T *__restrict__ grid,
						T *__restrict__ y, kjf_gs_geom g)
{
	typedef kjv<T> V;
	const int VN = V::N, CC = 8 * VN; /* channels per chunk */
	__shared__ int64_t s_off[GS_TP][4]; /* tap element offsets into xt, -1: outside */
	__shared__ float s_w[GS_TP][4];
	__shared__ int64_t s_yb[GS_TP]; /* output offset of channel 0, -1: past the end */
	__shared__ float s_out[64][GS_TP + 1];
	const int64_t plane = g.ih * g.iw;
	const int tid = threadIdx.x;

	if (tid < GS_TP) {
		const int64_t e = (int64_t)blockIdx.x * GS_TP + tid;
#pragma unroll
		for (int k = 0; k < 4; k++) {
			s_off[tid][k] = -1;
			s_w[tid][k] = 0.0f;
		}
		s_yb[tid] = -1;
		if (e < g.total) {
			const int64_t b = e / g.opix, q = e - b * g.opix, xb = b * plane * g.ch;
			float cx = gs_coord(kjt<T>::ld(grid[2 * e]), g.iw, g.align, g.pad);
			float cy = gs_coord(kjt<T>::ld(grid[2 * e + 1]), g.ih, g.align, g.pad);
			s_yb[tid] = b * g.ch * g.opix + q;
			if (!kjf_gs_in_range((double)cx, g.iw) || !kjf_gs_in_range((double)cy, g.ih))
				cx = cy = -2.0f;
			if (NEAR) {
				int64_t px = (int64_t)rintf(cx), py = (int64_t)rintf(cy);
				if (px >= 0 && px < g.iw && py >= 0 && py < g.ih) {
					s_off[tid][0] = xb + (py * g.iw + px) * g.ch;
					s_w[tid][0] = 1.0f;
				}
			} else {
				float fx0 = floorf(cx), fy0 = floorf(cy);
				int64_t x0 = (int64_t)fx0, y0 = (int64_t)fy0;
				float ex = cx - fx0, wx = (fx0 + 1.0f) - cx, ey = cy - fy0, wy = (fy0 + 1.0f) - cy;
				float wt[4] = {wx * wy, ex * wy, wx * ey, ex * ey};
#pragma unroll
				for (int k = 0; k < 4; k++) {
					int64_t tx = x0 + (k & 1), ty = y0 + (k >> 1);
					if (tx >= 0 && tx < g.iw && ty >= 0 && ty < g.ih) {
						s_off[tid][k] = xb + (ty * g.iw + tx) * g.ch;
						s_w[tid][k] = wt[k];
					}
				}
			}
		}
	}
	__syncthreads();
	const int w = tid >> 5, lane = tid & 31, pl = w * 4 + (lane >> 3), cv = lane & 7;
	for (int64_t c0 = 0; c0 < g.ch; c0 += CC) {
		const int64_t c = c0 + cv * VN;
		float acc[VN];
#pragma unroll
		for (int j = 0; j < VN; j++)
			acc[j] = 0.0f;
		if (c < g.ch) {
			V v[4];
#pragma unroll
			for (int k = 0; k < 4; k++)
				if (s_off[pl][k] >= 0)
					v[k] = *(const V *)(xt + s_off[pl][k] + c);
#pragma unroll
			for (int k = 0; k < 4; k++)
				if (s_off[pl][k] >= 0) {
					const float wk = s_w[pl][k];
#pragma unroll
					for (int j = 0; j < VN; j++)
						acc[j] += kjt<T>::ld(v[k].e[j]) * wk;
				}
		}
#pragma unroll
		for (int j = 0; j < VN; j++)
			s_out[cv * VN + j][pl] = acc[j];
		__syncthreads();
		for (int r = w; r < CC; r += 8)
			if (c0 + r < g.ch && s_yb[lane] >= 0)
				y[s_yb[lane] + (c0 + r) * g.opix] = kjt<T>::st(s_out[r][lane]);
		__syncthreads();
	}
}

/* The channels-last route where it applies (float or 16-bit, C a multiple
 * of the 16-byte vector and >= 32, N <= 65535, x 16-byte aligned, scratch
 * for a copy of x; KJ_GS_CL=0 turns it off, for measurements): 1 when
 * launched, 0 to take the NCHW kernel. */
template <class T>
static int gs_try_cl(kj_gpu *kg, const void *x, const void *grid, void *y, const kjf_gs_geom *gm,
		     int nearest, int64_t n)
{
	const int VN = kjv<T>::N;
	const int64_t P = gm->ih * gm->iw;
	void *xt;
	if (!kj_knob_int("KJ_GS_CL") || gm->ch < 32 || gm->ch % VN || n > 65535 || !kj_aligned16(x))
		return 0;
	if (!(xt = kj_gpu_big(kg, (size_t)(n * gm->ch * P) * sizeof(T))))
		return 0;
	dim3 tg((unsigned)((P + 31) / 32), (unsigned)((gm->ch + 31) / 32), (unsigned)n);
	gs_nhwc_k<T><<<tg, 256, 0, kg->stream>>>((const T *)x, (T *)xt, gm->ch, P);
	unsigned blocks = (unsigned)((gm->total + GS_TP - 1) / GS_TP);
	if (nearest)
		gs_cl_k<T, 1><<<blocks, 256, 0, kg->stream>>>((const T *)xt, (const T *)grid, (T *)y, *gm);
	else
		gs_cl_k<T, 0><<<blocks, 256, 0, kg->stream>>>((const T *)xt, (const T *)grid, (T *)y, *gm);
	return 1;
}

template <class T, int U>
static void gs_launch_u(kj_gpu *kg, const void *x, const void *grid, void *y,
			const kjf_gs_geom *gm, int nearest)
{
	unsigned blocks = kj_blocks(kg, gm->total, 256);
	if (nearest)
		grid_sample_k<T, 1, U><<<blocks, 256, 0, kg->stream>>>((const T *)x, (const T *)grid,
								       (T *)y, *gm);
	else
		grid_sample_k<T, 0, U><<<blocks, 256, 0, kg->stream>>>((const T *)x, (const T *)grid,
								       (T *)y, *gm);
}

/* KJ_GS_UNROLL (1, 2 or 4; for measurements) picks the channel unroll of
 * the NCHW kernel */
template <class T>
static void gs_launch(kj_gpu *kg, const void *x, const void *grid, void *y,
		      const kjf_gs_geom *gm, int nearest, int64_t n)
{
	if constexpr (sizeof(T) <= 4) /* the baseline's dtypes, not the fp64 reference */
		if (gs_try_cl<T>(kg, x, grid, y, gm, nearest, n))
			return;
	switch (kj_knob_int("KJ_GS_UNROLL")) {
	case 4:
		gs_launch_u<T, 4>(kg, x, grid, y, gm, nearest);
		break;
	case 2:
		gs_launch_u<T, 2>(kg, x, grid, y, gm, nearest);
		break;
	default:
		gs_launch_u<T, 1>(kg, x, grid, y, gm, nearest);
	}
}

int kj_cuda_grid_sample(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
			int reference, struct kj_err *err)
{
	const kj_shape *xs = &n->in[0].shape, *os = &n->out.shape;
	int nearest = !strcmp(kjo_attr(n, KJF_GS_MODE)->s, "nearest");
	kjf_gs_geom gm;
	gm.ch = xs->d[1];
	gm.ih = xs->d[2];
	gm.iw = xs->d[3];
	gm.opix = os->d[2] * os->d[3];
	gm.total = os->d[0] * gm.opix;
	gm.align = kjo_attr_i(n, KJF_GS_ALIGN, 0) != 0;
	gm.pad = kjf_gs_pad(n);
	if (gm.total == 0 || gm.ch == 0)
		return 0;
	if (reference) {
		gs_launch<double>(g, in[0], in[1], out, &gm, nearest, 0);
	} else {
		switch (n->in[0].dtype) {
		case KJ_F32:
			gs_launch<float>(g, in[0], in[1], out, &gm, nearest, xs->d[0]);
			break;
		case KJ_F16:
			gs_launch<__half>(g, in[0], in[1], out, &gm, nearest, xs->d[0]);
			break;
		case KJ_BF16:
			gs_launch<__nv_bfloat16>(g, in[0], in[1], out, &gm, nearest, xs->d[0]);
			break;
		default:
			return kj_err_set(err, KJ_E_UNSUPPORTED, "grid_sample: dtype %s",
					  kj_dtype_name(n->in[0].dtype));
		}
	}
	KJ_LAUNCH_CHECK(err, "grid_sample");
	return 0;
}
