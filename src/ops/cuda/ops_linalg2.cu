/*
 * CUDA baseline and fp64 reference of table F (src/ops/table_f.h):
 * linalg_solve_triangular, linalg_cholesky, interpolate and grid_sample.
 *
 * linalg_solve_triangular: B copied into the output, then cuBLAS's TRSM in
 * place there, as PyTorch eager does (cublasStrsm per matrix for a batch of
 * at most 8, cublasStrsmBatched beyond; Dtrsm for the reference).  cuBLAS is
 * column-major: a row-major n x k X is the column-major X^T, so A X = B is
 * solved as X^T A^T = B^T (side right) and X A = B as A^T X^T = B^T (side
 * left), with A^T's triangle the other one.  The batched call's pointer
 * arrays are written by a small kernel into g->workspace (in chunks that
 * fit it).
 *
 * linalg_cholesky: the f32 baseline for m <= 64 (chol_small_k) runs one
 * warp per matrix, 4 a block for m <= 32 and 2 for m <= 64: the matrix is
 * staged through shared memory (coalesced 16-byte loads when m % 4 == 0,
 * row stride m | 1 so that per-row and per-column accesses are free of bank
 * conflicts), lane r keeps rows r and r + 32 in registers (fully unrolled,
 * padded to 32 or 64), and the factorisation is right-looking: per column
 * a shuffle brings the pivot, each row divides by its square root, the
 * column is broadcast through a double-buffered shared vector (one
 * __syncwarp a column) and every row subtracts l_ij l_kj from its entries
 * k > j; the rows go back through the tile (transposed for upper) to a
 * coalesced store with zeros in the other triangle.  Shared memory: 17.5 KiB
 * a block for m <= 32, 33.5 KiB for m <= 64.  The reference (double) and
 * m > 64 use cholesky_k: one thread block per matrix, left-looking by
 * column in the output buffer: column j's entries l_ij = a_ij - sum_k<j
 * l_ik l_jk for i >= j, then the square root of the pivot and the division.
 * Both read only A's lower triangle, subtract in the CPU kernel's order,
 * and give NaN at a non-positive pivot (the CPU kernels report it), which
 * then spreads to the later columns.  Float accumulation for the baseline,
 * double for the reference.
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

/* ---- linalg_solve_triangular ---- */

template <class T>
__global__ void trsm_ptrs_k(const T *a, T *x, int64_t sa, int64_t sx, int64_t cnt,
			    const T **pa, T **px)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < cnt; i += stride) {
		pa[i] = a + i * sa;
		px[i] = x + i * sx;
	}
}

static cublasStatus_t trsm_one(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t fill,
			       cublasDiagType_t diag, int m, int nn, const float *a, int lda,
			       float *x, int ldx)
{
	const float one = 1.0f;
	return cublasStrsm(h, side, fill, CUBLAS_OP_N, diag, m, nn, &one, a, lda, x, ldx);
}

static cublasStatus_t trsm_one(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t fill,
			       cublasDiagType_t diag, int m, int nn, const double *a, int lda,
			       double *x, int ldx)
{
	const double one = 1.0;
	return cublasDtrsm(h, side, fill, CUBLAS_OP_N, diag, m, nn, &one, a, lda, x, ldx);
}

static cublasStatus_t trsm_many(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t fill,
				cublasDiagType_t diag, int m, int nn, const float **a, int lda,
				float **x, int ldx, int cnt)
{
	const float one = 1.0f;
	return cublasStrsmBatched(h, side, fill, CUBLAS_OP_N, diag, m, nn, &one, a, lda, x, ldx,
				  cnt);
}

static cublasStatus_t trsm_many(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t fill,
				cublasDiagType_t diag, int m, int nn, const double **a, int lda,
				double **x, int ldx, int cnt)
{
	const double one = 1.0;
	return cublasDtrsmBatched(h, side, fill, CUBLAS_OP_N, diag, m, nn, &one, a, lda, x, ldx,
				  cnt);
}

template <class T>
static int trsm_run(kj_gpu *g, const kjf_trsm_geom *gm, const T *a, const T *b, T *x,
		    struct kj_err *err)
{
	int64_t sa = gm->n * gm->n, sx = gm->n * gm->k;
	/* row-major A's lower triangle is column-major A^T's upper one */
	cublasFillMode_t fill = gm->upper ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
	cublasSideMode_t side = gm->left ? CUBLAS_SIDE_RIGHT : CUBLAS_SIDE_LEFT;
	cublasDiagType_t diag = gm->unit ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT;
	int m = (int)(gm->left ? gm->k : gm->n), nn = (int)(gm->left ? gm->n : gm->k);
	int ldx = m;
	if (gm->batch == 0 || sx == 0)
		return 0;
	if (gm->n > INT_MAX || gm->k > INT_MAX)
		return kj_err_set(err, KJ_E_UNSUPPORTED, "linalg_solve_triangular: n=%lld k=%lld "
				  "exceed cuBLAS's 32-bit sizes", (long long)gm->n, (long long)gm->k);
	KJ_CUDA_CHECK(err, cudaMemcpyAsync(x, b, (size_t)(gm->batch * sx) * sizeof(T),
					   cudaMemcpyDeviceToDevice, g->stream));
	KJ_CUBLAS_CHECK(err, cublasSetStream(g->blas, g->stream));
	KJ_CUBLAS_CHECK(err, cublasSetMathMode(g->blas, CUBLAS_DEFAULT_MATH));
	if (gm->batch <= 8) {
		for (int64_t q = 0; q < gm->batch; q++)
			KJ_CUBLAS_CHECK(err, trsm_one(g->blas, side, fill, diag, m, nn, a + q * sa,
						      (int)gm->n, x + q * sx, ldx));
		return 0;
	}
	int64_t chunk = (int64_t)(g->workspace_bytes / (2 * sizeof(void *)));
	if (chunk > INT_MAX)
		chunk = INT_MAX;
	const T **pa = (const T **)g->workspace;
	T **px = (T **)((char *)g->workspace + (size_t)chunk * sizeof(void *));
	for (int64_t q0 = 0; q0 < gm->batch; q0 += chunk) {
		int64_t cnt = gm->batch - q0 < chunk ? gm->batch - q0 : chunk;
		trsm_ptrs_k<T><<<kj_blocks(g, cnt, 256), 256, 0, g->stream>>>(
			a + q0 * sa, x + q0 * sx, sa, sx, cnt, pa, px);
		KJ_LAUNCH_CHECK(err, "linalg_solve_triangular");
		KJ_CUBLAS_CHECK(err, trsm_many(g->blas, side, fill, diag, m, nn, pa, (int)gm->n, px,
					       ldx, (int)cnt));
	}
	return 0;
}

int kj_cuda_linalg_solve_triangular(kj_gpu *g, const kj_bnode *n, const void *const *in,
				    void *out, int reference, struct kj_err *err)
{
	kjf_trsm_geom gm;
	kjf_trsm_geom_of(n, &gm);
	if (reference)
		return trsm_run<double>(g, &gm, (const double *)in[0], (const double *)in[1],
					(double *)out, err);
	if (n->in[0].dtype != KJ_F32)
		return kj_err_set(err, KJ_E_UNSUPPORTED, "linalg_solve_triangular: dtype %s (only f32)",
				  kj_dtype_name(n->in[0].dtype));
	return trsm_run<float>(g, &gm, (const float *)in[0], (const float *)in[1], (float *)out,
			       err);
}

/* ---- linalg_cholesky ---- */

template <class T>
__global__ void cholesky_k(const T *__restrict__ a, T *__restrict__ l, int64_t m, int upper)
{
	const T *A = a + (int64_t)blockIdx.x * m * m;
	T *L = l + (int64_t)blockIdx.x * m * m;
	for (int64_t e = threadIdx.x; e < m * m; e += blockDim.x) {
		int64_t i = e / m, j = e - i * m;
		L[e] = j <= i ? A[e] : (T)0;
	}
	__syncthreads();
	for (int64_t j = 0; j < m; j++) {
		for (int64_t i = j + threadIdx.x; i < m; i += blockDim.x) {
			T v = L[i * m + j];
			for (int64_t k = 0; k < j; k++)
				v -= L[i * m + k] * L[j * m + k];
			L[i * m + j] = v;
		}
		__syncthreads();
		T p = L[j * m + j];
		T d = p > (T)0 ? sqrt(p) : (T)NAN;
		__syncthreads();
		for (int64_t i = j + 1 + threadIdx.x; i < m; i += blockDim.x)
			L[i * m + j] /= d;
		if (threadIdx.x == 0)
			L[j * m + j] = d;
		__syncthreads();
	}
	if (upper) {
		for (int64_t e = threadIdx.x; e < m * m; e += blockDim.x) {
			int64_t i = e / m, j = e - i * m;
			if (j < i) {
				L[j * m + i] = L[e];
				L[e] = (T)0;
			}
		}
	}
}

/*
 * The f32 baseline for m <= 64: one warp per matrix, MP = 32 (m <= 32) or 64
 * the padded size.  Per warp, shared memory holds a staging tile of m rows
 * with an odd row stride s (m | 1, so that lane r reading or writing row r,
 * or column r, hits 32 different banks) and two column buffers of MP floats.
 */
template <int MP> struct chol_cfg {
	static const int warps = MP > 32 ? 2 : 4;	  /* warps (matrices) per block */
	static const int tile = MP * (MP + 1);		  /* floats of the staging tile */
	static const int words = tile + 2 * MP;		  /* floats per warp */
};

/* Row r and column c of element number e (of n) of the walk that lane
 * starts at e = lane and advances by 32: the division happens once. */
struct chol_walk {
	int r, c, dr, dc, w;
	__device__ __forceinline__ chol_walk(int lane, int w_)
	{
		w = w_;
		r = lane / w;
		c = lane - r * w;
		dr = 32 / w;
		dc = 32 - dr * w;
	}
	__device__ __forceinline__ void next()
	{
		r += dr;
		c += dc;
		if (c >= w) {
			c -= w;
			r++;
		}
	}
};

/* Copies the m x m matrix g (contiguous, row-major) into tile t (row stride
 * s), coalesced; vec: in 16-byte words (m % 4 == 0 and g 16-byte aligned),
 * eight loads in flight per lane when m is MP. */
template <int MP>
__device__ __forceinline__ void chol_load(const float *__restrict__ g, float *t, int m, int s,
					  int lane, int vec)
{
	if (vec && m == MP) {
		const float4 *g4 = (const float4 *)g;
#pragma unroll 1
		for (int b = 0; b < MP * MP / 4; b += 256) {
			float4 v[8];
#pragma unroll
			for (int u = 0; u < 8; u++)
				v[u] = g4[b + 32 * u + lane];
#pragma unroll
			for (int u = 0; u < 8; u++) {
				const int e = b + 32 * u + lane;
				float *d = t + (e / (MP / 4)) * s + 4 * (e % (MP / 4));
				d[0] = v[u].x;
				d[1] = v[u].y;
				d[2] = v[u].z;
				d[3] = v[u].w;
			}
		}
	} else if (vec) {
		const float4 *g4 = (const float4 *)g;
		chol_walk p(lane, m >> 2);
		for (int e = lane; e < (m * m) >> 2; e += 32, p.next()) {
			float4 v = g4[e];
			float *d = t + p.r * s + 4 * p.c;
			d[0] = v.x;
			d[1] = v.y;
			d[2] = v.z;
			d[3] = v.w;
		}
	} else {
		chol_walk p(lane, m);
		for (int e = lane; e < m * m; e += 32, p.next())
			t[p.r * s + p.c] = g[e];
	}
}

/* The inverse of chol_load: tile t back to the m x m matrix g. */
__device__ __forceinline__ void chol_store(const float *t, float *__restrict__ g, int m, int s,
					   int lane, int vec)
{
	if (vec) {
		float4 *g4 = (float4 *)g;
		chol_walk p(lane, m >> 2);
		for (int e = lane; e < (m * m) >> 2; e += 32, p.next()) {
			const float *d = t + p.r * s + 4 * p.c;
			g4[e] = make_float4(d[0], d[1], d[2], d[3]);
		}
	} else {
		chol_walk p(lane, m);
		for (int e = lane; e < m * m; e += 32, p.next())
			g[e] = t[p.r * s + p.c];
	}
}

/*
 * Right-looking in registers: lane owns row r0 = lane (x0, columns < 32)
 * and, when MP = 64, row r1 = lane + 32 (x1, columns < 64); rows >= m are
 * zero padding and steps j >= m are skipped.  Step j: the pivot comes from
 * the owner of row j by a shuffle, d = sqrt(pivot) (NaN unless > 0), each
 * row i > j divides its column j entry by d (row j stores d), column j goes
 * through a shared buffer (double-buffered, so one __syncwarp per step), and
 * each row subtracts l_ij * l_kj from its entry k for k > j: a_ik ends as
 * a_ik - sum_{j<k} l_ij l_kj, subtracted in j order as the CPU kernel does.
 * The entries a row updates above its diagonal are never read back: the
 * store writes zeros there.  Every register index is a compile-time
 * constant (fully unrolled loops), so the rows stay in registers.
 */
template <int MP>
__global__ void __launch_bounds__(32 * chol_cfg<MP>::warps)
chol_small_k(const float *__restrict__ a, float *__restrict__ l, int m, int batch, int upper,
	     int vec)
{
	extern __shared__ float4 chol_smem[];
	const unsigned full = 0xffffffffu;
	const int lane = (int)(threadIdx.x & 31), w = (int)(threadIdx.x >> 5);
	const int q = (int)blockIdx.x * chol_cfg<MP>::warps + w;
	if (q >= batch)
		return;
	float *t = (float *)chol_smem + w * chol_cfg<MP>::words;
	float *cb = t + chol_cfg<MP>::tile;
	const int s = m | 1, r0 = lane, r1 = lane + 32;
	const size_t off = (size_t)q * (size_t)(m * m);
	float x0[32], x1[MP];

	chol_load<MP>(a + off, t, m, s, lane, vec);
	__syncwarp();
#pragma unroll
	for (int k = 0; k < 32; k++)
		x0[k] = k <= r0 && r0 < m ? t[r0 * s + k] : 0.0f;
#pragma unroll
	for (int k = 0; k < MP; k++)
		x1[k] = MP > 32 && k <= r1 && r1 < m ? t[r1 * s + k] : 0.0f;

#pragma unroll
	for (int j = 0; j < MP; j++) {
		if (j < m) {
			float p = __shfl_sync(full, j < 32 ? x0[j & 31] : x1[j], j & 31);
			float d = p > 0.0f ? sqrtf(p) : (float)NAN;
			if (j < 32) {
				if (r0 > j)
					x0[j & 31] = x0[j & 31] / d;
				else if (r0 == j)
					x0[j & 31] = d;
			}
			if (MP > 32) {
				if (r1 > j)
					x1[j] = x1[j] / d;
				else if (r1 == j)
					x1[j] = d;
			}
			if (j + 1 < MP) {
				float *c = cb + (j & 1) * MP;
				const float4 *c4 = (const float4 *)c;
				const float l0 = x0[j & 31], l1 = x1[j];
				if (j < 31)
					c[r0] = l0;
				if (MP > 32)
					c[r1] = l1;
				__syncwarp();
#pragma unroll
				for (int g = 0; g < MP / 4; g++) {
					if (4 * g + 3 > j) {
						float4 v = c4[g];
						const float cv[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
						for (int u = 0; u < 4; u++) {
							const int k = 4 * g + u;
							if (k > j && k < 32)
								x0[k & 31] -= l0 * cv[u];
							if (MP > 32 && k > j)
								x1[k] -= l1 * cv[u];
						}
					}
				}
			}
		}
	}

	__syncwarp();
	if (r0 < m) {
#pragma unroll
		for (int k = 0; k < MP; k++) {
			if (k < m) {
				float v = k <= r0 && k < 32 ? x0[k & 31] : 0.0f;
				if (upper)
					t[k * s + r0] = v;
				else
					t[r0 * s + k] = v;
			}
		}
	}
	if (MP > 32 && r1 < m) {
#pragma unroll
		for (int k = 0; k < MP; k++) {
			if (k < m) {
				float v = k <= r1 ? x1[k] : 0.0f;
				if (upper)
					t[k * s + r1] = v;
				else
					t[r1 * s + k] = v;
			}
		}
	}
	__syncwarp();
	chol_store(t, l + off, m, s, lane, vec);
}

template <int MP>
static int chol_small_run(kj_gpu *g, const float *a, float *l, int64_t m, int64_t batch,
			  int upper, struct kj_err *err)
{
	const int warps = chol_cfg<MP>::warps;
	const size_t shm = (size_t)warps * chol_cfg<MP>::words * sizeof(float);
	int vec = m % 4 == 0 && (uintptr_t)a % 16 == 0 && (uintptr_t)l % 16 == 0;
	unsigned blocks = (unsigned)((batch + warps - 1) / warps);
	chol_small_k<MP><<<blocks, 32 * warps, shm, g->stream>>>(a, l, (int)m, (int)batch, upper,
								  vec);
	KJ_LAUNCH_CHECK(err, "linalg_cholesky");
	return 0;
}

int kj_cuda_linalg_cholesky(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
			    int reference, struct kj_err *err)
{
	const kj_shape *s = &n->in[0].shape;
	int64_t m = s->d[s->rank - 1], batch = m ? kjo_numel(s) / (m * m) : 0;
	int upper = kjo_attr_i(n, KJF_CHOL_UPPER, 0) != 0;
	int threads = m <= 64 ? 64 : 256;
	if (batch == 0)
		return 0;
	if (batch > INT_MAX)
		return kj_err_set(err, KJ_E_UNSUPPORTED, "linalg_cholesky: %lld matrices (at most %d)",
				  (long long)batch, INT_MAX);
	if (reference) {
		cholesky_k<double><<<(unsigned)batch, threads, 0, g->stream>>>(
			(const double *)in[0], (double *)out, m, upper);
	} else {
		if (n->in[0].dtype != KJ_F32)
			return kj_err_set(err, KJ_E_UNSUPPORTED, "linalg_cholesky: dtype %s (only f32)",
					  kj_dtype_name(n->in[0].dtype));
		if (m <= 32)
			return chol_small_run<32>(g, (const float *)in[0], (float *)out, m, batch, upper,
						  err);
		if (m <= 64)
			return chol_small_run<64>(g, (const float *)in[0], (float *)out, m, batch, upper,
						  err);
		cholesky_k<float><<<(unsigned)batch, threads, 0, g->stream>>>(
			(const float *)in[0], (float *)out, m, upper);
	}
	KJ_LAUNCH_CHECK(err, "linalg_cholesky");
	return 0;
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
