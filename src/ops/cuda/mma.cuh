/*
 * The 16-bit tensor-core step the fused attention kernels share (ops_attn.cu's
 * flash kernel, ops_attn_decode.cu's split-KV kernel): mma.sync m16n8k16 with
 * f32 accumulation for bf16 and f16 operands, and the packing of two floats
 * into one A/B fragment register (lo in the low half, the lower column).
 * Also the online-softmax row step those two and ops_attn_f32.cu's kernel
 * take after each tile of scores.
 */
#ifndef KJ_OPS_CUDA_MMA_CUH
#define KJ_OPS_CUDA_MMA_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include <string.h>

template <class T> struct kj_mma;
template <> struct kj_mma<__nv_bfloat16> {
	static __device__ __forceinline__ void mma(float *c, const uint32_t *a, uint32_t b0, uint32_t b1)
	{
		asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
		    "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
		    : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
		    : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
	}
	/* lo in the low half (the lower column), as the fragments want */
	static __device__ __forceinline__ uint32_t pack(float lo, float hi)
	{
		__nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
		uint32_t r;
		memcpy(&r, &h, 4);
		return r;
	}
};
template <> struct kj_mma<__half> {
	static __device__ __forceinline__ void mma(float *c, const uint32_t *a, uint32_t b0, uint32_t b1)
	{
		asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
		    "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
		    : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
		    : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
	}
	static __device__ __forceinline__ uint32_t pack(float lo, float hi)
	{
		__half2 h = __floats2half2_rn(lo, hi);
		uint32_t r;
		memcpy(&r, &h, 4);
		return r;
	}
};

/* 2^x by the hardware's ex2 (about 2 ulp; results below 2^-126 flush to
 * 0, nothing at f32 tolerance next to the row's largest term, 1): exp2f
 * adds a range fix-up of three instructions per score. */
__device__ __forceinline__ float kj_ex2_fast(float x)
{
	float y;
	asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
	return y;
}

/* The online-softmax step of the two rows (g and g + 8) of an m16n8
 * accumulator fragment that a thread holds, as the fused attention kernels
 * take it after each tile of scores: mx, the rows' running maxima updated
 * with this thread's new scores, is merged over the quad of lanes that
 * share the rows; mu is the shift the tile's scores take (0 for a row with
 * no finite score yet, so that no inf - inf arises); corr = 2^(old maximum
 * - mu) rescales the running sums lrow (here) and the caller's
 * accumulators.  FAST: kj_ex2_fast instead of exp2f. */
template <bool FAST>
__device__ __forceinline__ void kj_softmax_rows(float *mx, float *mrow, float *lrow, float *mu,
						float *corr)
{
#pragma unroll
	for (int h = 0; h < 2; h++) {
		mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffffu, mx[h], 1));
		mx[h] = fmaxf(mx[h], __shfl_xor_sync(0xffffffffu, mx[h], 2));
		mu[h] = mx[h] == -INFINITY ? 0.0f : mx[h];
		corr[h] = FAST ? kj_ex2_fast(mrow[h] - mu[h]) : exp2f(mrow[h] - mu[h]);
		mrow[h] = mx[h];
		lrow[h] *= corr[h];
	}
}

#endif
