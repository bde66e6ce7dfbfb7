/*
 * compile_time: kj_compile of CUDA candidates, cold (no cache), by one
 * nvcc call and by the two chains, one after the other N times; per
 * candidate the median seconds of each way and whether the two objects
 * have the same kernels (tests/unit/sass_testlib.h, when built with
 * -DKJ_SASS_CHECK and libelf).  For
 * bench/compile_profile.sh, which builds it against build/libkjudge.a (or
 * the device bundle's libkjudge.so).
 *   compile_time [-n N] [--one] [--unconfined] [--include DIR] [--cache DIR] FILE...
 * --one: one nvcc call only (the per-step profile runs it under a wrapper
 * nvcc that adds -time).  Prints one tab-separated line per candidate:
 * name, one-call median s, two-chain median s, kernels (same N, DIFFERENT,
 * or failed: both / one / two, and whether the logs agree).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kjudge/fsutil.h"
#include "kjudge/compile.h"
#ifdef KJ_SASS_CHECK /* libelf's headers are there (not on every GPU machine) */
#include "sass_testlib.h"
#endif

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n ? (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2) : 0;
}

/* One cold build; its seconds, or -1 when the judge could not build. */
static double build(const char *src, size_t len, struct kj_compile_opts *o, int one,
		    struct kj_compile_result *r)
{
	struct kj_err e;
	kj_err_init(&e);
	o->one_nvcc = one;
	memset(r, 0, sizeof(*r));
	if (kj_compile(src, len, o, r, &e)) {
		fprintf(stderr, "compile_time: %s\n", e.msg);
		return -1;
	}
	return r->seconds;
}

int main(int argc, char **argv)
{
	struct kj_compile_opts o;
	int n = 3, only_one = 0, i, k;

	memset(&o, 0, sizeof(o));
	o.backend = KJ_BACKEND_CUDA;
	o.include_dir = "include/candidate";
	o.no_cache = 1;
	o.timeout_s = 300;
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-n") && i + 1 < argc)
			n = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--one"))
			only_one = 1;
		else if (!strcmp(argv[i], "--unconfined"))
			o.unconfined = 1;
		else if (!strcmp(argv[i], "--include") && i + 1 < argc)
			o.include_dir = argv[++i];
		else if (!strcmp(argv[i], "--cache") && i + 1 < argc)
			o.cache_dir = argv[++i];
		else {
			fprintf(stderr, "usage: compile_time [-n N] [--one] [--unconfined] [--include DIR] [--cache DIR] "
				"FILE...\n");
			return 2;
		}
	}
	if (n < 1 || n > 100)
		n = 3;
	for (; i < argc; i++) {
		struct kj_compile_result one, two;
		double t_one[100], t_two[100];
		const char *name = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
		char verdict[128] = "";
		size_t len;
		char *src = kj_read_file(argv[i], &len);
		int judged = 1, nk = 0;

		(void)nk;

		if (!src) {
			fprintf(stderr, "compile_time: cannot read '%s'\n", argv[i]);
			continue;
		}
		memset(&one, 0, sizeof(one));
		memset(&two, 0, sizeof(two));
		for (k = 0; k < n && judged; k++) {
			kj_compile_result_release(&one);
			kj_compile_result_release(&two);
			t_one[k] = build(src, len, &o, 1, &one);
			t_two[k] = only_one ? 0 : build(src, len, &o, 0, &two);
			judged = t_one[k] >= 0 && t_two[k] >= 0;
		}
		if (!judged)
			snprintf(verdict, sizeof(verdict), "judge error");
		else if (only_one)
			snprintf(verdict, sizeof(verdict), "%s", one.ok ? "built" : "failed");
		else if (one.ok && two.ok) {
#ifdef KJ_SASS_CHECK
			int cmp = kjt_sass_cmp(one.so_path, two.so_path, &nk);
			snprintf(verdict, sizeof(verdict), "%s %d", cmp < 0 ? "UNREADABLE" : cmp ? "DIFFERENT" : "same", nk);
#else
			snprintf(verdict, sizeof(verdict), "built (kernels not compared: no libelf headers)");
#endif
		}
		else
			snprintf(verdict, sizeof(verdict), "failed: %s, logs %s",
				 !one.ok && !two.ok ? "both" : !one.ok ? "one-call only" : "two-chain only",
				 one.log && two.log && !strcmp(one.log, two.log) ? "agree" : "DIFFER");
		printf("%s\t%.3f\t%.3f\t%s\n", name, judged ? median(t_one, n) : -1,
		       judged && !only_one ? median(t_two, n) : -1, verdict);
		fflush(stdout);
		kj_compile_result_release(&one);
		kj_compile_result_release(&two);
		free(src);
	}
	return 0;
}
