/*
 * The header every CPU-track candidate may include.  It gives the CPU
 * equivalents of CUDA's 16-bit float types: kj_half (IEEE binary16) and
 * kj_bfloat16, each a 16-bit pattern in a struct so that arithmetic on them
 * does not compile by accident, with round-to-nearest-even conversions;
 * and kj_fp8_e4m3, CUDA's __nv_fp8_e4m3 (PyTorch's torch.float8_e4m3fn) as
 * an 8-bit pattern in a struct, whose conversion from float follows PyTorch:
 * |x| > 464, Inf and NaN become NaN (CUDA's constructor saturates to 448).
 */
#ifndef KJUDGE_CPU_H
#define KJUDGE_CPU_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct { uint16_t bits; } kj_half;
typedef struct { uint16_t bits; } kj_bfloat16;
typedef struct { uint8_t bits; } kj_fp8_e4m3;

static inline float kj_half_to_float(kj_half h)
{
	uint32_t sign = (uint32_t)(h.bits & 0x8000u) << 16, exp = (h.bits >> 10) & 0x1f,
		 man = h.bits & 0x3ffu, u;
	float f;
	if (exp == 0x1f) /* NaN: CUDA's __half2float gives 0x7fffffff */
		u = man ? 0x7fffffffu : (sign | 0x7f800000u);
	else if (exp != 0)
		u = sign | ((exp + 112) << 23) | (man << 13);
	else if (man == 0)
		u = sign;
	else {
		int e = -1;
		do {
			e++;
			man <<= 1;
		} while (!(man & 0x400u));
		u = sign | ((uint32_t)(112 - e) << 23) | ((man & 0x3ffu) << 13);
	}
	memcpy(&f, &u, 4);
	return f;
}

static inline kj_half kj_float_to_half(float f)
{
	uint32_t u, sign, mag;
	kj_half h;
	memcpy(&u, &f, 4);
	sign = (u >> 16) & 0x8000u;
	mag = u & 0x7fffffffu;
	if (mag > 0x7f800000u) { /* NaN: CUDA's canonical NaN */
		h.bits = 0x7fffu;
	} else if (mag >= 0x477ff000u) { /* rounds to >= 65520: inf */
		h.bits = (uint16_t)(sign | 0x7c00u);
	} else if (mag < 0x38800000u) { /* subnormal half or zero */
		float a;
		uint32_t q;
		memcpy(&a, &mag, 4);
		/* scale so that one half-subnormal ulp (2^-24) becomes 1, round RNE */
		a = a * 16777216.0f;
		q = (uint32_t)nearbyintf(a);
		h.bits = (uint16_t)(sign | q);
	} else {
		uint32_t r = mag - 0x38000000u; /* rebias exponent 127 -> 15 */
		uint32_t lsb = (r >> 13) & 1u;
		r += 0xfffu + lsb;
		h.bits = (uint16_t)(sign | (r >> 13));
	}
	return h;
}

static inline float kj_bfloat16_to_float(kj_bfloat16 b)
{
	uint32_t u = (uint32_t)b.bits << 16;
	float f;
	memcpy(&f, &u, 4);
	return f;
}

static inline kj_bfloat16 kj_float_to_bfloat16(float f)
{
	uint32_t u;
	kj_bfloat16 b;
	memcpy(&u, &f, 4);
	if ((u & 0x7fffffffu) > 0x7f800000u)
		b.bits = 0x7fffu; /* NaN: CUDA's canonical NaN */
	else
		b.bits = (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
	return b;
}

/* Exact: 1 sign, 4 exponent bits (bias 7), 3 mantissa bits; S.1111.111 is
 * NaN, there are no infinities, exponent 0 holds the subnormals m * 2^-9. */
static inline float kj_fp8_e4m3_to_float(kj_fp8_e4m3 x)
{
	uint32_t e = (x.bits >> 3) & 0xfu, m = x.bits & 7u, u;
	float v;
	if (e == 0 || (e == 0xf && m == 7)) {
		v = e ? NAN : (float)m * 0.001953125f; /* subnormal: m * 2^-9 */
	} else {
		u = ((e + 120) << 23) | (m << 20); /* rebias 7 -> 127 */
		memcpy(&v, &u, 4);
	}
	return (x.bits & 0x80u) ? -v : v;
}

/* Drops the low `shift` bits of m (1 <= shift <= 31), ties to even. */
static inline uint32_t kj_rne_shift_(uint32_t m, uint32_t shift)
{
	uint32_t q = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
	return q + (rem > half || (rem == half && (q & 1u)));
}

/* Round to nearest even; past the largest finite value (448) NaN. */
static inline kj_fp8_e4m3 kj_float_to_fp8_e4m3(float f)
{
	uint32_t u, mag, q;
	kj_fp8_e4m3 r;
	memcpy(&u, &f, 4);
	mag = u & 0x7fffffffu;
	if (mag >= 0x43f00000u) /* >= 480, Inf, NaN */
		q = 0x7fu;
	else if (mag >= 0x3c800000u) /* normal: rebias the exponent 127 -> 7 */
		q = kj_rne_shift_(mag - 0x3c000000u, 20);
	else if (mag < 0x3a800000u) /* below 2^-10 */
		q = 0;
	else /* subnormal, counted in units of 2^-9 */
		q = kj_rne_shift_((mag & 0x7fffffu) | 0x800000u, 141 - (mag >> 23));
	r.bits = (uint8_t)(((u >> 24) & 0x80u) | q);
	return r;
}

#endif
