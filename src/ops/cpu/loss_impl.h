/*
 * Loss kernels of the second op table (mse_loss, cross_entropy), written
 * once for both CPU precisions (see linalg_impl.h for the `real` / KJ_FN
 * convention; KJ_EXP and KJ_LOG are exp/log or expf/logf to match).  Sums use
 * the blocked sum of norm_impl.h.  Nothing here allocates.
 */
#include "ops/cpu/norm_impl.h"

/* Writes the reduced losses (or, for "none", nothing more): mean divides by
 * the number of terms, so an empty input gives NaN as PyTorch does. */
static void loss_reduce(const bsum *s, int red, int64_t cnt, real *out)
{
	if (red == KJB_SUM)
		out[0] = bsum_get(s);
	else if (red == KJB_MEAN)
		out[0] = bsum_get(s) / (real)cnt;
}

/* in: input, target; attr: reduction. */
int KJ_FN(mse_loss)(const kj_bnode *n, const real *const *in, real *out, char *msg,
		    size_t msglen)
{
	int64_t total = kjo_numel(&n->in[0].shape);
	int red = kjb_reduction_of(n, 0);
	bsum s;
	(void)msg;
	(void)msglen;
	bsum_init(&s);
	for (int64_t i = 0; i < total; i++) {
		real d = in[0][i] - in[1][i];
		if (red == KJB_NONE)
			out[i] = d * d;
		else
			bsum_add(&s, d * d);
	}
	loss_reduce(&s, red, total, out);
	return 0;
}

/* in: input [N, C] or [C], target [N] or [] holding class indices; attr:
 * reduction.  loss = logsumexp(x) - x[target], the max subtracted before exp. */
int KJ_FN(cross_entropy)(const kj_bnode *n, const real *const *in, real *out, char *msg,
			 size_t msglen)
{
	const kj_shape *xs = &n->in[0].shape;
	int64_t C = xs->d[xs->rank - 1], rows = xs->rank == 2 ? xs->d[0] : 1;
	int red = kjb_reduction_of(n, 0);
	bsum tot;
	bsum_init(&tot);
	for (int64_t r = 0; r < rows; r++) {
		const real *x = in[0] + r * C;
		double t = (double)in[1][r];
		real m, loss;
		bsum s;
		if (!(t >= 0 && t < (double)C) || t != floor(t)) {
			snprintf(msg, msglen, "cross_entropy: target %.17g out of range [0, %lld) at index %lld",
				 t, (long long)C, (long long)r);
			return -1;
		}
		m = x[0];
		for (int64_t c = 1; c < C; c++)
			if (x[c] > m)
				m = x[c];
		bsum_init(&s);
		for (int64_t c = 0; c < C; c++)
			bsum_add(&s, KJ_EXP(x[c] - m));
		loss = m + KJ_LOG(bsum_get(&s)) - x[(int64_t)t];
		if (red == KJB_NONE)
			out[r] = loss;
		else
			bsum_add(&tot, loss);
	}
	loss_reduce(&tot, red, rows, out);
	return 0;
}
