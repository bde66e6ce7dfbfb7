/*
 * kjudge refine: k samples x N rounds of a model on tasks, judged and stored
 * in a run (docs/refine.md).  The model is an OpenAI-compatible
 * chat-completions endpoint or a generator command; the loop itself is
 * kj_refine_run (src/llm/refine.c).
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "kjudge/fsutil.h"
#include "kjudge/gpu.h"
#include "kjudge/judge.h"
#include "kjudge/llm.h"
#include "kjudge/record.h"
#include "kjudge/store.h"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

struct asker {
	int use_gen;
	struct kj_llm_client_opts http;
	struct kj_gen_opts gen;
	const char *model;
	const char *save_dir;
	int quiet;
};

static void say(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "kjudge refine: %s\n", line);
	fflush(stderr);
}

static void save_text(const struct asker *a, const struct kj_refine_ask *q, const char *what,
		      const char *text)
{
	char name[PATH_MAX], path[2 * PATH_MAX];
	FILE *f;
	size_t k = 0;
	for (const char *p = q->task; *p && k + 2 < sizeof(name); p++)
		name[k++] = *p == '/' ? '_' : *p;
	name[k] = 0;
	snprintf(path, sizeof(path), "%s/%s.s%d.r%d.%s.md", a->save_dir, name, q->sample, q->round, what);
	if ((f = fopen(path, "w"))) {
		fputs(text, f);
		fclose(f);
	}
}

static int ask(void *ctx, const struct kj_refine_ask *q, char **answer, struct kj_err *err)
{
	struct asker *a = ctx;
	double t0 = kj_cli_now_s();
	int rc;
	if (a->save_dir)
		save_text(a, q, "prompt", q->prompt);
	if (a->use_gen) {
		char e_task[300], e_sample[48], e_round[48], e_method[64], e_model[300];
		const char *env[] = { e_task, e_sample, e_round, e_method, e_model, NULL };
		struct kj_gen_opts g = a->gen;
		snprintf(e_task, sizeof(e_task), "KJUDGE_TASK=%s", q->task);
		snprintf(e_sample, sizeof(e_sample), "KJUDGE_SAMPLE=%d", q->sample);
		snprintf(e_round, sizeof(e_round), "KJUDGE_ROUND=%d", q->round);
		snprintf(e_method, sizeof(e_method), "KJUDGE_METHOD=%s", q->method);
		snprintf(e_model, sizeof(e_model), "KJUDGE_MODEL=%s", a->model);
		g.env = env;
		rc = kj_llm_generate(&g, q->prompt, answer, err);
	} else {
		struct kj_llm_usage u;
		rc = kj_llm_chat(&a->http, q->system, q->prompt, answer, &u, err);
		/* a wrong key, model or URL fails every question: stop the run */
		if (rc == KJ_E_USAGE && u.http_status != 401 && u.http_status != 403 && u.http_status != 404)
			rc = KJ_E_IO;
		if (!rc && !a->quiet)
			fprintf(stderr, "kjudge refine: %s sample %d round %d: answered in %.1f s (%d %s, %ld+%ld "
					"tokens%s%s)\n", q->task, q->sample, q->round, kj_cli_now_s() - t0, u.attempts,
				u.attempts == 1 ? "try" : "tries", u.prompt_tokens, u.completion_tokens,
				u.finish_reason[0] ? ", " : "", u.finish_reason);
	}
	if (!rc && a->save_dir)
		save_text(a, q, "answer", *answer);
	return rc;
}

static void usage(void)
{
	puts("usage: kjudge refine TASK... --model M [options]\n\n"
	     "Asks a model for k samples of each TASK and refines each over N rounds: round 0\n"
	     "is the one-shot (or few-shot) prompt, every later round shows the previous attempt\n"
	     "and the judge's feedback on it (compile log, first mismatches, timing against the\n"
	     "baseline and the roofline).  Every attempt is judged and stored in a run, so\n"
	     "`kjudge report RUN` gives fast_p@k and fast_p@N.  Resumable: the same command\n"
	     "goes on at the first attempt the run does not hold.  See docs/refine.md.\n\n"
	     "the model:\n"
	     "  --model M            model name sent to the endpoint and stored with each attempt\n"
	     "  --base-url URL       OpenAI-compatible API base (default $OPENAI_BASE_URL or\n"
	     "                       https://api.openai.com/v1); POST URL/chat/completions\n"
	     "  --api-key-env NAME   environment variable holding the key (default OPENAI_API_KEY)\n"
	     "  --temperature T      sampling temperature (default: the endpoint's)\n"
	     "  --max-tokens N       answer length limit (default: the endpoint's)\n"
	     "  --connect-timeout S  (default 10)   --request-timeout S (default 600)\n"
	     "  --retries N          retries on 429, 5xx and connection errors (default 6)\n"
	     "  --generator CMD      instead of an endpoint: run /bin/sh -c CMD with the prompt on\n"
	     "                       stdin, the answer on stdout; KJUDGE_TASK, KJUDGE_SAMPLE,\n"
	     "                       KJUDGE_ROUND, KJUDGE_METHOD, KJUDGE_MODEL in its environment\n"
	     "  --gen-timeout S      the generator's time limit (default 600)\n\n"
	     "the search:\n"
	     "  --samples K          independent samples per task (default 1)\n"
	     "  --rounds N           rounds per sample, 0 .. N-1 (default 4)\n"
	     "  --stall R            restart from the best kernel with a fresh context after R\n"
	     "                       rounds without progress (default 2; 0: never)\n"
	     "  --shots N            worked examples from other tasks' solutions (default 0)\n"
	     "  --save DIR           write every prompt and answer under DIR\n\n"
	     "the run and the judge:\n"
	     "  --db FILE            the store (default RUN.sqlite)\n"
	     "  --name RUN           the run (default refine-MODEL)\n"
	     "  --backend cpu|cuda   (default cuda when a GPU is usable, else cpu)\n"
	     KJ_CLI_HELP_JUDGE_BRIEF
	     "  --cache DIR          as for kjudge run\n"
	     "  --json               print a JSON summary on stdout\n"
	     "  --quiet              no progress lines on stderr\n\n"
	     "exit status: 0 every chain has all its rounds, 1 interrupted or some chains stopped\n"
	     "on a model error (run again to go on), 2 usage error (a rejected key or model\n"
	     "included), 3 the judge or the store failed");
}

int cmd_refine(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "model", 1, 0, 'M' },          { "base-url", 1, 0, 'U' },      { "api-key-env", 1, 0, 'K' },
		{ "samples", 1, 0, 'k' },        { "rounds", 1, 0, 'n' },        { "db", 1, 0, 'd' },
		{ "name", 1, 0, 'N' },           { "backend", 1, 0, 'b' },       { "stall", 1, 0, 'S' },
		{ "generator", 1, 0, 'g' },      { "gen-timeout", 1, 0, 'G' },   { "json", 0, 0, 'j' },
		{ "shots", 1, 0, 'x' },          { "temperature", 1, 0, 'T' },   { "max-tokens", 1, 0, 'm' },
		{ "connect-timeout", 1, 0, 'C' }, { "request-timeout", 1, 0, 'R' }, { "retries", 1, 0, 'r' },
		KJ_CLI_JUDGE_LONGOPTS,
		{ "save", 1, 0, 'D' },           { "quiet", 0, 0, 'q' },         { "help", 0, 0, 'h' },
		{ 0, 0, 0, 0 }
	};
	struct asker a;
	struct kj_eval_opts eo;
	struct kj_refine_opts ro;
	struct kj_refine_stats st;
	struct kj_err err;
	struct sigaction sa, old_int, old_term;
	kj_task **tasks = NULL;
	kj_db *db = NULL;
	kj_calib cal;
	char worker[PATH_MAX + 32], inc[PATH_MAX + 32], cache[PATH_MAX], name[256], dbpath[PATH_MAX + 16];
	char cache_key[256], *end, *settings = NULL;
	const char *key_env = "OPENAI_API_KEY", *db_arg = NULL, *name_arg = NULL;
	int c, json = 0, have_backend = 0, ntasks, rc, exit_code = KJ_EXIT_OK, have_cal = 0;
	int64_t run_id, device_id = 0;
	double t0 = kj_cli_now_s();

	memset(&a, 0, sizeof(a));
	kj_llm_client_opts_init(&a.http);
	if (getenv("OPENAI_BASE_URL") && *getenv("OPENAI_BASE_URL"))
		a.http.base_url = getenv("OPENAI_BASE_URL");
	a.gen.timeout_s = 600;
	kj_eval_opts_init(&eo);
	kj_refine_opts_init(&ro);
	ro.rounds = 4;
	ro.stall = 2;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'M':
			a.model = optarg;
			break;
		case 'U':
			a.http.base_url = optarg;
			break;
		case 'K':
			key_env = optarg;
			break;
		case 'k':
			ro.samples = (int)strtol(optarg, &end, 10);
			if (*end || ro.samples < 1 || ro.samples > 10000)
				return kj_cli_usage_error("refine", "--samples wants 1..10000, got '%s'", optarg);
			break;
		case 'n':
			ro.rounds = (int)strtol(optarg, &end, 10);
			if (*end || ro.rounds < 1 || ro.rounds > 10000)
				return kj_cli_usage_error("refine", "--rounds wants 1..10000, got '%s'", optarg);
			break;
		case 'd':
			db_arg = optarg;
			break;
		case 'N':
			name_arg = optarg;
			break;
		case 'b':
			if (kj_backend_from_name(optarg, &eo.backend))
				return kj_cli_usage_error("refine", "unknown backend '%s' (cpu or cuda)", optarg);
			have_backend = 1;
			break;
		case 'S':
			ro.stall = (int)strtol(optarg, &end, 10);
			if (*end || ro.stall < 0 || ro.stall > 10000)
				return kj_cli_usage_error("refine", "--stall wants 0..10000, got '%s'", optarg);
			break;
		case 'g':
			a.use_gen = 1;
			a.gen.cmd = optarg;
			break;
		case 'G':
			a.gen.timeout_s = strtod(optarg, &end);
			if (*end || !(a.gen.timeout_s > 0))
				return kj_cli_usage_error("refine", "--gen-timeout wants seconds > 0, got '%s'", optarg);
			break;
		case 'j':
			json = 1;
			break;
		case 'x':
			ro.prompt.shots = (int)strtol(optarg, &end, 10);
			if (*end || ro.prompt.shots < 0 || ro.prompt.shots > 20)
				return kj_cli_usage_error("refine", "--shots wants 0..20, got '%s'", optarg);
			break;
		case 'T':
			a.http.temperature = strtod(optarg, &end);
			if (*end || !(a.http.temperature >= 0 && a.http.temperature <= 2))
				return kj_cli_usage_error("refine", "--temperature wants 0..2, got '%s'", optarg);
			break;
		case 'm':
			a.http.max_tokens = (int)strtol(optarg, &end, 10);
			if (*end || a.http.max_tokens < 1)
				return kj_cli_usage_error("refine", "--max-tokens wants a number > 0, got '%s'", optarg);
			break;
		case 'C':
			a.http.connect_timeout_s = strtod(optarg, &end);
			if (*end || !(a.http.connect_timeout_s > 0))
				return kj_cli_usage_error("refine", "--connect-timeout wants seconds > 0, got '%s'", optarg);
			break;
		case 'R':
			a.http.timeout_s = strtod(optarg, &end);
			if (*end || !(a.http.timeout_s > 0))
				return kj_cli_usage_error("refine", "--request-timeout wants seconds > 0, got '%s'", optarg);
			break;
		case 'r':
			a.http.max_retries = (int)strtol(optarg, &end, 10);
			if (*end || a.http.max_retries < 0 || a.http.max_retries > 100)
				return kj_cli_usage_error("refine", "--retries wants 0..100, got '%s'", optarg);
			break;
		case 'D':
			a.save_dir = optarg;
			break;
		case 'q':
			a.quiet = 1;
			break;
		case 'h':
			usage();
			return KJ_EXIT_OK;
		default:
			if ((rc = kj_cli_eval_option("refine", c, optarg, &eo)) != 1)
				return rc ? rc : kj_cli_usage_error("refine", "unknown option");
			break;
		}
	}
	ntasks = argc - optind;
	if (ntasks < 1)
		return kj_cli_usage_error("refine", "expected one or more TASKs");
	if (!a.model && !a.use_gen)
		return kj_cli_usage_error("refine", "--model M is required (or --generator CMD)");
	if (!a.model)
		a.model = "generator";
	if (!*a.model)
		return kj_cli_usage_error("refine", "--model must not be empty");
	if (!have_backend)
		eo.backend = kj_gpu_available() ? KJ_BACKEND_CUDA : KJ_BACKEND_CPU;
	if (eo.backend != KJ_BACKEND_CPU && eo.backend != KJ_BACKEND_CUDA)
		return kj_cli_usage_error("refine", "the %s backend is not supported by refine yet (cpu or cuda)",
					  kj_backend_name(eo.backend));
	if (eo.backend == KJ_BACKEND_CUDA && !kj_gpu_available()) {
		fprintf(stderr, "kjudge refine: the cuda backend needs a CUDA device and a kjudge built with "
				"nvcc; use --backend cpu here\n");
		return KJ_EXIT_USAGE;
	}
	if (!a.use_gen) {
		const char *k = getenv(key_env);
		a.http.model = a.model;
		a.http.api_key = k;
		if (strncmp(a.http.base_url, "http://", 7) && strncmp(a.http.base_url, "https://", 8))
			return kj_cli_usage_error("refine", "--base-url must start with http:// or https://, got '%s'",
						  a.http.base_url);
		if ((!k || !*k) && !a.quiet)
			fprintf(stderr, "kjudge refine: $%s is not set: sending no Authorization header\n", key_env);
		if (!a.quiet) {
			a.http.log_fn = say;
			a.http.log_ctx = NULL;
		}
	}
	if (a.save_dir && kj_mkdir_p(a.save_dir)) {
		fprintf(stderr, "kjudge refine: cannot create --save folder '%s'\n", a.save_dir);
		return KJ_EXIT_USAGE;
	}
	if (name_arg) {
		snprintf(name, sizeof(name), "%s", name_arg);
	} else {
		size_t k = (size_t)snprintf(name, sizeof(name), "refine-");
		for (const char *p = a.model; *p && k + 1 < sizeof(name); p++)
			name[k++] = (*p == '/' || *p == ' ' || *p == ':') ? '-' : *p;
		name[k] = 0;
	}
	kj_cli_db_path(db_arg, name, dbpath, sizeof(dbpath));

	kj_err_init(&err);
	if (kj_cache_dir(eo.cache_dir, cache, sizeof(cache), &err)) {
		fprintf(stderr, "kjudge refine: %s\n", err.msg);
		return KJ_EXIT_USAGE;
	}
	tasks = calloc((size_t)ntasks, sizeof(*tasks));
	if (!tasks)
		return KJ_EXIT_JUDGE;
	for (int i = 0; i < ntasks; i++) {
		if (kj_cli_load_task(argv[optind + i], &tasks[i], &err)) {
			fprintf(stderr, "kjudge refine: %s\n", err.msg);
			exit_code = kj_cli_task_exit(err.code);
			goto out;
		}
		for (int j = 0; j < i; j++)
			if (!strcmp(tasks[j]->id, tasks[i]->id)) {
				fprintf(stderr, "kjudge refine: task %s is given twice\n", tasks[i]->id);
				exit_code = KJ_EXIT_USAGE;
				goto out;
			}
	}
	kj_cli_judge_paths(worker, sizeof(worker), inc, sizeof(inc));
	eo.worker_path = worker;
	eo.include_dir = inc;
	eo.cache_dir = cache;
	kj_cli_seed_secret_env(&eo);
	{
		struct kj_verdict_settings vs;
		kj_eval_opts_settings(&eo, &vs);
		kj_store_cache_key(&vs, cache_key, sizeof(cache_key));
	}
	{
		json_t *s = json_pack("{s:i,s:b,s:f,s:f,s:s,s:{s:s,s:s,s:i,s:i,s:i,s:i}}", "seeds", eo.seeds,
				      "no_perf", eo.no_perf, "timeout", eo.call_timeout_s, "perf_budget",
				      eo.perf_budget_s, "policy", eo.policy == KJ_POLICY_STRICT ? "strict" : "flag",
				      "refine", "model", a.model, a.use_gen ? "generator" : "base_url",
				      a.use_gen ? a.gen.cmd : a.http.base_url, "samples", ro.samples, "rounds",
				      ro.rounds, "stall", ro.stall, "shots", ro.prompt.shots);
		settings = s ? json_dumps(s, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
		json_decref(s);
	}
	if ((rc = kj_store_open(dbpath, &db, &err)))
		goto judge_err;
	if ((rc = kj_store_run_get_or_create(db, name, kj_backend_name(eo.backend), "refine", settings, &run_id,
					     &err))) {
		fprintf(stderr, "kjudge refine: %s\n", err.msg);
		exit_code = rc == KJ_E_USAGE ? KJ_EXIT_USAGE : KJ_EXIT_JUDGE;
		goto out;
	}
	if (eo.backend == KJ_BACKEND_CPU) {
		if ((rc = kj_record_cpu_device(db, &device_id, NULL, 0, &err)))
			goto judge_err;
	} else {
		/* the judge would calibrate at its first evaluation; doing it here
		 * gives every prompt, round 0's included, the same hardware facts */
		if ((rc = kj_gpu_open(0, &eo.gpu, &err)) ||
		    (rc = kj_record_gpu_device(db, eo.gpu, cache, 1, say, NULL, &device_id, &cal, &have_cal,
						  &err)))
			goto judge_err;
		if (have_cal)
			ro.prompt.calib = &cal;
	}
	ro.model = a.model;
	ro.prompt.backend = eo.backend;
	ro.prompt.root = kj_cli_root();
	ro.eval = &eo;
	ro.db = db;
	ro.run_id = run_id;
	ro.device_id = device_id;
	ro.cache_key = cache_key;
	ro.ask = ask;
	ro.ask_ctx = &a;
	if (!a.quiet)
		ro.progress = say;
	ro.stop = &stop_requested;
	if (!a.quiet)
		fprintf(stderr, "kjudge refine: run '%s' in %s: %d task%s x %d sample%s x %d round%s, %s track, "
				"model %s via %s\n", name, dbpath, ntasks, ntasks == 1 ? "" : "s", ro.samples,
			ro.samples == 1 ? "" : "s", ro.rounds, ro.rounds == 1 ? "" : "s",
			kj_backend_name(eo.backend), a.model, a.use_gen ? a.gen.cmd : a.http.base_url);

	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESETHAND | SA_RESTART; /* a second ^C kills at once */
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	rc = kj_refine_run((const kj_task *const *)tasks, ntasks, &ro, &st, &err);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (rc) {
		kj_refine_stats_release(&st);
		if (rc == KJ_E_USAGE) {
			fprintf(stderr, "kjudge refine: the model endpoint refused: %s\n", err.msg);
			exit_code = KJ_EXIT_USAGE;
			goto out;
		}
		goto judge_err;
	}
	if (st.interrupted || st.ask_errors)
		exit_code = KJ_EXIT_FAIL;
	if (json) {
		json_t *o = json_object(), *best = json_array();
		char *s;
		for (int i = 0; i < st.nbest; i++) {
			const struct kj_refine_best *b = &st.best[i];
			json_t *e = json_pack("{s:s,s:i,s:I,s:i,s:s,s:i,s:i,s:b}", "task", b->task, "sample", b->sample,
					      "candidate_id", (json_int_t)b->candidate_id, "round", b->round, "status",
					      b->candidate_id ? kj_status_name(b->status) : "none", "rounds_done",
					      b->rounds_done, "restarts", b->restarts, "stopped", b->stopped);
			json_object_set_new(e, "speedup", b->speedup > 0 ? json_real(b->speedup) : json_null());
			json_array_append_new(best, e);
		}
		json_object_set_new(o, "run", json_string(name));
		json_object_set_new(o, "db", json_string(dbpath));
		json_object_set_new(o, "model", json_string(a.model));
		json_object_set_new(o, "backend", json_string(kj_backend_name(eo.backend)));
		json_object_set_new(o, "samples", json_integer(ro.samples));
		json_object_set_new(o, "rounds", json_integer(ro.rounds));
		json_object_set_new(o, "asked", json_integer(st.asked));
		json_object_set_new(o, "no_code_block", json_integer(st.no_code));
		json_object_set_new(o, "judged", json_integer(st.judged));
		json_object_set_new(o, "reused", json_integer(st.reused));
		json_object_set_new(o, "resumed", json_integer(st.resumed));
		json_object_set_new(o, "restarts", json_integer(st.restarts));
		json_object_set_new(o, "ask_errors", json_integer(st.ask_errors));
		json_object_set_new(o, "interrupted", json_boolean(st.interrupted));
		json_object_set_new(o, "best", best);
		json_object_set_new(o, "seconds", json_real(kj_cli_now_s() - t0));
		s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
		puts(s ? s : "{}");
		free(s);
		json_decref(o);
	} else {
		printf("run %s (%s): %d asked (%d without a code block), %d judged, %d reused, %d resumed, "
		       "%d restarts; %.1f s\n", name, dbpath, st.asked, st.no_code, st.judged, st.reused, st.resumed,
		       st.restarts, kj_cli_now_s() - t0);
		printf("%-36s %6s %6s %-14s %9s %7s\n", "TASK", "SAMPLE", "ROUND", "BEST", "SPEEDUP", "ROUNDS");
		for (int i = 0; i < st.nbest; i++) {
			const struct kj_refine_best *b = &st.best[i];
			char sp[32] = "-";
			if (b->speedup > 0)
				snprintf(sp, sizeof(sp), "%.3fx", b->speedup);
			printf("%-36s %6d %6d %-14s %9s %7d%s\n", b->task, b->sample, b->round,
			       b->candidate_id ? kj_status_name(b->status) : "none", sp, b->rounds_done,
			       b->stopped ? "  (stopped: model error)" : "");
		}
	}
	if (st.interrupted && !a.quiet)
		fprintf(stderr, "kjudge refine: interrupted; run the same command again to go on\n");
	kj_refine_stats_release(&st);
	goto out;
judge_err:
	fprintf(stderr, "kjudge refine: %s\n", err.msg);
	exit_code = KJ_EXIT_JUDGE;
out:
	if (eo.gpu)
		kj_gpu_close(eo.gpu);
	kj_store_close(db);
	for (int i = 0; i < ntasks; i++)
		if (tasks && tasks[i])
			kj_task_free(tasks[i]);
	free(tasks);
	free(settings);
	return exit_code;
}
