/*
 * CPU kernels of table D (src/ops/table_d.h), written once over `real` and
 * compiled twice: cpu64_d.c (the fp64 oracle: every value and intermediate
 * in double) and cpu32_d.c (the f32 eager baseline of the CPU track).  The
 * including file defines real, KJ_FN(name), and the libm functions KJ_SQRT,
 * KJ_EXP, KJ_LOG, KJ_POW, KJ_FABS for real.  Integer operands (indices,
 * conditions) arrive as real values.  Sums over long runs use a blocked sum
 * (a partial per 1024 terms), as the other tables do.  Only sdpa allocates
 * (one row of scores, freed before it returns).
 * No include guard: each translation unit includes this exactly once.
 */
#if !defined(KJ_FN) || !defined(KJ_POW)
#error "define real, KJ_FN, KJ_SQRT, KJ_EXP, KJ_LOG, KJ_POW and KJ_FABS before misc_impl.h"
#endif

#include <stdlib.h>

#define MSUM_BLOCK 1024
typedef struct msum {
	real total, part;
	int cnt;
} msum;

static inline void msum_init(msum *s)
{
	s->total = 0;
	s->part = 0;
	s->cnt = 0;
}

static inline void msum_add(msum *s, real v)
{
	s->part += v;
	if (++s->cnt == MSUM_BLOCK) {
		s->total += s->part;
		s->part = 0;
		s->cnt = 0;
	}
}

static inline real msum_get(const msum *s)
{
	return s->total + s->part;
}

#define UNUSED_MSG \
	(void)msg; \
	(void)msglen

/* ---- sdpa ---- */

int KJ_FN(sdpa)(const kj_bnode *n, const real *const *in, real *out, char *msg, size_t msglen)
{
	kjm_attn g;
	real *p;
	kjm_attn_geom(n, &g);
	p = malloc((size_t)g.S * sizeof(real));
	if (!p) {
		snprintf(msg, msglen, "%s: out of memory for %lld scores", n->op->name, (long long)g.S);
		return -1;
	}
	for (int64_t b = 0; b < g.batch; b++) {
		const real *q = in[0] + b * g.L * g.E, *k = in[1] + b * g.S * g.E;
		const real *v = in[2] + b * g.S * g.Ev;
		for (int64_t i = 0; i < g.L; i++) {
			int64_t lim = kjm_attn_keys(&g, i);
			real m = 0, *o = out + (b * g.L + i) * g.Ev;
			msum s;
			for (int64_t j = 0; j < lim; j++) {
				real d = 0;
				for (int64_t e = 0; e < g.E; e++)
					d += q[i * g.E + e] * k[j * g.E + e];
				p[j] = d * (real)g.scale;
				if (j == 0 || p[j] > m)
					m = p[j];
			}
			msum_init(&s);
			for (int64_t j = 0; j < lim; j++) {
				p[j] = KJ_EXP(p[j] - m);
				msum_add(&s, p[j]);
			}
			for (int64_t e = 0; e < g.Ev; e++) {
				real acc = 0;
				for (int64_t j = 0; j < lim; j++)
					acc += p[j] * v[j * g.Ev + e];
				o[e] = acc / msum_get(&s);
			}
		}
	}
	free(p);
	return 0;
}

/* ---- embedding ---- */

int KJ_FN(embedding)(const kj_bnode *n, const real *const *in, real *out, char *msg,
		     size_t msglen)
{
	int64_t cnt = kjo_numel(&n->in[0].shape), V = n->in[1].shape.d[0], D = n->in[1].shape.d[1];
	for (int64_t i = 0; i < cnt; i++) {
		double t = (double)in[0][i];
		if (!(t >= 0 && t < (double)V)) {
			snprintf(msg, msglen, "embedding: index %.17g out of range [0, %lld) at position %lld",
				 t, (long long)V, (long long)i);
			return -1;
		}
		memcpy(out + i * D, in[1] + (int64_t)t * D, (size_t)D * sizeof(real));
	}
	return 0;
}

/* ---- cat, narrow, pad, flip ---- */

int KJ_FN(cat)(const kj_bnode *n, const real *const *in, real *out, char *msg, size_t msglen)
{
	int dim = kjm_cat_dim(n);
	int64_t outer, len, inner, off = 0, total = n->out.shape.d[dim];
	UNUSED_MSG;
	kjo_split(&n->out.shape, dim, &outer, &len, &inner);
	for (int k = 0; k < n->nin; k++) {
		int64_t lk;
		if (!n->present[k])
			continue;
		lk = n->in[k].shape.d[dim];
		for (int64_t o = 0; o < outer; o++)
			memcpy(out + (o * total + off) * inner, in[k] + o * lk * inner,
			       (size_t)(lk * inner) * sizeof(real));
		off += lk;
	}
	return 0;
}

int KJ_FN(narrow)(const kj_bnode *n, const real *const *in, real *out, char *msg, size_t msglen)
{
	int dim;
	int64_t start, length, outer, len, inner;
	UNUSED_MSG;
	kjm_narrow(n, &dim, &start, &length);
	kjo_split(&n->in[0].shape, dim, &outer, &len, &inner);
	for (int64_t o = 0; o < outer; o++)
		memcpy(out + o * length * inner, in[0] + (o * len + start) * inner,
		       (size_t)(length * inner) * sizeof(real));
	return 0;
}

/* Visits every output element in row-major order with its coordinates. */
#define FOR_COORDS(shape, idx, c) \
	for (int64_t idx = 0, c[KJ_MAX_RANK] = {0}, total_ = kjo_numel(shape); idx < total_; \
	     idx++, coords_next(shape, c))

static inline void coords_next(const kj_shape *s, int64_t *c)
{
	for (int i = s->rank - 1; i >= 0; i--) {
		if (++c[i] < s->d[i])
			return;
		c[i] = 0;
	}
}

/* Row-major element strides of a dense shape. */
static inline void dense_strides(const kj_shape *s, int64_t st[KJ_MAX_RANK])
{
	int64_t m = 1;
	for (int i = s->rank - 1; i >= 0; i--) {
		st[i] = m;
		m *= s->d[i];
	}
}

int KJ_FN(pad)(const kj_bnode *n, const real *const *in, real *out, char *msg, size_t msglen)
{
	int64_t lo[KJ_MAX_RANK], hi[KJ_MAX_RANK], st[KJ_MAX_RANK];
	const kj_shape *xs = &n->in[0].shape;
	real value = (real)kjo_attr_f(n, 2, 0.0);
	UNUSED_MSG;
	kjm_pad(n, lo, hi);
	dense_strides(xs, st);
	FOR_COORDS(&n->out.shape, i, c) {
		int64_t off = 0;
		int inside = 1;
		for (int d = 0; d < xs->rank; d++) {
			int64_t s = c[d] - lo[d];
			inside &= s >= 0 && s < xs->d[d];
			off += s * st[d];
		}
		out[i] = inside ? in[0][off] : value;
	}
	return 0;
}

int KJ_FN(flip)(const kj_bnode *n, const real *const *in, real *out, char *msg, size_t msglen)
{
	int64_t st[KJ_MAX_RANK];
	const kj_shape *xs = &n->in[0].shape;
	unsigned m = kjm_flip_mask(n);
	UNUSED_MSG;
	dense_strides(xs, st);
	FOR_COORDS(xs, i, c) {
		int64_t off = 0;
		for (int d = 0; d < xs->rank; d++)
			off += ((m >> d) & 1 ? xs->d[d] - 1 - c[d] : c[d]) * st[d];
		out[i] = in[0][off];
	}
	return 0;
}

/* ---- where, masked_fill, triu, tril ---- */

int KJ_FN(where)(const kj_bnode *n, const real *const *in, real *out, char *msg, size_t msglen)
{
	int64_t s0[KJ_MAX_RANK], s1[KJ_MAX_RANK], s2[KJ_MAX_RANK];
	const kj_shape *os = &n->out.shape;
	UNUSED_MSG;
	kjo_bcast_strides(&n->in[0].shape, os, s0);
	kjo_bcast_strides(&n->in[1].shape, os, s1);
	kjo_bcast_strides(&n->in[2].shape, os, s2);
	FOR_COORDS(os, i, c) {
		int64_t o0 = 0, o1 = 0, o2 = 0;
		for (int d = 0; d < os->rank; d++) {
			o0 += c[d] * s0[d];
			o1 += c[d] * s1[d];
			o2 += c[d] * s2[d];
		}
		out[i] = in[0][o0] != 0 ? in[1][o1] : in[2][o2];
	}
	return 0;
}

int KJ_FN(masked_fill)(const kj_bnode *n, const real *const *in, real *out, char *msg,
		       size_t msglen)
{
	int64_t s1[KJ_MAX_RANK];
	const kj_shape *os = &n->out.shape;
	real value = (real)kjo_attr_f(n, 0, 0.0);
	UNUSED_MSG;
	kjo_bcast_strides(&n->in[1].shape, os, s1);
	FOR_COORDS(os, i, c) {
		int64_t o1 = 0;
		for (int d = 0; d < os->rank; d++)
			o1 += c[d] * s1[d];
		out[i] = in[1][o1] != 0 ? value : in[0][i];
	}
	return 0;
}

static void tri(const kj_bnode *n, const real *x, real *out, int upper)
{
	const kj_shape *s = &n->in[0].shape;
	int64_t R = s->d[s->rank - 2], C = s->d[s->rank - 1], mats = kjo_numel(s) / (R * C);
	int64_t diag = kjo_attr_i(n, 0, 0);
	for (int64_t b = 0; b < mats; b++)
		for (int64_t i = 0; i < R; i++)
			for (int64_t j = 0; j < C; j++) {
				int64_t k = (b * R + i) * C + j;
				int keep = upper ? j - i >= diag : j - i <= diag;
				out[k] = keep ? x[k] : 0;
			}
}

int KJ_FN(triu)(const kj_bnode *n, const real *const *in, real *out, char *msg, size_t msglen)
{
	UNUSED_MSG;
	tri(n, in[0], out, 1);
	return 0;
}

int KJ_FN(tril)(const kj_bnode *n, const real *const *in, real *out, char *msg, size_t msglen)
{
	UNUSED_MSG;
	tri(n, in[0], out, 0);
	return 0;
}

/* ---- cumprod ---- */

int KJ_FN(cumprod)(const kj_bnode *n, const real *const *in, real *out, char *msg, size_t msglen)
{
	int64_t outer, len, inner;
	UNUSED_MSG;
	kjo_split(&n->in[0].shape, kjm_dim(kjo_attr_i(n, 0, 0), n->in[0].shape.rank), &outer, &len,
		  &inner);
	for (int64_t o = 0; o < outer; o++)
		for (int64_t i = 0; i < inner; i++) {
			real acc = 1;
			for (int64_t j = 0; j < len; j++) {
				int64_t k = (o * len + j) * inner + i;
				acc *= in[0][k];
				out[k] = acc;
			}
		}
	return 0;
}

/* ---- batch_norm, group_norm, instance_norm ---- */

/* Mean and biased variance (two passes) of `cnt` runs of `run` elements
 * spaced `stride` apart starting at x. */
static void runs_stats(const real *x, int64_t cnt, int64_t run, int64_t stride, real *mean,
		       real *var)
{
	msum s;
	real m;
	msum_init(&s);
	for (int64_t r = 0; r < cnt; r++)
		for (int64_t j = 0; j < run; j++)
			msum_add(&s, x[r * stride + j]);
	m = msum_get(&s) / (real)(cnt * run);
	msum_init(&s);
	for (int64_t r = 0; r < cnt; r++)
		for (int64_t j = 0; j < run; j++) {
			real d = x[r * stride + j] - m;
			msum_add(&s, d * d);
		}
	*mean = m;
	*var = msum_get(&s) / (real)(cnt * run);
}

/* y = (x - mean) * invstd * w + b on one run of `run` elements. */
static void affine_run(const real *x, real *y, int64_t run, real mean, real invstd, const real *w,
		       const real *b, int64_t c)
{
	for (int64_t j = 0; j < run; j++) {
		real v = (x[j] - mean) * invstd;
		if (w)
			v *= w[c];
		if (b)
			v += b[c];
		y[j] = v;
	}
}

/* batch_norm and instance_norm: operands input, running_mean, running_var,
 * weight, bias; attrs (training | use_input_stats), momentum, eps.
 * per_instance: statistics per (n, c) instead of per c. */
static int bn_common(const kj_bnode *n, const real *const *in, real *out, int stats,
		     int per_instance)
{
	int64_t N, C, inner;
	const real *w = n->present[3] ? in[3] : NULL, *b = n->present[4] ? in[4] : NULL;
	real eps = (real)kjo_attr_f(n, 2, 1e-5);
	kjm_nc(&n->in[0].shape, &N, &C, &inner);
	for (int64_t c = 0; c < C; c++) {
		real mean = 0, var = 0;
		if (!stats) {
			mean = in[1][c];
			var = in[2][c];
		} else if (!per_instance) {
			runs_stats(in[0] + c * inner, N, inner, C * inner, &mean, &var);
		}
		for (int64_t s = 0; s < N; s++) {
			const real *x = in[0] + (s * C + c) * inner;
			if (stats && per_instance)
				runs_stats(x, 1, inner, inner, &mean, &var);
			affine_run(x, out + (s * C + c) * inner, inner, mean, 1 / KJ_SQRT(var + eps), w, b,
				   c);
		}
	}
	return 0;
}

int KJ_FN(batch_norm)(const kj_bnode *n, const real *const *in, real *out, char *msg,
		      size_t msglen)
{
	UNUSED_MSG;
	return bn_common(n, in, out, (int)kjo_attr_i(n, 0, 0), 0);
}

int KJ_FN(instance_norm)(const kj_bnode *n, const real *const *in, real *out, char *msg,
			 size_t msglen)
{
	UNUSED_MSG;
	return bn_common(n, in, out, (int)kjo_attr_i(n, 0, 1), 1);
}

/* operands input, weight, bias; attrs num_groups, eps */
int KJ_FN(group_norm)(const kj_bnode *n, const real *const *in, real *out, char *msg,
		      size_t msglen)
{
	int64_t N, C, inner, G = kjo_attr_i(n, 0, 1), CG;
	const real *w = n->present[1] ? in[1] : NULL, *b = n->present[2] ? in[2] : NULL;
	real eps = (real)kjo_attr_f(n, 1, 1e-5);
	UNUSED_MSG;
	kjm_nc(&n->in[0].shape, &N, &C, &inner);
	CG = C / G;
	for (int64_t s = 0; s < N; s++)
		for (int64_t g = 0; g < G; g++) {
			const real *x = in[0] + (s * C + g * CG) * inner;
			real mean, var, invstd;
			runs_stats(x, 1, CG * inner, 0, &mean, &var);
			invstd = 1 / KJ_SQRT(var + eps);
			for (int64_t c = 0; c < CG; c++)
				affine_run(x + c * inner, out + (s * C + g * CG + c) * inner, inner, mean,
					   invstd, w, b, g * CG + c);
		}
	return 0;
}

/* ---- norm, normalize, cosine_similarity ---- */

static inline real pterm(real x, kjm_pkind k, real p)
{
	real a = KJ_FABS(x);
	return k == KJM_P1 ? a : k == KJM_P2 ? a * a : KJ_POW(a, p);
}

static inline real proot(real s, kjm_pkind k, real p)
{
	return k == KJM_P1 ? s : k == KJM_P2 ? KJ_SQRT(s) : KJ_POW(s, 1 / p);
}

/* The p-norm of the run x[j * inner], j < len. */
static real run_norm(const real *x, int64_t len, int64_t inner, kjm_pkind k, real p)
{
	msum s;
	msum_init(&s);
	for (int64_t j = 0; j < len; j++)
		msum_add(&s, pterm(x[j * inner], k, p));
	return proot(msum_get(&s), k, p);
}

/* attrs p, dim, keepdim */
int KJ_FN(norm)(const kj_bnode *n, const real *const *in, real *out, char *msg, size_t msglen)
{
	double p = kjo_attr_f(n, 0, 2.0);
	kjm_pkind k = kjm_pkind_of(p);
	int64_t outer, len, inner;
	UNUSED_MSG;
	kjo_split(&n->in[0].shape, kjm_red_dim(n, 1), &outer, &len, &inner);
	for (int64_t o = 0; o < outer; o++)
		for (int64_t i = 0; i < inner; i++)
			out[o * inner + i] = run_norm(in[0] + o * len * inner + i, len, inner, k, (real)p);
	return 0;
}

/* attrs p, dim, eps */
int KJ_FN(normalize)(const kj_bnode *n, const real *const *in, real *out, char *msg,
		     size_t msglen)
{
	double p = kjo_attr_f(n, 0, 2.0);
	kjm_pkind k = kjm_pkind_of(p);
	real eps = (real)kjo_attr_f(n, 2, 1e-12);
	int64_t outer, len, inner;
	UNUSED_MSG;
	kjo_split(&n->in[0].shape, kjm_dim(kjo_attr_i(n, 1, 1), n->in[0].shape.rank), &outer, &len,
		  &inner);
	for (int64_t o = 0; o < outer; o++)
		for (int64_t i = 0; i < inner; i++) {
			const real *x = in[0] + o * len * inner + i;
			real d = run_norm(x, len, inner, k, (real)p);
			if (!(d >= eps)) /* clamp_min; NaN stays NaN */
				d = d != d ? d : eps;
			for (int64_t j = 0; j < len; j++)
				out[o * len * inner + i + j * inner] = x[j * inner] / d;
		}
	return 0;
}

/* attrs dim, eps */
int KJ_FN(cosine_similarity)(const kj_bnode *n, const real *const *in, real *out, char *msg,
			     size_t msglen)
{
	real eps = (real)kjo_attr_f(n, 1, 1e-8);
	int64_t outer, len, inner;
	UNUSED_MSG;
	kjo_split(&n->in[0].shape, kjm_dim(kjo_attr_i(n, 0, 1), n->in[0].shape.rank), &outer, &len,
		  &inner);
	for (int64_t o = 0; o < outer; o++)
		for (int64_t i = 0; i < inner; i++) {
			const real *a = in[0] + o * len * inner + i, *b = in[1] + o * len * inner + i;
			msum d, sa, sb;
			real na, nb;
			msum_init(&d);
			msum_init(&sa);
			msum_init(&sb);
			for (int64_t j = 0; j < len; j++) {
				real u = a[j * inner], v = b[j * inner];
				msum_add(&d, u * v);
				msum_add(&sa, u * u);
				msum_add(&sb, v * v);
			}
			na = KJ_SQRT(msum_get(&sa));
			nb = KJ_SQRT(msum_get(&sb));
			out[o * inner + i] = msum_get(&d) / ((na > eps ? na : eps) * (nb > eps ? nb : eps));
		}
	return 0;
}

/* ---- losses ---- */

/* Writes the pointwise losses ("none") or their reduction.  `div` for mean
 * and batchmean; an empty input gives NaN for mean, as PyTorch. */
#define LOSS_LOOP(cnt, red, div, EXPR) \
	do { \
		msum s_; \
		msum_init(&s_); \
		for (int64_t i = 0; i < (cnt); i++) { \
			real l_ = (EXPR); \
			if ((red) == KJM_NONE) \
				out[i] = l_; \
			else \
				msum_add(&s_, l_); \
		} \
		if ((red) == KJM_SUM) \
			out[0] = msum_get(&s_); \
		else if ((red) != KJM_NONE) \
			out[0] = msum_get(&s_) / (real)(div); \
	} while (0)

static inline real kl_term(real x, real t, int log_target)
{
	if (log_target)
		return KJ_EXP(t) * (t - x);
	if (t == 0)
		return 0; /* xlogy(0, 0) = 0 */
	return t * (KJ_LOG(t) - x);
}

int KJ_FN(kl_div)(const kj_bnode *n, const real *const *in, real *out, char *msg, size_t msglen)
{
	int64_t cnt = kjo_numel(&n->in[0].shape);
	int red = kjm_reduction_of(n, 0, 1), lt = (int)kjo_attr_i(n, 1, 0);
	int64_t div = red == KJM_BATCHMEAN && n->in[0].shape.rank ? n->in[0].shape.d[0] : cnt;
	UNUSED_MSG;
	LOSS_LOOP(cnt, red, div, kl_term(in[0][i], in[1][i], lt));
	return 0;
}

static inline real hinge_term(real x, real t, real margin)
{
	real m = margin - x, l = 0;
	if (t != 1)
		l += m > 0 ? m : (m != m ? m : 0);
	if (t != -1)
		l += x;
	return l;
}

int KJ_FN(hinge_embedding_loss)(const kj_bnode *n, const real *const *in, real *out, char *msg,
				size_t msglen)
{
	int64_t cnt = kjo_numel(&n->in[0].shape);
	int red = kjm_reduction_of(n, 1, 0);
	real margin = (real)kjo_attr_f(n, 0, 1.0);
	UNUSED_MSG;
	LOSS_LOOP(cnt, red, cnt, hinge_term(in[0][i], in[1][i], margin));
	return 0;
}

static inline real huber_term(real x, real t, real delta, int smooth)
{
	real d = KJ_FABS(x - t);
	if (smooth)
		return d < delta ? (real)0.5 * d * d / delta : d - (real)0.5 * delta;
	return d < delta ? (real)0.5 * d * d : delta * (d - (real)0.5 * delta);
}

int KJ_FN(huber_loss)(const kj_bnode *n, const real *const *in, real *out, char *msg,
		      size_t msglen)
{
	int64_t cnt = kjo_numel(&n->in[0].shape);
	int red = kjm_reduction_of(n, 0, 0);
	real delta = (real)kjo_attr_f(n, 1, 1.0);
	UNUSED_MSG;
	LOSS_LOOP(cnt, red, cnt, huber_term(in[0][i], in[1][i], delta, 0));
	return 0;
}

int KJ_FN(smooth_l1_loss)(const kj_bnode *n, const real *const *in, real *out, char *msg,
			  size_t msglen)
{
	int64_t cnt = kjo_numel(&n->in[0].shape);
	int red = kjm_reduction_of(n, 0, 0);
	real beta = (real)kjo_attr_f(n, 1, 1.0);
	UNUSED_MSG;
	LOSS_LOOP(cnt, red, cnt, huber_term(in[0][i], in[1][i], beta, 1));
	return 0;
}

/* norm(x - y + eps, p) over one row of D */
static real pdist(const real *x, const real *y, int64_t D, real eps, kjm_pkind k, real p)
{
	msum s;
	msum_init(&s);
	for (int64_t j = 0; j < D; j++)
		msum_add(&s, pterm(x[j] - y[j] + eps, k, p));
	return proot(msum_get(&s), k, p);
}

struct trip {
	int64_t D;
	real margin, p, eps;
	int swap;
	kjm_pkind k;
};

static real triplet_row(const struct trip *t, const real *a, const real *pos, const real *neg)
{
	real dp = pdist(a, pos, t->D, t->eps, t->k, t->p), dn = pdist(a, neg, t->D, t->eps, t->k, t->p);
	real l;
	if (t->swap) {
		real ds = pdist(pos, neg, t->D, t->eps, t->k, t->p);
		dn = ds < dn ? ds : dn;
	}
	l = dp - dn + t->margin;
	return l > 0 ? l : (l != l ? l : (real)0);
}

/* attrs margin, p, eps, swap, reduction */
int KJ_FN(triplet_margin_loss)(const kj_bnode *n, const real *const *in, real *out, char *msg,
			       size_t msglen)
{
	const kj_shape *s = &n->in[0].shape;
	int64_t D = s->d[s->rank - 1], rows = s->rank == 2 ? s->d[0] : 1;
	int red = kjm_reduction_of(n, 4, 0);
	struct trip t;
	UNUSED_MSG;
	t.D = D;
	t.margin = (real)kjo_attr_f(n, 0, 1.0);
	t.p = (real)kjo_attr_f(n, 1, 2.0);
	t.eps = (real)kjo_attr_f(n, 2, 1e-6);
	t.swap = (int)kjo_attr_i(n, 3, 0);
	t.k = kjm_pkind_of(kjo_attr_f(n, 1, 2.0));
	LOSS_LOOP(rows, red, rows, triplet_row(&t, in[0] + i * D, in[1] + i * D, in[2] + i * D));
	return 0;
}
