/*
 * Table E (src/ops/table_e.c): rand_like's exact values and the comparisons.
 * rand_like is checked against Random123's published Philox4x32-10
 * known-answer vector (counter 0, key 0) end to end, and against a second
 * Philox written here from the definition (round by round, with its own
 * constants) at chosen positions: odd sizes, a counter that carries into its
 * high word, a 64-bit seed. Both kernel builds (fp64 oracle, f32 baseline)
 * must give the same bits. randn_like: known answers computed outside
 * kjudge, the oracle against Box-Muller on the test's Philox, the f32
 * baseline within 2e-6, odd tails, offset, mean and variance.
 * Comparisons: values, NaN, broadcasting, and the conversion of a literal to
 * the promoted dtype.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kjudge/dtype.h"
#include "ops/table_e.h"
#include "ops_testlib.h"

static const kj_op *find_e(const char *name)
{
	return kjt_find(kj_ops_e, kj_ops_e_count, name);
}

/* Philox4x32-10 from its definition (Salmon et al., SC'11): per round,
 * (L0, R0, L1, R1) -> (hi(M1 * L1) ^ R0 ^ k0, lo(M1 * L1), hi(M0 * L0) ^ R1 ^ k1,
 * lo(M0 * L0)) with M0 = 0xD2511F53, M1 = 0xCD9E8D57; the key gets the Weyl
 * increments after each round. */
static void ref_philox(uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3, uint32_t k0,
		       uint32_t k1, uint32_t out[4])
{
	const uint64_t M0 = 0xD2511F53u, M1 = 0xCD9E8D57u;
	for (int round = 1; round <= 10; round++) {
		uint64_t p0 = M0 * c0, p1 = M1 * c2;
		uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0;
		uint32_t n1 = (uint32_t)(p1 & 0xFFFFFFFFu);
		uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
		uint32_t n3 = (uint32_t)(p0 & 0xFFFFFFFFu);
		c0 = n0;
		c1 = n1;
		c2 = n2;
		c3 = n3;
		k0 += 0x9E3779B9u;
		k1 += 0xBB67AE85u;
	}
	out[0] = c0;
	out[1] = c1;
	out[2] = c2;
	out[3] = c3;
}

/* The documented value of element i of rand_like(seed, offset). */
static double ref_rand(uint64_t seed, uint64_t offset, uint64_t i)
{
	uint64_t ctr = offset + i / 4;
	uint32_t w[4];
	ref_philox((uint32_t)ctr, (uint32_t)(ctr >> 32), 0, 0, (uint32_t)seed,
		   (uint32_t)(seed >> 32), w);
	return (double)(w[i % 4] >> 8) / 16777216.0;
}

/* The documented value of element i of randn_like(seed, offset): block i / 4,
 * pair (i / 2) % 2, cosine for even i and sine for odd i, without any
 * argument reduction. */
static double ref_randn(uint64_t seed, uint64_t offset, uint64_t i)
{
	uint64_t ctr = offset + i / 4, p = (i / 2) % 2;
	uint32_t w[4];
	double u1, u2, r, th;
	ref_philox((uint32_t)ctr, (uint32_t)(ctr >> 32), 0, 0, (uint32_t)seed,
		   (uint32_t)(seed >> 32), w);
	u1 = (double)((w[2 * p] >> 8) + 1) / 16777216.0;
	u2 = (double)(w[2 * p + 1] >> 8) / 16777216.0;
	r = sqrt(-2.0 * log(u1));
	th = 2.0 * 3.14159265358979323846 * u2;
	return i % 2 ? r * sin(th) : r * cos(th);
}

static void rand_node_op(kj_bnode *n, const char *op, int rank, const int64_t *d, kj_dtype dt,
			 int64_t seed, int64_t offset, int set_offset)
{
	kjt_node(n, find_e(op), 1);
	tin(n, 0, dt, rank, d);
	attr_i(n, KJE_RAND_SEED, seed);
	if (set_offset)
		attr_i(n, KJE_RAND_OFFSET, offset);
}

static void rand_node(kj_bnode *n, int rank, const int64_t *d, kj_dtype dt, int64_t seed,
		      int64_t offset, int set_offset)
{
	rand_node_op(n, "rand_like", rank, d, dt, seed, offset, set_offset);
}

static void test_table(void)
{
	int complete = 1;
	is_int(kj_ops_e_count, 6, "table E has 6 ops");
	for (int i = 0; i < kj_ops_e_count; i++) {
		const kj_op *op = &kj_ops_e[i];
		complete &= op->doc && op->infer && op->cost && op->cpu64 && op->cpu32 && op->params &&
			    op->nparams > 0;
	}
	ok(complete, "every op has doc, params, infer, cost and both kernels");
	ok(kj_op_find("rand_like") && kj_op_find("rand_like")->cpu64 == kj_cpu64_rand_like,
	   "the registry finds rand_like");
	ok(kj_op_find("greater_equal") != NULL, "the registry has the comparisons");
}

static void test_kat(void)
{
	static const uint32_t kat[4] = {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u};
	uint32_t w[4], r[4];
	kj_bnode n;
	int64_t d[1] = {4};
	double y[4];
	const double *in[1] = {y};
	int same = 1;

	ref_philox(0, 0, 0, 0, 0, 0, r);
	ok(!memcmp(r, kat, sizeof r), "the test's Philox meets Random123's KAT (ctr 0, key 0)");
	kje_rand_block(0, 0, w);
	ok(!memcmp(w, kat, sizeof w),
	   "kje_rand_block(seed 0, block 0) = 6627e8d5 e169c58d bc57ac4c 9b00dbd8");
	ref_philox(0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, r);
	ok(r[0] == 0x408f276du && r[1] == 0x41c83b0eu && r[2] == 0xa20bc7c6u && r[3] == 0x6d5451fdu,
	   "the test's Philox meets Random123's KAT (all ones)");
	rand_node(&n, 1, d, KJ_F32, 0, 0, 0);
	ok(run64(&n, in, y) == 0, "rand_like(seed=0) of 4 elements runs");
	for (int k = 0; k < 4; k++)
		same &= y[k] == (double)(kat[k] >> 8) * KJE_2M24;
	ok(same, "rand_like(seed=0)[k] = (KAT word k >> 8) * 2^-24");
	is_near(y[0], 0x6627e8 / 16777216.0, 0, "element 0 is 0x6627e8 / 2^24 = %.9f", y[0]);
}

/* rand_like over `cnt` elements: both kernels against ref_rand, bit for bit. */
static void check_values(const char *what, int rank, const int64_t *d, kj_dtype dt, int64_t seed,
			 int64_t offset)
{
	kj_bnode n;
	int64_t cnt = 1;
	double *y64, *x;
	float *y32, *xf;
	const double *in64[1];
	const float *in32[1];
	int bad64 = -1, bad32 = -1;

	for (int i = 0; i < rank; i++)
		cnt *= d[i];
	y64 = calloc((size_t)cnt, sizeof *y64);
	x = calloc((size_t)cnt, sizeof *x);
	y32 = calloc((size_t)cnt, sizeof *y32);
	xf = calloc((size_t)cnt, sizeof *xf);
	in64[0] = x;
	in32[0] = xf;
	rand_node(&n, rank, d, dt, seed, offset, 1);
	ok(run64(&n, in64, y64) == 0 && n.op->cpu32(&n, in32, y32, msg, KJT_MSGLEN) == 0,
	   "%s: both kernels run", what);
	for (int64_t i = 0; i < cnt; i++) {
		double want = ref_rand((uint64_t)seed, (uint64_t)offset, (uint64_t)i);
		if (bad64 < 0 && y64[i] != want)
			bad64 = (int)i;
		if (bad32 < 0 && (double)y32[i] != want)
			bad32 = (int)i;
	}
	if (bad64 >= 0)
		printf("#   oracle [%d] = %.17g, want %.17g\n", bad64, y64[bad64],
		       ref_rand((uint64_t)seed, (uint64_t)offset, (uint64_t)bad64));
	ok(bad64 < 0, "%s: the oracle gives the documented values at all %lld elements", what,
	   (long long)cnt);
	ok(bad32 < 0, "%s: the f32 baseline gives the same bits", what);
	free(y64);
	free(x);
	free(y32);
	free(xf);
}

static void test_values(void)
{
	int64_t d1[2] = {3, 7}, d2[3] = {2, 5, 13}, d3[1] = {1}, d4[2] = {17, 4097};
	kj_bnode n;
	double y[9], y2[9], x[9] = {0};
	const double *in[1] = {x};
	int64_t d9[1] = {9};
	int min_ok = 1, max_ok = 1, differ = 0;

	check_values("seed 1234, [3, 7]", 2, d1, KJ_F32, 1234, 0);
	check_values("bf16 input, [2, 5, 13]", 3, d2, KJ_BF16, 20240607, 0);
	check_values("one element", 1, d3, KJ_F32, 7, 1000003);
	/* counter low word 0xFFFFFFFE: blocks 0, 1, 2 of the elements cross into c1 = 1 */
	check_values("counter carry into the high word", 2, d1, KJ_F32, 99, 0xFFFFFFFEll);
	check_values("64-bit seed", 2, d1, KJ_F32, (int64_t)0x123456789ABCDEFll, 5);
	check_values("17 x 4097", 2, d4, KJ_F32, 1234, 0);

	/* offset k shifts the stream by 4k elements */
	rand_node(&n, 1, d9, KJ_F32, 42, 0, 1);
	run64(&n, in, y);
	rand_node(&n, 1, d9, KJ_F32, 42, 1, 1);
	run64(&n, in, y2);
	ok(y2[0] == y[4] && y2[4] == y[8], "offset=1 starts at element 4 of offset=0");
	rand_node(&n, 1, d9, KJ_F32, 43, 0, 1);
	run64(&n, in, y2);
	for (int i = 0; i < 9; i++) {
		min_ok &= y[i] >= 0;
		max_ok &= y[i] < 1;
		differ += y[i] != y2[i];
	}
	ok(min_ok && max_ok, "values lie in [0, 1)");
	ok(differ >= 8, "seed 43 differs from seed 42 (%d of 9 elements)", differ);
	/* the default offset is 0 */
	rand_node(&n, 1, d9, KJ_F32, 42, 0, 0);
	run64(&n, in, y2);
	ok(!memcmp(y, y2, sizeof y), "offset defaults to 0");
}

static void test_rand_infer(void)
{
	kj_bnode n;
	kj_cost c;
	int64_t d[2] = {3, 5};

	rand_node(&n, 2, d, KJ_BF16, 1, 0, 0);
	ok(infer(&n) == 0 && n.out.dtype == KJ_F32 && shape_is(&n.out, 2, d),
	   "rand_like of a bf16 [3, 5] is f32 [3, 5]");
	n.op->cost(&n, &c);
	is_near(c.min_bytes, 60, 0, "rand_like moves only its output (60 bytes)");
	is_near(c.flops, 15, 0, "rand_like counts 1 flop per element");
	rand_node(&n, 2, d, KJ_F32, -1, 0, 0);
	ok(infer(&n) == -1, "a negative seed is refused");
	like(got(), "rand_like: seed -1 is negative", "message names the seed");
	rand_node(&n, 2, d, KJ_F32, 1, -4, 1);
	ok(infer(&n) == -1, "a negative offset is refused");
	like(got(), "rand_like: offset -4 is negative", "message names the offset");
}

/* Known answers of randn_like, computed outside kjudge from docs/ops.md with
 * Python (its own Philox, mpmath at 30 digits; math.log/cos/sin agree to
 * 2e-15):
 *   w = philox(counter=i // 4, key=seed); p = i % 4 // 2
 *   u1 = ((w[2p] >> 8) + 1) / 2**24; u2 = (w[2p + 1] >> 8) / 2**24
 *   sqrt(-2 log u1) * (cos if i % 2 == 0 else sin)(2 pi u2)
 * Seed 0, block 0 is Random123's KAT (6627e8d5 e169c58d bc57ac4c 9b00dbd8):
 * pair 0: u1 = 0x6627e9 / 2^24 = 0.399046480656, u2 = 0xe169c5 / 2^24 =
 * 0.880520164967, r = 1.35549059459, cos = 0.731202030545, sin =
 * -0.682160971126; pair 1: u1 = 0xbc57ad / 2^24 = 0.735712826252, u2 =
 * 0x9b00db / 2^24 = 0.605481803417, r = 0.783473570858, cos =
 * -0.788295965502, sin = -0.615296246351. */
static const double kat_randn_s0[8] = {
	0.991137475145897,  -0.924662780354433, -0.617609054984854, -0.482068347264496,
	-0.153638112438845, 0.180825876739231,  0.831735126596866,  0.197439592032630,
};
/* seed 31337 (tasks/level1/gaussian_noise.kt), offset 0 */
static const double kat_randn_s31337[8] = {
	0.164530674775669,  0.601324357255327,  -0.552888138388379, -0.985005977472642,
	0.568819410136727,  -0.603509734415319, -1.300089064489619, -1.133642059090130,
};
/* seed 3, offset 5 (tests/gpu/test_gpu_ops.c's randn_like_odd) */
static const double kat_randn_s3o5[8] = {
	0.542327050805971,  0.964014868120352,  -0.605340968872443, -0.058052826890751,
	-0.413754881545844, 0.395276672940534,  -0.748610705808767, -1.031177692941967,
};

/* Elements 0..n-1 of randn_like(seed, offset) of an f32[n] from both builds
 * against want[0..n-1]: the oracle within 1e-14, the f32 baseline within
 * 2e-6. */
static void randn_kat(int64_t seed, int64_t offset, int64_t cnt, const double *want,
		      const char *what)
{
	double x[8] = {0}, y64[8], worst64 = 0, worst32 = 0;
	float xf[8] = {0}, y32[8];
	const double *in64[1] = {x};
	const float *in32[1] = {xf};
	int64_t d[1] = {cnt};
	kj_bnode n;
	rand_node_op(&n, "randn_like", 1, d, KJ_F32, seed, offset, offset != 0);
	ok(run64(&n, in64, y64) == 0 && n.op->cpu32(&n, in32, y32, msg, KJT_MSGLEN) == 0,
	   "randn_like %s, f32[%lld] runs", what, (long long)cnt);
	for (int64_t i = 0; i < cnt; i++) {
		double e64 = fabs(y64[i] - want[i]), e32 = fabs((double)y32[i] - want[i]);
		worst64 = e64 > worst64 ? e64 : worst64;
		worst32 = e32 > worst32 ? e32 : worst32;
	}
	ok(worst64 < 1e-14, "randn_like %s, f32[%lld]: the oracle meets the known answers "
	   "(worst %.3g)", what, (long long)cnt, worst64);
	ok(worst32 < 2e-6, "randn_like %s, f32[%lld]: the f32 baseline within 2e-6 (worst %.3g)",
	   what, (long long)cnt, worst32);
}

static void test_randn(void)
{
	int64_t d[2] = {17, 4097}, cnt = 17 * 4097;
	double *y64 = calloc((size_t)cnt, sizeof *y64), *x = calloc((size_t)cnt, sizeof *x);
	float *y32 = calloc((size_t)cnt, sizeof *y32), *xf = calloc((size_t)cnt, sizeof *xf);
	const double *in64[1] = {x};
	const float *in32[1] = {xf};
	double worst_ref = 0, worst32 = 0, mean = 0, var = 0, cross = 0;
	int64_t npair = 0;
	kj_bnode n;

	randn_kat(0, 0, 8, kat_randn_s0, "seed 0");
	randn_kat(31337, 0, 8, kat_randn_s31337, "seed 31337");
	randn_kat(3, 5, 8, kat_randn_s3o5, "seed 3 offset 5");
	/* tails of every length mod 4: a partial block keeps the whole block's
	 * values; offset=1 continues offset=0 at element 4 */
	for (int64_t k = 1; k <= 7; k++)
		randn_kat(0, 0, k, kat_randn_s0, "seed 0 (tail)");
	randn_kat(0, 1, 4, kat_randn_s0 + 4, "offset=1 (element 4 on)");

	rand_node_op(&n, "randn_like", 2, d, KJ_BF16, 31337, 12, 1);
	ok(run64(&n, in64, y64) == 0 && n.op->cpu32(&n, in32, y32, msg, KJT_MSGLEN) == 0 &&
	   n.out.dtype == KJ_F32, "randn_like of a bf16 [17, 4097] runs, f32");
	for (int64_t i = 0; i < cnt; i++) {
		double e = fabs(y64[i] - ref_randn(31337, 12, (uint64_t)i));
		double e32 = fabs((double)y32[i] - y64[i]);
		worst_ref = e > worst_ref ? e : worst_ref;
		worst32 = e32 > worst32 ? e32 : worst32;
		mean += y64[i];
	}
	mean /= (double)cnt;
	for (int64_t i = 0; i < cnt; i++)
		var += (y64[i] - mean) * (y64[i] - mean);
	var /= (double)(cnt - 1);
	/* the cosine and sine of one pair are independent standard normals */
	for (int64_t i = 0; i + 1 < cnt; i += 2, npair++)
		cross += y64[i] * y64[i + 1];
	cross /= (double)npair;
	ok(worst_ref < 1e-12, "the oracle gives the documented values (worst %.3g)", worst_ref);
	ok(worst32 < 2e-6, "the f32 baseline is within 2e-6 of the oracle (worst %.3g)", worst32);
	ok(fabs(mean) < 0.02 && fabs(var - 1) < 0.03, "mean %.4f and variance %.4f of 69649 draws",
	   mean, var);
	ok(fabs(cross) < 0.02, "a pair's cosine and sine elements are uncorrelated (%.4f)", cross);
	rand_node_op(&n, "randn_like", 1, d, KJ_F32, -3, 0, 0);
	ok(infer(&n) == -1, "randn_like refuses a negative seed");
	like(got(), "randn_like: seed -3 is negative", "the message names the op");
	free(y64);
	free(x);
	free(y32);
	free(xf);
}

static void cmp_node(kj_bnode *n, const char *op, kj_dtype da, int ra, const int64_t *a,
		     kj_dtype db, int rb, const int64_t *b)
{
	kjt_node(n, find_e(op), 2);
	tin(n, 0, da, ra, a);
	tin(n, 1, db, rb, b);
}

static void test_compare(void)
{
	kj_bnode n;
	kj_cost c;
	int64_t d23[2] = {2, 3}, d3[1] = {3}, d4[1] = {4};
	double a[6] = {1, 2, 3, NAN, -1, 0.5}, b[3] = {2, 2, NAN}, y[6];
	const double *in[2] = {a, b};
	static const char *names[4] = {"less", "less_equal", "greater", "greater_equal"};
	static const double want[4][6] = {
		{1, 0, 0, 0, 1, 0}, {1, 1, 0, 0, 1, 0}, {0, 0, 0, 0, 0, 0}, {0, 1, 0, 0, 0, 0}};
	double one = 0.1, lit = 0.1, bfv = 0.10009765625, r;
	const double *in1[2] = {&one, &lit};

	for (int k = 0; k < 4; k++) {
		cmp_node(&n, names[k], KJ_F32, 2, d23, KJ_F32, 1, d3);
		ok(run64(&n, in, y) == 0 && n.out.dtype == KJ_BOOL && shape_is(&n.out, 2, d23),
		   "%s of [2, 3] and [3] is bool [2, 3]", names[k]);
		ok(all_near(y, want[k], 6, 0), "%s: values, broadcasting, NaN gives false", names[k]);
	}
	cmp_node(&n, "less", KJ_F32, 2, d23, KJ_F32, 1, d4);
	ok(infer(&n) == -1, "less of [2, 3] and [4] is refused");
	like(got(), "less: shapes", "the message names the op and the shapes");
	cmp_node(&n, "less", KJ_F32, 2, d23, KJ_F32, 1, d3);
	infer(&n);
	n.op->cost(&n, &c);
	is_near(c.min_bytes, 24 + 12 + 6, 0, "less moves both operands and a bool output");

	/* an f32 element 0.1f against the literal 0.1: equal once both are f32 */
	one = (double)0.1f;
	cmp_node(&n, "less_equal", KJ_F32, 0, d3, KJ_F32, 0, d3);
	n.in[1].weak = 1;
	ok(run64(&n, in1, &r) == 0 && r == 1, "less_equal(f32 0.1f, literal 0.1) is true (literal as f32)");
	cmp_node(&n, "less", KJ_F32, 0, d3, KJ_F32, 0, d3);
	n.in[1].weak = 1;
	ok(run64(&n, in1, &r) == 0 && r == 0, "less(f32 0.1f, literal 0.1) is false");
	/* a bf16 element meets the literal as bf16 (0.1 rounds to 0.10009765625) */
	one = bfv;
	cmp_node(&n, "greater_equal", KJ_BF16, 0, d3, KJ_F32, 0, d3);
	n.in[1].weak = 1;
	ok(run64(&n, in1, &r) == 0 && r == 1, "greater_equal(bf16 0.10009765625, literal 0.1) is true in bf16");
	cmp_node(&n, "greater_equal", KJ_F32, 0, d3, KJ_F32, 0, d3);
	n.in[1].weak = 1;
	one = (double)nextafterf(0.1f, 0.0f);
	ok(run64(&n, in1, &r) == 0 && r == 0, "greater_equal(the f32 below 0.1f, literal 0.1) is false");
}

int main(void)
{
	test_table();
	test_kat();
	test_values();
	test_rand_infer();
	test_randn();
	test_compare();
	return done_testing();
}
