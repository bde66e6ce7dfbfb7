/* kjudge: the command-line tool, a thin client of libkjudge. */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "kjudge/python.h"
#include "kjudge/version.h"
#include "kjudge/fsutil.h"

static char root_dir[PATH_MAX], bin_dir[PATH_MAX];

static int is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static void find_dirs(void)
{
	char exe[PATH_MAX], tmp[PATH_MAX + 16];
	ssize_t n;
	const char *home = getenv("KJUDGE_HOME");
	if (bin_dir[0])
		return;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = 0;
		snprintf(bin_dir, sizeof(bin_dir), "%s", dirname(exe));
	} else {
		snprintf(bin_dir, sizeof(bin_dir), ".");
	}
	if (home && *home) {
		snprintf(root_dir, sizeof(root_dir), "%s", home);
		return;
	}
	/* build/kjudge or build/asan/kjudge: walk up to the folder holding tasks/ */
	snprintf(tmp, sizeof(tmp), "%s", bin_dir);
	for (int up = 0; up < 4; up++) {
		char probe[PATH_MAX + 32];
		snprintf(probe, sizeof(probe), "%s/tasks", tmp);
		if (is_dir(probe)) {
			snprintf(root_dir, sizeof(root_dir), "%s", tmp);
			return;
		}
		snprintf(probe, sizeof(probe), "%s", tmp);
		snprintf(tmp, sizeof(tmp), "%s", dirname(probe));
	}
	snprintf(root_dir, sizeof(root_dir), ".");
}

const char *kj_cli_root(void)
{
	find_dirs();
	return root_dir;
}

const char *kj_cli_bindir(void)
{
	find_dirs();
	return bin_dir;
}

int kj_cli_read_file(const char *path, char **buf, size_t *len, struct kj_err *err)
{
	const char *kind;
	int fd = kj_open_regular(path, &kind);
	FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
	char *b = NULL;
	size_t cap = 0, n = 0, r;
	if (fd < 0 && *kind)
		return kj_err_set(err, KJ_E_USAGE, "'%s' is %s, not a file", path, kind);
	if (!f) {
		if (fd >= 0)
			close(fd);
		return kj_err_sys(err, "cannot open '%s'", path);
	}
	do {
		if (n + 65536 + 1 > cap) {
			char *nb;
			cap = cap ? 2 * cap : 131072;
			if (cap > (64u << 20)) {
				free(b);
				fclose(f);
				return kj_err_set(err, KJ_E_IO, "'%s' is larger than 64 MiB", path);
			}
			nb = realloc(b, cap);
			if (!nb) {
				free(b);
				fclose(f);
				return kj_err_set(err, KJ_E_NOMEM, "out of memory reading '%s'", path);
			}
			b = nb;
		}
		r = fread(b + n, 1, 65536, f);
		n += r;
	} while (r > 0);
	if (ferror(f)) {
		free(b);
		fclose(f);
		return kj_err_sys(err, "cannot read '%s'", path);
	}
	fclose(f);
	b[n] = 0;
	*buf = b;
	*len = n;
	return 0;
}

int kj_cli_load_task(const char *arg, kj_task **out, struct kj_err *err)
{
	char path[PATH_MAX + 64];
	size_t n = strlen(arg);
	struct stat st;
	const char *kbdir = getenv("KJ_KERNELBENCH_DIR");
	char inc[PATH_MAX + 32];
	snprintf(inc, sizeof(inc), "%s/include/candidate", kj_cli_root());
	/* a KernelBench problem file (docs/kernelbench.md) */
	if (n > 3 && !strcmp(arg + n - 3, ".py"))
		return kj_kb_task_load(arg, NULL, inc, out, err);
	/* a path (a FIFO or a folder is refused there, by what it is) */
	if ((n > 3 && !strcmp(arg + n - 3, ".kt")) || stat(arg, &st) == 0)
		return kj_task_load(arg, out, err);
	/* a name is its path under tasks/: one spelling per task */
	for (const char *c = arg; *c; c = strchr(c, '/') ? strchr(c, '/') + 1 : c + strlen(c))
		if (c[0] == '/' || (c[0] == '.' && (c[1] == '/' || !c[1] || (c[1] == '.' && (c[2] == '/' || !c[2])))))
			return kj_err_set(err, KJ_E_USAGE, "task name '%s' has an empty, '.' or '..' part: a task is "
					  "named by its path under tasks/ without .kt (level1/relu)", arg);
	/* a problem of the KernelBench checkout at $KJ_KERNELBENCH_DIR
	 * (--kernelbench-dir): level1/19_ReLU, or the task's id
	 * kernelbench/level1/19_ReLU; after the check above, so that a name
	 * never leads out of the checkout */
	if (kbdir && *kbdir) {
		const char *rel = !strncmp(arg, "kernelbench/", 12) ? arg + 12 : arg;
		snprintf(path, sizeof(path), "%s/KernelBench/%s.py", kbdir, rel);
		if (!is_file(path))
			snprintf(path, sizeof(path), "%s/%s.py", kbdir, rel);
		if (is_file(path))
			return kj_kb_task_load(path, NULL, inc, out, err);
		if (rel != arg)
			return kj_err_set(err, KJ_E_NOTFOUND, "unknown KernelBench problem '%s': no %s/KernelBench/%s.py",
					  arg, kbdir, rel);
	} else if (!strncmp(arg, "kernelbench/", 12)) {
		return kj_err_set(err, KJ_E_NOTFOUND, "task '%s' is a KernelBench problem: say where the KernelBench "
				  "checkout is (--kernelbench-dir DIR or KJ_KERNELBENCH_DIR)", arg);
	}
	snprintf(path, sizeof(path), "%s/tasks/%s.kt", kj_cli_root(), arg);
	if (!is_file(path))
		return kj_err_set(err, KJ_E_NOTFOUND,
				  "unknown task '%s': no file %s (run `kjudge tasks` for the list)", arg, path);
	return kj_task_load(path, out, err);
}

int kj_cli_task_exit(int code)
{
	switch (code) {
	case KJ_E_PARSE:
	case KJ_E_TYPE:
	case KJ_E_USAGE:
	case KJ_E_NOTFOUND:
	case KJ_E_UNSUPPORTED:
		return KJ_EXIT_USAGE;
	case KJ_E_SYS: /* a task file that cannot be opened: named wrong */
		return KJ_EXIT_USAGE;
	default:
		return KJ_EXIT_JUDGE;
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int kj_cli_list_dir(const char *dir, const char *suffix, char ***paths, int *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **v = NULL;
	int cnt = 0;
	size_t sl = strlen(suffix);
	*paths = NULL;
	*n = 0;
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		char full[PATH_MAX + 300];
		char **nv;
		if (de->d_name[0] == '.' || l < sl || strcmp(de->d_name + l - sl, suffix))
			continue;
		snprintf(full, sizeof(full), "%s/%s", dir, de->d_name);
		nv = realloc(v, (size_t)(cnt + 1) * sizeof(*v));
		if (!nv)
			break;
		v = nv;
		v[cnt++] = strdup(full);
	}
	closedir(d);
	if (cnt)
		qsort(v, (size_t)cnt, sizeof(*v), cmp_str);
	*paths = v;
	*n = cnt;
	return 0;
}

int kj_cli_list_tasks(char ***paths, int *n, struct kj_err *err)
{
	char dir[PATH_MAX + 16];
	char **suites;
	int ns, total = 0;
	char **all = NULL;
	DIR *d;
	struct dirent *de;
	snprintf(dir, sizeof(dir), "%s/tasks", kj_cli_root());
	d = opendir(dir);
	if (!d)
		return kj_err_sys(err, "cannot open the task folder '%s'", dir);
	suites = NULL;
	ns = 0;
	while ((de = readdir(d))) {
		char sub[PATH_MAX + 300];
		if (de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", dir, de->d_name);
		if (is_dir(sub)) {
			char **nv = realloc(suites, (size_t)(ns + 1) * sizeof(*suites));
			if (!nv)
				break;
			suites = nv;
			suites[ns++] = strdup(sub);
		}
	}
	closedir(d);
	if (ns)
		qsort(suites, (size_t)ns, sizeof(*suites), cmp_str);
	for (int i = 0; i < ns; i++) {
		char **files;
		int nf;
		/* a suite may hold suites one level down (tasks/trace/llama/) */
		DIR *sd = opendir(suites[i]);
		while (sd && (de = readdir(sd))) {
			char sub[PATH_MAX + 300];
			char **nv;
			if (de->d_name[0] == '.')
				continue;
			snprintf(sub, sizeof(sub), "%s/%s", suites[i], de->d_name);
			if (!is_dir(sub) || !(nv = realloc(suites, (size_t)(ns + 1) * sizeof(*suites))))
				continue;
			suites = nv;
			suites[ns++] = strdup(sub);
		}
		if (sd) {
			closedir(sd);
			qsort(suites + i + 1, (size_t)(ns - i - 1), sizeof(*suites), cmp_str);
		}
		kj_cli_list_dir(suites[i], ".kt", &files, &nf);
		if (nf) {
			char **nv = realloc(all, (size_t)(total + nf) * sizeof(*all));
			if (nv) {
				all = nv;
				memcpy(all + total, files, (size_t)nf * sizeof(*files));
				total += nf;
			}
		}
		free(files);
		free(suites[i]);
	}
	free(suites);
	*paths = all;
	*n = total;
	return 0;
}

void kj_cli_free_list(char **paths, int n)
{
	for (int i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}

int kj_cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "kjudge %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n(see `kjudge %s --help`)\n", cmd);
	return KJ_EXIT_USAGE;
}

static const char usage[] =
	"usage: kjudge <command> [options]\n"
	"\n"
	"A judge and benchmark for GPU kernels written by language models.\n"
	"\n"
	"commands:\n"
	"  tasks [--level N] [--category C] [--suite S] [--json]   list the tasks\n"
	"  show TASK [--json]              a task: shapes, FLOPs, bytes, prototypes\n"
	"  prompt TASK [--backend B]       the prompt a model answers with a kernel\n"
	"  refine TASK... --model M        k samples x N rounds of a model with judge feedback, stored in a run\n"
	"  eval TASK FILE [options]        judge one candidate (exit 0 pass, 1 fail, 2 usage, 3 judge error)\n"
	"  run SPEC [--db FILE|URL] [options]  judge a batch of candidates into a SQLite or PostgreSQL store\n"
	"                                  (resumable; --enqueue-only: into the cluster queue)\n"
	"  worker --db URL [--gpus LIST]   judge jobs of a PostgreSQL cluster queue on this node\n"
	"  demo [--backend B]              judge the shipped example candidates, print a table\n"
	"  ops [--json]                    the op registry with each op's semantics\n"
	"  calibrate [--json]              measure the GPU's copy bandwidth and GEMM rates\n"
	"  baseline TASK [--json]          time the CUDA eager baseline on the bench shapes\n"
	"  report RUN [--format md|json|html] [-o FILE]   scores of a run from its store\n"
	"  compare RUN_A RUN_B [--json]    the same candidates in two runs: speedup ratios per task\n"
	"  export-pairs RUN [-o FILE]      (error, correction) and (slow, fast) pairs as JSONL\n"
	"  lint-tasks [--json] [TASK...]   degeneracy lint: outputs must depend on every input\n"
	"  trace import FILE [-o DIR]      a weighted suite from a torch.profiler trace (docs/suites.md)\n"
	"  serve [--listen ADDR:PORT]      HTTP JSON judging service with a persistent job queue\n"
	"\n"
	"TASK is a path under tasks/ without .kt (level1/softmax) or a .kt file.\n"
	"Run `kjudge COMMAND --help` for a command's options.\n";

/* --json: one JSON object on stdout in every case.  The commands write
 * their JSON when they have a result and their messages on stderr; a
 * command that ends with an error before writing any JSON gets
 * {"error": {...}, "exit": N} written for it here, with its last message
 * as the text.  stdout and stderr are passed through cookie streams that
 * count what was written and keep stderr's last line, so that this
 * promise is kept in one place for every command. */
static size_t json_out_bytes;
static char json_last_err[1024], json_err_line[1024];
static size_t json_err_len;

static ssize_t cookie_out(void *c, const char *buf, size_t n)
{
	size_t done = 0;
	(void)c;
	while (done < n) {
		ssize_t w = write(1, buf + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return done ? (ssize_t)done : -1;
		done += (size_t)w;
	}
	json_out_bytes += n;
	return (ssize_t)n;
}

static ssize_t cookie_err(void *c, const char *buf, size_t n)
{
	size_t done = 0;
	(void)c;
	while (done < n) {
		ssize_t w = write(2, buf + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		done += (size_t)w;
	}
	for (size_t i = 0; i < n; i++) {
		if (buf[i] != '\n') {
			if (json_err_len + 1 < sizeof(json_err_line))
				json_err_line[json_err_len++] = buf[i];
			continue;
		}
		json_err_line[json_err_len] = 0;
		/* the message, not the "(see `kjudge X --help`)" after it */
		if (json_err_len && json_err_line[0] != '(')
			memcpy(json_last_err, json_err_line, json_err_len + 1);
		json_err_len = 0;
	}
	return (ssize_t)n;
}

static int wants_json(int argc, char **argv)
{
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return 0;
		if (!strcmp(argv[i], "--json"))
			return 1;
	}
	return 0;
}

static void json_wrap(void)
{
	cookie_io_functions_t out = { .write = cookie_out }, err = { .write = cookie_err };
	FILE *o = fopencookie(NULL, "w", out), *e = fopencookie(NULL, "w", err);
	if (!o || !e) {
		if (o)
			fclose(o);
		if (e)
			fclose(e);
		return;
	}
	setvbuf(e, NULL, _IONBF, 0);
	fflush(stdout);
	stdout = o;
	stderr = e;
}

static int json_finish(const char *cmd, int rc)
{
	const char *msg = json_last_err, *kind;
	char prefix[64];
	json_t *o, *eo;
	char *text;
	fflush(stdout);
	if (rc == KJ_EXIT_OK || json_out_bytes)
		return rc;
	snprintf(prefix, sizeof(prefix), "kjudge %s: ", cmd);
	if (!strncmp(msg, prefix, strlen(prefix)))
		msg += strlen(prefix);
	kind = rc == KJ_EXIT_FAIL ? "failed" : rc == KJ_EXIT_USAGE ? "usage" : "judge";
	eo = json_object();
	json_object_set_new(eo, "command", json_string(cmd));
	json_object_set_new(eo, "kind", json_string(kind));
	json_object_set_new(eo, "message", kj_cli_json_string(*msg ? msg : "failed (no message)"));
	o = json_object();
	json_object_set_new(o, "error", eo);
	json_object_set_new(o, "exit", json_integer(rc));
	text = json_dumps(o, JSON_INDENT(2));
	if (text) {
		fputs(text, stdout);
		fputc('\n', stdout);
		free(text);
	}
	json_decref(o);
	fflush(stdout);
	return rc;
}

json_t *kj_cli_json_string(const char *s)
{
	json_t *j;
	char *fixed;
	size_t n, k = 0;
	if (!s)
		return json_null();
	if ((j = json_string(s)))
		return j;
	/* not UTF-8: each byte that is not part of a valid sequence becomes
	 * U+FFFD, so the field is there and says something was replaced */
	n = strlen(s);
	fixed = malloc(3 * n + 1);
	if (!fixed)
		return json_null();
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)s[i];
		size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
		int ok = len && i + len <= n;
		for (size_t q = 1; ok && q < len; q++)
			ok = ((unsigned char)s[i + q] >> 6) == 2;
		if (ok && len > 1) { /* overlong forms and surrogates: jansson's own check */
			char tmp[5];
			json_t *t;
			memcpy(tmp, s + i, len);
			tmp[len] = 0;
			t = json_string(tmp);
			ok = t != NULL;
			json_decref(t);
		}
		if (ok) {
			memcpy(fixed + k, s + i, len);
			k += len;
			i += len;
		} else {
			memcpy(fixed + k, "\xef\xbf\xbd", 3);
			k += 3;
			i++;
		}
	}
	fixed[k] = 0;
	j = json_string(fixed);
	free(fixed);
	return j ? j : json_null();
}

json_t *kj_cli_json_real(double x)
{
	if (isnan(x))
		return json_string("nan");
	if (isinf(x))
		return json_string(x > 0 ? "inf" : "-inf");
	return json_real(x);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int, char **);
	} cmds[] = {
		{ "tasks", cmd_tasks }, { "show", cmd_show }, { "prompt", cmd_prompt },
		{ "eval", cmd_eval },   { "demo", cmd_demo }, { "ops", cmd_ops },
		{ "calibrate", cmd_calibrate }, { "baseline", cmd_baseline },
		{ "run", cmd_run }, { "worker", cmd_worker },
		{ "report", cmd_report }, { "compare", cmd_compare },
		{ "export-pairs", cmd_export_pairs },
		{ "lint-tasks", cmd_lint_tasks },
		{ "trace", cmd_trace },
		{ "serve", cmd_serve },
		{ "refine", cmd_refine },
	};
	if (argc < 2) {
		fputs(usage, stderr);
		return KJ_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		fputs(usage, stdout);
		return KJ_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("kjudge %s\n", kj_version());
		return KJ_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name)) {
			int json = wants_json(argc, argv), rc;
			if (json)
				json_wrap();
			rc = cmds[i].fn(argc - 1, argv + 1);
			return json ? json_finish(argv[1], rc) : rc;
		}
	fprintf(stderr, "kjudge: unknown command '%s'\n\n%s", argv[1], usage);
	return KJ_EXIT_USAGE;
}
