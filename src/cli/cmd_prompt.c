/* kjudge prompt: the text a model answers with a candidate kernel. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "kjudge/compile.h"

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
}

int cmd_prompt(int argc, char **argv)
{
	static const struct option lo[] = { { "backend", 1, 0, 'b' }, { "help", 0, 0, 'h' }, { 0, 0, 0, 0 } };
	kj_backend be = KJ_BACKEND_CUDA;
	int c, nops;
	kj_task *t;
	struct kj_err err;
	char proto[2048], tol[512], *src;
	size_t srclen;
	const kj_op *ops;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		if (c == 'b') {
			if (kj_backend_from_name(optarg, &be))
				return kj_cli_usage_error("prompt", "unknown backend '%s' (cpu or cuda)", optarg);
		} else if (c == 'h') {
			puts("usage: kjudge prompt TASK [--backend cuda|cpu]\n\n"
			     "Prints a complete prompt for TASK: the reference computation, the semantics of\n"
			     "every op it uses, the exact prototype, the shapes and the rules a candidate\n"
			     "must follow.  The default backend is cuda.");
			return KJ_EXIT_OK;
		} else
			return kj_cli_usage_error("prompt", "unknown option");
	}
	if (optind != argc - 1)
		return kj_cli_usage_error("prompt", "expected one TASK");
	kj_err_init(&err);
	if (kj_cli_load_task(argv[optind], &t, &err)) {
		fprintf(stderr, "kjudge prompt: %s\n", err.msg);
		return err.code == KJ_E_NOTFOUND ? KJ_EXIT_USAGE : KJ_EXIT_FAIL;
	}
	if (kj_cli_read_file(t->path, &src, &srclen, &err)) {
		fprintf(stderr, "kjudge prompt: %s\n", err.msg);
		kj_task_free(t);
		return KJ_EXIT_JUDGE;
	}
	kj_task_prototype(t, be == KJ_BACKEND_CUDA, proto, sizeof(proto));
	tolerance_text(t, tol, sizeof(tol));
	if (be == KJ_BACKEND_CUDA)
		printf("You are writing a CUDA C++ kernel for an NVIDIA GPU (compiled with nvcc -O3 -std=c++17 for the device's\n"
		       "architecture, e.g. sm_90a on an H200).  Make it correct first, then as fast as you can.\n\n");
	else
		printf("You are writing a C11 function for the CPU (compiled with cc -std=c11 -O2 -fPIC -shared).\n"
		       "Make it correct first, then as fast as you can on one core.\n\n");
	printf("## Task: %s\n\n%s\n\nThe computation, in kjudge's task language (PyTorch semantics; every tensor is\n"
	       "dense, contiguous and row-major):\n\n```\n%s%s```\n\n", t->id, t->about, src,
	       srclen && src[srclen - 1] != '\n' ? "\n" : "");
	printf("## Semantics of the ops used\n\n");
	ops = kj_op_table(&nops);
	for (int i = 0; i < nops; i++)
		if (used_op(t, &ops[i]) && strcmp(ops[i].name, "copy")) {
			printf("- %s\n", ops[i].doc ? ops[i].doc : ops[i].name);
			if (ops[i].notes)
				printf("  (note: %s)\n", ops[i].notes);
		}
	printf("\n## What to write\n\nExactly this function, with C linkage:\n\n```\n%s;\n```\n\n", proto);
	printf("- Inputs and params come first (const pointers, in declaration order), then outputs, then every\n"
	       "  dim symbol as int64_t.  The function name is `%s`.\n", t->name);
	if (be == KJ_BACKEND_CUDA)
		printf("- Launch all GPU work on `stream` and return without synchronizing the device; the judge\n"
		       "  times the call with events on that stream.  Creating streams, host threads, or leaving\n"
		       "  work on another stream is not allowed.  f16 is __half (cuda_fp16.h), bf16 is\n"
		       "  __nv_bfloat16 (cuda_bf16.h).\n");
	else
		printf("- #include \"kjudge_cpu.h\" gives kj_half and kj_bfloat16 (16-bit patterns) and their\n"
		       "  conversions kj_half_to_float, kj_float_to_half, kj_bfloat16_to_float, kj_float_to_bfloat16.\n");
	printf("- Write every element of every output: outputs are pre-filled with NaN.  Never write to an\n"
	       "  input.  Work for every shape below and any other valid shape: do not specialise on sizes.\n"
	       "- No library calls that do the work (BLAS, cuBLAS, cuDNN, Thrust...), no files, processes,\n"
	       "  threads, timers, signals, exit or dynamic loading: the binary's symbols are checked.\n"
	       "- Correctness: %s, against a float64 reference, on every shape below and on 5 input draws\n"
	       "  (the declared distributions, uniform(-1,1), and draws with 0.1%% outliers x50).\n\n", tol);
	printf("## Shapes\n\n");
	for (int b = 0; b < t->nbind; b++) {
		char bs[256];
		int want = be == KJ_BACKEND_CPU ? 2 : 1;
		if (t->binds[b].bench != 0 && t->binds[b].bench != want)
			continue;
		kj_binding_str(t, &t->binds[b], bs, sizeof(bs));
		if (t->binds[b].bench)
			printf("- timed: %s (weight %g)\n", bs, t->binds[b].weight);
		else
			printf("- checked: %s\n", bs);
	}
	printf("\nThe score is the weighted geometric mean of the speedup over an eager baseline (one library\n"
	       "call or kernel per op) on the timed shapes.\n\n"
	       "Answer with one fenced code block holding the complete %s source file.\n",
	       be == KJ_BACKEND_CUDA ? "CUDA" : "C");
	free(src);
	kj_task_free(t);
	return KJ_EXIT_OK;
}
