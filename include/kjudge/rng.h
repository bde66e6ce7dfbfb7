/*
 * Counter-based inputs.  Every element of every generated tensor is a pure
 * function of (seed, tensor id, element index) through Philox4x32-10, so the
 * CPU and the GPU produce bit-identical inputs without sharing state, any
 * element can be regenerated alone, and no generator state ever reaches a
 * candidate.  The transforms (uniform, Box-Muller normal) use only IEEE
 * +,-,*,/ and sqrt in double precision with our own log/cos polynomials, so
 * they round identically on any IEEE machine compiled without contraction
 * (-ffp-contract=off here, -fmad=false on the GPU).
 *
 * Counter layout: ctr = {index lo, index hi, tensor id, 0}, key = {seed lo,
 * seed hi}.  One Philox block per element: words 0,1 make the uniform/normal
 * draw, word 2 decides an outlier, word 3 its sign.
 */
#ifndef KJUDGE_RNG_H
#define KJUDGE_RNG_H

#include <stddef.h>
#include <stdint.h>

#include "kjudge/dtype.h"

void kj_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);

typedef enum kj_dist_kind {
	KJ_DIST_NORMAL = 0, /* a = mean, b = std (default 0, 1) */
	KJ_DIST_UNIFORM,    /* [a, b) (default [-1, 1)) */
	KJ_DIST_RANDINT,    /* integers in [a, b) */
	KJ_DIST_KAIMING,    /* uniform(-a, a), a = 1/sqrt(fan_in), as nn.Linear/Conv init */
	KJ_DIST_ONES,
	KJ_DIST_ZEROS,
	KJ_DIST_SPD,        /* symmetric, diagonally dominant over the last two dims (a = n):
	                       off-diagonal uniform(-1, 1), diagonal n + uniform(0, 1); no outliers */
	KJ_DIST_COUNT
} kj_dist_kind;

typedef struct kj_dist {
	kj_dist_kind kind;
	double a, b;
} kj_dist;

const char *kj_dist_name(kj_dist_kind k);

/* Outliers as KernelBench-X injects them: with probability prob an element is
 * multiplied by scale (0.001 and 50 by default), for float tensors only. */
typedef struct kj_outliers {
	double prob;
	double scale;
} kj_outliers;

/* The double value of element `index` (before storing into a dtype).
 * outl may be NULL (no outliers). */
double kj_gen_value(const kj_dist *d, const kj_outliers *outl, uint64_t seed,
		    uint32_t tensor_id, uint64_t index);

/* Fills n elements of buf (dtype t) with kj_store(t, buf, i, kj_gen_value(...)). */
void kj_gen_fill(void *buf, kj_dtype t, size_t n, const kj_dist *d,
		 const kj_outliers *outl, uint64_t seed, uint32_t tensor_id);

/* The seed schedule of the correctness stage.  Seed k (0-based) of a run with
 * base seed `base` is a mix of base and k (splitmix64); its flavour decides the
 * draw: declared distribution, uniform override, or declared + outliers. */
typedef enum kj_seed_flavour {
	KJ_SEED_DECLARED = 0, /* each input as its task declares */
	KJ_SEED_UNIFORM,      /* float inputs declared normal drawn uniform(-1,1) */
	KJ_SEED_OUTLIERS,     /* declared, plus outliers on float inputs */
} kj_seed_flavour;

uint64_t kj_seed_for(uint64_t base, int k);
kj_seed_flavour kj_seed_flavour_for(int k); /* 0 declared, 1 outliers, 2 uniform, 3 declared, 4 outliers, then repeat */
const char *kj_seed_flavour_name(kj_seed_flavour f);
uint64_t kj_splitmix64(uint64_t x);

/* Portable double-precision log and cos(2*pi*u) used by the normal transform;
 * exposed for tests (accuracy vs libm) and for the GPU copy of this code. */
double kj_rng_log(double x);
double kj_rng_cos2pi(double u);

#endif
