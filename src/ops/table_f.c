/*
 * Table F of the op registry: signatures, shape/dtype rules and cost rules
 * of linalg_solve_triangular, linalg_cholesky, interpolate and grid_sample
 * (table_f.h).
 * The kernels are in src/ops/cpu/ (cpu64_f.c, cpu32_f.c from
 * linalg2_impl.h) and src/ops/cuda/ops_linalg2.cu.  Cost conventions:
 * docs/ops.md.
 */
#include <stdio.h>
#include <string.h>

#include "kjudge/dtype.h"
#include "ops/table_f.h"

#define T_REQ(nm) {.name = nm, .kind = KJ_ATTR_TENSOR, .required = 1}
#define A_REQ(nm, k) {.name = nm, .kind = k, .required = 1}
#define A_B(nm, v) {.name = nm, .kind = KJ_ATTR_BOOL, .def = {.kind = KJ_ATTR_BOOL, .i = (v)}}
#define A_S(nm, v) {.name = nm, .kind = KJ_ATTR_STR, .def = {.kind = KJ_ATTR_STR, .s = v}}

static const kj_param p_trsm[] = {T_REQ("A"), T_REQ("B"), A_REQ("upper", KJ_ATTR_BOOL),
				  A_B("left", 1), A_B("unitriangular", 0)};
static const kj_param p_chol[] = {T_REQ("A"), A_B("upper", 0)};
static const kj_param p_interp[] = {T_REQ("input"), A_REQ("size", KJ_ATTR_INTS),
				    A_S("mode", "nearest"), A_B("align_corners", 0)};
static const kj_param p_gs[] = {T_REQ("input"), T_REQ("grid"), A_S("mode", "bilinear"),
				A_S("padding_mode", "zeros"), A_B("align_corners", 0)};

/* A is [..., n, n] of dtype f32 (the only dtype the CUDA baseline has). */
static int check_square(const char *op, const kj_tinfo *a, char *msg, size_t len)
{
	char s[160];
	int r = a->shape.rank;
	if (a->dtype != KJ_F32)
		return kjo_fail(msg, len, "%s: A has dtype %s (only f32 is supported)", op,
				kj_dtype_name(a->dtype));
	if (r < 2 || a->shape.d[r - 1] != a->shape.d[r - 2])
		return kjo_fail(msg, len, "%s: A %s is not a batch of square matrices [..., n, n]", op,
				kjo_dims_str(a, s, sizeof s));
	return 0;
}

static int infer_trsm(kj_bnode *n, char *msg, size_t len)
{
	const kj_tinfo *a = &n->in[0], *b = &n->in[1];
	char s1[160], s2[160];
	int r = a->shape.rank, left = kjo_attr_i(n, KJF_TRSM_LEFT, 1) != 0;
	if (check_square("linalg_solve_triangular", a, msg, len))
		return -1;
	if (b->dtype != a->dtype)
		return kjo_fail(msg, len, "linalg_solve_triangular: B dtype %s differs from A dtype %s",
				kj_dtype_name(b->dtype), kj_dtype_name(a->dtype));
	if (b->shape.rank != r)
		return kjo_fail(msg, len, "linalg_solve_triangular: B %s must have A's rank %d "
				"(batch dims are not broadcast)", kjo_dims_str(b, s1, sizeof s1), r);
	for (int i = 0; i < r - 2; i++)
		if (a->shape.d[i] != b->shape.d[i])
			return kjo_fail(msg, len, "linalg_solve_triangular: batch dims of A %s and B %s "
					"differ", kjo_dims_str(a, s1, sizeof s1),
					kjo_dims_str(b, s2, sizeof s2));
	if (b->shape.d[left ? r - 2 : r - 1] != a->shape.d[r - 1])
		return kjo_fail(msg, len, "linalg_solve_triangular: B %s does not fit A %s (left=%s: "
				"expected B [..., n, k] for left=True, [..., k, n] for left=False)",
				kjo_dims_str(b, s1, sizeof s1), kjo_dims_str(a, s2, sizeof s2),
				left ? "True" : "False");
	n->out = *b;
	n->out.weak = 0;
	return 0;
}

/* n^2 k per matrix (n(n-1)/2 k multiply-adds and n k divisions, LAPACK's
 * convention); bytes: A's triangle, B and X. */
static void cost_trsm(const kj_bnode *n, kj_cost *c)
{
	kjf_trsm_geom g;
	double tri;
	kjf_trsm_geom_of(n, &g);
	tri = g.unit ? (double)g.n * (double)(g.n - 1) / 2 : (double)g.n * (double)(g.n + 1) / 2;
	c->flops = (double)g.batch * (double)g.n * (double)g.n * (double)g.k;
	c->min_bytes = (double)g.batch * tri * (double)kj_dtype_size(n->in[0].dtype) +
		       kjo_bytes(&n->in[1]) + kjo_bytes(&n->out);
}

static int infer_chol(kj_bnode *n, char *msg, size_t len)
{
	if (check_square("linalg_cholesky", &n->in[0], msg, len))
		return -1;
	n->out = n->in[0];
	n->out.weak = 0;
	return 0;
}

/* n^3 / 3 per matrix; bytes: A's lower triangle and the full result. */
static void cost_chol(const kj_bnode *n, kj_cost *c)
{
	const kj_shape *s = &n->in[0].shape;
	double nn = (double)s->d[s->rank - 1], batch = nn ? (double)kjo_numel(s) / (nn * nn) : 0;
	c->flops = batch * nn * nn * nn / 3;
	c->min_bytes = batch * nn * (nn + 1) / 2 * (double)kj_dtype_size(n->in[0].dtype) +
		       kjo_bytes(&n->out);
}

/* The mode of an interpolate node, or -1 for an unknown one. */
static int interp_mode(const kj_bnode *n)
{
	const char *m = kjo_attr(n, KJF_INTERP_MODE)->s;
	if (!strcmp(m, "nearest"))
		return KJF_NEAREST;
	if (!strcmp(m, "bilinear"))
		return KJF_BILINEAR;
	return -1;
}

static int infer_interp(kj_bnode *n, char *msg, size_t len)
{
	const kj_tinfo *x = &n->in[0];
	const kj_attr *sz = kjo_attr(n, KJF_INTERP_SIZE);
	char s[160];
	int mode = interp_mode(n);
	if (x->shape.rank != 4)
		return kjo_fail(msg, len, "interpolate: expected a 4-D input [N, C, H, W], got %s",
				kjo_dims_str(x, s, sizeof s));
	if (!kj_dtype_is_float(x->dtype))
		return kjo_fail(msg, len, "interpolate: input dtype %s is not a floating-point type",
				kj_dtype_name(x->dtype));
	if (mode < 0)
		return kjo_fail(msg, len, "interpolate: mode \"%s\" is not supported (expected "
				"\"nearest\" or \"bilinear\")", kjo_attr(n, KJF_INTERP_MODE)->s);
	if (mode == KJF_NEAREST && kjo_attr_i(n, KJF_INTERP_ALIGN, 0))
		return kjo_fail(msg, len, "interpolate: align_corners=True is only for the linear "
				"modes, not \"nearest\"");
	if (sz->kind != KJ_ATTR_INTS || sz->n < 1 || sz->n > 2)
		return kjo_fail(msg, len, "interpolate: size must have 1 or 2 entries");
	if (x->shape.d[2] < 1 || x->shape.d[3] < 1)
		return kjo_fail(msg, len, "interpolate: input %s has an empty spatial dim",
				kjo_dims_str(x, s, sizeof s));
	n->out = *x;
	n->out.weak = 0;
	for (int i = 0; i < 2; i++) {
		int k = sz->n == 1 ? 0 : i;
		if (sz->ints[k] < 1)
			return kjo_fail(msg, len, "interpolate: output size %lld must be positive",
					(long long)sz->ints[k]);
		n->out.shape.d[2 + i] = sz->ints[k];
		n->out.label[2 + i] = sz->label[k];
	}
	return 0;
}

/* bilinear: 7 per output element (two lerps along W, one along H); nearest
 * moves only.  Bytes: input and output. */
static void cost_interp(const kj_bnode *n, kj_cost *c)
{
	c->flops = interp_mode(n) == KJF_BILINEAR ? 7.0 * (double)kjo_numel(&n->out.shape) : 0;
	c->min_bytes = kjo_io_bytes(n);
}

static int infer_gs(kj_bnode *n, char *msg, size_t len)
{
	const kj_tinfo *x = &n->in[0], *g = &n->in[1];
	const char *mode = kjo_attr(n, KJF_GS_MODE)->s, *pad = kjo_attr(n, KJF_GS_PAD)->s;
	char s1[160], s2[160];
	if (x->shape.rank != 4)
		return kjo_fail(msg, len, "grid_sample: expected a 4-D input [N, C, H, W], got %s",
				kjo_dims_str(x, s1, sizeof s1));
	if (!kj_dtype_is_float(x->dtype))
		return kjo_fail(msg, len, "grid_sample: input dtype %s is not a floating-point type",
				kj_dtype_name(x->dtype));
	if (g->dtype != x->dtype)
		return kjo_fail(msg, len, "grid_sample: grid dtype %s differs from input dtype %s",
				kj_dtype_name(g->dtype), kj_dtype_name(x->dtype));
	if (g->shape.rank != 4 || g->shape.d[3] != 2 || g->shape.d[0] != x->shape.d[0])
		return kjo_fail(msg, len, "grid_sample: grid %s does not fit input %s (expected "
				"[N, Ho, Wo, 2] with the input's N)", kjo_dims_str(g, s1, sizeof s1),
				kjo_dims_str(x, s2, sizeof s2));
	if (strcmp(mode, "bilinear") && strcmp(mode, "nearest"))
		return kjo_fail(msg, len, "grid_sample: mode \"%s\" is not supported (expected "
				"\"bilinear\" or \"nearest\")", mode);
	if (kjf_gs_pad(n) < 0)
		return kjo_fail(msg, len, "grid_sample: padding_mode \"%s\" is not supported "
				"(expected \"zeros\", \"border\" or \"reflection\")", pad);
	n->out = *x;
	n->out.weak = 0;
	for (int i = 2; i < 4; i++) {
		n->out.shape.d[i] = g->shape.d[i - 1];
		n->out.label[i] = g->label[i - 1];
	}
	return 0;
}

/* bilinear: 7 per output element (four products with the weights, three
 * sums; the per-pixel coordinates and weights are not counted, as for
 * interpolate); nearest moves only.  Bytes: input, grid and output. */
static void cost_gs(const kj_bnode *n, kj_cost *c)
{
	int nearest = !strcmp(kjo_attr(n, KJF_GS_MODE)->s, "nearest");
	c->flops = nearest ? 0 : 7.0 * (double)kjo_numel(&n->out.shape);
	c->min_bytes = kjo_io_bytes(n);
}

#define NP(p) (int)(sizeof(p) / sizeof((p)[0])), p
#define KERNELS(k) kj_cpu64_##k, kj_cpu32_##k

const kj_op kj_ops_f[] = {
	{"linalg_solve_triangular",
	 "linalg_solve_triangular(A, B, upper, left=True, unitriangular=False): X solving A X = B "
	 "(left=True, B [..., n, k]) or X A = B (left=False, B [..., k, n]) for triangular A "
	 "[..., n, n]: only the upper (upper=True) or lower triangle of A is read, its diagonal "
	 "taken as 1 when unitriangular=True; result has B's shape; forward/back substitution",
	 NP(p_trsm), infer_trsm, cost_trsm, KERNELS(linalg_solve_triangular),
	 "f32 only; the batch dims of A and B must be equal (PyTorch broadcasts them); `upper` may "
	 "be given by position (keyword-only in PyTorch)"},
	{"linalg_cholesky",
	 "linalg_cholesky(A, upper=False): the Cholesky factor of symmetric positive-definite A "
	 "[..., n, n]: lower triangular L with a positive diagonal and A = L L^T (only A's lower "
	 "triangle is read; the upper triangle of the result is 0); upper=True gives L^T",
	 NP(p_chol), infer_chol, cost_chol, KERNELS(linalg_cholesky),
	 "f32 only; a matrix that is not positive definite is a run-time error of the CPU kernels "
	 "(PyTorch raises too)"},
	{"interpolate",
	 "interpolate(input, size, mode=\"nearest\", align_corners=False): F.interpolate of "
	 "[N, C, H, W] to [N, C, size[0], size[1]]; per dim scale = in/out (align_corners=True: "
	 "(in-1)/(out-1), 0 for out 1), in f32; \"nearest\": src = min(floor(dst*scale), in-1); "
	 "\"bilinear\": src = max(scale*(dst+0.5)-0.5, 0) (align_corners=True: scale*dst), "
	 "i0 = floor(src), i1 = min(i0+1, in-1), weight of i1 = src - i0, H and W separably",
	 NP(p_interp), infer_interp, cost_interp, KERNELS(interpolate),
	 "size only (no scale_factor); modes nearest and bilinear; align_corners defaults to False "
	 "(PyTorch: None, which means False)"},
	{"grid_sample",
	 "grid_sample(input, grid, mode=\"bilinear\", padding_mode=\"zeros\", align_corners=False): "
	 "F.grid_sample of input [N, C, H, W] at grid [N, Ho, Wo, 2] (last dim (x, y), x along W, "
	 "-1 and 1 the outer pixel edges; align_corners=True: the outer pixel centres) to "
	 "[N, C, Ho, Wo]; pixel coordinate ix = ((x+1)*W-1)/2 (align_corners=True: "
	 "(x+1)/2*(W-1)), iy likewise with H; \"border\" clamps it to [0, W-1], "
	 "\"reflection\" reflects it about the image's edges (align_corners=True: the outer "
	 "pixel centres) until inside, then clamps; \"bilinear\": "
	 "the 4 taps around (ix, iy) weighted by the fractional parts, taps outside the image "
	 "count 0; \"nearest\": the pixel at (round(ix), round(iy)), ties to even, 0 outside",
	 NP(p_gs), infer_gs, cost_gs, KERNELS(grid_sample),
	 "4-D only; modes bilinear and nearest (no bicubic); input and grid share one float "
	 "dtype; align_corners defaults to False "
	 "(PyTorch: None, which means False)"},
};

const int kj_ops_f_count = (int)(sizeof(kj_ops_f) / sizeof(kj_ops_f[0]));
