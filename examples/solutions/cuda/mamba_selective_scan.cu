// kjudge-case: task=level3/mamba_selective_scan expect=pass
/* Mamba's selective scan as the recurrence it stands for.  The task writes
 * it in closed form, h_t = exp(la_t) * sum_{s<=t} exp(-la_s) u_s with
 * la_t = sum_{s<=t} dt_s A, which is the same as
 *   h_t = exp(dt_t A) h_{t-1} + dt_t x_t B_t,   y_t = C_t . h_t + D x_t
 * with dt = min(softplus(dt_raw), 0.1), A = -exp(min(a_log, 0)).  The scan
 * walks the L steps in order per (batch, channel), states in registers, in
 * float with two safeguards against the error a 1024-step float recurrence
 * collects when a state barely decays (an outlier a_log makes A ~ 0): the
 * decay is applied as h + (expm1(dt A) h + u), expm1 by a short series
 * (dt A is always in [-0.1, 0]), so exp(dt A) is not rounded to a float
 * near 1; and the rounding error of that add is carried in a second float
 * per state (TwoSum), so h + e tracks the fp64 value to ~1e-7 relative.
 * Checked on the CPU against the task's closed form in fp64 with 10x the
 * judge's outlier rate: worst error 0.22 of the tolerance at L = 1024.
 *
 * Why faster: the eager baseline materialises [B, L, D, N] tensors (the
 * products dt A, their cumsum, exp(la), exp(-la), u, the products and the
 * second cumsum, h, h * C) through ~15 kernels: ~10 GB of traffic on either
 * bench shape (0.5 GB per [B, L, D, N] f32 tensor), i.e. milliseconds.
 * This reads x, dt_raw, B and C once and writes y once (~100 MB); the
 * scan is compute-bound (~20 float ops per state and step, no MUFU in the
 * state loop) at a few hundred microseconds: several times faster.
 *
 * Layout: 8 states per thread; a channel with N > 8 states is split over
 * G = 2 or 4 adjacent lanes (N <= 16: bench 1 gets 16384 threads instead
 * of 8192) whose y shares are added by shuffles in a fixed order; N > 32
 * runs several passes over L, each adding its states' share of y (the
 * first also writes D x).  A block is 64 lanes of one batch row: x, dt_raw
 * and y accesses coalesce across channels.  Steps go in chunks of 16: the
 * chunk's B_t and C_t (shared by every channel) are staged in shared
 * memory (double-buffered) and the next chunk's x, dt_raw, B, C are loaded
 * into registers while the current one is computed, so the loads' latency
 * overlaps the arithmetic.  Unused state slots get A = 0, B = C = 0, so
 * they stay 0 and add nothing. */
#include "kjudge_cuda.h"

#define THREADS 64 /* per block: G lanes per channel, 64 / G channels */
#define TC 16      /* steps per chunk */
#define NS 8       /* states per thread */

/* exp(z) - 1 for z in [-0.1, 0] (dt <= 0.1 and -1 <= A < 0, so always):
 * Taylor to z^6, truncation < 2e-10 relative, no cancellation near 0. */
static __device__ __forceinline__ float expm1_small(float z)
{
	float p = fmaf(z, 1.0f / 720.0f, 1.0f / 120.0f);

	p = fmaf(z, p, 1.0f / 24.0f);
	p = fmaf(z, p, 1.0f / 6.0f);
	p = fmaf(z, p, 0.5f);
	p = fmaf(z, p, 1.0f);
	return z * p;
}

/* One pass over states n0 .. n0 + G * NS - 1; lane sub of a channel owns
 * states n0 + sub * NS + j, j < NS. */
template <int G>
__global__ void __launch_bounds__(THREADS)
	scan_k(const float* __restrict__ x, const float* __restrict__ dtr, const float* __restrict__ alog,
	       const float* __restrict__ bm, const float* __restrict__ cm, const float* __restrict__ dsk,
	       float* __restrict__ y, int64_t L, int64_t D, int64_t N, int64_t n0, int first)
{
	const int NT = G * NS;                              /* states of the pass */
	const int SPT = (TC * NT + THREADS - 1) / THREADS; /* staged B (and C) values per thread */
	__shared__ float4 sb[2][TC][NT / 4], sc[2][TC][NT / 4];
	int sub = threadIdx.x % G;
	int64_t d = (int64_t)blockIdx.x * (THREADS / G) + threadIdx.x / G, b = blockIdx.y;
	bool act = d < D;
	float A[NS], h[NS], e[NS], cx[TC], cd[TC], nx[TC], nd[TC], pb[SPT], pc[SPT];
	float dskip = act ? __ldg(dsk + d) : 0.0f;
	const float* xb = x + (b * L) * D + (act ? d : 0);
	const float* db = dtr + (b * L) * D + (act ? d : 0);
	float* yb = y + (b * L) * D + d;
	const float* bb = bm + (b * L) * N + n0;
	const float* cb = cm + (b * L) * N + n0;
	int64_t nn = N - n0 < NT ? N - n0 : NT; /* valid states of the pass */

#pragma unroll
	for (int j = 0; j < NS; j++) {
		int64_t n = sub * NS + j;
		float a = act && n < nn ? __ldg(alog + d * N + n0 + n) : 0.0f;

		a = a > 0.0f ? 0.0f : a; /* clamp(max=0), NaN kept */
		A[j] = act && n < nn ? -expf(a) : 0.0f;
		h[j] = 0.0f;
		e[j] = 0.0f;
	}

	/* chunk 0: B, C into buffer 0, x and dt_raw into cx, cd */
#pragma unroll
	for (int k = 0; k < SPT; k++) {
		int idx = threadIdx.x + k * THREADS, tt = idx / NT, j = idx % NT;

		if (idx < TC * NT) {
			bool ok = tt < L && j < nn;

			reinterpret_cast<float*>(sb[0][tt])[j] = ok ? __ldg(bb + tt * N + j) : 0.0f;
			reinterpret_cast<float*>(sc[0][tt])[j] = ok ? __ldg(cb + tt * N + j) : 0.0f;
		}
	}
#pragma unroll
	for (int tt = 0; tt < TC; tt++) {
		bool ok = act && tt < L;

		cx[tt] = ok ? __ldg(xb + tt * D) : 0.0f;
		cd[tt] = ok ? __ldg(db + tt * D) : 0.0f;
	}
	__syncthreads();

	for (int64_t t0 = 0, it = 0; t0 < L; t0 += TC, it++) {
		int buf = (int)(it & 1);
		int64_t t1 = t0 + TC;

		/* issue the next chunk's loads; they land while this one runs */
#pragma unroll
		for (int k = 0; k < SPT; k++) {
			int idx = threadIdx.x + k * THREADS, tt = idx / NT, j = idx % NT;
			bool ok = idx < TC * NT && t1 + tt < L && j < nn;

			pb[k] = ok ? __ldg(bb + (t1 + tt) * N + j) : 0.0f;
			pc[k] = ok ? __ldg(cb + (t1 + tt) * N + j) : 0.0f;
		}
#pragma unroll
		for (int tt = 0; tt < TC; tt++) {
			bool ok = act && t1 + tt < L;

			nx[tt] = ok ? __ldg(xb + (t1 + tt) * D) : 0.0f;
			nd[tt] = ok ? __ldg(db + (t1 + tt) * D) : 0.0f;
		}

#pragma unroll
		for (int tt = 0; tt < TC; tt++) {
			float raw = cd[tt], dt, dx, acc = 0.0f, bv[NS], cv[NS];

			dt = raw > 20.0f ? raw : log1pf(expf(raw)); /* softplus, threshold 20 */
			dt = dt > 0.1f ? 0.1f : dt;                  /* clamp(max=0.1) */
			dx = dt * cx[tt];
#pragma unroll
			for (int q = 0; q < NS / 4; q++) {
				float4 u = sb[buf][tt][sub * (NS / 4) + q], v = sc[buf][tt][sub * (NS / 4) + q];

				bv[4 * q] = u.x, bv[4 * q + 1] = u.y, bv[4 * q + 2] = u.z, bv[4 * q + 3] = u.w;
				cv[4 * q] = v.x, cv[4 * q + 1] = v.y, cv[4 * q + 2] = v.z, cv[4 * q + 3] = v.w;
			}
#pragma unroll
			for (int j = 0; j < NS; j++) {
				/* (h + e) <- exp(dt A) (h + e) + dt x B, as
				 * h + (em (h + e) + u) with em = exp(dt A) - 1,
				 * the rounding error of that add kept in e */
				float em = expm1_small(dt * A[j]);
				float corr = fmaf(em, h[j], fmaf(em, e[j], dx * bv[j]));
				float s = h[j] + corr, bp = s - h[j];

				e[j] += (h[j] - (s - bp)) + (corr - bp);
				h[j] = s;
				acc = fmaf(h[j] + e[j], cv[j], acc);
			}
			for (int o = 1; o < G; o <<= 1) /* the channel's lanes, fixed order */
				acc += __shfl_xor_sync(0xffffffffu, acc, o);
			if (act && sub == 0 && t0 + tt < L) {
				float* yp = yb + (t0 + tt) * D;

				*yp = first ? acc + cx[tt] * dskip : *yp + acc;
			}
		}

		/* stage the next chunk's B, C in the other buffer (last read
		 * before the barrier that ended the previous chunk) */
#pragma unroll
		for (int k = 0; k < SPT; k++) {
			int idx = threadIdx.x + k * THREADS;

			if (idx < TC * NT) {
				reinterpret_cast<float*>(sb[buf ^ 1][idx / NT])[idx % NT] = pb[k];
				reinterpret_cast<float*>(sc[buf ^ 1][idx / NT])[idx % NT] = pc[k];
			}
		}
#pragma unroll
		for (int tt = 0; tt < TC; tt++) {
			cx[tt] = nx[tt];
			cd[tt] = nd[tt];
		}
		__syncthreads();
	}
}

template <int G>
static void scan_pass(const float* x, const float* dt_raw, const float* a_log, const float* bm, const float* cm,
		      const float* dskip, float* y, int64_t B, int64_t L, int64_t D, int64_t N, int64_t n0,
		      cudaStream_t stream)
{
	const int cpb = THREADS / G;
	dim3 grid((unsigned)((D + cpb - 1) / cpb), (unsigned)B);

	scan_k<G><<<grid, THREADS, 0, stream>>>(x, dt_raw, a_log, bm, cm, dskip, y, L, D, N, n0, n0 == 0);
}

extern "C" void mamba_selective_scan(const float* x, const float* dt_raw, const float* a_log, const float* bm,
				     const float* cm, const float* dskip, float* y, int64_t B, int64_t L,
				     int64_t D, int64_t N, cudaStream_t stream)
{
	if (B <= 0 || L <= 0 || D <= 0 || N <= 0)
		return;
	if (N <= NS)
		scan_pass<1>(x, dt_raw, a_log, bm, cm, dskip, y, B, L, D, N, 0, stream);
	else if (N <= 2 * NS)
		scan_pass<2>(x, dt_raw, a_log, bm, cm, dskip, y, B, L, D, N, 0, stream);
	else
		for (int64_t n0 = 0; n0 < N; n0 += 4 * NS)
			scan_pass<4>(x, dt_raw, a_log, bm, cm, dskip, y, B, L, D, N, n0, stream);
}
