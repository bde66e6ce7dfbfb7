/* kjudge trace import: a weighted suite from a PyTorch profiler trace. */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "kjudge/trace.h"

static const char trace_usage[] =
	"usage: kjudge trace import FILE [-o DIR] [--name SUITE] [--min-share F] [--force] [--json]\n"
	"       kjudge trace import FILE --refresh DIR [--json]\n"
	"\n"
	"Reads a PyTorch profiler trace (Chrome-trace JSON from torch.profiler with\n"
	"record_shapes=True; .json or .json.gz), attributes each GPU kernel's time to the\n"
	"innermost aten op that launched it, sums it per (operator, input shapes, dtypes,\n"
	"phase) and maps each sum to a task whose bench shapes are the trace's.\n"
	"\n"
	"  -o DIR          write DIR/<task>.kt and DIR/suite.json (the manifest with the\n"
	"                  importance weights); without -o only the summary is printed\n"
	"  --name SUITE    the suite's name (default: DIR's last component, else the file's)\n"
	"  --min-share F   leave out aggregates below F of the GPU time (default 0.001)\n"
	"  --force         replace a suite already in DIR\n"
	"  --refresh DIR   rewrite only the weights of the suite in DIR from FILE\n"
	"  --json          print one kjudge.trace_import/1 object\n"
	"\n"
	"Phases are the trace's record_function annotations (prefill, decode...); their\n"
	"shapes go to separate tasks.  Exit 0 on success, 1 when the trace cannot be\n"
	"read or the suite cannot be written, 2 on a usage error.  docs/suites.md.\n";

static char *default_name(const char *dir, const char *file)
{
	const char *src = dir ? dir : file;
	const char *b;
	char buf[64];
	size_t n = 0, len = strlen(src);
	while (len > 1 && src[len - 1] == '/')
		len--;
	b = src + len;
	while (b > src && b[-1] != '/')
		b--;
	for (const char *p = b; p < src + len && n < sizeof(buf) - 1; p++) {
		char c = *p;
		if (!dir && c == '.')
			break;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')
			buf[n++] = c;
		else
			buf[n++] = '_';
	}
	buf[n] = 0;
	return strdup(n ? buf : "trace");
}

static void print_text(const kj_trace *t, const kj_suite *s, const char *dir)
{
	printf("trace %s: %d kernels, %.3f ms GPU time, %d cpu ops; phases:", t->path, t->kernels,
	       t->total_us / 1000, t->cpu_ops);
	for (int i = 0; i < t->nphases; i++)
		printf(" %s", t->phases[i]);
	printf("\nattribution: %d kernels through their runtime launch, %d by External id, %d without an operator\n",
	       t->by_correlation, t->by_external_id, t->unattributed);
	printf("suite %s%s%s: %d tasks, %d shapes, covering %.2f%% of the GPU time\n", s->name,
	       dir ? " -> " : " (not written: no -o)", dir ? dir : "", s->ntasks, s->nshapes,
	       100 * s->mapped_share);
	printf("  left out below --min-share %g: %.2f%%; unmapped: %.2f%%\n", s->min_share,
	       100 * s->below_share, 100 * s->unmapped_share);
	printf("tasks (share of GPU time, suite weight, shapes):\n");
	for (int i = 0; i < s->ntasks; i++)
		printf("  %-34s %6.2f%%  %.4f  %2d  %s\n", s->tasks[i].name, 100 * s->tasks[i].share,
		       s->tasks[i].weight, s->tasks[i].nshapes, s->tasks[i].op);
	if (s->nunmapped)
		printf("unmapped operators (share of GPU time, kernels, why):\n");
	for (int i = 0; i < s->nunmapped; i++)
		printf("  %-34s %6.2f%%  %4d  %s\n", s->unmapped[i].op, 100 * s->unmapped[i].share,
		       s->unmapped[i].kernels, s->unmapped[i].reason);
}

static int trace_import(int argc, char **argv)
{
	static const struct option lo[] = { { "output", 1, 0, 'o' },  { "name", 1, 0, 'n' },
					    { "min-share", 1, 0, 'm' }, { "refresh", 1, 0, 'r' },
					    { "force", 0, 0, 'f' },     { "json", 0, 0, 'j' },
					    { "help", 0, 0, 'h' },      { 0, 0, 0, 0 } };
	const char *dir = NULL, *refresh = NULL, *name = NULL;
	double min_share = 0.001;
	int c, json = 0, force = 0, rc;
	kj_trace *t = NULL;
	kj_suite *s = NULL;
	struct kj_suite_opts o;
	struct kj_err err;
	char *nm;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:", lo, NULL)) != -1) {
		char *end;
		switch (c) {
		case 'o':
			dir = optarg;
			break;
		case 'n':
			name = optarg;
			break;
		case 'm':
			min_share = strtod(optarg, &end);
			if (*end || !(min_share >= 0 && min_share < 1))
				return kj_cli_usage_error("trace import", "--min-share wants a number in [0, 1), not '%s'", optarg);
			break;
		case 'r':
			refresh = optarg;
			break;
		case 'f':
			force = 1;
			break;
		case 'j':
			json = 1;
			break;
		case 'h':
			fputs(trace_usage, stdout);
			return KJ_EXIT_OK;
		default:
			return kj_cli_usage_error("trace import", "unknown option");
		}
	}
	if (optind == argc)
		return kj_cli_usage_error("trace import", "missing FILE (a torch.profiler trace)");
	if (optind + 1 != argc)
		return kj_cli_usage_error("trace import", "unexpected argument '%s'", argv[optind + 1]);
	if (refresh && (dir || name || force))
		return kj_cli_usage_error("trace import", "--refresh takes no -o, --name or --force");
	if (name) {
		for (const char *p = name; *p; p++)
			if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			      (*p >= '0' && *p <= '9') || *p == '_' || *p == '-'))
				return kj_cli_usage_error("trace import", "--name '%s': letters, digits, '_' and '-' only", name);
	}
	kj_err_init(&err);
	if (kj_trace_load(argv[optind], &t, &err)) {
		fprintf(stderr, "kjudge trace import: %s\n", err.msg);
		return KJ_EXIT_FAIL;
	}
	nm = name ? strdup(name) : default_name(dir ? dir : refresh, argv[optind]);
	o.name = nm;
	o.min_share = refresh ? 0 : min_share;
	if (!nm || kj_suite_build(t, &o, &s, &err)) {
		fprintf(stderr, "kjudge trace import: %s\n", nm ? err.msg : "out of memory");
		free(nm);
		kj_trace_free(t);
		return KJ_EXIT_FAIL;
	}
	free(nm);
	rc = KJ_EXIT_OK;
	if (refresh) {
		struct kj_suite_refresh_info ri;
		if (kj_suite_refresh(s, refresh, &ri, &err)) {
			fprintf(stderr, "kjudge trace import: %s\n", err.msg);
			rc = KJ_EXIT_FAIL;
		} else if (json) {
			json_t *jo = json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:f, s:i, s:f}", "schema",
					       "kjudge.trace_refresh/1", "trace", t->path, "dir", refresh,
					       "tasks", ri.tasks, "shapes", ri.shapes, "shapes_found",
					       ri.shapes_found, "coverage", ri.covered_share, "new_shapes",
					       ri.new_shapes, "new_share", ri.new_share);
			char *text = jo ? json_dumps(jo, JSON_REAL_PRECISION(17)) : NULL;
			if (text)
				puts(text);
			free(text);
			json_decref(jo);
		} else {
			printf("refreshed %s from %s: %d tasks, %d of %d shapes found, covering %.2f%% of the GPU time\n",
			       refresh, t->path, ri.tasks, ri.shapes_found, ri.shapes, 100 * ri.covered_share);
			printf("  shapes of the new trace not in the suite: %d (%.2f%%; import again to add them)\n",
			       ri.new_shapes, 100 * ri.new_share);
		}
	} else {
		if (dir && kj_suite_write(s, dir, force, &err)) {
			fprintf(stderr, "kjudge trace import: %s\n", err.msg);
			rc = KJ_EXIT_FAIL;
		} else if (json) {
			char *text;
			if (kj_suite_summary_json(t, s, dir, &text, &err)) {
				fprintf(stderr, "kjudge trace import: %s\n", err.msg);
				rc = KJ_EXIT_FAIL;
			} else {
				puts(text);
				free(text);
			}
		} else {
			print_text(t, s, dir);
		}
	}
	kj_suite_free(s);
	kj_trace_free(t);
	return rc;
}

int cmd_trace(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(trace_usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? KJ_EXIT_USAGE : KJ_EXIT_OK;
	}
	if (!strcmp(argv[1], "import"))
		return trace_import(argc - 1, argv + 1);
	return kj_cli_usage_error("trace", "unknown subcommand '%s' (import)", argv[1]);
}
