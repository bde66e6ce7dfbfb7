// kjudge-case: task=level2/gemm_sub_mul_relu expect=pass
/* y = relu((x @ w^T + b - 0.2) * 1.5): a tiled f32 SGEMM with the whole
 * epilogue fused into the store.  x is [N, IN] and w is [OUT, IN], both
 * contiguous along IN, so both tiles are read as float4 along k and stored
 * transposed in shared memory (As[k][m], Bs[k][n]; row length 132 keeps the
 * transposing stores conflict-free and the float4 reads aligned).  Block tile
 * 128 x 128 x 8, 256 threads, 8 x 8 outputs per thread in two 4-wide strips
 * per axis (so every shared read is a float4), register prefetch of the next
 * k-tile and double-buffered shared memory (one barrier per k-tile).  FP32
 * FMA only, accumulated along k in order as cuBLAS does: no TF32, no split-K.
 * The eager baseline is a cuBLAS GEMM plus three elementwise kernels; this
 * saves those passes (3 x 2 x 4 bytes per output) but a hand SGEMM does not
 * match cuBLAS's main loop, so expect it to be correct, not faster.  float4
 * loads need IN % 4 == 0 and aligned buffers; otherwise a scalar loader with
 * per-element bounds (IN = 1, 37, 129...) is used. */
#include "kjudge_cuda.h"

#define BM 128
#define BN 128
#define BK 8
#define LD (BM + 4)
#define THREADS 256

/* Rows [row0, row0 + 128) x k [k0, k0 + 8) of a K-contiguous matrix with
 * `rows` rows: thread t fetches row t/2, k offset (t%2)*4, zero outside. */
template <bool VEC>
static __device__ __forceinline__ float4 fetch(const float* __restrict__ p, int64_t rows, int64_t K, int64_t row0,
					       int64_t k0)
{
	int64_t row = row0 + (threadIdx.x >> 1), k = k0 + (threadIdx.x & 1) * 4;
	float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);

	if (row >= rows)
		return v;
	const float* q = p + row * K + k;
	if (VEC) {
		if (k < K) /* K % 4 == 0: the four are all in or all out */
			v = __ldg(reinterpret_cast<const float4*>(q));
	} else {
		if (k < K)
			v.x = __ldg(q);
		if (k + 1 < K)
			v.y = __ldg(q + 1);
		if (k + 2 < K)
			v.z = __ldg(q + 2);
		if (k + 3 < K)
			v.w = __ldg(q + 3);
	}
	return v;
}

static __device__ __forceinline__ void stash(float (*s)[LD], float4 v)
{
	int r = threadIdx.x >> 1, k = (threadIdx.x & 1) * 4;

	s[k][r] = v.x;
	s[k + 1][r] = v.y;
	s[k + 2][r] = v.z;
	s[k + 3][r] = v.w;
}

static __device__ __forceinline__ float epi(float acc, float bias)
{
	float v = (acc + bias - 0.2f) * 1.5f;

	return v > 0.0f ? v : 0.0f;
}

template <bool VEC>
__global__ void __launch_bounds__(THREADS, 2) gemm_smr(const float* __restrict__ x, const float* __restrict__ w,
						       const float* __restrict__ b, float* __restrict__ y, int64_t M,
						       int64_t K, int64_t N, int64_t tiles_n)
{
	__shared__ __align__(16) float As[2][BK][LD];
	__shared__ __align__(16) float Bs[2][BK][LD];
	int64_t bm = (int64_t)(blockIdx.x / tiles_n) * BM, bn = (int64_t)(blockIdx.x % tiles_n) * BN;
	int tx = threadIdx.x & 15, ty = threadIdx.x >> 4;
	float acc[8][8];
	float4 pa, pb;
	int buf = 0;

#pragma unroll
	for (int i = 0; i < 8; i++)
#pragma unroll
		for (int j = 0; j < 8; j++)
			acc[i][j] = 0.0f;

	pa = fetch<VEC>(x, M, K, bm, 0);
	pb = fetch<VEC>(w, N, K, bn, 0);
	stash(As[0], pa);
	stash(Bs[0], pb);
	__syncthreads();

	for (int64_t k0 = 0; k0 < K; k0 += BK) {
		bool more = k0 + BK < K;

		if (more) {
			pa = fetch<VEC>(x, M, K, bm, k0 + BK);
			pb = fetch<VEC>(w, N, K, bn, k0 + BK);
		}
#pragma unroll
		for (int k = 0; k < BK; k++) {
			float4 a0 = *reinterpret_cast<const float4*>(&As[buf][k][ty * 4]);
			float4 a1 = *reinterpret_cast<const float4*>(&As[buf][k][64 + ty * 4]);
			float4 b0 = *reinterpret_cast<const float4*>(&Bs[buf][k][tx * 4]);
			float4 b1 = *reinterpret_cast<const float4*>(&Bs[buf][k][64 + tx * 4]);
			float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
			float c[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};

#pragma unroll
			for (int i = 0; i < 8; i++)
#pragma unroll
				for (int j = 0; j < 8; j++)
					acc[i][j] = fmaf(a[i], c[j], acc[i][j]);
		}
		if (more) {
			stash(As[buf ^ 1], pa);
			stash(Bs[buf ^ 1], pb);
		}
		__syncthreads();
		buf ^= 1;
	}

	/* strip s of each axis: local offset s*64 + 4*t .. +3 */
	bool vstore = VEC && (N % 4 == 0);
#pragma unroll
	for (int i = 0; i < 8; i++) {
		int64_t row = bm + (i >> 2) * 64 + ty * 4 + (i & 3);

		if (row >= M)
			continue;
#pragma unroll
		for (int s = 0; s < 2; s++) {
			int64_t col = bn + s * 64 + tx * 4;
			float* out = y + row * N + col;

			if (vstore && col + 3 < N) {
				float4 bb = __ldg(reinterpret_cast<const float4*>(b + col)), o;

				o.x = epi(acc[i][s * 4 + 0], bb.x);
				o.y = epi(acc[i][s * 4 + 1], bb.y);
				o.z = epi(acc[i][s * 4 + 2], bb.z);
				o.w = epi(acc[i][s * 4 + 3], bb.w);
				*reinterpret_cast<float4*>(out) = o;
			} else {
#pragma unroll
				for (int j = 0; j < 4; j++)
					if (col + j < N)
						out[j] = epi(acc[i][s * 4 + j], __ldg(b + col + j));
			}
		}
	}
}

extern "C" void gemm_sub_mul_relu(const float* x, const float* w, const float* b, float* y, int64_t N, int64_t IN,
				  int64_t OUT, cudaStream_t stream)
{
	int64_t tiles_m = (N + BM - 1) / BM, tiles_n = (OUT + BN - 1) / BN;
	bool vec = IN % 4 == 0 && (((uintptr_t)x | (uintptr_t)w | (uintptr_t)b | (uintptr_t)y) & 15) == 0;

	if (N <= 0 || OUT <= 0)
		return;
	if (vec)
		gemm_smr<true><<<(unsigned)(tiles_m * tiles_n), THREADS, 0, stream>>>(x, w, b, y, N, IN, OUT, tiles_n);
	else
		gemm_smr<false><<<(unsigned)(tiles_m * tiles_n), THREADS, 0, stream>>>(x, w, b, y, N, IN, OUT, tiles_n);
}
