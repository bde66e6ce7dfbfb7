/*
 * Prompts: the text a model answers with a candidate kernel (one-shot,
 * few-shot, refinement), and the judge's feedback on a verdict rendered for
 * the next round.  `kjudge prompt` prints these and `kjudge refine` sends
 * them, so a user sees exactly what a model is given.
 */
#include <ctype.h>
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kjudge/case.h"
#include "kjudge/llm.h"
#include "llm/llm_internal.h"

void kj_prompt_opts_init(struct kj_prompt_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->backend = KJ_BACKEND_CUDA;
}

static int read_text(const char *path, char **out, size_t *len, struct kj_err *err)
{
	FILE *f = fopen(path, "rb");
	struct kjl_buf b;
	char chunk[8192];
	size_t r;
	if (!f)
		return kj_err_sys(err, "cannot open '%s'", path);
	kjl_init(&b);
	while ((r = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		kjl_putn(&b, chunk, r);
		if (b.len > (16u << 20)) {
			fclose(f);
			kjl_release(&b);
			return kj_err_set(err, KJ_E_IO, "'%s' is larger than 16 MiB", path);
		}
	}
	if (ferror(f)) {
		fclose(f);
		kjl_release(&b);
		return kj_err_sys(err, "cannot read '%s'", path);
	}
	fclose(f);
	kjl_putn(&b, "", 0);
	*len = b.len;
	return kjl_finish(&b, out, err);
}

static int used_op(const kj_task *t, const kj_op *op)
{
	for (int n = 0; n < t->nnodes; n++)
		if (t->nodes[n].op == op)
			return 1;
	return 0;
}

static void tolerance_text(const kj_task *t, char *buf, size_t len)
{
	if (t->tol.has_metric) {
		size_t off = (size_t)snprintf(buf, len, "judged by metrics:");
		if (t->tol.cos_min >= 0)
			off += (size_t)snprintf(buf + off, len - off, " cosine similarity >= %g", t->tol.cos_min);
		if (t->tol.l1_max >= 0 && off < len)
			off += (size_t)snprintf(buf + off, len - off, " relative L1 <= %g", t->tol.l1_max);
		if (t->tol.rmse_max >= 0 && off < len)
			snprintf(buf + off, len - off, " RMSE <= %g", t->tol.rmse_max);
	} else if (t->tol.has_tol) {
		snprintf(buf, len, "|got - ref| <= %g + %g * |ref| for every element", t->tol.atol, t->tol.rtol);
	} else {
		snprintf(buf, len, "|got - ref| <= atol + rtol * |ref| for every element, with atol = rtol = 1e-4 "
			 "for f32 outputs, 1e-2 for f16/bf16; integer and bool outputs exact; NaN and Inf must match");
	}
	if (t->tf32) {
		size_t off = strlen(buf);
		if (off < len)
			snprintf(buf + off, len - off,
				 "; TF32 is allowed: f32 matmuls and convolutions may run on TF32 tensor cores, as "
				 "the baseline's do, and an output may be as far from the fp64 reference as a "
				 "multiple of that baseline's own error");
	}
}

/* 1 when one of the task's values is f8e4m3. */
static int task_has_f8(const kj_task *t)
{
	for (int v = 0; v < t->nvals; v++)
		if (t->vals[v].kind != KJ_V_CONST && t->vals[v].kind != KJ_V_TEMP &&
		    t->vals[v].dtype == KJ_F8E4M3)
			return 1;
	return 0;
}

static void hardware_section(struct kjl_buf *b, const kj_task *t, const kj_calib *c)
{
	double bw = c->read_gbs > c->copy_gbs ? c->read_gbs : c->copy_gbs;
	kjl_printf(b, "## Hardware (measured by `kjudge calibrate` on this GPU)\n\n");
	if (c->name[0])
		kjl_printf(b, "- GPU: %s\n", c->name);
	kjl_printf(b, "- memory bandwidth: %.0f GB/s device-to-device copy, %.0f GB/s read-only stream\n",
		   c->copy_gbs, c->read_gbs);
	kjl_printf(b, "- dense GEMM peaks: fp32 %.1f TFLOP/s, tf32 %.1f, fp16 %.1f, bf16 %.1f, fp64 %.1f; "
		   "int8 %.1f TOP/s\n", c->fp32_tflops, c->tf32_tflops, c->fp16_tflops, c->bf16_tflops,
		   c->fp64_tflops, c->int8_tops);
	if (task_has_f8(t))
		kjl_printf(b, "- fp8 (e4m3) GEMM peak: %.1f TFLOP/s\n", c->fp8_tflops);
	kjl_printf(b, "- roofline of each timed shape, T_sol = max(FLOPs / peak, compulsory bytes / bandwidth):\n");
	for (int i = 0; i < t->nbind; i++) {
		kj_plan p;
		char bs[256];
		const char *what;
		double peak, tb, tf;
		if (t->binds[i].bench != 1 || kj_plan_build(t, i, &p, NULL))
			continue;
		peak = kj_plan_peak_named(&p, c, &what);
		tb = bw > 0 ? p.min_bytes / (bw * 1e9) * 1e3 : 0;
		tf = peak > 0 ? p.flops / (peak * 1e12) * 1e3 : 0;
		kj_binding_str(t, &t->binds[i], bs, sizeof(bs));
		kjl_printf(b, "  - %s: %.4g GFLOP, %.4g MB: T_sol %.4g ms, %s-bound (%s peak)\n", bs, p.flops / 1e9,
			   p.min_bytes / 1e6, tb > tf ? tb : tf, tb >= tf ? "memory" : "compute", what);
		kj_plan_release(&p);
	}
	kjl_puts(b, "\n");
}

/* ---- few-shot examples ---------------------------------------------------- */

struct example {
	char *path, *task;
	int score;
	size_t len;
};

static int cmp_example(const void *a, const void *b)
{
	const struct example *x = a, *y = b;
	if (x->score != y->score)
		return y->score - x->score;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* The task named id under root (its category and level), or NULL. */
static kj_task *load_example_task(const char *root, const char *id)
{
	char path[4096 + 300];
	kj_task *et = NULL;
	snprintf(path, sizeof(path), "%s/tasks/%s.kt", root, id);
	if (kj_task_load(path, &et, NULL))
		return NULL;
	return et;
}

static const char *basename_of(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

int kj_prompt_pick_examples(const kj_task *t, const struct kj_prompt_opts *o, char ***paths,
			    char ***tasks, int *n, struct kj_err *err)
{
	char dir[4096 + 64];
	const char *ext = o->backend == KJ_BACKEND_CUDA ? ".cu" : ".c";
	struct example *ex = NULL;
	int nex = 0, take;
	DIR *d;
	struct dirent *de;
	*paths = *tasks = NULL;
	*n = 0;
	if (o->shots <= 0)
		return 0;
	if (!o->root)
		return kj_err_set(err, KJ_E_USAGE, "few-shot examples need the kjudge tree (root)");
	snprintf(dir, sizeof(dir), "%s/examples/solutions/%s", o->root, kj_backend_name(o->backend));
	if (!(d = opendir(dir)))
		return kj_err_sys(err, "cannot open the example folder '%s'", dir);
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name), el = strlen(ext);
		char full[4096 + 400], *src = NULL;
		size_t len;
		struct kj_case kc;
		struct example *nv;
		kj_task *et;
		if (de->d_name[0] == '.' || l <= el || strcmp(de->d_name + l - el, ext))
			continue;
		snprintf(full, sizeof(full), "%s/%s", dir, de->d_name);
		if (read_text(full, &src, &len, NULL))
			continue;
		if (kj_case_parse(src, full, &kc, NULL) || strcmp(kc.expect, "pass") || !strcmp(kc.task, t->id)) {
			free(src);
			continue;
		}
		free(src);
		if (!(et = load_example_task(o->root, kc.task)))
			continue;
		/* the same op under another task id (a copy in another suite) is
		 * still this task */
		if (!strcmp(et->name, t->name)) {
			kj_task_free(et);
			continue;
		}
		nv = realloc(ex, (size_t)(nex + 1) * sizeof(*ex));
		if (!nv) {
			kj_task_free(et);
			break;
		}
		ex = nv;
		ex[nex].path = strdup(full);
		ex[nex].task = strdup(kc.task);
		ex[nex].len = len;
		ex[nex].score = (t->category && et->category && !strcmp(t->category, et->category) ? 2 : 0) +
				(et->level == t->level ? 1 : 0);
		kj_task_free(et);
		if (!ex[nex].path || !ex[nex].task) {
			free(ex[nex].path);
			free(ex[nex].task);
			break;
		}
		nex++;
	}
	closedir(d);
	if (nex)
		qsort(ex, (size_t)nex, sizeof(*ex), cmp_example);
	take = nex < o->shots ? nex : o->shots;
	*paths = calloc((size_t)(take ? take : 1), sizeof(char *));
	*tasks = calloc((size_t)(take ? take : 1), sizeof(char *));
	if (!*paths || !*tasks) {
		free(*paths);
		free(*tasks);
		*paths = *tasks = NULL;
		for (int i = 0; i < nex; i++) {
			free(ex[i].path);
			free(ex[i].task);
		}
		free(ex);
		return kj_err_set(err, KJ_E_NOMEM, "out of memory");
	}
	for (int i = 0; i < nex; i++) {
		if (i < take) {
			(*paths)[i] = ex[i].path;
			(*tasks)[i] = ex[i].task;
		} else {
			free(ex[i].path);
			free(ex[i].task);
		}
	}
	free(ex);
	*n = take;
	return 0;
}

void kj_prompt_free_examples(char **paths, char **tasks, int n)
{
	for (int i = 0; i < n; i++) {
		if (paths)
			free(paths[i]);
		if (tasks)
			free(tasks[i]);
	}
	free(paths);
	free(tasks);
}

static const char *fence_lang(kj_backend be)
{
	return be == KJ_BACKEND_CUDA ? "cuda" : "c";
}

/* Source without its kjudge-case header line: the header is the judge's
 * bookkeeping, not something a model should imitate. */
static const char *strip_case_header(const char *src)
{
	if (!strncmp(src, "// kjudge-case:", 15)) {
		const char *nl = strchr(src, '\n');
		return nl ? nl + 1 : src + strlen(src);
	}
	return src;
}

static void ensure_nl(struct kjl_buf *b)
{
	if (b->len && b->s && b->s[b->len - 1] != '\n')
		kjl_puts(b, "\n");
}

static int examples_section(struct kjl_buf *b, const kj_task *t, const struct kj_prompt_opts *o,
			    struct kj_err *err)
{
	char **paths, **tasks;
	int n, rc;
	if ((rc = kj_prompt_pick_examples(t, o, &paths, &tasks, &n, err)))
		return rc;
	if (!n) {
		kj_prompt_free_examples(paths, tasks, n);
		return 0;
	}
	kjl_printf(b, "## Worked examples\n\nSolutions of other tasks that pass the judge, to show the format and "
		   "the conventions (they are not the task you are asked for).\n\n");
	for (int i = 0; i < n; i++) {
		char *kt = NULL, *src = NULL, ktp[4096 + 300];
		size_t kl, sl;
		snprintf(ktp, sizeof(ktp), "%s/tasks/%s.kt", o->root, tasks[i]);
		if ((rc = read_text(ktp, &kt, &kl, err)) || (rc = read_text(paths[i], &src, &sl, err))) {
			free(kt);
			kj_prompt_free_examples(paths, tasks, n);
			return rc;
		}
		kjl_printf(b, "### Example %d: %s\n\n```\n", i + 1, tasks[i]);
		kjl_puts(b, kt);
		ensure_nl(b);
		kjl_printf(b, "```\n\nA passing solution (%s):\n\n```%s\n", basename_of(paths[i]),
			   fence_lang(o->backend));
		kjl_puts(b, strip_case_header(src));
		ensure_nl(b);
		kjl_puts(b, "```\n\n");
		free(kt);
		free(src);
	}
	kj_prompt_free_examples(paths, tasks, n);
	return 0;
}

/* ---- the prompt ----------------------------------------------------------- */

static int task_sections(struct kjl_buf *b, const kj_task *t, const char *kt, size_t ktlen,
			 const struct kj_prompt_opts *o, struct kj_err *err)
{
	char proto[KJ_PROTO_MAX], tol[512];
	int nops, rc;
	const kj_op *ops;
	kj_backend be = o->backend;
	if ((rc = kj_task_prototype(t, be == KJ_BACKEND_CUDA, proto, sizeof(proto))))
		return kj_err_set(err, rc, "%s: cannot render the prototype (more than %zu bytes or too many "
				  "tensors)", t->id, sizeof(proto));
	tolerance_text(t, tol, sizeof(tol));
	kjl_printf(b, "## Task: %s\n\n%s\n\nThe computation, in kjudge's task language (PyTorch semantics; every tensor is\n"
		   "dense, contiguous and row-major):\n\n```\n%s%s```\n\n", t->id, t->about, kt,
		   ktlen && kt[ktlen - 1] != '\n' ? "\n" : "");
	kjl_printf(b, "## Semantics of the ops used\n\n");
	ops = kj_op_table(&nops);
	for (int i = 0; i < nops; i++)
		if (used_op(t, &ops[i]) && strcmp(ops[i].name, "copy")) {
			kjl_printf(b, "- %s\n", ops[i].doc ? ops[i].doc : ops[i].name);
			if (ops[i].notes)
				kjl_printf(b, "  (note: %s)\n", ops[i].notes);
		}
	kjl_printf(b, "\n## What to write\n\nExactly this function, with C linkage:\n\n```\n%s;\n```\n\n", proto);
	kjl_printf(b, "- Inputs and params come first (const pointers, in declaration order), then outputs, then every\n"
		   "  dim symbol as int64_t.  The function name is `%s`.\n", t->name);
	if (be == KJ_BACKEND_CUDA)
		kjl_printf(b, "- Launch all GPU work on `stream` and return without synchronizing the device; the judge\n"
			   "  times the call with events on that stream.  Creating streams, host threads, or leaving\n"
			   "  work on another stream is not allowed.  f16 is __half (cuda_fp16.h), bf16 is\n"
			   "  __nv_bfloat16 (cuda_bf16.h).\n");
	else
		kjl_printf(b, "- #include \"kjudge_cpu.h\" gives kj_half and kj_bfloat16 (16-bit patterns) and their\n"
			   "  conversions kj_half_to_float, kj_float_to_half, kj_bfloat16_to_float, kj_float_to_bfloat16.\n");
	if (task_has_f8(t))
		kjl_printf(b, "- f8e4m3 is PyTorch's torch.float8_e4m3fn (1 sign, 4 exponent bits with bias 7, 3 mantissa\n"
			   "  bits, max 448, no Inf; S.1111.111 is NaN; a cast to it rounds to nearest even and makes\n"
			   "  |x| > 464 NaN, as PyTorch): %s.\n",
			   be == KJ_BACKEND_CUDA ? "__nv_fp8_e4m3 (cuda_fp8.h; float(x) decodes it exactly; its float\n"
						   "  constructor saturates to 448 instead)"
						 : "kj_fp8_e4m3 (an 8-bit pattern) with kj_fp8_e4m3_to_float and "
						   "kj_float_to_fp8_e4m3");
	kjl_printf(b, "- Write every element of every output: outputs are pre-filled with NaN.  Never write to an\n"
		   "  input.  Work for every shape below and any other valid shape: do not specialise on sizes.\n"
		   "- No library calls that do the work (BLAS, cuBLAS, cuDNN, Thrust...), no files, processes,\n"
		   "  threads, timers, signals, exit or dynamic loading: the binary's symbols are checked.\n"
		   "- Correctness: %s, against a float64 reference, on every shape below and on 5 input draws\n"
		   "  (the declared distributions, uniform(-1,1), and draws with 0.1%% outliers x50).\n\n", tol);
	kjl_printf(b, "## Shapes\n\n");
	for (int i = 0; i < t->nbind; i++) {
		char bs[256];
		int want = be == KJ_BACKEND_CPU ? 2 : 1;
		if (t->binds[i].bench != 0 && t->binds[i].bench != want)
			continue;
		kj_binding_str(t, &t->binds[i], bs, sizeof(bs));
		if (t->binds[i].bench)
			kjl_printf(b, "- timed: %s (weight %g)\n", bs, t->binds[i].weight);
		else
			kjl_printf(b, "- checked: %s\n", bs);
	}
	kjl_printf(b, "\nThe score is the weighted geometric mean of the speedup over an eager baseline (one library\n"
		   "call or kernel per op) on the timed shapes.\n\n");
	return 0;
}

static int refine_sections(struct kjl_buf *b, const kj_task *t, const struct kj_prompt_opts *o,
			   const struct kj_prompt_prev *prev, struct kj_err *err)
{
	char *fb = NULL;
	int rc;
	if (prev->restart) {
		kjl_printf(b, "## Your best kernel so far (round %d)\n\n", prev->round);
		kjl_printf(b, "This is round %d of a refinement search (round 0 was the first answer).  The last %d "
			   "round%s did not\nimprove on this kernel, so the search starts again from it with a fresh "
			   "context: try a\ndifferent approach rather than small changes.\n\n",
			   prev->next_round, prev->stalled, prev->stalled == 1 ? "" : "s");
	} else {
		kjl_printf(b, "## Your previous attempt (round %d)\n\n", prev->round);
		kjl_printf(b, "This is round %d of a refinement search (round 0 was the first answer).\n\n",
			   prev->next_round);
	}
	kjl_printf(b, "```%s\n", fence_lang(o->backend));
	if (prev->source)
		kjl_putn(b, prev->source, prev->len);
	ensure_nl(b);
	kjl_puts(b, "```\n\n## The judge's feedback on it\n\n");
	if (prev->verdict_json) {
		if ((rc = kj_prompt_feedback(t, prev->verdict_json, &fb, err)))
			return rc;
		kjl_puts(b, fb);
		free(fb);
	} else {
		kjl_puts(b, "(not judged)\n");
	}
	kjl_puts(b, "\n");
	if (!prev->restart && prev->history && *prev->history) {
		kjl_puts(b, "## Attempts so far in this search\n\n");
		kjl_puts(b, prev->history);
		ensure_nl(b);
		kjl_puts(b, "\n");
	}
	return 0;
}

int kj_prompt_render(const kj_task *t, const struct kj_prompt_opts *o,
		     const struct kj_prompt_prev *prev, char **out, struct kj_err *err)
{
	struct kjl_buf b;
	char *kt;
	size_t ktlen;
	int rc;
	if (o->backend != KJ_BACKEND_CPU && o->backend != KJ_BACKEND_CUDA)
		return kj_err_set(err, KJ_E_UNSUPPORTED, "no %s prompt here: this renderer writes the cpu and cuda "
				  "tracks' prompts", kj_backend_name(o->backend));
	if ((rc = read_text(t->path, &kt, &ktlen, err)))
		return rc;
	kjl_init(&b);
	if (o->backend == KJ_BACKEND_CUDA)
		kjl_printf(&b, "You are writing a CUDA C++ kernel for an NVIDIA GPU (compiled with nvcc -O3 -std=c++17 for the device's\n"
			   "architecture, e.g. sm_90a on an H200).  Make it correct first, then as fast as you can.\n\n");
	else
		kjl_printf(&b, "You are writing a C11 function for the CPU (compiled with cc -std=c11 -O2 -fPIC -shared).\n"
			   "Make it correct first, then as fast as you can on one core.\n\n");
	if (o->shots > 0 && (rc = examples_section(&b, t, o, err)))
		goto fail;
	if ((rc = task_sections(&b, t, kt, ktlen, o, err)))
		goto fail;
	if (o->calib && o->backend == KJ_BACKEND_CUDA && o->calib->copy_gbs > 0)
		hardware_section(&b, t, o->calib);
	if (prev) {
		if ((rc = refine_sections(&b, t, o, prev, err)))
			goto fail;
		kjl_printf(&b, "Answer with one fenced code block holding the complete, corrected or faster %s source "
			   "file.\n", o->backend == KJ_BACKEND_CUDA ? "CUDA" : "C");
	} else {
		kjl_printf(&b, "Answer with one fenced code block holding the complete %s source file.\n",
			   o->backend == KJ_BACKEND_CUDA ? "CUDA" : "C");
	}
	free(kt);
	return kjl_finish(&b, out, err);
fail:
	free(kt);
	kjl_release(&b);
	return rc;
}

/* ---- feedback ------------------------------------------------------------- */

static const char *jstr(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* A number, or NAN for null / absent; "nan", "inf", "-inf" strings too. */
static double jnum(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	if (json_is_number(v))
		return json_number_value(v);
	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		if (!strcmp(s, "inf"))
			return INFINITY;
		if (!strcmp(s, "-inf"))
			return -INFINITY;
	}
	return NAN;
}

static void shape_text(json_t *shape, char *buf, size_t len)
{
	const char *k;
	json_t *v;
	size_t off = 0;
	buf[0] = 0;
	json_object_foreach(shape, k, v)
	{
		if (off >= len)
			break;
		off += (size_t)snprintf(buf + off, len - off, "%s%s=%lld", off ? " " : "", k,
					(long long)json_integer_value(v));
	}
}

/* flat index as a multi-index of output `name` at the shape, "[1, 2]";
 * "" when it cannot be worked out. */
static void multi_index(const kj_task *t, const char *name, json_t *shape, int64_t flat, char *buf,
			size_t len)
{
	int64_t symval[64], dims[KJ_MAX_RANK];
	const kj_value *v = NULL;
	size_t off;
	buf[0] = 0;
	if (t->nsyms > 64 || flat < 0)
		return;
	for (int i = 0; i < t->nvals; i++)
		if (t->vals[i].kind == KJ_V_OUTPUT && !strcmp(t->vals[i].name, name))
			v = &t->vals[i];
	if (!v)
		return;
	for (int i = 0; i < t->nsyms; i++) {
		json_t *x = json_object_get(shape, t->syms[i]);
		if (!json_is_integer(x))
			return;
		symval[i] = json_integer_value(x);
	}
	for (int d = 0; d < v->rank; d++)
		if (kj_expr_eval_int(t, v->dims[d], symval, &dims[d], NULL) || dims[d] <= 0)
			return;
	{
		int64_t idx[KJ_MAX_RANK], rest = flat;
		for (int d = v->rank - 1; d >= 0; d--) {
			idx[d] = rest % dims[d];
			rest /= dims[d];
		}
		if (rest)
			return;
		off = (size_t)snprintf(buf, len, "[");
		for (int d = 0; d < v->rank && off < len; d++)
			off += (size_t)snprintf(buf + off, len - off, "%s%lld", d ? ", " : "", (long long)idx[d]);
		if (off < len)
			snprintf(buf + off, len - off, "]");
	}
}

static void fmt_val(json_t *o, const char *k, char *buf, size_t len)
{
	json_t *v = json_object_get(o, k);
	if (json_is_string(v))
		snprintf(buf, len, "%s", json_string_value(v));
	else if (json_is_number(v))
		snprintf(buf, len, "%.9g", json_number_value(v));
	else
		snprintf(buf, len, "?");
}

/* Up to max_lines lines / max_bytes of log, from the first line that says
 * "error" (or the start), then how much was left out. */
static void trimmed_log(struct kjl_buf *b, const char *log, int max_lines, size_t max_bytes)
{
	const char *start = log, *p = log, *end;
	int lines = 0, total = 0;
	for (const char *q = log; *q; q++)
		if (*q == '\n')
			total++;
	for (const char *line = log; *line;) {
		const char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		int hit = 0;
		for (size_t i = 0; i + 5 <= n && !hit; i++)
			hit = !strncmp(line + i, "error", 5);
		if (hit) {
			start = line;
			break;
		}
		if (!nl)
			break;
		line = nl + 1;
	}
	p = start;
	end = start;
	while (*end && lines < max_lines && (size_t)(end - start) < max_bytes) {
		const char *nl = strchr(end, '\n');
		end = nl ? nl + 1 : end + strlen(end);
		lines++;
	}
	if ((size_t)(end - start) > max_bytes)
		end = start + max_bytes;
	kjl_puts(b, "```\n");
	if (start != log)
		kjl_puts(b, "...\n");
	kjl_putn(b, p, (size_t)(end - p));
	ensure_nl(b);
	if (*end) {
		int left = 0;
		for (const char *q = end; *q; q++)
			if (*q == '\n')
				left++;
		kjl_printf(b, "... (%d more lines of %d)\n", left, total);
	}
	kjl_puts(b, "```\n");
}

static const char *flag_meaning(const char *f)
{
	if (!strcmp(f, "fallback"))
		return "the binary calls a vendor library instead of implementing the kernel";
	if (!strcmp(f, "faster_than_roofline"))
		return "a shape ran below the roofline's T_sol: not believable, that shape is not scored";
	if (!strcmp(f, "unstable_timing"))
		return "the timing did not settle within its budget";
	if (!strcmp(f, "output_truncated"))
		return "the kernel printed more than the log keeps: do not print";
	if (!strcmp(f, "baseline_out_of_tolerance"))
		return "the eager baseline itself misses the tolerance somewhere";
	if (!strcmp(f, "timing_gap"))
		return "work ran outside the given stream: launch everything on `stream`";
	return "";
}

static void perf_lines(struct kjl_buf *b, json_t *perf, double speedup)
{
	size_t i;
	json_t *p;
	int worst = -1, slowest = -1;
	double worst_frac = INFINITY, slowest_sp = INFINITY;
	kjl_puts(b, "Performance per timed shape (median times, against the eager baseline):\n");
	json_array_foreach(perf, i, p)
	{
		char sh[256];
		double ms = jnum(p, "ms"), bms = jnum(p, "baseline_ms"), sp = jnum(p, "speedup");
		double sol = jnum(p, "sol_ms"), frac = jnum(p, "sol_frac"), iou = jnum(p, "iou"), mfu = jnum(p, "mfu");
		double flops = jnum(p, "flops"), bytes = jnum(p, "bytes");
		shape_text(json_object_get(p, "shape"), sh, sizeof(sh));
		kjl_printf(b, "- %s (weight %g): %.4g ms vs baseline %.4g ms, speedup %.3gx", sh,
			   isnan(jnum(p, "weight")) ? 1.0 : jnum(p, "weight"), ms, bms, sp);
		if (!isnan(sol) && !isnan(frac)) {
			kjl_printf(b, "; T_sol %.4g ms, %.1f%% of the roofline", sol, 100 * frac);
			if (!isnan(iou) || !isnan(mfu)) {
				int mem = isnan(mfu) || (!isnan(iou) && iou >= mfu);
				kjl_printf(b, "; %s-bound (bandwidth use %.1f%%, FLOP rate %.1f%% of peak)",
					   mem ? "memory" : "compute", isnan(iou) ? 0.0 : 100 * iou,
					   isnan(mfu) ? 0.0 : 100 * mfu);
			}
			if (frac < worst_frac) {
				worst_frac = frac;
				worst = (int)i;
			}
		} else if (!isnan(flops) && !isnan(bytes) && bytes > 0) {
			double ai = flops / bytes;
			/* no calibration (the CPU track): intensity against a
			 * typical machine balance of ~10 FLOP/byte */
			kjl_printf(b, "; %.3g FLOP/byte: likely %s-bound (no roofline without a calibration)", ai,
				   ai < 10 ? "memory" : "compute");
		}
		kjl_puts(b, "\n");
		if (!isnan(sp) && sp < slowest_sp) {
			slowest_sp = sp;
			slowest = (int)i;
		}
	}
	if (speedup > 0)
		kjl_printf(b, "Score: %.3gx (weighted geometric mean of the speedups).\n", speedup);
	if (worst >= 0) {
		char sh[256];
		json_t *p2 = json_array_get(perf, (size_t)worst);
		shape_text(json_object_get(p2, "shape"), sh, sizeof(sh));
		kjl_printf(b, "Biggest gap to the roofline: %s at %.1f%% of T_sol (%.3gx slower than the speed of light).\n",
			   sh, 100 * worst_frac, worst_frac > 0 ? 1 / worst_frac : 0.0);
	} else if (slowest >= 0) {
		char sh[256];
		json_t *p2 = json_array_get(perf, (size_t)slowest);
		shape_text(json_object_get(p2, "shape"), sh, sizeof(sh));
		kjl_printf(b, "Slowest against the baseline: %s (speedup %.3gx).\n", sh, slowest_sp);
	}
}

int kj_prompt_feedback(const kj_task *t, const char *verdict_json, char **out, struct kj_err *err)
{
	json_error_t je;
	json_t *v = json_loads(verdict_json, 0, &je), *corr, *perf, *flags, *c;
	struct kjl_buf b;
	const char *status, *stage, *reason, *log;
	size_t i;
	int nbad = 0, ncorr = 0, shown = 0;
	if (!v || !json_is_object(v)) {
		json_decref(v);
		return kj_err_set(err, KJ_E_PARSE, "the verdict is not a JSON object: %s", v ? "" : je.text);
	}
	status = jstr(v, "status");
	stage = jstr(v, "stage");
	reason = jstr(v, "reason");
	if (!status) {
		json_decref(v);
		return kj_err_set(err, KJ_E_PARSE, "the verdict has no \"status\" (not kjudge.verdict/1)");
	}
	kjl_init(&b);
	kjl_printf(&b, "Status: %s", status);
	if (strcmp(status, "pass") && stage)
		kjl_printf(&b, " (failed at the %s stage)", stage);
	kjl_puts(&b, "\n");
	if (reason && *reason)
		kjl_printf(&b, "Reason: %s\n", reason);
	flags = json_object_get(v, "flags");
	if (json_is_array(flags) && json_array_size(flags)) {
		kjl_puts(&b, "Flags:\n");
		json_array_foreach(flags, i, c)
		{
			if (json_is_string(c))
				kjl_printf(&b, "- %s: %s\n", json_string_value(c), flag_meaning(json_string_value(c)));
		}
		if (jstr(v, "fallback_libs"))
			kjl_printf(&b, "  (libraries called: %s)\n", jstr(v, "fallback_libs"));
	}
	/* stage 1: the compiler */
	log = jstr(json_object_get(v, "compile"), "log");
	if (!strcmp(status, "compile_error") && log && *log) {
		kjl_puts(&b, "\nCompiler output (trimmed):\n");
		trimmed_log(&b, log, 30, 3000);
	}
	/* stage 2: the call and the worker */
	log = jstr(v, "worker_log");
	if (strcmp(status, "pass") && strcmp(status, "compile_error") && log && *log) {
		kjl_puts(&b, "\nYour kernel's output (trimmed):\n");
		trimmed_log(&b, log, 20, 2000);
	}
	/* stage 3: correctness */
	corr = json_object_get(v, "correctness");
	json_array_foreach(corr, i, c)
	{
		ncorr++;
		if (!json_is_true(json_object_get(c, "pass")))
			nbad++;
	}
	if (nbad) {
		kjl_printf(&b, "\nCorrectness: %d of %d comparisons (shape x input draw x output) failed; the first "
			   "ones:\n", nbad, ncorr);
		json_array_foreach(corr, i, c)
		{
			char sh[256], mi[160], ex[64], got[64];
			const char *out_name = jstr(c, "output");
			double fw = jnum(c, "first_wrong_index");
			if (json_is_true(json_object_get(c, "pass")))
				continue;
			if (shown++ == 3)
				break;
			shape_text(json_object_get(c, "shape"), sh, sizeof(sh));
			kjl_printf(&b, "- output '%s', %s shape %s, input draw %lld (%s): %lld of %lld elements wrong",
				   out_name ? out_name : "?", jstr(c, "kind") ? jstr(c, "kind") : "check", sh,
				   (long long)json_integer_value(json_object_get(c, "seed_index")),
				   jstr(c, "flavour") ? jstr(c, "flavour") : "?",
				   (long long)json_integer_value(json_object_get(c, "wrong")),
				   (long long)json_integer_value(json_object_get(c, "elements")));
			if (!isnan(fw)) {
				multi_index(t, out_name ? out_name : "", json_object_get(c, "shape"), (int64_t)fw, mi,
					    sizeof(mi));
				fmt_val(c, "expected", ex, sizeof(ex));
				fmt_val(c, "got", got, sizeof(got));
				kjl_printf(&b, "; first at index %s%s(flat %lld): expected %s, got %s", mi, mi[0] ? " " : "",
					   (long long)fw, ex, got);
			}
			if (!isnan(jnum(c, "max_abs_err")))
				kjl_printf(&b, "; max abs err %.3g, max rel err %.3g", jnum(c, "max_abs_err"),
					   jnum(c, "max_rel_err"));
			kjl_puts(&b, "\n");
		}
	} else if (ncorr) {
		kjl_printf(&b, "\nCorrectness: all %d comparisons passed.\n", ncorr);
	}
	/* stage 4: performance */
	perf = json_object_get(v, "perf");
	if (json_is_array(perf) && json_array_size(perf)) {
		kjl_puts(&b, "\n");
		perf_lines(&b, perf, isnan(jnum(v, "speedup")) ? 0 : jnum(v, "speedup"));
	} else if (!strcmp(status, "pass")) {
		kjl_puts(&b, "\nNot timed.\n");
	}
	json_decref(v);
	return kjl_finish(&b, out, err);
}
