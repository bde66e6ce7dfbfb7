/*
 * The 16-bit tensor-core step the fused attention kernels share (ops_misc.cu's
 * flash kernel, ops_attn_decode.cu's split-KV kernel): mma.sync m16n8k16 with
 * f32 accumulation for bf16 and f16 operands, and the packing of two floats
 * into one A/B fragment register (lo in the low half, the lower column).
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

#endif
