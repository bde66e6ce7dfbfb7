/*
 * Layout kernels of the second op table (transpose, permute, reshape, copy,
 * cast), written once for both CPU precisions (see linalg_impl.h for the
 * `real` / KJ_FN convention).  We have no views: every result is a dense
 * row-major copy.  Nothing here allocates.
 */

/* y = x with its dims reordered: dim i of y is dim perm[i] of x.  Walks y in
 * order, moving x's offset by the stride of the dim that advanced. */
static void permute_copy(const real *x, real *y, const kj_shape *xs, const int *perm)
{
	int r = xs->rank;
	int64_t xstr[KJ_MAX_RANK], ext[KJ_MAX_RANK], st[KJ_MAX_RANK], idx[KJ_MAX_RANK] = { 0 };
	int64_t total = kjo_numel(xs), off = 0, s = 1;
	for (int i = r - 1; i >= 0; i--) {
		xstr[i] = s;
		s *= xs->d[i];
	}
	for (int i = 0; i < r; i++) {
		ext[i] = xs->d[perm[i]];
		st[i] = xstr[perm[i]];
	}
	for (int64_t t = 0; t < total; t++) {
		y[t] = x[off];
		for (int i = r - 1; i >= 0; i--) {
			off += st[i];
			if (++idx[i] < ext[i])
				break;
			off -= st[i] * ext[i];
			idx[i] = 0;
		}
	}
}

int KJ_FN(transpose)(const kj_bnode *n, const real *const *in, real *out, char *msg,
		     size_t msglen)
{
	const kj_shape *xs = &n->in[0].shape;
	int perm[KJ_MAX_RANK], d0, d1, t;
	(void)msg;
	(void)msglen;
	if (xs->rank == 0) {
		out[0] = in[0][0];
		return 0;
	}
	for (int i = 0; i < xs->rank; i++)
		perm[i] = i;
	d0 = kjb_norm_dim(n->attr[0].i, xs->rank);
	d1 = kjb_norm_dim(n->attr[1].i, xs->rank);
	t = perm[d0];
	perm[d0] = perm[d1];
	perm[d1] = t;
	permute_copy(in[0], out, xs, perm);
	return 0;
}

int KJ_FN(permute)(const kj_bnode *n, const real *const *in, real *out, char *msg,
		   size_t msglen)
{
	const kj_shape *xs = &n->in[0].shape;
	const int64_t *dims;
	int perm[KJ_MAX_RANK];
	(void)msg;
	(void)msglen;
	if (xs->rank == 0) {
		out[0] = in[0][0];
		return 0;
	}
	kjb_ints(&n->attr[0], &dims);
	for (int i = 0; i < xs->rank; i++)
		perm[i] = kjb_norm_dim(dims[i], xs->rank);
	permute_copy(in[0], out, xs, perm);
	return 0;
}

int KJ_FN(copy)(const kj_bnode *n, const real *const *in, real *out, char *msg, size_t msglen)
{
	(void)msg;
	(void)msglen;
	memcpy(out, in[0], (size_t)kjo_numel(&n->out.shape) * sizeof(real));
	return 0;
}

int KJ_FN(reshape)(const kj_bnode *n, const real *const *in, real *out, char *msg,
		   size_t msglen)
{
	return KJ_FN(copy)(n, in, out, msg, msglen);
}

/* The value a cast to t really produces.  The caller's store into the output
 * dtype applies the same rule; doing it here too keeps an oracle that holds
 * results in double (and any op that reads them next) equal to the cast. */
static real cast_value(kj_dtype t, double v)
{
	double lo, hi;
	switch (t) {
	case KJ_F32:
		return (real)(float)v;
	case KJ_F16:
		return (real)kj_f16_to_f32(kj_f32_to_f16((float)v));
	case KJ_BF16:
		return (real)kj_bf16_to_f32(kj_f32_to_bf16((float)v));
	case KJ_F8E4M3:
		return (real)kj_f8e4m3_to_f32(kj_f32_to_f8e4m3((float)v));
	case KJ_BOOL:
		return v != 0;
	case KJ_I8:
		lo = -128.0;
		hi = 127.0;
		break;
	case KJ_I32:
		lo = -2147483648.0;
		hi = 2147483647.0;
		break;
	default:
		lo = -9223372036854775808.0;
		hi = 9223372036854775807.0;
		break;
	}
	if (isnan(v))
		return 0;
	v = trunc(v);
	return (real)(v < lo ? lo : v > hi ? hi : v);
}

int KJ_FN(cast)(const kj_bnode *n, const real *const *in, real *out, char *msg, size_t msglen)
{
	int64_t total = kjo_numel(&n->out.shape);
	(void)msg;
	(void)msglen;
	for (int64_t i = 0; i < total; i++)
		out[i] = cast_value(n->out.dtype, (double)in[0][i]);
	return 0;
}
