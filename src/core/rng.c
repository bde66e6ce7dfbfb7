/*
 * Counter-based inputs: see include/kjudge/rng.h.  The arithmetic lives in
 * rng_impl.h, shared with the GPU; this file is its C face and the seed
 * schedule.
 */
#include "kjudge/rng.h"

#include "core/rng_impl.h"

_Static_assert(KJ_RI_NORMAL == KJ_DIST_NORMAL && KJ_RI_UNIFORM == KJ_DIST_UNIFORM &&
		       KJ_RI_RANDINT == KJ_DIST_RANDINT && KJ_RI_KAIMING == KJ_DIST_KAIMING &&
		       KJ_RI_ONES == KJ_DIST_ONES && KJ_RI_ZEROS == KJ_DIST_ZEROS &&
		       KJ_RI_SPD == KJ_DIST_SPD,
	       "rng_impl.h kinds must match kj_dist_kind");

void kj_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4])
{
	kj_ri_philox(ctr, key, out);
}

const char *kj_dist_name(kj_dist_kind k)
{
	static const char *const names[KJ_DIST_COUNT] = {
		[KJ_DIST_NORMAL] = "normal", [KJ_DIST_UNIFORM] = "uniform",
		[KJ_DIST_RANDINT] = "randint", [KJ_DIST_KAIMING] = "kaiming",
		[KJ_DIST_ONES] = "ones", [KJ_DIST_ZEROS] = "zeros", [KJ_DIST_SPD] = "spd",
	};
	if ((int)k < 0 || k >= KJ_DIST_COUNT)
		return "?";
	return names[k];
}

double kj_gen_value(const kj_dist *d, const kj_outliers *outl, uint64_t seed,
		    uint32_t tensor_id, uint64_t index)
{
	double prob = 0.0, scale = 1.0;
	if (outl && outl->prob > 0.0) {
		prob = outl->prob;
		scale = outl->scale;
	}
	return kj_ri_value((int)d->kind, d->a, d->b, prob, scale, seed, tensor_id, index);
}

/* Outliers go to float tensors only: an integer tensor scaled by 50 would
 * only change its range, not test a kernel's numerics. */
void kj_gen_fill(void *buf, kj_dtype t, size_t n, const kj_dist *d,
		 const kj_outliers *outl, uint64_t seed, uint32_t tensor_id)
{
	size_t i;
	if (!kj_dtype_is_float(t))
		outl = NULL;
	for (i = 0; i < n; i++)
		kj_store(t, buf, i, kj_gen_value(d, outl, seed, tensor_id, i));
}

/* SplitMix64 (Steele, Lea, Flood 2014): one step of the generator from
 * state x, i.e. the output mix of x + 0x9E3779B97F4A7C15. */
uint64_t kj_splitmix64(uint64_t x)
{
	uint64_t z = x + 0x9E3779B97F4A7C15ull;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* kj_splitmix64(base ^ (0x9E3779B97F4A7C15 * (k + 1))), k + 1 taken modulo
 * 2^64: the odd multiplier spreads neighbouring k over all 64 bits before the
 * mix, so seeds of neighbouring bases do not collide for small k. */
uint64_t kj_seed_for(uint64_t base, int k)
{
	uint64_t k1 = (uint64_t)(int64_t)k + 1;
	return kj_splitmix64(base ^ (0x9E3779B97F4A7C15ull * k1));
}

kj_seed_flavour kj_seed_flavour_for(int k)
{
	static const kj_seed_flavour cycle[5] = {
		KJ_SEED_DECLARED, KJ_SEED_OUTLIERS, KJ_SEED_UNIFORM, KJ_SEED_DECLARED, KJ_SEED_OUTLIERS,
	};
	return cycle[((k % 5) + 5) % 5];
}

const char *kj_seed_flavour_name(kj_seed_flavour f)
{
	switch (f) {
	case KJ_SEED_DECLARED:
		return "declared";
	case KJ_SEED_UNIFORM:
		return "uniform";
	case KJ_SEED_OUTLIERS:
		return "outliers";
	}
	return "?";
}

double kj_rng_log(double x)
{
	return kj_ri_log(x);
}

double kj_rng_cos2pi(double u)
{
	return kj_ri_cos2pi(u);
}
