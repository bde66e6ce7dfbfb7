/*
 * Table F (src/ops/table_f.c): linalg_solve_triangular, linalg_cholesky,
 * interpolate, and the `spd` input distribution they are judged with.
 * Solves are checked against products computed here (B = tri(A) X with a
 * chosen X, so substitution is checked by multiplication), in all four
 * side/triangle combinations, with values in the unused triangle that must
 * be ignored; Cholesky against a factor known by hand and by reconstruction;
 * interpolate against PyTorch's documented results (2x2 -> 4x4 bilinear)
 * and a size where PyTorch's float index differs from the exact ratio;
 * grid_sample against values worked out by hand on a 2 x 3 image (corners,
 * the centre, points outside, both align_corners, both modes, the three
 * paddings, a tie of nearest's rounding).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kjudge/err.h"
#include "kjudge/rng.h"
#include "kjudge/task.h"
#include "ops/table_f.h"
#include "ops_testlib.h"

static const kj_op *find_f(const char *name)
{
	return kjt_find(kj_ops_f, kj_ops_f_count, name);
}

static void test_table(void)
{
	int complete = 1;
	is_int(kj_ops_f_count, 4, "table F has 4 ops");
	for (int i = 0; i < kj_ops_f_count; i++) {
		const kj_op *op = &kj_ops_f[i];
		complete &= op->doc && op->infer && op->cost && op->cpu64 && op->cpu32 && op->params &&
			    op->nparams > 0;
	}
	ok(complete, "every table F op has doc, infer, cost and both kernels");
	ok(kj_op_find("linalg_solve_triangular") && kj_op_find("linalg_cholesky") &&
		   kj_op_find("interpolate") && kj_op_find("grid_sample"),
	   "the registry finds the table F ops");
}

/* A [n, n] with a lower (or upper) triangle of small integers, a diagonal of
 * 2..4 and 99 in the other triangle (must be ignored). */
static void make_tri(double *a, int n, int upper, int seed)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			int in_tri = upper ? j >= i : j <= i;
			a[i * n + j] = !in_tri ? 99.0 : i == j ? 2.0 + (i + seed) % 3 :
					 (double)(((i * 7 + j * 3 + seed) % 5) - 2);
		}
}

/* The triangle's value at (i, j), 1 on the diagonal when unit. */
static double tri_at(const double *a, int n, int upper, int unit, int i, int j)
{
	if (upper ? j < i : j > i)
		return 0;
	if (i == j && unit)
		return 1;
	return a[i * n + j];
}

static void test_solve_known(void)
{
	enum { N = 4, K = 3, Q = 2 };
	double a[Q * N * N], x[Q * N * K], b[Q * N * K], out[Q * N * K];
	int64_t da[3] = {Q, N, N}, dl[3] = {Q, N, K}, dr[3] = {Q, K, N};
	for (int upper = 0; upper < 2; upper++)
		for (int left = 0; left < 2; left++)
			for (int unit = 0; unit < 2; unit++) {
				kj_bnode nd;
				for (int q = 0; q < Q; q++)
					make_tri(a + q * N * N, N, upper, q + 1);
				for (int i = 0; i < Q * N * K; i++)
					x[i] = (double)((i * 5 + 3) % 11) - 5;
				/* b = tri(A) x (left, x [N, K]) or x tri(A) (right, x [K, N]) */
				for (int q = 0; q < Q; q++) {
					const double *aq = a + q * N * N, *xq = x + q * N * K;
					double *bq = b + q * N * K;
					for (int r = 0; r < (left ? N : K); r++)
						for (int c = 0; c < (left ? K : N); c++) {
							double s = 0;
							for (int t = 0; t < N; t++)
								s += left ? tri_at(aq, N, upper, unit, r, t) * xq[t * K + c]
									  : xq[r * N + t] * tri_at(aq, N, upper, unit, t, c);
							bq[r * (left ? K : N) + c] = s;
						}
				}
				kjt_node(&nd, find_f("linalg_solve_triangular"), 2);
				tin(&nd, 0, KJ_F32, 3, da);
				tin(&nd, 1, KJ_F32, 3, left ? dl : dr);
				attr_b(&nd, KJF_TRSM_UPPER, upper);
				attr_b(&nd, KJF_TRSM_LEFT, left);
				attr_b(&nd, KJF_TRSM_UNIT, unit);
				const double *in[2] = {a, b};
				if (!ok(run64(&nd, in, out) == 0, "solve upper=%d left=%d unit=%d runs", upper,
					left, unit))
					printf("#   %s\n", got());
				ok(shape_is(&nd.out, 3, left ? dl : dr), "solve upper=%d left=%d: B's shape",
				   upper, left);
				ok(all_near(out, x, Q * N * K, 1e-12), "solve upper=%d left=%d unit=%d recovers X",
				   upper, left, unit);
				int64_t cnt[2] = {Q * N * N, Q * N * K};
				ok(kjt_worst(&nd, in, 2, cnt) < 1e-5, "solve upper=%d left=%d unit=%d: f32 "
				   "baseline near the oracle", upper, left, unit);
			}
}

static void test_solve_rules(void)
{
	kj_bnode nd;
	kj_cost c;
	int64_t a[3] = {2, 5, 5}, b[3] = {2, 5, 7}, bad[3] = {3, 5, 7}, ns[3] = {2, 5, 4},
		r2[2] = {5, 7};
	kjt_node(&nd, find_f("linalg_solve_triangular"), 2);
	tin(&nd, 0, KJ_F32, 3, a);
	tin(&nd, 1, KJ_F32, 3, b);
	attr_b(&nd, KJF_TRSM_UPPER, 0);
	ok(infer(&nd) == 0, "solve [2,5,5] [2,5,7] infers");
	nd.op->cost(&nd, &c);
	is_near(c.flops, 2.0 * 25 * 7, 0, "solve flops = batch n^2 k");
	is_near(c.min_bytes, (2.0 * 15 + 70 + 70) * 4, 0, "solve bytes = triangle + B + X");
	tin(&nd, 1, KJ_F32, 3, bad);
	ok(infer(&nd) < 0, "batch mismatch rejected");
	like(got(), "batch dims of A", "message names the batch dims");
	tin(&nd, 1, KJ_F32, 2, r2);
	ok(infer(&nd) < 0, "rank mismatch rejected");
	like(got(), "must have A's rank 3", "message names the rank");
	tin(&nd, 0, KJ_F32, 3, ns);
	tin(&nd, 1, KJ_F32, 3, b);
	ok(infer(&nd) < 0, "non-square A rejected");
	like(got(), "not a batch of square matrices", "message says square");
	tin(&nd, 0, KJ_F32, 3, a);
	attr_b(&nd, KJF_TRSM_LEFT, 0);
	ok(infer(&nd) < 0, "left=False with B [.., n, k] rejected");
	like(got(), "does not fit A", "message says B does not fit");
	attr_b(&nd, KJF_TRSM_LEFT, 1);
	tin(&nd, 0, KJ_F16, 3, a);
	tin(&nd, 1, KJ_F16, 3, b);
	ok(infer(&nd) < 0, "f16 rejected");
	like(got(), "only f32", "message says f32 only");
}

static void test_cholesky(void)
{
	/* the classic example: A = L L^T with L = [[2,0,0],[6,1,0],[-8,5,3]] */
	double a[9] = {4, 555, 777, 12, 37, 888, -16, -43, 98};
	double want[9] = {2, 0, 0, 6, 1, 0, -8, 5, 3}, wantu[9] = {2, 6, -8, 0, 1, 5, 0, 0, 3};
	double out[9], bad[4] = {1, 0, 2, 1};
	int64_t d[2] = {3, 3}, d2[2] = {2, 2}, cnt[1] = {9};
	kj_bnode nd;
	kj_cost c;
	kjt_node(&nd, find_f("linalg_cholesky"), 1);
	tin(&nd, 0, KJ_F32, 2, d);
	const double *in[1] = {a};
	ok(run64(&nd, in, out) == 0, "cholesky runs");
	ok(all_near(out, want, 9, 1e-12), "cholesky gives the known lower factor (upper of A ignored)");
	ok(kjt_worst(&nd, in, 1, cnt) < 1e-6, "cholesky f32 baseline near the oracle");
	nd.op->cost(&nd, &c);
	is_near(c.flops, 9.0, 1e-12, "cholesky flops = n^3 / 3");
	attr_b(&nd, KJF_CHOL_UPPER, 1);
	ok(run64(&nd, in, out) == 0 && all_near(out, wantu, 9, 1e-12), "upper=True gives L^T");
	kjt_node(&nd, find_f("linalg_cholesky"), 1);
	tin(&nd, 0, KJ_F32, 2, d2);
	in[0] = bad; /* [[1, .], [2, 1]]: 1 - 4 < 0 */
	ok(run64(&nd, in, out) < 0, "a matrix that is not positive definite fails");
	like(got(), "leading minor of order 2", "message names the minor");
}

/* Cholesky of `spd` draws: L L^T reconstructs A (both triangles). */
static void test_spd(void)
{
	enum { Q = 2, N = 9 };
	kj_dist sd = {KJ_DIST_SPD, N, 0};
	kj_outliers outl = {0.5, 50};
	double a[Q * N * N], l[Q * N * N];
	int sym = 1, dom = 1, same = 1, recon = 1;
	for (int i = 0; i < Q * N * N; i++)
		a[i] = kj_gen_value(&sd, NULL, 77, 3, (uint64_t)i);
	for (int q = 0; q < Q; q++)
		for (int i = 0; i < N; i++) {
			double off = 0;
			for (int j = 0; j < N; j++) {
				double v = a[q * N * N + i * N + j];
				sym &= v == a[q * N * N + j * N + i];
				if (i != j) {
					off += fabs(v);
					dom &= v >= -1 && v < 1;
				} else {
					dom &= v >= N && v < N + 1;
				}
			}
			dom &= off < a[q * N * N + i * N + i];
		}
	ok(sym, "spd: symmetric in every matrix");
	ok(dom, "spd: diagonal in [n, n+1), off-diagonal in [-1, 1), diagonally dominant");
	ok(a[0] != a[N * N], "spd: matrices of a batch differ");
	for (int i = 0; i < Q * N * N; i++)
		same &= kj_gen_value(&sd, &outl, 77, 3, (uint64_t)i) == a[i];
	ok(same, "spd: outliers are never injected");
	is_str(kj_dist_name(KJ_DIST_SPD), "spd", "dist name spd");

	kj_bnode nd;
	int64_t d[3] = {Q, N, N};
	kjt_node(&nd, find_f("linalg_cholesky"), 1);
	tin(&nd, 0, KJ_F32, 3, d);
	const double *in[1] = {a};
	ok(run64(&nd, in, l) == 0, "cholesky of spd draws runs");
	for (int q = 0; q < Q; q++)
		for (int i = 0; i < N; i++)
			for (int j = 0; j < N; j++) {
				double s = 0;
				for (int k = 0; k < N; k++)
					s += l[q * N * N + i * N + k] * l[q * N * N + j * N + k];
				recon &= fabs(s - a[q * N * N + i * N + j]) < 1e-12 * N;
			}
	ok(recon, "L L^T reconstructs the spd matrices");
}

static void test_spd_task(void)
{
	const char *good = "task t\ninput a: f32[Q, N, N] ~ spd\noutput y: f32[Q, N, N]\n"
			   "y = linalg_cholesky(a)\ncheck Q=2 N=5\n";
	const char *rect = "task t\ninput a: f32[N, M] ~ spd\noutput y: f32[N, M]\ny = a * 2.0\n"
			   "check N=3 M=4\n";
	const char *ints = "task t\ninput a: i32[N, N] ~ spd\noutput y: i32[N, N]\ny = a\n"
			   "check N=3\n";
	kj_task *t = NULL;
	kj_plan p;
	struct kj_err e;
	memset(&e, 0, sizeof e);
	if (!ok(kj_task_parse(good, strlen(good), "t.kt", &t, &e) == 0, "a task with ~ spd parses"))
		printf("#   %s\n", e.msg);
	if (t && ok(kj_plan_build(t, 0, &p, &e) == 0, "and binds")) {
		is_int(p.dists[0].kind, KJ_DIST_SPD, "bound distribution is spd");
		is_near(p.dists[0].a, 5, 0, "spd's a is the matrix size");
		kj_plan_release(&p);
	}
	kj_task_free(t);
	t = NULL;
	memset(&e, 0, sizeof e);
	ok(kj_task_parse(rect, strlen(rect), "t.kt", &t, &e) != 0, "spd on a non-square tensor fails");
	like(e.msg, "spd needs square matrices", "message says square matrices");
	kj_task_free(t);
	t = NULL;
	memset(&e, 0, sizeof e);
	ok(kj_task_parse(ints, strlen(ints), "t.kt", &t, &e) != 0, "spd on an integer tensor fails");
	like(e.msg, "integer dtype", "message names the dtype");
	kj_task_free(t);
}

static void interp_node(kj_bnode *nd, const int64_t *xd, int64_t oh, int64_t ow, const char *mode,
			int align)
{
	int64_t sz[2] = {oh, ow};
	kjt_node(nd, find_f("interpolate"), 1);
	tin(nd, 0, KJ_F32, 4, xd);
	attr_ints(nd, KJF_INTERP_SIZE, 2, sz);
	attr_s(nd, KJF_INTERP_MODE, mode);
	if (align >= 0)
		attr_b(nd, KJF_INTERP_ALIGN, align);
}

static void test_interpolate(void)
{
	double x[4] = {1, 2, 3, 4}, out[16];
	/* F.interpolate(torch.tensor([[[[1., 2.], [3., 4.]]]]), size=(4, 4),
	 * mode="bilinear", align_corners=False) */
	double want[16] = {1, 1.25, 1.75, 2, 1.5, 1.75, 2.25, 2.5,
			   2.5, 2.75, 3.25, 3.5, 3, 3.25, 3.75, 4};
	/* align_corners=True, size (3, 3) */
	double want_ac[9] = {1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4};
	double want_near[16] = {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4};
	int64_t xd[4] = {1, 1, 2, 2}, od[4] = {1, 1, 4, 4}, cnt[1] = {4};
	const double *in[1] = {x};
	kj_bnode nd;
	kj_cost c;
	interp_node(&nd, xd, 4, 4, "bilinear", 0);
	ok(run64(&nd, in, out) == 0 && shape_is(&nd.out, 4, od), "bilinear 2x2 -> 4x4 runs");
	ok(all_near(out, want, 16, 1e-12), "bilinear half-pixel values as PyTorch");
	ok(kjt_worst(&nd, in, 1, cnt) < 1e-7, "bilinear f32 baseline near the oracle");
	nd.op->cost(&nd, &c);
	is_near(c.flops, 7.0 * 16, 0, "bilinear flops 7 per output");
	interp_node(&nd, xd, 3, 3, "bilinear", 1);
	ok(run64(&nd, in, out) == 0 && all_near(out, want_ac, 9, 1e-12),
	   "bilinear align_corners=True values");
	interp_node(&nd, xd, 4, 4, "nearest", -1);
	ok(run64(&nd, in, out) == 0 && all_near(out, want_near, 16, 1e-12), "nearest 2x upsampling");
	nd.op->cost(&nd, &c);
	is_near(c.flops, 0, 0, "nearest has no flops");

	/* 26 -> 22 rows: floor(11 * f32(26/22)) in f32 is 12, the exact ratio 13 */
	enum { H = 26 };
	double col[H], o22[22];
	int64_t cd[4] = {1, 1, H, 1};
	for (int i = 0; i < H; i++)
		col[i] = i;
	in[0] = col;
	interp_node(&nd, cd, 22, 1, "nearest", -1);
	ok(run64(&nd, in, o22) == 0, "nearest 26 -> 22 runs");
	is_near(o22[11], 12, 0, "nearest uses PyTorch's float product (row 11 reads 12, not 13)");
	is_near(o22[21], 24, 0, "last row reads floor(21 * 26/22) = 24");

	interp_node(&nd, xd, 4, 4, "bicubic", 0);
	ok(infer(&nd) < 0, "bicubic rejected");
	like(got(), "not supported", "message says not supported");
	interp_node(&nd, xd, 4, 4, "nearest", 1);
	ok(infer(&nd) < 0, "nearest with align_corners=True rejected");
	like(got(), "only for the linear modes", "message says linear modes");
	int64_t x3[3] = {1, 2, 2};
	interp_node(&nd, xd, 4, 4, "nearest", -1);
	tin(&nd, 0, KJ_F32, 3, x3);
	ok(infer(&nd) < 0, "3-D input rejected");
	like(got(), "expected a 4-D input", "message says 4-D");
}

static void gs_node(kj_bnode *nd, const int64_t *xd, const int64_t *gd, const char *mode,
		    const char *pad, int align)
{
	kjt_node(nd, find_f("grid_sample"), 2);
	tin(nd, 0, KJ_F32, 4, xd);
	tin(nd, 1, KJ_F32, 4, gd);
	if (mode)
		attr_s(nd, KJF_GS_MODE, mode);
	if (pad)
		attr_s(nd, KJF_GS_PAD, pad);
	if (align >= 0)
		attr_b(nd, KJF_GS_ALIGN, align);
}

/*
 * Image x = [[1, 2, 3], [4, 5, 6]] (H 2, W 3) and its copy times 10 as a
 * second channel, sampled at six grid points (Ho 2, Wo 3):
 *   P1 (-1, -1) the top-left corner,  P2 (0, 0) the centre,
 *   P3 (1, 1) the bottom-right corner, P4 (2, 0) right of the image,
 *   P5 (-50, 7) far outside,           P6 (-0.5, -0.25) inside.
 * align_corners=False: ix = ((x + 1) * 3 - 1) / 2, iy = ((y + 1) * 2 - 1) / 2:
 *   P1 (-0.5, -0.5): bilinear zeros: only tap (0, 0) is inside, weight
 *      0.25 -> 0.25; border clamps to (0, 0) -> 1; nearest rounds -0.5 to
 *      0 (half to even) -> 1.
 *   P2 (1, 0.5): bilinear 0.5 * 2 + 0.5 * 5 = 3.5; nearest: row rint(0.5)
 *      = 0 -> 2 (half away from zero would give 5).
 *   P3 (2.5, 1.5): bilinear zeros: tap (2, 1) weight 0.25 -> 1.5; border
 *      (2, 1) -> 6; nearest zeros: (2, 2) is outside -> 0; border -> 6.
 *   P4 (4, 0.5): zeros -> 0 both modes; border (2, 0.5): bilinear 4.5,
 *      nearest (2, 0) -> 3.
 *   P5: zeros -> 0; border (0, 1) -> 4.
 *   P6 (0.25, 0.25): bilinear 0.5625*1 + 0.1875*2 + 0.1875*4 + 0.0625*5
 *      = 2; nearest (0, 0) -> 1.
 * align_corners=True: ix = (x + 1) / 2 * 2, iy = (y + 1) / 2 * 1:
 *   P1 (0, 0) -> 1; P2 (1, 0.5) -> 3.5, nearest 2; P3 (2, 1) -> 6;
 *   P4 (3, 0.5): zeros 0; border bilinear 4.5, nearest 3; P5: zeros 0,
 *   border 4; P6 (0.5, 0.375): bilinear 0.3125*1 + 0.3125*2 + 0.1875*4 +
 *   0.1875*5 = 2.625; nearest (0, 0) -> 1.
 * reflection folds c into [lo, lo + span] (align_corners=False: lo = -0.5,
 * span = size; True: lo = 0, span = size - 1) by |c - lo| = k span + r:
 * lo + r for even k, lo + span - r for odd k, then clips to [0, size - 1]:
 *   False: P1 -> (0, 0) = 1; P3 (2.5, 1.5): k = 1, r = 0 -> (2.5, 1.5),
 *   clipped (2, 1) = 6; P4 ix 4.5 - lo = 5 = 3 + 2 -> 3 - 2 - 0.5 = 1, so
 *   (1, 0.5): bilinear 3.5, nearest 2; P5 ix -74: 73.5 = 24 * 3 + 1.5 ->
 *   1, iy 7.5: 8 = 4 * 2 -> -0.5, clipped 0: (1, 0) = 2.
 *   True: P4 ix 3 = 2 + 1 -> 1: (1, 0.5); P5 ix -49: 49 = 24 * 2 + 1 -> 1,
 *   iy 4 = 4 * 1 -> 0: (1, 0) = 2.
 */
static void test_grid_sample(void)
{
	double x[12] = {1, 2, 3, 4, 5, 6, 10, 20, 30, 40, 50, 60};
	double grid[12] = {-1, -1, 0, 0, 1, 1, 2, 0, -50, 7, -0.5, -0.25};
	static const struct {
		const char *mode, *pad;
		int align;
		double want[6];
	} cases[] = {
		{"bilinear", "zeros", 0, {0.25, 3.5, 1.5, 0, 0, 2}},
		{"bilinear", "border", 0, {1, 3.5, 6, 4.5, 4, 2}},
		{"nearest", "zeros", 0, {1, 2, 0, 0, 0, 1}},
		{"nearest", "border", 0, {1, 2, 6, 3, 4, 1}},
		{"bilinear", "zeros", 1, {1, 3.5, 6, 0, 0, 2.625}},
		{"bilinear", "border", 1, {1, 3.5, 6, 4.5, 4, 2.625}},
		{"nearest", "zeros", 1, {1, 2, 6, 0, 0, 1}},
		{"nearest", "border", 1, {1, 2, 6, 3, 4, 1}},
		{"bilinear", "reflection", 0, {1, 3.5, 6, 3.5, 2, 2}},
		{"nearest", "reflection", 0, {1, 2, 6, 2, 2, 1}},
		{"bilinear", "reflection", 1, {1, 3.5, 6, 3.5, 2, 2.625}},
		{"nearest", "reflection", 1, {1, 2, 6, 2, 2, 1}},
	};
	int64_t xd[4] = {1, 2, 2, 3}, gd[4] = {1, 2, 3, 2}, od[4] = {1, 2, 2, 3}, cnt[2] = {12, 12};
	const double *in[2] = {x, grid};
	double out[12], want[12];
	kj_bnode nd;
	kj_cost c;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		gs_node(&nd, xd, gd, cases[i].mode, cases[i].pad, cases[i].align);
		for (int k = 0; k < 6; k++) {
			want[k] = cases[i].want[k];
			want[6 + k] = 10 * cases[i].want[k];
		}
		if (!ok(run64(&nd, in, out) == 0 && shape_is(&nd.out, 4, od),
			"grid_sample %s %s align_corners=%d runs, out [1, 2, 2, 3]", cases[i].mode,
			cases[i].pad, cases[i].align))
			printf("#   %s\n", got());
		ok(all_near(out, want, 12, 1e-12), "grid_sample %s %s align_corners=%d: values by hand",
		   cases[i].mode, cases[i].pad, cases[i].align);
		ok(kjt_worst(&nd, in, 2, cnt) < 1e-7,
		   "grid_sample %s %s align_corners=%d: f32 baseline equals the oracle", cases[i].mode,
		   cases[i].pad, cases[i].align);
	}
	gs_node(&nd, xd, gd, NULL, NULL, -1);
	ok(run64(&nd, in, out) == 0 && all_near(out, (double[]){0.25, 3.5, 1.5, 0, 0, 2}, 6, 1e-12),
	   "grid_sample defaults: bilinear, zeros, align_corners=False");
	nd.op->cost(&nd, &c);
	is_near(c.flops, 7.0 * 12, 0, "grid_sample bilinear flops 7 per output");
	is_near(c.min_bytes, 4.0 * (12 + 12 + 12), 0, "grid_sample bytes: input, grid, output");
	gs_node(&nd, xd, gd, "nearest", NULL, -1);
	ok(infer(&nd) == 0, "nearest infers");
	nd.op->cost(&nd, &c);
	is_near(c.flops, 0, 0, "grid_sample nearest has no flops");

	/* a pixel coordinate that f32 rounds: g = 0.1 + 2^-24 on W = 1000 */
	double g1[2] = {0.1 + ldexp(1.0, -24), 0}, x1[1000], o1[1];
	int64_t x1d[4] = {1, 1, 1, 1000}, g1d[4] = {1, 1, 1, 2};
	for (int i = 0; i < 1000; i++)
		x1[i] = i;
	in[0] = x1;
	in[1] = g1;
	gs_node(&nd, x1d, g1d, "bilinear", "border", 0);
	ok(run64(&nd, in, o1) == 0 && near(o1[0], ((g1[0] + 1) * 1000 - 1) / 2, 1e-9),
	   "oracle's pixel coordinate is the exact one (ramp image returns ix)");

	gs_node(&nd, xd, gd, "bicubic", NULL, -1);
	ok(infer(&nd) < 0, "bicubic rejected");
	like(got(), "mode \"bicubic\" is not supported", "message names the mode");
	gs_node(&nd, xd, gd, NULL, "circular", -1);
	ok(infer(&nd) < 0, "circular padding rejected");
	like(got(), "padding_mode \"circular\" is not supported", "message names the padding");
	int64_t gbad[4] = {1, 2, 3, 3}, gn[4] = {2, 2, 3, 2}, x3[3] = {2, 2, 3};
	gs_node(&nd, xd, gbad, NULL, NULL, -1);
	ok(infer(&nd) < 0, "grid with last dim 3 rejected");
	like(got(), "does not fit input", "message says the grid does not fit");
	gs_node(&nd, xd, gn, NULL, NULL, -1);
	ok(infer(&nd) < 0, "grid with another N rejected");
	gs_node(&nd, xd, gd, NULL, NULL, -1);
	tin(&nd, 0, KJ_F32, 3, x3);
	ok(infer(&nd) < 0, "3-D input rejected");
	like(got(), "expected a 4-D input", "message says 4-D");
	gs_node(&nd, xd, gd, NULL, NULL, -1);
	tin(&nd, 1, KJ_BF16, 4, gd);
	ok(infer(&nd) < 0, "grid dtype other than the input's rejected");
	like(got(), "grid dtype bf16 differs", "message names both dtypes");
}

int main(void)
{
	test_table();
	test_solve_known();
	test_solve_rules();
	test_cholesky();
	test_spd();
	test_spd_task();
	test_interpolate();
	test_grid_sample();
	return done_testing();
}
