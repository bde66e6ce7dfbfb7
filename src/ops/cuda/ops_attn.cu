/*
 * CUDA sdpa (table D: scaled_dot_product_attention) for the eager baseline
 * (task dtypes, float arithmetic) and the reference (double buffers, double
 * arithmetic), mirroring src/ops/cpu/misc_impl.h.
 *
 * The baseline: one strided-batched GEMM for the scores (alpha = scale), a
 * softmax kernel over each row of scores (a warp per row; the causal mask
 * writes zeros), one strided-batched GEMM with the values.  For 16-bit
 * tasks the scores and the softmax stay in f32 and only the probabilities
 * are rounded to the task's dtype for the second GEMM, the precision of
 * PyTorch's fused (flash) kernels; rounding the scores too (the old math
 * path) put errors of 9e-3 on outputs of 1e-2.  A causal task runs in 16
 * query blocks, each over the keys it can attend (53% of the work).  The
 * scores live in scratch memory from a private stream-ordered pool of the
 * device (cudaMallocFromPoolAsync), which keeps its memory between calls as
 * PyTorch's caching allocator does; batches are chunked so that the scratch
 * stays under 2 GiB.  The reference runs DGEMM.  f16
 * and bf16 with E == Ev in {64, 128} run instead fused kernels without
 * scratch: decode shapes (L <= 16 query rows, not causal) the split-KV
 * kernel of ops_attn_decode.cu (K and V read once, chunks combined by
 * log-sum-exp), the rest (other than decode-like L <= 8, S > 1024) one
 * flash-style kernel (fa_fwd_k: mma.sync tiles, online softmax in f32, P
 * rounded to the dtype as above) or cuDNN's fused attention
 * (ops_attn_cudnn.cu, which also takes E % 8 == 0 up to 128), whichever
 * ran faster on the shape's first call.
 */
#include "ops/cuda/ops_common.cuh"
#include "ops/cuda/mma.cuh"
#include "ops/cuda/ops_attn_cudnn.h"

#include <limits.h>
#include <pthread.h>

extern "C" {
#include "ops/table_d.h"
}

/* ================= scratch memory for sdpa ================= */

#define KJM_MAX_DEV 64

/* One pool per device for the whole process, made by the first sdpa that
 * needs scratch on that device and never destroyed (keeping its memory
 * between calls is the point).  Serve's and run's evaluation threads may
 * make that first call at the same time, so the table is read and written
 * only under kjm_pool_lock. */
static cudaMemPool_t kjm_pool[KJM_MAX_DEV];
static pthread_mutex_t kjm_pool_lock = PTHREAD_MUTEX_INITIALIZER;

/* The pool of device d (0 <= d < KJM_MAX_DEV) into *pool, made on first
 * use; returns the runtime's error, the table unchanged on failure. */
static cudaError_t pool_of(int d, cudaMemPool_t *pool)
{
	cudaError_t rc = cudaSuccess;
	pthread_mutex_lock(&kjm_pool_lock);
	if (!kjm_pool[d]) {
		cudaMemPoolProps props;
		cudaMemPool_t made = NULL;
		uint64_t keep = UINT64_MAX;
		memset(&props, 0, sizeof(props));
		props.allocType = cudaMemAllocationTypePinned;
		props.location.type = cudaMemLocationTypeDevice;
		props.location.id = d;
		rc = cudaMemPoolCreate(&made, &props);
		if (rc == cudaSuccess)
			rc = cudaMemPoolSetAttribute(made, cudaMemPoolAttrReleaseThreshold, &keep);
		if (rc == cudaSuccess)
			kjm_pool[d] = made;
		else if (made)
			cudaMemPoolDestroy(made);
	}
	*pool = kjm_pool[d];
	pthread_mutex_unlock(&kjm_pool_lock);
	return rc;
}

/* Stream-ordered scratch from a private pool of g's device that keeps its
 * memory (release threshold: unlimited).  Free with cudaFreeAsync on
 * g->stream. */
static int scratch_alloc(kj_gpu *g, size_t bytes, void **p, struct kj_err *err)
{
	int d = g->device;
	cudaMemPool_t pool;
	if (d < 0 || d >= KJM_MAX_DEV)
		return kj_err_set(err, KJ_E_UNSUPPORTED, "sdpa: device %d out of range", d);
	KJ_CUDA_CHECK(err, pool_of(d, &pool));
	KJ_CUDA_CHECK(err, cudaMallocFromPoolAsync(p, bytes, pool, g->stream));
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
