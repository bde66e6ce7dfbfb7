/*
 * Matrix kernels of the second op table (matmul, bmm, linear), written once
 * for both CPU precisions.  The including file defines `real` (double for the
 * fp64 oracle, float for the f32 eager baseline) and KJ_FN(name); sums run in
 * `real`, so the oracle accumulates in double and the baseline in float as a
 * CPU framework would.  Shapes were checked by the op's infer; the kernels
 * trust them.  Nothing here allocates.
 */

/* c = a @ b for one [M, K] x [K, N] pair.  The i-k-j order reads b and c
 * along rows, and still adds the K products into each c[i][j] in order of k,
 * so the result is that of the textbook dot product. */
static void mm_one(const real *a, const real *b, real *c, int64_t M, int64_t K, int64_t N)
{
	for (int64_t i = 0; i < M; i++) {
		real *ci = c + i * N;
		for (int64_t j = 0; j < N; j++)
			ci[j] = 0;
		for (int64_t k = 0; k < K; k++) {
			real aik = a[i * K + k];
			const real *bk = b + k * N;
			for (int64_t j = 0; j < N; j++)
				ci[j] += aik * bk[j];
		}
	}
}

/* mm_one for integer operands (i8 @ i8 -> i32): the sum runs in int64, so
 * that the f32 baseline is exact too (a float sum of i8 products is exact
 * only below 2^24).  The values arrive as reals holding integers. */
static void mm_one_int(const real *a, const real *b, real *c, int64_t M, int64_t K, int64_t N)
{
	for (int64_t i = 0; i < M; i++) {
		for (int64_t j = 0; j < N; j++) {
			int64_t acc = 0;
			for (int64_t k = 0; k < K; k++)
				acc += (int64_t)a[i * K + k] * (int64_t)b[k * N + j];
			c[i * N + j] = (real)acc;
		}
	}
}

/* matmul and bmm: a 1-D operand is a [1, K] or [K, 1] matrix, whose unit
 * dim infer already dropped from the result's shape; the row-major layout is
 * the same either way. */
int KJ_FN(matmul)(const kj_bnode *n, const real *const *in, real *out, char *msg,
		  size_t msglen)
{
	kjb_mm g;
	int64_t idx[KJ_MAX_RANK] = { 0 };
	int integer = !kj_dtype_is_float(n->in[0].dtype);
	(void)msg;
	(void)msglen;
	kjb_mm_geom(&n->in[0].shape, &n->in[1].shape, &g);
	for (int64_t t = 0; t < g.batch; t++) {
		int64_t ao = 0, bo = 0;
		for (int i = 0; i < g.brank; i++) {
			ao += idx[i] * g.astr[i];
			bo += idx[i] * g.bstr[i];
		}
		(integer ? mm_one_int : mm_one)(in[0] + ao * g.M * g.K, in[1] + bo * g.K * g.N,
						out + t * g.M * g.N, g.M, g.K, g.N);
		for (int i = g.brank - 1; i >= 0; i--) {
			if (++idx[i] < g.bshape[i])
				break;
			idx[i] = 0;
		}
	}
	return 0;
}

/* y[m][o] = sum_k x[m][k] * w[o][k] (+ bias[o], added after the sum as
 * addmm does). */
int KJ_FN(linear)(const kj_bnode *n, const real *const *in, real *out, char *msg,
		  size_t msglen)
{
	const kj_shape *xs = &n->in[0].shape;
	int64_t K = xs->d[xs->rank - 1], O = n->in[1].shape.d[0], M = 1;
	const real *x = in[0], *w = in[1], *bias = n->present[2] ? in[2] : NULL;
	(void)msg;
	(void)msglen;
	for (int i = 0; i < xs->rank - 1; i++)
		M *= xs->d[i];
	if (!kj_dtype_is_float(n->in[0].dtype)) {
		for (int64_t m = 0; m < M; m++)
			for (int64_t o = 0; o < O; o++) {
				int64_t acc = 0;
				for (int64_t k = 0; k < K; k++)
					acc += (int64_t)x[m * K + k] * (int64_t)w[o * K + k];
				out[m * O + o] = (real)acc;
			}
		return 0;
	}
	for (int64_t m = 0; m < M; m++) {
		const real *xm = x + m * K;
		for (int64_t o = 0; o < O; o++) {
			const real *wo = w + o * K;
			real acc = 0;
			for (int64_t k = 0; k < K; k++)
				acc += xm[k] * wo[k];
			if (bias)
				acc += bias[o];
			out[m * O + o] = acc;
		}
	}
	return 0;
}
