/* kjudge eval and kjudge demo: judging candidates. */
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "kjudge/case.h"
#include "kjudge/gpu.h"
#include "kjudge/judge.h"

static void on_progress(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "\r\033[K  %s", line);
	fflush(stderr);
}

static void setup_paths(struct kj_eval_opts *o, char *worker, size_t wl, char *inc, size_t il)
{
	const char *w = getenv("KJ_WORKER");
	if (w && *w)
		snprintf(worker, wl, "%s", w);
	else
		snprintf(worker, wl, "%s/kjudge-worker", kj_cli_bindir());
	snprintf(inc, il, "%s/include/candidate", kj_cli_root());
	o->worker_path = worker;
	o->include_dir = inc;
}

/* The checks that passed only on the error budget (docs/verdict.md). */
static void print_budget(const kj_verdict *v)
{
	int n = 0;
	double worst = 0, lim = 0;
	for (int i = 0; i < v->nchecks; i++) {
		const kj_check *c = &v->checks[i];
		if (!c->budget_used)
			continue;
		n++;
		if (c->tol_ratio / c->budget > (lim > 0 ? worst / lim : 0)) {
			worst = c->tol_ratio;
			lim = c->budget;
		}
	}
	if (n)
		printf("budget    %d checks passed on the error budget (max(1, %g x the eager baseline's error)); "
		       "the closest %.3gx the declared tolerance, budget %.3g\n",
		       n, KJ_BUDGET_MULT, worst, lim);
}

static void print_verdict(const kj_verdict *v, const kj_task *t)
{
	char fl[256];
	kj_flags_str(v->flags, fl, sizeof(fl));
	printf("task      %s (%s)\n", v->task, kj_backend_name(v->backend));
	printf("status    %s%s%s\n", kj_status_name(v->status), fl[0] ? "  flags: " : "", fl);
	if (v->status != KJ_ST_PASS)
		printf("stage     %s\nreason    %s\n", kj_stage_name(v->stage), v->reason);
	if (v->nchecks) {
		int pass = 0;
		double worst = 0, bworst = 0;
		for (int i = 0; i < v->nchecks; i++) {
			pass += v->checks[i].pass;
			if (v->checks[i].max_abs > worst)
				worst = v->checks[i].max_abs;
			if (v->checks[i].base_max_abs > bworst)
				bworst = v->checks[i].base_max_abs;
		}
		printf("checks    %d/%d passed (%d seeds); max abs err %.3g (baseline %.3g)\n", pass,
		       v->nchecks, v->seeds, worst, bworst);
		print_budget(v);
	}
	for (int i = 0; i < v->nperf; i++) {
		const kj_perf *p = &v->perf[i];
		char bs[256];
		if (!p->n || !p->baseline_n)
			continue;
		kj_binding_str(t, &t->binds[p->bind], bs, sizeof(bs));
		printf("perf      %-28s %9.4f ms (iqr %.4f, n=%d)  baseline %9.4f ms  speedup %.3fx\n", bs,
		       p->ms, p->iqr_ms, p->n, p->baseline_ms, p->speedup);
		if (p->sol_ms > 0)
			printf("          roofline %.4f ms: SOL %.1f%%, IOU %.1f%%, MFU %.1f%%\n", p->sol_ms,
			       100 * p->sol_frac, 100 * p->iou, p->mfu >= 0 ? 100 * p->mfu : 0.0);
	}
	if (v->speedup > 0)
		printf("speedup   %.3fx (weighted geometric mean)\n", v->speedup);
	printf("time      %.3f s (compile %s%.3f s)\n", v->total_s, v->compile_cached ? "cached, " : "",
	       v->stage_s[KJ_STAGE_COMPILE]);
}

int cmd_eval(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "backend", 1, 0, 'b' }, { "json", 0, 0, 'j' }, { "quiet", 0, 0, 'q' },
		{ "help", 0, 0, 'h' },    KJ_CLI_JUDGE_LONGOPTS,
		{ "no-cache", 0, 0, KJ_CLI_OPT_NO_CACHE }, { "seed-secret", 1, 0, KJ_CLI_OPT_SEED_SECRET },
		{ 0, 0, 0, 0 }
	};
	struct kj_eval_opts o;
	int c, json = 0, quiet = 0, rc;
	char worker[PATH_MAX + 32], inc[PATH_MAX + 32], *src;
	size_t len;
	kj_task *t;
	kj_verdict v;
	struct kj_err err;
	kj_eval_opts_init(&o);
	optind = 1;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'b':
			if (kj_backend_from_name(optarg, &o.backend))
				return kj_cli_usage_error("eval", "unknown backend '%s' (cpu, cuda, triton or "
							  "kernelbench)", optarg);
			break;
		case 'j':
			json = 1;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			puts("usage: kjudge eval TASK FILE [options]\n\n"
			     "Judges one candidate: static checks, compile (cached), call, correctness on every\n"
			     "check and bench shape with several seeds, then timing against the eager baseline.\n\n"
			     "  --backend cpu|cuda|triton|kernelbench\n"
			     "                       track (default cpu; a .cu file selects cuda, a .py file\n"
			     "                       triton; kernelbench: a KernelBench ModelNew file)\n"
			     "                       (TASK a KernelBench problem file PROBLEM.py: kernelbench)\n"
			     "  --kernelbench-dir DIR a KernelBench checkout: TASK may be level1/19_ReLU\n"
			     "                       (or set KJ_KERNELBENCH_DIR)\n"
			     "  --seeds N            " KJ_CLI_HELP_SEEDS "\n"
			     "  --json               print one kjudge.verdict/1 JSON object\n"
			     "  --no-perf            " KJ_CLI_HELP_NO_PERF "\n"
			     "  --timeout S          " KJ_CLI_HELP_TIMEOUT "\n"
			     "  --perf-budget S      " KJ_CLI_HELP_PERF_BUDGET "\n"
			     "  --max-noise F        " KJ_CLI_HELP_MAX_NOISE "\n"
			     "  --policy flag|strict library fallbacks flagged (default) or rejected\n"
			     "  --cache DIR          " KJ_CLI_HELP_CACHE "\n"
			     "  --no-cache           always recompile\n"
			     "  --quiet              no progress on stderr\n"
			     "  --seed-secret-file F " KJ_CLI_HELP_SECRET_FILE "\n"
			     "  --seed-secret S      the same with S itself: visible to other users' ps until the\n"
			     "                       judge starts (it then overwrites it); the verdict never prints it\n"
			     "  --unsafe-no-sandbox  " KJ_CLI_HELP_UNSAFE "\n\n"
			     "Candidates are built and run in a sandbox (bubblewrap: new user, PID, mount, IPC,\n"
			     "network and UTS namespaces, an unprivileged uid, a seccomp allowlist); without\n"
			     "bubblewrap kjudge refuses to judge (exit 3) unless told --unsafe-no-sandbox.\n\n"
			     "exit status: 0 pass, 1 the candidate failed, 2 usage error, 3 the judge failed");
			return KJ_EXIT_OK;
		default:
			if ((rc = kj_cli_eval_option("eval", c, optarg, &o)) != 1)
				return rc ? rc : kj_cli_usage_error("eval", "unknown option");
			break;
		}
	}
	if (optind != argc - 2)
		return kj_cli_usage_error("eval", "expected TASK and FILE");
	kj_cli_scrub_secret(argc, argv);
	kj_cli_seed_secret_env(&o);
	{
		size_t n = strlen(argv[optind + 1]);
		int explicit_backend = 0;
		for (int i = 1; i < argc; i++)
			explicit_backend |= !strncmp(argv[i], "--backend", 9);
		if (!explicit_backend && n > 3 && !strcmp(argv[optind + 1] + n - 3, ".cu"))
			o.backend = KJ_BACKEND_CUDA;
		if (!explicit_backend && n > 3 && !strcmp(argv[optind + 1] + n - 3, ".py"))
			o.backend = KJ_BACKEND_TRITON;
	}
	kj_err_init(&err);
	if (kj_cli_load_task(argv[optind], &t, &err)) {
		fprintf(stderr, "kjudge eval: %s\n", err.msg);
		return kj_cli_task_exit(err.code);
	}
	/* a KernelBench problem file: its candidates are ModelNew files */
	if (t->kb) {
		int explicit_backend = 0;
		for (int i = 1; i < argc; i++)
			explicit_backend |= !strncmp(argv[i], "--backend", 9);
		if (explicit_backend && o.backend != KJ_BACKEND_KERNELBENCH) {
			kj_task_free(t);
			return kj_cli_usage_error("eval", "%s is a KernelBench problem: its candidates are judged with "
						  "--backend kernelbench", argv[optind]);
		}
		o.backend = KJ_BACKEND_KERNELBENCH;
	}
	if (kj_cli_read_file(argv[optind + 1], &src, &len, &err)) {
		fprintf(stderr, "kjudge eval: %s\n", err.msg);
		kj_task_free(t);
		return KJ_EXIT_USAGE;
	}
	setup_paths(&o, worker, sizeof(worker), inc, sizeof(inc));
	if (!quiet && !json && isatty(2))
		o.progress = on_progress;
	rc = kj_eval(t, src, len, &o, &v, &err);
	if (o.progress)
		fprintf(stderr, "\r\033[K");
	if (rc) {
		fprintf(stderr, "kjudge eval: judge failed: %s\n", err.msg);
		kj_verdict_release(&v);
		free(src);
		kj_task_free(t);
		return KJ_EXIT_JUDGE;
	}
	if (json) {
		char *s = kj_verdict_json_text(&v, t);
		puts(s ? s : "{}");
		free(s);
	} else {
		print_verdict(&v, t);
	}
	rc = v.status == KJ_ST_PASS ? KJ_EXIT_OK : KJ_EXIT_FAIL;
	kj_verdict_release(&v);
	free(src);
	kj_task_free(t);
	return rc;
}

int cmd_demo(int argc, char **argv)
{
	static const struct option lo[] = { { "backend", 1, 0, 'b' }, { "help", 0, 0, 'h' },
					    { "quick", 0, 0, 'k' }, { "unsafe-no-sandbox", 0, 0, 'U' },
					    { 0, 0, 0, 0 } };
	struct kj_eval_opts o;
	kj_backend be = kj_gpu_available() ? KJ_BACKEND_CUDA : KJ_BACKEND_CPU;
	char worker[PATH_MAX + 32], inc[PATH_MAX + 32];
	const char *dirs[2] = { "solutions", "broken" };
	int c, total = 0, agree = 0, judge_fail = 0, quick = 0, unconfined = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		if (c == 'b') {
			if (kj_backend_from_name(optarg, &be))
				return kj_cli_usage_error("demo", "unknown backend '%s' (cpu, cuda, triton or "
							  "kernelbench)", optarg);
		} else if (c == 'k') {
			quick = 1;
		} else if (c == 'U') {
			unconfined = 1;
		} else if (c == 'h') {
			puts("usage: kjudge demo [--backend cpu|cuda] [--quick] [--unsafe-no-sandbox]\n\n"
			     "Judges every shipped example candidate (examples/solutions/BACKEND and\n"
			     "examples/broken/BACKEND) and prints a verdict table: the honest solutions must\n"
			     "(the backend is cuda when a CUDA device is present, else cpu)\n"
			     "pass, each broken one must get the verdict its kjudge-case header declares.\n"
			     "--quick skips timing.  Exit 0 when every verdict is as expected.\n"
			     "Candidates run in the sandbox (bubblewrap); without it the demo refuses to\n"
			     "judge unless told --unsafe-no-sandbox.");
			return KJ_EXIT_OK;
		} else
			return kj_cli_usage_error("demo", "unknown option");
	}
	kj_eval_opts_init(&o);
	o.backend = be;
	o.call_timeout_s = 3;
	o.perf_budget_s = 0.3;
	o.no_perf = quick;
	o.unconfined = unconfined;
	setup_paths(&o, worker, sizeof(worker), inc, sizeof(inc));
	if (be == KJ_BACKEND_CUDA && kj_gpu_available() && kj_gpu_open(0, &o.gpu, NULL))
		o.gpu = NULL;
	printf("kjudge demo: %s track (%s)%s\n\n", kj_backend_name(be), kj_cli_root(),
	       be == KJ_BACKEND_CPU && !kj_gpu_available() ? "; no CUDA device here, so the CPU track" : "");
	printf("%-44s %-14s %-14s %9s %9s %s\n", "CANDIDATE", "EXPECTED", "VERDICT", "SPEEDUP", "TIME s",
	       "");
	for (int d = 0; d < 2; d++) {
		char dir[PATH_MAX + 64];
		char **files;
		int n;
		snprintf(dir, sizeof(dir), "%s/examples/%s/%s", kj_cli_root(), dirs[d], kj_backend_name(be));
		kj_cli_list_dir(dir, kj_backend_is_python(be) ? ".py" : be == KJ_BACKEND_CPU ? ".c" : ".cu", &files,
				&n);
		for (int i = 0; i < n; i++) {
			struct kj_err err;
			struct kj_case kc;
			char *src, name[128];
			size_t len;
			kj_task *t = NULL;
			kj_verdict v;
			int ok;
			const char *base = strrchr(files[i], '/') ? strrchr(files[i], '/') + 1 : files[i];
			snprintf(name, sizeof(name), "%s/%s", dirs[d], base);
			kj_err_init(&err);
			total++;
			if (kj_cli_read_file(files[i], &src, &len, &err) || kj_case_parse(src, files[i], &kc, &err) ||
			    kj_cli_load_task(kc.task, &t, &err)) {
				printf("%-44s %-14s %-14s %9s %9s %s\n", name, "?", "ERROR", "-", "-", err.msg);
				judge_fail++;
				continue;
			}
			if (kj_eval(t, src, len, &o, &v, &err)) {
				printf("%-44s %-14s %-14s %9s %9s %s\n", name, kc.expect, "JUDGE-ERROR", "-", "-", err.msg);
				judge_fail++;
			} else {
				char sp[32], fl[256];
				kj_flags_str(v.flags, fl, sizeof(fl));
				/* flags that only the timing stage can raise are not
				 * expected of a --quick run */
				int perf_flag = !strcmp(kc.flag, "timing_gap") || !strcmp(kc.flag, "unstable_timing") ||
						!strcmp(kc.flag, "faster_than_roofline");
				ok = !strcmp(kj_status_name(v.status), kc.expect) &&
				     (!kc.flag[0] || strstr(fl, kc.flag) || (quick && perf_flag));
				agree += ok;
				if (v.speedup > 0)
					snprintf(sp, sizeof(sp), "%.2fx", v.speedup);
				else
					snprintf(sp, sizeof(sp), "-");
				printf("%-44s %-14s %-14s %9s %9.2f %s\n", name, kc.expect, kj_status_name(v.status), sp,
				       v.total_s, ok ? "ok" : "UNEXPECTED");
				if (!ok)
					printf("    reason: %s\n", v.reason);
			}
			fflush(stdout);
			kj_verdict_release(&v);
			kj_task_free(t);
			free(src);
		}
		kj_cli_free_list(files, n);
	}
	if (o.gpu)
		kj_gpu_close(o.gpu);
	printf("\n%d candidates: %d verdicts as expected, %d unexpected, %d judge errors\n", total, agree,
	       total - agree - judge_fail, judge_fail);
	if (total == 0) {
		fprintf(stderr, "kjudge demo: no example candidates found under %s/examples\n", kj_cli_root());
		return KJ_EXIT_JUDGE;
	}
	return agree == total ? KJ_EXIT_OK : judge_fail ? KJ_EXIT_JUDGE : KJ_EXIT_FAIL;
}
