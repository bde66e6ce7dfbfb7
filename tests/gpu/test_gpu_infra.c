/* The judge's GPU infrastructure against the CPU track: the generator bit for
 * bit (every dtype and distribution, with and without outliers), the
 * converter, the sentinels, byte equality, the comparator's verdicts against
 * a transcription of compare() in src/judge/judge.c, the baseline's own error
 * against the fp64 reference (kj_gpu_baseline_error, `kjudge baseline
 * --check`), and a calibration that returns numbers.  Without a device it
 * says it skips. */
#include "kjudge/exec.h"
#include "kjudge/gpu.h"
#include "kjudge/judge.h"
#include "kjudge/rng.h"
#include "kjudge/task.h"

#include "tap.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define N_GEN 1000003

static kj_gpu *g;
static struct kj_err err;

static size_t tsize(int t)
{
	return t == KJ_F64 ? 8 : kj_dtype_size((kj_dtype)t);
}

static const char *tname(int t)
{
	return t == KJ_F64 ? "f64" : kj_dtype_name((kj_dtype)t);
}

static double load_any(int t, const void *buf, size_t i)
{
	if (t == KJ_F64) {
		double v;
		memcpy(&v, (const char *)buf + 8 * i, 8);
		return v;
	}
	return kj_load((kj_dtype)t, buf, i);
}

static void store_any(int t, void *buf, size_t i, double v)
{
	if (t == KJ_F64)
		memcpy((char *)buf + 8 * i, &v, 8);
	else
		kj_store((kj_dtype)t, buf, i, v);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		printf("Bail out! out of memory\n");
		exit(1);
	}
	return p;
}

static void *dalloc(size_t bytes)
{
	void *p = NULL;
	if (kj_gpu_alloc(g, bytes, &p, &err)) {
		printf("Bail out! %s\n", err.msg);
		exit(1);
	}
	return p;
}

static int up(void *d, const void *h, size_t bytes)
{
	return kj_gpu_copy(g, d, h, bytes, 0, &err);
}

static int down(void *h, const void *d, size_t bytes)
{
	return kj_gpu_copy(g, h, d, bytes, 1, &err);
}

/* The first differing element of two buffers of n elements of size es, or
 * -1. */
static int64_t first_diff(const void *a, const void *b, size_t n, size_t es)
{
	if (memcmp(a, b, n * es) == 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (memcmp((const char *)a + i * es, (const char *)b + i * es, es))
			return (int64_t)i;
	return -1;
}

static void test_info(void)
{
	const kj_gpu_info *in = kj_gpu_get_info(g);
	char want[16];

	ok(in != NULL, "kj_gpu_get_info");
	if (!in)
		return;
	printf("# %s, cc %d.%d, %s, %d SMs, L2 %zu bytes, %zu bytes, %s\n", in->name, in->cc_major,
	       in->cc_minor, in->arch, in->sm_count, in->l2_bytes, in->mem_bytes, in->uuid);
	ok(in->name[0] != 0, "device has a name");
	if (in->cc_major == 9 && in->cc_minor == 0)
		snprintf(want, sizeof(want), "sm_90a");
	else
		snprintf(want, sizeof(want), "sm_%d%d", in->cc_major, in->cc_minor);
	is_str(in->arch, want, "arch string");
	ok(in->sm_count > 0 && in->l2_bytes > 0 && in->mem_bytes > 0, "SMs, L2 and memory sizes");
	ok(strlen(in->uuid) == 40 && strncmp(in->uuid, "GPU-", 4) == 0 && in->uuid[12] == '-' &&
		   in->uuid[17] == '-' && in->uuid[22] == '-' && in->uuid[27] == '-',
	   "uuid GPU-8-4-4-4-12: %s", in->uuid);
}

static void test_alloc_copy(void)
{
	unsigned char h[4096], back[4096], handle[64], zero[64] = { 0 };
	void *d = dalloc(sizeof(h)), *d2 = dalloc(sizeof(h));

	for (size_t i = 0; i < sizeof(h); i++)
		h[i] = (unsigned char)(i * 7 + 3);
	ok(up(d, h, sizeof(h)) == 0, "copy host to device");
	ok(kj_gpu_copy(g, d2, d, sizeof(h), 2, &err) == 0, "copy device to device");
	memset(back, 0, sizeof(back));
	ok(down(back, d2, sizeof(h)) == 0 && memcmp(back, h, sizeof(h)) == 0,
	   "round trip through two device buffers");
	ok(kj_gpu_copy(g, d2, d, 16, 3, &err) == KJ_E_USAGE, "bad copy direction is a usage error");
	memset(handle, 0, sizeof(handle));
	ok(kj_gpu_ipc_handle(g, d, handle, &err) == 0 && memcmp(handle, zero, 64) != 0,
	   "IPC handle of an allocation");
	ok(kj_gpu_sync(g, &err) == 0, "sync");
	ok(kj_gpu_l2_flush(g, &err) == 0 && kj_gpu_sync(g, &err) == 0, "L2 flush");
	kj_gpu_free(g, d2);
	kj_gpu_free(g, d2); /* unknown now: ignored */
	/* d stays live: kj_gpu_close frees it */
}

static void test_gen(void)
{
	static const kj_dist dists[] = {
		{ KJ_DIST_NORMAL, 0.5, 2.0 },   { KJ_DIST_UNIFORM, -3.0, 5.0 },
		{ KJ_DIST_RANDINT, -200, 200 }, { KJ_DIST_KAIMING, 0.05, 0.0 },
		{ KJ_DIST_ONES, 0, 0 },         { KJ_DIST_ZEROS, 0, 0 },
		/* past f16's range and every integer's saturation; a randint
		 * range above 2^32 takes the 64-bit product */
		{ KJ_DIST_NORMAL, 0.0, 7e4 },   { KJ_DIST_RANDINT, -5e12, 5e12 },
	};
	const kj_outliers outl = { 0.001, 50.0 };
	size_t n = N_GEN;
	unsigned char *cpu = xmalloc(n * 8), *gpu = xmalloc(n * 8);
	void *d = dalloc(n * 8);
	int k = 0;

	for (int t = 0; t < KJ_DTYPE_COUNT; t++) {
		for (size_t di = 0; di < sizeof(dists) / sizeof(dists[0]); di++) {
			for (int o = 0; o < 2; o++, k++) {
				uint64_t seed = 0x9e3779b97f4a7c15ull * (uint64_t)(k + 1);
				size_t es = kj_dtype_size((kj_dtype)t);
				int64_t bad;
				int rc;

				kj_gen_fill(cpu, (kj_dtype)t, n, &dists[di], o ? &outl : NULL, seed,
					    (uint32_t)k);
				memset(gpu, 0x5c, n * es);
				rc = kj_gpu_gen(g, d, (kj_dtype)t, n, &dists[di], o ? &outl : NULL,
						seed, (uint32_t)k, &err);
				if (!rc)
					rc = down(gpu, d, n * es);
				bad = rc ? 0 : first_diff(cpu, gpu, n, es);
				ok(rc == 0 && bad < 0, "gen %s %s(%g, %g)%s: bit-identical to the CPU",
				   kj_dtype_name((kj_dtype)t), kj_dist_name(dists[di].kind), dists[di].a,
				   dists[di].b, o ? " + outliers" : "");
				if (rc)
					printf("#   %s\n", err.msg);
				else if (bad >= 0)
					printf("#   first difference at %" PRId64 ": cpu %.17g gpu %.17g\n",
					       bad, kj_load((kj_dtype)t, cpu, (size_t)bad),
					       kj_load((kj_dtype)t, gpu, (size_t)bad));
			}
		}
	}
	kj_gpu_free(g, d);
	free(cpu);
	free(gpu);
}

static double bits_d(uint64_t u)
{
	double v;
	memcpy(&v, &u, 8);
	return v;
}

/* Edges of every conversion, then random values over many magnitudes. */
static size_t convert_values(double *v, size_t cap)
{
	const double special[] = {
		0.0, -0.0, 1.0, -1.0, 0.5, bits_d(0x7ff8000000000000ull),
		bits_d(0xfff4000000000001ull), bits_d(0x7ff80000deadbeefull), INFINITY, -INFINITY,
		65504.0, 65519.99, 65520.0, -65520.0, 1e5, -1e5, 3e38, 3.5e38, -3.5e38, 1e-8,
		0x1p-24, 0x1p-25, 0x1.0001p-25, 0x1.8p-24, 1e-40, 1e-320, 127.9, 128.0, -128.5,
		-129.0, 255.0, 2147483647.5, 2147483648.0, -2147483649.0, 9.3e18, -9.3e18, 0x1p63,
		1.0 + 0x1p-11, 1.0 + 3 * 0x1p-11, 1.0 + 0x1p-8, 1.0 + 3 * 0x1p-8, 1.0 + 0x1p-24,
		1.0 + 3 * 0x1p-24, 0.3, -0.7, 3.4028235677973366e38, 3.4028235677973362e38,
		0x1.fffffefffffffp127, 0x1.ffffffp127,
	};
	size_t n = 0;
	const kj_dist nd = { KJ_DIST_NORMAL, 0.0, 1.0 }, ud = { KJ_DIST_UNIFORM, -12.0, 12.0 };

	for (size_t i = 0; i < sizeof(special) / sizeof(special[0]) && n < cap; i++)
		v[n++] = special[i];
	for (uint64_t i = 0; n < cap; i++) {
		double m = kj_gen_value(&nd, NULL, 42, 1, i);
		double e = kj_gen_value(&ud, NULL, 42, 2, i);
		v[n++] = m * pow(10.0, floor(e));
	}
	return n;
}

static void test_convert(void)
{
	size_t n = 70000;
	double *v = xmalloc(n * 8);
	unsigned char *src = xmalloc(n * 8), *want = xmalloc(n * 8), *got = xmalloc(n * 8);
	void *ds = dalloc(n * 8), *dd = dalloc(n * 8);

	n = convert_values(v, n);
	for (int st = 0; st <= KJ_F64; st++) {
		for (size_t i = 0; i < n; i++)
			store_any(st, src, i, v[i]);
		for (int dt = 0; dt <= KJ_F64; dt++) {
			int64_t bad;
			int rc;

			for (size_t i = 0; i < n; i++)
				store_any(dt, want, i, load_any(st, src, i));
			memset(got, 0x5c, n * tsize(dt));
			rc = up(ds, src, n * tsize(st));
			if (!rc)
				rc = kj_gpu_convert(g, ds, (kj_dtype)st, dd, (kj_dtype)dt, n, &err);
			if (!rc)
				rc = down(got, dd, n * tsize(dt));
			bad = rc ? 0 : first_diff(want, got, n, tsize(dt));
			ok(rc == 0 && bad < 0, "convert %s -> %s as kj_load/kj_store", tname(st),
			   tname(dt));
			if (rc)
				printf("#   %s\n", err.msg);
			else if (bad >= 0)
				printf("#   first difference at %" PRId64 " (from %.17g): want %.17g got %.17g\n",
				       bad, load_any(st, src, (size_t)bad), load_any(dt, want, (size_t)bad),
				       load_any(dt, got, (size_t)bad));
		}
	}
	ok(kj_gpu_convert(g, ds, (kj_dtype)(KJ_F64 + 1), dd, KJ_F32, 1, &err) == KJ_E_USAGE,
	   "convert rejects a bad dtype");
	kj_gpu_free(g, ds);
	kj_gpu_free(g, dd);
	free(v);
	free(src);
	free(want);
	free(got);
}

static void test_sentinel(void)
{
	static const uint64_t pat[KJ_DTYPE_COUNT] = {
		[KJ_F32] = 0x7fc0deadu, [KJ_F16] = 0x7e5a, [KJ_BF16] = 0x7fda, [KJ_I8] = 0x80,
		[KJ_I32] = 0x80000000u, [KJ_I64] = 0x8000000000000000ull, [KJ_BOOL] = 0xaa,
		[KJ_F8E4M3] = 0x7f,
	};
	size_t n = 1001;
	unsigned char *h = xmalloc(n * 8 + 8);
	void *d = dalloc(n * 8 + 8);

	for (int t = 0; t < KJ_DTYPE_COUNT; t++) {
		size_t es = kj_dtype_size((kj_dtype)t), i;
		int rc;

		memset(h, 0, n * 8 + 8);
		rc = up(d, h, n * 8 + 8);
		if (!rc)
			rc = kj_gpu_fill_sentinel(g, d, (kj_dtype)t, n, &err);
		if (!rc)
			rc = down(h, d, n * 8 + 8);
		for (i = 0; !rc && i < n; i++) {
			uint64_t x = 0;
			memcpy(&x, h + i * es, es); /* little-endian */
			if (x != pat[t])
				break;
		}
		ok(rc == 0 && i == n && h[n * es] == 0, "sentinel %s: every element, nothing past n",
		   kj_dtype_name((kj_dtype)t));
	}
	kj_gpu_free(g, d);
	free(h);
}

/* One kj_gpu_equal call checked against the index it must return. */
static void equal_is(const void *a, const void *b, size_t bytes, int64_t want, const char *what)
{
	int64_t fd = -2;
	int rc = kj_gpu_equal(g, a, b, bytes, &fd, &err);

	ok(rc == 0 && fd == want, "%s: %" PRId64 " (got %" PRId64 ")", what, want, fd);
	if (rc)
		printf("#   %s\n", err.msg);
}

static void flip(unsigned char *d, size_t at, unsigned char mask)
{
	unsigned char x = 0;
	down(&x, d + at, 1);
	x ^= mask;
	up(d + at, &x, 1);
}

static void test_equal(void)
{
	size_t bytes = ((size_t)1 << 20) + 7;
	const kj_dist d = { KJ_DIST_RANDINT, -128, 128 };
	unsigned char *a = dalloc(bytes), *b = dalloc(bytes);

	ok(kj_gpu_gen(g, a, KJ_I8, bytes, &d, NULL, 5, 0, &err) == 0 &&
		   kj_gpu_gen(g, b, KJ_I8, bytes, &d, NULL, 5, 0, &err) == 0,
	   "two equal buffers");
	equal_is(a, b, bytes, -1, "equal buffers");
	equal_is(a, b, 0, -1, "zero bytes");
	flip(b, bytes - 1, 0x01);
	equal_is(a, b, bytes, (int64_t)bytes - 1, "difference in the last byte (the unaligned tail)");
	flip(b, 900001, 0x80);
	flip(b, 12345, 0x10);
	equal_is(a, b, bytes, 12345, "one flipped byte at 12345, others later");
	equal_is(a + 1, b + 1, bytes - 1, 12344, "unaligned pointers");
	equal_is(a, b, 12345, -1, "range that ends before the difference");
	equal_is(a + 12346, b + 12346, 1000, -1, "range after it");
	kj_gpu_free(g, a);
	kj_gpu_free(g, b);
}

/* compare() of src/judge/judge.c, with got of dtype t (double for
 * KJ_F64). */
static void cpu_compare(int t, const void *gotbuf, const double *ref, size_t n, double atol,
			double rtol, kj_gpu_cmp *st)
{
	int isf = t == KJ_F64 || kj_dtype_is_float((kj_dtype)t);

	memset(st, 0, sizeof(*st));
	st->n = (int64_t)n;
	st->first_bad = -1;
	for (size_t i = 0; i < n; i++) {
		double r = ref[i], gv;
		int bad;
		if (t == KJ_BOOL && ((const unsigned char *)gotbuf)[i] > 1)
			gv = NAN;
		else
			gv = load_any(t, gotbuf, i);
		if (!isf) {
			double rr = kj_round_to((kj_dtype)t, r);
			bad = !(gv == rr);
			r = rr;
		} else if (isnan(r) || isnan(gv)) {
			bad = !(isnan(r) && isnan(gv));
			st->nfbad += bad;
		} else if (isinf(r) || isinf(gv)) {
			bad = r != gv;
			st->nfbad += bad;
		} else {
			double d = fabs(gv - r), tl = atol + rtol * fabs(r);
			double q = d == 0 ? 0 : tl > 0 ? d / tl : INFINITY;
			bad = !(d <= tl);
			if (q > st->ratio)
				st->ratio = q;
			if (d > st->max_abs)
				st->max_abs = d;
			if (r != 0 && d / fabs(r) > st->max_rel)
				st->max_rel = d / fabs(r);
			st->dot += gv * r;
			st->gg += gv * gv;
			st->rr += r * r;
			st->l1num += d;
			st->l1den += fabs(r);
			st->sq += d * d;
		}
		if (!isf && !isnan(gv)) {
			double d = fabs(gv - r);
			if (d > st->max_abs)
				st->max_abs = d;
		}
		if (bad) {
			if (st->first_bad < 0) {
				st->first_bad = (int64_t)i;
				st->expected = r;
				st->got = gv;
			}
			st->nbad++;
		}
	}
}

static int same(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

static int rel_close(double a, double b, double tol)
{
	if (isnan(a) || isnan(b) || isinf(a) || isinf(b))
		return same(a, b);
	return fabs(a - b) <= tol * fmax(fabs(a), fabs(b)) || a == b;
}

/* Inputs within the dtype's tolerance, with errors, NaN and Inf injected at
 * known places; the GPU must give the CPU's verdict. */
static void compare_case(int t, size_t n, int inject)
{
	const kj_dist nd = { KJ_DIST_NORMAL, 0.0, 1.0 };
	int isf = t == KJ_F64 || kj_dtype_is_float((kj_dtype)t);
	double atol = t == KJ_F32 || t == KJ_F64 ? 1e-4 : isf ? 1e-2 : 0.0, rtol = atol;
	double *ref = xmalloc(n * 8);
	unsigned char *got = xmalloc(n * 8);
	void *dgot = dalloc(n * 8), *dref = dalloc(n * 8);
	kj_gpu_cmp c, gc;
	int rc;

	for (size_t i = 0; i < n; i++) {
		double v = kj_gen_value(&nd, NULL, 99, (uint32_t)t, i);
		if (t == KJ_I32 || t == KJ_I8 || t == KJ_I64)
			v *= 100.0;
		else if (t == KJ_BOOL && v < 0.3)
			v = 0.0;
		ref[i] = v;
		/* within tolerance: a relative error far below rtol */
		store_any(t, got, i, isf ? v * (1.0 + 1e-6) : v);
	}
	for (int k = 0; inject && k < 25; k++) {
		size_t i = 777 + (size_t)k * 39989;
		if (i >= n)
			break;
		switch (k % 6) {
		case 0: /* plainly wrong */
			store_any(t, got, i, ref[i] + 3.0);
			break;
		case 1: /* NaN out, finite reference; bool: a byte that is not 0/1 */
			if (t == KJ_BOOL)
				got[i] = 2;
			else
				store_any(t, got, i, NAN);
			break;
		case 2: /* NaN reference, finite out */
			ref[i] = NAN;
			break;
		case 3: /* Inf on both sides agrees */
			ref[i] = -INFINITY;
			store_any(t, got, i, -INFINITY);
			break;
		case 4: /* Inf out, finite reference */
			store_any(t, got, i, INFINITY);
			break;
		default: /* NaN on both sides agrees */
			ref[i] = NAN;
			store_any(t, got, i, NAN);
			break;
		}
	}
	if (inject && n > 5000) {
		/* an error just past the tolerance and one just inside */
		ref[4001] = 1.0;
		store_any(t, got, 4001, isf ? 1.0 + 2.5 * atol : 2.0);
		ref[4002] = 1.0;
		store_any(t, got, 4002, 1.0);
	}
	cpu_compare(t, got, ref, n, atol, rtol, &c);
	rc = up(dgot, got, n * tsize(t));
	if (!rc)
		rc = up(dref, ref, n * 8);
	if (!rc)
		rc = kj_gpu_compare(g, (kj_dtype)t, dgot, dref, n, atol, rtol, &gc, &err);
	ok(rc == 0, "compare %s n=%zu runs", tname(t), n);
	if (rc) {
		printf("#   %s\n", err.msg);
	} else {
		if (inject)
			ok(c.nbad > 0, "compare %s n=%zu: the CPU finds the injected errors (%" PRId64 ")",
			   tname(t), n, c.nbad);
		ok(gc.n == c.n && gc.nbad == c.nbad && gc.first_bad == c.first_bad,
		   "compare %s n=%zu: nbad %" PRId64 "/%" PRId64 ", first_bad %" PRId64 "/%" PRId64,
		   tname(t), n, gc.nbad, c.nbad, gc.first_bad, c.first_bad);
		ok(same(gc.expected, c.expected) && same(gc.got, c.got),
		   "compare %s: expected %.17g/%.17g, got %.17g/%.17g", tname(t), gc.expected,
		   c.expected, gc.got, c.got);
		ok(rel_close(gc.max_abs, c.max_abs, 1e-12) && rel_close(gc.max_rel, c.max_rel, 1e-12),
		   "compare %s: max_abs %.17g/%.17g, max_rel %.17g/%.17g", tname(t), gc.max_abs,
		   c.max_abs, gc.max_rel, c.max_rel);
		ok(gc.nfbad == c.nfbad && same(gc.ratio, c.ratio),
		   "compare %s: the error budget's measures: nfbad %" PRId64 "/%" PRId64 ", ratio %.17g/%.17g",
		   tname(t), gc.nfbad, c.nfbad, gc.ratio, c.ratio);
		ok(rel_close(gc.dot, c.dot, 1e-9) && rel_close(gc.gg, c.gg, 1e-9) &&
			   rel_close(gc.rr, c.rr, 1e-9) && rel_close(gc.l1num, c.l1num, 1e-9) &&
			   rel_close(gc.l1den, c.l1den, 1e-9) && rel_close(gc.sq, c.sq, 1e-9),
		   "compare %s: sums agree to rounding (dot %.17g/%.17g, sq %.17g/%.17g)", tname(t),
		   gc.dot, c.dot, gc.sq, c.sq);
	}
	kj_gpu_free(g, dgot);
	kj_gpu_free(g, dref);
	free(ref);
	free(got);
}

static void test_compare(void)
{
	static const int types[] = { KJ_F32, KJ_F16, KJ_BF16, KJ_I8, KJ_I32, KJ_I64, KJ_BOOL, KJ_F8E4M3,
				     KJ_F64 };
	kj_gpu_cmp c;

	for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++) {
		compare_case(types[k], N_GEN, 1);
		compare_case(types[k], 33, 0);
	}
	ok(kj_gpu_compare(g, KJ_F32, NULL, NULL, 0, 0, 0, &c, &err) == 0 && c.n == 0 &&
		   c.first_bad == -1 && c.nbad == 0,
	   "compare of nothing");
}

static void test_calibrate(void)
{
	const kj_gpu_info *in = kj_gpu_get_info(g);
	kj_calib c;
	int rc = kj_gpu_calibrate(g, &c, &err);

	ok(rc == 0, "calibrate");
	if (rc) {
		printf("#   %s\n", err.msg);
		return;
	}
	printf("# calibration of %s (%s) in %.2f s\n", c.name, c.uuid, c.seconds);
	printf("# copy %.1f GB/s\n", c.copy_gbs);
	printf("# fp64 %.2f TFLOP/s, fp32 %.2f, tf32 %.2f, fp16 %.2f, bf16 %.2f, int8 %.2f TOP/s, fp8 %.2f\n",
	       c.fp64_tflops, c.fp32_tflops, c.tf32_tflops, c.fp16_tflops, c.bf16_tflops,
	       c.int8_tops, c.fp8_tflops);
	is_str(c.uuid, in->uuid, "calibration names the card");
	ok(c.copy_gbs > 0, "copy bandwidth > 0");
	ok(c.fp64_tflops > 0 && c.fp32_tflops > 0 && c.tf32_tflops > 0, "fp64, fp32, tf32 rates > 0");
	ok(c.fp16_tflops > 0 && c.bf16_tflops > 0 && c.int8_tops > 0, "fp16, bf16, int8 rates > 0");
	if (in->cc_major * 10 + in->cc_minor >= 89)
		ok(c.fp8_tflops > 0, "fp8 rate > 0 (cc >= 8.9)");
	else
		ok(c.fp8_tflops == 0, "fp8 rate 0 before cc 8.9");
	ok(c.seconds > 0, "seconds > 0");
}

/* kj_gpu_baseline_error: relu is exact in f32 and passes even a zero
 * tolerance; exp in f32 is not, and fails it; each output on its own. */
static void test_baseline_error(void)
{
	static const char text[] = "task base_err\ninput x: f32[B, D] ~ normal\noutput y: f32[B, D]\n"
				   "output z: f32[B, D]\ny = relu(x)\nz = exp(x)\ncheck B=37 D=1001\n"
				   "tol atol=0 rtol=0\n";
	kj_task *t = NULL;
	kj_base_err e[4];
	int n = -1;
	if (!ok(kj_task_parse(text, strlen(text), "base_err", &t, &err) == 0, "baseline-error task parses")) {
		printf("#   %s\n", err.msg);
		return;
	}
	ok(kj_gpu_baseline_error(g, t, 0, 1, 3, e, 4, &n, &err) == 0, "baseline error measured");
	if (!ok(n == 2, "one result per output (%d)", n)) {
		kj_task_free(t);
		return;
	}
	is_str(e[0].output, "y", "first output named");
	ok(e[0].n == 37 * 1001 && e[0].nbad == 0 && e[0].max_abs == 0 && e[0].pass == 1 && e[0].seeds == 3,
	   "relu: no element off on 3 seeds, passes a zero tolerance");
	is_str(e[1].output, "z", "second output named");
	ok(e[1].nbad > 0 && e[1].nbad <= e[1].n && e[1].pass == 0, "exp in f32: %lld of %lld off, fails",
	   (long long)e[1].nbad, (long long)e[1].n);
	ok(e[0].failed == 0 && e[1].failed == 7, "failed seeds: none for relu, all three for exp (%#x)",
	   e[1].failed);
	ok(e[1].max_rel > 0 && e[1].max_rel < 1e-6, "exp in f32: largest relative error %.3g, f32-sized",
	   e[1].max_rel);
	n = -1;
	ok(kj_gpu_baseline_error(g, t, 0, 1, 1, e, 1, &n, &err) == 0 && n == 1 && e[0].seeds == 1,
	   "at most max results; one seed");
	kj_task_free(t);
}

int main(void)
{
	kj_err_init(&err);
	if (!kj_gpu_available()) {
		printf("1..0 # SKIP no CUDA device\n");
		return 0;
	}
	if (kj_gpu_open(0, &g, &err)) {
		printf("Bail out! %s\n", err.msg);
		return 1;
	}
	test_info();
	test_alloc_copy();
	test_gen();
	test_convert();
	test_sentinel();
	test_equal();
	test_compare();
	test_baseline_error();
	test_calibrate();
	kj_gpu_close(g);
	ok(kj_gpu_open(99, &g, &err) != 0 && g == NULL, "opening a device that is not there fails");
	return done_testing();
}
