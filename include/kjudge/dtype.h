/*
 * Element types of the task language and their conversions.  f16 and bf16 are
 * stored as uint16_t bit patterns; conversions from float round to nearest
 * even and keep NaN/Inf, as the CUDA intrinsics __float2half_rn and
 * __float2bfloat16_rn do.  f8e4m3 is PyTorch's torch.float8_e4m3fn, stored
 * as a uint8_t bit pattern (1 sign, 4 exponent bits with bias 7, 3 mantissa
 * bits; no infinities, S.1111.111 is NaN, largest finite 448, subnormals
 * down to 2^-9); it converts from float as c10::Float8_e4m3fn does: round to
 * nearest even, and every |x| that would round past 448 (|x| > 464, Inf) or
 * a NaN becomes NaN with x's sign.  CUDA's __nv_fp8_e4m3(float) saturates to
 * +-448 instead; the judge follows PyTorch.
 */
#ifndef KJUDGE_DTYPE_H
#define KJUDGE_DTYPE_H

#include <stddef.h>
#include <stdint.h>

typedef enum kj_dtype {
	KJ_F32 = 0,
	KJ_F16,
	KJ_BF16,
	KJ_I8,
	KJ_I32,
	KJ_I64,
	KJ_BOOL,
	KJ_F8E4M3, /* appended: the codes of the others stay as they were */
	KJ_DTYPE_COUNT
} kj_dtype;

size_t kj_dtype_size(kj_dtype t);
const char *kj_dtype_name(kj_dtype t);           /* "f32" ... */
int kj_dtype_from_name(const char *s, kj_dtype *out); /* 0 or -1 */
int kj_dtype_is_float(kj_dtype t);
int kj_dtype_is_int(kj_dtype t); /* i8 i32 i64 (not bool) */
/* C type spelled in a candidate's prototype: cuda=1 gives __half/__nv_bfloat16/
 * __nv_fp8_e4m3, cuda=0 gives the CPU header's kj_half/kj_bfloat16/kj_fp8_e4m3. */
const char *kj_dtype_ctype(kj_dtype t, int cuda);

uint16_t kj_f32_to_f16(float f);
float kj_f16_to_f32(uint16_t h);
uint16_t kj_f32_to_bf16(float f);
float kj_bf16_to_f32(uint16_t h);
uint8_t kj_f32_to_f8e4m3(float f);
float kj_f8e4m3_to_f32(uint8_t b); /* exact; NaN patterns give a quiet NaN of that sign */

/* Element i of a buffer of type t, widened to double (exact for every type but
 * i64 beyond 2^53). */
double kj_load(kj_dtype t, const void *buf, size_t i);
/* Stores v as element i: floats round to nearest even (f16/bf16/f8e4m3 via
 * f32, as PyTorch's .to() does), integers truncate toward zero and saturate, NaN -> 0,
 * bool is v != 0. */
void kj_store(kj_dtype t, void *buf, size_t i, double v);

#endif
