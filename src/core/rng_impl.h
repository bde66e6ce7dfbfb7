/*
 * The arithmetic of the counter-based generator (see include/kjudge/rng.h),
 * as static inline functions that both the C library and a CUDA file include,
 * so that an input drawn on the GPU is bit-identical to the same input drawn
 * on the CPU.  Only 32/64-bit integer operations and IEEE double +, -, *, /
 * and sqrt are used: the last bits of libm's log and cos differ between glibc
 * and CUDA, so this file carries its own.  Every product is written apart from
 * every sum; the C build uses -ffp-contract=off and a GPU build must use
 * -fmad=false, or a fused multiply-add would change the rounding.
 *
 * Names here start with kj_ri_ ("rng inline"); nothing here allocates.
 *
 * The recipes, per element (w0..w3 = Philox4x32-10 of ctr {index lo, index
 * hi, tensor id, 0} and key {seed lo, seed hi}):
 *   x53      = ((uint64)w0 << 21) ^ (w1 >> 11)          (53 random bits)
 *   u01      = x53 * 2^-53                              in [0, 1)
 *   u01open  = (x53 + 1) * 2^-53                        in (0, 1]
 *   normal   = a + b * (sqrt(-2 * log(u1)) * cos2pi(u2)),
 *              u1 = ((uint64)w0 + 1) * 2^-32 in (0, 1], u2 = w1 * 2^-32 in [0, 1)
 *   uniform  = a + (b - a) * u01
 *   kaiming  = uniform(-a, a)
 *   randint  = a + floor(u * (b - a)) in integers, r = b - a (a, b truncated
 *              to int64): r <= 2^32: ((uint64)w0 * r) >> 32; larger r: the
 *              high 64 bits of the 128-bit product ((w0 << 32) | w1) * r
 *   ones, zeros = 1, 0
 *   spd      = a matrix per trailing n x n block (a = n): element (i, j) takes
 *              the block of the index of (min(i, j), max(i, j)) in its matrix,
 *              value n + u01 on the diagonal, -1 + 2 * u01 off it (symmetric,
 *              strictly diagonally dominant, so positive definite and every
 *              triangle well conditioned); never outliers
 *   outliers (normal, uniform, kaiming only): when w2 < prob * 2^32 (as
 *              doubles), value *= scale, then value = -value when w3 & 1.
 */
#ifndef KJUDGE_RNG_IMPL_H
#define KJUDGE_RNG_IMPL_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define KJ_HD __host__ __device__
#else
#define KJ_HD
#endif

/* Kinds as in kj_dist_kind; repeated so that a CUDA file needs no kjudge
 * header.  rng.c checks that the two lists agree. */
#define KJ_RI_NORMAL 0
#define KJ_RI_UNIFORM 1
#define KJ_RI_RANDINT 2
#define KJ_RI_KAIMING 3
#define KJ_RI_ONES 4
#define KJ_RI_ZEROS 5
#define KJ_RI_SPD 6

KJ_HD static inline void kj_ri_mulhilo32(uint32_t a, uint32_t b, uint32_t *hi, uint32_t *lo)
{
	uint64_t p = (uint64_t)a * (uint64_t)b;
	*hi = (uint32_t)(p >> 32);
	*lo = (uint32_t)p;
}

/* Philox4x32-10 (Salmon, Moraes, Dror, Shaw, SC'11): ten rounds, the key
 * bumped by the Weyl constants between rounds. */
KJ_HD static inline void kj_ri_philox(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
	uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3];
	uint32_t k0 = key[0], k1 = key[1];
	int r;

	for (r = 0; r < 10; r++) {
		uint32_t hi0, lo0, hi1, lo1;
		if (r > 0) {
			k0 += 0x9E3779B9u;
			k1 += 0xBB67AE85u;
		}
		kj_ri_mulhilo32(0xD2511F53u, c0, &hi0, &lo0);
		kj_ri_mulhilo32(0xCD9E8D57u, c2, &hi1, &lo1);
		c0 = hi1 ^ c1 ^ k0;
		c1 = lo1;
		c2 = hi0 ^ c3 ^ k1;
		c3 = lo0;
	}
	out[0] = c0;
	out[1] = c1;
	out[2] = c2;
	out[3] = c3;
}

KJ_HD static inline void kj_ri_block(uint64_t seed, uint32_t tensor_id, uint64_t index, uint32_t w[4])
{
	uint32_t ctr[4], key[2];
	ctr[0] = (uint32_t)index;
	ctr[1] = (uint32_t)(index >> 32);
	ctr[2] = tensor_id;
	ctr[3] = 0;
	key[0] = (uint32_t)seed;
	key[1] = (uint32_t)(seed >> 32);
	kj_ri_philox(ctr, key, w);
}

KJ_HD static inline uint64_t kj_ri_bits53(uint32_t w0, uint32_t w1)
{
	return ((uint64_t)w0 << 21) ^ (uint64_t)(w1 >> 11);
}

/* [0, 1) */
KJ_HD static inline double kj_ri_u01(uint32_t w0, uint32_t w1)
{
	return (double)kj_ri_bits53(w0, w1) * (1.0 / 9007199254740992.0);
}

/* (0, 1] */
KJ_HD static inline double kj_ri_u01_open(uint32_t w0, uint32_t w1)
{
	return (double)(kj_ri_bits53(w0, w1) + 1) * (1.0 / 9007199254740992.0);
}

KJ_HD static inline uint64_t kj_ri_dbits(double x)
{
	uint64_t u;
	memcpy(&u, &x, sizeof(u));
	return u;
}

KJ_HD static inline double kj_ri_bitsd(uint64_t u)
{
	double x;
	memcpy(&x, &u, sizeof(x));
	return x;
}

/* a * b = *p + *e exactly (Dekker/Veltkamp; needs no fused multiply-add). */
KJ_HD static inline void kj_ri_two_prod(double a, double b, double *p, double *e)
{
	const double split = 134217729.0; /* 2^27 + 1 */
	double t, ah, al, bh, bl;
	*p = a * b;
	t = split * a;
	ah = t - (t - a);
	al = a - ah;
	t = split * b;
	bh = t - (t - b);
	bl = b - bh;
	*e = ((ah * bh - *p) + ah * bl + al * bh) + al * bl;
}

/* a + b = *s + *e exactly (Knuth's TwoSum). */
KJ_HD static inline void kj_ri_two_sum(double a, double b, double *s, double *e)
{
	double bb;
	*s = a + b;
	bb = *s - a;
	*e = (a - (*s - bb)) + (b - bb);
}

/*
 * Natural log.  x = 2^k * m with m in [sqrt(1/2), sqrt(2)), f = m - 1 (exact)
 * and s = f / (2 + f), so that
 *   log(m) = 2 atanh(s) = f - f^2/2 + s f^2/2 + (2/3) s^3 + s^5 Q(s^2),
 *   Q(z) = sum_{j=0..8} 2 z^j / (2j + 5)
 * (|s| < 0.172: the first term left out is below 1e-18 relative).  Every
 * term but the last is carried as a double-double and the big ones are added
 * by TwoSum, so the one rounding that matters is the final one: the result is
 * within about 0.501 ulp, which makes it agree with a correctly rounded log
 * (glibc's) nearly always.
 */
KJ_HD static inline double kj_ri_log(double x)
{
	const double ln2_hi = 0x1.62e42feep-1;        /* low 21 bits zero: k * ln2_hi is exact */
	const double ln2_lo = 0x1.a39ef35793c76p-33;  /* ln 2 - ln2_hi */
	uint64_t u = kj_ri_dbits(x), mant;
	int k = 0;
	double f, d, d_lo, s, s_lo, p, pe, hf, hf_lo, z, z_lo, c, c_lo, q;
	double c_hi, c_lo2, dd, dd_lo, e5, kd, t, t_e, low;

	if (x != x)
		return x;
	if (x <= 0.0) {
		if (x == 0.0)
			return kj_ri_bitsd(0xfff0000000000000ull); /* -inf */
		return kj_ri_bitsd(0x7ff8000000000000ull);         /* NaN */
	}
	if ((u >> 52) == 0x7ff)
		return x; /* +inf */
	if ((u >> 52) == 0) { /* subnormal: scale into the normal range */
		x = x * 18014398509481984.0; /* 2^54 */
		u = kj_ri_dbits(x);
		k = -54;
	}
	k += (int)(u >> 52) - 1023;
	mant = u & 0x000fffffffffffffull;
	if (mant >= 0x6a09e667f3bcdull) { /* m >= sqrt(2): use m / 2 */
		mant |= 0x3fe0000000000000ull;
		k += 1;
	} else {
		mant |= 0x3ff0000000000000ull;
	}
	f = kj_ri_bitsd(mant) - 1.0;

	/* s = f / (2 + f) as s + s_lo */
	kj_ri_two_sum(2.0, f, &d, &d_lo);
	s = f / d;
	kj_ri_two_prod(s, d, &p, &pe);
	s_lo = (((f - p) - pe) - s * d_lo) / d;

	/* f^2/2 exactly */
	kj_ri_two_prod(0.5 * f, f, &hf, &hf_lo);

	/* s f^2/2 */
	kj_ri_two_prod(s, hf, &c, &c_lo);
	c_lo = c_lo + (s * hf_lo + s_lo * hf);

	/* (2/3) s^3 */
	kj_ri_two_prod(s, s, &z, &z_lo);
	kj_ri_two_prod(z, s, &c_hi, &c_lo2);
	c_lo2 = c_lo2 + (z_lo * s + 3.0 * (z * s_lo));
	dd = (2.0 * c_hi) / 3.0;
	kj_ri_two_prod(3.0, dd, &p, &pe);
	dd_lo = ((2.0 * c_hi - p) - pe) / 3.0 + (2.0 * c_lo2) / 3.0;

	/* s^5 Q(s^2): small enough for plain doubles */
	q = 2.0 / 21.0;
	q = q * z + 2.0 / 19.0;
	q = q * z + 2.0 / 17.0;
	q = q * z + 2.0 / 15.0;
	q = q * z + 2.0 / 13.0;
	q = q * z + 2.0 / 11.0;
	q = q * z + 2.0 / 9.0;
	q = q * z + 2.0 / 7.0;
	q = q * z + 2.0 / 5.0;
	e5 = (s * (z * z)) * q;

	kd = (double)k;
	low = e5 + kd * ln2_lo;
	low = low + (c_lo + dd_lo);
	low = low - hf_lo;
	kj_ri_two_sum(kd * ln2_hi, f, &t, &t_e);
	low = low + t_e;
	kj_ri_two_sum(t, -hf, &t, &t_e);
	low = low + t_e;
	kj_ri_two_sum(t, c, &t, &t_e);
	low = low + t_e;
	kj_ri_two_sum(t, dd, &t, &t_e);
	low = low + t_e;
	return t + low;
}

/*
 * cos(2 pi u) for u in [0, 1) (any finite u is reduced mod 1).  Symmetry
 * brings u to r in [0, 1/8] (every reduction step is an exact subtraction),
 * then x = 2 pi r in [0, pi/4] goes into the Taylor series of cos (to x^16)
 * or sin (to x^17), whose next terms are below 1e-16.
 */
KJ_HD static inline double kj_ri_cos2pi(double u)
{
	const double two_pi = 6.283185307179586476925286766559;
	double r = u, x, x2, p, sign = 1.0;
	int use_sin = 0;

	if (r < 0.0 || r >= 1.0) { /* outside the documented domain: reduce */
		if (r != r || r - r != 0.0)
			return kj_ri_bitsd(0x7ff8000000000000ull);
		if (r < 0.0)
			r = -r; /* cos is even */
		if (r >= 4503599627370496.0) /* 2^52: an integer */
			return 1.0;
		r = r - (double)(int64_t)r;
	}
	if (r > 0.5)
		r = 1.0 - r;
	if (r > 0.25) {
		r = 0.5 - r;
		sign = -1.0;
	}
	if (r > 0.125) {
		r = 0.25 - r;
		use_sin = 1;
	}
	x = two_pi * r;
	x2 = x * x;
	if (use_sin) {
		p = 1.0 / 355687428096000.0;             /* 1/17! */
		p = p * x2 - 1.0 / 1307674368000.0;     /* 1/15! */
		p = p * x2 + 1.0 / 6227020800.0;        /* 1/13! */
		p = p * x2 - 1.0 / 39916800.0;          /* 1/11! */
		p = p * x2 + 1.0 / 362880.0;            /* 1/9! */
		p = p * x2 - 1.0 / 5040.0;              /* 1/7! */
		p = p * x2 + 1.0 / 120.0;               /* 1/5! */
		p = p * x2 - 1.0 / 6.0;                 /* 1/3! */
		p = p * x2;
		p = x + x * p;
	} else {
		p = 1.0 / 20922789888000.0;              /* 1/16! */
		p = p * x2 - 1.0 / 87178291200.0;       /* 1/14! */
		p = p * x2 + 1.0 / 479001600.0;         /* 1/12! */
		p = p * x2 - 1.0 / 3628800.0;           /* 1/10! */
		p = p * x2 + 1.0 / 40320.0;             /* 1/8! */
		p = p * x2 - 1.0 / 720.0;               /* 1/6! */
		p = p * x2 + 1.0 / 24.0;                /* 1/4! */
		p = p * x2;
		p = p * x2;
		p = (1.0 - 0.5 * x2) + p;
	}
	return sign * p;
}

/* High 64 bits of a * b, from 32-bit pieces. */
KJ_HD static inline uint64_t kj_ri_mulhi64(uint64_t a, uint64_t b)
{
	uint64_t a_lo = (uint32_t)a, a_hi = a >> 32, b_lo = (uint32_t)b, b_hi = b >> 32;
	uint64_t ll = a_lo * b_lo, lh = a_lo * b_hi, hl = a_hi * b_lo, hh = a_hi * b_hi;
	uint64_t mid = (ll >> 32) + (uint32_t)lh + (uint32_t)hl;
	return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

/* Saturating double -> int64 (NaN -> 0), truncating toward zero. */
KJ_HD static inline int64_t kj_ri_to_i64(double v)
{
	if (v != v)
		return 0;
	if (v >= 9223372036854775808.0)
		return INT64_MAX;
	if (v <= -9223372036854775808.0)
		return INT64_MIN;
	return (int64_t)v;
}

KJ_HD static inline double kj_ri_randint(double a, double b, uint32_t w0, uint32_t w1)
{
	int64_t lo = kj_ri_to_i64(a), hi = kj_ri_to_i64(b);
	uint64_t range, k;
	if (hi <= lo)
		return (double)lo;
	range = (uint64_t)hi - (uint64_t)lo;
	if (range <= 4294967296ull)
		k = ((uint64_t)w0 * range) >> 32;
	else
		k = kj_ri_mulhi64(((uint64_t)w0 << 32) | w1, range);
	return (double)(int64_t)((uint64_t)lo + k);
}

/* The value of one element before it is stored into a dtype.  prob <= 0
 * means no outliers. */
KJ_HD static inline double kj_ri_value(int kind, double a, double b, double prob, double scale,
				       uint64_t seed, uint32_t tensor_id, uint64_t index)
{
	uint32_t w[4];
	double v;

	if (kind == KJ_RI_ONES)
		return 1.0;
	if (kind == KJ_RI_ZEROS)
		return 0.0;
	if (kind == KJ_RI_SPD) {
		uint64_t n = (uint64_t)a, m, i, j;
		if (n == 0)
			return 0.0;
		m = index % (n * n);
		i = m / n;
		j = m % n;
		kj_ri_block(seed, tensor_id, index - m + (i < j ? i * n + j : j * n + i), w);
		v = kj_ri_u01(w[0], w[1]);
		return i == j ? (double)n + v : -1.0 + 2.0 * v;
	}
	kj_ri_block(seed, tensor_id, index, w);
	switch (kind) {
	case KJ_RI_NORMAL: {
		double u1 = ((double)w[0] + 1.0) * (1.0 / 4294967296.0);
		double u2 = (double)w[1] * (1.0 / 4294967296.0);
		double rad = kj_ri_log(u1);
		rad = -2.0 * rad;
		rad = sqrt(rad); /* IEEE correctly rounded on both sides */
		v = rad * kj_ri_cos2pi(u2);
		v = a + b * v;
		break;
	}
	case KJ_RI_UNIFORM:
		v = a + (b - a) * kj_ri_u01(w[0], w[1]);
		break;
	case KJ_RI_KAIMING:
		v = -a + (a - -a) * kj_ri_u01(w[0], w[1]);
		break;
	case KJ_RI_RANDINT:
		return kj_ri_randint(a, b, w[0], w[1]);
	default:
		return 0.0;
	}
	if (prob > 0.0 && (double)w[2] < prob * 4294967296.0) {
		v = v * scale;
		if (w[3] & 1u)
			v = -v;
	}
	return v;
}

#endif
