/* The Markdown report: the run's manifest, a headline table, one table per
 * slice, then per task and per candidate. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_internal.h"

static void group_head(struct kjr_buf *b, const char *first)
{
	kjr_printf(b, "| %s | tasks | candidates | judged | compiled | call ok | correct | compile | "
		   "correct | Correct/Compile |", first);
	for (int p = 0; p < KJ_SCORE_NP; p++)
		kjr_printf(b, " fast_%s |", kj_score_p_key[p]);
	kjr_puts(b, " geomean speedup | SOL median | IOU median | MFU median | S_agg | fallback |\n|---|");
	for (int i = 0; i < 15 + KJ_SCORE_NP; i++)
		kjr_puts(b, "---:|");
	kjr_puts(b, "\n");
}

static void group_row(struct kjr_buf *b, const char *key, const struct kj_score_group *g)
{
	char t[8][32];
	kjr_printf(b, "| %s | %d | %d | %d | %d | %d | %d | %s | %s | %s |", key, g->tasks, g->candidates,
		   g->judged, g->compiled, g->call_ok, g->correct, kjr_pct(t[0], 32, g->compile_rate),
		   kjr_pct(t[1], 32, g->correct_rate), kjr_fmt(t[2], 32, g->correct_per_compile, 3));
	for (int p = 0; p < KJ_SCORE_NP; p++)
		kjr_printf(b, " %s |", g->not_timed ? "not timed" : kjr_fmt(t[0], 32, g->fast_p[p], 3));
	kjr_printf(b, " %s | %s | %s | %s | %s | %s |\n", kjr_fmt(t[0], 32, g->speedup_geomean, 3),
		   kjr_fmt(t[1], 32, g->sol_frac_median, 3), kjr_fmt(t[2], 32, g->iou_median, 3),
		   kjr_fmt(t[3], 32, g->mfu_median, 3), kjr_fmt(t[4], 32, g->s_agg, 3),
		   kjr_pct(t[5], 32, g->fallback_rate));
}

static void group_table(struct kjr_buf *b, const char *title, const char *first,
			const struct kj_score_group *g, int n)
{
	if (!n)
		return;
	kjr_printf(b, "\n## %s\n\n", title);
	group_head(b, first);
	for (int i = 0; i < n; i++)
		group_row(b, g[i].key, &g[i]);
}

static void curve_table(struct kjr_buf *b, const char *title, const char *first, int n,
			double (*v)[KJ_SCORE_NP], int base)
{
	char t[32];
	if (!n)
		return;
	kjr_printf(b, "\n## %s\n\n| %s |", title, first);
	for (int p = 0; p < KJ_SCORE_NP; p++)
		kjr_printf(b, " fast_%s |", kj_score_p_key[p]);
	kjr_puts(b, "\n|---:|");
	for (int p = 0; p < KJ_SCORE_NP; p++)
		kjr_puts(b, "---:|");
	kjr_puts(b, "\n");
	for (int i = 0; i < n; i++) {
		kjr_printf(b, "| %d |", i + base);
		for (int p = 0; p < KJ_SCORE_NP; p++)
			kjr_printf(b, " %s |", kjr_fmt(t, sizeof(t), v[i][p], 3));
		kjr_puts(b, "\n");
	}
}

/* A table cell: one line, '|' escaped, cut after max characters. */
static void cell(struct kjr_buf *b, const char *s, size_t max)
{
	char t[1024];
	kjr_trunc(t, sizeof(t), s, max);
	kjr_puts(b, " ");
	for (const char *p = t; *p; p++)
		kjr_puts(b, *p == '|' ? "\\|" : (char[2]){ *p, 0 });
	kjr_puts(b, " |");
}

static void manifest(struct kjr_buf *b, const kj_score_run *r, const kj_score_summary *s)
{
	struct kjr_item it[KJR_MAX_ITEMS];
	int n = kjr_manifest(r, s, it, KJR_MAX_ITEMS);
	kjr_puts(b, "\n## Run\n\n| | |\n|---|---|\n");
	for (int i = 0; i < n; i++) {
		kjr_puts(b, "|");
		cell(b, it[i].key, 40);
		cell(b, it[i].val, 300);
		kjr_puts(b, "\n");
	}
}

static const char spread_note[] =
	"spread: the largest IQR / median over the candidate's bench shapes, of its own times and "
	"of the baseline's (verdicts carry a median and an IQR per shape, not a confidence "
	"interval).";

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
	kjr_puts(b, "\n## Per task\n\n| task | candidates | correct | failures | speedup (geomean) | "
		 "min | max | spread (candidate) | SOL median | flags | first failure | KernelBench |\n"
		 "|---|---:|---:|---|---:|---:|---:|---:|---:|---|---|---|\n");
	for (size_t i = 0; i < n; i++) {
		kjr_puts(b, "|");
		cell(b, t[i].task, 200);
		kjr_printf(b, " %d | %d |", t[i].candidates, t[i].correct);
		cell(b, *t[i].failures ? t[i].failures : "-", 200);
		if (t[i].correct && !t[i].timed)
			kjr_puts(b, " not timed | - | - | - |");
		else
			kjr_printf(b, " %s | %s | %s | %s |", kjr_fmt(x[0], 32, t[i].speedup, 3),
				   kjr_fmt(x[1], 32, t[i].sp_min, 3), kjr_fmt(x[2], 32, t[i].sp_max, 3),
				   kjr_pct(x[3], 32, t[i].spread));
		kjr_printf(b, " %s |", kjr_fmt(x[0], 32, t[i].sol, 3));
		cell(b, *t[i].flags ? t[i].flags : "-", 200);
		cell(b, t[i].first_fail ? t[i].first_fail->reason : "-", 80);
		cell(b, kjr_kb_cell(kb, sizeof(kb), t[i].kb), 200);
		kjr_puts(b, "\n");
	}
	free(t);
}

static void cand_row(struct kjr_buf *b, const struct kj_score_cand *c)
{
	char x[3][64];
	kjr_printf(b, "| %lld |", (long long)c->id);
	cell(b, c->task, 200);
	cell(b, *c->model ? c->model : "-", 100);
	kjr_printf(b, " %d | %d |", c->sample, c->round);
	cell(b, c->judged ? c->status : "pending", 40);
	cell(b, *c->stage ? c->stage : "-", 40);
	kjr_printf(b, " %s | %s | %s |", kjr_speedup_cell(x[0], 64, c), kjr_spread_cell(x[1], 64, c),
		   kjr_fmt(x[2], 64, c->sol, 3));
	cell(b, *c->flags ? c->flags : "-", 200);
	cell(b, *c->reason ? c->reason : "-", 80);
	kjr_puts(b, "\n");
}

static const char cand_head[] =
	"| id | task | model | sample | round | status | stage | speedup | spread (candidate / "
	"baseline) | SOL | flags | reason |\n|---:|---|---|---:|---:|---|---|---:|---:|---:|---|---|\n";

static void slowest(struct kjr_buf *b, const kj_score_run *r)
{
	const struct kj_score_cand *slow[10];
	size_t ns = kjr_slowest(r, slow, 10);
	if (!ns)
		return;
	kjr_puts(b, "\n## Slowest correct candidates\n\n");
	kjr_puts(b, cand_head);
	for (size_t i = 0; i < ns; i++)
		cand_row(b, slow[i]);
}

static void per_candidate(struct kjr_buf *b, const kj_score_run *r)
{
	kjr_printf(b, "\n## Per candidate\n\nReasons are cut at 80 characters (`--format json` "
		   "or `csv` has them whole); %s\n\n", spread_note);
	kjr_puts(b, cand_head);
	for (size_t i = 0; i < r->n; i++)
		cand_row(b, &r->c[i]);
}

int kjr_render_md(const kj_score_run *r, const kj_score_summary *s, struct kjr_buf *b)
{
	char t[4][32];
	const struct kj_score_fvo *f = &s->fvo;
	kjr_printf(b, "# kjudge report: run %s\n\nbackend %s, created %s, %d candidates (%d pending)\n",
		   r->name, r->backend, r->created, s->all.candidates, s->pending);
	manifest(b, r, s);
	kjr_puts(b, "\n## Headline\n\n");
	if (s->all.not_timed)
		kjr_printf(b, "Timing was not measured (a correctness-only run, `--no-perf`): %d of %d "
			   "candidates are correct; fast_p, speedups and SOL are not reported.\n\n",
			   s->all.correct, s->all.candidates);
	if (r->strict_intervals)
		kjr_printf(b, "fast_p with `--strict-intervals`: a candidate counts as faster than p only "
			   "when its speedup's 95%% interval lies above p (%d correct, timed candidates "
			   "have no interval and do not count).\n\n", r->no_interval);
	group_head(b, "run");
	group_row(b, r->name, &s->all);
	group_table(b, "By level", "level", s->by_level, s->n_level);
	group_table(b, "By category", "category", s->by_category, s->n_category);
	group_table(b, "By dtype", "dtype", s->by_dtype, s->n_dtype);
	group_table(b, "By model", "model", s->by_model, s->n_model);
	if (s->weighted) {
		const struct kj_score_weighted *w = s->weighted;
		kjr_printf(b, "\n## Weighted by importance (%s)\n\nEach task weighs its share of the "
			   "trace's GPU time (docs/suites.md).\n\n| tasks weighted | tasks without a weight "
			   "| suite covered |", w->source ? w->source : "");
		for (int p = 0; p < KJ_SCORE_NP; p++)
			kjr_printf(b, " fast_%s |", kj_score_p_key[p]);
		kjr_puts(b, " correct | geomean speedup | S_agg |\n|---:|---:|---:|");
		for (int p = 0; p < KJ_SCORE_NP + 3; p++)
			kjr_puts(b, "---:|");
		kjr_printf(b, "\n| %d | %d | %s |", w->tasks_weighted, w->tasks_unweighted,
			   kjr_pct(t[0], 32, w->coverage));
		for (int p = 0; p < KJ_SCORE_NP; p++)
			kjr_printf(b, " %s |", kjr_fmt(t[0], 32, w->fast_p[p], 3));
		kjr_printf(b, " %s | %s | %s |\n", kjr_pct(t[0], 32, w->correct_rate),
			   kjr_fmt(t[1], 32, w->speedup_geomean, 3), kjr_fmt(t[2], 32, w->s_agg, 3));
	}
	per_task(b, r);
	slowest(b, r);
	if (!s->all.not_timed) {
		curve_table(b, "fast_p@k (samples at the first round)", "k", s->max_k, s->fast_p_at_k, 1);
		curve_table(b, "fast_p@N (refinement rounds)", "round", s->n_rounds, s->fast_p_at_n, 0);
	}
	kjr_puts(b, "\n## Error classes\n\n| status | count |\n|---|---:|\n");
	for (int i = 0; i < s->n_status; i++)
		kjr_printf(b, "| %s | %d |\n", s->status[i].name, s->status[i].count);
	if (s->pending)
		kjr_printf(b, "| (pending) | %d |\n", s->pending);
	kjr_puts(b, "\n| stage | count |\n|---|---:|\n");
	for (int i = 0; i < s->n_stage; i++)
		kjr_printf(b, "| %s | %d |\n", s->stage[i].name, s->stage[i].count);
	kjr_printf(b, "\n## Fix vs optimise\n\n| round pairs | fixes | optimisations | regressions | "
		   "still passing | still failing |\n|---:|---:|---:|---:|---:|---:|\n"
		   "| %d | %d | %d | %d | %d | %d |\n",
		   f->pairs, f->fixes, f->optimisations, f->regressions, f->unchanged_pass, f->unchanged_fail);
	kjr_puts(b, "\n## Code metrics\n\n| candidates | n | lines | cyclomatic | comment ratio |\n"
		 "|---|---:|---:|---:|---:|\n");
	kjr_printf(b, "| correct | %d | %s | %s | %s |\n", s->code_correct.n,
		   kjr_fmt(t[0], 32, s->code_correct.lines, 1), kjr_fmt(t[1], 32, s->code_correct.cyclomatic, 2),
		   kjr_fmt(t[2], 32, s->code_correct.comment_ratio, 3));
	kjr_printf(b, "| incorrect | %d | %s | %s | %s |\n", s->code_incorrect.n,
		   kjr_fmt(t[0], 32, s->code_incorrect.lines, 1),
		   kjr_fmt(t[1], 32, s->code_incorrect.cyclomatic, 2),
		   kjr_fmt(t[2], 32, s->code_incorrect.comment_ratio, 3));
	kjr_printf(b, "\n## Attribution\n\nDeviance of correctness explained by a logistic fit on "
		   "task category: %s; on model: %s (%d judged candidates).\n",
		   kjr_fmt(t[0], 32, s->attribution_category, 3), kjr_fmt(t[1], 32, s->attribution_model, 3),
		   s->attribution_n);
	per_candidate(b, r);
	return b->oom ? KJ_E_NOMEM : 0;
}
