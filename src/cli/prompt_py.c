/* kjudge prompt --backend triton|kernelbench: the prompt for a Python
 * candidate (the rules the Python worker and its static check enforce,
 * docs/kernelbench.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "kjudge/judge.h"
#include "kjudge/ops.h"
#include "kjudge/python.h"

static int uses_op(const kj_task *t, const kj_op *op)
{
	for (int n = 0; n < t->nnodes; n++)
		if (t->nodes[n].op == op)
			return 1;
	return 0;
}

static int uses_matmul(const kj_task *t)
{
	for (int n = 0; n < t->nnodes; n++) {
		const char *name = t->nodes[n].op->name;
		if (!strcmp(name, "matmul") || !strcmp(name, "bmm") || !strcmp(name, "linear"))
			return 1;
	}
	return 0;
}

static void tolerance(const kj_task *t, char *buf, size_t len)
{
	if (t->tol.has_metric)
		snprintf(buf, len, "the task's metrics (cosine >= %g, relative L1 <= %g, RMSE <= %g; < 0: not used)",
			 t->tol.cos_min, t->tol.l1_max, t->tol.rmse_max);
	else if (t->tol.has_tol)
		snprintf(buf, len, "|got - ref| <= %g + %g * |ref| for every element", t->tol.atol, t->tol.rtol);
	else
		snprintf(buf, len, "|got - ref| <= atol + rtol * |ref| for every element, atol = rtol = 1e-4 for "
			 "float32, 1e-2 for float16/bfloat16, integers exact, NaN and Inf must match");
}

/* A KernelBench problem file's prompt: the problem's own source and the
 * contract under which ModelNew is judged against it (docs/kernelbench.md). */
static int prompt_problem(const kj_task *t, FILE *out, struct kj_err *err)
{
	char *src, tol[512];
	size_t len;
	if (kj_cli_read_file(t->path, &src, &len, err))
		return err->code;
	tolerance(t, tol, sizeof(tol));
	fprintf(out, "You are writing a KernelBench-format PyTorch module whose computation runs in your own GPU\n"
		     "kernels (CUDA C++ built with torch.utils.cpp_extension.load_inline, or Triton), on an\n"
		     "NVIDIA GPU such as the H200.  Make it correct first, then as fast as you can.\n\n"
		     "## Task: %s\n\nThe reference architecture:\n\n```python\n%s%s```\n\n", t->id, src,
		len && src[len - 1] != '\n' ? "\n" : "");
	free(src);
	fprintf(out,
		"## What to write\n\nOne Python file defining `class ModelNew(nn.Module)` that computes what `Model`\n"
		"computes:\n\n"
		"- The judge calls `torch.manual_seed(42)`, then `ModelNew(*get_init_inputs())` with the values\n"
		"  above, then `.cuda()`, as it builds `Model` (so parameters created as `Model` creates them get\n"
		"  the same values); no `.eval()`: the module's own mode, as `Model`'s.\n"
		"- `forward` gets the arguments `get_inputs()` returns, in that order: tensors as CUDA tensors of\n"
		"  the same shapes and dtypes with new values on every call, other values as given.  Return\n"
		"  plain torch.Tensor objects of exactly `Model`'s output shapes and dtypes.\n"
		"- The computation must run in your own kernels: torch operators doing it are counted and\n"
		"  flag the verdict `fallback` (`--policy strict` rejects it); so does CUDA source calling\n"
		"  cuBLAS, cuDNN, CUTLASS or Thrust.  Launch on at::cuda::getCurrentCUDAStream().\n"
		"- Never write to an input; do not keep results between calls.\n"
		"- Correctness, against `Model` in float64 (inputs and weights cast to float64), on 5 input\n"
		"  draws (normal, uniform(-1,1), and draws with 0.1%% outliers x50): %s.\n"
		"- Timing: CUDA events around your forward after an L2 flush, against `Model`'s forward in\n"
		"  PyTorch eager timed the same way.\n\n"
		"Answer with one fenced code block holding the complete Python file.\n", tol);
	return 0;
}

int kj_cli_prompt_python(const kj_task *t, kj_backend be, FILE *out, struct kj_err *err)
{
	char sig[8192], tol[512];
	char *kt;
	size_t ktlen;
	int nops, kb = be == KJ_BACKEND_KERNELBENCH;
	const kj_op *ops;
	if (t->kb)
		return prompt_problem(t, out, err);
	if (kj_task_py_signature(t, be, sig, sizeof(sig)))
		return kj_err_set(err, KJ_E_UNSUPPORTED, "%s: the signature does not fit in %zu bytes", t->id,
				  sizeof(sig));
	if (kj_cli_read_file(t->path, &kt, &ktlen, err))
		return err->code;
	tolerance(t, tol, sizeof(tol));
	if (kb)
		fprintf(out, "You are writing a KernelBench-format PyTorch module whose computation runs in your own GPU\n"
			     "kernels (CUDA C++ built with torch.utils.cpp_extension.load_inline, or Triton), on an\n"
			     "NVIDIA GPU such as the H200.  Make it correct first, then as fast as you can.\n\n");
	else
		fprintf(out, "You are writing Triton GPU kernels in Python (triton 3.x with PyTorch) for an NVIDIA GPU\n"
			     "such as the H200.  Make it correct first, then as fast as you can.\n\n");
	fprintf(out, "## Task: %s\n\n%s\n\nThe computation, in kjudge's task language (PyTorch semantics; every tensor is\n"
		     "dense, contiguous and row-major):\n\n```\n%s%s```\n\n", t->id, t->about ? t->about : "", kt,
		ktlen && kt[ktlen - 1] != '\n' ? "\n" : "");
	free(kt);
	fprintf(out, "## Semantics of the ops used\n\n");
	ops = kj_op_table(&nops);
	for (int i = 0; i < nops; i++)
		if (uses_op(t, &ops[i]) && strcmp(ops[i].name, "copy"))
			fprintf(out, "- %s\n", ops[i].doc ? ops[i].doc : ops[i].name);
	fprintf(out, "\n## What to write\n\nOne Python file defining exactly this %s:\n\n```python\n%s\n```\n\n",
		kb ? "class" : "function", sig);
	if (kb) {
		fprintf(out,
			"- The judge calls `ModelNew(*get_init_inputs())` when your file defines get_init_inputs(),\n"
			"  else `ModelNew()`, moves it to the GPU, binds the task's params (if any) onto\n"
			"  `list(model.parameters())` in that order (shapes must match; the judge's values replace\n"
			"  your initial ones), then calls `forward` with the inputs above as CUDA tensors and\n"
			"  copies what it returns (plain torch.Tensor objects of exactly the output's shape and dtype)\n"
			"  into its own buffers.\n"
			"- The computation must run in your own kernels.  torch operators doing it (torch.matmul,\n"
			"  F.relu, nn.Linear's forward, x + y, x.sum()) are a fallback: the judge counts every torch\n"
			"  operator your forward runs; any but allocation and views (torch.empty, empty_like, view,\n"
			"  reshape) flags the verdict `fallback`, and `--policy strict` rejects it.  So does CUDA\n"
			"  source that calls cuBLAS, cuDNN, CUTLASS or Thrust.\n"
			"- In CUDA source: launch on at::cuda::getCurrentCUDAStream(); no cudaStreamCreate,\n"
			"  cudaEventElapsedTime, host threads, files, processes or timers.\n");
	} else {
		fprintf(out,
			"- Arguments: inputs and params (in declaration order), then outputs, as CUDA torch tensors\n"
			"  (contiguous, row-major, of the dtype and shape shown), then every dim symbol as a Python\n"
			"  int.  Write the outputs in place and return None.\n"
			"- The computation must run in your own @triton.jit kernels, launched from `%s` on the\n"
			"  current stream (a plain `kernel[grid](...)` launch does that).  torch operators doing it\n"
			"  (torch.matmul, F.softmax, x.sum(), x + y, out.copy_(...)) are a fallback: the judge counts\n"
			"  every torch operator run during the call; any but allocation and views (torch.empty,\n"
			"  empty_like, zeros, view, reshape) flags the verdict `fallback`, and `--policy strict`\n"
			"  rejects it.\n",
			t->name);
		if (uses_matmul(t))
			fprintf(out, "- tl.dot on float32 inputs uses TF32 by default, which misses float32 tolerance:\n"
				     "  pass input_precision=\"ieee\" for float32 tasks.\n");
	}
	fprintf(out,
		"- Imports: torch (and torch.nn, torch.nn.functional, torch.nn.init, torch.cuda), triton,\n"
		"  triton.language, math, functools, typing, itertools, operator, numbers, collections,\n"
		"  enum, abc, contextlib, warnings, struct, time, os (paths, the environment and folders\n"
		"  only)%s.\n"
		"  Not allowed (the source is checked before it runs; each rejection names its line):\n"
		"  your own streams, CUDA graphs, threads, processes, signals, file descriptors,\n"
		"  eval/exec/getattr/open, private attributes (names starting with _, but nn.init's fan\n"
		"  helpers), and assigning to attributes of modules or classes (monkeypatching;\n"
		"  torch.backends flags such as cudnn.benchmark are fine).  CUDA events for\n"
		"  synchronisation are fine: the judge times with its own.\n"
		"- Outputs are pre-filled with NaN: write every element.  Never write to an input.  Work for\n"
		"  every shape below and any other valid shape; do not keep results between calls (every\n"
		"  call gets new inputs).\n"
		"- Correctness, against a float64 reference on every shape below and 5 input draws (the\n"
		"  declared distributions, uniform(-1,1), and draws with 0.1%% outliers x50):\n"
		"  %s.\n"
		"- Timing: CUDA events around your %s on the judge's stream after an L2 flush, with the\n"
		"  GPU idle at the start: your Python and launch overhead count, as PyTorch eager's do.\n\n",
		kb ? ", torch.utils.cpp_extension" : "", tol, kb ? "forward" : "function");
	fprintf(out, "## Shapes\n\n");
	for (int i = 0; i < t->nbind; i++) {
		char bs[256];
		if (t->binds[i].bench != 0 && t->binds[i].bench != 1)
			continue;
		kj_binding_str(t, &t->binds[i], bs, sizeof(bs));
		if (t->binds[i].bench)
			fprintf(out, "- timed: %s (weight %g)\n", bs, t->binds[i].weight);
		else
			fprintf(out, "- checked: %s\n", bs);
	}
	fprintf(out, "\nThe score is the weighted geometric mean of the speedup over an eager baseline (one library\n"
		     "call or kernel per op) on the timed shapes.\n\n"
		     "Answer with one fenced code block holding the complete Python file.\n");
	return 0;
}
