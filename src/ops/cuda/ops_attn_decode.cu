/*
 * Split-KV ("flash-decoding") sdpa for the 16-bit eager baseline: few query
 * rows (L <= 16, e.g. the G query heads of a grouped-query decode step that
 * share one KV head) over many keys, not causal, E == Ev in {64, 128}.
 *
 * The GEMM path and the fused kernel of ops_attn.cu give such shapes one CTA
 * per batch matrix or launch three kernels over a scratch matrix of scores;
 * the op is bound by reading K and V once, so here the keys of each batch
 * matrix are cut into chunks, one CTA of 4 warps per (batch matrix, chunk),
 * enough CTAs to keep every SM streaming.
 *
 * Per CTA: the L query rows sit in shared memory (zero rows up to 16), read
 * as mma.m16n8k16 A fragments for every tile (registers hold the 16 x D
 * accumulator, two tiles of K and V in flight: 168 registers at D = 128,
 * three CTAs per SM).  Warp w takes the 16-key tiles w, w + 4, ... of the
 * chunk and streams them from global memory straight into registers
 * with 16-byte loads, tile i + 1's keys loaded while tile i's softmax and
 * P V run, tile i + 1's values while tile i + 1's scores run.  The element
 * order along D inside a fragment is free as long as both operands agree:
 * lane (g, t) (g = lane / 4, t = lane % 4) loads K[key][32j + 8t .. +7],
 * whose 32-bit words are its B fragment for the k-steps 2j, 2j + 1, and Q
 * the same way; for P V the lane loads V[key][64h + 8g .. +7] of the keys
 * 2t, 2t + 1, 2t + 8, 2t + 9, so output n-tile 8h + e, column n is
 * d = 64h + 8n + e, and a byte permute pairs two keys' elements into one B
 * register.  Scores are f32 scaled by scale * log2(e), an online softmax per
 * row per warp (running max m and sum l, the accumulator rescaled by
 * exp2(m_old - m_new)), P rounded to T as the A fragment of O += P V (the
 * precision of the fused kernel and of the GEMM path).  At the end the four
 * warps merge through shared memory (log-sum-exp rescaling); a chunk that is
 * the whole row writes O / l rounded to T, else it writes O / l in f32 and
 * m + log2(l) to g->workspace, and a second kernel combines the chunks of
 * each row in chunk order.  No atomics: results are deterministic.
 */
#include "ops/cuda/ops_common.cuh"
#include "ops/cuda/mma.cuh"
#include "ops/cuda/ops_attn_cudnn.h"

#include <limits.h>

extern "C" {
#include "ops/table_d.h"
}

#define KJD_WARPS 4
#define KJD_THREADS (KJD_WARPS * 32)
#define KJD_TILE 16 /* keys per warp tile */
#define KJD_MAXL 16 /* query rows: one m16 fragment */
#define KJD_MAXCH 256 /* chunks per batch matrix */

/* 16 bytes read once (streaming), or zeros when !ok (nothing read). */
__device__ __forceinline__ uint4 kjd_ld(const void *p, bool ok)
{
	uint4 z = make_uint4(0u, 0u, 0u, 0u);
	return ok ? __ldcs((const uint4 *)p) : z;
}

__device__ __forceinline__ uint32_t kjd_w(const uint4 &v, int i)
{
	return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
}

/* Keys g and g + 8 of the tile at j0 (rows of [*, D] at kp), zeros at or
 * past kend: kr[n][j] = K[j0 + 8n + g][32j + 8t .. +7]. */
template <int D>
__device__ __forceinline__ void kjd_load_k(uint4 (*kr)[D / 32], const uint16_t *kp, int64_t j0,
					   int64_t kend, int g, int t)
{
#pragma unroll
	for (int n = 0; n < 2; n++) {
		int64_t key = j0 + 8 * n + g;
		bool ok = key < kend;
#pragma unroll
		for (int j = 0; j < D / 32; j++)
			kr[n][j] = kjd_ld(kp + (ok ? key : 0) * D + 32 * j + 8 * t, ok);
	}
}

/* Keys 2t, 2t + 1, 2t + 8, 2t + 9 of the tile at j0, zeros at or past kend:
 * vr[i][h] = V[j0 + key_i][64h + 8g .. +7]. */
template <int D>
__device__ __forceinline__ void kjd_load_v(uint4 (*vr)[D / 64], const uint16_t *vp, int64_t j0,
					   int64_t kend, int g, int t)
{
#pragma unroll
	for (int i = 0; i < 4; i++) {
		int64_t key = j0 + 2 * t + (i & 1) + (i >> 1) * 8;
		bool ok = key < kend;
#pragma unroll
		for (int h = 0; h < D / 64; h++)
			vr[i][h] = kjd_ld(vp + (ok ? key : 0) * D + 64 * h + 8 * g, ok);
	}
}

/* q [batch, L, D], k and v [batch, S, D] (16-bit words); CTA
 * b * nch + c takes keys [c * chunk, min(S, (c + 1) * chunk)) of batch
 * matrix b.  With part == NULL (nch == 1) it writes o [batch, L, D], else
 * part [batch, nch, L, D] (O / l) and plse [batch, nch, L] (m + log2 l, in
 * units of the scaled scores); sl2 = scale * log2(e). */
template <class T, int D>
__global__ void __launch_bounds__(KJD_THREADS, 3) kjd_dec_k(const uint16_t *__restrict__ q,
							 const uint16_t *__restrict__ k,
							 const uint16_t *__restrict__ v, T *__restrict__ o,
							 float *__restrict__ part, float *__restrict__ plse,
							 int L, int64_t S, int64_t chunk, int nch, float sl2)
{
	constexpr int NJ = D / 32, NH = D / 64, ND = D / 8, LDS = D + 4;
	__shared__ float s_acc[KJD_WARPS][KJD_MAXL][LDS];
	__shared__ float s_m[KJD_WARPS][KJD_MAXL], s_l[KJD_WARPS][KJD_MAXL];
	__shared__ __align__(16) uint16_t s_q[KJD_MAXL][D + 8];
	const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, g = lane >> 2, t = lane & 3;
	const int64_t b = (int64_t)blockIdx.x / nch;
	const int c = (int)((int64_t)blockIdx.x % nch);
	const int64_t c0 = (int64_t)c * chunk, c1 = c0 + chunk < S ? c0 + chunk : S;
	const uint16_t *kp = k + b * S * D, *vp = v + b * S * D;

	/* Q [16, D] in shared memory (rows >= L zero, rows padded by 16 bytes so
	 * that the eight rows a load instruction touches fall in distinct banks) */
	{
		const uint16_t *qp = q + b * L * D;
		for (int i = threadIdx.x; i < KJD_MAXL * (D / 8); i += KJD_THREADS) {
			int r = i / (D / 8), cc = i % (D / 8);
			*(uint4 *)&s_q[r][8 * cc] = r < L ? __ldg((const uint4 *)(qp + (int64_t)r * D + 8 * cc))
							 : make_uint4(0u, 0u, 0u, 0u);
		}
		__syncthreads();
	}
	float acc[ND][4], mrow[2] = {-INFINITY, -INFINITY}, lrow[2] = {0.0f, 0.0f};
#pragma unroll
	for (int d = 0; d < ND; d++)
		acc[d][0] = acc[d][1] = acc[d][2] = acc[d][3] = 0.0f;
	uint4 kr[2][NJ], vr[4][NH];
	int64_t j0 = c0 + KJD_TILE * w;
	kjd_load_k<D>(kr, kp, j0, c1, g, t);
	kjd_load_v<D>(vr, vp, j0, c1, g, t);
	for (; j0 < c1; j0 += KJD_TILE * KJD_WARPS) {
		const int64_t jn = j0 + KJD_TILE * KJD_WARPS;
		float s[2][4];
#pragma unroll
		for (int n = 0; n < 2; n++)
			s[n][0] = s[n][1] = s[n][2] = s[n][3] = 0.0f;
#pragma unroll
		for (int j = 0; j < NJ; j++) {
			const uint4 qa = *(const uint4 *)&s_q[g][32 * j + 8 * t];
			const uint4 qb = *(const uint4 *)&s_q[g + 8][32 * j + 8 * t];
#pragma unroll
			for (int hh = 0; hh < 2; hh++) {
				uint32_t a[4] = {kjd_w(qa, 2 * hh), kjd_w(qb, 2 * hh), kjd_w(qa, 2 * hh + 1),
						 kjd_w(qb, 2 * hh + 1)};
#pragma unroll
				for (int n = 0; n < 2; n++)
					kj_mma<T>::mma(s[n], a, kjd_w(kr[n][j], 2 * hh), kjd_w(kr[n][j], 2 * hh + 1));
			}
		}
		kjd_load_k<D>(kr, kp, jn, c1, g, t); /* the next tile's keys, during this one's P V */
		const bool edge = j0 + KJD_TILE > c1;
		float mx[2] = {mrow[0], mrow[1]};
#pragma unroll
		for (int n = 0; n < 2; n++) {
#pragma unroll
			for (int e = 0; e < 4; e++) {
				float x = s[n][e] * sl2;
				if (edge && j0 + 8 * n + 2 * t + (e & 1) >= c1)
					x = -INFINITY;
				s[n][e] = x;
				mx[e >> 1] = fmaxf(mx[e >> 1], x);
			}
		}
		float mu[2], corr[2];
		kj_softmax_rows<false>(mx, mrow, lrow, mu, corr);
#pragma unroll
		for (int d = 0; d < ND; d++) {
			acc[d][0] *= corr[0];
			acc[d][1] *= corr[0];
			acc[d][2] *= corr[1];
			acc[d][3] *= corr[1];
		}
#pragma unroll
		for (int n = 0; n < 2; n++) {
#pragma unroll
			for (int e = 0; e < 4; e++) {
				s[n][e] = exp2f(s[n][e] - mu[e >> 1]);
				lrow[e >> 1] += s[n][e];
			}
		}
		uint32_t pa[4] = {kj_mma<T>::pack(s[0][0], s[0][1]), kj_mma<T>::pack(s[0][2], s[0][3]),
				  kj_mma<T>::pack(s[1][0], s[1][1]), kj_mma<T>::pack(s[1][2], s[1][3])};
#pragma unroll
		for (int h = 0; h < NH; h++) {
#pragma unroll
			for (int e = 0; e < 8; e++) {
				const unsigned sel = e & 1 ? 0x7632u : 0x5410u;
				uint32_t b0 = __byte_perm(kjd_w(vr[0][h], e >> 1), kjd_w(vr[1][h], e >> 1), sel);
				uint32_t b1 = __byte_perm(kjd_w(vr[2][h], e >> 1), kjd_w(vr[3][h], e >> 1), sel);
				kj_mma<T>::mma(acc[8 * h + e], pa, b0, b1);
			}
		}
		kjd_load_v<D>(vr, vp, jn, c1, g, t);
	}

	/* merge the warps: rows below L to shared memory, then a thread per
	 * (row, column) */
#pragma unroll
	for (int h = 0; h < 2; h++) {
		lrow[h] += __shfl_xor_sync(0xffffffffu, lrow[h], 1);
		lrow[h] += __shfl_xor_sync(0xffffffffu, lrow[h], 2);
	}
	if (t == 0) {
		if (g < L) {
			s_m[w][g] = mrow[0];
			s_l[w][g] = lrow[0];
		}
		if (g + 8 < L) {
			s_m[w][g + 8] = mrow[1];
			s_l[w][g + 8] = lrow[1];
		}
	}
#pragma unroll
	for (int nt = 0; nt < ND; nt++) {
#pragma unroll
		for (int cc = 0; cc < 2; cc++) {
			int d = 64 * (nt >> 3) + 8 * (2 * t + cc) + (nt & 7);
			if (g < L)
				s_acc[w][g][d] = acc[nt][cc];
			if (g + 8 < L)
				s_acc[w][g + 8][d] = acc[nt][2 + cc];
		}
	}
	__syncthreads();
	for (int idx = threadIdx.x; idx < L * D; idx += KJD_THREADS) {
		int r = idx / D, d = idx % D;
		float M = s_m[0][r];
#pragma unroll
		for (int x = 1; x < KJD_WARPS; x++)
			M = fmaxf(M, s_m[x][r]);
		float mu = M == -INFINITY ? 0.0f : M, ls = 0.0f, os = 0.0f;
#pragma unroll
		for (int x = 0; x < KJD_WARPS; x++) {
			float f = exp2f(s_m[x][r] - mu);
			ls += s_l[x][r] * f;
			os += s_acc[x][r][d] * f;
		}
		float val = ls > 0.0f ? os / ls : 0.0f;
		if (!part) {
			o[(b * L + r) * D + d] = kjt<T>::st(val);
		} else {
			int64_t pr = (b * nch + c) * L + r;
			part[pr * D + d] = val;
			if (d == 0)
				plse[pr] = ls > 0.0f ? mu + log2f(ls) : -INFINITY;
		}
	}
}

/* o [batch, L, D] from the chunks' partials of kjd_dec_k, the chunks summed
 * in order; CTA (x, y) takes elements [y * 128, y * 128 + 128) of the L x D
 * of batch matrix x (with a CTA per matrix, the combine of a 32-matrix
 * batch over 32768 keys was latency-bound: the op took 0.2236 ms on the
 * H200, 0.1734 with this grid). */
template <class T>
__global__ void __launch_bounds__(KJD_THREADS) kjd_combine_k(const float *__restrict__ part,
							     const float *__restrict__ plse, T *__restrict__ o,
							     int L, int D, int nch)
{
	const int64_t b = blockIdx.x;
	const int idx = blockIdx.y * KJD_THREADS + threadIdx.x;
	if (idx < L * D) {
		int r = idx / D, d = idx % D;
		const float *ls = plse + b * nch * L + r;
		float M = -INFINITY;
		for (int c = 0; c < nch; c++)
			M = fmaxf(M, ls[(int64_t)c * L]);
		float mu = M == -INFINITY ? 0.0f : M, ws = 0.0f, os = 0.0f;
		for (int c = 0; c < nch; c++) {
			float f = exp2f(ls[(int64_t)c * L] - mu);
			ws += f;
			os += f * part[((b * nch + c) * L + r) * D + d];
		}
		o[(b * L + r) * D + d] = kjt<T>::st(ws > 0.0f ? os / ws : 0.0f);
	}
}

/* Chunks per batch matrix: about 16 CTAs per SM in all (KJ_DECODE_CTAS,
 * for measurements), at least 256 keys
 * a chunk (4 tiles of each warp), at most KJD_MAXCH chunks, and partials
 * that fit the workspace (else one chunk: no partials). */
static int kjd_chunks(const kj_gpu *g, const kjm_attn *a, int64_t *chunk)
{
	int64_t tiles = (a->S + 63) / 64,
		target = (int64_t)g->info.sm_count * kj_knob_int("KJ_DECODE_CTAS");
	int64_t split = (target + a->batch - 1) / a->batch;
	int64_t per = (tiles + split - 1) / split, nch;
	size_t row = (size_t)a->L * (size_t)(a->E + 1) * sizeof(float) * (size_t)a->batch;
	if (per < 4)
		per = 4;
	if ((tiles + per - 1) / per > KJD_MAXCH)
		per = (tiles + KJD_MAXCH - 1) / KJD_MAXCH;
	nch = (tiles + per - 1) / per;
	if (nch > 1 && row * (size_t)nch > g->workspace_bytes) {
		int64_t most = (int64_t)(g->workspace_bytes / row);
		if (most < 2) {
			per = tiles;
		} else {
			per = (tiles + most - 1) / most;
		}
		nch = (tiles + per - 1) / per;
	}
	*chunk = per * 64;
	return (int)nch;
}

template <class T, int D>
static int kjd_launch(kj_gpu *g, const kjm_attn *a, const void *const *in, void *out, struct kj_err *err)
{
	int64_t chunk;
	int nch = kjd_chunks(g, a, &chunk);
	const float sl2 = (float)(a->scale * 1.4426950408889634);
	float *part = NULL, *plse = NULL;
	if (nch > 1) {
		part = (float *)g->workspace;
		plse = part + (size_t)a->batch * (size_t)nch * (size_t)a->L * (size_t)D;
	}
	kjd_dec_k<T, D><<<(unsigned)(a->batch * nch), KJD_THREADS, 0, g->stream>>>(
		(const uint16_t *)in[0], (const uint16_t *)in[1], (const uint16_t *)in[2], (T *)out, part, plse,
		(int)a->L, a->S, chunk, nch, sl2);
	KJ_LAUNCH_CHECK(err, "sdpa (decode)");
	if (nch > 1) {
		dim3 grid((unsigned)a->batch, (unsigned)((a->L * D + KJD_THREADS - 1) / KJD_THREADS));
		kjd_combine_k<T><<<grid, KJD_THREADS, 0, g->stream>>>(part, plse, (T *)out, (int)a->L, D, nch);
		KJ_LAUNCH_CHECK(err, "sdpa (decode combine)");
	}
	return 0;
}

template <class T>
static int kjd_run(kj_gpu *g, const kjm_attn *a, const void *const *in, void *out, struct kj_err *err)
{
	return a->E == 64 ? kjd_launch<T, 64>(g, a, in, out, err) : kjd_launch<T, 128>(g, a, in, out, err);
}

/* Decode shapes: this kernel or cuDNN's fused attention, whichever ran
 * faster on the shape's first call (kj_sdpa_cudnn_pick); this kernel alone
 * where cuDNN does not serve the shape. */
int kj_sdpa_decode(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out, int *handled,
		   struct kj_err *err)
{
	kjm_attn a;
	kj_dtype dt = n->in[0].dtype;
	kj_sdpa_fused_fn run;
	int rc;
	*handled = 0;
	if (dt != KJ_F16 && dt != KJ_BF16)
		return 0;
	for (int i = 1; i < 3; i++)
		if (n->in[i].dtype != dt)
			return 0;
	kjm_attn_geom(n, &a);
	if (a.causal || a.L < 1 || a.L > KJD_MAXL || a.S < 1 || a.batch < 1 || a.E != a.Ev ||
	    (a.E != 64 && a.E != 128))
		return 0;
	/* grid: batch * chunks CTAs, chunks <= KJD_MAXCH */
	if (a.batch > INT_MAX / KJD_MAXCH)
		return 0;
	for (int i = 0; i < 3; i++)
		if (!kj_aligned16(in[i]))
			return 0;
	run = dt == KJ_BF16 ? kjd_run<__nv_bfloat16> : kjd_run<__half>;
	if ((rc = kj_sdpa_cudnn_pick(g, dt, &a, in, out, run, "decode", handled, err)) || *handled)
		return rc;
	*handled = 1;
	g->sdpa_path = "decode";
	return run(g, &a, in, out, err);
}
