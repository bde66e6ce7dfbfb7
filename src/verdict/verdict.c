/*
 * The verdict's names (statuses, stages, flags, backends) and its life
 * cycle: see include/kjudge/verdict.h.  The JSON form is verdict_json.c.
 */
#include "kjudge/verdict.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kjudge/err.h"
#include "kjudge/version.h"

const char *kj_backend_name(kj_backend b)
{
	switch (b) {
	case KJ_BACKEND_CPU:
		return "cpu";
	case KJ_BACKEND_CUDA:
		return "cuda";
	case KJ_BACKEND_TRITON:
		return "triton";
	case KJ_BACKEND_KERNELBENCH:
		return "kernelbench";
	}
	return "unknown";
}

int kj_backend_is_python(kj_backend b)
{
	return b == KJ_BACKEND_TRITON || b == KJ_BACKEND_KERNELBENCH;
}

int kj_backend_is_gpu(kj_backend b)
{
	return b == KJ_BACKEND_CUDA || kj_backend_is_python(b);
}

int kj_backend_from_name(const char *s, kj_backend *out)
{
	if (s && strcmp(s, "cpu") == 0)
		*out = KJ_BACKEND_CPU;
	else if (s && strcmp(s, "cuda") == 0)
		*out = KJ_BACKEND_CUDA;
	else if (s && strcmp(s, "triton") == 0)
		*out = KJ_BACKEND_TRITON;
	else if (s && strcmp(s, "kernelbench") == 0)
		*out = KJ_BACKEND_KERNELBENCH;
	else
		return KJ_E_USAGE;
	return 0;
}

static const char *const status_names[KJ_ST_COUNT] = {
	"pass", "compile_error", "call_error", "mismatch", "runtime_error", "timeout", "crash", "rejected",
};
static const char *const stage_names[KJ_STAGE_COUNT] = {
	"static", "compile", "call", "correctness", "performance", "done",
};

const char *kj_status_name(kj_status s)
{
	return s < KJ_ST_COUNT ? status_names[s] : "unknown";
}

int kj_status_from_name(const char *s, kj_status *out)
{
	for (int i = 0; i < KJ_ST_COUNT; i++)
		if (!strcmp(s, status_names[i])) {
			*out = (kj_status)i;
			return 0;
		}
	return -1;
}

const char *kj_stage_name(kj_stage s)
{
	return s < KJ_STAGE_COUNT ? stage_names[s] : "unknown";
}

void kj_flags_str(unsigned flags, char *buf, size_t len)
{
	static const char *const names[] = { "fallback", "faster_than_roofline", "unstable_timing",
					     "output_truncated", "baseline_out_of_tolerance", "timing_gap",
					     "unconfined", "tolerance_budget", "gpu_drift" };
	size_t off = 0;
	buf[0] = 0;
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]) && off < len; i++)
		if (flags & (1u << i))
			off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? "," : "", names[i]);
}

void kj_verdict_init(kj_verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->noise_floor = -1;
	snprintf(v->version, sizeof(v->version), "%s", kj_version());
}

void kj_verdict_release(kj_verdict *v)
{
	free(v->compile_log);
	free(v->worker_log);
	free(v->checks);
	free(v->perf);
	kj_verdict_init(v);
}

static const char *const prof_names[KJ_PROF_COUNT] = {
	"setup", "static", "compile", "baseline", "spawn", "context", "floor", "load", "shape", "gen", "ref",
	"base_run", "ref_cache", "call", "timed_call", "input_check", "compare", "vs_base", "time_base", "train", "teardown",
	"py_wait", "py_start", "other",
};

const char *kj_prof_name(kj_prof p)
{
	return (unsigned)p < KJ_PROF_COUNT ? prof_names[p] : "unknown";
}
