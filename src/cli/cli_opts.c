/*
 * The judge options that several commands take (--seeds, --no-perf,
 * --timeout, --perf-budget, --max-noise, --policy, --cache, and eval's --no-cache and
 * --seed-secret), and the --gpus device list.  One parser, so the ranges and
 * the messages are the same in every command; each command still lists in
 * its own option table which of them it accepts (cli.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

int kj_cli_eval_option(const char *cmd, int opt, const char *arg, struct kj_eval_opts *o)
{
	char *end;
	switch (opt) {
	case KJ_CLI_OPT_SEEDS:
		o->seeds = (int)strtol(arg, &end, 10);
		if (*end || o->seeds < 1 || o->seeds > 100)
			return kj_cli_usage_error(cmd, "--seeds wants 1..100, got '%s'", arg);
		return 1;
	case KJ_CLI_OPT_NO_PERF:
		o->no_perf = 1;
		return 1;
	case KJ_CLI_OPT_TIMEOUT:
		o->call_timeout_s = strtod(arg, &end);
		if (*end || !(o->call_timeout_s > 0))
			return kj_cli_usage_error(cmd, "--timeout wants seconds > 0, got '%s'", arg);
		return 1;
	case KJ_CLI_OPT_PERF_BUDGET:
		o->perf_budget_s = strtod(arg, &end);
		if (*end || !(o->perf_budget_s > 0))
			return kj_cli_usage_error(cmd, "--perf-budget wants seconds > 0, got '%s'", arg);
		return 1;
	case KJ_CLI_OPT_MAX_NOISE:
		o->max_noise = strtod(arg, &end);
		if (*end || !(o->max_noise > 0) || !(o->max_noise < 1))
			return kj_cli_usage_error(cmd, "--max-noise wants a fraction in (0, 1), got '%s'", arg);
		return 1;
	case KJ_CLI_OPT_POLICY:
		if (!strcmp(arg, "strict"))
			o->policy = KJ_POLICY_STRICT;
		else if (!strcmp(arg, "flag"))
			o->policy = KJ_POLICY_FLAG;
		else
			return kj_cli_usage_error(cmd, "--policy is strict or flag, got '%s'", arg);
		return 1;
	case KJ_CLI_OPT_CACHE:
		o->cache_dir = arg;
		return 1;
	case KJ_CLI_OPT_KB_DIR:
		/* read where tasks are loaded (kj_cli_load_task), which takes
		 * no options: the environment carries it there */
		if (setenv("KJ_KERNELBENCH_DIR", arg, 1))
			return kj_cli_usage_error(cmd, "--kernelbench-dir: cannot set KJ_KERNELBENCH_DIR");
		return 1;
	case KJ_CLI_OPT_NO_CACHE:
		o->no_cache = 1;
		return 1;
	case KJ_CLI_OPT_SEED_SECRET:
		o->base_seed = kj_seed_from_secret(arg);
		o->seed_hidden = 1;
		return 1;
	case KJ_CLI_OPT_SEED_SECRET_FILE: {
		char buf[4096];
		size_t n;
		FILE *f = fopen(arg, "r");
		if (!f)
			return kj_cli_usage_error(cmd, "--seed-secret-file: cannot open '%s': %s", arg, strerror(errno));
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = '\0';
		buf[strcspn(buf, "\r\n")] = '\0'; /* the first line */
		if (!buf[0])
			return kj_cli_usage_error(cmd, "--seed-secret-file: '%s' holds no secret on its first line", arg);
		o->base_seed = kj_seed_from_secret(buf);
		o->seed_hidden = 1;
		memset(buf, 0, sizeof(buf));
		return 1;
	}
	case KJ_CLI_OPT_UNSAFE:
		o->unconfined = 1;
		return 1;
	default:
		return 0;
	}
}

void kj_cli_seed_secret_env(struct kj_eval_opts *o)
{
	const char *s = getenv("KJUDGE_SEED_SECRET"), *f = getenv("KJUDGE_SEED_SECRET_FILE");
	if (o->seed_hidden)
		return;
	if (s && *s) {
		o->base_seed = kj_seed_from_secret(s);
		o->seed_hidden = 1;
	} else if (f && *f) {
		/* a file that cannot be read leaves the public seed; the option
		 * (--seed-secret-file) says why instead */
		kj_cli_eval_option("kjudge", KJ_CLI_OPT_SEED_SECRET_FILE, f, o);
	}
}

void kj_cli_scrub_secret(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		char *v = NULL;
		if (!strcmp(argv[i], "--seed-secret") && i + 1 < argc)
			v = argv[i + 1];
		else if (!strncmp(argv[i], "--seed-secret=", 14))
			v = argv[i] + 14;
		if (v)
			memset(v, 'x', strlen(v));
	}
}

int kj_cli_parse_gpus(const char *s, int *gpus, int *n, int cap)
{
	char *end;
	*n = 0;
	while (*s) {
		long x = strtol(s, &end, 10);
		if (end == s || x < 0 || x > 255 || *n == cap)
			return -1;
		for (int i = 0; i < *n; i++)
			if (gpus[i] == (int)x)
				return -1;
		gpus[(*n)++] = (int)x;
		s = end;
		if (*s == ',')
			s++;
		else if (*s)
			return -1;
	}
	return *n ? 0 : -1;
}

int kj_cli_gpus_option(const char *cmd, const char *arg, int *gpus, int *n, int cap)
{
	if (kj_cli_parse_gpus(arg, gpus, n, cap))
		return kj_cli_usage_error(cmd, "--gpus wants distinct device numbers like 0,1; got '%s'", arg);
	return 0;
}
