/*
 * Normalisation kernels of the second op table (layer_norm, rms_norm),
 * written once for both CPU precisions (see linalg_impl.h for the `real` /
 * KJ_FN convention; KJ_SQRT is sqrt or sqrtf to match).  Also the blocked
 * sum that the loss kernels share.  Nothing here allocates.
 */
#ifndef KJ_NORM_IMPL_H
#define KJ_NORM_IMPL_H

/* A running sum in blocks: terms add into `part`, and every KJB_BLOCK terms
 * part moves into `total`.  In float this keeps the error of an n-term sum
 * near (KJB_BLOCK + n / KJB_BLOCK) ulps instead of n, as the cascade sums
 * of CPU frameworks do; in double it costs nothing. */
#define KJB_BLOCK 1024
typedef struct bsum {
	real total, part;
	int cnt;
} bsum;

static inline void bsum_init(bsum *s)
{
	s->total = 0;
	s->part = 0;
	s->cnt = 0;
}

static inline void bsum_add(bsum *s, real v)
{
	s->part += v;
	if (++s->cnt == KJB_BLOCK) {
		s->total += s->part;
		s->part = 0;
		s->cnt = 0;
	}
}

static inline real bsum_get(const bsum *s)
{
	return s->total + s->part;
}

/* Rows of the input that one normalisation covers: the trailing
 * normalized_shape dims form a row of *D elements. */
static int64_t norm_rows(const kj_bnode *n, int64_t *D)
{
	const int64_t *ns;
	int k = kjb_ints(&n->attr[0], &ns);
	*D = 1;
	for (int i = 0; i < k; i++)
		*D *= ns[i];
	return *D ? kjo_numel(&n->in[0].shape) / *D : 0;
}

/* in: input, weight, bias; attr: normalized_shape, eps.  Biased variance by
 * a second pass over (x - mean), y = (x - mean) / sqrt(var + eps) * w + b. */
int KJ_FN(layer_norm)(const kj_bnode *n, const real *const *in, real *out, char *msg,
		      size_t msglen)
{
	int64_t D, rows = norm_rows(n, &D);
	const real *w = n->present[1] ? in[1] : NULL, *b = n->present[2] ? in[2] : NULL;
	real eps = (real)kjo_attr_f(n, 1, 1e-5);
	(void)msg;
	(void)msglen;
	for (int64_t r = 0; r < rows; r++) {
		const real *x = in[0] + r * D;
		real *y = out + r * D, mean, rstd;
		bsum s;
		bsum_init(&s);
		for (int64_t k = 0; k < D; k++)
			bsum_add(&s, x[k]);
		mean = bsum_get(&s) / (real)D;
		bsum_init(&s);
		for (int64_t k = 0; k < D; k++)
			bsum_add(&s, (x[k] - mean) * (x[k] - mean));
		rstd = 1 / KJ_SQRT(bsum_get(&s) / (real)D + eps);
		for (int64_t k = 0; k < D; k++) {
			real v = (x[k] - mean) * rstd;
			if (w)
				v *= w[k];
			if (b)
				v += b[k];
			y[k] = v;
		}
	}
	return 0;
}

/* in: input, weight; attr: normalized_shape, eps (None: the input dtype's
 * machine epsilon).  y = x * (1 / sqrt(mean(x^2) + eps)) * w. */
int KJ_FN(rms_norm)(const kj_bnode *n, const real *const *in, real *out, char *msg,
		    size_t msglen)
{
	int64_t D, rows = norm_rows(n, &D);
	const real *w = n->present[1] ? in[1] : NULL;
	real eps = (real)kjo_attr_f(n, 1, kjb_finfo_eps(n->in[0].dtype));
	(void)msg;
	(void)msglen;
	for (int64_t r = 0; r < rows; r++) {
		const real *x = in[0] + r * D;
		real *y = out + r * D, rr;
		bsum s;
		bsum_init(&s);
		for (int64_t k = 0; k < D; k++)
			bsum_add(&s, x[k] * x[k]);
		rr = 1 / KJ_SQRT(bsum_get(&s) / (real)D + eps);
		for (int64_t k = 0; k < D; k++)
			y[k] = w ? x[k] * rr * w[k] : x[k] * rr;
	}
	return 0;
}

#endif
