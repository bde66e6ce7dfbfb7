/*
 * CPU kernels of table F (src/ops/table_f.h), written once over `real` and
 * compiled twice: cpu64_f.c (the fp64 oracle) and cpu32_f.c (the f32 eager
 * baseline of the CPU track).  The including file defines real, KJ_FN(name)
 * and KJ_SQRT.  Solves and factorisations accumulate in `real`; interpolate
 * takes its source indices and weights from table_f.h's float formulas in
 * both builds (PyTorch's), and blends in `real`; grid_sample computes its
 * coordinates, weights and blend in `real` (KJ_GS_COORD is table_f.h's
 * kjf_gs_coord_d or kjf_gs_coord_f).  Nothing here allocates.
 * No include guard: each translation unit includes this once.
 */
#if !defined(KJ_FN) || !defined(KJ_SQRT) || !defined(KJ_GS_COORD)
#error "define real, KJ_FN, KJ_SQRT and KJ_GS_COORD before linalg2_impl.h"
#endif

/* One left solve A X = B, X n x k row-major, in place in x (holding B). */
static void trsm_left(const real *a, real *x, int64_t n, int64_t k, int upper, int unit)
{
	for (int64_t s = 0; s < n; s++) {
		int64_t i = upper ? n - 1 - s : s;
		real *xi = x + i * k;
		int64_t j0 = upper ? i + 1 : 0, j1 = upper ? n : i;
		for (int64_t j = j0; j < j1; j++) {
			real aij = a[i * n + j];
			const real *xj = x + j * k;
			for (int64_t c = 0; c < k; c++)
				xi[c] -= aij * xj[c];
		}
		if (!unit) {
			real d = a[i * n + i];
			for (int64_t c = 0; c < k; c++)
				xi[c] /= d;
		}
	}
}

/* One right solve X A = B, X k x n row-major, in place in x: row r of X
 * solves A^T x^T = b^T, whose triangle is the other one. */
static void trsm_right(const real *a, real *x, int64_t n, int64_t k, int upper, int unit)
{
	for (int64_t r = 0; r < k; r++) {
		real *xr = x + r * n;
		for (int64_t s = 0; s < n; s++) {
			int64_t j = upper ? s : n - 1 - s;
			real acc = xr[j];
			int64_t i0 = upper ? 0 : j + 1, i1 = upper ? j : n;
			for (int64_t i = i0; i < i1; i++)
				acc -= xr[i] * a[i * n + j];
			xr[j] = unit ? acc : acc / a[j * n + j];
		}
	}
}

int KJ_FN(linalg_solve_triangular)(const kj_bnode *n, const real *const *in, real *out,
				   char *msg, size_t msglen)
{
	kjf_trsm_geom g;
	int64_t xs;
	(void)msg;
	(void)msglen;
	kjf_trsm_geom_of(n, &g);
	xs = g.n * g.k;
	memcpy(out, in[1], (size_t)(g.batch * xs) * sizeof(real));
	for (int64_t b = 0; b < g.batch; b++) {
		if (g.left)
			trsm_left(in[0] + b * g.n * g.n, out + b * xs, g.n, g.k, g.upper, g.unit);
		else
			trsm_right(in[0] + b * g.n * g.n, out + b * xs, g.n, g.k, g.upper, g.unit);
	}
	return 0;
}

int KJ_FN(linalg_cholesky)(const kj_bnode *n, const real *const *in, real *out, char *msg,
			   size_t msglen)
{
	const kj_shape *s = &n->in[0].shape;
	int64_t m = s->d[s->rank - 1], batch = m ? kjo_numel(s) / (m * m) : 0;
	int upper = kjo_attr_i(n, KJF_CHOL_UPPER, 0) != 0;
	for (int64_t b = 0; b < batch; b++) {
		const real *a = in[0] + b * m * m;
		real *l = out + b * m * m;
		for (int64_t i = 0; i < m * m; i++)
			l[i] = 0;
		for (int64_t j = 0; j < m; j++) {
			real d = a[j * m + j];
			for (int64_t k = 0; k < j; k++)
				d -= l[j * m + k] * l[j * m + k];
			if (!(d > 0))
				return kjo_fail(msg, msglen, "linalg_cholesky: matrix %lld is not positive "
						"definite (the leading minor of order %lld is not)",
						(long long)b, (long long)(j + 1));
			d = KJ_SQRT(d);
			l[j * m + j] = d;
			for (int64_t i = j + 1; i < m; i++) {
				real v = a[i * m + j];
				for (int64_t k = 0; k < j; k++)
					v -= l[i * m + k] * l[j * m + k];
				l[i * m + j] = v / d;
			}
		}
		if (upper)
			for (int64_t i = 0; i < m; i++)
				for (int64_t j = 0; j < i; j++) {
					l[j * m + i] = l[i * m + j];
					l[i * m + j] = 0;
				}
	}
	return 0;
}

int KJ_FN(interpolate)(const kj_bnode *n, const real *const *in, real *out, char *msg,
		       size_t msglen)
{
	const kj_shape *xs = &n->in[0].shape, *os = &n->out.shape;
	int64_t planes = xs->d[0] * xs->d[1], ih = xs->d[2], iw = xs->d[3];
	int64_t oh = os->d[2], ow = os->d[3];
	int align = kjo_attr_i(n, KJF_INTERP_ALIGN, 0) != 0;
	int bilinear = !strcmp(kjo_attr(n, KJF_INTERP_MODE)->s, "bilinear");
	float sh = kjf_scale(ih, oh, align), sw = kjf_scale(iw, ow, align);
	(void)msg;
	(void)msglen;
	for (int64_t p = 0; p < planes; p++) {
		const real *x = in[0] + p * ih * iw;
		real *y = out + p * oh * ow;
		for (int64_t r = 0; r < oh; r++) {
			if (!bilinear) {
				const real *xr = x + kjf_nearest(r, sh, ih) * iw;
				for (int64_t c = 0; c < ow; c++)
					y[r * ow + c] = xr[kjf_nearest(c, sw, iw)];
				continue;
			}
			int64_t h0, hs, w0, ws;
			float hl, wl;
			kjf_linear_src(r, sh, ih, align, &h0, &hs, &hl);
			const real *x0 = x + h0 * iw, *x1 = x + (h0 + hs) * iw;
			real h1l = (real)hl, h0l = (real)(1.0f - hl);
			for (int64_t c = 0; c < ow; c++) {
				kjf_linear_src(c, sw, iw, align, &w0, &ws, &wl);
				real w1l = (real)wl, w0l = (real)(1.0f - wl);
				y[r * ow + c] = h0l * (w0l * x0[w0] + w1l * x0[w0 + ws]) +
						h1l * (w0l * x1[w0] + w1l * x1[w0 + ws]);
			}
		}
	}
	return 0;
}

/* grid_sample: per output pixel the taps and weights once, then every
 * channel.  Taps outside the image contribute nothing ("zeros"; "border"
 * and "reflection" bring the coordinate into [0, size - 1] first, so only a
 * zero-weight tap at size can be outside).  Bilinear weights and their
 * order of summation are PyTorch's (nw, ne, sw, se); nearest rounds half to
 * even (rint, as nearbyint). */
int KJ_FN(grid_sample)(const kj_bnode *n, const real *const *in, real *out, char *msg,
		       size_t msglen)
{
	const kj_shape *xs = &n->in[0].shape, *os = &n->out.shape;
	int64_t nb = xs->d[0], ch = xs->d[1], ih = xs->d[2], iw = xs->d[3];
	int64_t oh = os->d[2], ow = os->d[3], plane = ih * iw, opix = oh * ow;
	int align = kjo_attr_i(n, KJF_GS_ALIGN, 0) != 0;
	int nearest = !strcmp(kjo_attr(n, KJF_GS_MODE)->s, "nearest");
	int pad = kjf_gs_pad(n);
	(void)msg;
	(void)msglen;
	for (int64_t b = 0; b < nb; b++) {
		const real *x = in[0] + b * ch * plane, *gr = in[1] + b * opix * 2;
		real *y = out + b * ch * opix;
		for (int64_t q = 0; q < opix; q++) {
			real cx = KJ_GS_COORD(gr[2 * q], iw, align, pad);
			real cy = KJ_GS_COORD(gr[2 * q + 1], ih, align, pad);
			if (!kjf_gs_in_range(cx, iw) || !kjf_gs_in_range(cy, ih))
				cx = cy = -2;
			if (nearest) {
				int64_t px = (int64_t)rint(cx), py = (int64_t)rint(cy);
				int inside = px >= 0 && px < iw && py >= 0 && py < ih;
				const real *xp = x + (inside ? py * iw + px : 0);
				for (int64_t c = 0; c < ch; c++)
					y[c * opix + q] = inside ? xp[c * plane] : 0;
				continue;
			}
			real fx0 = (real)floor(cx), fy0 = (real)floor(cy);
			int64_t x0 = (int64_t)fx0, y0 = (int64_t)fy0;
			real e = cx - fx0, w_ = (fx0 + 1) - cx, s = cy - fy0, nn = (fy0 + 1) - cy;
			real wt[4] = {w_ * nn, e * nn, w_ * s, e * s};
			int64_t off[4];
			int use[4];
			for (int k = 0; k < 4; k++) {
				int64_t tx = x0 + (k & 1), ty = y0 + (k >> 1);
				use[k] = tx >= 0 && tx < iw && ty >= 0 && ty < ih;
				off[k] = use[k] ? ty * iw + tx : 0;
			}
			for (int64_t c = 0; c < ch; c++) {
				const real *xc = x + c * plane;
				real v = 0;
				for (int k = 0; k < 4; k++)
					if (use[k])
						v += xc[off[k]] * wt[k];
				y[c * opix + q] = v;
			}
		}
	}
	return 0;
}
