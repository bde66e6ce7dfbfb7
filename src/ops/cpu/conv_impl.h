/*
 * Convolution and pooling kernels of the third op table, written once for
 * both CPU precisions (see linalg_impl.h for the `real` / KJ_FN convention).
 * Every kernel loops over three spatial dims (kjc_geom pads 1-D and 2-D ops
 * with unit dims) in plain textbook order: the sums of a conv run over the
 * group's input channels, then the kernel taps in row-major order, in
 * `real`.  A transposed conv is computed as a gather (each output sums the
 * taps that reach it, taps outside and channels inside), which gives the
 * same sums as the scatter of its definition without a write conflict.
 * conv_run and pool_run walk the outputs; a per-output function (the tap
 * sum of a conv, the window of a pool) computes each.  An i8 conv sums its
 * integer products in int64 (conv_sum_int).  Shapes were checked by infer;
 * nothing here allocates.
 */

/* The input position that tap k of the window at output position o reads
 * along dim i of a conv or pool (o*s - p + k*d), or -1 outside [0, in). */
static inline int64_t conv_src(const kjc_geom *g, int i, int64_t o, int64_t k)
{
	int64_t t = o * g->s[i] - g->p[i] + k * g->d[i];
	return t < 0 || t >= g->in[i] ? -1 : t;
}

/* The tap sum of one conv output (batch bn, channel co, position o),
 * without the bias. */
typedef real (*conv_sum_fn)(const kjc_geom *g, const real *x, const real *w, int64_t bn,
			    int64_t co, const int64_t o[3]);

/* The loops of a conv tap sum, written once for conv_sum (in `real`) and
 * conv_sum_int (in int64): ACC += T(x[n, ci, o*s - p + t*d]) * T(w[co, ci', t])
 * over the group's input channels, then the taps in row-major order. */
#define KJC_CONV_TAPS(T, ACC)                                                                   \
	do {                                                                                    \
		int64_t cig = g->cin / g->groups, cog = g->cout / g->groups;                    \
		int64_t ivol = kjc_vol(g->in), kvol = kjc_vol(g->k);                            \
		const real *wc = w + co * cig * kvol;                                           \
		for (int64_t c = 0; c < cig; c++) {                                             \
			const real *xc = x + (bn * g->cin + co / cog * cig + c) * ivol;         \
			const real *wk = wc + c * kvol;                                         \
			for (int64_t k0 = 0; k0 < g->k[0]; k0++) {                              \
				int64_t i0 = conv_src(g, 0, o[0], k0);                          \
				if (i0 < 0)                                                     \
					continue;                                               \
				for (int64_t k1 = 0; k1 < g->k[1]; k1++) {                      \
					int64_t i1 = conv_src(g, 1, o[1], k1);                  \
					if (i1 < 0)                                             \
						continue;                                       \
					for (int64_t k2 = 0; k2 < g->k[2]; k2++) {              \
						int64_t i2 = conv_src(g, 2, o[2], k2);          \
						if (i2 < 0)                                     \
							continue;                               \
						ACC += (T)xc[(i0 * g->in[1] + i1) * g->in[2] + i2] * \
						       (T)wk[(k0 * g->k[1] + k1) * g->k[2] + k2];    \
					}                                                       \
				}                                                               \
			}                                                                       \
		}                                                                               \
	} while (0)

/* sum_{ci in group, t} x[n, ci, o*s - p + t*d] w[co, ci', t] */
static real conv_sum(const kjc_geom *g, const real *x, const real *w, int64_t bn, int64_t co,
		     const int64_t o[3])
{
	real acc = 0;
	KJC_CONV_TAPS(real, acc);
	return acc;
}

/* conv_sum for integer operands (i8 input and weight): the products are
 * summed in int64, so that the f32 baseline is exact too (a float sum of i8
 * products is exact only below 2^24); same loops and order as conv_sum.
 * The values arrive as reals holding integers. */
static int64_t conv_sum_int(const kjc_geom *g, const real *x, const real *w, int64_t bn,
			    int64_t co, const int64_t o[3])
{
	int64_t acc = 0;
	KJC_CONV_TAPS(int64_t, acc);
	return acc;
}

/* A conv of family `kind`: sum at every output, plus bias[co] if present.
 * With sum NULL (an i8 conv, i32 result) conv_sum_int and the i32 bias are
 * added in int64 (the executor then rounds the result to i32). */
static int conv_run(const kj_bnode *n, int kind, const real *const *in, real *out, char *msg,
		    conv_sum_fn sum)
{
	kjc_geom g;
	const real *b = n->present[2] ? in[2] : NULL;
	int64_t ovol;
	kjc_geom_of(n, kind, 0, &g, msg, 0);
	ovol = kjc_vol(g.out);
	for (int64_t bn = 0; bn < g.N; bn++)
		for (int64_t co = 0; co < g.cout; co++) {
			real *oc = out + (bn * g.cout + co) * ovol;
			for (int64_t o0 = 0; o0 < g.out[0]; o0++)
				for (int64_t o1 = 0; o1 < g.out[1]; o1++)
					for (int64_t o2 = 0; o2 < g.out[2]; o2++) {
						int64_t o[3] = { o0, o1, o2 };
						real acc;
						if (sum) {
							acc = sum(&g, in[0], in[1], bn, co, o);
							if (b)
								acc += b[co];
						} else {
							acc = (real)(conv_sum_int(&g, in[0], in[1], bn, co, o) +
								     (b ? (int64_t)b[co] : 0));
						}
						oc[(o0 * g.out[1] + o1) * g.out[2] + o2] = acc;
					}
		}
	return 0;
}

/* The input position that tap k of a transposed conv maps onto output
 * position o along dim i, or -1: o = i*s - p + k*d for an integer i in
 * [0, in). */
static inline int64_t convt_src(const kjc_geom *g, int i, int64_t o, int64_t k)
{
	int64_t t = o + g->p[i] - k * g->d[i];
	if (t < 0 || t % g->s[i])
		return -1;
	t /= g->s[i];
	return t < g->in[i] ? t : -1;
}

/* sum over taps t and ci of co's group, with o = i*s - p + t*d, of
 * x[n, ci, i] w[ci, co', t].  Taps run outside and channels inside, so the
 * source position of a tap is found once. */
static real convt_sum(const kjc_geom *g, const real *x, const real *w, int64_t bn, int64_t co,
		      const int64_t o[3])
{
	int64_t cig = g->cin / g->groups, cog = g->cout / g->groups;
	int64_t ivol = kjc_vol(g->in), kvol = kjc_vol(g->k);
	int64_t grp = co / cog, col = co % cog;
	const real *xg = x + (bn * g->cin + grp * cig) * ivol;
	const real *wg = w + (grp * cig * cog + col) * kvol;
	real acc = 0;
	for (int64_t k0 = 0; k0 < g->k[0]; k0++) {
		int64_t i0 = convt_src(g, 0, o[0], k0);
		if (i0 < 0)
			continue;
		for (int64_t k1 = 0; k1 < g->k[1]; k1++) {
			int64_t i1 = convt_src(g, 1, o[1], k1);
			if (i1 < 0)
				continue;
			for (int64_t k2 = 0; k2 < g->k[2]; k2++) {
				int64_t i2 = convt_src(g, 2, o[2], k2);
				const real *xi, *wt;
				if (i2 < 0)
					continue;
				xi = xg + (i0 * g->in[1] + i1) * g->in[2] + i2;
				wt = wg + (k0 * g->k[1] + k1) * g->k[2] + k2;
				for (int64_t c = 0; c < cig; c++)
					acc += xi[c * ivol] * wt[c * cog * kvol];
			}
		}
	}
	return acc;
}

int KJ_FN(conv)(const kj_bnode *n, const real *const *in, real *out, char *msg, size_t msglen)
{
	(void)msglen;
	return conv_run(n, KJC_CONV, in, out, msg, kj_dtype_is_float(n->in[0].dtype) ? conv_sum : NULL);
}

int KJ_FN(conv_transpose)(const kj_bnode *n, const real *const *in, real *out, char *msg,
			  size_t msglen)
{
	(void)msglen;
	return conv_run(n, KJC_CONVT, in, out, msg, convt_sum);
}

/* One pooled value: the window of output position o over one (n, c) plane. */
typedef real (*pool_window_fn)(const kjc_geom *g, const real *xc, const int64_t o[3]);

/* A pool of family `kind`: win at every output position of every plane. */
static int pool_run(const kj_bnode *n, int kind, const real *x, real *out, char *msg,
		    pool_window_fn win)
{
	kjc_geom g;
	int64_t ivol, ovol;
	kjc_geom_of(n, kind, 0, &g, msg, 0);
	ivol = kjc_vol(g.in);
	ovol = kjc_vol(g.out);
	for (int64_t nc = 0; nc < g.N * g.cin; nc++) {
		const real *xc = x + nc * ivol;
		real *oc = out + nc * ovol;
		for (int64_t o0 = 0; o0 < g.out[0]; o0++)
			for (int64_t o1 = 0; o1 < g.out[1]; o1++)
				for (int64_t o2 = 0; o2 < g.out[2]; o2++) {
					int64_t o[3] = { o0, o1, o2 };
					oc[(o0 * g.out[1] + o1) * g.out[2] + o2] = win(&g, xc, o);
				}
	}
	return 0;
}

/* The sum of plane xc over the box [lo, hi), in row-major order. */
static real box_sum(const kjc_geom *g, const real *xc, const int64_t lo[3], const int64_t hi[3])
{
	real acc = 0;
	for (int64_t i0 = lo[0]; i0 < hi[0]; i0++)
		for (int64_t i1 = lo[1]; i1 < hi[1]; i1++)
			for (int64_t i2 = lo[2]; i2 < hi[2]; i2++)
				acc += xc[(i0 * g->in[1] + i1) * g->in[2] + i2];
	return acc;
}

/* The max over the window positions inside the input; a NaN wins (as
 * PyTorch's `val > max || isnan(val)`); a window with no position inside
 * the input gives -inf. */
static real max_window(const kjc_geom *g, const real *xc, const int64_t o[3])
{
	real m = -(real)INFINITY;
	for (int64_t k0 = 0; k0 < g->k[0]; k0++) {
		int64_t i0 = conv_src(g, 0, o[0], k0);
		if (i0 < 0)
			continue;
		for (int64_t k1 = 0; k1 < g->k[1]; k1++) {
			int64_t i1 = conv_src(g, 1, o[1], k1);
			if (i1 < 0)
				continue;
			for (int64_t k2 = 0; k2 < g->k[2]; k2++) {
				int64_t i2 = conv_src(g, 2, o[2], k2);
				real v;
				if (i2 < 0)
					continue;
				v = xc[(i0 * g->in[1] + i1) * g->in[2] + i2];
				if (v > m || v != v)
					m = v;
			}
		}
	}
	return m;
}

/* The window sum (positions inside the input) over the divisor of
 * kjc_avg_window. */
static real avg_window(const kjc_geom *g, const real *xc, const int64_t o[3])
{
	int64_t lo[3], hi[3], cnt[3];
	for (int i = 0; i < 3; i++)
		kjc_avg_window(g, i, o[i], &lo[i], &hi[i], &cnt[i]);
	return box_sum(g, xc, lo, hi) / (real)(cnt[0] * cnt[1] * cnt[2]);
}

static real adaptive_window(const kjc_geom *g, const real *xc, const int64_t o[3])
{
	int64_t lo[3], hi[3];
	for (int i = 0; i < 3; i++)
		kjc_adaptive_window(g, i, o[i], &lo[i], &hi[i]);
	return box_sum(g, xc, lo, hi) / (real)((hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]));
}

int KJ_FN(max_pool)(const kj_bnode *n, const real *const *in, real *out, char *msg, size_t msglen)
{
	(void)msglen;
	return pool_run(n, KJC_MAXPOOL, in[0], out, msg, max_window);
}

int KJ_FN(avg_pool)(const kj_bnode *n, const real *const *in, real *out, char *msg, size_t msglen)
{
	(void)msglen;
	return pool_run(n, KJC_AVGPOOL, in[0], out, msg, avg_window);
}

int KJ_FN(adaptive_avg_pool)(const kj_bnode *n, const real *const *in, real *out, char *msg,
			     size_t msglen)
{
	(void)msglen;
	return pool_run(n, KJC_ADAPTIVE, in[0], out, msg, adaptive_window);
}
