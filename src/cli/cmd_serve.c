/*
 * kjudge serve: the HTTP JSON judging service (include/kjudge/serve.h,
 * docs/api.md), and `kjudge serve token add|list|remove` for its bearer
 * tokens.
 */
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "kjudge/cluster.h"
#include "kjudge/serve.h"
#include "kjudge/store.h"

static volatile sig_atomic_t stop_level;

static void on_signal(int sig)
{
	(void)sig;
	if (stop_level < 2)
		stop_level++;
}

static void log_line(void *ctx, const char *line)
{
	char ts[32];
	time_t t = time(NULL);
	struct tm tm;
	(void)ctx;
	gmtime_r(&t, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(stderr, "%s kjudge serve: %s\n", ts, line);
	fflush(stderr);
}

static void usage(void)
{
	puts("usage: kjudge serve [options]\n"
	     "       kjudge serve token add NAME [--quota N] [--db FILE|URL] [--json]\n"
	     "       kjudge serve token list [--db FILE|URL] [--json]\n"
	     "       kjudge serve token remove NAME [--db FILE|URL]\n\n"
	     "An HTTP JSON service that judges candidates (docs/api.md): POST /v1/jobs, then\n"
	     "GET /v1/jobs/ID?wait=S for the verdict.  Jobs live in a persistent queue in the\n"
	     "store: a restart loses none, and a job a crash interrupted is judged again with\n"
	     "its attempt count showing it.  Verdicts are stored as the run --name, so\n"
	     "`kjudge report NAME --db FILE` scores what was served.  SIGINT/SIGTERM stop after\n"
	     "the jobs being judged; a second signal hands them back to the queue at once.\n\n"
	     "  --listen ADDR:PORT  address (default 127.0.0.1:8421; [::1]:PORT for IPv6; port 0:\n"
	     "                      any free one).  Off loopback it needs a bearer token in the store\n"
	     "  --db FILE|URL       the store (default serve.sqlite), or postgresql://...: several\n"
	     "                      servers on several nodes then share one queue (docs/cluster.md)\n"
	     "  --name RUN          the run verdicts go to (default serve)\n"
	     "  --backend cpu|cuda  track (default cpu)\n"
	     "  --gpus LIST         CUDA devices, one evaluation at a time on each (default 0)\n"
	     "  --workers N         CPU track: evaluations at a time (default 1)\n"
	     KJ_CLI_HELP_JUDGE_BRIEF
	     "  --cache DIR         judge settings, as for `kjudge run`\n"
	     "  --max-body BYTES    request body limit (default 1048576; larger: 413)\n"
	     "  --lease S           a running job's lease, renewed while judged (default 30)\n"
	     "  --max-attempts N    claims before a job that keeps stopping servers fails (default 3)\n"
	     "  --max-wait S        the longest long poll (default 60)\n"
	     "  --max-conns N       connections at once, in all (default 1024)\n"
	     "  --max-conns-per-ip N  connections from one client address whose request is being\n"
	     "                      read, and as many being answered (default 64); beyond it a new\n"
	     "                      connection is closed at once, so that a client holding\n"
	     "                      connections open cannot starve the others\n"
	     "  --read-timeout S    a request header must be complete within S seconds (else 408),\n"
	     "                      and a body may pause at most S seconds (default 10)\n"
	     "  --port-file FILE    write the bound port there once listening\n"
	     "  --quiet             no log on stderr\n\n"
	     "token add prints a fresh token once; the store keeps only its SHA-256.  --quota N\n"
	     "caps the jobs the token may have queued or running (429 beyond; default: none).\n"
	     "Once a token exists every endpoint but /v1/health wants 'Authorization: Bearer T'.\n\n"
	     "Before it listens the server checks that a job can be judged: the tasks, the\n"
	     "candidate header (include/candidate under KJUDGE_HOME), the worker binary and the\n"
	     "sandbox; it refuses to start, naming what is missing, rather than fail every job.\n\n"
	     "exit status: 0 stopped by a signal, 2 usage error, 3 the server could not start");
}

static int cmd_token(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "db", 1, 0, 'd' }, { "quota", 1, 0, 'Q' }, { "json", 0, 0, 'j' }, { "help", 0, 0, 'h' },
		{ 0, 0, 0, 0 }
	};
	const char *db_path = "serve.sqlite", *verb;
	char where[512];
	struct kj_err err;
	kj_db *db = NULL;
	int c, quota = 0, json = 0, rc = KJ_EXIT_OK;
	char *end;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'd':
			db_path = optarg;
			break;
		case 'Q': {
			long q = strtol(optarg, &end, 10);
			if (*end || !*optarg || q < 0 || q > 1000000000)
				return kj_cli_usage_error("serve token", "--quota wants an integer >= 0, got '%s'",
							  optarg);
			quota = (int)q;
			break;
		}
		case 'j':
			json = 1;
			break;
		case 'h':
			usage();
			return KJ_EXIT_OK;
		default:
			return kj_cli_usage_error("serve token", "unknown option");
		}
	}
	if (optind >= argc)
		return kj_cli_usage_error("serve token", "expected add NAME, list or remove NAME");
	verb = argv[optind];
	if ((!strcmp(verb, "add") || !strcmp(verb, "remove")) ? optind + 2 != argc
							      : strcmp(verb, "list") || optind + 1 != argc)
		return kj_cli_usage_error("serve token", "expected add NAME, list or remove NAME");
	kj_err_init(&err);
	/* a URL's password never reaches a message */
	kj_store_redact(db_path, where, sizeof(where));
	if (kj_store_open(db_path, &db, &err)) {
		fprintf(stderr, "kjudge serve token: %s\n", err.msg);
		return KJ_EXIT_JUDGE;
	}
	if (!strcmp(verb, "add")) {
		char tok[KJ_SERVE_TOKEN_LEN], sha[65];
		int64_t id;
		if (kj_serve_token_new(tok, sha, &err) ||
		    kj_token_add(db, argv[optind + 1], sha, quota, &id, &err)) {
			fprintf(stderr, "kjudge serve token add: %s\n", err.msg);
			rc = err.code == KJ_E_USAGE ? KJ_EXIT_USAGE : KJ_EXIT_JUDGE;
		} else if (json) {
			printf("{\"name\": \"%s\", \"token\": \"%s\", \"quota\": %d, \"id\": %lld}\n",
			       argv[optind + 1], tok, quota, (long long)id);
		} else {
			printf("%s\n", tok);
			if (quota)
				fprintf(stderr, "kjudge serve token add: token '%s' added to %s, quota %d jobs "
					"queued or running; it is shown only this once\n", argv[optind + 1], where,
					quota);
			else
				fprintf(stderr, "kjudge serve token add: token '%s' added to %s, no quota; it is "
					"shown only this once\n", argv[optind + 1], where);
		}
	} else if (!strcmp(verb, "remove")) {
		if (kj_token_remove(db, argv[optind + 1], &err)) {
			fprintf(stderr, "kjudge serve token remove: %s\n", err.msg);
			rc = err.code == KJ_E_NOTFOUND ? KJ_EXIT_USAGE : KJ_EXIT_JUDGE;
		}
	} else {
		struct kj_token *v;
		int n;
		if (kj_token_list(db, &v, &n, &err)) {
			fprintf(stderr, "kjudge serve token list: %s\n", err.msg);
			rc = KJ_EXIT_JUDGE;
		} else {
			json_t *arr = json_array();
			for (int i = 0; i < n; i++) {
				if (json)
					/* a name that is not UTF-8 keeps its row (json_pack would drop it) */
					json_array_append_new(arr, json_pack("{s:o,s:i,s:o,s:s%}", "name",
									     kj_cli_json_string(v[i].name), "quota",
									     v[i].quota, "created",
									     kj_cli_json_string(v[i].created),
									     "sha256_prefix", v[i].sha256, (size_t)8));
				else
					printf("%-24s quota %-8d created %s  sha256 %.8s...\n", v[i].name, v[i].quota,
					       v[i].created, v[i].sha256);
			}
			if (json) {
				json_t *root = json_pack("{s:o}", "tokens", arr);
				char *s = root ? json_dumps(root, JSON_COMPACT) : NULL;
				puts(s ? s : "{}");
				free(s);
				json_decref(root);
			} else {
				json_decref(arr);
			}
			free(v);
		}
	}
	kj_store_close(db);
	return rc;
}

/* Appends the problem files of the KernelBench checkout at dir
 * (dir/KernelBench/levelN or dir/levelN, each NAME.py) to the served tasks,
 * with ids kernelbench/levelN/NAME.  Returns 0, or -1 out of memory. */
static int add_kernelbench(const char *dir, char ***paths, char ***ids, int *n)
{
	char base[PATH_MAX + 32], ldir[PATH_MAX + 64];
	struct stat st;
	snprintf(base, sizeof(base), "%s/KernelBench", dir);
	if (stat(base, &st) || !S_ISDIR(st.st_mode))
		snprintf(base, sizeof(base), "%s", dir);
	for (int l = 1; l <= 9; l++) {
		char **lp = NULL;
		int ln = 0;
		snprintf(ldir, sizeof(ldir), "%s/level%d", base, l);
		if (kj_cli_list_dir(ldir, ".py", &lp, &ln) || ln == 0) {
			kj_cli_free_list(lp, ln);
			continue;
		}
		for (int i = 0; i < ln; i++) {
			char **np = realloc(*paths, (size_t)(*n + 1) * sizeof(char *));
			char **ni = np ? realloc(*ids, (size_t)(*n + 1) * sizeof(char *)) : NULL;
			const char *b = strrchr(lp[i], '/');
			char id[PATH_MAX + 64];
			if (np)
				*paths = np;
			if (!np || !ni) {
				kj_cli_free_list(lp, ln);
				return -1;
			}
			*ids = ni;
			b = b ? b + 1 : lp[i];
			snprintf(id, sizeof(id), "kernelbench/level%d/%.*s", l, (int)(strlen(b) - 3), b);
			(*paths)[*n] = lp[i];
			lp[i] = NULL;
			if (!((*ids)[*n] = strdup(id))) {
				free((*paths)[*n]);
				kj_cli_free_list(lp, ln);
				return -1;
			}
			(*n)++;
		}
		kj_cli_free_list(lp, ln);
	}
	return 0;
}

int cmd_serve(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "listen", 1, 0, 'l' },     { "db", 1, 0, 'd' },          { "name", 1, 0, 'n' },
		{ "backend", 1, 0, 'b' },    { "gpus", 1, 0, 'g' },        { "workers", 1, 0, 'w' },
		KJ_CLI_JUDGE_LONGOPTS,
		{ "max-body", 1, 0, 'M' },   { "lease", 1, 0, 'L' },       { "max-attempts", 1, 0, 'A' },
		{ "max-wait", 1, 0, 'W' },   { "port-file", 1, 0, 'F' },   { "quiet", 0, 0, 'q' },
		{ "max-conns", 1, 0, 'C' },  { "max-conns-per-ip", 1, 0, 'P' },
		{ "read-timeout", 1, 0, 'R' },
		{ "help", 0, 0, 'h' },       { 0, 0, 0, 0 }
	};
	struct kj_serve_opts o;
	struct kj_err err;
	struct sigaction sa, old_int, old_term;
	char worker[PATH_MAX + 32], inc[PATH_MAX + 32], **paths = NULL, **ids = NULL, *end;
	int c, n = 0, rc, quiet = 0;
	double x;

	if (argc >= 2 && !strcmp(argv[1], "token"))
		return cmd_token(argc - 1, argv + 1);
	kj_serve_opts_init(&o);
	o.db_path = "serve.sqlite";
	optind = 1;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'l':
			o.listen = optarg;
			break;
		case 'd':
			o.db_path = optarg;
			break;
		case 'n':
			o.run_name = optarg;
			break;
		case 'b':
			if (kj_backend_from_name(optarg, &o.eval.backend))
				return kj_cli_usage_error("serve", "unknown backend '%s' (cpu, cuda, triton or kernelbench)", optarg);
			break;
		case 'g':
			if ((rc = kj_cli_gpus_option("serve", optarg, o.gpus, &o.ngpus, KJ_SERVE_MAX_GPUS)))
				return rc;
			break;
		case 'w':
			o.workers = (int)strtol(optarg, &end, 10);
			if (*end || o.workers < 1 || o.workers > 256)
				return kj_cli_usage_error("serve", "--workers wants 1..256, got '%s'", optarg);
			break;
		case 'M':
			x = strtod(optarg, &end);
			if (*end || !(x >= 64) || x > 1e9)
				return kj_cli_usage_error("serve", "--max-body wants 64..1e9 bytes, got '%s'", optarg);
			o.max_body = (size_t)x;
			break;
		case 'L':
			o.lease_s = strtod(optarg, &end);
			if (*end || !(o.lease_s >= 0.5) || o.lease_s > 86400)
				return kj_cli_usage_error("serve", "--lease wants 0.5..86400 seconds, got '%s'", optarg);
			break;
		case 'A':
			o.max_attempts = (int)strtol(optarg, &end, 10);
			if (*end || o.max_attempts < 1 || o.max_attempts > 100)
				return kj_cli_usage_error("serve", "--max-attempts wants 1..100, got '%s'", optarg);
			break;
		case 'W':
			o.max_wait_s = strtod(optarg, &end);
			if (*end || !(o.max_wait_s > 0) || o.max_wait_s > 3600)
				return kj_cli_usage_error("serve", "--max-wait wants 0..3600 seconds, got '%s'", optarg);
			break;
		case 'F':
			o.port_file = optarg;
			break;
		case 'C':
			x = strtod(optarg, &end);
			if (*end || !*optarg || !(x >= 1) || x > 100000 || x != (double)(unsigned)x)
				return kj_cli_usage_error("serve", "--max-conns wants 1..100000, got '%s'", optarg);
			o.max_conns = (unsigned)x;
			break;
		case 'P':
			x = strtod(optarg, &end);
			if (*end || !*optarg || !(x >= 1) || x > 100000 || x != (double)(unsigned)x)
				return kj_cli_usage_error("serve", "--max-conns-per-ip wants 1..100000, got '%s'",
							  optarg);
			o.conns_per_ip = (unsigned)x;
			break;
		case 'R':
			x = strtod(optarg, &end);
			if (*end || !*optarg || !(x >= 1) || x > 3600 || x != (double)(unsigned)x)
				return kj_cli_usage_error("serve", "--read-timeout wants whole seconds 1..3600, got "
							  "'%s'", optarg);
			o.read_timeout_s = (unsigned)x;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			usage();
			return KJ_EXIT_OK;
		default:
			if ((rc = kj_cli_eval_option("serve", c, optarg, &o.eval)) != 1)
				return rc ? rc : kj_cli_usage_error("serve", "unknown option");
			break;
		}
	}
	if (optind != argc)
		return kj_cli_usage_error("serve", "unexpected argument '%s'", argv[optind]);
	if (o.ngpus && o.eval.backend != KJ_BACKEND_CUDA)
		return kj_cli_usage_error("serve", "--gpus is for --backend cuda; the CPU track takes --workers");
	if (o.conns_per_ip > (o.max_conns ? o.max_conns : 1024))
		return kj_cli_usage_error("serve", "--max-conns-per-ip (%u) is above --max-conns (%u)",
					  o.conns_per_ip, o.max_conns ? o.max_conns : 1024);
	if (!quiet)
		o.log = log_line;
	kj_cli_seed_secret_env(&o.eval);
	kj_cli_judge_paths(worker, sizeof(worker), inc, sizeof(inc));
	o.eval.worker_path = worker;
	o.eval.include_dir = inc;

	/* the served tasks: every .kt under tasks/, by id (level1/relu) */
	kj_err_init(&err);
	if (kj_cli_list_tasks(&paths, &n, &err)) {
		fprintf(stderr, "kjudge serve: %s (KJUDGE_HOME must name a kjudge tree)\n", err.msg);
		return KJ_EXIT_JUDGE;
	}
	if (n == 0) {
		fprintf(stderr, "kjudge serve: no task to serve: '%s/tasks' holds no .kt file (KJUDGE_HOME "
			"must name a kjudge tree)\n", kj_cli_root());
		kj_cli_free_list(paths, n);
		return KJ_EXIT_JUDGE;
	}
	ids = calloc((size_t)(n ? n : 1), sizeof(*ids));
	if (!ids) {
		kj_cli_free_list(paths, n);
		fprintf(stderr, "kjudge serve: out of memory\n");
		return KJ_EXIT_JUDGE;
	}
	{
		char tdir[PATH_MAX + 16];
		size_t tl;
		snprintf(tdir, sizeof(tdir), "%s/tasks/", kj_cli_root());
		tl = strlen(tdir);
		for (int i = 0; i < n; i++) {
			size_t l = strlen(paths[i]);
			const char *rel = strncmp(paths[i], tdir, tl) ? paths[i] : paths[i] + tl;
			ids[i] = strndup(rel, strlen(rel) - (l > 3 ? 3 : 0));
		}
	}
	/* with --kernelbench-dir (KJ_KERNELBENCH_DIR): the checkout's problem
	 * files too, by id (kernelbench/level1/19_ReLU) */
	if (getenv("KJ_KERNELBENCH_DIR") && *getenv("KJ_KERNELBENCH_DIR") &&
	    add_kernelbench(getenv("KJ_KERNELBENCH_DIR"), &paths, &ids, &n)) {
		fprintf(stderr, "kjudge serve: out of memory\n");
		return KJ_EXIT_JUDGE;
	}
	o.task_ids = (const char *const *)ids;
	o.task_paths = (const char *const *)paths;
	o.ntasks = n;

	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	signal(SIGPIPE, SIG_IGN);
	rc = kj_serve_run(&o, &stop_level, &err);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (rc) {
		fprintf(stderr, "kjudge serve: %s\n", err.msg);
		rc = rc == KJ_E_USAGE ? KJ_EXIT_USAGE : KJ_EXIT_JUDGE;
	} else if (!quiet) {
		log_line(NULL, "stopped");
	}
	if (stop_level > 1) {
		/* evaluation threads were left running: leave now, the jobs they
		 * held are back in the queue */
		fflush(NULL);
		_exit(rc);
	}
	for (int i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
	kj_cli_free_list(paths, n);
	return rc;
}
