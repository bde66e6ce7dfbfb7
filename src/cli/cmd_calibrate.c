/* kjudge calibrate: measure the GPU's peaks that the roofline uses. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "kjudge/gpu.h"
#include "kjudge/judge.h"

int cmd_calibrate(int argc, char **argv)
{
	static const struct option lo[] = { { "device", 1, 0, 'd' }, { "json", 0, 0, 'j' },
					    { "cache", 1, 0, 'c' }, { "help", 0, 0, 'h' }, { 0, 0, 0, 0 } };
	int c, json = 0, dev = 0;
	const char *cache = NULL;
	kj_gpu *g;
	kj_calib cal;
	struct kj_err err;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		if (c == 'd')
			dev = atoi(optarg);
		else if (c == 'j')
			json = 1;
		else if (c == 'c')
			cache = optarg;
		else if (c == 'h') {
			puts("usage: kjudge calibrate [--device N] [--json] [--cache DIR]\n\n"
			     "Measures the GPU's device-to-device copy bandwidth and dense GEMM rates (fp64,\n"
			     "fp32 without TF32, tf32, fp16, bf16, int8, fp8 where the device has it) on\n"
			     "random data and stores them per GPU (by UUID) in the cache folder; the\n"
			     "roofline of every CUDA verdict (sol_ms, IOU, MFU) uses them.  `kjudge eval`\n"
			     "calibrates on its own the first time it meets a GPU.");
			return KJ_EXIT_OK;
		} else
			return kj_cli_usage_error("calibrate", "unknown option");
	}
	if (optind != argc)
		return kj_cli_usage_error("calibrate", "unexpected argument '%s'", argv[optind]);
	kj_err_init(&err);
	if (!kj_gpu_available()) {
		fprintf(stderr, "kjudge calibrate: no CUDA device (or kjudge was built without CUDA)\n");
		return KJ_EXIT_JUDGE;
	}
	if (kj_gpu_open(dev, &g, &err) || kj_gpu_calibrate(g, &cal, &err)) {
		fprintf(stderr, "kjudge calibrate: %s\n", err.msg);
		return KJ_EXIT_JUDGE;
	}
	kj_gpu_close(g);
	if (kj_calib_store(cache, &cal))
		fprintf(stderr, "kjudge calibrate: warning: could not store the calibration in the cache folder\n");
	if (json) {
		json_t *o = kj_calib_json(&cal);
		char *s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		puts(s ? s : "{}");
		free(s);
		json_decref(o);
	} else {
		printf("device     %s (%s)\n", cal.name, cal.uuid);
		printf("copy       %10.1f GB/s (device to device, read + write)\n", cal.copy_gbs);
		printf("read       %10.1f GB/s (read-only stream)\n", cal.read_gbs);
		printf("fp64 gemm  %10.1f TFLOP/s\n", cal.fp64_tflops);
		printf("fp32 gemm  %10.1f TFLOP/s (TF32 off)\n", cal.fp32_tflops);
		printf("tf32 gemm  %10.1f TFLOP/s\n", cal.tf32_tflops);
		printf("fp16 gemm  %10.1f TFLOP/s\n", cal.fp16_tflops);
		printf("bf16 gemm  %10.1f TFLOP/s\n", cal.bf16_tflops);
		printf("int8 gemm  %10.1f TOP/s\n", cal.int8_tops);
		printf("fp8 gemm   %10.1f TFLOP/s\n", cal.fp8_tflops);
		printf("took       %10.2f s\n", cal.seconds);
	}
	return KJ_EXIT_OK;
}
