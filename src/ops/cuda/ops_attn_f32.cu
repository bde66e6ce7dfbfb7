/*
 * Fused f32 sdpa for the eager baseline: a flash-style kernel whose two
 * products run on the tensor cores in the "3xTF32" mode, as PyTorch's
 * memory-efficient kernel does for f32 on sm80+, instead of materialising
 * the scores (two SIMT SGEMMs and a softmax kernel, ops_attn.cu sdpa_run).
 * q [batch, L, E], k and v [batch, S, E], o [batch, L, E], E == Ev in
 * {64, 128}, any L, S >= 1, causal (top-left: key j visible to query i iff
 * j <= i, as kjm_attn_keys) or not.
 *
 * Dispatch (kj_sdpa_f32, called first by ops_attn.cu's kj_cuda_sdpa for an
 * f32 baseline): E == Ev in {64, 128}, 16-byte aligned q, k, v and o, a
 * grid of at most INT_MAX CTAs, and not decode-like (L <= 16 query rows
 * over S > 1024 keys: one CTA walks a batch matrix's keys, too few CTAs);
 * else the GEMM + softmax path (sdpa_run).  KJ_SDPA_F32=fused in the
 * environment takes the kernel wherever E and alignment allow (decode-like
 * shapes included), KJ_SDPA_F32=gemm never: for tests.
 *
 * Precision.  Each f32 operand x is split into big = tf32(x) (round to
 * nearest, ties away: (bits + 0x1000) & ~0x1fff, cvt.rna.tf32.f32 for
 * finite x) and small = x - big (exact in f32) truncated to tf32; mma
 * m16n8k8.tf32 then adds small*big' + big*small' + big*big' into the f32
 * accumulator.  |x - big| <= 2^-11 |x| and |x - big - small| < 2^-10
 * |x - big| <= 2^-21 |x|, so each product is off by at most |small small'|
 * + |x - big - small| |y| + |big| |y - big' - small'| <= ~2^-19.7 |x y|
 * (1.2e-6 relative), independent signs, next to the f32 accumulation's
 * own error; plain TF32 is off by 2^-11 (5e-4) per product.  The tensor
 * core adds with truncation (about 2^-24 of the largest addend per mma,
 * biased toward zero), so for the scores the small terms accumulate apart
 * (an accumulator of their own, added at the end) and big * big of each
 * pair of k-steps starts from zero and is added to the scores by an f32
 * add (round to nearest): the scores then take 2 truncations instead of
 * 3E / 8, fewer than exact f32 operands accumulated on the tensor cores
 * (CPU emulation with a truncating adder model, standard normal inputs
 * with 0.1% outliers x50: 3 failures in 200 random shapes and scales
 * against 13 for exact operands and 20 for one accumulator).  P (the
 * probabilities, in [0, 1], f32) is split the same way for O += P V
 * (one accumulator: the outputs' error is dominated by the scores').
 * The softmax is online in f32: scores scaled by scale * log2(e), running
 * max m and sum l per row, O rescaled by 2^(m_old - m_new), O / l at the
 * end (ex2.approx: ~2 ulp).  A NaN input makes small NaN, so NaN
 * propagates as in the reference.
 *
 * Tiles.  One CTA of 4 warps per (batch, block of query rows), 2 CTAs per
 * SM; key/value blocks of 32 rows staged in shared memory by cp.async with
 * double buffering (block kb + 1 loads while kb computes), rows past S
 * zero-filled.  E = 64: warp w owns 32 rows (two m16 tiles, 128 per CTA),
 * so each K or V fragment, loaded and split once, feeds two tiles; before
 * the loop each lane reads its own Q elements from global memory (16-byte
 * loads, rows past L as zeros), splits them and parks the A fragments in
 * shared memory in fragment order (64 KB, 16-byte reads per k-step, no
 * conversion in the loop); 101 KB of shared memory, 170 registers.  E =
 * 128: warp w owns 16 rows (one tile, 64 per CTA), the raw Q tile stays in
 * shared memory and is split per k-step (the split fragments would not fit
 * twice); 105 KB, 211 registers.  Each 16-byte read of K feeds 6 mma (E =
 * 64: 12), each 8-byte read of V 3 (6).  Rows are padded so that fragment
 * reads hit distinct banks (16-byte reads of Q and K rows of E + 16
 * floats, 8-byte reads of V rows of E + 4).  Causal CTAs stop at the
 * diagonal, a warp skips a key block none of its rows sees, and the grid
 * runs the last (longest) query blocks first.
 *
 * Fragment layouts (PTX ISA, mma.m16n8k8 .tf32; g = lane / 4, t = lane %
 * 4): A regs 0..3 hold (row g, col t), (g + 8, t), (g, t + 4), (g + 8,
 * t + 4); B regs 0, 1 hold (row t, col g), (t + 4, g); C holds (g, 2t),
 * (g, 2t + 1), (g + 8, 2t), (g + 8, 2t + 1).  The order of the summed
 * index inside a k-step is free as long as A and B agree, and so is which
 * output column a B column feeds as long as the store knows it:
 * - S = Q K^T, k-steps 2j and 2j + 1: in step 2j + u, A col t / t + 4 is
 *   e = 16j + 4t + 2u / + 1, so a lane reads Q[g][16j + 4t .. +3] and
 *   K[key g][16j + 4t .. +3] as one 16-byte word each for both steps.
 * - O += P V, keys 8kt .. 8kt + 7: the lane's scores of that n-tile, keys
 *   2t and 2t + 1 (C layout), are its A cols t and t + 4 (no shuffle); the
 *   B fragments are then V rows 8kt + 2t and 8kt + 2t + 1.  Output n-tiles
 *   2p and 2p + 1 take column n from d = 16p + 2n and 16p + 2n + 1, so one
 *   8-byte read of V gives both, and the lane's accumulators of the pair
 *   are O[g][16p + 4t .. +3] (and row g + 8): one 16-byte store each.
 * A CPU emulation of this kernel (lanes, fragments, cp.async, bank
 * conflicts, a truncating tensor-core adder) was checked against fp64
 * before the first GPU run; see docs/baseline.md.
 */
#include "ops/cuda/ops_common.cuh"
#include "ops/cuda/mma.cuh"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "ops/table_d.h"
}

#define KJ3_THREADS 128 /* 4 warps */

/* Per head size: m16 row tiles per warp (query rows per CTA: 64 MT), keys
 * per block, Q fragments split once into shared memory (else the raw Q
 * tile, split per k-step), CTAs per SM. */
template <int D> struct kj3_cfg;
template <> struct kj3_cfg<64> {
	static constexpr int MT = 2, BN = 32, QSM = 1, MINB = 2;
};
template <> struct kj3_cfg<128> {
	static constexpr int MT = 1, BN = 32, QSM = 0, MINB = 2;
};

template <int D> __host__ __device__ static constexpr int kj3_bm()
{
	return 64 * kj3_cfg<D>::MT;
}

/* Shared floats of the Q part: the split fragments (4 warps x MT tiles x
 * D / 8 k-steps x big, small x 32 lanes x 4) or the raw tile. */
template <int D> __host__ __device__ static constexpr int kj3_qfloats()
{
	return kj3_cfg<D>::QSM ? 4 * kj3_cfg<D>::MT * (D / 8) * 256 : kj3_bm<D>() * (D + 16);
}

/* The Q part, K double buffer (rows of D + 16), V double buffer (D + 4). */
template <int D> static constexpr size_t kj3_smem_bytes()
{
	return (size_t)(kj3_qfloats<D>() + 2 * kj3_cfg<D>::BN * (D + 16) + 2 * kj3_cfg<D>::BN * (D + 4)) *
	       sizeof(float);
}

/* x = big + small + (|x| 2^-21 at most): big the tf32 nearest to x (ties
 * away from zero), small the tf32 truncation of x - big. */
__device__ __forceinline__ void kj3_split(float x, uint32_t &big, uint32_t &small)
{
	uint32_t b = (__float_as_uint(x) + 0x1000u) & 0xffffe000u;
	big = b;
	small = __float_as_uint(x - __uint_as_float(b)) & 0xffffe000u;
}

__device__ __forceinline__ void kj3_mma(float *c, const uint32_t *a, uint32_t b0, uint32_t b1)
{
	asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
	    "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
	    : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
	    : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/* c += A B in 3xTF32 (bb, bs: B's big and small parts): the two small
 * terms, then the big one; with cc != c the small terms go to cc (added to
 * c at the end). */
__device__ __forceinline__ void kj3_mma3(float *c, float *cc, const uint32_t *ab, const uint32_t *as,
					 const uint32_t *bb, const uint32_t *bs)
{
	kj3_mma(cc, as, bb[0], bb[1]);
	kj3_mma(cc, ab, bs[0], bs[1]);
	kj3_mma(c, ab, bb[0], bb[1]);
}

/* The A fragment of rows g, g + 8 and cols t, t + 4 from the pairs
 * (g, 2t .. 2t+1) = lo and (g + 8, ..) = hi, split. */
__device__ __forceinline__ void kj3_afrag(float2 lo, float2 hi, uint32_t *ab, uint32_t *as)
{
	kj3_split(lo.x, ab[0], as[0]);
	kj3_split(hi.x, ab[1], as[1]);
	kj3_split(lo.y, ab[2], as[2]);
	kj3_split(hi.y, ab[3], as[3]);
}

__device__ __forceinline__ uint32_t kj3_saddr(const void *p)
{
	return (uint32_t)__cvta_generic_to_shared(p);
}

/* 16 bytes global -> shared, or 16 zero bytes when !ok (src not read). */
__device__ __forceinline__ void kj3_cp16(float *dst, const float *src, bool ok)
{
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(kj3_saddr(dst)), "l"(src),
		     "r"(ok ? 16 : 0)
		     : "memory");
}

__device__ __forceinline__ void kj3_commit()
{
	asm volatile("cp.async.commit_group;\n" ::: "memory");
}

__device__ __forceinline__ void kj3_wait_all()
{
	asm volatile("cp.async.wait_group 0;\n" ::: "memory");
}

/* Rows [r0, r0 + rows) of a [n, D] matrix at p (rows >= n zero-filled)
 * into shared rows of LD floats at s. */
template <int D, int LD>
__device__ __forceinline__ void kj3_load_rows(float *s, const float *p, int64_t r0, int rows, int64_t n)
{
	constexpr int CH = D / 4; /* 16-byte chunks per row */
#pragma unroll 1
	for (int c = threadIdx.x; c < rows * CH; c += KJ3_THREADS) {
		int r = c / CH, cc = c % CH;
		bool ok = r0 + r < n;
		kj3_cp16(s + r * LD + cc * 4, ok ? p + (r0 + r) * D + cc * 4 : p, ok);
	}
}

/* grid batch * nqb CTAs, the last query blocks first; sl2 = scale * log2(e). */
template <int D>
__global__ void __launch_bounds__(KJ3_THREADS, kj3_cfg<D>::MINB)
	kj3_fwd_k(const float *__restrict__ q, const float *__restrict__ k, const float *__restrict__ v,
		  float *__restrict__ o, int64_t L, int64_t S, int64_t batch, int64_t nqb, float sl2, int causal)
{
	constexpr int MT = kj3_cfg<D>::MT, BN = kj3_cfg<D>::BN, QSM = kj3_cfg<D>::QSM, BM = kj3_bm<D>();
	constexpr int WR = 16 * MT; /* rows per warp */
	constexpr int LK = D + 16, LV = D + 4, KS = D / 8, NT = BN / 8, NP = D / 16;
	extern __shared__ __align__(16) float kj3_sm[];
	/* the Q part, K buffers 0, 1, V buffers 0, 1 */
	float *sq = kj3_sm, *sk = sq + kj3_qfloats<D>(), *sv = sk + 2 * BN * LK;
	const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, g = lane >> 2, t4 = lane & 3;
	const int64_t qb = nqb - 1 - (int64_t)blockIdx.x / batch, b = (int64_t)blockIdx.x % batch;
	const int64_t q0 = qb * BM, r0 = q0 + w * WR; /* the CTA's and the warp's first row */
	const float *kp = k + b * S * D, *vp = v + b * S * D;
	const int64_t kend = causal ? (q0 + BM < S ? q0 + BM : S) : S;
	const int nkb = (int)((kend + BN - 1) / BN);
	/* QSM: the warp's split A fragments, (tile m, k-step kk) at
	 * qf + (m * KS + kk) * 256, big then small, 4 words per lane */
	float *qf = sq + w * MT * KS * 256 + lane * 4;
	float acc[MT][NP][2][4], mrow[MT][2], lrow[MT][2];
#pragma unroll
	for (int m = 0; m < MT; m++) {
		mrow[m][0] = mrow[m][1] = -INFINITY;
		lrow[m][0] = lrow[m][1] = 0.0f;
#pragma unroll
		for (int p = 0; p < NP; p++)
#pragma unroll
			for (int h = 0; h < 2; h++)
				acc[m][p][h][0] = acc[m][p][h][1] = acc[m][p][h][2] = acc[m][p][h][3] = 0.0f;
	}

	if (!QSM)
		kj3_load_rows<D, LK>(sq, q + b * L * D, q0, BM, L);
	kj3_load_rows<D, LK>(sk, kp, 0, BN, S);
	kj3_load_rows<D, LV>(sv, vp, 0, BN, S);
	kj3_commit();
	if (QSM) {
		/* the lane's Q elements straight from global memory (16 bytes:
		 * k-steps 2j and 2j + 1), split into fragment order */
#pragma unroll
		for (int m = 0; m < MT; m++) {
			const int64_t row = r0 + m * 16 + g;
			const float *qr = q + (b * L + row) * D + 4 * t4;
#pragma unroll
			for (int j = 0; j < D / 16; j++) {
				const float4 z = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
				float4 lo = row < L ? *(const float4 *)(qr + j * 16) : z;
				float4 hi = row + 8 < L ? *(const float4 *)(qr + 8 * D + j * 16) : z;
				uint32_t ab[4], as[4];
				kj3_afrag(make_float2(lo.x, lo.y), make_float2(hi.x, hi.y), ab, as);
				*(uint4 *)(qf + (m * KS + 2 * j) * 256) = make_uint4(ab[0], ab[1], ab[2], ab[3]);
				*(uint4 *)(qf + (m * KS + 2 * j) * 256 + 128) = make_uint4(as[0], as[1], as[2], as[3]);
				kj3_afrag(make_float2(lo.z, lo.w), make_float2(hi.z, hi.w), ab, as);
				*(uint4 *)(qf + (m * KS + 2 * j + 1) * 256) = make_uint4(ab[0], ab[1], ab[2], ab[3]);
				*(uint4 *)(qf + (m * KS + 2 * j + 1) * 256 + 128) =
					make_uint4(as[0], as[1], as[2], as[3]);
			}
		}
		__syncwarp();
	}
	for (int kb = 0; kb < nkb; kb++) {
		const int64_t j0 = (int64_t)kb * BN;
		const float *ks = sk + (kb & 1) * BN * LK, *vs = sv + (kb & 1) * BN * LV;
		kj3_wait_all();
		__syncthreads(); /* block kb landed; block kb - 1's buffer is free */
		if (kb + 1 < nkb) {
			int nb = (kb + 1) & 1;
			kj3_load_rows<D, LK>(sk + nb * BN * LK, kp, j0 + BN, BN, S);
			kj3_load_rows<D, LV>(sv + nb * BN * LV, vp, j0 + BN, BN, S);
			kj3_commit();
		}
		if (r0 >= L || (causal && j0 > r0 + WR - 1))
			continue; /* rows past L, or above the diagonal for all the warp's rows */
		float s[MT][NT][4], sc[MT][NT][4]; /* big * big, and the small terms */
#pragma unroll
		for (int m = 0; m < MT; m++)
#pragma unroll
			for (int nt = 0; nt < NT; nt++)
#pragma unroll
				for (int e = 0; e < 4; e++)
					s[m][nt][e] = sc[m][nt][e] = 0.0f;
#pragma unroll 1 /* unrolled, the scheduler's hoisting costs spills */
		for (int j = 0; j < D / 16; j++) {
			/* k-steps 2j + u, u = 0, 1: A col t / t + 4 is e = 16j + 4t + 2u
			 * / + 1, so a lane reads 16 bytes of a Q or K row per two k-steps */
			uint32_t ab[2][MT][4], as[2][MT][4];
#pragma unroll
			for (int m = 0; m < MT; m++) {
				if (QSM) {
#pragma unroll
					for (int u = 0; u < 2; u++) {
						uint4 x = *(const uint4 *)(qf + (m * KS + 2 * j + u) * 256);
						uint4 y = *(const uint4 *)(qf + (m * KS + 2 * j + u) * 256 + 128);
						ab[u][m][0] = x.x, ab[u][m][1] = x.y, ab[u][m][2] = x.z, ab[u][m][3] = x.w;
						as[u][m][0] = y.x, as[u][m][1] = y.y, as[u][m][2] = y.z, as[u][m][3] = y.w;
					}
				} else {
					const float *qr = sq + (w * WR + m * 16 + g) * LK + j * 16 + 4 * t4;
					float4 lo = *(const float4 *)qr, hi = *(const float4 *)(qr + 8 * LK);
					kj3_afrag(make_float2(lo.x, lo.y), make_float2(hi.x, hi.y), ab[0][m], as[0][m]);
					kj3_afrag(make_float2(lo.z, lo.w), make_float2(hi.z, hi.w), ab[1][m], as[1][m]);
				}
			}
#pragma unroll
			for (int nt = 0; nt < NT; nt++) {
				float4 kv = *(const float4 *)(ks + (nt * 8 + g) * LK + j * 16 + 4 * t4);
				uint32_t bb[2][2], bs[2][2];
				float tp[MT][4]; /* big * big of this pair of k-steps */
				kj3_split(kv.x, bb[0][0], bs[0][0]);
				kj3_split(kv.y, bb[0][1], bs[0][1]);
				kj3_split(kv.z, bb[1][0], bs[1][0]);
				kj3_split(kv.w, bb[1][1], bs[1][1]);
#pragma unroll
				for (int m = 0; m < MT; m++)
					tp[m][0] = tp[m][1] = tp[m][2] = tp[m][3] = 0.0f;
#pragma unroll
				for (int u = 0; u < 2; u++)
#pragma unroll
					for (int m = 0; m < MT; m++)
						kj3_mma3(tp[m], sc[m][nt], ab[u][m], as[u][m], bb[u], bs[u]);
#pragma unroll
				for (int m = 0; m < MT; m++)
#pragma unroll
					for (int e = 0; e < 4; e++)
						s[m][nt][e] += tp[m][e];
			}
		}
		/* key j0 + c is masked for query row r0 + x when c > x + dq or
		 * c >= ns (dq = r0 - j0, in [1 - WR, BN] here, clipped to BN) */
		const int ns = (int)(S - j0 < BN ? S - j0 : BN);
		const int dq = causal && r0 - j0 < BN ? (int)(r0 - j0) : BN;
		const bool edge = ns < BN || dq < BN - 1;
#pragma unroll
		for (int m = 0; m < MT; m++) {
			float mx[2] = {mrow[m][0], mrow[m][1]};
			int cl[2]; /* the last key column each of the lane's rows sees */
#pragma unroll
			for (int h = 0; h < 2; h++)
				cl[h] = min(ns - 1, dq + m * 16 + g + h * 8);
#pragma unroll
			for (int nt = 0; nt < NT; nt++) {
#pragma unroll
				for (int e = 0; e < 4; e++) {
					float x = (s[m][nt][e] + sc[m][nt][e]) * sl2;
					if (edge && nt * 8 + t4 * 2 + (e & 1) > cl[e >> 1])
						x = -INFINITY;
					s[m][nt][e] = x;
					mx[e >> 1] = fmaxf(mx[e >> 1], x);
				}
			}
			float mu[2], corr[2];
			kj_softmax_rows<true>(mx, mrow[m], lrow[m], mu, corr);
#pragma unroll
			for (int p = 0; p < NP; p++)
#pragma unroll
				for (int h = 0; h < 2; h++) {
					acc[m][p][h][0] *= corr[0];
					acc[m][p][h][1] *= corr[0];
					acc[m][p][h][2] *= corr[1];
					acc[m][p][h][3] *= corr[1];
				}
#pragma unroll
			for (int nt = 0; nt < NT; nt++) {
#pragma unroll
				for (int e = 0; e < 4; e++) {
					s[m][nt][e] = kj_ex2_fast(s[m][nt][e] - mu[e >> 1]);
					lrow[m][e >> 1] += s[m][nt][e];
				}
			}
		}
#pragma unroll
		for (int kt = 0; kt < NT; kt++) {
			uint32_t pb[MT][4], ps[MT][4];
#pragma unroll
			for (int m = 0; m < MT; m++)
				kj3_afrag(make_float2(s[m][kt][0], s[m][kt][1]), make_float2(s[m][kt][2], s[m][kt][3]),
					  pb[m], ps[m]);
			const float *v0 = vs + (kt * 8 + 2 * t4) * LV + 2 * g;
#pragma unroll
			for (int p = 0; p < NP; p++) {
				float2 va = *(const float2 *)(v0 + p * 16), vb = *(const float2 *)(v0 + LV + p * 16);
				uint32_t xb[2], xs[2], yb[2], ys[2];
				kj3_split(va.x, xb[0], xs[0]);
				kj3_split(vb.x, xb[1], xs[1]);
				kj3_split(va.y, yb[0], ys[0]);
				kj3_split(vb.y, yb[1], ys[1]);
#pragma unroll
				for (int m = 0; m < MT; m++) {
					kj3_mma3(acc[m][p][0], acc[m][p][0], pb[m], ps[m], xb, xs);
					kj3_mma3(acc[m][p][1], acc[m][p][1], pb[m], ps[m], yb, ys);
				}
			}
		}
	}
	if (r0 >= L)
		return;
#pragma unroll
	for (int m = 0; m < MT; m++) {
		float inv[2];
#pragma unroll
		for (int h = 0; h < 2; h++) {
			float l = lrow[m][h];
			l += __shfl_xor_sync(0xffffffffu, l, 1);
			l += __shfl_xor_sync(0xffffffffu, l, 2);
			inv[h] = l > 0.0f ? 1.0f / l : 0.0f;
		}
		const int64_t row = r0 + m * 16 + g;
		float *op = o + (b * L + row) * D + 4 * t4;
#pragma unroll
		for (int h = 0; h < 2; h++) {
			if (row + 8 * h >= L)
				break;
#pragma unroll
			for (int p = 0; p < NP; p++) {
				float4 r = make_float4(acc[m][p][0][2 * h] * inv[h], acc[m][p][1][2 * h] * inv[h],
						       acc[m][p][0][2 * h + 1] * inv[h], acc[m][p][1][2 * h + 1] * inv[h]);
				*(float4 *)(op + (int64_t)h * 8 * D + p * 16) = r;
			}
		}
	}
}

/* 0 default, 1 fused wherever it applies, 2 never; -1 for another value. */
static int kj3_forced(void)
{
	const char *v = kj_knob_str("KJ_SDPA_F32");
	if (!strcmp(v, "auto"))
		return 0;
	if (!strcmp(v, "fused"))
		return 1;
	if (!strcmp(v, "gemm"))
		return 2;
	return -1;
}

template <int D>
static int kj3_launch(kj_gpu *g, const kjm_attn *a, const void *const *in, void *out, struct kj_err *err)
{
	const size_t smem = kj3_smem_bytes<D>();
	const int64_t nqb = (a->L + kj3_bm<D>() - 1) / kj3_bm<D>();
	const float sl2 = (float)(a->scale * 1.4426950408889634);
	KJ_CUDA_CHECK(err, cudaFuncSetAttribute(kj3_fwd_k<D>, cudaFuncAttributeMaxDynamicSharedMemorySize,
						(int)smem));
	kj3_fwd_k<D><<<(unsigned)(a->batch * nqb), KJ3_THREADS, smem, g->stream>>>(
		(const float *)in[0], (const float *)in[1], (const float *)in[2], (float *)out, a->L, a->S,
		a->batch, nqb, sl2, a->causal);
	KJ_LAUNCH_CHECK(err, "sdpa (fused f32)");
	return 0;
}

int kj_sdpa_f32(kj_gpu *g, const kj_bnode *n, const void *const *in, void *out, int *handled,
		struct kj_err *err)
{
	kjm_attn a;
	int force = kj3_forced();
	int64_t nqb;
	*handled = 0;
	if (force < 0)
		return kj_err_set(err, KJ_E_USAGE, "KJ_SDPA_F32='%s': expected 'auto', 'fused' or 'gemm'",
				  kj_knob_str("KJ_SDPA_F32"));
	if (force == 2)
		return 0;
	for (int i = 0; i < 3; i++)
		if (n->in[i].dtype != KJ_F32)
			return 0;
	kjm_attn_geom(n, &a);
	if (a.E != a.Ev || (a.E != 64 && a.E != 128) || a.S < 1 || a.L < 1 || a.batch < 1)
		return 0;
	/* decode-like (a few query rows over many keys): one CTA walks all the
	 * keys of a batch matrix, too few CTAs; the GEMM path stays */
	if (!force && a.L <= 16 && a.S > 1024)
		return 0;
	nqb = (a.L + 63) / 64; /* the most CTAs of any head size */
	if (a.batch > INT_MAX / nqb)
		return 0;
	for (int i = 0; i < 3; i++)
		if (!kj_aligned16(in[i]))
			return 0;
	if (!kj_aligned16(out))
		return 0;
	*handled = 1;
	return a.E == 64 ? kj3_launch<64>(g, &a, in, out, err) : kj3_launch<128>(g, &a, in, out, err);
}
