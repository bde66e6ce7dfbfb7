/*
 * The table of the eager baseline's tuning knobs (include/kjudge/knobs.h).
 * A knob read in src/ops/cuda must have its row here: kj_knob_int and
 * kj_knob_str assert it, and tests/cli/t14_knobs.sh greps the sources for
 * reads of names missing from kjudge baseline --knobs.  docs/baseline.md
 * has the same table for readers, checked by the same test.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kjudge/knobs.h"

#define KINT(name, effect, def, lo, hi, about) { name, KJ_KNOB_INT, effect, def, lo, hi, NULL, NULL, about }
#define KSTR(name, effect, values, about) { name, KJ_KNOB_STR, effect, 0, 0, 0, values, "auto", about }

/* Sorted by name (kj_knobs_key renders in this order; a unit test checks). */
static const kj_knob knobs[] = {
	KINT("KJ_BIN_VS", KJ_KNOB_TIMING, 1, 0, 1,
	     "binary ops over many rows whose starts are not 16-byte aligned store 16-byte words "
	     "between each row's head and tail (0: element by element)"),
	KINT("KJ_BN_VEC", KJ_KNOB_RESULTS, 1, 0, 1,
	     "batch_norm, instance_norm, group_norm statistics and apply read 16-byte words where "
	     "aligned (0: single elements)"),
	KINT("KJ_CONV_F32_FIND", KJ_KNOB_RESULTS, 0, 0, 1,
	     "f32 convolutions: 1 times cuDNN's fastest GEMM-family algorithm against the _v7 "
	     "heuristic's and keeps the faster (0: the heuristic's, as PyTorch without "
	     "cudnn.benchmark)"),
	KSTR("KJ_CONV_I8", KJ_KNOB_TIMING, "auto,direct,gemm",
	     "i8 convolutions (exact in int32 either way): force the own implicit-GEMM kernel "
	     "(direct) or the cuBLAS int8 GEMM route (gemm, an error where it does not apply)"),
	KSTR("KJ_CONV_LAYOUT", KJ_KNOB_RESULTS, "auto,nchw,nhwc",
	     "16-bit forward convolutions: force NCHW or the channels-last route (auto: both timed "
	     "on a geometry's first call, the faster kept)"),
	KINT("KJ_CONV_LOG", KJ_KNOB_LOG, 0, 0, 1,
	     "1 prints each convolution geometry's cuDNN algorithm on stderr"),
	KINT("KJ_CUDNN_SLICE", KJ_KNOB_RESULTS, 2147483647, 1024, 2147483647,
	     "convolutions and pools on cuDNN: a batch of more elements than this goes to cuDNN in "
	     "slices of whole images (cuDNN takes 32-bit strides: the default is its limit; a small "
	     "value tests the slicing)"),
	KINT("KJ_DECODE_CTAS", KJ_KNOB_RESULTS, 16, 1, 256,
	     "16-bit split-KV decode attention: CTAs per SM the keys are split over (merged by "
	     "log-sum-exp)"),
	KINT("KJ_FAST16", KJ_KNOB_RESULTS, 1, 0, 1,
	     "f16/bf16 sigmoid and silu with the hardware exp2 and an approximate reciprocal (0: the "
	     "exact f32 forms)"),
	KINT("KJ_GS_CL", KJ_KNOB_RESULTS, 1, 0, 1,
	     "grid_sample with C >= 32 a multiple of the vector: channels-last gather (0: the NCHW "
	     "kernel)"),
	KINT("KJ_GS_UNROLL", KJ_KNOB_TIMING, 1, 1, 4,
	     "grid_sample's NCHW kernel: channel loop unrolled 2 or 4 times (another value: 1)"),
	KINT("KJ_NORM_CLUSTER", KJ_KNOB_RESULTS, 1, 0, 1,
	     "normalize over rows of 16 KB to 1 MB: one kernel, a cluster of blocks per row "
	     "keeping it in shared memory (0: the norm kernel, then the division)"),
	KINT("KJ_NORM_GRID", KJ_KNOB_TIMING, 0, 0, 1024,
	     "layer_norm, rms_norm rows: N caps the grid at N blocks per SM, each looping over rows "
	     "(0: a block per row)"),
	KINT("KJ_NORM_VPT", KJ_KNOB_RESULTS, 8, 1, 64,
	     "layer_norm, rms_norm rows: about this many 16-byte vectors per thread (the threads "
	     "per row follow)"),
	KINT("KJ_RED_BPS", KJ_KNOB_RESULTS, 4, 1, 64,
	     "reductions: a run is split into chunks across blocks until there are this many blocks "
	     "per SM"),
	KINT("KJ_RED_COLV", KJ_KNOB_RESULTS, 1, 0, 1,
	     "middle-dim reductions: the 16-byte column kernel (0: only for wide rows)"),
	KINT("KJ_SDPA_DEBUG", KJ_KNOB_LOG, 0, 0, 1,
	     "1 prints one stderr line per sdpa shape when its route is decided (timings, or why "
	     "cuDNN refused)"),
	KSTR("KJ_SDPA_F32", KJ_KNOB_RESULTS, "auto,fused,gemm",
	     "f32 sdpa: force the fused 3xTF32 kernel wherever E allows (decode-like shapes "
	     "included) or the GEMM + softmax path"),
	KSTR("KJ_SDPA_PATH", KJ_KNOB_RESULTS, "auto,cudnn,fused,gemm",
	     "16-bit sdpa: force cuDNN's fused attention, the own fused kernel or the GEMM path "
	     "where it applies (auto: cuDNN and the own kernel timed on a shape's first call)"),
};

#define NKNOBS ((int)(sizeof(knobs) / sizeof(knobs[0])))

int kj_knob_count(void)
{
	return NKNOBS;
}

const kj_knob *kj_knob_at(int i)
{
	assert(i >= 0 && i < NKNOBS);
	return i >= 0 && i < NKNOBS ? &knobs[i] : NULL;
}

const kj_knob *kj_knob_find(const char *name)
{
	int lo = 0, hi = NKNOBS;
	while (lo < hi) {
		int mid = (lo + hi) / 2, c = strcmp(knobs[mid].name, name);
		if (!c)
			return &knobs[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const char *kj_knob_effect_name(kj_knob_effect e)
{
	return e == KJ_KNOB_RESULTS ? "results" : e == KJ_KNOB_TIMING ? "timing" : "log";
}

/* k's integer in v: 0 with *x set, -1 when v is not a base-10 integer
 * within k's range (strtoll's rules, as the kernels always read knobs). */
static int parse_int(const kj_knob *k, const char *v, int64_t *x)
{
	char *end;
	long long n;
	errno = 0;
	n = strtoll(v, &end, 10);
	if (end == v || *end || errno || n < k->lo || n > k->hi)
		return -1;
	*x = (int64_t)n;
	return 0;
}

/* Whether s is one of the comma-separated values. */
static int in_list(const char *values, const char *s)
{
	size_t l = strlen(s);
	for (const char *p = values; *p;) {
		size_t n = strcspn(p, ",");
		if (n == l && !memcmp(p, s, n))
			return 1;
		p += n + (p[n] == ',');
	}
	return 0;
}

int64_t kj_knob_int(const char *name)
{
	const kj_knob *k = kj_knob_find(name);
	const char *v;
	int64_t x;
	assert(k && k->kind == KJ_KNOB_INT);
	if (!k || k->kind != KJ_KNOB_INT)
		return 0;
	v = getenv(name);
	if (!v || !*v || parse_int(k, v, &x))
		return k->def;
	return x;
}

const char *kj_knob_str(const char *name)
{
	const kj_knob *k = kj_knob_find(name);
	const char *v;
	assert(k && k->kind == KJ_KNOB_STR);
	if (!k || k->kind != KJ_KNOB_STR)
		return "";
	v = getenv(name);
	return v && *v ? v : k->sdef;
}

int kj_knob_value(const kj_knob *k, char *out, size_t len, int *is_default, struct kj_err *err)
{
	const char *v = getenv(k->name);
	*is_default = 1;
	if (len)
		out[0] = 0;
	if (k->kind == KJ_KNOB_INT) {
		int64_t x = k->def;
		if (v && *v && parse_int(k, v, &x))
			return kj_err_set(err, KJ_E_USAGE,
					  "%s='%s': expected an integer in [%lld, %lld] (default %lld)", k->name,
					  v, (long long)k->lo, (long long)k->hi, (long long)k->def);
		*is_default = x == k->def;
		snprintf(out, len, "%lld", (long long)x);
		return 0;
	}
	if (!v || !*v) {
		snprintf(out, len, "%s", k->sdef);
		return 0;
	}
	if (!in_list(k->values, v))
		return kj_err_set(err, KJ_E_USAGE, "%s='%s': expected one of %s (default %s)", k->name, v,
				  k->values, k->sdef);
	*is_default = !strcmp(v, k->sdef);
	snprintf(out, len, "%s", v);
	return 0;
}

int kj_knobs_check(struct kj_err *err)
{
	char v[64];
	int def, rc;
	for (int i = 0; i < NKNOBS; i++)
		if ((rc = kj_knob_value(&knobs[i], v, sizeof(v), &def, err)))
			return rc;
	return 0;
}

int kj_knobs_key(char *buf, size_t len, struct kj_err *err)
{
	size_t at = 0;
	char v[64];
	int def, rc;
	assert(len >= KJ_KNOBS_KEY_MAX);
	buf[0] = 0;
	for (int i = 0; i < NKNOBS; i++) {
		const kj_knob *k = &knobs[i];
		assert(i == 0 || strcmp(knobs[i - 1].name, k->name) < 0);
		if ((rc = kj_knob_value(k, v, sizeof(v), &def, err))) {
			buf[0] = 0;
			return rc;
		}
		if (def || k->effect == KJ_KNOB_LOG)
			continue;
		int n = snprintf(buf + at, len - at, "%s%s=%s", at ? ";" : "", k->name, v);
		if (n < 0 || (size_t)n >= len - at) {
			buf[0] = 0;
			return kj_err_set(err, KJ_E_INTERNAL, "the knobs' key passes %zu bytes", len);
		}
		at += (size_t)n;
	}
	return 0;
}
