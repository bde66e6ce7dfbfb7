/*
 * CUDA layout ops: transpose and permute (a dense copy in the new order),
 * reshape and copy (a device-to-device copy), and cast.  Layout ops move
 * elements as opaque words of the buffer's element size, so one kernel
 * serves every dtype and the reference's doubles.
 *
 * A permutation is first coalesced (unit dims dropped, dims that stay
 * adjacent in both layouts merged).  If the innermost output dim is also
 * contiguous in the input, rows are copied straight (the row kernel takes
 * any input stride, so it is also the fallback); otherwise 64x64 tiles
 * pass through shared memory so that both the reads (along the input's
 * contiguous dim) and the writes (along the output's) are coalesced.
 */
#include "ops/cuda/ops_common.cuh"

struct kj_pgeom {
	int r;
	int64_t d[KJ_MAX_RANK];   /* output extents */
	int64_t ist[KJ_MAX_RANK]; /* input stride of each output dim */
	int64_t ost[KJ_MAX_RANK]; /* output stride of each output dim */
	int p;                    /* output dim with input stride 1 (tiled case) */
	int64_t batch;            /* product of dims other than p and r-1 */
};

/* Input and output offsets of batch index b over every dim except p and
 * r-1 (the tiled ones), or of row b over dims 0..r-2 when p < 0. */
__device__ __forceinline__ void perm_base(const kj_pgeom &gm, int64_t b, int64_t *io, int64_t *oo)
{
	int64_t i = 0, o = 0;
	for (int k = gm.r - 2; k >= 0; k--) {
		if (k == gm.p)
			continue;
		int64_t q = b / gm.d[k], c = b - q * gm.d[k];
		i += c * gm.ist[k];
		o += c * gm.ost[k];
		b = q;
	}
	*io = i;
	*oo = o;
}

/* Rows of the output (every dim but the last) in a 2-D block: bx threads
 * along a row (a power of two covering it, at most 256), by = 256 / bx rows
 * at once, so that short rows (the 64-element heads of attention's
 * permutes) keep every lane busy. */
template <class E> __global__ void perm_rows_k(const E *__restrict__ x, E *__restrict__ y, kj_pgeom gm)
{
	int64_t inner = gm.d[gm.r - 1], sj = gm.ist[gm.r - 1];
	for (int64_t row = (int64_t)blockIdx.y * blockDim.y + threadIdx.y; row < gm.batch;
	     row += (int64_t)gridDim.y * blockDim.y) {
		int64_t io, oo;
		perm_base(gm, row, &io, &oo);
		for (int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; j < inner;
		     j += (int64_t)gridDim.x * blockDim.x)
			y[oo + j] = x[io + j * sj];
	}
}

/* Block 32x8; tile (P, Q) = 64x64 of output dims p and r-1.  Each thread
 * issues its 16 loads before the first shared-memory store, so that enough
 * bytes are in flight to keep the memory system busy; the padded row (65)
 * keeps the transposed reads free of bank conflicts for 4-byte elements. */
#define KJ_PT 64
template <class E> __global__ void perm_tile_k(const E *__restrict__ x, E *__restrict__ y, kj_pgeom gm)
{
	__shared__ E tile[KJ_PT][KJ_PT + 1];
	int q = gm.r - 1;
	int64_t P = gm.d[gm.p], Q = gm.d[q], sq = gm.ist[q], sp = gm.ost[gm.p];
	int64_t tiles_q = (Q + KJ_PT - 1) / KJ_PT, tiles_p = (P + KJ_PT - 1) / KJ_PT;
	int tx = threadIdx.x, ty = threadIdx.y;

	for (int64_t b = blockIdx.z; b < gm.batch; b += gridDim.z) {
		int64_t io, oo;
		perm_base(gm, b, &io, &oo);
		for (int64_t tp = blockIdx.y; tp < tiles_p; tp += gridDim.y) {
			for (int64_t tq = blockIdx.x; tq < tiles_q; tq += gridDim.x) {
				int64_t p0 = tp * KJ_PT, q0 = tq * KJ_PT;
				E v[16];
#pragma unroll
				for (int u = 0; u < 16; u++) {
					int i = ty + 8 * (u >> 1), c = tx + 32 * (u & 1);
					int64_t pp = p0 + c, qq = q0 + i;
					v[u] = pp < P && qq < Q ? x[io + pp + qq * sq] : E();
				}
#pragma unroll
				for (int u = 0; u < 16; u++)
					tile[ty + 8 * (u >> 1)][tx + 32 * (u & 1)] = v[u];
				__syncthreads();
#pragma unroll
				for (int u = 0; u < 16; u++) {
					int i = ty + 8 * (u >> 1), c = tx + 32 * (u & 1);
					int64_t pp = p0 + i, qq = q0 + c;
					if (pp < P && qq < Q)
						y[oo + pp * sp + qq] = tile[c][i];
				}
				__syncthreads();
			}
		}
	}
}

template <class E> static void perm_rows_launch(kj_gpu *g, const void *x, void *y, const kj_pgeom &gm)
{
	int64_t inner = gm.d[gm.r - 1], bx = 1;
	while (bx < 256 && bx < inner)
		bx *= 2;
	int64_t by = 256 / bx, gy = (gm.batch + by - 1) / by;
	unsigned gx = kj_blocks(g, inner, (int)bx);
	if (gm.batch > 1)
		gx = (unsigned)((inner + bx - 1) / bx);
	dim3 grid(gx, (unsigned)(gy < 65535 ? gy : 65535)), block((unsigned)bx, (unsigned)by);
	perm_rows_k<E><<<grid, block, 0, g->stream>>>((const E *)x, (E *)y, gm);
}

template <class E> static void perm_launch(kj_gpu *g, const void *x, void *y, const kj_pgeom &gm)
{
	if (gm.p < 0) {
		perm_rows_launch<E>(g, x, y, gm);
		return;
	}
	int64_t tq = (gm.d[gm.r - 1] + KJ_PT - 1) / KJ_PT, tp = (gm.d[gm.p] + KJ_PT - 1) / KJ_PT;
	dim3 grid((unsigned)(tq < 65535 ? tq : 65535), (unsigned)(tp < 65535 ? tp : 65535),
		  (unsigned)(gm.batch < 65535 ? gm.batch : 65535));
	perm_tile_k<E><<<grid, dim3(32, 8), 0, g->stream>>>((const E *)x, (E *)y, gm);
}

/* Rows contiguous in both layouts move as the widest words (up to 16 bytes)
 * dividing the row length, every row stride and both addresses: the
 * geometry is rescaled from elements of es bytes to words of w bytes. */
static int perm_word(const kj_pgeom &gm, size_t es, const void *x, const void *y, kj_pgeom *gw)
{
	int w = 16;
	if (gm.p >= 0 || gm.ist[gm.r - 1] != 1)
		return (int)es;
	for (; w > (int)es; w >>= 1) {
		bool ok = (gm.d[gm.r - 1] * (int64_t)es) % w == 0 && (uintptr_t)x % w == 0 &&
			  (uintptr_t)y % w == 0;
		for (int k = 0; k < gm.r - 1 && ok; k++)
			ok = (gm.ist[k] * (int64_t)es) % w == 0 && (gm.ost[k] * (int64_t)es) % w == 0;
		if (ok)
			break;
	}
	*gw = gm;
	if (w == (int)es)
		return w;
	int64_t f = w / (int64_t)es;
	gw->d[gm.r - 1] = gm.d[gm.r - 1] / f;
	for (int k = 0; k < gm.r - 1; k++) {
		gw->ist[k] = gm.ist[k] / f;
		gw->ost[k] = gm.ost[k] / f;
	}
	return w;
}

/* y = x with dim i of y being dim perm[i] of x. */
static int permute_run(kj_gpu *g, const kj_bnode *n, const int *perm, const void *x, void *y,
		       int reference, struct kj_err *err)
{
	const kj_shape *xs = &n->in[0].shape;
	size_t es = reference ? 8 : kj_dtype_size(n->in[0].dtype);
	int64_t xst[KJ_MAX_RANK], s = 1, total = kjo_numel(xs);
	kj_pgeom gm;
	int r = 0;

	if (total == 0)
		return 0;
	for (int i = xs->rank - 1; i >= 0; i--) {
		xst[i] = s;
		s *= xs->d[i];
	}
	memset(&gm, 0, sizeof(gm));
	for (int i = 0; i < xs->rank; i++) {
		int64_t d = xs->d[perm[i]], st = xst[perm[i]];
		if (d == 1)
			continue;
		if (r > 0 && gm.ist[r - 1] == st * d) {
			gm.d[r - 1] *= d;
			gm.ist[r - 1] = st;
			continue;
		}
		gm.d[r] = d;
		gm.ist[r++] = st;
	}
	if (r == 0 || (r == 1 && gm.ist[0] == 1)) {
		KJ_CUDA_CHECK(err, cudaMemcpyAsync(y, x, (size_t)total * es, cudaMemcpyDeviceToDevice,
						   g->stream));
		return 0;
	}
	gm.r = r;
	s = 1;
	for (int i = r - 1; i >= 0; i--) {
		gm.ost[i] = s;
		s *= gm.d[i];
	}
	gm.p = -1;
	if (gm.ist[r - 1] != 1)
		for (int i = 0; i < r - 1; i++)
			if (gm.ist[i] == 1)
				gm.p = i;
	gm.batch = 1;
	for (int i = 0; i < r - 1; i++)
		if (i != gm.p)
			gm.batch *= gm.d[i];
	kj_pgeom gw = gm;
	switch (perm_word(gm, es, x, y, &gw)) {
	case 1:
		perm_launch<uint8_t>(g, x, y, gw);
		break;
	case 2:
		perm_launch<uint16_t>(g, x, y, gw);
		break;
	case 4:
		perm_launch<uint32_t>(g, x, y, gw);
		break;
	case 8:
		perm_launch<unsigned long long>(g, x, y, gw);
		break;
	default: /* 16-byte words: rows only (perm_word) */
		perm_rows_launch<uint4>(g, x, y, gw);
		break;
	}
	KJ_LAUNCH_CHECK(err, n->op->name);
	return 0;
}

int kj_cuda_transpose(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
		      int reference, struct kj_err *err)
{
	int rank = n->in[0].shape.rank, perm[KJ_MAX_RANK], d0, d1, t;

	if (rank == 0)
		return kj_cuda_copy(g, n, in, out, reference, err);
	for (int i = 0; i < rank; i++)
		perm[i] = i;
	d0 = kjb_norm_dim(n->attr[0].i, rank);
	d1 = kjb_norm_dim(n->attr[1].i, rank);
	t = perm[d0];
	perm[d0] = perm[d1];
	perm[d1] = t;
	return permute_run(g, n, perm, in[0], out, reference, err);
}

int kj_cuda_permute(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
		    int reference, struct kj_err *err)
{
	int rank = n->in[0].shape.rank, perm[KJ_MAX_RANK];
	const int64_t *dims;

	if (rank == 0)
		return kj_cuda_copy(g, n, in, out, reference, err);
	kjb_ints(&n->attr[0], &dims);
	for (int i = 0; i < rank; i++)
		perm[i] = kjb_norm_dim(dims[i], rank);
	return permute_run(g, n, perm, in[0], out, reference, err);
}

int kj_cuda_copy(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out, int reference,
		 struct kj_err *err)
{
	size_t es = reference ? 8 : kj_dtype_size(n->out.dtype);
	size_t bytes = (size_t)kjo_numel(&n->out.shape) * es;

	if (bytes)
		KJ_CUDA_CHECK(err, cudaMemcpyAsync(out, in[0], bytes, cudaMemcpyDeviceToDevice,
						   g->stream));
	return 0;
}

int kj_cuda_reshape(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
		    int reference, struct kj_err *err)
{
	return kj_cuda_copy(g, n, in, out, reference, err);
}

/* ---- cast ---- */

/* Between float dtypes every value converts exactly through float, so the
 * one rounding of kj_store's double -> float -> target is the only one. */
template <class TI, class TO>
__global__ void __launch_bounds__(256) cast_float_k(const TI *__restrict__ x, TO *__restrict__ y,
						     int64_t n)
{
	const int N = 8;
	struct alignas(sizeof(TI) * N) vi { TI e[N]; };
	struct alignas(sizeof(TO) * N) vo { TO e[N]; };
	int64_t nv = n / N, stride = (int64_t)gridDim.x * blockDim.x;
	int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;

	for (int64_t i = tid; i < nv; i += stride) {
		vi a = ((const vi *)x)[i];
		vo b;
#pragma unroll
		for (int k = 0; k < N; k++)
			b.e[k] = kjt<TO>::st(kjt<TI>::ld(a.e[k]));
		((vo *)y)[i] = b;
	}
	for (int64_t i = nv * N + tid; i < n; i += stride)
		y[i] = kjt<TO>::st(kjt<TI>::ld(x[i]));
}

/* Integer to float (i8 to any float dtype, i32 to f32): exact through float
 * except the one rounding to TO, so the same value as kj_store's rounding
 * from double.  16-byte loads of i8, where cast_dyn_k moved one element per
 * thread through dtype codes (the int4 unpack's cast of 235M i8 took 0.92 ms
 * on the H200, a quarter of copy bandwidth). */
template <class TI, class TO, int N>
__global__ void __launch_bounds__(256) cast_int_k(const TI *__restrict__ x, TO *__restrict__ y,
						   int64_t n)
{
	struct alignas(sizeof(TI) * N) vi { TI e[N]; };
	struct alignas(sizeof(TO) * N < 16 ? sizeof(TO) * N : 16) vo { TO e[N]; };
	int64_t nv = n / N, stride = (int64_t)gridDim.x * blockDim.x;
	int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;

	for (int64_t i = tid; i < nv; i += stride) {
		vi a = ((const vi *)x)[i];
		vo b;
#pragma unroll
		for (int k = 0; k < N; k++)
			b.e[k] = kjt<TO>::st((float)a.e[k]);
		((vo *)y)[i] = b;
	}
	for (int64_t i = nv * N + tid; i < n; i += stride)
		y[i] = kjt<TO>::st((float)x[i]);
}

template <class TO, int N> static void cast_i8(kj_gpu *g, const void *x, void *y, int64_t n)
{
	cast_int_k<int8_t, TO, N><<<kj_blocks(g, n / N > 0 ? n / N : n, 256), 256, 0, g->stream>>>(
		(const int8_t *)x, (TO *)y, n);
}

/* Float to i8 with kj_store's rule (the value as double, truncated toward
 * zero and saturated, NaN to 0): 16 outputs per thread, one 16-byte store,
 * where cast_dyn_k stored single bytes (0.85 ms for the 268M elements of
 * int8_quantize_rows on the H200, 1.6 TB/s). */
template <class TI>
__global__ void __launch_bounds__(256) cast_f2i8_k(const TI *__restrict__ x, int8_t *__restrict__ y,
						    int64_t n)
{
	struct alignas(16) vi { TI e[16]; };
	int64_t nv = n / 16, stride = (int64_t)gridDim.x * blockDim.x;
	int64_t tid = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;

	for (int64_t i = tid; i < nv; i += stride) {
		vi a = ((const vi *)x)[i];
		union {
			uint4 u;
			int8_t e[16];
		} b;
#pragma unroll
		for (int k = 0; k < 16; k++)
			b.e[k] = (int8_t)kjd_sat_trunc((double)kjt<TI>::ld(a.e[k]), -128.0, 127.0);
		((uint4 *)y)[i] = b.u;
	}
	for (int64_t i = nv * 16 + tid; i < n; i += stride)
		y[i] = (int8_t)kjd_sat_trunc((double)kjt<TI>::ld(x[i]), -128.0, 127.0);
}

template <class TI> static void cast_f2i8(kj_gpu *g, const void *x, void *y, int64_t n)
{
	cast_f2i8_k<TI><<<kj_blocks(g, n / 16 > 0 ? n / 16 : n, 256), 256, 0, g->stream>>>(
		(const TI *)x, (int8_t *)y, n);
}

/* The baseline's general case: kj_store's rules from the value as double. */
__global__ void cast_dyn_k(const void *x, int xdt, void *y, int ydt, int64_t n)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		kjd_store(ydt, y, (size_t)i, kjd_load(xdt, x, (size_t)i));
}

/* The reference keeps doubles: each value becomes what the cast produces
 * (the oracle's cast_value). */
__global__ void cast_ref_k(const double *__restrict__ x, double *__restrict__ y, int ydt, int64_t n)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		y[i] = kjd_round_to(ydt, x[i]);
}

template <class TI>
static bool cast_from(kj_gpu *g, const void *x, kj_dtype ot, void *y, int64_t n)
{
	unsigned blocks = kj_blocks(g, n / 8 > 0 ? n / 8 : n, 256);
	switch (ot) {
	case KJ_F32:
		cast_float_k<TI, float><<<blocks, 256, 0, g->stream>>>((const TI *)x, (float *)y, n);
		return true;
	case KJ_F16:
		cast_float_k<TI, __half><<<blocks, 256, 0, g->stream>>>((const TI *)x, (__half *)y, n);
		return true;
	case KJ_BF16:
		cast_float_k<TI, __nv_bfloat16><<<blocks, 256, 0, g->stream>>>(
			(const TI *)x, (__nv_bfloat16 *)y, n);
		return true;
	default:
		return false;
	}
}

int kj_cuda_cast(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out, int reference,
		 struct kj_err *err)
{
	int64_t cnt = kjo_numel(&n->out.shape);
	kj_dtype it = n->in[0].dtype, ot = n->out.dtype;
	bool done = false;

	if (cnt == 0)
		return 0;
	if (reference) {
		cast_ref_k<<<kj_blocks(g, cnt, 256), 256, 0, g->stream>>>((const double *)in[0],
									    (double *)out, ot, cnt);
		KJ_LAUNCH_CHECK(err, "cast");
		return 0;
	}
	/* 32-byte vectors of f32 need that alignment; cudaMalloc gives 256 */
	if (((uintptr_t)in[0] & 31u) == 0 && ((uintptr_t)out & 31u) == 0) {
		if (it == KJ_F32)
			done = cast_from<float>(g, in[0], ot, out, cnt);
		else if (it == KJ_F16)
			done = cast_from<__half>(g, in[0], ot, out, cnt);
		else if (it == KJ_BF16)
			done = cast_from<__nv_bfloat16>(g, in[0], ot, out, cnt);
	}
	/* i8 in 16-byte vectors (16 outputs per thread) */
	if (!done && it == KJ_I8 && ((uintptr_t)in[0] & 15u) == 0 && ((uintptr_t)out & 15u) == 0) {
		done = true;
		if (ot == KJ_F32)
			cast_i8<float, 16>(g, in[0], out, cnt);
		else if (ot == KJ_F16)
			cast_i8<__half, 16>(g, in[0], out, cnt);
		else if (ot == KJ_BF16)
			cast_i8<__nv_bfloat16, 16>(g, in[0], out, cnt);
		else
			done = false;
	}
	if (!done && ot == KJ_I8 && ((uintptr_t)in[0] & 15u) == 0 && ((uintptr_t)out & 15u) == 0) {
		done = true;
		if (it == KJ_F32)
			cast_f2i8<float>(g, in[0], out, cnt);
		else if (it == KJ_F16)
			cast_f2i8<__half>(g, in[0], out, cnt);
		else if (it == KJ_BF16)
			cast_f2i8<__nv_bfloat16>(g, in[0], out, cnt);
		else
			done = false;
	}
	if (!done && it == KJ_I32 && ot == KJ_F32 && ((uintptr_t)in[0] & 15u) == 0 &&
	    ((uintptr_t)out & 15u) == 0) {
		cast_int_k<int32_t, float, 4><<<kj_blocks(g, cnt / 4 > 0 ? cnt / 4 : cnt, 256), 256, 0,
						g->stream>>>((const int32_t *)in[0], (float *)out, cnt);
		done = true;
	}
	if (!done)
		cast_dyn_k<<<kj_blocks(g, cnt, 256), 256, 0, g->stream>>>(in[0], it, out, ot, cnt);
	KJ_LAUNCH_CHECK(err, "cast");
	return 0;
}
