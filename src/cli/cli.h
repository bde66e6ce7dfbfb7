/*
 * Shared helpers of the command-line tool: locating the kjudge tree (tasks/,
 * examples/, the worker and candidate headers), resolving a TASK argument,
 * reading files.  Each subcommand lives in its own cmd_*.c and uses only the
 * public API in include/kjudge/.
 */
#ifndef KJ_CLI_H
#define KJ_CLI_H

#include <stddef.h>

#include "kjudge/err.h"
#include "kjudge/task.h"

enum { KJ_EXIT_OK = 0, KJ_EXIT_FAIL = 1, KJ_EXIT_USAGE = 2, KJ_EXIT_JUDGE = 3 };

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

int cmd_tasks(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_prompt(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_ops(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_baseline(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_export_pairs(int argc, char **argv);
int cmd_lint_tasks(int argc, char **argv);

#endif
