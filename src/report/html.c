/*
 * The HTML report: one self-contained page (inline CSS, inline SVG, no script,
 * nothing fetched), with the run's manifest, the tables of the Markdown report
 * (per task and per candidate too, with ids a test can find) and six charts
 * drawn here as SVG: fast_p against p, fast_p@k and fast_p@N curves, a
 * histogram of speedups in log2 bins, a roofline plot and category bars.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_internal.h"

enum { W = 560, H = 320, ML = 64, MR = 120, MT = 30, MB = 46 };

static const char *const palette[] = { "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
				       "#9467bd", "#8c564b", "#e377c2", "#17becf" };
#define NCOL ((int)(sizeof(palette) / sizeof(palette[0])))

struct axis {
	double lo, hi;
	int log;     /* 0 linear, else the log base (2 or 10) */
	int integer; /* linear ticks at whole numbers only (k, rounds) */
};

static double ax_pos(const struct axis *a, double v, double p0, double p1)
{
	double t;
	if (a->log)
		t = (log(v) - log(a->lo)) / (log(a->hi) - log(a->lo));
	else
		t = (v - a->lo) / (a->hi - a->lo);
	return p0 + t * (p1 - p0);
}

static double px(const struct axis *a, double v)
{
	return ax_pos(a, v, ML, W - MR);
}

static double py(const struct axis *a, double v)
{
	return ax_pos(a, v, H - MB, MT);
}

static void label_num(char *buf, size_t n, double v)
{
	if (v != 0 && (fabs(v) >= 1e5 || fabs(v) < 1e-2))
		snprintf(buf, n, "%.0e", v);
	else
		snprintf(buf, n, "%g", v);
}

/* Opens an <svg> with a title, the frame, ticks and axis labels. */
static void frame(struct kjr_buf *b, const char *title, const struct axis *x, const struct axis *y,
		  const char *xl, const char *yl)
{
	char t[32];
	kjr_printf(b, "<figure><svg viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\">"
		   "<title>", W, H, W, H);
	kjr_html(b, title);
	kjr_printf(b, "</title><rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#fff\"/>"
		   "<text x=\"%d\" y=\"18\" class=\"t\">", W, H, ML);
	kjr_html(b, title);
	kjr_puts(b, "</text>");
	for (int axis = 0; axis < 2; axis++) {
		const struct axis *a = axis ? y : x;
		double v, step;
		if (a->log) {
			v = pow(a->log, ceil(log(a->lo) / log(a->log) - 1e-9));
			step = a->log;
		} else {
			double span = a->hi - a->lo, mag = pow(10, floor(log10(span / 5)));
			step = span / mag > 25 ? 5 * mag : span / mag > 10 ? 2 * mag : mag;
			if (a->integer && step < 1)
				step = 1;
			v = ceil(a->lo / step - 1e-9) * step;
		}
		for (int i = 0; i < 40 && v <= a->hi * (1 + 1e-9); i++) {
			label_num(t, sizeof(t), fabs(v) < 1e-12 ? 0 : v);
			if (axis)
				kjr_printf(b, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" class=\"g\"/>"
					   "<text x=\"%d\" y=\"%.1f\" class=\"yl\">%s</text>",
					   ML, W - MR, py(a, v), py(a, v), ML - 4, py(a, v) + 4, t);
			else
				kjr_printf(b, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" class=\"g\"/>"
					   "<text x=\"%.1f\" y=\"%d\" class=\"xl\">%s</text>",
					   px(a, v), px(a, v), MT, H - MB, px(a, v), H - MB + 14, t);
			v = a->log ? v * step : v + step;
		}
	}
	kjr_printf(b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" class=\"f\"/>", ML, MT,
		   W - ML - MR, H - MT - MB);
	kjr_printf(b, "<text x=\"%d\" y=\"%d\" class=\"al\">%s</text>", (ML + W - MR) / 2, H - 8, xl);
	kjr_printf(b, "<text transform=\"translate(14 %d) rotate(-90)\" class=\"al\">%s</text>",
		   (MT + H - MB) / 2, yl);
}

static void legend(struct kjr_buf *b, int i, const char *name)
{
	kjr_printf(b, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
		   "<text x=\"%d\" y=\"%d\" class=\"lg\">", W - MR + 8, MT + 4 + 16 * i,
		   palette[i % NCOL], W - MR + 22, MT + 13 + 16 * i);
	kjr_html(b, name);
	kjr_puts(b, "</text>");
}

static void end_svg(struct kjr_buf *b, const char *caption)
{
	kjr_puts(b, "</svg><figcaption>");
	kjr_html(b, caption);
	kjr_puts(b, "</figcaption></figure>\n");
}

static void no_data(struct kjr_buf *b)
{
	kjr_printf(b, "<text x=\"%d\" y=\"%d\" class=\"nd\">no data</text>", (ML + W - MR) / 2, H / 2);
}

/* One polyline with markers; NAN points are left out. */
static void series(struct kjr_buf *b, const struct axis *x, const struct axis *y, const double *xs,
		   const double *ys, int n, int color)
{
	kjr_printf(b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
		   palette[color % NCOL]);
	for (int i = 0; i < n; i++)
		if (isfinite(ys[i]))
			kjr_printf(b, "%.1f,%.1f ", px(x, xs[i]), py(y, ys[i]));
	kjr_puts(b, "\"/>");
	for (int i = 0; i < n; i++)
		if (isfinite(ys[i]))
			kjr_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>", px(x, xs[i]),
				   py(y, ys[i]), palette[color % NCOL]);
}

static void chart_fast_p(struct kjr_buf *b, const kj_score_summary *s)
{
	struct axis x = { 0, 2, 0, 0 }, y = { 0, 1, 0, 0 };
	double ys[KJ_SCORE_NP];
	frame(b, "fast_p against p", &x, &y, "speedup threshold p", "fast_p");
	if (s->all.not_timed)
		no_data(b);
	series(b, &x, &y, kj_score_p, s->all.fast_p, KJ_SCORE_NP, 0);
	legend(b, 0, "all");
	for (int m = 0; s->n_model > 1 && m < s->n_model && m < NCOL - 1; m++) {
		memcpy(ys, s->by_model[m].fast_p, sizeof(ys));
		series(b, &x, &y, kj_score_p, ys, KJ_SCORE_NP, m + 1);
		legend(b, m + 1, s->by_model[m].key);
	}
	end_svg(b, "Share of (model, task) items whose first-round candidate is correct and faster "
		   "than the eager baseline by more than p (failures are misses).");
}

/* fast_p@k or @N: one curve per p. */
static void chart_curve(struct kjr_buf *b, const char *title, const char *xl, int n,
			double (*v)[KJ_SCORE_NP], int base, const char *caption)
{
	struct axis x = { base, base + (n > 1 ? n - 1 : 1), 0, 1 }, y = { 0, 1, 0, 0 };
	double xs[256], ys[256];
	int m = n < 256 ? n : 256;
	frame(b, title, &x, &y, xl, "fast_p");
	if (!n)
		no_data(b);
	for (int p = 0; p < KJ_SCORE_NP && n; p++) {
		char name[32];
		for (int i = 0; i < m; i++) {
			xs[i] = base + i;
			ys[i] = v[i][p];
		}
		series(b, &x, &y, xs, ys, m, p);
		snprintf(name, sizeof(name), "p = %s", kj_score_p_key[p]);
		legend(b, p, name);
	}
	end_svg(b, caption);
}

static void chart_histogram(struct kjr_buf *b, const kj_score_summary *s)
{
	int lo = 0, hi = 0, cnt[128] = { 0 }, maxc = 1;
	struct axis x, y;
	for (size_t i = 0; i < s->n_speedups; i++) {
		int k = (int)floor(log2(s->speedups[i]));
		if (i == 0 || k < lo)
			lo = k;
		if (i == 0 || k > hi)
			hi = k;
	}
	if (hi - lo > 100)
		lo = hi - 100;
	for (size_t i = 0; i < s->n_speedups; i++) {
		int k = (int)floor(log2(s->speedups[i]));
		k = k < lo ? lo : k;
		if (++cnt[k - lo] > maxc)
			maxc = cnt[k - lo];
	}
	memset(&x, 0, sizeof(x));
	memset(&y, 0, sizeof(y));
	x.lo = pow(2, lo), x.hi = pow(2, hi + 1), x.log = 2;
	y.lo = 0, y.hi = maxc, y.log = 0;
	frame(b, "Speedups of correct candidates", &x, &y, "speedup over the eager baseline (log2 bins)",
	      "candidates");
	if (!s->n_speedups)
		no_data(b);
	for (int k = lo; k <= hi && s->n_speedups; k++) {
		double x0 = px(&x, pow(2, k)), x1 = px(&x, pow(2, k + 1));
		if (!cnt[k - lo] || x1 > W - MR + 0.5)
			continue;
		kjr_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\">"
			   "<title>[%g, %g): %d</title></rect>", x0 + 1, py(&y, cnt[k - lo]), x1 - x0 - 2,
			   py(&y, 0) - py(&y, cnt[k - lo]), k < 0 ? palette[1] : palette[2], pow(2, k),
			   pow(2, k + 1), cnt[k - lo]);
	}
	end_svg(b, "Green: faster than the baseline; red: slower.");
}

static double decade_floor(double v)
{
	return pow(10, floor(log10(v)));
}

static double decade_ceil(double v)
{
	return pow(10, ceil(log10(v)));
}

static void chart_roofline(struct kjr_buf *b, const kj_score_run *r)
{
	double xlo = INFINITY, xhi = 0, ylo = INFINITY, yhi = 0;
	int npts = 0;
	struct axis x, y;
	for (size_t i = 0; i < r->n; i++) {
		const struct kj_score_cand *c = &r->c[i];
		for (int k = 0; c->correct && k < c->nshapes; k++) {
			const struct kj_score_shape *sh = &c->shapes[k];
			double ai, rate;
			if (!(sh->flops > 0 && sh->bytes > 0 && sh->ms > 0))
				continue;
			ai = sh->flops / sh->bytes;
			rate = sh->flops / (sh->ms * 1e-3) / 1e9;
			xlo = fmin(xlo, ai), xhi = fmax(xhi, ai);
			ylo = fmin(ylo, rate), yhi = fmax(yhi, rate);
			npts++;
		}
	}
	for (int d = 0; d < r->nroofs && d < 1; d++)
		for (int k = 0; k < r->roofs[d].nrates; k++)
			yhi = fmax(yhi, r->roofs[d].rate_tflops[k] * 1e3);
	if (!npts) {
		xlo = 0.1, xhi = 100;
		if (!(ylo < INFINITY))
			ylo = 1;
		if (!(yhi > 0))
			yhi = 1e3;
	}
	memset(&x, 0, sizeof(x));
	memset(&y, 0, sizeof(y));
	x.lo = decade_floor(xlo), x.hi = decade_ceil(xhi * 1.0001), x.log = 10;
	y.lo = decade_floor(ylo), y.hi = decade_ceil(yhi * 1.0001), y.log = 10;
	if (x.hi <= x.lo)
		x.hi = x.lo * 10;
	if (y.hi <= y.lo)
		y.hi = y.lo * 10;
	frame(b, "Roofline", &x, &y, "arithmetic intensity (FLOP/byte)", "achieved GFLOP/s");
	if (!npts)
		no_data(b);
	/* the roofs of the first calibrated device: several GPUs of one run
	 * are of one kind, and one set of lines stays readable */
	for (int d = 0; d < r->nroofs && d < 1; d++) {
		const struct kj_score_roof *f = &r->roofs[d];
		for (int k = 0; k < f->nrates; k++) {
			double peak = f->rate_tflops[k] * 1e3, ridge, xs[3];
			char name[64];
			if (peak < y.lo)
				continue;
			/* min(x * bandwidth, peak) is two straight pieces on log axes:
			 * its ends and the ridge point are enough */
			xs[0] = f->copy_gbs > 0 ? fmax(x.lo, y.lo / f->copy_gbs) : x.lo;
			ridge = f->copy_gbs > 0 ? peak / f->copy_gbs : x.lo;
			xs[1] = ridge > xs[0] && ridge < x.hi ? ridge : xs[0];
			xs[2] = x.hi;
			kjr_printf(b, "<polyline fill=\"none\" stroke=\"%s\" stroke-dasharray=\"5 3\" points=\"",
				   palette[(k + 1) % NCOL]);
			for (int q = 0; q < 3; q++) {
				double yv = f->copy_gbs > 0 ? fmin(xs[q] * f->copy_gbs, peak) : peak;
				kjr_printf(b, "%.1f,%.1f ", px(&x, xs[q]), py(&y, fmin(yv, y.hi)));
			}
			kjr_puts(b, "\"/>");
			snprintf(name, sizeof(name), "%s peak", f->rate_name[k]);
			legend(b, k + 1, name);
		}
	}
	if (npts)
		legend(b, 0, "bench shapes");
	for (size_t i = 0; i < r->n; i++) {
		const struct kj_score_cand *c = &r->c[i];
		for (int k = 0; c->correct && k < c->nshapes; k++) {
			const struct kj_score_shape *sh = &c->shapes[k];
			if (!(sh->flops > 0 && sh->bytes > 0 && sh->ms > 0))
				continue;
			kjr_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" class=\"pt\"><title>",
				   px(&x, sh->flops / sh->bytes), py(&y, sh->flops / (sh->ms * 1e-3) / 1e9));
			kjr_html(b, c->task);
			kjr_printf(b, " %s %.4g ms</title></circle>", c->model, sh->ms);
		}
	}
	end_svg(b, r->nroofs ? "Bench shapes of correct candidates; dashed: the calibrated roofs "
			       "min(intensity x copy bandwidth, peak rate)."
			     : "Bench shapes of correct candidates (no calibration: no roofs).");
}

static void chart_categories(struct kjr_buf *b, const kj_score_summary *s)
{
	int n = s->n_category, h = MT + 20 + 34 * (n ? n : 1) + 20, lw = 150, bw = W - lw - 40;
	kjr_printf(b, "<figure><svg viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\">"
		   "<title>Categories</title><rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#fff\"/>"
		   "<text x=\"%d\" y=\"18\" class=\"t\">Correct rate and fast_1 per category</text>",
		   W, h, W, h, W, h, ML);
	if (!n)
		kjr_printf(b, "<text x=\"%d\" y=\"%d\" class=\"nd\">no data</text>", W / 2, h / 2);
	for (int i = 0; i < n; i++) {
		const struct kj_score_group *g = &s->by_category[i];
		double v[2] = { g->correct_rate, g->fast_p[3] };
		int y0 = MT + 20 + 34 * i;
		kjr_printf(b, "<text x=\"%d\" y=\"%d\" class=\"yl\">", lw - 6, y0 + 18);
		kjr_html(b, g->key);
		kjr_puts(b, "</text>");
		for (int k = 0; k < 2; k++) {
			double w = isfinite(v[k]) ? v[k] * bw : 0;
			kjr_printf(b, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"13\" fill=\"%s\"/>"
				   "<text x=\"%.1f\" y=\"%d\" class=\"lg\">%.0f%%</text>",
				   lw, y0 + 14 * k, w, palette[k == 0 ? 0 : 3], lw + w + 4, y0 + 14 * k + 11,
				   isfinite(v[k]) ? 100 * v[k] : 0);
		}
	}
	kjr_printf(b, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
		   "<text x=\"%d\" y=\"%d\" class=\"lg\">correct (candidates)</text>"
		   "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
		   "<text x=\"%d\" y=\"%d\" class=\"lg\">fast_1 (items)</text>",
		   lw, h - 16, palette[0], lw + 14, h - 7, lw + 170, h - 16, palette[3], lw + 184, h - 7);
	end_svg(b, "Bars are shares from 0 to 100%.");
}

static void table_head(struct kjr_buf *b, const char *first)
{
	kjr_printf(b, "<table><tr><th>%s</th><th>tasks</th><th>candidates</th><th>judged</th>"
		   "<th>compiled</th><th>call ok</th><th>correct</th><th>Correct/Compile</th>", first);
	for (int p = 0; p < KJ_SCORE_NP; p++)
		kjr_printf(b, "<th>fast_%s</th>", kj_score_p_key[p]);
	kjr_puts(b, "<th>geomean speedup</th><th>SOL median</th><th>IOU median</th><th>MFU median</th>"
		 "<th>S_agg</th><th>fallback</th></tr>\n");
}

static void table_row(struct kjr_buf *b, const char *key, const struct kj_score_group *g)
{
	char t[32];
	kjr_puts(b, "<tr><td>");
	kjr_html(b, key);
	kjr_printf(b, "</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%s</td>",
		   g->tasks, g->candidates, g->judged, g->compiled, g->call_ok, g->correct,
		   kjr_fmt(t, sizeof(t), g->correct_per_compile, 3));
	for (int p = 0; p < KJ_SCORE_NP; p++)
		kjr_printf(b, "<td>%s</td>", g->not_timed ? "not timed" : kjr_fmt(t, sizeof(t), g->fast_p[p], 3));
	kjr_printf(b, "<td>%s</td>", kjr_fmt(t, sizeof(t), g->speedup_geomean, 3));
	kjr_printf(b, "<td>%s</td>", kjr_fmt(t, sizeof(t), g->sol_frac_median, 3));
	kjr_printf(b, "<td>%s</td>", kjr_fmt(t, sizeof(t), g->iou_median, 3));
	kjr_printf(b, "<td>%s</td>", kjr_fmt(t, sizeof(t), g->mfu_median, 3));
	kjr_printf(b, "<td>%s</td>", kjr_fmt(t, sizeof(t), g->s_agg, 3));
	kjr_printf(b, "<td>%s</td></tr>\n", kjr_pct(t, sizeof(t), g->fallback_rate));
}

static void table(struct kjr_buf *b, const char *title, const char *first,
		  const struct kj_score_group *g, int n)
{
	if (!n)
		return;
	kjr_printf(b, "<h2>%s</h2>\n", title);
	table_head(b, first);
	for (int i = 0; i < n; i++)
		table_row(b, g[i].key, &g[i]);
	kjr_puts(b, "</table>\n");
}

static const char css[] =
	"body{font-family:sans-serif;margin:16px;color:#222;background:#fafafa}"
	"table{border-collapse:collapse;margin:8px 0 16px;font-size:12px}"
	"th,td{border:1px solid #ccc;padding:2px 5px;text-align:right}"
	"th:first-child,td:first-child{text-align:left}th{background:#eee}"
	"figure{display:inline-block;margin:4px;vertical-align:top}"
	"figcaption{font-size:12px;color:#555;max-width:560px}"
	"svg text{font-family:sans-serif;font-size:11px;fill:#333}"
	"svg .t{font-size:14px;font-weight:bold}svg .yl{text-anchor:end}svg .xl{text-anchor:middle}"
	"svg .al{text-anchor:middle;font-size:12px}svg .nd{text-anchor:middle;fill:#999;font-size:16px}"
	"svg .g{stroke:#e4e4e4}svg .f{fill:none;stroke:#888}svg .pt{fill:#1f77b4;fill-opacity:.6}"
	"table.kv td{text-align:left}td.txt{text-align:left}td.pass{background:#e2f2e2}"
	"td.fail{background:#f7e1e1}td.pending{background:#eee}p.note{font-size:13px;color:#444}";

/* A text cell, cut after max characters; the whole text as its tooltip. */
static void text_td(struct kjr_buf *b, const char *s, size_t max)
{
	char t[1024];
	kjr_trunc(t, sizeof(t), s, max);
	kjr_puts(b, "<td class=\"txt\"");
	if (strcmp(t, s)) {
		kjr_puts(b, " title=\"");
		kjr_html(b, s);
		kjr_puts(b, "\"");
	}
	kjr_puts(b, ">");
	kjr_html(b, t);
	kjr_puts(b, "</td>");
}

static void manifest(struct kjr_buf *b, const kj_score_run *r, const kj_score_summary *s)
{
	struct kjr_item it[KJR_MAX_ITEMS];
	int n = kjr_manifest(r, s, it, KJR_MAX_ITEMS);
	kjr_puts(b, "<h2>Run</h2>\n<table id=\"manifest\" class=\"kv\">\n");
	for (int i = 0; i < n; i++) {
		kjr_puts(b, "<tr><th>");
		kjr_html(b, it[i].key);
		kjr_puts(b, "</th>");
		text_td(b, it[i].val, 300);
		kjr_puts(b, "</tr>\n");
	}
	kjr_puts(b, "</table>\n");
}

static void per_task(struct kjr_buf *b, const kj_score_run *r)
{
	struct kjr_task_row *t;
	size_t n;
	char x[4][32];
	char kb[160];
	if (kjr_task_rows(r, &t, &n)) {
		b->oom = 1;
		return;
	}
	kjr_puts(b, "<h2>Per task</h2>\n<table id=\"per-task\"><tr><th>task</th><th>candidates</th>"
		 "<th>correct</th><th>failures</th><th>speedup (geomean)</th><th>min</th><th>max</th>"
		 "<th>spread (candidate)</th><th>SOL median</th><th>flags</th><th>first failure</th>"
		 "<th>KernelBench</th></tr>\n");
	for (size_t i = 0; i < n; i++) {
		kjr_puts(b, "<tr><td>");
		kjr_html(b, t[i].task);
		kjr_printf(b, "</td><td>%d</td><td class=\"%s\">%d</td>", t[i].candidates,
			   t[i].correct == t[i].candidates ? "pass" : "fail", t[i].correct);
		text_td(b, *t[i].failures ? t[i].failures : "-", 200);
		if (t[i].correct && !t[i].timed)
			kjr_puts(b, "<td>not timed</td><td>-</td><td>-</td><td>-</td>");
		else
			kjr_printf(b, "<td>%s</td><td>%s</td><td>%s</td><td>%s</td>",
				   kjr_fmt(x[0], 32, t[i].speedup, 3), kjr_fmt(x[1], 32, t[i].sp_min, 3),
				   kjr_fmt(x[2], 32, t[i].sp_max, 3), kjr_pct(x[3], 32, t[i].spread));
		kjr_printf(b, "<td>%s</td>", kjr_fmt(x[0], 32, t[i].sol, 3));
		text_td(b, *t[i].flags ? t[i].flags : "-", 200);
		text_td(b, t[i].first_fail ? t[i].first_fail->reason : "-", 80);
		text_td(b, kjr_kb_cell(kb, sizeof(kb), t[i].kb), 200);
		kjr_puts(b, "</tr>\n");
	}
	kjr_puts(b, "</table>\n");
	free(t);
}

static void cand_head(struct kjr_buf *b, const char *id)
{
	kjr_printf(b, "<table id=\"%s\"><tr><th>id</th><th>task</th><th>model</th><th>sample</th>"
		   "<th>round</th><th>status</th><th>stage</th><th>speedup</th><th>spread (candidate / "
		   "baseline)</th><th>SOL</th><th>flags</th><th>reason</th></tr>\n", id);
}

static void cand_row(struct kjr_buf *b, const struct kj_score_cand *c)
{
	char x[3][64];
	kjr_printf(b, "<tr><td>%lld</td><td>", (long long)c->id);
	kjr_html(b, c->task);
	kjr_puts(b, "</td>");
	text_td(b, *c->model ? c->model : "-", 100);
	kjr_printf(b, "<td>%d</td><td>%d</td><td class=\"txt %s\">", c->sample, c->round,
		   !c->judged ? "pending" : c->correct ? "pass" : "fail");
	kjr_html(b, c->judged ? c->status : "pending");
	kjr_puts(b, "</td>");
	text_td(b, *c->stage ? c->stage : "-", 40);
	kjr_printf(b, "<td>%s</td><td>%s</td><td>%s</td>", kjr_speedup_cell(x[0], 64, c),
		   kjr_spread_cell(x[1], 64, c), kjr_fmt(x[2], 64, c->sol, 3));
	text_td(b, *c->flags ? c->flags : "-", 200);
	text_td(b, *c->reason ? c->reason : "-", 80);
	kjr_puts(b, "</tr>\n");
}

static const char spread_note[] =
	"Spread: the largest IQR / median over the candidate's bench shapes, of its own times and of "
	"the baseline's (verdicts carry a median and an IQR per shape, not a confidence interval). "
	"Reasons are cut at 80 characters (hover for the whole; --format json or csv has them).";

static void slowest(struct kjr_buf *b, const kj_score_run *r)
{
	const struct kj_score_cand *slow[10];
	size_t ns = kjr_slowest(r, slow, 10);
	if (!ns)
		return;
	kjr_puts(b, "<h2>Slowest correct candidates</h2>\n");
	cand_head(b, "slowest");
	for (size_t i = 0; i < ns; i++)
		cand_row(b, slow[i]);
	kjr_puts(b, "</table>\n");
}

static void per_candidate(struct kjr_buf *b, const kj_score_run *r)
{
	kjr_printf(b, "<h2>Per candidate</h2>\n<p class=\"note\">%s</p>\n", spread_note);
	cand_head(b, "per-candidate");
	for (size_t i = 0; i < r->n; i++)
		cand_row(b, &r->c[i]);
	kjr_puts(b, "</table>\n");
}

int kjr_render_html(const kj_score_run *r, const kj_score_summary *s, struct kjr_buf *b)
{
	const struct kj_score_fvo *f = &s->fvo;
	char t[3][32];
	kjr_puts(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>kjudge report: ");
	kjr_html(b, r->name);
	kjr_printf(b, "</title><style>%s</style></head><body>\n<h1>kjudge report: run ", css);
	kjr_html(b, r->name);
	kjr_puts(b, "</h1>\n<p>backend ");
	kjr_html(b, r->backend);
	kjr_puts(b, ", created ");
	kjr_html(b, r->created);
	kjr_printf(b, "; %d candidates, %d pending.</p>\n", s->all.candidates, s->pending);
	manifest(b, r, s);
	kjr_puts(b, "<h2>Headline</h2>\n");
	if (s->all.not_timed)
		kjr_printf(b, "<p class=\"note\" id=\"not-timed\">Timing was not measured (a "
			   "correctness-only run, --no-perf): %d of %d candidates are correct; fast_p, "
			   "speedups and SOL are not reported.</p>\n", s->all.correct, s->all.candidates);
	table_head(b, "run");
	table_row(b, r->name, &s->all);
	kjr_puts(b, "</table>\n");
	if (s->weighted) {
		const struct kj_score_weighted *w = s->weighted;
		char wt[4][32];
		kjr_puts(b, "<h2>Weighted by importance</h2>\n<p>Each task weighs its share of the "
			 "trace's GPU time, from ");
		kjr_html(b, w->source ? w->source : "");
		kjr_printf(b, ".</p>\n<table><tr><th>tasks weighted</th><th>without a weight</th>"
			   "<th>suite covered</th><th>fast_1</th><th>correct</th><th>geomean speedup</th>"
			   "<th>S_agg</th></tr>\n<tr><td>%d</td><td>%d</td><td>%s</td><td>%s</td>"
			   "<td>%s</td><td>%s</td>",
			   w->tasks_weighted, w->tasks_unweighted, kjr_pct(wt[0], 32, w->coverage),
			   kjr_fmt(wt[1], 32, w->fast_p[3], 3), kjr_pct(wt[2], 32, w->correct_rate),
			   kjr_fmt(wt[3], 32, w->speedup_geomean, 3));
		kjr_printf(b, "<td>%s</td></tr>\n</table>\n", kjr_fmt(wt[0], 32, w->s_agg, 3));
	}
	kjr_puts(b, "<h2>Charts</h2>\n<div class=\"charts\">\n");
	chart_fast_p(b, s);
	chart_curve(b, "fast_p@k", "samples k", s->max_k, s->fast_p_at_k, 1,
		    "Unbiased estimate of the chance that one of k samples is correct and fast.");
	chart_curve(b, "fast_p@N", "refinement round N", s->n_rounds, s->fast_p_at_n, 0,
		    "Share of items with a correct, fast candidate by round N.");
	chart_histogram(b, s);
	chart_roofline(b, r);
	chart_categories(b, s);
	kjr_puts(b, "</div>\n");
	per_task(b, r);
	slowest(b, r);
	table(b, "By level", "level", s->by_level, s->n_level);
	table(b, "By category", "category", s->by_category, s->n_category);
	table(b, "By dtype", "dtype", s->by_dtype, s->n_dtype);
	table(b, "By model", "model", s->by_model, s->n_model);
	kjr_puts(b, "<h2>Error classes</h2>\n<table><tr><th>status</th><th>count</th></tr>\n");
	for (int i = 0; i < s->n_status; i++)
		kjr_printf(b, "<tr><td>%s</td><td>%d</td></tr>\n", s->status[i].name, s->status[i].count);
	kjr_printf(b, "<tr><td>(pending)</td><td>%d</td></tr></table>\n", s->pending);
	kjr_puts(b, "<table><tr><th>stage</th><th>count</th></tr>\n");
	for (int i = 0; i < s->n_stage; i++)
		kjr_printf(b, "<tr><td>%s</td><td>%d</td></tr>\n", s->stage[i].name, s->stage[i].count);
	kjr_printf(b, "</table>\n<h2>Fix vs optimise</h2>\n<table><tr><th>round pairs</th><th>fixes</th>"
		   "<th>optimisations</th><th>regressions</th><th>still passing</th><th>still failing</th>"
		   "</tr>\n<tr><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td></tr></table>\n",
		   f->pairs, f->fixes, f->optimisations, f->regressions, f->unchanged_pass, f->unchanged_fail);
	kjr_puts(b, "<h2>Code metrics</h2>\n<table><tr><th>candidates</th><th>n</th><th>lines</th>"
		 "<th>cyclomatic</th><th>comment ratio</th></tr>\n");
	kjr_printf(b, "<tr><td>correct</td><td>%d</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
		   s->code_correct.n, kjr_fmt(t[0], 32, s->code_correct.lines, 1),
		   kjr_fmt(t[1], 32, s->code_correct.cyclomatic, 2),
		   kjr_fmt(t[2], 32, s->code_correct.comment_ratio, 3));
	kjr_printf(b, "<tr><td>incorrect</td><td>%d</td><td>%s</td><td>%s</td><td>%s</td></tr></table>\n",
		   s->code_incorrect.n, kjr_fmt(t[0], 32, s->code_incorrect.lines, 1),
		   kjr_fmt(t[1], 32, s->code_incorrect.cyclomatic, 2),
		   kjr_fmt(t[2], 32, s->code_incorrect.comment_ratio, 3));
	kjr_printf(b, "<h2>Attribution</h2>\n<p>Deviance of correctness explained by a logistic fit on "
		   "task category: %s; on model: %s (%d judged candidates).</p>\n",
		   kjr_fmt(t[0], 32, s->attribution_category, 3), kjr_fmt(t[1], 32, s->attribution_model, 3),
		   s->attribution_n);
	per_candidate(b, r);
	kjr_puts(b, "</body></html>\n");
	return b->oom ? KJ_E_NOMEM : 0;
}
