/*
 * kj_load/kj_store/kj_round_to (src/core/dtype.c, src/ops/exec.c) as device
 * functions, for the judge's generator, converter and comparator, which must
 * give the CPU track's bits.  The f16/bf16 conversions are the same integer
 * recipes as dtype.c, f8e4m3 too (PyTorch's NaN past 448, not the saturating
 * __nv_fp8_e4m3 constructor).  NaN bits follow x86-64, where the CPU track runs: a
 * double -> float conversion keeps the sign and the top mantissa bits and
 * sets the quiet bit, float -> double widens the same way; the GPU's cvt
 * would return its canonical NaN instead.  Type KJ_F64 (KJ_DTYPE_COUNT) is
 * double.  Nothing here allocates; no product is followed by a sum, so the
 * results do not depend on -fmad.
 */
#ifndef KJ_DTYPE_DEV_H
#define KJ_DTYPE_DEV_H

#include <stdint.h>

extern "C" {
#include "kjudge/dtype.h"
}

#define KJD_F64 ((int)KJ_DTYPE_COUNT)

__device__ __forceinline__ float kjd_d2f(double v)
{
	if (v != v) {
		uint64_t u = (uint64_t)__double_as_longlong(v);
		uint32_t f = (uint32_t)(u >> 32) & 0x80000000u;
		f |= 0x7fc00000u | (uint32_t)((u >> 29) & 0x7fffffu);
		return __uint_as_float(f);
	}
	return (float)v;
}

__device__ __forceinline__ double kjd_f2d(float f)
{
	if (f != f) {
		uint32_t u = __float_as_uint(f);
		uint64_t d = (uint64_t)(u & 0x80000000u) << 32;
		d |= 0x7ff8000000000000ull | ((uint64_t)(u & 0x7fffffu) << 29);
		return __longlong_as_double((long long)d);
	}
	return (double)f;
}

__device__ __forceinline__ uint32_t kjd_shift_rne(uint32_t m, unsigned shift)
{
	uint32_t q = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
	if (rem > half || (rem == half && (q & 1u)))
		q++;
	return q;
}

__device__ __forceinline__ uint16_t kjd_f32_to_f16(float f)
{
	uint32_t u = __float_as_uint(f), sign = (u >> 16) & 0x8000u, mag = u & 0x7fffffffu;
	uint32_t e = mag >> 23;

	if (mag > 0x7f800000u)
		return 0x7fff;
	if (mag >= 0x477ff000u)
		return (uint16_t)(sign | 0x7c00u);
	if (mag >= 0x38800000u)
		return (uint16_t)(sign | kjd_shift_rne(mag - 0x38000000u, 13));
	if (mag < 0x33000000u)
		return (uint16_t)sign;
	return (uint16_t)(sign | kjd_shift_rne((mag & 0x7fffffu) | 0x800000u, 126 - e));
}

__device__ __forceinline__ float kjd_f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;

	if (e == 0x1f)
		return __uint_as_float(m ? 0x7fffffffu : (sign | 0x7f800000u));
	if (e != 0)
		return __uint_as_float(sign | ((e + 112) << 23) | (m << 13));
	if (m == 0)
		return __uint_as_float(sign);
	return sign ? -((float)m * 0x1p-24f) : (float)m * 0x1p-24f;
}

__device__ __forceinline__ uint16_t kjd_f32_to_bf16(float f)
{
	uint32_t u = __float_as_uint(f);
	if ((u & 0x7fffffffu) > 0x7f800000u)
		return 0x7fff;
	return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

__device__ __forceinline__ float kjd_bf16_to_f32(uint16_t h)
{
	return __uint_as_float((uint32_t)h << 16);
}

__device__ __forceinline__ uint8_t kjd_f32_to_f8e4m3(float f)
{
	uint32_t u = __float_as_uint(f), sign = (u >> 24) & 0x80u, mag = u & 0x7fffffffu;

	if (mag >= 0x43f00000u)
		return (uint8_t)(sign | 0x7fu);
	if (mag >= 0x3c800000u)
		return (uint8_t)(sign | kjd_shift_rne(mag - 0x3c000000u, 20));
	if (mag < 0x3a800000u)
		return (uint8_t)sign;
	return (uint8_t)(sign | kjd_shift_rne((mag & 0x7fffffu) | 0x800000u, 141 - (mag >> 23)));
}

__device__ __forceinline__ float kjd_f8e4m3_to_f32(uint8_t b)
{
	uint32_t sign = (uint32_t)(b & 0x80u) << 24, e = (b >> 3) & 0xfu, m = b & 7u;

	if (e == 0xf && m == 7)
		return __uint_as_float(sign | 0x7fc00000u);
	if (e != 0)
		return __uint_as_float(sign | ((e + 120) << 23) | (m << 20));
	return sign ? -((float)m * 0x1p-9f) : (float)m * 0x1p-9f;
}

__device__ __forceinline__ double kjd_sat_trunc(double v, double lo, double hi)
{
	if (v != v)
		return 0.0;
	if (v <= lo)
		return lo;
	if (v >= hi)
		return hi;
	return v;
}

__device__ __forceinline__ double kjd_load(int t, const void *buf, size_t i)
{
	switch (t) {
	case KJ_F32:
		return kjd_f2d(((const float *)buf)[i]);
	case KJ_F16:
		return kjd_f2d(kjd_f16_to_f32(((const uint16_t *)buf)[i]));
	case KJ_BF16:
		return kjd_f2d(kjd_bf16_to_f32(((const uint16_t *)buf)[i]));
	case KJ_I8:
		return (double)((const int8_t *)buf)[i];
	case KJ_I32:
		return (double)((const int32_t *)buf)[i];
	case KJ_I64:
		return (double)((const long long *)buf)[i];
	case KJ_BOOL:
		return ((const unsigned char *)buf)[i] != 0;
	case KJ_F8E4M3:
		return kjd_f2d(kjd_f8e4m3_to_f32(((const uint8_t *)buf)[i]));
	case KJD_F64:
		return ((const double *)buf)[i];
	default:
		return 0.0;
	}
}

__device__ __forceinline__ void kjd_store(int t, void *buf, size_t i, double v)
{
	switch (t) {
	case KJ_F32:
		((float *)buf)[i] = kjd_d2f(v);
		break;
	case KJ_F16:
		((uint16_t *)buf)[i] = kjd_f32_to_f16(kjd_d2f(v));
		break;
	case KJ_BF16:
		((uint16_t *)buf)[i] = kjd_f32_to_bf16(kjd_d2f(v));
		break;
	case KJ_I8:
		((int8_t *)buf)[i] = (int8_t)kjd_sat_trunc(v, -128.0, 127.0);
		break;
	case KJ_I32:
		((int32_t *)buf)[i] = (int32_t)kjd_sat_trunc(v, -2147483648.0, 2147483647.0);
		break;
	case KJ_I64: {
		long long x;
		if (v != v)
			x = 0;
		else if (v >= 9223372036854775808.0)
			x = INT64_MAX;
		else if (v <= -9223372036854775808.0)
			x = INT64_MIN;
		else
			x = (long long)v;
		((long long *)buf)[i] = x;
		break;
	}
	case KJ_BOOL:
		((unsigned char *)buf)[i] = v != 0.0;
		break;
	case KJ_F8E4M3:
		((uint8_t *)buf)[i] = kjd_f32_to_f8e4m3(kjd_d2f(v));
		break;
	case KJD_F64:
		((double *)buf)[i] = v;
		break;
	default:
		break;
	}
}

/* v stored into type t and read back (kj_round_to). */
__device__ __forceinline__ double kjd_round_to(int t, double v)
{
	unsigned long long tmp = 0;
	kjd_store(t, &tmp, 0, v);
	return kjd_load(t, &tmp, 0);
}

#endif
