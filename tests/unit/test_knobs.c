/* The baseline's tuning knobs (include/kjudge/knobs.h): the table's own
 * rules, the key empty by default and naming each knob set to another
 * value, log-only knobs outside it, out-of-range and unknown values refused
 * with the knob's name and range, the kernels' reads unchanged (the default
 * for a value out of range), and the verdict settings key of a GPU backend
 * changing with the knobs, and the verdict's baseline_knobs. */
#include "kjudge/judge.h"
#include "kjudge/knobs.h"
#include "kjudge/store.h"

#include "tap.h"

#include <stdlib.h>
#include <string.h>

static void unset_all(void)
{
	for (int i = 0; i < kj_knob_count(); i++)
		unsetenv(kj_knob_at(i)->name);
}

/* kj_knobs_key's text, or "ERROR: msg" */
static const char *key(void)
{
	static char buf[KJ_KNOBS_KEY_MAX + KJ_ERR_MSG];
	struct kj_err err;
	kj_err_init(&err);
	if (kj_knobs_key(buf, KJ_KNOBS_KEY_MAX, &err))
		snprintf(buf, sizeof(buf), "ERROR: %s", err.msg);
	return buf;
}

static void test_table(void)
{
	int n = kj_knob_count(), sorted = 1, sane = 1;
	is_int(n, 19, "19 knobs in the table");
	for (int i = 0; i < n; i++) {
		const kj_knob *k = kj_knob_at(i);
		if (i && strcmp(kj_knob_at(i - 1)->name, k->name) >= 0)
			sorted = 0;
		if (strncmp(k->name, "KJ_", 3) || !k->about || !*k->about || kj_knob_find(k->name) != k)
			sane = 0;
		if (k->kind == KJ_KNOB_INT && !(k->lo <= k->def && k->def <= k->hi))
			sane = 0;
		if (k->kind == KJ_KNOB_STR) {
			/* the default is one of the values */
			size_t l = strlen(k->sdef);
			const char *p = strstr(k->values, k->sdef);
			if (!p || (p != k->values && p[-1] != ',') || (p[l] && p[l] != ','))
				sane = 0;
		}
	}
	ok(sorted, "the table is sorted by name, no name twice");
	ok(sane, "every knob: a KJ_ name, a line on what it does, its default within its range");
	ok(kj_knob_find("KJ_NOT_A_KNOB") == NULL, "an unknown name is not found");
	is_str(kj_knob_effect_name(kj_knob_find("KJ_CONV_LOG")->effect), "log", "KJ_CONV_LOG is a log");
	is_str(kj_knob_effect_name(kj_knob_find("KJ_SDPA_DEBUG")->effect), "log", "KJ_SDPA_DEBUG is a log");
	is_str(kj_knob_effect_name(kj_knob_find("KJ_FAST16")->effect), "results",
	       "KJ_FAST16 changes results");
}

static void test_key(void)
{
	struct kj_err err;
	unset_all();
	is_str(key(), "", "no knob set: the key is empty");
	kj_err_init(&err);
	is_int(kj_knobs_check(&err), 0, "no knob set: every knob is allowed");

	setenv("KJ_RED_BPS", "8", 1);
	is_str(key(), "KJ_RED_BPS=8", "KJ_RED_BPS=8: in the key");
	is_int(kj_knob_int("KJ_RED_BPS"), 8, "the kernels read 8");
	setenv("KJ_RED_BPS", "4", 1);
	is_str(key(), "", "KJ_RED_BPS=4, its default: the key is empty");
	setenv("KJ_RED_BPS", "04", 1);
	is_str(key(), "", "KJ_RED_BPS=04: the default too");
	setenv("KJ_RED_BPS", "", 1);
	is_str(key(), "", "KJ_RED_BPS empty: the default");
	unsetenv("KJ_RED_BPS");

	setenv("KJ_SDPA_PATH", "cudnn", 1);
	setenv("KJ_BN_VEC", "0", 1);
	setenv("KJ_NORM_GRID", "16", 1);
	is_str(key(), "KJ_BN_VEC=0;KJ_NORM_GRID=16;KJ_SDPA_PATH=cudnn", "three knobs: sorted by name");
	is_str(kj_knob_str("KJ_SDPA_PATH"), "cudnn", "the kernels read cudnn");
	unset_all();

	setenv("KJ_CONV_LOG", "1", 1);
	setenv("KJ_SDPA_DEBUG", "1", 1);
	is_str(key(), "", "log-only knobs set: the key is empty");
	is_int(kj_knob_int("KJ_CONV_LOG"), 1, "KJ_CONV_LOG still reads 1");
	unset_all();

	setenv("KJ_SDPA_F32", "auto", 1);
	is_str(key(), "", "KJ_SDPA_F32=auto, its default: the key is empty");
	unsetenv("KJ_SDPA_F32");
	is_str(kj_knob_str("KJ_SDPA_F32"), "auto", "an unset string knob reads its default");
	setenv("KJ_CONV_LAYOUT", "", 1);
	is_str(kj_knob_str("KJ_CONV_LAYOUT"), "auto", "an empty string knob reads its default");
	unset_all();
}

static void test_invalid(void)
{
	struct kj_err err;
	char v[64];
	int def;
	unset_all();
	setenv("KJ_RED_BPS", "0", 1);
	like(key(), "ERROR: KJ_RED_BPS='0': expected an integer in [1, 64] (default 4)",
	     "KJ_RED_BPS=0, out of range: an error naming the knob and its range");
	kj_err_init(&err);
	is_int(kj_knobs_check(&err), KJ_E_USAGE, "kj_knobs_check refuses it");
	like(err.msg, "KJ_RED_BPS", "with the knob's name");
	is_int(kj_knob_int("KJ_RED_BPS"), 4, "the kernels read the default, as they always did");
	setenv("KJ_RED_BPS", "8x", 1);
	like(key(), "ERROR: KJ_RED_BPS='8x'", "KJ_RED_BPS=8x, not an integer: an error");
	setenv("KJ_RED_BPS", "99999999999999999999", 1);
	like(key(), "ERROR: KJ_RED_BPS=", "an integer past 64 bits: an error");
	unsetenv("KJ_RED_BPS");

	setenv("KJ_CONV_I8", "fast", 1);
	like(key(), "ERROR: KJ_CONV_I8='fast': expected one of auto,direct,gemm (default auto)",
	     "KJ_CONV_I8=fast, unknown: an error naming the knob and its values");
	is_str(kj_knob_str("KJ_CONV_I8"), "fast", "kj_knob_str gives the text (the kernel decides)");
	unsetenv("KJ_CONV_I8");

	setenv("KJ_CONV_LOG", "2", 1);
	like(key(), "ERROR: KJ_CONV_LOG='2'", "a log-only knob out of range: an error too");
	kj_err_init(&err);
	is_int(kj_knob_value(kj_knob_find("KJ_CONV_LOG"), v, sizeof(v), &def, &err), KJ_E_USAGE,
	       "kj_knob_value refuses it");
	unset_all();
}

/* the store's key of the judge's settings o */
static void cache_key(const struct kj_eval_opts *o, char *buf, size_t len)
{
	struct kj_verdict_settings vs;
	kj_eval_opts_settings(o, &vs);
	kj_store_cache_key(&vs, buf, len);
}

static void test_store_key(void)
{
	struct kj_eval_opts o;
	char plain[256], cuda[256], cuda_knob[256], cpu_knob[256];
	const char *pcuda = cuda, *pcuda_knob = cuda_knob, *pcpu_knob = cpu_knob;
	unset_all();
	kj_eval_opts_init(&o);
	o.backend = KJ_BACKEND_CPU;
	cache_key(&o, plain, sizeof(plain));
	o.backend = KJ_BACKEND_CUDA;
	cache_key(&o, cuda, sizeof(cuda));
	is_str(pcuda, plain, "no knob set: a CUDA verdict's settings key is the CPU one");
	setenv("KJ_FAST16", "0", 1);
	cache_key(&o, cuda_knob, sizeof(cuda_knob));
	ok(strcmp(cuda_knob, cuda) != 0, "KJ_FAST16=0: a CUDA verdict's settings key changes");
	like(pcuda_knob, ";knobs=", "with a knobs item");
	o.backend = KJ_BACKEND_CPU;
	cache_key(&o, cpu_knob, sizeof(cpu_knob));
	is_str(pcpu_knob, plain, "the CPU track's key ignores the CUDA baseline's knobs");
	unset_all();
}

/* kj_verdict_json's baseline_knobs, on a verdict with no checks or shapes */
static void test_verdict(void)
{
	kj_verdict v;
	char *s;
	unset_all();
	kj_verdict_init(&v);
	v.backend = KJ_BACKEND_CUDA;
	s = kj_verdict_json_text(&v, NULL);
	ok(s && !strstr(s, "baseline_knobs"), "no knob set: no baseline_knobs in the verdict");
	free(s);
	setenv("KJ_DECODE_CTAS", "32", 1);
	setenv("KJ_SDPA_DEBUG", "1", 1);
	s = kj_verdict_json_text(&v, NULL);
	like(s, "\"baseline_knobs\": \"KJ_DECODE_CTAS=32\"", "KJ_DECODE_CTAS=32: the CUDA verdict says so");
	free(s);
	v.backend = KJ_BACKEND_CPU;
	s = kj_verdict_json_text(&v, NULL);
	ok(s && !strstr(s, "baseline_knobs"), "a CPU verdict has no baseline_knobs");
	free(s);
	kj_verdict_release(&v);
	unset_all();
}

int main(void)
{
	test_table();
	test_key();
	test_invalid();
	test_store_key();
	test_verdict();
	return done_testing();
}
