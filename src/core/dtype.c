/*
 * Element types and their conversions: see include/kjudge/dtype.h.  The
 * float -> f16/bf16 conversions are integer-only so that they give the bits
 * of CUDA's __float2half_rn/__float2bfloat16_rn whatever the host's rounding
 * mode; a NaN becomes CUDA's canonical NaN 0x7fff, as those intrinsics return
 * (checked on an H200 over all 2^32 floats).  bf16 -> f32 keeps a NaN's bits,
 * f16 -> f32 gives 0x7fffffff, as __bfloat162float and __half2float do.
 * float -> f8e4m3 is PyTorch's rule (c10/util/Float8_e4m3fn.h), not CUDA's
 * saturating __nv_fp8_e4m3: see dtype.h.
 */
#include "kjudge/dtype.h"

#include <string.h>

static const struct {
	const char *name, *cuda_type, *cpu_type;
	size_t size;
} dtypes[KJ_DTYPE_COUNT] = {
	[KJ_F32] = { "f32", "float", "float", 4 },
	[KJ_F16] = { "f16", "__half", "kj_half", 2 },
	[KJ_BF16] = { "bf16", "__nv_bfloat16", "kj_bfloat16", 2 },
	[KJ_I8] = { "i8", "int8_t", "int8_t", 1 },
	[KJ_I32] = { "i32", "int32_t", "int32_t", 4 },
	[KJ_I64] = { "i64", "int64_t", "int64_t", 8 },
	[KJ_BOOL] = { "bool", "bool", "bool", 1 },
	[KJ_F8E4M3] = { "f8e4m3", "__nv_fp8_e4m3", "kj_fp8_e4m3", 1 },
};

static int valid(kj_dtype t)
{
	return (int)t >= 0 && t < KJ_DTYPE_COUNT;
}

size_t kj_dtype_size(kj_dtype t)
{
	return valid(t) ? dtypes[t].size : 0;
}

/* An invalid type gets "?" rather than NULL so that it can go into a message. */
const char *kj_dtype_name(kj_dtype t)
{
	return valid(t) ? dtypes[t].name : "?";
}

int kj_dtype_from_name(const char *s, kj_dtype *out)
{
	int i;
	if (!s)
		return -1;
	for (i = 0; i < KJ_DTYPE_COUNT; i++) {
		if (strcmp(s, dtypes[i].name) == 0) {
			if (out)
				*out = (kj_dtype)i;
			return 0;
		}
	}
	return -1;
}

int kj_dtype_is_float(kj_dtype t)
{
	return t == KJ_F32 || t == KJ_F16 || t == KJ_BF16 || t == KJ_F8E4M3;
}

int kj_dtype_is_int(kj_dtype t)
{
	return t == KJ_I8 || t == KJ_I32 || t == KJ_I64;
}

const char *kj_dtype_ctype(kj_dtype t, int cuda)
{
	if (!valid(t))
		return "?";
	return cuda ? dtypes[t].cuda_type : dtypes[t].cpu_type;
}

static uint32_t f32_bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof(u));
	return u;
}

static float bits_f32(uint32_t u)
{
	float f;
	memcpy(&f, &u, sizeof(f));
	return f;
}

/* Drops the low `shift` bits of m (1 <= shift <= 31), rounding to nearest,
 * ties to even. */
static uint32_t shift_rne(uint32_t m, unsigned shift)
{
	uint32_t q = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
	if (rem > half || (rem == half && (q & 1u)))
		q++;
	return q;
}

uint16_t kj_f32_to_f16(float f)
{
	uint32_t u = f32_bits(f), sign = (u >> 16) & 0x8000u, mag = u & 0x7fffffffu;
	uint32_t e = mag >> 23;

	if (mag > 0x7f800000u)
		return 0x7fff;
	if (mag >= 0x477ff000u) /* 65520 and up round past 65504 */
		return (uint16_t)(sign | 0x7c00u);
	if (mag >= 0x38800000u) /* normal half: rebias 127 -> 15, keep 10 bits */
		return (uint16_t)(sign | shift_rne(mag - 0x38000000u, 13));
	if (mag < 0x33000000u) /* below 2^-25: rounds to zero (2^-25 too, tie to even) */
		return (uint16_t)sign;
	/* subnormal half: count units of 2^-24; a carry into 0x400 is the
	 * smallest normal, which is the right pattern */
	return (uint16_t)(sign | shift_rne((mag & 0x7fffffu) | 0x800000u, 126 - e));
}

float kj_f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;

	if (e == 0x1f) /* a NaN becomes 0x7fffffff, as __half2float gives on the GPU */
		return bits_f32(m ? 0x7fffffffu : (sign | 0x7f800000u));
	if (e != 0)
		return bits_f32(sign | ((e + 112) << 23) | (m << 13));
	if (m == 0)
		return bits_f32(sign);
	/* subnormal: m * 2^-24 is exact in float */
	return sign ? -((float)m * 0x1p-24f) : (float)m * 0x1p-24f;
}

uint16_t kj_f32_to_bf16(float f)
{
	uint32_t u = f32_bits(f);
	if ((u & 0x7fffffffu) > 0x7f800000u)
		return 0x7fff;
	/* the carry of the rounding walks into the exponent and, past the
	 * largest finite value, into inf */
	return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

float kj_bf16_to_f32(uint16_t h)
{
	return bits_f32((uint32_t)h << 16);
}

uint8_t kj_f32_to_f8e4m3(float f)
{
	uint32_t u = f32_bits(f), sign = (u >> 24) & 0x80u, mag = u & 0x7fffffffu;

	/* 480 and up (Inf and NaN included) would round past 448 into the NaN
	 * pattern or beyond; (464, 480) gets there by the rounding below */
	if (mag >= 0x43f00000u)
		return (uint8_t)(sign | 0x7fu);
	if (mag >= 0x3c800000u) /* normal: rebias 127 -> 7, keep 3 bits */
		return (uint8_t)(sign | shift_rne(mag - 0x3c000000u, 20));
	if (mag < 0x3a800000u) /* below 2^-10: rounds to zero (2^-10 too, tie to even) */
		return (uint8_t)sign;
	/* subnormal: units of 2^-9; a carry into 8 is the smallest normal */
	return (uint8_t)(sign | shift_rne((mag & 0x7fffffu) | 0x800000u, 141 - (mag >> 23)));
}

float kj_f8e4m3_to_f32(uint8_t b)
{
	uint32_t sign = (uint32_t)(b & 0x80u) << 24, e = (b >> 3) & 0xfu, m = b & 7u;

	if (e == 0xf && m == 7)
		return bits_f32(sign | 0x7fc00000u);
	if (e != 0)
		return bits_f32(sign | ((e + 120) << 23) | (m << 20));
	/* subnormal or zero: m * 2^-9 is exact */
	return sign ? -((float)m * 0x1p-9f) : (float)m * 0x1p-9f;
}

/* Truncation toward zero with saturation; NaN -> 0. */
static double sat_trunc(double v, double lo, double hi)
{
	if (v != v)
		return 0.0;
	if (v <= lo)
		return lo;
	if (v >= hi)
		return hi;
	return v;
}

double kj_load(kj_dtype t, const void *buf, size_t i)
{
	const unsigned char *p = buf;
	switch (t) {
	case KJ_F32: {
		float f;
		memcpy(&f, p + i * 4, 4);
		return f;
	}
	case KJ_F16:
	case KJ_BF16: {
		uint16_t h;
		memcpy(&h, p + i * 2, 2);
		return t == KJ_F16 ? kj_f16_to_f32(h) : kj_bf16_to_f32(h);
	}
	case KJ_I8:
		return (int8_t)p[i];
	case KJ_I32: {
		int32_t v;
		memcpy(&v, p + i * 4, 4);
		return v;
	}
	case KJ_I64: {
		int64_t v;
		memcpy(&v, p + i * 8, 8);
		return (double)v;
	}
	case KJ_BOOL:
		return p[i] != 0;
	case KJ_F8E4M3:
		return kj_f8e4m3_to_f32(p[i]);
	default:
		return 0.0;
	}
}

void kj_store(kj_dtype t, void *buf, size_t i, double v)
{
	unsigned char *p = buf;
	switch (t) {
	case KJ_F32: {
		float f = (float)v;
		memcpy(p + i * 4, &f, 4);
		break;
	}
	case KJ_F16:
	case KJ_BF16: {
		uint16_t h = t == KJ_F16 ? kj_f32_to_f16((float)v) : kj_f32_to_bf16((float)v);
		memcpy(p + i * 2, &h, 2);
		break;
	}
	case KJ_I8:
		p[i] = (unsigned char)(int8_t)sat_trunc(v, -128.0, 127.0);
		break;
	case KJ_I32: {
		int32_t x = (int32_t)sat_trunc(v, -2147483648.0, 2147483647.0);
		memcpy(p + i * 4, &x, 4);
		break;
	}
	case KJ_I64: {
		int64_t x;
		if (v != v)
			x = 0;
		else if (v >= 9223372036854775808.0)
			x = INT64_MAX;
		else if (v <= -9223372036854775808.0)
			x = INT64_MIN;
		else
			x = (int64_t)v;
		memcpy(p + i * 8, &x, 8);
		break;
	}
	case KJ_BOOL:
		p[i] = v != 0.0;
		break;
	case KJ_F8E4M3:
		p[i] = kj_f32_to_f8e4m3((float)v);
		break;
	default:
		break;
	}
}
