/* kjudge prompt: the text a model answers with a candidate kernel
 * (rendered by src/llm/prompt.c, the same text `kjudge refine` sends). */
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "kjudge/compile.h"
#include "kjudge/gpu.h"
#include "kjudge/judge.h"
#include "kjudge/llm.h"

/* The calibration of the GPU kjudge would judge on: device 0's file in the
 * cache, when this build and machine have a GPU.  Returns 0 or -1. */
static int calib_of_device(kj_calib *c)
{
	char cache[PATH_MAX];
	kj_gpu *g;
	int rc;
	if (!kj_gpu_available() || kj_cache_dir(NULL, cache, sizeof(cache), NULL) ||
	    kj_gpu_open(0, &g, NULL))
		return -1;
	rc = kj_calib_load(cache, kj_gpu_get_info(g)->uuid, c);
	kj_gpu_close(g);
	return rc;
}

/* A calibration JSON file (the form `kjudge calibrate --json` prints and
 * the cache holds). */
static int calib_of_file(const char *path, kj_calib *c, struct kj_err *err)
{
	json_error_t je;
	json_t *o = json_load_file(path, 0, &je);
	const char *name;
	if (!o || !json_is_object(o)) {
		json_decref(o);
		return kj_err_set(err, KJ_E_USAGE, "cannot read the calibration '%s': %s", path,
				  o ? "not a JSON object" : je.text);
	}
	memset(c, 0, sizeof(*c));
	name = json_string_value(json_object_get(o, "name"));
	snprintf(c->name, sizeof(c->name), "%s", name ? name : "");
	name = json_string_value(json_object_get(o, "uuid"));
	snprintf(c->uuid, sizeof(c->uuid), "%s", name ? name : "");
	c->copy_gbs = json_number_value(json_object_get(o, "copy_gbs"));
	c->read_gbs = json_number_value(json_object_get(o, "read_gbs"));
	c->fp64_tflops = json_number_value(json_object_get(o, "fp64_tflops"));
	c->fp32_tflops = json_number_value(json_object_get(o, "fp32_tflops"));
	c->tf32_tflops = json_number_value(json_object_get(o, "tf32_tflops"));
	c->fp16_tflops = json_number_value(json_object_get(o, "fp16_tflops"));
	c->bf16_tflops = json_number_value(json_object_get(o, "bf16_tflops"));
	c->int8_tops = json_number_value(json_object_get(o, "int8_tops"));
	c->fp8_tflops = json_number_value(json_object_get(o, "fp8_tflops"));
	json_decref(o);
	if (!(c->copy_gbs > 0))
		return kj_err_set(err, KJ_E_USAGE, "the calibration '%s' has no copy_gbs", path);
	return 0;
}

static void usage(void)
{
	puts("usage: kjudge prompt TASK [options]\n\n"
	     "Prints a complete prompt for TASK: the reference computation, the semantics of\n"
	     "every op it uses, the exact prototype, the shapes and the rules a candidate\n"
	     "must follow; the same text `kjudge refine` sends to a model.\n\n"
	     "  --backend B          cuda (default), cpu, triton (a Python file of Triton kernels)\n"
	     "                       or kernelbench (a KernelBench ModelNew file)\n"
	     "  --mode M             oneshot (default), fewshot (worked examples from the honest\n"
	     "                       solutions of other tasks) or refine (a previous attempt and\n"
	     "                       the judge's feedback on it)\n"
	     "  --shots N            worked examples for fewshot (default 2)\n"
	     "  --source FILE        refine: the previous attempt's source\n"
	     "  --feedback FILE      refine: its verdict (kjudge eval --json output)\n"
	     "  --round N            refine: the round being asked for (default 1)\n"
	     "  --calib[=FILE]       hardware facts (cuda): from FILE (calibration JSON), or\n"
	     "                       insist on the GPU's stored calibration; by default they are\n"
	     "                       added when one is stored\n"
	     "  --no-calib           never add hardware facts\n\n"
	     "--source or --feedback alone select --mode refine.");
}

int cmd_prompt(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "backend", 1, 0, 'b' }, { "mode", 1, 0, 'm' },     { "shots", 1, 0, 'k' },
		{ "source", 1, 0, 's' },  { "feedback", 1, 0, 'f' }, { "round", 1, 0, 'r' },
		{ "calib", 2, 0, 'c' },   { "no-calib", 0, 0, 'C' }, { "help", 0, 0, 'h' },
		{ 0, 0, 0, 0 }
	};
	struct kj_prompt_opts po;
	struct kj_prompt_prev prev;
	kj_calib cal;
	kj_task *t;
	struct kj_err err;
	const char *mode = NULL, *source = NULL, *feedback = NULL, *calib_file = NULL;
	char *src = NULL, *fb = NULL, *text = NULL, *end;
	size_t srclen = 0, fblen;
	int c, want_calib = 0, no_calib = 0, shots = -1, round = 1, refine, rc;
	kj_prompt_opts_init(&po);
	optind = 1;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'b':
			if (kj_backend_from_name(optarg, &po.backend))
				return kj_cli_usage_error("prompt", "unknown backend '%s' (cpu, cuda, triton or kernelbench)",
							  optarg);
			break;
		case 'm':
			if (strcmp(optarg, "oneshot") && strcmp(optarg, "fewshot") && strcmp(optarg, "refine"))
				return kj_cli_usage_error("prompt", "--mode is oneshot, fewshot or refine, got '%s'",
							  optarg);
			mode = optarg;
			break;
		case 'k':
			shots = (int)strtol(optarg, &end, 10);
			if (*end || shots < 0 || shots > 20)
				return kj_cli_usage_error("prompt", "--shots wants 0..20, got '%s'", optarg);
			break;
		case 's':
			source = optarg;
			break;
		case 'f':
			feedback = optarg;
			break;
		case 'r':
			round = (int)strtol(optarg, &end, 10);
			if (*end || round < 1 || round > 1000000)
				return kj_cli_usage_error("prompt", "--round wants 1 or more, got '%s'", optarg);
			break;
		case 'c':
			want_calib = 1;
			calib_file = optarg;
			break;
		case 'C':
			no_calib = 1;
			break;
		case 'h':
			usage();
			return KJ_EXIT_OK;
		default:
			return kj_cli_usage_error("prompt", "unknown option");
		}
	}
	if (optind != argc - 1)
		return kj_cli_usage_error("prompt", "expected one TASK");
	if (want_calib && no_calib)
		return kj_cli_usage_error("prompt", "--calib and --no-calib contradict each other");
	if (!mode)
		mode = source || feedback ? "refine" : shots > 0 ? "fewshot" : "oneshot";
	refine = !strcmp(mode, "refine");
	if (refine && !source)
		return kj_cli_usage_error("prompt", "--mode refine needs --source FILE (the previous attempt)");
	if (!refine && (source || feedback))
		return kj_cli_usage_error("prompt", "--source and --feedback belong to --mode refine");
	if (!strcmp(mode, "fewshot"))
		po.shots = shots < 0 ? 2 : shots;
	else if (shots > 0)
		po.shots = shots; /* worked examples in a refinement prompt too */
	po.root = kj_cli_root();
	kj_err_init(&err);
	/* a KernelBench problem file: the kernelbench backend's prompt */
	{
		size_t n = strlen(argv[optind]);
		if (n > 3 && !strcmp(argv[optind] + n - 3, ".py"))
			po.backend = KJ_BACKEND_KERNELBENCH;
	}
	if (po.backend == KJ_BACKEND_CUDA && !no_calib) {
		if (calib_file) {
			if (calib_of_file(calib_file, &cal, &err)) {
				fprintf(stderr, "kjudge prompt: %s\n", err.msg);
				return KJ_EXIT_USAGE;
			}
			po.calib = &cal;
		} else if (calib_of_device(&cal) == 0) {
			po.calib = &cal;
		} else if (want_calib) {
			fprintf(stderr, "kjudge prompt: --calib: no stored calibration for GPU 0 (run `kjudge calibrate` "
					"on the GPU, or give --calib=FILE)\n");
			return KJ_EXIT_JUDGE;
		}
	}
	if (kj_cli_load_task(argv[optind], &t, &err)) {
		fprintf(stderr, "kjudge prompt: %s\n", err.msg);
		return kj_cli_task_exit(err.code);
	}
	if (refine) {
		memset(&prev, 0, sizeof(prev));
		if (kj_cli_read_file(source, &src, &srclen, &err) ||
		    (feedback && kj_cli_read_file(feedback, &fb, &fblen, &err))) {
			fprintf(stderr, "kjudge prompt: %s\n", err.msg);
			free(src);
			kj_task_free(t);
			return KJ_EXIT_USAGE;
		}
		if (fb) {
			/* feedback on another task is a mistake worth naming */
			json_t *v = json_loads(fb, 0, NULL);
			const char *vt = json_string_value(json_object_get(v, "task"));
			if (!v || !vt) {
				fprintf(stderr, "kjudge prompt: '%s' is not a kjudge.verdict/1 JSON object\n", feedback);
				json_decref(v);
				free(src);
				free(fb);
				kj_task_free(t);
				return KJ_EXIT_USAGE;
			}
			if (strcmp(vt, t->id)) {
				fprintf(stderr, "kjudge prompt: '%s' is a verdict for task %s, not %s\n", feedback, vt,
					t->id);
				json_decref(v);
				free(src);
				free(fb);
				kj_task_free(t);
				return KJ_EXIT_USAGE;
			}
			json_decref(v);
		}
		prev.source = src;
		prev.len = srclen;
		prev.verdict_json = fb;
		prev.round = round - 1;
		prev.next_round = round;
	}
	if (t->kb)
		po.backend = KJ_BACKEND_KERNELBENCH;
	if (kj_backend_is_python(po.backend)) {
		/* the Python tracks have their own text (prompt_py.c); refine and
		 * few-shot prompts are the CUDA and CPU tracks' for now */
		if (refine || po.shots > 0) {
			free(src);
			free(fb);
			kj_task_free(t);
			return kj_cli_usage_error("prompt", "--mode %s is not available for the %s backend yet", mode,
						  kj_backend_name(po.backend));
		}
		rc = kj_cli_prompt_python(t, po.backend, stdout, &err);
		if (rc)
			fprintf(stderr, "kjudge prompt: %s\n", err.msg);
		kj_task_free(t);
		return rc ? KJ_EXIT_JUDGE : KJ_EXIT_OK;
	}
	rc = kj_prompt_render(t, &po, refine ? &prev : NULL, &text, &err);
	if (rc) {
		fprintf(stderr, "kjudge prompt: %s\n", err.msg);
		rc = rc == KJ_E_PARSE ? KJ_EXIT_USAGE : KJ_EXIT_JUDGE;
	} else {
		fputs(text, stdout);
		rc = KJ_EXIT_OK;
	}
	free(text);
	free(src);
	free(fb);
	kj_task_free(t);
	return rc;
}
