/*
 * CUDA implementations of table D (src/ops/table_d.h) for the eager
 * baseline (task dtypes, float arithmetic) and the reference (double
 * buffers, double arithmetic), mirroring src/ops/cpu/misc_impl.h.
 *
 * - sdpa: one strided-batched GEMM for the scores (alpha = scale), a
 *   softmax kernel over each row of scores (a warp per row; the causal mask
 *   writes zeros), one strided-batched GEMM with the values.  For 16-bit
 *   tasks the scores and the softmax stay in f32 and only the probabilities
 *   are rounded to the task's dtype for the second GEMM, the precision of
 *   PyTorch's fused (flash) kernels; rounding the scores too (the old math
 *   path) put errors of 9e-3 on outputs of 1e-2.  A causal task runs in 16
 *   query blocks, each over the keys it can attend (53% of the work).  The scores live in scratch memory from a private stream-ordered
 *   pool of the device (cudaMallocFromPoolAsync), which keeps its memory
 *   between calls as PyTorch's caching allocator does; batches are chunked so
 *   that the scratch stays under 2 GiB.  The reference runs DGEMM.  f16
 *   and bf16 with E == Ev in {64, 128} run instead fused kernels without
 *   scratch: decode shapes (L <= 16 query rows, not causal) the split-KV
 *   kernel of ops_attn_decode.cu (K and V read once, chunks combined by
 *   log-sum-exp), the rest (other than decode-like L <= 8, S > 1024) one
 *   flash-style kernel (fa_fwd_k: mma.sync tiles, online softmax in f32, P
 *   rounded to the dtype as above) or cuDNN's fused attention
 *   (ops_attn_cudnn.cu, which also takes E % 8 == 0 up to 128), whichever
 *   ran faster on the shape's first call.
 * - Layout ops (cat, narrow, pad, flip, where, masked_fill, triu, tril,
 *   embedding) move elements as opaque words of the element size (8 bytes in
 *   the reference), so one kernel serves every dtype; contiguous copies use
 *   the widest word (up to 16 bytes) that every offset and length allows.
 * - cumprod: a block scan per row (a thread per column for a middle dim or
 *   integer input).
 * - batch_norm / instance_norm / group_norm: statistics of each segment
 *   (channel, instance or group) as (count, mean, m2): per thread from sums
 *   shifted by the thread's first value, merged across threads and blocks
 *   with Chan's formula in a fixed order; then one elementwise pass
 *   (x - mean) * invstd * w[c] + b[c].
 * - norm, normalize, cosine_similarity and the losses: one reduction
 *   framework over [outer, len, inner]: a block per (row, split) for inner
 *   == 1 (partials in g->workspace merged in order when a row is split), a
 *   thread per column otherwise; reductions to one value are one row split
 *   across the device.  The float baseline's norm over a middle dim has its
 *   own column kernel (pnorm_col_k: 16-byte loads, rows split across
 *   threads and blocks), over the last dim its own row kernel (pnorm_rows_k:
 *   red_rows_k's order, loads unrolled; unsplit rows of >= 1024 elements,
 *   and normalize's division of them, in ops_norm_rows.cu, whose one-kernel
 *   normalize takes rows of 16 KB to 1 MB first).  No atomics, so results are deterministic.
 * Integer indices (embedding) are checked in the kernel: the smallest bad
 * position goes to a device variable that kj_cuda_embedding_check reads.
 */
#include "ops/cuda/ops_common.cuh"
#include "ops/cuda/mma.cuh"
#include "ops/cuda/ops_attn_cudnn.h"
#include "ops/cuda/ops_norm_rows.h"

#include <limits.h>
#include <stdio.h>

extern "C" {
#include "ops/table_d.h"
}

#define KJM_CHECK(err, what) KJ_LAUNCH_CHECK(err, what)

static unsigned grid_cap(int64_t want, int64_t cap)
{
	if (want < 1)
		want = 1;
	return (unsigned)(want < cap ? want : cap);
}

/* Blocks for a kernel that gives each block whole rows (a block-stride
 * loop over rows, threads along the row). */
static unsigned row_blocks(const kj_gpu *g, int64_t rows)
{
	return grid_cap(rows, (int64_t)g->info.sm_count * 16);
}

static size_t elem_bytes(kj_dtype t, int reference)
{
	return reference ? 8 : kj_dtype_size(t);
}

/* ================= scratch memory for sdpa ================= */

#define KJM_MAX_DEV 64
static cudaMemPool_t kjm_pool[KJM_MAX_DEV];

/* Stream-ordered scratch from a private pool of g's device that keeps its
 * memory (release threshold: unlimited).  Free with cudaFreeAsync on
 * g->stream. */
static int scratch_alloc(kj_gpu *g, size_t bytes, void **p, struct kj_err *err)
{
	int d = g->device;
	if (d < 0 || d >= KJM_MAX_DEV)
		return kj_err_set(err, KJ_E_UNSUPPORTED, "sdpa: device %d out of range", d);
	if (!kjm_pool[d]) {
		cudaMemPoolProps props;
		uint64_t keep = UINT64_MAX;
		memset(&props, 0, sizeof(props));
		props.allocType = cudaMemAllocationTypePinned;
		props.location.type = cudaMemLocationTypeDevice;
		props.location.id = d;
		KJ_CUDA_CHECK(err, cudaMemPoolCreate(&kjm_pool[d], &props));
		KJ_CUDA_CHECK(err, cudaMemPoolSetAttribute(kjm_pool[d], cudaMemPoolAttrReleaseThreshold,
							   &keep));
	}
	KJ_CUDA_CHECK(err, cudaMallocFromPoolAsync(p, bytes, kjm_pool[d], g->stream));
	return 0;
}

/* ================= sdpa ================= */

static cudaDataType cuda_type(kj_dtype t)
{
	return t == KJ_F16 ? CUDA_R_16F : t == KJ_BF16 ? CUDA_R_16BF : CUDA_R_32F;
}

/* Row-major C[M, N] = alpha * A[M, K] @ op(B) for `batch` matrices; op(B)
 * is B [K, N] or, with bt, B^T of a B given as [N, K].  A and B are of the
 * task's dtype, C of it too or, with c32, f32. */
static int gemm_batched(kj_gpu *g, int reference, kj_dtype dt, int c32, int bt, int64_t M, int64_t N,
			int64_t K, double alpha, const void *A, int64_t sA, const void *B, int64_t sB,
			void *C, int64_t sC, int64_t batch, struct kj_err *err)
{
	cublasOperation_t opb = bt ? CUBLAS_OP_T : CUBLAS_OP_N;
	int ldb = (int)(bt ? K : N);
	if (M > INT_MAX || N > INT_MAX || K > INT_MAX || batch > INT_MAX)
		return kj_err_set(err, KJ_E_UNSUPPORTED,
				  "sdpa: dims M=%lld N=%lld K=%lld exceed cuBLAS's 32-bit sizes",
				  (long long)M, (long long)N, (long long)K);
	KJ_CUBLAS_CHECK(err, cublasSetStream(g->blas, g->stream));
	if (reference) {
		const double zero = 0.0;
		KJ_CUBLAS_CHECK(err, cublasDgemmStridedBatched(
					     g->blas, opb, CUBLAS_OP_N, (int)N, (int)M, (int)K, &alpha,
					     (const double *)B, ldb, sB, (const double *)A, (int)K, sA, &zero,
					     (double *)C, (int)N, sC, (int)batch));
		return 0;
	}
	const float a32 = (float)alpha, zero = 0.0f;
	cudaDataType ty = cuda_type(dt);
	KJ_CUBLAS_CHECK(err, cublasSetMathMode(g->blas, CUBLAS_DEFAULT_MATH));
	KJ_CUBLAS_CHECK(err, cublasGemmStridedBatchedEx(g->blas, opb, CUBLAS_OP_N, (int)N, (int)M,
							(int)K, &a32, B, ty, ldb, sB, A, ty, (int)K, sA,
							&zero, C, c32 ? CUDA_R_32F : ty, (int)N, sC, (int)batch,
							kj_f32_compute(g, dt), CUBLAS_GEMM_DEFAULT));
	return 0;
}

/* Over rows [Lb, S] of scores s (row r is query q0 + r % Lb): a warp per
 * row, online max/sum, then p = exp(s - max) / sum for the attended keys
 * and 0 for the masked ones, into p (which may be s itself when TP is TS:
 * each lane reads an element before it writes it). */
template <class TS, class TP>
__global__ void __launch_bounds__(256) attn_softmax_k(const TS *s, TP *p, int64_t rows, int64_t q0,
						       int64_t Lb, int64_t S, int causal)
{
	typedef kjt<TS> ts;
	typedef kjt<TP> tp;
	typedef typename ts::acc A;
	typedef kj_smx<A> SM;
	int lane = threadIdx.x & 31;
	int64_t warp = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
	int64_t nwarps = ((int64_t)gridDim.x * blockDim.x) >> 5;
	for (int64_t r = warp; r < rows; r += nwarps) {
		const TS *row = s + r * S;
		TP *prow = p + r * S;
		int64_t i = q0 + r % Lb, lim = causal ? (i + 1 < S ? i + 1 : S) : S;
		typename SM::S st = SM::init();
		for (int64_t j = lane; j < lim; j += 32)
			st = SM::add(st, ts::ld(row[j]));
		st = kj_warp_merge<SM>(st);
		A inv = (A)1 / SM::sum(st, lim);
		for (int64_t j = lane; j < S; j += 32)
			prow[j] = tp::st(j < lim ? (typename tp::acc)(m_exp(ts::ld(row[j]) - st.m) * inv)
						 : (typename tp::acc)0);
	}
}

/* T: the task's element type; TS: the scores' (f32 for 16-bit T, else T). */
template <class T, class TS>
static int sdpa_run(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out, int reference,
		    struct kj_err *err)
{
	kjm_attn a;
	kj_dtype dt = n->in[0].dtype;
	const int split = sizeof(TS) != sizeof(T); /* scores and probabilities apart */
	size_t es = sizeof(T), per = 0;
	int64_t chunk;
	void *sc = NULL;
	int rc = 0;
	kjm_attn_geom(n, &a);
	per = (size_t)a.L * (size_t)a.S * (sizeof(TS) + (split ? es : 0));
	chunk = (int64_t)(((size_t)2 << 30) / (per ? per : 1));
	if (chunk < 1)
		chunk = 1;
	if (chunk > a.batch)
		chunk = a.batch;
	if (a.batch == 0 || a.L == 0 || a.Ev == 0)
		return 0;
	if ((rc = scratch_alloc(g, per * (size_t)chunk, &sc, err)))
		return rc;
	for (int64_t b0 = 0; b0 < a.batch && !rc; b0 += chunk) {
		int64_t nb = a.batch - b0 < chunk ? a.batch - b0 : chunk;
		const char *q = (const char *)in[0] + (size_t)(b0 * a.L * a.E) * es;
		const char *k = (const char *)in[1] + (size_t)(b0 * a.S * a.E) * es;
		const char *v = (const char *)in[2] + (size_t)(b0 * a.S * a.Ev) * es;
		char *o = (char *)out + (size_t)(b0 * a.L * a.Ev) * es;
		/* causal: query block [r0, r1) attends keys [0, min(r1, S)) only,
		 * so 16 blocks do 53% of the full GEMMs' work (PyTorch's fused
		 * kernels skip the masked tiles the same way) */
		int64_t nq = a.causal && a.L >= 256 ? 16 : 1, bq = (a.L + nq - 1) / nq;
		for (int64_t r0 = 0; r0 < a.L && !rc; r0 += bq) {
			int64_t lb = a.L - r0 < bq ? a.L - r0 : bq, r1 = r0 + lb;
			int64_t nk = a.causal ? (r1 < a.S ? r1 : a.S) : a.S, rows = nb * lb;
			TS *scores = (TS *)sc;
			T *probs = split ? (T *)(scores + (size_t)rows * (size_t)nk) : (T *)sc;
			rc = gemm_batched(g, reference, dt, split, 1, lb, nk, a.E, a.scale,
					  q + (size_t)(r0 * a.E) * es, a.L * a.E, k, a.S * a.E, scores,
					  lb * nk, nb, err);
			if (rc)
				break;
			attn_softmax_k<TS, T><<<grid_cap((rows + 7) / 8, (int64_t)g->info.sm_count * 16),
					       256, 0, g->stream>>>(scores, probs, rows, r0, lb, nk,
								    a.causal);
			cudaError_t le = cudaGetLastError();
			if (le != cudaSuccess) {
				rc = kj_err_set(err, KJ_E_CUDA, "sdpa: softmax launch failed: %s",
						cudaGetErrorName(le));
				break;
			}
			rc = gemm_batched(g, reference, dt, 0, 0, lb, a.Ev, nk, 1.0, probs, lb * nk, v,
					  a.S * a.Ev, o + (size_t)(r0 * a.Ev) * es, a.L * a.Ev, nb, err);
		}
	}
	cudaFreeAsync(sc, g->stream);
	return rc;
}

/* ---- fused attention (flash-style) for the 16-bit baseline ----
 *
 * One CTA of 4 warps per (batch, block of 128 query rows); warp w owns rows
 * [32w, 32w + 32) of the block as two m16 row tiles, so that each K or V
 * fragment loaded by ldmatrix feeds two mma (half the shared-memory reads
 * per mma of one tile per warp).  The Q tile stays in shared memory; its
 * mma.m16n8k16 A fragments are read per k-step at D = 128 (registers are
 * full: 255 per thread) and held in registers at D = 64.  Key/value blocks
 * of 64 rows are staged in shared memory by cp.async, double-buffered
 * (block kb + 1 loads while kb computes).  Per key block: S = Q K^T in f32
 * (mma, K fragments by ldmatrix), scaled by scale * log2(e), masked with
 * -inf past S and above
 * the causal diagonal (j > i, top-left aligned as kjm_attn_keys), online
 * softmax per row (running max m and sum l, the O accumulator rescaled by
 * exp2(m_old - m_new)), P rounded to T as the A fragment of O += P V (V
 * fragments by ldmatrix.trans).  Causal blocks skip the key blocks above
 * the diagonal, and a warp skips a key block none of its rows sees (or
 * whose rows are all past L).  At the end O / l is rounded to T, staged in
 * the warp's own Q rows and stored in 16-byte words.  Shared memory: the Q
 * tile, K and V double buffers of 64 rows (102 KB at D = 128, 54 KB at
 * D = 64; two CTAs per SM, bound by the registers); rows are padded by 16
 * bytes so that ldmatrix's eight row addresses fall in distinct banks.
 * Fragment layouts (PTX ISA, mma.m16n8k16 .f16/.bf16; g = lane / 4,
 * t = lane % 4): A regs 0..3 hold (row g, cols 2t, 2t+1), (g + 8, 2t..),
 * (g, 2t + 8..), (g + 8, 2t + 8..); B regs 0, 1 hold (rows 2t, 2t+1, col g)
 * and (rows 2t + 8.., col g); C holds (g, 2t), (g, 2t+1), (g + 8, 2t),
 * (g + 8, 2t+1). */

#define KJF_BM 128 /* query rows per CTA (4 warps x 32) */
#define KJF_BN 64 /* keys per block */
#define KJF_THREADS 128

__device__ __forceinline__ uint32_t fa_saddr(const void *p)
{
	return (uint32_t)__cvta_generic_to_shared(p);
}

/* 16 bytes global -> shared, or 16 zero bytes when !ok (src not read). */
__device__ __forceinline__ void fa_cp16(uint32_t dst, const void *src, bool ok)
{
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
		     "r"(ok ? 16 : 0)
		     : "memory");
}

__device__ __forceinline__ void fa_commit()
{
	asm volatile("cp.async.commit_group;\n" ::: "memory");
}

__device__ __forceinline__ void fa_wait_all()
{
	asm volatile("cp.async.wait_group 0;\n" ::: "memory");
}

/* Four 8x8 b16 matrices; lanes 8i..8i+7 give the row addresses of matrix i. */
__device__ __forceinline__ void fa_ldsm4(uint32_t *r, uint32_t addr)
{
	asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
		     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
		     : "r"(addr)
		     : "memory");
}

__device__ __forceinline__ void fa_ldsm4t(uint32_t *r, uint32_t addr)
{
	asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
		     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
		     : "r"(addr)
		     : "memory");
}

/* Rows [r0, r0 + rows) of a [n, D] matrix at p (rows >= n zero-filled)
 * into shared rows of LD elements at s. */
template <class T, int D, int LD>
__device__ __forceinline__ void fa_load_rows(T *s, const T *p, int64_t r0, int rows, int64_t n)
{
	constexpr int CH = D / 8; /* 16-byte chunks per row */
#pragma unroll 1 /* unrolled, its hoisted addresses cost the kernel spills */
	for (int c = threadIdx.x; c < rows * CH; c += KJF_THREADS) {
		int r = c / CH, cc = c % CH;
		bool ok = r0 + r < n;
		fa_cp16(fa_saddr(s + r * LD + cc * 8), ok ? p + (r0 + r) * D + cc * 8 : p, ok);
	}
}

/* q [batch, L, D], k and v [batch, S, D], o [batch, L, D]; grid batch * nqb
 * CTAs, the last query blocks (the longest under the causal mask) first;
 * sl2 = scale * log2(e). */
template <class T, int D>
__global__ void __launch_bounds__(KJF_THREADS, 2) fa_fwd_k(const T *__restrict__ q, const T *__restrict__ k,
							   const T *__restrict__ v, T *__restrict__ o, int64_t L,
							   int64_t S, int64_t batch, int64_t nqb, float sl2,
							   int causal)
{
	constexpr int LD = D + 8, KD = D / 16, ND = D / 8, NT = KJF_BN / 8;
	constexpr bool QREG = D <= 64; /* Q fragments held in registers */
	extern __shared__ __align__(16) unsigned char fa_sm[];
	/* the Q tile (the output stages there), K buffers 0, 1, V buffers 0, 1 */
	T *sq = (T *)fa_sm, *sk = sq + KJF_BM * LD, *sv = sk + 2 * KJF_BN * LD;
	const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, g = lane >> 2, t4 = lane & 3;
	const int64_t qb = nqb - 1 - (int64_t)blockIdx.x / batch, b = (int64_t)blockIdx.x % batch;
	const int64_t q0 = qb * KJF_BM, r0 = q0 + w * 32; /* the CTA's and the warp's first row */
	const T *kp = k + b * S * D, *vp = v + b * S * D;
	const int64_t kend = causal ? (q0 + KJF_BM < S ? q0 + KJF_BM : S) : S;
	const int nkb = (int)((kend + KJF_BN - 1) / KJF_BN);
	/* lane's ldmatrix row address in the warp's Q rows (tile m: + 16 rows) */
	const uint32_t qa = fa_saddr(sq + (w * 32 + (lane & 7) + ((lane >> 3) & 1) * 8) * LD + (lane >> 4) * 8);
	uint32_t qr[QREG ? KD : 1][2][4];
	float acc[2][ND][4], mrow[2][2], lrow[2][2];
#pragma unroll
	for (int m = 0; m < 2; m++) {
		mrow[m][0] = mrow[m][1] = -INFINITY;
		lrow[m][0] = lrow[m][1] = 0.0f;
#pragma unroll
		for (int d = 0; d < ND; d++)
			acc[m][d][0] = acc[m][d][1] = acc[m][d][2] = acc[m][d][3] = 0.0f;
	}

	fa_load_rows<T, D, LD>(sq, q + b * L * D, q0, KJF_BM, L);
	fa_load_rows<T, D, LD>(sk, kp, 0, KJF_BN, S);
	fa_load_rows<T, D, LD>(sv, vp, 0, KJF_BN, S);
	fa_commit();
	for (int kb = 0; kb < nkb; kb++) {
		const int64_t j0 = (int64_t)kb * KJF_BN;
		const T *ks = sk + (kb & 1) * KJF_BN * LD, *vs = sv + (kb & 1) * KJF_BN * LD;
		fa_wait_all();
		__syncthreads(); /* block kb landed; block kb - 1's buffer is free */
		if (QREG && kb == 0) {
#pragma unroll
			for (int kk = 0; kk < (QREG ? KD : 1); kk++) {
				fa_ldsm4(qr[kk][0], qa + kk * 16 * (int)sizeof(T));
				fa_ldsm4(qr[kk][1], qa + (16 * LD + kk * 16) * (int)sizeof(T));
			}
		}
		if (kb + 1 < nkb) {
			int nb = (kb + 1) & 1;
			fa_load_rows<T, D, LD>(sk + nb * KJF_BN * LD, kp, j0 + KJF_BN, KJF_BN, S);
			fa_load_rows<T, D, LD>(sv + nb * KJF_BN * LD, vp, j0 + KJF_BN, KJF_BN, S);
			fa_commit();
		}
		if (r0 >= L || (causal && j0 > r0 + 31))
			continue; /* rows past L, or above the diagonal for all the warp's rows */
		float s[2][NT][4];
#pragma unroll
		for (int m = 0; m < 2; m++)
#pragma unroll
			for (int nt = 0; nt < NT; nt++)
				s[m][nt][0] = s[m][nt][1] = s[m][nt][2] = s[m][nt][3] = 0.0f;
#pragma unroll
		for (int kk = 0; kk < KD; kk++) {
			uint32_t qt[2][4];
			const uint32_t *qf0 = qt[0], *qf1 = qt[1];
			if (QREG) {
				qf0 = qr[QREG ? kk : 0][0];
				qf1 = qr[QREG ? kk : 0][1];
			} else {
				fa_ldsm4(qt[0], qa + kk * 16 * (int)sizeof(T));
				fa_ldsm4(qt[1], qa + (16 * LD + kk * 16) * (int)sizeof(T));
			}
#pragma unroll
			for (int np = 0; np < NT / 2; np++) {
				uint32_t bf[4];
				fa_ldsm4(bf, fa_saddr(ks + (np * 16 + (lane & 7) + (lane >> 4) * 8) * LD + kk * 16 +
						      ((lane >> 3) & 1) * 8));
				kj_mma<T>::mma(s[0][2 * np], qf0, bf[0], bf[1]);
				kj_mma<T>::mma(s[0][2 * np + 1], qf0, bf[2], bf[3]);
				kj_mma<T>::mma(s[1][2 * np], qf1, bf[0], bf[1]);
				kj_mma<T>::mma(s[1][2 * np + 1], qf1, bf[2], bf[3]);
			}
		}
		/* key j0 + c is masked for query row r0 + x when c > x + dq or
		 * c >= ns (dq = r0 - j0, in [-31, BN] here, clipped to BN) */
		const int ns = (int)(S - j0 < KJF_BN ? S - j0 : KJF_BN);
		const int dq = causal && r0 - j0 < KJF_BN ? (int)(r0 - j0) : KJF_BN;
		const bool edge = ns < KJF_BN || dq < KJF_BN - 1;
#pragma unroll
		for (int m = 0; m < 2; m++) {
			float mx[2] = {mrow[m][0], mrow[m][1]};
			int cl[2]; /* the last key column each of the lane's rows sees */
#pragma unroll
			for (int h = 0; h < 2; h++)
				cl[h] = min(ns - 1, dq + m * 16 + g + h * 8);
#pragma unroll
			for (int nt = 0; nt < NT; nt++) {
#pragma unroll
				for (int e = 0; e < 4; e++) {
					float x = s[m][nt][e] * sl2;
					if (edge && nt * 8 + t4 * 2 + (e & 1) > cl[e >> 1])
						x = -INFINITY;
					s[m][nt][e] = x;
					mx[e >> 1] = fmaxf(mx[e >> 1], x);
				}
			}
			float mu[2], corr[2];
			kj_softmax_rows<false>(mx, mrow[m], lrow[m], mu, corr);
#pragma unroll
			for (int d = 0; d < ND; d++) {
				acc[m][d][0] *= corr[0];
				acc[m][d][1] *= corr[0];
				acc[m][d][2] *= corr[1];
				acc[m][d][3] *= corr[1];
			}
#pragma unroll
			for (int nt = 0; nt < NT; nt++) {
#pragma unroll
				for (int e = 0; e < 4; e++) {
					s[m][nt][e] = exp2f(s[m][nt][e] - mu[e >> 1]);
					lrow[m][e >> 1] += s[m][nt][e];
				}
			}
		}
#pragma unroll
		for (int kt = 0; kt < KJF_BN / 16; kt++) {
			uint32_t pa[2][4];
#pragma unroll
			for (int m = 0; m < 2; m++) {
				pa[m][0] = kj_mma<T>::pack(s[m][2 * kt][0], s[m][2 * kt][1]);
				pa[m][1] = kj_mma<T>::pack(s[m][2 * kt][2], s[m][2 * kt][3]);
				pa[m][2] = kj_mma<T>::pack(s[m][2 * kt + 1][0], s[m][2 * kt + 1][1]);
				pa[m][3] = kj_mma<T>::pack(s[m][2 * kt + 1][2], s[m][2 * kt + 1][3]);
			}
#pragma unroll
			for (int dp = 0; dp < ND / 2; dp++) {
				uint32_t bf[4];
				fa_ldsm4t(bf, fa_saddr(vs + (kt * 16 + (lane & 7) + ((lane >> 3) & 1) * 8) * LD +
						       dp * 16 + (lane >> 4) * 8));
				kj_mma<T>::mma(acc[0][2 * dp], pa[0], bf[0], bf[1]);
				kj_mma<T>::mma(acc[0][2 * dp + 1], pa[0], bf[2], bf[3]);
				kj_mma<T>::mma(acc[1][2 * dp], pa[1], bf[0], bf[1]);
				kj_mma<T>::mma(acc[1][2 * dp + 1], pa[1], bf[2], bf[3]);
			}
		}
	}
	/* O / l into the warp's own Q rows, then 16-byte stores of the rows
	 * below L */
	__syncwarp();
	T *so = sq + w * 32 * LD;
#pragma unroll
	for (int m = 0; m < 2; m++) {
		float inv[2];
#pragma unroll
		for (int h = 0; h < 2; h++) {
			float l = lrow[m][h];
			l += __shfl_xor_sync(0xffffffffu, l, 1);
			l += __shfl_xor_sync(0xffffffffu, l, 2);
			inv[h] = l > 0.0f ? 1.0f / l : 0.0f;
		}
#pragma unroll
		for (int d = 0; d < ND; d++) {
			uint32_t lo = kj_mma<T>::pack(acc[m][d][0] * inv[0], acc[m][d][1] * inv[0]);
			uint32_t hi = kj_mma<T>::pack(acc[m][d][2] * inv[1], acc[m][d][3] * inv[1]);
			*(uint32_t *)(so + (m * 16 + g) * LD + d * 8 + t4 * 2) = lo;
			*(uint32_t *)(so + (m * 16 + g + 8) * LD + d * 8 + t4 * 2) = hi;
		}
	}
	__syncwarp();
	T *op = o + (b * L + r0) * D;
	for (int c = lane; c < 32 * (D / 8); c += 32) {
		int r = c / (D / 8), cc = c % (D / 8);
		if (r0 + r < L)
			*(uint4 *)(op + (int64_t)r * D + cc * 8) = *(const uint4 *)(so + r * LD + cc * 8);
	}
}

/* Whether the fused kernel serves this sdpa: a 16-bit baseline with
 * E == Ev in {64, 128}, S >= 1, 16-byte aligned operands, and not a
 * decode-like shape (L <= 8 queries over S > 1024 keys: too few CTAs for a
 * kernel that walks the keys in one CTA; the GEMM path stays). */
static int fa_supported(const kjm_attn *a, const void *const *in, const void *out)
{
	if (a->E != a->Ev || (a->E != 64 && a->E != 128) || a->S < 1 || a->L < 1 || a->batch < 1)
		return 0;
	if (a->L <= 8 && a->S > 1024)
		return 0;
	if (a->batch > INT64_MAX / ((a->L + KJF_BM - 1) / KJF_BM) ||
	    a->batch * ((a->L + KJF_BM - 1) / KJF_BM) > INT_MAX)
		return 0;
	for (int i = 0; i < 3; i++)
		if ((uintptr_t)in[i] & 15)
			return 0;
	return ((uintptr_t)out & 15) == 0;
}

template <class T, int D>
static int fa_launch(kj_gpu *g, const kjm_attn *a, const void *const *in, void *out, struct kj_err *err)
{
	const size_t smem = (size_t)(KJF_BM + 4 * KJF_BN) * (D + 8) * sizeof(T);
	const int64_t nqb = (a->L + KJF_BM - 1) / KJF_BM;
	const float sl2 = (float)(a->scale * 1.4426950408889634);
	KJ_CUDA_CHECK(err, cudaFuncSetAttribute(fa_fwd_k<T, D>, cudaFuncAttributeMaxDynamicSharedMemorySize,
						(int)smem));
	fa_fwd_k<T, D><<<(unsigned)(a->batch * nqb), KJF_THREADS, smem, g->stream>>>(
		(const T *)in[0], (const T *)in[1], (const T *)in[2], (T *)out, a->L, a->S, a->batch, nqb,
		sl2, a->causal);
	KJM_CHECK(err, "sdpa (fused)");
	return 0;
}

template <class T>
static int fa_launch16(kj_gpu *g, const kjm_attn *a, const void *const *in, void *out, struct kj_err *err)
{
	return a->E == 64 ? fa_launch<T, 64>(g, a, in, out, err) : fa_launch<T, 128>(g, a, in, out, err);
}

/* The decode kernel for decode shapes; else cuDNN's fused attention where
 * it serves the shape and beat the fused kernel on the shape's first call
 * (ops_attn_cudnn.cu); else the fused kernel when fa_supported; else the
 * GEMM + softmax path.  KJ_SDPA_PATH forces a route (ops_attn_cudnn.h). */
template <class T>
static int sdpa_16(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out, struct kj_err *err)
{
	kjm_attn a;
	int force = kj_sdpa_path_forced(), handled = 0, fa, rc;
	/* decode shapes (a few query rows, long keys): split over the keys */
	if (force == KJ_SDPA_AUTO) {
		if ((rc = kj_sdpa_decode(g, n, in, out, &handled, err)) || handled)
			return rc;
	}
	kjm_attn_geom(n, &a);
	fa = fa_supported(&a, in, out);
	if (force == KJ_SDPA_AUTO || force == KJ_SDPA_FORCE_CUDNN) {
		rc = kj_sdpa_cudnn_pick(g, n->in[0].dtype, &a, in, out, fa ? fa_launch16<T> : NULL, "fused",
					&handled, err);
		if (rc || handled)
			return rc;
	}
	if (fa && force != KJ_SDPA_FORCE_GEMM) {
		g->sdpa_path = "fused";
		return fa_launch16<T>(g, &a, in, out, err);
	}
	g->sdpa_path = "gemm";
	return sdpa_run<T, float>(g, n, in, out, 0, err);
}

int kj_cuda_sdpa(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out, int reference,
		 struct kj_err *err)
{
	if (reference)
		return sdpa_run<double, double>(g, n, in, out, 1, err);
	switch (n->in[0].dtype) {
	case KJ_F32: {
		/* the fused 3xTF32 kernel (ops_attn_f32.cu) where it applies */
		int handled = 0, rc = kj_sdpa_f32(g, n, in, out, &handled, err);
		if (rc || handled)
			return rc;
		return sdpa_run<float, float>(g, n, in, out, 0, err);
	}
	case KJ_F16:
		return sdpa_16<__half>(g, n, in, out, err);
	case KJ_BF16:
		return sdpa_16<__nv_bfloat16>(g, n, in, out, err);
	default:
		return kj_err_set(err, KJ_E_INTERNAL, "sdpa: dtype %s is not floating point",
				  kj_dtype_name(n->in[0].dtype));
	}
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

/* The smallest position whose index is out of range; all ones when none. */
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

/* ================= cumprod ================= */

#define KJM_SCAN_ITEMS 4

/* One block per row, tiles of blockDim * 4: products in registers, a warp
 * scan and a scan of the warp products, a running carry between tiles. */
template <class T>
__global__ void cumprod_row_k(const T *__restrict__ x, T *__restrict__ y, int64_t rows, int64_t len)
{
	typedef kjt<T> tt;
	typedef typename tt::acc A;
	__shared__ A wp[32];
	int lane = threadIdx.x & 31, wid = threadIdx.x >> 5, nw = blockDim.x >> 5;
	int64_t tile = (int64_t)blockDim.x * KJM_SCAN_ITEMS;
	for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
		const T *xr = x + r * len;
		T *yr = y + r * len;
		A carry = 1;
		for (int64_t t0 = 0; t0 < len; t0 += tile) {
			int64_t j = t0 + (int64_t)threadIdx.x * KJM_SCAN_ITEMS;
			A v[KJM_SCAN_ITEMS];
#pragma unroll
			for (int k = 0; k < KJM_SCAN_ITEMS; k++)
				v[k] = j + k < len ? tt::ld(xr[j + k]) : (A)1;
#pragma unroll
			for (int k = 1; k < KJM_SCAN_ITEMS; k++)
				v[k] *= v[k - 1];
			A tot = v[KJM_SCAN_ITEMS - 1], incl = tot;
#pragma unroll
			for (int off = 1; off < 32; off <<= 1) {
				A u = __shfl_up_sync(0xffffffffu, incl, off);
				if (lane >= off)
					incl *= u;
			}
			/* the product of the lanes before this one */
			A excl = __shfl_up_sync(0xffffffffu, incl, 1);
			if (lane == 0)
				excl = 1;
			if (lane == 31)
				wp[wid] = incl;
			__syncthreads();
			if (wid == 0) {
				A w = lane < nw ? wp[lane] : (A)1;
#pragma unroll
				for (int off = 1; off < 32; off <<= 1) {
					A u = __shfl_up_sync(0xffffffffu, w, off);
					if (lane >= off)
						w *= u;
				}
				wp[lane] = w;
			}
			__syncthreads();
			A pre = carry * (wid > 0 ? wp[wid - 1] : (A)1) * excl;
#pragma unroll
			for (int k = 0; k < KJM_SCAN_ITEMS; k++)
				if (j + k < len)
					yr[j + k] = tt::st(pre * v[k]);
			carry *= wp[nw - 1];
			__syncthreads();
		}
	}
}

/* A middle dim or integer input: a thread per (outer, inner) run. */
template <class A>
__global__ void cumprod_col_k(const void *x, int xdt, void *y, int ydt, int64_t outer, int64_t len,
			      int64_t inner)
{
	int64_t nout = outer * inner, stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t oi = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; oi < nout; oi += stride) {
		int64_t o = oi / inner, i = oi - o * inner, base = o * len * inner + i;
		A acc = 1;
		for (int64_t j = 0; j < len; j++) {
			acc *= (A)kjd_load(xdt, x, (size_t)(base + j * inner));
			kjd_store(ydt, y, (size_t)(base + j * inner), (double)acc);
		}
	}
}

template <class T>
static void cumprod_typed(kj_gpu *g, const void *x, void *y, int xdt, int ydt, int64_t outer,
			  int64_t len, int64_t inner)
{
	if (inner == 1 && len > 64)
		cumprod_row_k<T><<<grid_cap(outer, (int64_t)g->info.sm_count * 32),
				   len >= 4096 ? 512 : 128, 0, g->stream>>>((const T *)x, (T *)y, outer,
									    len);
	else
		cumprod_col_k<typename kjt<T>::acc><<<kj_blocks(g, outer * inner, 256), 256, 0,
						      g->stream>>>(x, xdt, y, ydt, outer, len, inner);
}

int kj_cuda_cumprod(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out, int reference,
		    struct kj_err *err)
{
	int64_t outer, len, inner;
	kj_dtype it = n->in[0].dtype;
	int xdt = kj_buf_dt(it, reference), ydt = kj_buf_dt(n->out.dtype, reference);
	kjo_split(&n->in[0].shape, kjm_dim(kjo_attr_i(n, 0, 0), n->in[0].shape.rank), &outer, &len,
		  &inner);
	if (outer * inner == 0 || len == 0)
		return 0;
	if (reference)
		cumprod_typed<double>(g, in[0], out, xdt, ydt, outer, len, inner);
	else if (it == KJ_F32)
		cumprod_typed<float>(g, in[0], out, xdt, ydt, outer, len, inner);
	else if (it == KJ_F16)
		cumprod_typed<__half>(g, in[0], out, xdt, ydt, outer, len, inner);
	else if (it == KJ_BF16)
		cumprod_typed<__nv_bfloat16>(g, in[0], out, xdt, ydt, outer, len, inner);
	else
		cumprod_col_k<double><<<kj_blocks(g, outer * inner, 256), 256, 0, g->stream>>>(
			in[0], xdt, out, ydt, outer, len, inner);
	KJM_CHECK(err, "cumprod");
	return 0;
}

/* ================= channel normalisations ================= */

/* Segment s: `nrun` runs of `run` elements, run k at s * sstep + k * rstep. */
struct kjm_seg {
	int64_t nseg, nrun, run, sstep, rstep;
	int64_t chunk, nchunk; /* a unit of work: one chunk of one run */
	int splits;
};

/* Statistics of a segment: kj_chan_ss (ops_common.cuh). */
template <class A> using kjm_ss = kj_chan_ss<A>;

/* Partial statistics of segment s's units b, b + splits, ...  Each thread
 * sums x - k and (x - k)^2 with k its own first value (cheap, and a shift
 * close to its data), turns them into (n, mean, m2), and the block merges
 * the threads' statistics with Chan's formula.  V: elements per load, 1 or
 * kjv<T>::N (16 bytes; the launch checks that runs, steps and chunks are
 * multiples of it and x is aligned), two loads in flight per thread. */
/* s1 += x - k, s2 += (x - k)^2 over V elements. */
template <class T, int V>
__device__ __forceinline__ void seg_acc(const T *e, typename kjt<T>::acc k, typename kjt<T>::acc &s1,
					typename kjt<T>::acc &s2)
{
#pragma unroll
	for (int i = 0; i < V; i++) {
		typename kjt<T>::acc d = kjt<T>::ld(e[i]) - k;
		s1 += d;
		s2 += d * d;
	}
}

template <class T, int V>
__global__ void seg_stats_k(const T *__restrict__ x, kjm_seg sg, kjm_ss<typename kjt<T>::acc> *part)
{
	typedef kjt<T> tt;
	typedef typename tt::acc A;
	struct alignas(V * sizeof(T)) vec_t {
		T e[V];
	};
	__shared__ kjm_ss<A> red[32];
	const int bd = blockDim.x;
	for (int64_t u = blockIdx.x; u < sg.nseg * sg.splits; u += gridDim.x) {
		int64_t s = u / sg.splits, b = u - s * sg.splits, cnt = 0;
		const T *base = x + s * sg.sstep;
		A k = 0, s1 = 0, s2 = 0;
		for (int64_t w = b; w < sg.nrun * sg.nchunk; w += sg.splits) {
			int64_t r = w / sg.nchunk, c = w - r * sg.nchunk;
			const vec_t *p = (const vec_t *)(base + r * sg.rstep);
			int64_t j1 = ((c + 1) * sg.chunk < sg.run ? (c + 1) * sg.chunk : sg.run) / V;
			for (int64_t j = c * sg.chunk / V + threadIdx.x; j < j1; j += 2 * bd) {
				vec_t a = p[j], z;
				const int two = j + bd < j1;
				if (two)
					z = p[j + bd];
				if (cnt == 0)
					k = tt::ld(a.e[0]);
				seg_acc<T, V>(a.e, k, s1, s2);
				cnt += V;
				if (two) {
					seg_acc<T, V>(z.e, k, s1, s2);
					cnt += V;
				}
			}
		}
		kjm_ss<A> st = kj_chan_shifted<A>(cnt, k, s1, s2);
		st = kj_block_merge<R_chan<A>>(st, red);
		if (threadIdx.x == 0)
			part[u] = st;
	}
}

/* Per segment: merges the partials in order; stats[2s] = mean, stats[2s+1]
 * = invstd.  Or, from running statistics (rm, rv given), the same. */
template <class T>
__global__ void seg_final_k(kjm_seg sg, const kjm_ss<typename kjt<T>::acc> *part, const T *rm,
			    const T *rv, typename kjt<T>::acc eps, typename kjt<T>::acc *stats)
{
	typedef kjt<T> tt;
	typedef typename tt::acc A;
	int64_t s = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (s >= sg.nseg)
		return;
	if (rm) {
		stats[2 * s] = tt::ld(rm[s]);
		stats[2 * s + 1] = (A)1 / m_sqrt(tt::ld(rv[s]) + eps);
		return;
	}
	kjm_ss<A> st = R_chan<A>::init();
	for (int b = 0; b < sg.splits; b++)
		st = R_chan<A>::merge(st, part[s * sg.splits + b]);
	stats[2 * s] = st.mean;
	stats[2 * s + 1] = (A)1 / m_sqrt(st.m2 / st.n + eps);
}

/* y = (x - mean) * invstd * w[c] + b[c] over planes (n, c) of `inner`
 * elements, in units of one chunk of one plane: the plane's statistics
 * segment is p / pdiv (modulo segmod when segmod), its channel p % C.
 * V: elements per load and store, as in seg_stats_k (inner and chunk
 * multiples of it, x and y aligned). */
template <class T, int V>
__global__ void seg_apply_k(const T *__restrict__ x, T *__restrict__ y, int64_t planes,
			    int64_t inner, int64_t chunk, int64_t C, int64_t pdiv, int64_t segmod,
			    const typename kjt<T>::acc *__restrict__ stats, const T *__restrict__ w,
			    const T *__restrict__ b)
{
	typedef kjt<T> tt;
	typedef typename tt::acc A;
	struct alignas(V * sizeof(T)) vec_t {
		T e[V];
	};
	int64_t nchunk = (inner + chunk - 1) / chunk;
	for (int64_t u = blockIdx.x; u < planes * nchunk; u += gridDim.x) {
		int64_t p = u / nchunk, c0 = (u - p * nchunk) * chunk, c = p % C, s = p / pdiv;
		int64_t c1 = c0 + chunk < inner ? c0 + chunk : inner;
		if (segmod)
			s %= segmod;
		A mean = stats[2 * s], scale = stats[2 * s + 1], shift;
		if (w)
			scale *= tt::ld(w[c]);
		shift = b ? tt::ld(b[c]) : (A)0;
		const vec_t *xp = (const vec_t *)(x + p * inner);
		vec_t *yp = (vec_t *)(y + p * inner);
		for (int64_t j = c0 / V + threadIdx.x; j < c1 / V; j += blockDim.x) {
			vec_t v = xp[j];
#pragma unroll
			for (int e = 0; e < V; e++)
				v.e[e] = tt::st((tt::ld(v.e[e]) - mean) * scale + shift);
			yp[j] = v;
		}
	}
}

/* seg_apply_k over single elements, for planes too short to give a block
 * (2-D [N, C] inputs have planes of one element: a block per element ran
 * 16x slower than PyTorch inside a level-2 task on the H200). */
template <class T>
__global__ void seg_apply_flat_k(const T *__restrict__ x, T *__restrict__ y, int64_t total,
				 int64_t inner, int64_t C, int64_t pdiv, int64_t segmod,
				 const typename kjt<T>::acc *__restrict__ stats, const T *__restrict__ w,
				 const T *__restrict__ b)
{
	typedef kjt<T> tt;
	typedef typename tt::acc A;
	for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < total;
	     i += (int64_t)gridDim.x * blockDim.x) {
		int64_t p = inner == 1 ? i : i / inner, c = p % C, s = p / pdiv;
		if (segmod)
			s %= segmod;
		A scale = stats[2 * s + 1];
		if (w)
			scale *= tt::ld(w[c]);
		y[i] = tt::st((tt::ld(x[i]) - stats[2 * s]) * scale + (b ? tt::ld(b[c]) : (A)0));
	}
}

/* Batch statistics of the channels of an [N, C] input (inner 1): thread c
 * of block column blockIdx.x takes channel c over rows b*rows .. of split
 * b = blockIdx.y, so a warp reads 32 neighbouring channels of one row; the
 * partials land where seg_final_k merges them (part[c * splits + b]). */
template <class T>
__global__ void col_stats_k(const T *__restrict__ x, int64_t N, int64_t C, int64_t rows,
			    kjm_ss<typename kjt<T>::acc> *part)
{
	typedef kjt<T> tt;
	typedef typename tt::acc A;
	int64_t c = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, r0 = (int64_t)blockIdx.y * rows;
	int64_t r1 = r0 + rows < N ? r0 + rows : N;
	if (c >= C)
		return;
	A k = 0, s1 = 0, s2 = 0;
	if (r0 < r1)
		k = tt::ld(x[r0 * C + c]);
	for (int64_t r = r0; r < r1; r++) {
		A d = tt::ld(x[r * C + c]) - k;
		s1 += d;
		s2 += d * d;
	}
	part[c * gridDim.y + blockIdx.y] = kj_chan_shifted<A>(r1 > r0 ? r1 - r0 : 0, k, s1, s2);
}

/* kind 0: batch_norm (segments = channels), 1: instance_norm (segments =
 * (n, c)), 2: group_norm (segments = (n, g)).  stats: batch statistics;
 * else the running ones (in[1], in[2]).  w, b: the affine operands. */
template <class T>
static int chan_norm(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out, int kind,
		     int stats, const void *w, const void *b, double eps, struct kj_err *err)
{
	typedef typename kjt<T>::acc A;
	int64_t N, C, inner, total = kjo_numel(&n->in[0].shape), G = 1;
	kjm_seg sg;
	A *st;
	kjm_ss<A> *part;
	int64_t segdiv, segmod = 0;
	kjm_nc(&n->in[0].shape, &N, &C, &inner);
	if (total == 0)
		return 0;
	memset(&sg, 0, sizeof(sg));
	if (kind == 0) {
		sg.nseg = C;
		sg.nrun = N;
		sg.run = inner;
		sg.sstep = inner;
		sg.rstep = C * inner;
		segdiv = inner;
		segmod = C;
	} else if (kind == 1) {
		sg.nseg = N * C;
		sg.nrun = 1;
		sg.run = inner;
		sg.sstep = inner;
		segdiv = inner;
	} else {
		G = kjo_attr_i(n, 0, 1);
		sg.nseg = N * G;
		sg.nrun = 1;
		sg.run = C / G * inner;
		sg.sstep = sg.run;
		segdiv = sg.run;
	}
	int64_t nstat = stats ? sg.nseg : C, col_rows = 0;
	const int cols = kind == 0 && inner == 1; /* [N, C]: col_stats_k */
	sg.chunk = 8192;
	sg.nchunk = (sg.run + sg.chunk - 1) / sg.chunk;
	/* 16-byte loads when every run starts on a 16-byte boundary: runs,
	 * their steps (multiples of inner) and the chunks are whole vectors
	 * (KJ_BN_VEC=0 turns it off, for measurements) */
	const int vec = kj_knob_int("KJ_BN_VEC") && inner % kjv<T>::N == 0 &&
			sg.run % kjv<T>::N == 0 && kj_aligned16(in[0]);
	if (cols) {
		/* enough (channel block, row split) blocks to fill the device */
		int64_t cb = (C + 255) / 256, want = (int64_t)g->info.sm_count * 8;
		int64_t sp = (want + cb - 1) / cb;
		sp = sp < 1 ? 1 : sp > N ? N : sp > 65535 ? 65535 : sp;
		col_rows = (N + sp - 1) / sp;
		sg.splits = (int)((N + col_rows - 1) / col_rows);
	} else {
		int64_t units = sg.nrun * sg.nchunk, want = (int64_t)g->info.sm_count * 8;
		int64_t sp = (want + sg.nseg - 1) / sg.nseg;
		sg.splits = (int)(sp < 1 ? 1 : sp > units ? units : sp);
	}
	size_t need = (size_t)nstat * 2 * sizeof(A) + (stats ? (size_t)sg.nseg * sg.splits * sizeof(kjm_ss<A>) : 0);
	if (need > g->workspace_bytes)
		return kj_err_set(err, KJ_E_UNSUPPORTED,
				  "%s: %lld segments need %zu bytes of workspace, more than %zu",
				  n->op->name, (long long)sg.nseg, need, g->workspace_bytes);
	st = (A *)g->workspace;
	part = (kjm_ss<A> *)(st + 2 * nstat);
	if (stats) {
		if (cols)
			col_stats_k<T><<<dim3((unsigned)((C + 255) / 256), (unsigned)sg.splits), 256, 0,
					 g->stream>>>((const T *)in[0], N, C, col_rows, part);
		else if (vec)
			seg_stats_k<T, kjv<T>::N><<<grid_cap(sg.nseg * sg.splits,
							     (int64_t)g->info.sm_count * 16),
						    256, 0, g->stream>>>((const T *)in[0], sg, part);
		else
			seg_stats_k<T, 1><<<grid_cap(sg.nseg * sg.splits, (int64_t)g->info.sm_count * 16),
					    256, 0, g->stream>>>((const T *)in[0], sg, part);
		seg_final_k<T><<<grid_cap((sg.nseg + 127) / 128, 1 << 30), 128, 0, g->stream>>>(
			sg, part, NULL, NULL, (A)eps, st);
	} else {
		kjm_seg cs = sg;
		cs.nseg = C;
		seg_final_k<T><<<grid_cap((C + 127) / 128, 1 << 30), 128, 0, g->stream>>>(
			cs, part, (const T *)in[1], (const T *)in[2], (A)eps, st);
		segdiv = inner;
		segmod = C;
	}
	if (inner < 512) {
		seg_apply_flat_k<T><<<kj_blocks(g, total, 256), 256, 0, g->stream>>>(
			(const T *)in[0], (T *)out, total, inner, C, segdiv / inner, segmod, st,
			(const T *)w, (const T *)b);
	} else {
		int64_t chunk = 4096, units = N * C * ((inner + chunk - 1) / chunk);
		unsigned grid = grid_cap(units, (int64_t)g->info.sm_count * 16);
		if (vec && kj_aligned16(out))
			seg_apply_k<T, kjv<T>::N><<<grid, 256, 0, g->stream>>>(
				(const T *)in[0], (T *)out, N * C, inner, chunk, C, segdiv / inner, segmod,
				st, (const T *)w, (const T *)b);
		else
			seg_apply_k<T, 1><<<grid, 256, 0, g->stream>>>(
				(const T *)in[0], (T *)out, N * C, inner, chunk, C, segdiv / inner, segmod,
				st, (const T *)w, (const T *)b);
	}
	KJM_CHECK(err, n->op->name);
	return 0;
}

static int chan_norm_run(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
			 int reference, int kind, int stats, const void *w, const void *b, double eps,
			 struct kj_err *err)
{
	if (reference)
		return chan_norm<double>(g, n, in, out, kind, stats, w, b, eps, err);
	switch (n->in[0].dtype) {
	case KJ_F32:
		return chan_norm<float>(g, n, in, out, kind, stats, w, b, eps, err);
	case KJ_F16:
		return chan_norm<__half>(g, n, in, out, kind, stats, w, b, eps, err);
	case KJ_BF16:
		return chan_norm<__nv_bfloat16>(g, n, in, out, kind, stats, w, b, eps, err);
	default:
		return kj_err_set(err, KJ_E_INTERNAL, "%s: dtype %s is not floating point", n->op->name,
				  kj_dtype_name(n->in[0].dtype));
	}
}

int kj_cuda_batch_norm(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
		       int reference, struct kj_err *err)
{
	return chan_norm_run(g, n, in, out, reference, 0, (int)kjo_attr_i(n, 0, 0),
			     n->present[3] ? in[3] : NULL, n->present[4] ? in[4] : NULL,
			     kjo_attr_f(n, 2, 1e-5), err);
}

int kj_cuda_instance_norm(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
			  int reference, struct kj_err *err)
{
	return chan_norm_run(g, n, in, out, reference, 1, (int)kjo_attr_i(n, 0, 1),
			     n->present[3] ? in[3] : NULL, n->present[4] ? in[4] : NULL,
			     kjo_attr_f(n, 2, 1e-5), err);
}

int kj_cuda_group_norm(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
		       int reference, struct kj_err *err)
{
	return chan_norm_run(g, n, in, out, reference, 2, 1, n->present[1] ? in[1] : NULL,
			     n->present[2] ? in[2] : NULL, kjo_attr_f(n, 1, 1e-5), err);
}

/* ================= reductions: norms and losses ================= */

/* A reduction functor F provides: typedef S (the state), A (the arithmetic
 * type); init(); add(S, off) for element offset off of its operands;
 * merge(S, S); fin(S, row) the value of output `row`. */

/* Writes value v of output `row` as T. */
template <class T> struct kjm_sink {
	T *y;
	__device__ __forceinline__ void put(int64_t row, typename kjt<T>::acc v) const
	{
		y[row] = kjt<T>::st(v);
	}
};

/* Rows of `len` contiguous elements (inner == 1): a block per (row, split);
 * with splits == 1 the block writes the result, else its partial state. */
template <class F, class K>
__global__ void red_rows_k(F f, K sink, int64_t rows, int64_t len, int splits, typename F::S *part)
{
	typedef typename F::S S;
	__shared__ S red[32];
	for (int64_t u = blockIdx.x; u < rows * splits; u += gridDim.x) {
		int64_t r = u / splits, b = u - r * splits;
		int64_t j0 = len * b / splits, j1 = len * (b + 1) / splits;
		S s = F::init();
		for (int64_t j = j0 + threadIdx.x; j < j1; j += blockDim.x)
			s = f.add(s, r * len + j);
		s = kj_block_merge<F>(s, red);
		if (threadIdx.x == 0) {
			if (splits == 1)
				sink.put(r, f.fin(s, r));
			else
				part[u] = s;
		}
	}
}

/* Merges each row's partials in order. */
template <class F, class K>
__global__ void red_parts_k(F f, K sink, int64_t rows, int splits, const typename F::S *part)
{
	typedef typename F::S S;
	__shared__ S red[32];
	for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
		S s = F::init();
		/* thread t merges parts t, t + blockDim, ... then the block merges
		 * them: an order fixed by the launch, so deterministic */
		for (int b = threadIdx.x; b < splits; b += blockDim.x)
			s = F::merge(s, part[r * splits + b]);
		s = kj_block_merge<F>(s, red);
		if (threadIdx.x == 0)
			sink.put(r, f.fin(s, r));
	}
}

/* A middle dim: a thread per (outer, inner) output. */
template <class F, class K>
__global__ void red_cols_k(F f, K sink, int64_t outer, int64_t len, int64_t inner)
{
	int64_t nout = outer * inner, stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t oi = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; oi < nout; oi += stride) {
		int64_t o = oi / inner, i = oi - o * inner, base = o * len * inner + i;
		typename F::S s = F::init();
		/* unrolled so that several loads are in flight per thread (the
		 * adds stay in order), as long as f.add has no branches: F_pnorm's
		 * runtime choice of p keeps one load in flight (the float norm
		 * uses pnorm_col_k) */
#pragma unroll 8
		for (int64_t j = 0; j < len; j++)
			s = f.add(s, base + j * inner);
		sink.put(oi, f.fin(s, oi));
	}
}

/* Runs F over [outer, len, inner] into sink.  part space: g->workspace
 * from byte offset `woff`. */
template <class F, class K>
static int red_run(kj_gpu *g, const F &f, const K &sink, int64_t outer, int64_t len,
		   int64_t inner, size_t woff, const char *what, struct kj_err *err)
{
	typedef typename F::S S;
	int sms = g->info.sm_count;
	if (outer * inner == 0)
		return 0;
	if (inner == 1) {
		int64_t rows = outer;
		int splits = 1;
		if (rows < (int64_t)sms * 2 && len >= 16384) {
			int64_t want = ((int64_t)sms * 4 + rows - 1) / rows, maxs = len / 4096;
			splits = (int)(want < maxs ? want : maxs);
			if (splits < 1)
				splits = 1;
		}
		size_t need = woff + (size_t)rows * splits * sizeof(S);
		if (splits > 1 && need > g->workspace_bytes)
			splits = 1;
		int threads = len >= 2048 ? 512 : len >= 256 ? 256 : 128;
		S *part = (S *)((char *)g->workspace + woff);
		red_rows_k<F, K><<<grid_cap(rows * splits, (int64_t)sms * 32), threads, 0, g->stream>>>(
			f, sink, rows, len, splits, part);
		if (splits > 1)
			red_parts_k<F, K><<<grid_cap(rows, (int64_t)sms * 32), 256, 0, g->stream>>>(
				f, sink, rows, splits, part);
	} else {
		red_cols_k<F, K><<<kj_blocks(g, outer * inner, 256), 256, 0, g->stream>>>(f, sink, outer,
											 len, inner);
	}
	KJM_CHECK(err, what);
	return 0;
}

template <class A> __device__ __forceinline__ A pterm_d(A x, int k, A p)
{
	A a = m_fabs(x);
	return k == KJM_P1 ? a : k == KJM_P2 ? a * a : m_pow(a, p);
}

template <class A> __device__ __forceinline__ A proot_d(A s, int k, A p)
{
	return k == KJM_P1 ? s : k == KJM_P2 ? m_sqrt(s) : m_pow(s, (A)1 / p);
}

/* ---- norm, normalize ---- */

template <class T> struct F_pnorm {
	typedef typename kjt<T>::acc A;
	typedef A S;
	const T *x;
	int k;
	A p;
	static __device__ __forceinline__ S init() { return 0; }
	__device__ __forceinline__ S add(S s, int64_t off) const
	{
		return s + pterm_d<A>(kjt<T>::ld(x[off]), k, p);
	}
	static __device__ __forceinline__ S merge(S a, S b) { return a + b; }
	__device__ __forceinline__ A fin(S s, int64_t) const { return proot_d<A>(s, k, p); }
};

/* ---- the middle-dim norm of the float baseline ----
 *
 * x [outer, len, inner] with inner > 1, arithmetic in float (f32, f16,
 * bf16 input; the reference keeps red_cols_k in double).  A thread owns V
 * consecutive columns of one outer index and reads them with one 16-byte
 * load per row (V = 16 / sizeof(T)) when inner % V == 0 and x is 16-byte
 * aligned, else one element per row (V = 1).  A block is bx column groups
 * (threadIdx.x) by by row phases (threadIdx.y, bx * by = 256): phase ty
 * takes rows j0 + ty, j0 + ty + by, ... of its chunk [j0, j1), U rows
 * loaded before they are added, so that several loads are in flight per
 * thread (64 bytes for 16-byte words).  The phases merge in order in shared
 * memory.  blockIdx.y walks the outer index, blockIdx.z the chunks of the
 * run: with one chunk the block writes the norms, else the partial sums
 * part[c * nout + oi], which pnorm_fin_k adds in chunk order (deterministic,
 * no atomics).  |x|^p is chosen at compile time (KIND): red_cols_k's
 * runtime choice put the pow branch between its unrolled loads, so each
 * thread had one 4-byte load in flight, 60% of copy bandwidth on norm_dim. */
struct kjm_pcol {
	int64_t outer, len, inner, chunks, clen;
};

/* V elements of T; a 16-byte word when V * sizeof(T) == 16. */
template <class T, int V> struct alignas(sizeof(T) * V) kjm_pword {
	T e[V];
};

template <class T, int V, int KIND>
__global__ void __launch_bounds__(256)
	pnorm_col_k(const T *__restrict__ x, T *__restrict__ y, typename kjt<T>::acc *__restrict__ part,
		    kjm_pcol gm, typename kjt<T>::acc p)
{
	typedef typename kjt<T>::acc A;
	typedef kjm_pword<T, V> W;
	const int U = V == 1 ? 8 : 4;
	__shared__ A sm[256 * V];
	int tx = threadIdx.x, ty = threadIdx.y, bx = blockDim.x, by = blockDim.y;
	int64_t col = ((int64_t)blockIdx.x * bx + tx) * V, c = blockIdx.z;
	int64_t j0 = c * gm.clen, j1 = j0 + gm.clen < gm.len ? j0 + gm.clen : gm.len;
	int64_t nout = gm.outer * gm.inner, step = (int64_t)by * gm.inner;
	/* V > 1 only when inner % V == 0: a live group has all V columns */
	bool live = col < gm.inner;

	for (int64_t o = blockIdx.y; o < gm.outer; o += gridDim.y) {
		A s[V];
#pragma unroll
		for (int k = 0; k < V; k++)
			s[k] = 0;
		if (live) {
			int64_t j = j0 + ty;
			const T *q = x + (o * gm.len + j) * gm.inner + col;
			for (; j + (int64_t)(U - 1) * by < j1; j += (int64_t)U * by, q += U * step) {
				W w[U];
#pragma unroll
				for (int u = 0; u < U; u++)
					w[u] = *(const W *)(q + u * step);
#pragma unroll
				for (int u = 0; u < U; u++)
#pragma unroll
					for (int k = 0; k < V; k++)
						s[k] += pterm_d<A>(kjt<T>::ld(w[u].e[k]), KIND, p);
			}
			for (; j < j1; j += by, q += step) {
				W w = *(const W *)q;
#pragma unroll
				for (int k = 0; k < V; k++)
					s[k] += pterm_d<A>(kjt<T>::ld(w.e[k]), KIND, p);
			}
		}
		if (by > 1) {
			/* sm[(ty * V + k) * bx + tx]: consecutive lanes, consecutive banks */
#pragma unroll
			for (int k = 0; k < V; k++)
				sm[(ty * V + k) * bx + tx] = s[k];
			__syncthreads();
			if (ty == 0)
				for (int t = 1; t < by; t++)
#pragma unroll
					for (int k = 0; k < V; k++)
						s[k] += sm[(t * V + k) * bx + tx];
			__syncthreads();
		}
		if (ty == 0 && live) {
			int64_t oi = o * gm.inner + col;
#pragma unroll
			for (int k = 0; k < V; k++) {
				if (gm.chunks == 1)
					y[oi + k] = kjt<T>::st(proot_d<A>(s[k], KIND, p));
				else
					part[c * nout + oi + k] = s[k];
			}
		}
	}
}

/* y[oi] = the root of the sum of its chunks' partials, in chunk order. */
template <class T, int KIND>
__global__ void pnorm_fin_k(const typename kjt<T>::acc *__restrict__ part, T *__restrict__ y,
			    int64_t nout, int64_t chunks, typename kjt<T>::acc p)
{
	typedef typename kjt<T>::acc A;
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t oi = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; oi < nout; oi += stride) {
		A s = part[oi];
		for (int64_t c = 1; c < chunks; c++)
			s += part[c * nout + oi];
		y[oi] = kjt<T>::st(proot_d<A>(s, KIND, p));
	}
}

/* The launch geometry: bx column groups of 32 or 64 (the narrower when
 * one warp covers the row), chunks so that the grid has about 64 blocks per
 * SM (the last, partial wave of blocks then costs a few percent whatever
 * the number of resident blocks: norm_dim's first shape has 1024 blocks of
 * (column block, outer), one wave at 8 blocks per SM but 1.3 at 6), each
 * chunk at least 128 rows, and the partials within the workspace from byte
 * offset woff. */
template <class T, int KIND>
static int pnorm_cols(kj_gpu *g, const T *x, T *y, int64_t outer, int64_t len, int64_t inner,
		      typename kjt<T>::acc p, size_t woff, const char *what, struct kj_err *err)
{
	typedef typename kjt<T>::acc A;
	const int VW = (int)(16 / sizeof(T));
	bool vec = kj_aligned16(x) && inner % VW == 0;
	int64_t ncol = vec ? inner / VW : inner, sms = g->info.sm_count, nout = outer * inner;
	int bx = ncol <= 32 ? 32 : 64, by = 256 / bx;
	int64_t gx = (ncol + bx - 1) / bx, gy = outer < 65535 ? outer : 65535, chunks = 1;
	int64_t want = sms * 64;
	size_t avail = g->workspace_bytes > woff ? g->workspace_bytes - woff : 0;
	kjm_pcol gm;
	A *part = (A *)((char *)g->workspace + woff);

	if (gx * gy < want) {
		int64_t fit = (int64_t)(avail / sizeof(A)) / nout;
		chunks = (want + gx * gy - 1) / (gx * gy);
		if (chunks > len / 128)
			chunks = len / 128;
		if (chunks > fit)
			chunks = fit;
		if (chunks > 65535)
			chunks = 65535;
		if (chunks < 1)
			chunks = 1;
	}
	gm.outer = outer;
	gm.len = len;
	gm.inner = inner;
	gm.clen = (len + chunks - 1) / chunks;
	if (gm.clen < 1)
		gm.clen = 1;
	gm.chunks = (len + gm.clen - 1) / gm.clen;
	if (gm.chunks < 1)
		gm.chunks = 1;
	dim3 grid((unsigned)gx, (unsigned)gy, (unsigned)gm.chunks), block((unsigned)bx, (unsigned)by);
	if (vec)
		pnorm_col_k<T, 16 / sizeof(T), KIND><<<grid, block, 0, g->stream>>>(x, y, part, gm, p);
	else
		pnorm_col_k<T, 1, KIND><<<grid, block, 0, g->stream>>>(x, y, part, gm, p);
	if (gm.chunks > 1)
		pnorm_fin_k<T, KIND><<<kj_blocks(g, nout, 256), 256, 0, g->stream>>>(part, y, nout,
										    gm.chunks, p);
	KJM_CHECK(err, what);
	return 0;
}

/* ---- the last-dim norm of the float baseline ----
 *
 * Rows of len contiguous elements (inner == 1) with the blocks, splits and
 * per-thread order of red_rows_k over F_pnorm: thread t adds elements
 * j0 + t, j0 + t + bd, ... of its (row, split) in that order, then the block
 * merges (kj_block_merge), so the sums are red_rows_k's.  But |x|^p is
 * chosen at compile time and U loads are issued before they are added:
 * F_pnorm's runtime choice of p branches between the loads, which kept one
 * 4-byte load in flight per thread (KernelBench's l2 normalize, 32768 rows
 * of 65535, ran at 2.09x PyTorch's time). */
template <class T, int KIND>
__global__ void pnorm_rows_k(const T *__restrict__ x, T *__restrict__ y,
			     typename kjt<T>::acc *__restrict__ part, int64_t rows, int64_t len,
			     int splits, typename kjt<T>::acc p)
{
	typedef typename kjt<T>::acc A;
	const int U = 8;
	__shared__ A red[32];
	int64_t bd = blockDim.x;

	for (int64_t u = blockIdx.x; u < rows * splits; u += gridDim.x) {
		int64_t r = u / splits, b = u - r * splits;
		int64_t j0 = len * b / splits, j1 = len * (b + 1) / splits;
		const T *q = x + r * len;
		int64_t j = j0 + threadIdx.x;
		A s = 0;
		for (; j + (U - 1) * bd < j1; j += U * bd) {
			A v[U];
#pragma unroll
			for (int k = 0; k < U; k++)
				v[k] = kjt<T>::ld(q[j + k * bd]);
#pragma unroll
			for (int k = 0; k < U; k++)
				s = s + pterm_d<A>(v[k], KIND, p);
		}
		for (; j < j1; j += bd)
			s = s + pterm_d<A>(kjt<T>::ld(q[j]), KIND, p);
		s = kj_block_merge<R_add<A> >(s, red);
		if (threadIdx.x == 0) {
			if (splits == 1)
				y[r] = kjt<T>::st(proot_d<A>(s, KIND, p));
			else
				part[u] = s;
		}
	}
}

/* red_run's geometry for inner == 1 (splits of very long rows when there
 * are few, threads by row length), with pnorm_rows_k; the partials of split
 * rows merge in red_parts_k as there.  Unsplit rows of >= 1024 elements go
 * to kj_rows_pnorm instead (16-byte words, its own order of additions). */
template <class T, int KIND>
static int pnorm_rows(kj_gpu *g, const T *x, T *y, int64_t rows, int64_t len,
		      typename kjt<T>::acc p, size_t woff, const char *what, struct kj_err *err)
{
	typedef typename kjt<T>::acc A;
	int sms = g->info.sm_count;
	int splits = 1;
	if (rows == 0)
		return 0;
	if (rows < (int64_t)sms * 2 && len >= 16384) {
		int64_t want = ((int64_t)sms * 4 + rows - 1) / rows, maxs = len / 4096;
		splits = (int)(want < maxs ? want : maxs);
		if (splits < 1)
			splits = 1;
	}
	if (splits > 1 && woff + (size_t)rows * splits * sizeof(A) > g->workspace_bytes)
		splits = 1;
	if (splits == 1) {
		/* long rows: 16-byte words at any alignment (ops_norm_rows.cu) */
		int done, rc = kj_rows_pnorm(g, x, y, rows, len, KIND, (float)p, &done, err);
		if (rc || done)
			return rc;
	}
	int threads = len >= 2048 ? 512 : len >= 256 ? 256 : 128;
	A *part = (A *)((char *)g->workspace + woff);
	pnorm_rows_k<T, KIND><<<grid_cap(rows * splits, (int64_t)sms * 32), threads, 0, g->stream>>>(
		x, y, part, rows, len, splits, p);
	if (splits > 1) {
		F_pnorm<T> f;
		kjm_sink<T> sink;
		f.x = x;
		f.k = KIND;
		f.p = p;
		sink.y = y;
		red_parts_k<F_pnorm<T>, kjm_sink<T> >
			<<<grid_cap(rows, (int64_t)sms * 32), 256, 0, g->stream>>>(f, sink, rows, splits,
										   part);
	}
	KJM_CHECK(err, what);
	return 0;
}

/* x [outer, len, inner] reads as F_pnorm over offsets o*len*inner + i +
 * j*inner; red_cols_k forms exactly those offsets, red_rows_k needs inner
 * == 1.  The float baseline's last dim goes to pnorm_rows, its middle dim
 * to pnorm_cols. */
template <class T>
static int pnorm_run(kj_gpu *g, const void *x, void *y, int64_t outer, int64_t len, int64_t inner,
		     double p, size_t woff, const char *what, struct kj_err *err)
{
	typedef typename kjt<T>::acc A;
	F_pnorm<T> f;
	kjm_sink<T> sink;
	int k = (int)kjm_pkind_of(p);
	if constexpr (sizeof(A) == sizeof(float)) {
		if (inner == 1) {
			const T *xt = (const T *)x;
			T *yt = (T *)y;
			if (k == KJM_P2)
				return pnorm_rows<T, KJM_P2>(g, xt, yt, outer, len, (A)p, woff, what, err);
			if (k == KJM_P1)
				return pnorm_rows<T, KJM_P1>(g, xt, yt, outer, len, (A)p, woff, what, err);
			return pnorm_rows<T, KJM_PANY>(g, xt, yt, outer, len, (A)p, woff, what, err);
		}
		if (inner > 1 && outer * inner > 0 && len > 0) {
			const T *xt = (const T *)x;
			T *yt = (T *)y;
			if (k == KJM_P2)
				return pnorm_cols<T, KJM_P2>(g, xt, yt, outer, len, inner, (A)p, woff,
							    what, err);
			if (k == KJM_P1)
				return pnorm_cols<T, KJM_P1>(g, xt, yt, outer, len, inner, (A)p, woff,
							    what, err);
			return pnorm_cols<T, KJM_PANY>(g, xt, yt, outer, len, inner, (A)p, woff, what,
						       err);
		}
	}
	f.x = (const T *)x;
	f.k = k;
	f.p = (A)p;
	sink.y = (T *)y;
	return red_run(g, f, sink, outer, len, inner, woff, what, err);
}

/* `return CALL` with T the element type of the buffers (double for the
 * reference); the statement that follows is unreachable. */
#define KJM_FLOAT_DISPATCH(n, reference, CALL) \
	if (reference) { \
		typedef double T; \
		return CALL; \
	} \
	switch ((n)->in[0].dtype) { \
	case KJ_F32: { \
		typedef float T; \
		return CALL; \
	} \
	case KJ_F16: { \
		typedef __half T; \
		return CALL; \
	} \
	case KJ_BF16: { \
		typedef __nv_bfloat16 T; \
		return CALL; \
	} \
	default: \
		return kj_err_set(err, KJ_E_INTERNAL, "%s: dtype %s is not floating point", \
				  (n)->op->name, kj_dtype_name((n)->in[0].dtype)); \
	}

int kj_cuda_norm(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out, int reference,
		 struct kj_err *err)
{
	int64_t outer, len, inner;
	kjo_split(&n->in[0].shape, kjm_red_dim(n, 1), &outer, &len, &inner);
	KJM_FLOAT_DISPATCH(n, reference,
			   pnorm_run<T>(g, in[0], out, outer, len, inner, kjo_attr_f(n, 0, 2.0), 0,
					"norm", err));
}

/* y = x / max(nrm[o*inner + i], eps) over x [outer, len, inner], a block
 * per row: for inner == 1 a row is one run of len (norm o), else a row (o,
 * j) holds inner elements with norms o*inner + i. */
template <class T>
__global__ void div_norm_k(const T *__restrict__ x, T *__restrict__ y, const T *__restrict__ nrm,
			   int64_t outer, int64_t len, int64_t inner, typename kjt<T>::acc eps)
{
	typedef kjt<T> tt;
	typedef typename tt::acc A;
	int64_t rows = inner == 1 ? outer : outer * len, W = inner == 1 ? len : inner;
	for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
		const T *np = inner == 1 ? nrm + row : nrm + row / len * inner;
		for (int64_t j = threadIdx.x; j < W; j += blockDim.x) {
			A d = tt::ld(np[inner == 1 ? 0 : j]);
			if (!(d >= eps))
				d = d != d ? d : eps;
			y[row * W + j] = tt::st(tt::ld(x[row * W + j]) / d);
		}
	}
}

/* div_norm_k for inner == 1: U elements of the row loaded before they are
 * divided and stored (the same division), so that several loads are in
 * flight per thread at every row length. */
template <class T>
__global__ void div_rows_k(const T *__restrict__ x, T *__restrict__ y, const T *__restrict__ nrm,
			   int64_t rows, int64_t len, typename kjt<T>::acc eps)
{
	typedef kjt<T> tt;
	typedef typename tt::acc A;
	const int U = 8;
	int64_t bd = blockDim.x;
	for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
		const T *xr = x + row * len;
		T *yr = y + row * len;
		A d = tt::ld(nrm[row]);
		if (!(d >= eps))
			d = d != d ? d : eps;
		int64_t j = threadIdx.x;
		for (; j + (U - 1) * bd < len; j += U * bd) {
			A v[U];
#pragma unroll
			for (int k = 0; k < U; k++)
				v[k] = tt::ld(xr[j + k * bd]);
#pragma unroll
			for (int k = 0; k < U; k++)
				yr[j + k * bd] = tt::st(v[k] / d);
		}
		for (; j < len; j += bd)
			yr[j] = tt::st(tt::ld(xr[j]) / d);
	}
}

template <class T>
static int normalize_run(kj_gpu *g, const kj_bnode *n, const void *x, void *y, struct kj_err *err)
{
	int64_t outer, len, inner, total = kjo_numel(&n->in[0].shape);
	size_t nb;
	int rc;
	kjo_split(&n->in[0].shape, kjm_dim(kjo_attr_i(n, 1, 1), n->in[0].shape.rank), &outer, &len,
		  &inner);
	nb = ((size_t)(outer * inner) * sizeof(T) + 255) & ~(size_t)255;
	if (total == 0)
		return 0;
	if constexpr (sizeof(typename kjt<T>::acc) == sizeof(float)) {
		if (inner == 1) {
			/* rows of 16 KB to 1 MB: one kernel, x read once
			 * (ops_norm_rows.cu) */
			int done;
			double p = kjo_attr_f(n, 0, 2.0);
			rc = kj_rows_normalize(g, (const T *)x, (T *)y, outer, len, (int)kjm_pkind_of(p),
					       (float)p, (float)kjo_attr_f(n, 2, 1e-12), &done, err);
			if (rc || done)
				return rc;
		}
	}
	if (nb > g->workspace_bytes / 2)
		return kj_err_set(err, KJ_E_UNSUPPORTED,
				  "normalize: %lld norms do not fit the %zu-byte workspace",
				  (long long)(outer * inner), g->workspace_bytes);
	rc = pnorm_run<T>(g, x, g->workspace, outer, len, inner, kjo_attr_f(n, 0, 2.0), nb,
			  "normalize", err);
	if (rc)
		return rc;
	if constexpr (sizeof(typename kjt<T>::acc) == sizeof(float)) {
		if (inner == 1) {
			/* long rows: 16-byte words at any alignment (ops_norm_rows.cu) */
			int done;
			rc = kj_rows_div(g, (const T *)x, (T *)y, (const T *)g->workspace, outer, len,
					 (float)kjo_attr_f(n, 2, 1e-12), &done, err);
			if (rc || done)
				return rc;
		}
	}
	if (inner == 1)
		div_rows_k<T><<<row_blocks(g, outer), 256, 0, g->stream>>>(
			(const T *)x, (T *)y, (const T *)g->workspace, outer, len,
			(typename kjt<T>::acc)kjo_attr_f(n, 2, 1e-12));
	else
		div_norm_k<T><<<row_blocks(g, outer * len), 256, 0, g->stream>>>(
			(const T *)x, (T *)y, (const T *)g->workspace, outer, len, inner,
			(typename kjt<T>::acc)kjo_attr_f(n, 2, 1e-12));
	KJM_CHECK(err, "normalize");
	return 0;
}

int kj_cuda_normalize(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
		      int reference, struct kj_err *err)
{
	KJM_FLOAT_DISPATCH(n, reference, normalize_run<T>(g, n, in[0], out, err));
}

/* ---- cosine_similarity ---- */

template <class T> struct F_cos {
	typedef typename kjt<T>::acc A;
	struct S {
		A d, a, b, pad;
	};
	const T *x1, *x2;
	A eps;
	static __device__ __forceinline__ S init()
	{
		S s;
		s.d = s.a = s.b = s.pad = 0;
		return s;
	}
	__device__ __forceinline__ S add(S s, int64_t off) const
	{
		A u = kjt<T>::ld(x1[off]), v = kjt<T>::ld(x2[off]);
		s.d += u * v;
		s.a += u * u;
		s.b += v * v;
		return s;
	}
	static __device__ __forceinline__ S merge(S p, S q)
	{
		p.d += q.d;
		p.a += q.a;
		p.b += q.b;
		return p;
	}
	__device__ __forceinline__ A fin(S s, int64_t) const
	{
		A na = m_sqrt(s.a), nb = m_sqrt(s.b);
		return s.d / ((na > eps ? na : eps) * (nb > eps ? nb : eps));
	}
};

template <class T>
static int cosine_run(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
		      struct kj_err *err)
{
	int64_t outer, len, inner;
	F_cos<T> f;
	kjm_sink<T> sink;
	kjo_split(&n->in[0].shape, kjm_dim(kjo_attr_i(n, 0, 1), n->in[0].shape.rank), &outer, &len,
		  &inner);
	f.x1 = (const T *)in[0];
	f.x2 = (const T *)in[1];
	f.eps = (typename kjt<T>::acc)kjo_attr_f(n, 1, 1e-8);
	sink.y = (T *)out;
	return red_run(g, f, sink, outer, len, inner, 0, "cosine_similarity", err);
}

int kj_cuda_cosine_similarity(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
			      int reference, struct kj_err *err)
{
	KJM_FLOAT_DISPATCH(n, reference, cosine_run<T>(g, n, in, out, err));
}

/* ---- pointwise losses ---- */

enum { KJM_L_KL, KJM_L_KL_LOG, KJM_L_HINGE, KJM_L_HUBER, KJM_L_SMOOTH };

template <class A> __device__ __forceinline__ A loss_term(int kind, A x, A t, A par)
{
	switch (kind) {
	case KJM_L_KL:
		return t == (A)0 ? (A)0 : t * (m_log(t) - x);
	case KJM_L_KL_LOG:
		return m_exp(t) * (t - x);
	case KJM_L_HINGE: {
		A m = par - x, l = 0;
		if (t != (A)1)
			l += m > (A)0 ? m : (m != m ? m : (A)0);
		if (t != (A)-1)
			l += x;
		return l;
	}
	case KJM_L_HUBER: {
		A d = m_fabs(x - t);
		return d < par ? (A)0.5 * d * d : par * (d - (A)0.5 * par);
	}
	default: {
		A d = m_fabs(x - t);
		return d < par ? (A)0.5 * d * d / par : d - (A)0.5 * par;
	}
	}
}

/* The target is read by its dtype (hinge takes any numeric target). */
template <class T> struct F_loss {
	typedef typename kjt<T>::acc A;
	typedef A S;
	const T *x;
	const void *t;
	int tdt, kind;
	A par, div;
	__device__ __forceinline__ A term(int64_t off) const
	{
		A tv = tdt < 0 ? kjt<T>::ld(((const T *)t)[off]) : (A)kjd_load(tdt, t, (size_t)off);
		return loss_term<A>(kind, kjt<T>::ld(x[off]), tv, par);
	}
	static __device__ __forceinline__ S init() { return 0; }
	__device__ __forceinline__ S add(S s, int64_t off) const { return s + term(off); }
	static __device__ __forceinline__ S merge(S a, S b) { return a + b; }
	/* div < 0: a sum; else a mean (0 / 0 = NaN for an empty input) */
	__device__ __forceinline__ A fin(S s, int64_t) const { return div < 0 ? s : s / div; }
};

template <class T>
__global__ void loss_none_k(F_loss<T> f, T *__restrict__ y, int64_t total)
{
	int64_t stride = (int64_t)gridDim.x * blockDim.x;
	for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += stride)
		y[e] = kjt<T>::st(f.term(e));
}

template <class T>
static int loss_run(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out, int reference,
		    int kind, int red, double par, struct kj_err *err)
{
	typedef typename kjt<T>::acc A;
	int64_t total = kjo_numel(&n->in[0].shape);
	F_loss<T> f;
	kjm_sink<T> sink;
	f.x = (const T *)in[0];
	f.t = in[1];
	/* a target of the input's dtype is read typed */
	f.tdt = n->in[1].dtype == n->in[0].dtype ? -1 : kj_buf_dt(n->in[1].dtype, reference);
	if (reference)
		f.tdt = -1;
	f.kind = kind;
	f.par = (A)par;
	f.div = -1;
	if (red == KJM_MEAN)
		f.div = (A)total;
	else if (red == KJM_BATCHMEAN)
		f.div = (A)(n->in[0].shape.rank ? n->in[0].shape.d[0] : total);
	sink.y = (T *)out;
	if (red == KJM_NONE) {
		if (total)
			loss_none_k<T><<<kj_blocks(g, total, 256), 256, 0, g->stream>>>(f, (T *)out, total);
		KJM_CHECK(err, n->op->name);
		return 0;
	}
	if (total == 0) {
		/* sum 0, mean NaN (0 / 0) */
		red_parts_k<F_loss<T>, kjm_sink<T>><<<1, 32, 0, g->stream>>>(f, sink, 1, 0, NULL);
		KJM_CHECK(err, n->op->name);
		return 0;
	}
	return red_run(g, f, sink, 1, total, 1, 0, n->op->name, err);
}

static int loss_dispatch(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
			 int reference, int kind, int red, double par, struct kj_err *err)
{
	KJM_FLOAT_DISPATCH(n, reference, loss_run<T>(g, n, in, out, reference, kind, red, par, err));
}

int kj_cuda_kl_div(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out, int reference,
		   struct kj_err *err)
{
	return loss_dispatch(g, n, in, out, reference, kjo_attr_i(n, 1, 0) ? KJM_L_KL_LOG : KJM_L_KL,
			     kjm_reduction_of(n, 0, 1), 0.0, err);
}

int kj_cuda_hinge_embedding_loss(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
				 int reference, struct kj_err *err)
{
	return loss_dispatch(g, n, in, out, reference, KJM_L_HINGE, kjm_reduction_of(n, 1, 0),
			     kjo_attr_f(n, 0, 1.0), err);
}

int kj_cuda_huber_loss(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
		       int reference, struct kj_err *err)
{
	return loss_dispatch(g, n, in, out, reference, KJM_L_HUBER, kjm_reduction_of(n, 0, 0),
			     kjo_attr_f(n, 1, 1.0), err);
}

int kj_cuda_smooth_l1_loss(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
			   int reference, struct kj_err *err)
{
	double beta = kjo_attr_f(n, 1, 1.0);
	/* beta = 0 is the L1 loss: d < 0 never holds, d - 0 */
	return loss_dispatch(g, n, in, out, reference, KJM_L_SMOOTH, kjm_reduction_of(n, 0, 0), beta,
			     err);
}

/* ---- triplet_margin_loss ---- */

template <class T> struct F_trip {
	typedef typename kjt<T>::acc A;
	struct S {
		A p, n, s, pad;
	};
	const T *a, *pos, *neg;
	int k, swap;
	A p, eps, margin;
	static __device__ __forceinline__ S init()
	{
		S s;
		s.p = s.n = s.s = s.pad = 0;
		return s;
	}
	__device__ __forceinline__ S add(S s, int64_t off) const
	{
		A av = kjt<T>::ld(a[off]), pv = kjt<T>::ld(pos[off]), nv = kjt<T>::ld(neg[off]);
		s.p += pterm_d<A>(av - pv + eps, k, p);
		s.n += pterm_d<A>(av - nv + eps, k, p);
		if (swap)
			s.s += pterm_d<A>(pv - nv + eps, k, p);
		return s;
	}
	static __device__ __forceinline__ S merge(S x, S y)
	{
		x.p += y.p;
		x.n += y.n;
		x.s += y.s;
		return x;
	}
	__device__ __forceinline__ A fin(S s, int64_t) const
	{
		A dp = proot_d<A>(s.p, k, p), dn = proot_d<A>(s.n, k, p);
		if (swap) {
			A ds = proot_d<A>(s.s, k, p);
			dn = ds < dn ? ds : dn;
		}
		A l = dp - dn + margin;
		return l > (A)0 ? l : (l != l ? l : (A)0);
	}
};

/* Sums (or averages) n values of an array. */
template <class T> struct F_arr {
	typedef typename kjt<T>::acc A;
	typedef A S;
	const A *v;
	A div;
	static __device__ __forceinline__ S init() { return 0; }
	__device__ __forceinline__ S add(S s, int64_t off) const { return s + v[off]; }
	static __device__ __forceinline__ S merge(S a, S b) { return a + b; }
	__device__ __forceinline__ A fin(S s, int64_t) const { return div > 0 ? s / div : s; }
};

template <class A> struct kjm_asink {
	A *y;
	__device__ __forceinline__ void put(int64_t row, A v) const { y[row] = v; }
};

template <class T>
static int triplet_run(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
		       struct kj_err *err)
{
	typedef typename kjt<T>::acc A;
	const kj_shape *s = &n->in[0].shape;
	int64_t D = s->d[s->rank - 1], rows = s->rank == 2 ? s->d[0] : 1;
	int red = kjm_reduction_of(n, 4, 0);
	double p = kjo_attr_f(n, 1, 2.0);
	F_trip<T> f;
	size_t lb = ((size_t)rows * sizeof(A) + 255) & ~(size_t)255;
	int rc;
	f.a = (const T *)in[0];
	f.pos = (const T *)in[1];
	f.neg = (const T *)in[2];
	f.k = (int)kjm_pkind_of(p);
	f.p = (A)p;
	f.eps = (A)kjo_attr_f(n, 2, 1e-6);
	f.margin = (A)kjo_attr_f(n, 0, 1.0);
	f.swap = (int)kjo_attr_i(n, 3, 0);
	if (red == KJM_NONE) {
		kjm_sink<T> sink;
		sink.y = (T *)out;
		return red_run(g, f, sink, rows, D, 1, 0, "triplet_margin_loss", err);
	}
	if (lb > g->workspace_bytes / 2)
		return kj_err_set(err, KJ_E_UNSUPPORTED,
				  "triplet_margin_loss: %lld rows do not fit the %zu-byte workspace",
				  (long long)rows, g->workspace_bytes);
	{
		kjm_asink<A> ls;
		ls.y = (A *)g->workspace;
		rc = red_run(g, f, ls, rows, D, 1, lb, "triplet_margin_loss", err);
		if (rc)
			return rc;
	}
	F_arr<T> fa;
	kjm_sink<T> sink;
	fa.v = (const A *)g->workspace;
	fa.div = red == KJM_MEAN ? (A)rows : (A)0;
	sink.y = (T *)out;
	return red_run(g, fa, sink, 1, rows, 1, lb, "triplet_margin_loss", err);
}

int kj_cuda_triplet_margin_loss(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out,
				int reference, struct kj_err *err)
{
	KJM_FLOAT_DISPATCH(n, reference, triplet_run<T>(g, n, in, out, err));
}
