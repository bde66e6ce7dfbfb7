/*
 * Shared helpers of the command-line tool: locating the kjudge tree (tasks/,
 * examples/, the worker and candidate headers), resolving a TASK argument,
 * reading files.  Each subcommand lives in its own cmd_*.c and uses only the
 * public API in include/kjudge/.
 *
 * Layer: cli, the top: it may use every layer (docs/architecture.md,
 * "Layers").
 */
#ifndef KJ_CLI_H
#define KJ_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kjudge/compile.h"
#include <jansson.h>

#include "kjudge/err.h"
#include "kjudge/gpu.h"
#include "kjudge/judge.h"
#include "kjudge/store.h"
#include "kjudge/task.h"

/* The exit codes of every command (docs/cli.md): 0 success, 1 the candidate
 * or the checked thing failed, 2 usage or task errors, 3 the judge or the
 * store failed. */
enum { KJ_EXIT_OK = 0, KJ_EXIT_FAIL = 1, KJ_EXIT_USAGE = 2, KJ_EXIT_JUDGE = 3 };

/* The exit code for a task that could not be resolved or loaded (err.code):
 * KJ_EXIT_USAGE for a missing, unreadable-as-a-task or invalid task file,
 * KJ_EXIT_JUDGE for anything else (out of memory, I/O). */
int kj_cli_task_exit(int code);

/* A JSON string of s where every byte that is not valid UTF-8 is U+FFFD
 * (jansson refuses such a string, and a field set from NULL vanishes);
 * null for NULL. */
json_t *kj_cli_json_string(const char *s);
/* A JSON number, or "inf", "-inf", "nan" as strings (jansson has no
 * non-finite numbers; docs/verdict.md). */
json_t *kj_cli_json_real(double x);

/* The folder holding tasks/ and examples/ (KJUDGE_HOME, or the parent of the
 * executable's build/ folder, or the current directory). */
const char *kj_cli_root(void);
/* The folder holding the executables (kjudge-worker). */
const char *kj_cli_bindir(void);
/* Resolves TASK (level1/softmax, or a path to a .kt file) and loads it. */
int kj_cli_load_task(const char *arg, kj_task **out, struct kj_err *err);
/* Reads a whole file (NUL-terminated, *len without the NUL).  Caller frees. */
int kj_cli_read_file(const char *path, char **buf, size_t *len, struct kj_err *err);
/* Every .kt under root/tasks, sorted; caller frees each string and the array. */
int kj_cli_list_tasks(char ***paths, int *n, struct kj_err *err);
/* Files in a folder with a suffix, sorted. */
int kj_cli_list_dir(const char *dir, const char *suffix, char ***paths, int *n);
void kj_cli_free_list(char **paths, int n);
int kj_cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The prompt for a Python candidate (--backend triton|kernelbench), printed
 * to out (prompt_py.c).  Returns 0 or an error code with err set. */
struct kj_err;
int kj_cli_prompt_python(const kj_task *t, kj_backend be, FILE *out, struct kj_err *err);

/* ---- judge options (cli_opts.c) ----
 * getopt_long values of the judge options, above any option letter.  A
 * command accepts those its own option table lists: KJ_CLI_JUDGE_LONGOPTS
 * (run, serve, refine, eval) and, in eval only, --no-cache and --seed-secret. */
enum {
	KJ_CLI_OPT_SEEDS = 0x100,
	KJ_CLI_OPT_NO_PERF,
	KJ_CLI_OPT_TIMEOUT,
	KJ_CLI_OPT_PERF_BUDGET,
	KJ_CLI_OPT_POLICY,
	KJ_CLI_OPT_CACHE,
	KJ_CLI_OPT_NO_CACHE,
	KJ_CLI_OPT_SEED_SECRET,
	KJ_CLI_OPT_SEED_SECRET_FILE,
	KJ_CLI_OPT_UNSAFE,
	KJ_CLI_OPT_MAX_NOISE,
	KJ_CLI_OPT_KB_DIR
};
#define KJ_CLI_JUDGE_LONGOPTS                                                                        \
	{ "seeds", 1, 0, KJ_CLI_OPT_SEEDS }, { "no-perf", 0, 0, KJ_CLI_OPT_NO_PERF },                \
	{ "timeout", 1, 0, KJ_CLI_OPT_TIMEOUT }, { "perf-budget", 1, 0, KJ_CLI_OPT_PERF_BUDGET },    \
	{ "policy", 1, 0, KJ_CLI_OPT_POLICY }, { "cache", 1, 0, KJ_CLI_OPT_CACHE },                  \
	{ "unsafe-no-sandbox", 0, 0, KJ_CLI_OPT_UNSAFE },                                           \
	{ "seed-secret-file", 1, 0, KJ_CLI_OPT_SEED_SECRET_FILE },                                  \
	{ "max-noise", 1, 0, KJ_CLI_OPT_MAX_NOISE }, { "kernelbench-dir", 1, 0, KJ_CLI_OPT_KB_DIR }
/* Their --help wording, for each command's own column layout. */
#define KJ_CLI_HELP_SEEDS "correctness seeds per shape (default 5)"
#define KJ_CLI_HELP_NO_PERF "stop after correctness"
#define KJ_CLI_HELP_TIMEOUT "watchdog per call in seconds (default 10)"
#define KJ_CLI_HELP_PERF_BUDGET "timing budget per shape and side (default 1)"
#define KJ_CLI_HELP_MAX_NOISE                                                                    \
	"time until the median's ~95% half-width is within F of it\n"                              \
	"                       (default 0.005); the CPU track samples past the budget for it"
#define KJ_CLI_HELP_CACHE "compile cache (default $KJUDGE_CACHE or ~/.cache/kjudge)"
#define KJ_CLI_HELP_JUDGE_BRIEF                                                                  \
	"  --seeds N, --no-perf, --timeout S, --perf-budget S, --max-noise F,\n"                \
	"  --policy flag|strict,\n"                                                              \
	"  --seed-secret-file F, --unsafe-no-sandbox,\n"
#define KJ_CLI_HELP_UNSAFE                                                                       \
	"compile and run candidates without the sandbox (bubblewrap's\n"                           \
	"                       namespaces): only for code you trust; verdicts say unconfined"
#define KJ_CLI_HELP_SECRET_FILE                                                                  \
	"hidden-seed mode with the secret read from FILE (or set\n"                                \
	"                       $KJUDGE_SEED_SECRET): keeps it off the command line"

struct kj_eval_opts;
/* Applies judge option opt (a KJ_CLI_OPT_ value) with its argument arg to o.
 * Returns 1 when opt is a judge option and arg is valid, 0 when opt is not a
 * judge option (o untouched), KJ_EXIT_USAGE when arg is out of range (the
 * message, naming cmd, is on stderr).  --cache keeps arg itself in o. */
int kj_cli_eval_option(const char *cmd, int opt, const char *arg, struct kj_eval_opts *o);
/* $KJUDGE_SEED_SECRET, when set and o has no secret yet: hidden-seed mode. */
void kj_cli_seed_secret_env(struct kj_eval_opts *o);
/* Overwrites a --seed-secret value in the process's own argv, so that the
 * secret does not stay readable in /proc/PID/cmdline (ps) for as long as the
 * judge runs. */
void kj_cli_scrub_secret(int argc, char **argv);
/* A device list like 0,1: distinct numbers 0..255, at most cap of them, into
 * gpus[0..*n).  Returns 0, or -1 when s is not such a list. */
int kj_cli_parse_gpus(const char *s, int *gpus, int *n, int cap);
/* kj_cli_parse_gpus for --gpus ARG: 0, or KJ_EXIT_USAGE with the message. */
int kj_cli_gpus_option(const char *cmd, const char *arg, int *gpus, int *n, int cap);

/* ---- judge setup (cli_judge.c) ---- */
/* Seconds on the monotonic clock. */
double kj_cli_now_s(void);
/* The worker binary ($KJ_WORKER or BINDIR/kjudge-worker) and the candidate
 * headers folder, into the caller's buffers. */
void kj_cli_judge_paths(char *worker, size_t wl, char *inc, size_t il);
/* The store path: db_arg when given, else NAME.sqlite. */
void kj_cli_db_path(const char *db_arg, const char *name, char *out, size_t n);

int cmd_tasks(int argc, char **argv);
/* tasks --kernelbench DIR (cmd_kbtasks.c): the problems of a KernelBench
 * checkout (DIR/KernelBench/levelN or DIR/levelN), level by level and by
 * number, with their shapes from the describe step unless !shapes; a
 * problem that cannot be described is listed with its error.  Returns an
 * exit code (2: no problems there). */
int kj_cli_kb_tasks(const char *dir, int level, int shapes, int json);
int cmd_show(int argc, char **argv);
int cmd_prompt(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_ops(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_worker(int argc, char **argv);
int cmd_baseline(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_export_pairs(int argc, char **argv);
int cmd_lint_tasks(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_refine(int argc, char **argv);

#endif
