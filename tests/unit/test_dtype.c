/* Element types: names, sizes, f16/bf16/f8e4m3 rounding, load/store saturation. */
#include "kjudge/dtype.h"

#include "candidate/kjudge_cpu.h"
#include "tap.h"

#include <float.h>
#include <stdint.h>
#include <string.h>

static float fbits(uint32_t u)
{
	float f;
	memcpy(&f, &u, 4);
	return f;
}

static uint32_t bitsf(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

#define is_hex(got, want, ...) \
	(ok((got) == (want), __VA_ARGS__) ? 1 : \
	 (printf("#   got 0x%x, want 0x%x\n", (unsigned)(got), (unsigned)(want)), 0))

static void test_names(void)
{
	static const char *names[] = { "f32", "f16", "bf16", "i8", "i32", "i64", "bool", "f8e4m3" };
	static const char *cuda[] = { "float", "__half", "__nv_bfloat16", "int8_t", "int32_t", "int64_t", "bool",
				      "__nv_fp8_e4m3" };
	static const char *cpu[] = { "float", "kj_half", "kj_bfloat16", "int8_t", "int32_t", "int64_t", "bool",
				     "kj_fp8_e4m3" };
	static const size_t sizes[] = { 4, 2, 2, 1, 4, 8, 1, 1 };
	kj_dtype t;
	int i;

	for (i = 0; i < KJ_DTYPE_COUNT; i++) {
		is_str(kj_dtype_name((kj_dtype)i), names[i], "name of dtype %d", i);
		is_str(kj_dtype_ctype((kj_dtype)i, 1), cuda[i], "CUDA type of %s", names[i]);
		is_str(kj_dtype_ctype((kj_dtype)i, 0), cpu[i], "CPU type of %s", names[i]);
		is_int(kj_dtype_size((kj_dtype)i), sizes[i], "size of %s", names[i]);
		t = KJ_DTYPE_COUNT;
		ok(kj_dtype_from_name(names[i], &t) == 0 && t == (kj_dtype)i, "from_name(%s)", names[i]);
	}
	is_int(kj_dtype_from_name("f64", &t), -1, "from_name rejects f64");
	is_int(kj_dtype_from_name("F32", &t), -1, "from_name is case-sensitive");
	is_int(kj_dtype_from_name("", &t), -1, "from_name rejects the empty string");
	is_int(kj_dtype_size(KJ_DTYPE_COUNT), 0, "size of an invalid dtype is 0");
	is_str(kj_dtype_name(KJ_DTYPE_COUNT), "?", "name of an invalid dtype");
	ok(kj_dtype_is_float(KJ_F32) && kj_dtype_is_float(KJ_F16) && kj_dtype_is_float(KJ_BF16) &&
		   kj_dtype_is_float(KJ_F8E4M3) && !kj_dtype_is_float(KJ_I8) && !kj_dtype_is_float(KJ_BOOL),
	   "is_float: f32 f16 bf16 f8e4m3 only");
	ok(!kj_dtype_is_int(KJ_F8E4M3), "f8e4m3 is not an integer type");
	ok(kj_dtype_is_int(KJ_I8) && kj_dtype_is_int(KJ_I32) && kj_dtype_is_int(KJ_I64) &&
		   !kj_dtype_is_int(KJ_BOOL) && !kj_dtype_is_int(KJ_F16),
	   "is_int: i8 i32 i64, not bool");
}

/* The value of a half pattern from its definition, in double. */
static double half_value(uint16_t h)
{
	int e = (h >> 10) & 0x1f, m = h & 0x3ff;
	double v = e ? ldexp(1.0 + m / 1024.0, e - 15) : ldexp((double)m, -24);
	return (h & 0x8000) ? -v : v;
}

static void test_f16(void)
{
	int bad_val = 0, bad_trip = 0, bad_nan = 0;
	uint32_t h;

	for (h = 0; h < 65536; h++) {
		float f = kj_f16_to_f32((uint16_t)h);
		int e = (h >> 10) & 0x1f, m = h & 0x3ff;
		if (e == 0x1f && m) {
			if (bitsf(f) != 0x7fffffffu || kj_f32_to_f16(f) != 0x7fff)
				bad_nan++;
			continue;
		}
		if (e == 0x1f) {
			if (f != ((h & 0x8000) ? -INFINITY : INFINITY))
				bad_val++;
		} else if ((double)f != half_value((uint16_t)h) || !!signbit(f) != !!(h & 0x8000)) {
			bad_val++;
		}
		if (kj_f32_to_f16(f) != h)
			bad_trip++;
	}
	is_int(bad_val, 0, "f16 -> f32 gives each of the 63488 non-NaN values exactly");
	is_int(bad_trip, 0, "f16 -> f32 -> f16 gives back every non-NaN pattern");
	is_int(bad_nan, 0, "every f16 NaN becomes 0x7fffffff and back 0x7fff (CUDA's canonical NaNs)");

	is_hex(kj_f32_to_f16(1.0f), 0x3c00, "1.0");
	is_hex(kj_f32_to_f16(-2.0f), 0xc000, "-2.0");
	is_hex(kj_f32_to_f16(1.0f + 0x1p-11f), 0x3c00, "1 + 2^-11 ties to even 1.0");
	is_hex(kj_f32_to_f16(1.0f + 3 * 0x1p-11f), 0x3c02, "1 + 3*2^-11 ties to even 1 + 2^-9");
	is_hex(kj_f32_to_f16(1.0f + 0x1p-11f + 0x1p-20f), 0x3c01, "just above a tie rounds up");
	is_hex(kj_f32_to_f16(1.0f + 0x1p-11f - 0x1p-20f), 0x3c00, "just below a tie rounds down");
	is_hex(kj_f32_to_f16(2047.0f), 0x67ff, "2047 is exact");
	is_hex(kj_f32_to_f16(2049.0f), 0x6800, "2049 ties to even 2048");
	is_hex(kj_f32_to_f16(2051.0f), 0x6802, "2051 ties to even 2052");
	is_hex(kj_f32_to_f16(65504.0f), 0x7bff, "65504 is the largest half");
	is_hex(kj_f32_to_f16(65519.0f), 0x7bff, "65519 rounds down to 65504");
	is_hex(kj_f32_to_f16(65520.0f), 0x7c00, "65520 rounds to inf");
	is_hex(kj_f32_to_f16(-65520.0f), 0xfc00, "-65520 rounds to -inf");
	is_hex(kj_f32_to_f16(FLT_MAX), 0x7c00, "FLT_MAX overflows to inf");
	is_hex(kj_f32_to_f16(INFINITY), 0x7c00, "inf");
	is_hex(kj_f32_to_f16(-INFINITY), 0xfc00, "-inf");
	is_hex(kj_f32_to_f16(NAN), 0x7fff, "NaN -> 0x7fff");
	is_hex(kj_f32_to_f16(fbits(0xffc00001u)), 0x7fff, "negative NaN with payload -> 0x7fff");
	is_hex(kj_f32_to_f16(fbits(0x7f800001u)), 0x7fff, "signalling NaN stays NaN");
	is_hex(kj_f32_to_f16(-0.0f), 0x8000, "-0 keeps its sign");
	is_hex(kj_f32_to_f16(0x1p-14f), 0x0400, "2^-14 is the smallest normal");
	is_hex(kj_f32_to_f16(0x1p-24f), 0x0001, "2^-24 is the smallest subnormal");
	is_hex(kj_f32_to_f16(0x1p-25f), 0x0000, "2^-25 ties to even 0");
	is_hex(kj_f32_to_f16(-0x1p-25f), 0x8000, "-2^-25 ties to -0");
	is_hex(kj_f32_to_f16(0x1p-25f * (1.0f + 0x1p-23f)), 0x0001, "just above 2^-25 rounds up");
	is_hex(kj_f32_to_f16(3 * 0x1p-26f), 0x0001, "3*2^-26 rounds to 2^-24");
	is_hex(kj_f32_to_f16(3 * 0x1p-25f), 0x0002, "1.5*2^-24 ties to even 2*2^-24");
	is_hex(kj_f32_to_f16(5 * 0x1p-25f), 0x0002, "2.5*2^-24 ties to even 2*2^-24");
	is_hex(kj_f32_to_f16(0x1p-14f - 0x1p-25f), 0x0400, "largest subnormal + half ulp carries into 2^-14");
	is_hex(kj_f32_to_f16(0x1p-14f - 0x1p-24f), 0x03ff, "2^-14 - 2^-24 is the largest subnormal");
	is_hex(kj_f32_to_f16(fbits(0x00000001u)), 0x0000, "a float subnormal is 0 in half");
	is_hex(kj_f32_to_f16(0x1.ffcp+0f), 0x3fff, "1.9990234375 is exact");
	is_hex(kj_f32_to_f16(0x1.ffep+0f), 0x4000, "a tie at the top of a binade carries into the exponent");
}

static void test_bf16(void)
{
	int bad_trip = 0, bad_nan = 0;
	uint32_t h;

	for (h = 0; h < 65536; h++) {
		float f = kj_bf16_to_f32((uint16_t)h);
		if (bitsf(f) != h << 16)
			bad_trip++;
		if (((h >> 7) & 0xff) == 0xff && (h & 0x7f)) {
			if (kj_f32_to_bf16(f) != 0x7fff)
				bad_nan++;
		} else if (kj_f32_to_bf16(f) != h) {
			bad_trip++;
		}
	}
	is_int(bad_trip, 0, "bf16 -> f32 is the high half, and back gives every non-NaN pattern");
	is_int(bad_nan, 0, "every bf16 NaN comes back as 0x7fff");

	is_hex(kj_f32_to_bf16(1.0f), 0x3f80, "1.0");
	is_hex(kj_f32_to_bf16(3.0f), 0x4040, "3.0");
	is_hex(kj_f32_to_bf16(1.0f + 0x1p-8f), 0x3f80, "1 + 2^-8 ties to even 1.0");
	is_hex(kj_f32_to_bf16(1.0f + 3 * 0x1p-8f), 0x3f82, "1 + 3*2^-8 ties to even 1 + 2^-6");
	is_hex(kj_f32_to_bf16(1.0f + 0x1p-8f + 0x1p-20f), 0x3f81, "just above a tie rounds up");
	is_hex(kj_f32_to_bf16(-(1.0f + 3 * 0x1p-8f)), 0xbf82, "negative ties to even too");
	is_hex(kj_f32_to_bf16(fbits(0x7f7f7fffu)), 0x7f7f, "below the top tie stays finite");
	is_hex(kj_f32_to_bf16(fbits(0x7f7f8000u)), 0x7f80, "the top tie rounds to inf (0x7f7f is odd)");
	is_hex(kj_f32_to_bf16(FLT_MAX), 0x7f80, "FLT_MAX overflows to inf");
	is_hex(kj_f32_to_bf16(-FLT_MAX), 0xff80, "-FLT_MAX overflows to -inf");
	is_hex(kj_f32_to_bf16(INFINITY), 0x7f80, "inf");
	is_hex(kj_f32_to_bf16(NAN), 0x7fff, "NaN -> 0x7fff");
	is_hex(kj_f32_to_bf16(fbits(0xff800001u)), 0x7fff, "a NaN whose payload would round away stays NaN");
	is_hex(kj_f32_to_bf16(fbits(0x00010000u)), 0x0001, "smallest bf16 subnormal");
	is_hex(kj_f32_to_bf16(fbits(0x00008000u)), 0x0000, "half of it ties to even 0");
	is_hex(kj_f32_to_bf16(fbits(0x00018000u)), 0x0002, "1.5 of it ties to even 2");
	is_hex(kj_f32_to_bf16(-0.0f), 0x8000, "-0");
}

static uint64_t next(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* The candidate header ships the same conversions for CPU candidates; the
 * judge and the candidate must agree bit for bit. */
/* The value of an e4m3 pattern from its definition, in double. */
static double f8_value(uint8_t b)
{
	int e = (b >> 3) & 0xf, m = b & 7;
	double v = e ? ldexp(1.0 + m / 8.0, e - 7) : ldexp((double)m, -9);
	return (b & 0x80) ? -v : v;
}

static void test_f8e4m3(void)
{
	static const struct {
		float in;
		uint8_t want;
		const char *what;
	} enc[] = {
		{ 0.0f, 0x00, "0" },
		{ -0.0f, 0x80, "-0 keeps its sign" },
		{ 0x1p-9f, 0x01, "2^-9, the smallest subnormal" },
		{ 0x1p-10f, 0x00, "2^-10 is a tie between 0 and 2^-9: to even, 0" },
		{ 0x1.000002p-10f, 0x01, "just above 2^-10 rounds up to 2^-9" },
		{ 0x1.8p-9f, 0x02, "1.5 * 2^-9 is a tie: to even, 2 * 2^-9" },
		{ 0x1.cp-7f, 0x07, "7 * 2^-9, the largest subnormal" },
		{ 0x1.ep-7f, 0x08, "7.5 * 2^-9 carries into the smallest normal 2^-6" },
		{ 0x1p-6f, 0x08, "2^-6, the smallest normal" },
		{ 1.0f, 0x38, "1.0" },
		{ -2.0f, 0xc0, "-2.0" },
		{ 0.1f, 0x1d, "0.1 -> 0.1015625" },
		{ 1.0625f, 0x38, "1.0625 is a tie between 1.0 and 1.125: to even, 1.0" },
		{ 1.1875f, 0x3a, "1.1875 is a tie between 1.125 and 1.25: to even, 1.25" },
		{ 448.0f, 0x7e, "448, the largest finite value" },
		{ -448.0f, 0xfe, "-448" },
		{ 464.0f, 0x7e, "464 is a tie between 448 and (NaN) 480: to even, 448" },
		{ 464.00003f, 0x7f, "just above 464 rounds past 448: NaN, as PyTorch" },
		{ 470.0f, 0x7f, "470 -> NaN" },
		{ 480.0f, 0x7f, "480 -> NaN" },
		{ -1e6f, 0xff, "-1e6 -> NaN with the sign" },
		{ INFINITY, 0x7f, "+Inf -> NaN (e4m3fn has no Inf)" },
		{ -INFINITY, 0xff, "-Inf -> -NaN" },
	};
	int bad_val = 0, bad_trip = 0, bad_hdr = 0;

	for (size_t i = 0; i < sizeof(enc) / sizeof(enc[0]); i++)
		is_hex(kj_f32_to_f8e4m3(enc[i].in), enc[i].want, "f32 -> f8e4m3: %s", enc[i].what);
	is_hex(kj_f32_to_f8e4m3(NAN), 0x7f, "NaN -> 0x7f");
	is_hex(kj_f32_to_f8e4m3(fbits(0xffc00001u)), 0xff, "a negative NaN -> 0xff");
	is_near(kj_f8e4m3_to_f32(0x1d), 0.1015625, 0, "0x1d decodes to 0.1015625");
	is_near(kj_f8e4m3_to_f32(0x01), 0x1p-9, 0, "0x01 decodes to 2^-9");
	is_near(kj_f8e4m3_to_f32(0x7e), 448.0, 0, "0x7e decodes to 448");
	is_hex(bitsf(kj_f8e4m3_to_f32(0x80)), 0x80000000u, "0x80 decodes to -0.0");
	ok(isnan(kj_f8e4m3_to_f32(0x7f)) && isnan(kj_f8e4m3_to_f32(0xff)) &&
		   signbit(kj_f8e4m3_to_f32(0xff)) && !signbit(kj_f8e4m3_to_f32(0x7f)),
	   "0x7f and 0xff decode to NaNs of their sign");
	ok(!isnan(kj_f8e4m3_to_f32(0x78)) && kj_f8e4m3_to_f32(0x78) == 256.0f,
	   "S.1111.000 is 256, not Inf or NaN (e4m3fn)");
	/* every pattern: the definition, the round trip, and the candidate
	 * header's twin of both conversions */
	for (unsigned b = 0; b < 256; b++) {
		kj_fp8_e4m3 x = { (uint8_t)b };
		float f = kj_f8e4m3_to_f32((uint8_t)b);
		if ((b & 0x7f) == 0x7f) {
			bad_val += !isnan(f);
			bad_hdr += !isnan(kj_fp8_e4m3_to_float(x));
			continue;
		}
		bad_val += (double)f != f8_value((uint8_t)b);
		bad_trip += kj_f32_to_f8e4m3(f) != b;
		bad_hdr += bitsf(kj_fp8_e4m3_to_float(x)) != bitsf(f);
	}
	is_int(bad_val, 0, "every f8e4m3 pattern decodes to its defined value");
	is_int(bad_trip, 0, "every non-NaN pattern encodes back to itself");
	/* rounding: every float on a grid of 2^-12 steps of each binade against
	 * the nearest-even pick among all finite patterns */
	{
		int bad_rne = 0;
		for (int e = -12; e <= 9; e++)
			for (int k = 0; k < 4096; k++) {
				float f = ldexpf(1.0f + k / 4096.0f, e);
				uint8_t got = kj_f32_to_f8e4m3(f), best = 0;
				double bd = INFINITY;
				for (unsigned b = 0; b < 0x7f; b++) {
					double d = fabs(f8_value((uint8_t)b) - f);
					if (d < bd || (d == bd && !(b & 1))) {
						bd = d;
						best = (uint8_t)b;
					}
				}
				/* past 448 + half its ulp (464) PyTorch gives NaN */
				if (f > 464.0f)
					best = 0x7f;
				bad_rne += got != best;
				{
					kj_fp8_e4m3 h = kj_float_to_fp8_e4m3(-f);
					bad_hdr += h.bits != (uint8_t)(best | 0x80);
				}
			}
		is_int(bad_rne, 0, "f32 -> f8e4m3 rounds to the nearest pattern, ties to even, over 22 binades");
	}
	is_int(bad_hdr, 0, "kjudge_cpu.h's kj_fp8_e4m3 conversions give the same bits");
	{
		unsigned char buf[2];
		kj_store(KJ_F8E4M3, buf, 1, 0.1);
		is_hex(buf[1], 0x1d, "kj_store(f8e4m3, 0.1)");
		is_near(kj_load(KJ_F8E4M3, buf, 1), 0.1015625, 0, "kj_load of it");
		kj_store(KJ_F8E4M3, buf, 0, 1e300);
		is_hex(buf[0], 0x7f, "kj_store(f8e4m3, 1e300) is NaN (via f32 Inf)");
		kj_store(KJ_F8E4M3, buf, 0, 0.10156250000000001);
		is_hex(buf[0], 0x1d, "a double rounds through f32 first");
	}
}

static void test_candidate_header(void)
{
	uint64_t s = 2024;
	int bad_h = 0, bad_b = 0, bad_back = 0, i;
	uint32_t h;

	for (i = 0; i < 1000000; i++) {
		uint32_t u = (uint32_t)next(&s);
		float f = fbits(u);
		if (kj_float_to_half(f).bits != kj_f32_to_f16(f))
			bad_h++;
		if (kj_float_to_bfloat16(f).bits != kj_f32_to_bf16(f))
			bad_b++;
	}
	/* plus a sweep with a stride co-prime to every field width, and the
	 * neighbourhood of each f16 rounding boundary */
	for (h = 0; h < 4096; h++) {
		uint32_t u = h * 1048573u;
		if (kj_float_to_half(fbits(u)).bits != kj_f32_to_f16(fbits(u)))
			bad_h++;
		if (kj_float_to_bfloat16(fbits(u)).bits != kj_f32_to_bf16(fbits(u)))
			bad_b++;
	}
	for (h = 0; h < 65536; h++) {
		kj_half x = { (uint16_t)h };
		kj_bfloat16 y = { (uint16_t)h };
		uint32_t mid = bitsf(kj_f16_to_f32((uint16_t)h)) + 0x1000u, d;
		if (bitsf(kj_half_to_float(x)) != bitsf(kj_f16_to_f32((uint16_t)h)) ||
		    bitsf(kj_bfloat16_to_float(y)) != bitsf(kj_bf16_to_f32((uint16_t)h)))
			bad_back++;
		for (d = 0; d < 3; d++) {
			float f = fbits(mid - 1 + d);
			if (kj_float_to_half(f).bits != kj_f32_to_f16(f))
				bad_h++;
		}
	}
	is_int(bad_h, 0, "candidate kj_float_to_half agrees with kj_f32_to_f16");
	is_int(bad_b, 0, "candidate kj_float_to_bfloat16 agrees with kj_f32_to_bf16");
	is_int(bad_back, 0, "candidate half/bf16 -> float agree on all 65536 patterns");
}

static double roundtrip(kj_dtype t, double v)
{
	unsigned char buf[8 * 3];
	memset(buf, 0xa5, sizeof(buf));
	kj_store(t, buf, 1, v);
	return kj_load(t, buf, 1);
}

static void test_load_store(void)
{
	unsigned char buf[24];
	int64_t i64;
	int32_t i32;
	uint16_t u16;
	float f;

	is_near(roundtrip(KJ_I8, 127.9), 127, 0, "i8 truncates 127.9");
	is_near(roundtrip(KJ_I8, 128.0), 127, 0, "i8 saturates 128");
	is_near(roundtrip(KJ_I8, 1e300), 127, 0, "i8 saturates 1e300");
	is_near(roundtrip(KJ_I8, INFINITY), 127, 0, "i8 saturates inf");
	is_near(roundtrip(KJ_I8, -128.9), -128, 0, "i8 truncates -128.9");
	is_near(roundtrip(KJ_I8, -129.0), -128, 0, "i8 saturates -129");
	is_near(roundtrip(KJ_I8, -INFINITY), -128, 0, "i8 saturates -inf");
	is_near(roundtrip(KJ_I8, -1.9), -1, 0, "i8 truncates toward zero");
	is_near(roundtrip(KJ_I8, 0.99), 0, 0, "i8 0.99 -> 0");
	is_near(roundtrip(KJ_I8, NAN), 0, 0, "i8 NaN -> 0");
	memset(buf, 0, sizeof(buf));
	kj_store(KJ_I8, buf, 3, -5.5);
	ok(buf[3] == 0xfb && buf[2] == 0 && buf[4] == 0, "i8 element 3 is byte 3, two's complement");

	is_near(roundtrip(KJ_I32, 2147483647.9), 2147483647.0, 0, "i32 truncates below 2^31");
	is_near(roundtrip(KJ_I32, 2147483648.0), 2147483647.0, 0, "i32 saturates 2^31");
	is_near(roundtrip(KJ_I32, 3e9), 2147483647.0, 0, "i32 saturates 3e9");
	is_near(roundtrip(KJ_I32, -2147483649.5), -2147483648.0, 0, "i32 saturates below -2^31");
	is_near(roundtrip(KJ_I32, -2147483648.7), -2147483648.0, 0, "i32 -2^31 - 0.7 -> -2^31");
	is_near(roundtrip(KJ_I32, -7.99), -7, 0, "i32 truncates -7.99");
	is_near(roundtrip(KJ_I32, NAN), 0, 0, "i32 NaN -> 0");
	kj_store(KJ_I32, buf, 2, 123456.78);
	memcpy(&i32, buf + 8, 4);
	is_int(i32, 123456, "i32 element 2 lies at byte 8");

	kj_store(KJ_I64, buf, 1, 9223372036854775808.0);
	memcpy(&i64, buf + 8, 8);
	ok(i64 == INT64_MAX, "i64 saturates 2^63 to INT64_MAX");
	kj_store(KJ_I64, buf, 1, 1e19);
	memcpy(&i64, buf + 8, 8);
	ok(i64 == INT64_MAX, "i64 saturates 1e19");
	kj_store(KJ_I64, buf, 1, -9223372036854775808.0);
	memcpy(&i64, buf + 8, 8);
	ok(i64 == INT64_MIN, "i64 keeps -2^63");
	kj_store(KJ_I64, buf, 1, -INFINITY);
	memcpy(&i64, buf + 8, 8);
	ok(i64 == INT64_MIN, "i64 saturates -inf");
	kj_store(KJ_I64, buf, 1, 4611686018427387904.0 + 2048.0);
	memcpy(&i64, buf + 8, 8);
	ok(i64 == 4611686018427389952LL, "i64 2^62 + 2048 is exact");
	kj_store(KJ_I64, buf, 1, -123456789012.7);
	memcpy(&i64, buf + 8, 8);
	ok(i64 == -123456789012LL, "i64 truncates -123456789012.7");
	kj_store(KJ_I64, buf, 1, NAN);
	memcpy(&i64, buf + 8, 8);
	ok(i64 == 0, "i64 NaN -> 0");
	i64 = INT64_MAX;
	memcpy(buf + 16, &i64, 8);
	is_near(kj_load(KJ_I64, buf, 2), 9223372036854775808.0, 0, "i64 load of INT64_MAX rounds to 2^63");

	is_near(roundtrip(KJ_BOOL, 0.0), 0, 0, "bool 0 -> 0");
	is_near(roundtrip(KJ_BOOL, -0.0), 0, 0, "bool -0 -> 0");
	is_near(roundtrip(KJ_BOOL, 0.1), 1, 0, "bool 0.1 -> 1");
	is_near(roundtrip(KJ_BOOL, -3.0), 1, 0, "bool -3 -> 1");
	is_near(roundtrip(KJ_BOOL, NAN), 1, 0, "bool NaN -> 1 (NaN != 0)");
	kj_store(KJ_BOOL, buf, 0, 42.0);
	is_int(buf[0], 1, "bool stores the byte 1");
	buf[5] = 7;
	is_near(kj_load(KJ_BOOL, buf, 5), 1, 0, "bool load of a non-zero byte is 1");

	is_near(roundtrip(KJ_F32, 0.1), (double)0.1f, 0, "f32 rounds 0.1 to float");
	ok(isinf(roundtrip(KJ_F32, 1e40)) && roundtrip(KJ_F32, 1e40) > 0, "f32 1e40 -> inf");
	ok(isnan(roundtrip(KJ_F32, NAN)), "f32 keeps NaN");
	kj_store(KJ_F32, buf, 1, -2.5);
	memcpy(&f, buf + 4, 4);
	ok(f == -2.5f, "f32 element 1 lies at byte 4");

	kj_store(KJ_F16, buf, 1, 1.0 + 0x1p-11 + 0x1p-40);
	memcpy(&u16, buf + 2, 2);
	is_hex(u16, 0x3c00, "f16 store goes through f32 (1 + 2^-11 + 2^-40 -> f32 tie -> 1.0)");
	kj_store(KJ_F16, buf, 1, 70000.0);
	memcpy(&u16, buf + 2, 2);
	is_hex(u16, 0x7c00, "f16 store of 70000 is inf");
	is_near(roundtrip(KJ_F16, 0.1), 0.0999755859375, 0, "f16 0.1 -> 0.0999755859375");
	kj_store(KJ_BF16, buf, 0, 3.0);
	memcpy(&u16, buf, 2);
	is_hex(u16, 0x4040, "bf16 store of 3.0");
	is_near(roundtrip(KJ_BF16, 0.1), 0.10009765625, 0, "bf16 0.1 -> 0.10009765625");
	ok(isnan(roundtrip(KJ_BF16, NAN)) && isnan(roundtrip(KJ_F16, NAN)), "f16/bf16 keep NaN");
}

int main(void)
{
	test_names();
	test_f16();
	test_bf16();
	test_f8e4m3();
	test_candidate_header();
	test_load_store();
	return done_testing();
}
