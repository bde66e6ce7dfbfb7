// kjudge-case: task=level1/kl_div_loss expect=pass
/* KL(t || p), batchmean, for t = softmax(xt), p = softmax(xp) per row, in one
 * read of both inputs.  With mt, mp the row maxima and
 *   St = sum exp(xt - mt),  Sp = sum exp(xp - mp),
 *   W  = sum exp(xt - mt) * (xt - xp),
 * the row's KL is sum t (log t - log p) = W / St - (mt + ln St) + (mp + ln Sp)
 * (the t_i sum to 1).  Each thread keeps online (max, sum) pairs for both
 * rows and W rescaled with t's max, one rescale per 16-byte vector
 * (exp(old max - new max)) and __expf per element; the pairs merge across
 * the block by the same rule.  The row value is formed in double, summed
 * per block in double into a static partial array, and a one-block kernel
 * adds the partials in a fixed order and divides by B (deterministic).
 *
 * Why faster: the eager baseline runs two log_softmax kernels (read and
 * write B*D each), exp, sub, mul (each writing a B*D tensor) and the two
 * reductions: ~13 passes over B*D floats; this reads xp and xt once (2
 * passes), so ~4-5x faster on the bench shapes (both memory-bound; three
 * __expf per element stay under the memory time).
 * 16-byte loads when D % 4 == 0 and both inputs are 16-byte aligned, else
 * scalar.  Rows are spread over at most 2048 blocks (block r takes rows r,
 * r + 2048, ...). */
#include "kjudge_cuda.h"

#include <math.h>

#define THREADS 256
#define WARPS (THREADS / 32)
#define MAX_BLOCKS 2048

static __device__ double kl_part[MAX_BLOCKS];

/* Online state of one row: t's max, sum and W; p's max and sum. */
struct klst {
	float mt, st, w, mp, sp;
};

static __device__ __forceinline__ void kl_merge(klst& a, const klst& b)
{
	if (b.mt != -INFINITY) {
		if (a.mt == -INFINITY) {
			a.mt = b.mt, a.st = b.st, a.w = b.w;
		} else {
			float m = fmaxf(a.mt, b.mt), ea = __expf(a.mt - m), eb = __expf(b.mt - m);

			a.st = a.st * ea + b.st * eb;
			a.w = a.w * ea + b.w * eb;
			a.mt = m;
		}
	}
	if (b.mp != -INFINITY) {
		if (a.mp == -INFINITY) {
			a.mp = b.mp, a.sp = b.sp;
		} else {
			float m = fmaxf(a.mp, b.mp);

			a.sp = a.sp * __expf(a.mp - m) + b.sp * __expf(b.mp - m);
			a.mp = m;
		}
	}
}

/* Adds n values (n <= 4) of both rows with one rescale for the group. */
static __device__ __forceinline__ void kl_add(klst& s, const float* vt, const float* vp, int n)
{
	float m = vt[0], q = vp[0];

	for (int k = 1; k < n; k++) {
		m = fmaxf(m, vt[k]);
		q = fmaxf(q, vp[k]);
	}
	if (m > s.mt) {
		float e = __expf(s.mt - m); /* 0 while the state is empty */

		s.st *= e;
		s.w *= e;
		s.mt = m;
	}
	if (q > s.mp) {
		s.sp *= __expf(s.mp - q);
		s.mp = q;
	}
	for (int k = 0; k < n; k++) {
		float e = __expf(vt[k] - s.mt);

		s.st += e;
		s.w += e * (vt[k] - vp[k]);
		s.sp += __expf(vp[k] - s.mp);
	}
}

template <bool VEC>
__global__ void __launch_bounds__(THREADS) kl_rows(const float* __restrict__ xp, const float* __restrict__ xt,
						   int64_t B, int64_t D)
{
	__shared__ klst red[WARPS];
	double part = 0.0;

	for (int64_t r = blockIdx.x; r < B; r += gridDim.x) {
		const float* pr = xp + r * D;
		const float* tr = xt + r * D;
		klst s = {-INFINITY, 0.0f, 0.0f, -INFINITY, 0.0f};

		if (VEC) {
			const float4* p4 = reinterpret_cast<const float4*>(pr);
			const float4* t4 = reinterpret_cast<const float4*>(tr);
			int64_t n4 = D / 4;

#pragma unroll 4
			for (int64_t i = threadIdx.x; i < n4; i += THREADS) {
				float4 a = __ldg(t4 + i), b = __ldg(p4 + i);
				float vt[4] = {a.x, a.y, a.z, a.w}, vp[4] = {b.x, b.y, b.z, b.w};

				kl_add(s, vt, vp, 4);
			}
		} else {
			for (int64_t i = threadIdx.x; i < D; i += THREADS) {
				float vt[1] = {__ldg(tr + i)}, vp[1] = {__ldg(pr + i)};

				kl_add(s, vt, vp, 1);
			}
		}
		/* merge across the warp, then across warps */
		for (int o = 16; o > 0; o >>= 1) {
			klst u;

			u.mt = __shfl_xor_sync(0xffffffffu, s.mt, o);
			u.st = __shfl_xor_sync(0xffffffffu, s.st, o);
			u.w = __shfl_xor_sync(0xffffffffu, s.w, o);
			u.mp = __shfl_xor_sync(0xffffffffu, s.mp, o);
			u.sp = __shfl_xor_sync(0xffffffffu, s.sp, o);
			kl_merge(s, u);
		}
		if ((threadIdx.x & 31) == 0)
			red[threadIdx.x >> 5] = s;
		__syncthreads();
		if (threadIdx.x == 0) {
			klst a = red[0];

			for (int k = 1; k < WARPS; k++)
				kl_merge(a, red[k]);
			part += (double)a.w / (double)a.st - ((double)a.mt + log((double)a.st)) +
				((double)a.mp + log((double)a.sp));
		}
		__syncthreads(); /* red is rewritten by the next row */
	}
	if (threadIdx.x == 0)
		kl_part[blockIdx.x] = part;
}

/* One block: the partials in a fixed order, divided by B. */
__global__ void __launch_bounds__(THREADS) kl_finish(float* __restrict__ loss, int nparts, int64_t B)
{
	__shared__ double red[THREADS];
	double v = 0.0;

	for (int i = threadIdx.x; i < nparts; i += THREADS)
		v += kl_part[i];
	red[threadIdx.x] = v;
	__syncthreads();
	for (int o = THREADS / 2; o > 0; o >>= 1) {
		if (threadIdx.x < o)
			red[threadIdx.x] += red[threadIdx.x + o];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		*loss = (float)(red[0] / (double)B);
}

extern "C" void kl_div_loss(const float* xp, const float* xt, float* loss, int64_t B, int64_t D,
			    cudaStream_t stream)
{
	bool vec = D % 4 == 0 && (((uintptr_t)xp | (uintptr_t)xt) & 15) == 0;
	int blocks = (int)(B < MAX_BLOCKS ? B : MAX_BLOCKS);

	if (B <= 0 || D <= 0)
		return;
	if (vec)
		kl_rows<true><<<blocks, THREADS, 0, stream>>>(xp, xt, B, D);
	else
		kl_rows<false><<<blocks, THREADS, 0, stream>>>(xp, xt, B, D);
	kl_finish<<<1, THREADS, 0, stream>>>(loss, blocks, B);
}
