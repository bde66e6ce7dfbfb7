/* Trace import: the small Llama trace (counts, coverage, weights, phases),
 * broken traces (malformed, truncated, empty), unknown operators, the
 * External id fallback, refreshing a suite's weights and weighted scores.
 * Runs from the repository root (tests/data/llama_small.json). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "kjudge/fsutil.h"
#include "kjudge/task.h"
#include "kjudge/trace.h"
#include "tap.h"

static char tmpdir[] = "/tmp/kj_trace_test.XXXXXX";

static void put(const char *name, const char *text, size_t n, char *path, size_t pn)
{
	FILE *f;
	snprintf(path, pn, "%s/%s", tmpdir, name);
	f = fopen(path, "wb");
	if (f) {
		fwrite(text, 1, n, f);
		fclose(f);
	}
}

/* A synthetic trace: per op one cpu_op on thread 1, one launch inside it and
 * one kernel of dur us; phase "decode" around everything. */
struct sop {
	const char *name, *dims, *types, *strides, *concrete;
	double dur;
	int launch; /* 0: no runtime event (External id only) */
};

static char *synth(const struct sop *ops, int n)
{
	size_t cap = 65536, k = 0;
	char *b = malloc(cap);
	double ts = 100;
	k += (size_t)snprintf(b + k, cap - k,
			      "{\"traceEvents\": [\n{\"ph\": \"X\", \"cat\": \"user_annotation\", "
			      "\"name\": \"decode\", \"pid\": 1, \"tid\": 1, \"ts\": 50, \"dur\": 100000}");
	for (int i = 0; i < n; i++, ts += 100) {
		int ext = 10 + i, corr = 1000 + i;
		k += (size_t)snprintf(b + k, cap - k,
				      ",\n{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", \"pid\": 1, "
				      "\"tid\": 1, \"ts\": %g, \"dur\": 50, \"args\": {\"External id\": %d, "
				      "\"Input Dims\": %s, \"Input type\": %s, \"Input Strides\": %s, "
				      "\"Concrete Inputs\": %s}}",
				      ops[i].name, ts, ext, ops[i].dims, ops[i].types, ops[i].strides,
				      ops[i].concrete);
		if (ops[i].launch)
			k += (size_t)snprintf(b + k, cap - k,
					      ",\n{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": "
					      "\"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": %g, "
					      "\"dur\": 5, \"args\": {\"External id\": %d, \"correlation\": %d}}",
					      ts + 10, ext, corr);
		k += (size_t)snprintf(b + k, cap - k,
				      ",\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k%d\", \"pid\": 0, "
				      "\"tid\": 7, \"ts\": %g, \"dur\": %g, \"args\": {\"External id\": %d, "
				      "\"correlation\": %d}}",
				      i, ts + 20, ops[i].dur, ext, ops[i].launch ? corr : 99999);
	}
	snprintf(b + k, cap - k, "\n]}\n");
	return b;
}

#define MM(dur, m, k, n)                                                                            \
	{ "aten::mm", "[[" #m ", " #k "], [" #k ", " #n "]]", "[\"c10::BFloat16\", \"c10::BFloat16\"]", \
	  "[[" #k ", 1], [1, " #k "]]", "[\"\", \"\"]", dur, 1 }

static void test_small(void)
{
	kj_trace *t = NULL;
	kj_suite *s = NULL;
	struct kj_suite_opts o = { "small", 0 };
	struct kj_err err;
	int prefill = 0, decode = 0, cat = 0, kept = 0;
	double wsum = 0, sum_share = 0;
	kj_err_init(&err);
	if (!ok(kj_trace_load("tests/data/llama_small.json", &t, &err) == 0, "llama_small.json loads: %s",
		err.msg))
		return;
	is_int(t->kernels, 412, "412 kernels");
	is_near(t->total_us, 727.806, 1e-6, "727.806 us of GPU time");
	is_int(t->by_correlation, 412, "every kernel found its operator through its runtime launch");
	is_int(t->unattributed, 0, "no kernel without an operator");
	ok(t->nphases == 3 && !strcmp(t->phases[0], "prefill") && !strcmp(t->phases[1], "decode") &&
		   !strcmp(t->phases[2], "other"),
	   "phases prefill, decode and other (argmax after the model)");
	ok(!strcmp(t->agg[0].op, "aten::mm") && !strcmp(t->agg[0].phase, "decode") &&
		   !strcmp(t->agg[0].dims, "[[2,512],[512,1408]]"),
	   "the largest aggregate is the decode mm [2,512]x[512,1408]");
	if (!ok(kj_suite_build(t, &o, &s, &err) == 0, "the suite builds"))
		goto out;
	is_int(s->ntasks, 48, "48 tasks");
	is_int(s->nshapes, 72, "72 shapes");
	is_near(s->mapped_share, 0.9786742620973168, 1e-9, "the suite covers 97.9%% of the GPU time");
	is_near(s->mapped_share + s->below_share + s->unmapped_share, 1, 1e-12,
		"mapped + below min-share + unmapped = 1");
	for (int i = 0; i < s->ntasks; i++) {
		kj_task *kt = NULL;
		prefill += !strcmp(s->tasks[i].phase, "prefill");
		decode += !strcmp(s->tasks[i].phase, "decode");
		for (int j = 0; j < s->tasks[i].nshapes; j++) {
			wsum += s->tasks[i].shapes[j].weight;
			sum_share += s->tasks[i].shapes[j].share;
		}
		kept += kj_task_parse(s->tasks[i].text, strlen(s->tasks[i].text), s->tasks[i].name, &kt,
				      NULL) == 0;
		kj_task_free(kt);
	}
	ok(fabs(wsum - 1) <= 1e-9, "the suite's shape weights sum to 1 (%.17g)", wsum);
	is_near(sum_share, s->mapped_share, 1e-12, "the shapes' shares sum to the coverage");
	ok(prefill > 0 && decode > 0, "prefill (%d) and decode (%d) tasks both present", prefill, decode);
	is_int(kept, s->ntasks, "every generated task parses");
	is_str(s->tasks[0].name, "decode_linear_bf16", "the top task is decode_linear_bf16");
	like(s->tasks[0].text, "param  w: bf16[N, K] ~ kaiming", "an mm with a transposed weight is a linear");
	like(s->tasks[0].text, "bench M=2 K=512 N=1408 weight=", "bench shapes are the trace's");
	for (int i = 0; i < s->nunmapped; i++)
		if (!strcmp(s->unmapped[i].op, "aten::cos")) {
			cat = 1;
			is_near(s->unmapped[i].share, 0.007741073857593912, 1e-9, "aten::cos: 0.77%% unmapped");
			like(s->unmapped[i].reason, "no kjudge op", "with its reason");
		}
	ok(cat, "aten::cos is listed as unmapped");
	{
		int causal = 0, kvcat = 0, copy = 0;
		for (int i = 0; i < s->ntasks; i++) {
			const char *x = s->tasks[i].text;
			causal |= !strcmp(s->tasks[i].name, "prefill_causal_attention_bf16") &&
				  strstr(x, "causal=True, scale=0.125") && strstr(x, "cat(k1, k1, k1, k1, dim=2)");
			kvcat |= strstr(x, "input  b: bf16[B, H, 1, D]") && strstr(x, "y = cat(a, b, dim=-2)") &&
				 strstr(x, "bench B=2 H=2 S=65 D=64 weight=");
			copy |= !strcmp(s->tasks[i].name, "prefill_copy_bf16");
		}
		ok(causal, "causal prefill attention with 4 query heads per KV head: sdpa on repeated k, v");
		ok(kvcat, "the KV-cache append is a cat of bf16 (2-byte elements in the kernel) along dim -2");
		ok(copy, "a cat of one tensor with an empty one is a copy");
	}
out:
	kj_suite_free(s);
	kj_trace_free(t);
}

static void test_broken(void)
{
	char path[512];
	kj_trace *t = NULL;
	struct kj_err err;
	size_t n;
	char *full = kj_read_file("tests/data/llama_small.json", &n);

	{
		const char *bad = "{\"traceEvents\": [\n  {\"ph\": \"X\",, \"cat\": \"kernel\"}\n]}\n";
		put("bad.json", bad, strlen(bad), path, sizeof(path));
	}
	kj_err_init(&err);
	is_int(kj_trace_load(path, &t, &err), KJ_E_PARSE, "malformed JSON is a parse error");
	like(err.msg, "is not valid JSON", "it says so");
	like(err.msg, "at line 2, column 14", "with line and column (the second comma)");
	like(err.msg, "(byte ", "and the byte offset");

	if (full) {
		put("cut.json", full, 5000, path, sizeof(path));
		kj_err_init(&err);
		is_int(kj_trace_load(path, &t, &err), KJ_E_PARSE, "a truncated JSON file is a parse error");
		like(err.msg, "truncated", "that suggests truncation");
		{
			/* a gzip stream cut in the middle */
			gzFile g;
			char gz[512];
			size_t gn;
			char *gbuf;
			snprintf(gz, sizeof(gz), "%s/full.json.gz", tmpdir);
			g = gzopen(gz, "wb");
			gzwrite(g, full, (unsigned)n);
			gzclose(g);
			gbuf = kj_read_file(gz, &gn);
			put("cut.json.gz", gbuf, gn / 2, path, sizeof(path));
			free(gbuf);
			kj_err_init(&err);
			is_int(kj_trace_load(path, &t, &err), KJ_E_IO, "a truncated gzip file is an I/O error");
			like(err.msg, "truncated or corrupt", "that says truncated");
			kj_err_init(&err);
			ok(kj_trace_load(gz, &t, &err) == 0 && t->kernels == 412,
			   "the same trace gzipped loads with the same 412 kernels");
			kj_trace_free(t);
			t = NULL;
		}
		free(full);
	}
	put("empty.json", "", 0, path, sizeof(path));
	kj_err_init(&err);
	is_int(kj_trace_load(path, &t, &err), KJ_E_IO, "an empty file is an error");
	like(err.msg, "is empty", "that says empty");
	put("nokernels.json", "{\"traceEvents\": []}", 19, path, sizeof(path));
	kj_err_init(&err);
	is_int(kj_trace_load(path, &t, &err), KJ_E_PARSE, "a trace without kernels is an error");
	like(err.msg, "no GPU kernels", "that says no GPU kernels");
	put("notrace.json", "{\"foo\": 1}", 10, path, sizeof(path));
	kj_err_init(&err);
	is_int(kj_trace_load(path, &t, &err), KJ_E_PARSE, "JSON without traceEvents is an error");
	like(err.msg, "not a Chrome trace", "that says so");
	kj_err_init(&err);
	ok(kj_trace_load("/nonexistent/trace.json", &t, &err) != 0 && strstr(err.msg, "cannot open"),
	   "a missing file: cannot open");
}

static void test_unknown_and_refresh(void)
{
	const struct sop a[] = {
		MM(30, 4, 64, 128),
		MM(15, 4, 64, 256),
		{ "aten::frobnicate", "[[4, 64]]", "[\"float\"]", "[[64, 1]]", "[\"\"]", 20, 1 },
		{ "aten::silu", "[[4, 64]]", "[\"c10::BFloat16\"]", "[[64, 1]]", "[\"\"]", 35, 0 },
	};
	const struct sop b[] = {
		MM(10, 4, 64, 128),
		MM(30, 4, 64, 256),
		MM(20, 8, 64, 128),
		{ "aten::frobnicate", "[[4, 64]]", "[\"float\"]", "[[64, 1]]", "[\"\"]", 40, 1 },
	};
	char path[512], dir[512], kt[600];
	char *txt = synth(a, 4);
	kj_trace *t = NULL;
	kj_suite *s = NULL, *s2 = NULL;
	struct kj_suite_opts o = { "syn", 0 };
	struct kj_suite_refresh_info ri;
	struct kj_err err;
	int found = 0;
	put("a.json", txt, strlen(txt), path, sizeof(path));
	free(txt);
	kj_err_init(&err);
	if (!ok(kj_trace_load(path, &t, &err) == 0, "a synthetic trace loads: %s", err.msg))
		return;
	is_int(t->by_external_id, 1, "a kernel without its launch is attributed by External id");
	ok(kj_suite_build(t, &o, &s, &err) == 0, "a trace with an unknown operator still builds");
	for (int i = 0; s && i < s->nunmapped; i++)
		if (!strcmp(s->unmapped[i].op, "aten::frobnicate")) {
			found = 1;
			is_near(s->unmapped[i].share, 0.2, 1e-12, "the unknown operator has its 20%% share");
		}
	ok(found, "the unknown operator is listed");
	if (!s || !ok(s->ntasks == 2, "two tasks: the linear and the silu"))
		goto out;
	is_near(s->mapped_share, 0.8, 1e-12, "coverage 80%%");
	is_str(s->tasks[0].name, "decode_linear_bf16", "the mm with a transposed weight: decode_linear_bf16");
	is_str(s->tasks[1].name, "decode_silu_bf16", "the silu: decode_silu_bf16");
	is_near(s->tasks[1].shapes[0].weight, 35.0 / 80, 1e-12, "silu: weight 35/80");
	is_near(s->tasks[0].shapes[0].weight, 30.0 / 80, 1e-12, "the top linear shape: weight 30/80");
	snprintf(dir, sizeof(dir), "%s/suite", tmpdir);
	ok(kj_suite_write(s, dir, 0, &err) == 0, "the suite is written: %s", err.msg);
	ok(kj_suite_write(s, dir, 0, &err) == KJ_E_USAGE && strstr(err.msg, "already holds a suite"),
	   "writing over a suite needs --force");
	ok(kj_suite_write(s, dir, 1, &err) == 0, "--force replaces it");
	{
		struct kj_score_weights w;
		ok(kj_suite_weights_load(dir, &w, &err) == 0 && w.n == 2, "the manifest's weights load");
		is_near(w.w[0] + w.w[1], 1, 1e-12, "task weights sum to 1");
		kj_score_weights_release(&w);
	}
	/* refresh from b: mm shares 10 and 30 of 100, a new mm shape, silu gone */
	txt = synth(b, 4);
	put("b.json", txt, strlen(txt), path, sizeof(path));
	free(txt);
	kj_trace_free(t);
	t = NULL;
	o.min_share = 0;
	if (!ok(kj_trace_load(path, &t, &err) == 0 && kj_suite_build(t, &o, &s2, &err) == 0,
		"the second trace builds"))
		goto out;
	{
		size_t n0, n1;
		char *before, *after;
		snprintf(kt, sizeof(kt), "%s/decode_linear_bf16.kt", dir);
		before = kj_read_file(kt, &n0);
		ok(kj_suite_refresh(s2, dir, &ri, &err) == 0, "refresh succeeds: %s", err.msg);
		after = kj_read_file(kt, &n1);
		is_int(ri.shapes, 3, "the suite's 3 shapes");
		is_int(ri.shapes_found, 2, "2 of them in the new trace");
		is_near(ri.covered_share, 0.4, 1e-12, "covering 40%% of the new trace");
		is_int(ri.new_shapes, 1, "one new shape not in the suite");
		is_near(ri.new_share, 0.2, 1e-12, "with its 20%%");
		like(after, "bench M=4 K=64 N=256 weight=0.75\n", "the .kt weights are rewritten (0.75)");
		like(after, "bench M=4 K=64 N=128 weight=0.25\n", "... and 0.25");
		/* everything but the bench weights is unchanged */
		if (before && after) {
			char *p = strstr(before, "\nbench "), *q = strstr(after, "\nbench ");
			ok(p && q && p - before == q - after && !strncmp(before, after, (size_t)(p - before)),
			   "the task's text before its bench lines is unchanged");
			ok(strstr(after, "\nbench cpu M=4 K=64 N=128 weight=1\n") != NULL,
			   "the bench cpu line is unchanged");
		}
		free(before);
		free(after);
	}
	{
		struct kj_score_weights w;
		double lin = -1, silu = -1;
		ok(kj_suite_weights_load(dir, &w, &err) == 0, "the refreshed weights load");
		for (size_t i = 0; i < w.n; i++) {
			if (!strcmp(w.task[i], "decode_linear_bf16"))
				lin = w.w[i];
			if (!strcmp(w.task[i], "decode_silu_bf16"))
				silu = w.w[i];
		}
		is_near(lin, 1, 1e-12, "the linear now weighs 1");
		is_near(silu, 0, 1e-12, "the silu, absent from the new trace, 0");
		kj_score_weights_release(&w);
	}
out:
	kj_suite_free(s);
	kj_suite_free(s2);
	kj_trace_free(t);
}

static void test_weigh(void)
{
	struct kj_score_cand c[3];
	struct kj_score_shape sh[3];
	kj_score_run r;
	char *names[2] = { "ta", "tb" };
	double ws[2] = { 0.75, 0.25 };
	struct kj_score_weights w = { names, ws, 2, NULL };
	struct kj_score_weighted out;
	struct kj_err err;
	memset(c, 0, sizeof(c));
	memset(&r, 0, sizeof(r));
	for (int i = 0; i < 3; i++) {
		c[i].model = "m";
		c[i].id = i + 1;
		c[i].shapes = &sh[i];
		c[i].nshapes = 1;
		sh[i].weight = 1;
		sh[i].ms = 2;
		sh[i].sol_ms = 1;
	}
	c[0].task = "trace/s/ta";
	c[0].correct = 1;
	c[0].speedup = 2;
	c[1].task = "trace/s/tb";
	c[1].correct = 0;
	c[1].speedup = NAN;
	c[2].task = "level1/other";
	c[2].correct = 1;
	c[2].speedup = 4;
	r.name = "r";
	r.c = c;
	r.n = 3;
	ok(kj_score_weigh(&r, &w, &out, &err) == 0, "a run is weighed");
	is_int(out.tasks_weighted, 2, "two tasks of the suite");
	is_int(out.tasks_unweighted, 1, "one task without a weight");
	is_near(out.fast_p[3], 0.75, 1e-12, "weighted fast_1 = 0.75 (the heavy task is fast)");
	is_near(out.s_agg, 0.75 * 0.5, 1e-12, "weighted S_agg = 0.75 x 0.5");
	is_near(out.speedup_geomean, 2, 1e-12, "weighted geomean over correct candidates of the suite");
	is_near(out.coverage, 1, 1e-12, "the run covers the whole suite");
	free(out.source);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		printf("Bail out! cannot create a temporary folder\n");
		return 1;
	}
	test_small();
	test_broken();
	test_unknown_and_refresh();
	test_weigh();
	{
		char cmd[600];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd))
			printf("# could not remove %s\n", tmpdir);
	}
	return done_testing();
}
