/*
 * Judge setup shared by the commands that judge into a store (run, refine,
 * serve, worker): where the worker binary and candidate headers are, and
 * the store's path.  The devices rows and the calibration in use are the
 * record layer's (include/kjudge/record.h).
 */
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"

double kj_cli_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void kj_cli_judge_paths(char *worker, size_t wl, char *inc, size_t il)
{
	const char *w = getenv("KJ_WORKER");
	if (w && *w)
		snprintf(worker, wl, "%s", w);
	else
		snprintf(worker, wl, "%s/kjudge-worker", kj_cli_bindir());
	snprintf(inc, il, "%s/include/candidate", kj_cli_root());
}

void kj_cli_db_path(const char *db_arg, const char *name, char *out, size_t n)
{
	if (db_arg)
		snprintf(out, n, "%s", db_arg);
	else
		snprintf(out, n, "%s.sqlite", name);
}
