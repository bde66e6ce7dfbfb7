/*
 * CPU kernels of table E (src/ops/table_e.h), written once over `real` and
 * compiled twice: cpu64_e.c (the fp64 oracle) and cpu32_e.c (the f32 eager
 * baseline of the CPU track). The including file defines real, KJ_FN(name),
 * KJ_SQRT, KJ_LOG, KJ_COS, KJ_SIN for real and KJ_TWO_PI (2 pi as a real).
 * rand_like's values are multiples of 2^-24 below 1, exact in both, so the
 * two builds give the same bits. randn_like computes each Box-Muller pair
 * once per block (its cosine and sine are elements 2p and 2p + 1), with the
 * angle first reduced exactly by quarter turns (table_e.h's
 * kje_quarter_turns), so cos and sin see |2 pi t| <= pi / 4: the oracle's
 * value is the documented one to double rounding, the f32 baseline's within
 * ~1e-6 of it. Comparisons convert both operands to their promoted
 * dtype (kj_round_to) before comparing, so a literal meets an f32 tensor as
 * an f32 value in both builds. Nothing here allocates. No include guard: each
 * translation unit includes this once.
 */
#if !defined(KJ_FN) || !defined(KJ_COS) || !defined(KJ_SIN) || !defined(KJ_TWO_PI)
#error "define real, KJ_FN, KJ_SQRT, KJ_LOG, KJ_COS, KJ_SIN and KJ_TWO_PI before random_impl.h"
#endif

#include "kjudge/exec.h"

int KJ_FN(rand_like)(const kj_bnode *n, const real *const *in, real *out, char *msg,
		     size_t msglen)
{
	uint64_t seed = (uint64_t)kjo_attr_i(n, KJE_RAND_SEED, 0);
	uint64_t off = (uint64_t)kjo_attr_i(n, KJE_RAND_OFFSET, 0);
	int64_t total = kjo_numel(&n->out.shape);
	(void)in;
	(void)msg;
	(void)msglen;
	for (int64_t i = 0; i < total; i += 4) {
		uint32_t w[4];
		kje_rand_block(seed, off + (uint64_t)(i >> 2), w);
		for (int64_t k = 0; k < 4 && i + k < total; k++)
			out[i + k] = (real)(w[k] >> 8) * (real)KJE_2M24;
	}
	return 0;
}

/* *c = cos(2 pi u2) and *s = sin(2 pi u2) for u2 = m2 * 2^-24. */
static void sincos_2pi(uint32_t m2, real *s, real *c)
{
	int q;
	int32_t t;
	real th, ct, st;
	kje_quarter_turns(m2, &q, &t);
	th = (real)KJ_TWO_PI * ((real)t * (real)KJE_2M24);
	ct = KJ_COS(th);
	st = KJ_SIN(th);
	switch (q & 3) {
	case 0:
		*c = ct;
		*s = st;
		break;
	case 1:
		*c = -st;
		*s = ct;
		break;
	case 2:
		*c = -ct;
		*s = -st;
		break;
	default:
		*c = st;
		*s = -ct;
		break;
	}
}

int KJ_FN(randn_like)(const kj_bnode *n, const real *const *in, real *out, char *msg,
		      size_t msglen)
{
	uint64_t seed = (uint64_t)kjo_attr_i(n, KJE_RAND_SEED, 0);
	uint64_t off = (uint64_t)kjo_attr_i(n, KJE_RAND_OFFSET, 0);
	int64_t total = kjo_numel(&n->out.shape);
	(void)in;
	(void)msg;
	(void)msglen;
	for (int64_t i = 0; i < total; i += 4) {
		uint32_t w[4];
		real v[4];
		kje_rand_block(seed, off + (uint64_t)(i >> 2), w);
		for (int p = 0; p < 2 && i + 2 * p < total; p++) {
			uint32_t m1, m2;
			real r, s, c;
			kje_randn_pair(w, p, &m1, &m2);
			r = KJ_SQRT((real)-2 * KJ_LOG((real)m1 * (real)KJE_2M24));
			sincos_2pi(m2, &s, &c);
			v[2 * p] = r * c;
			v[2 * p + 1] = r * s;
		}
		for (int64_t k = 0; k < 4 && i + k < total; k++)
			out[i + k] = v[k];
	}
	return 0;
}

static int compare(const kj_bnode *n, const real *const *in, real *out, int kind)
{
	const kj_shape *os = &n->out.shape;
	kj_dtype dt = kj_promote(&n->in[0], &n->in[1]);
	int64_t sa[KJ_MAX_RANK], sb[KJ_MAX_RANK], c[KJ_MAX_RANK] = {0};
	int64_t total = kjo_numel(os), oa = 0, ob = 0;
	kjo_bcast_strides(&n->in[0].shape, os, sa);
	kjo_bcast_strides(&n->in[1].shape, os, sb);
	for (int64_t i = 0; i < total; i++) {
		double a = kj_round_to(dt, (double)in[0][oa]), b = kj_round_to(dt, (double)in[1][ob]);
		out[i] = (real)kje_compare(kind, a, b);
		/* next coordinate, offsets updated incrementally */
		for (int d = os->rank - 1; d >= 0; d--) {
			oa += sa[d];
			ob += sb[d];
			if (++c[d] < os->d[d])
				break;
			oa -= sa[d] * os->d[d];
			ob -= sb[d] * os->d[d];
			c[d] = 0;
		}
	}
	return 0;
}

#define KJE_CMP(name, kind) \
	int KJ_FN(name)(const kj_bnode *n, const real *const *in, real *out, char *msg, \
			size_t msglen) \
	{ \
		(void)msg; \
		(void)msglen; \
		return compare(n, in, out, kind); \
	}
KJE_CMP(less, KJE_LT)
KJE_CMP(less_equal, KJE_LE)
KJE_CMP(greater, KJE_GT)
KJE_CMP(greater_equal, KJE_GE)
#undef KJE_CMP
