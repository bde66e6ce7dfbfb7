/* kjudge tasks / show / ops: looking at the suite and the op registry. */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

static void print_json(json_t *o)
{
	char *s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9));
	if (s)
		puts(s);
	free(s);
	json_decref(o);
}

int cmd_tasks(int argc, char **argv)
{
	static const struct option lo[] = { { "level", 1, 0, 'l' }, { "category", 1, 0, 'c' },
					    { "suite", 1, 0, 's' }, { "json", 0, 0, 'j' },
					    { "kernelbench", 1, 0, 'k' }, { "no-shapes", 0, 0, 'n' },
					    { "help", 0, 0, 'h' }, { 0, 0, 0, 0 } };
	const char *kbdir = NULL;
	int shapes = 1;
	int level = 0, json = 0, c, n, bad = 0, shown = 0, in_suite, seen_level = 0, seen_cat = 0, seen_suite = 0;
	char cats[1024] = "";
	const char *cat = NULL, *suite = NULL;
	char **paths;
	struct kj_err err;
	json_t *arr = json_array();
	optind = 1;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'l': {
			char *end;
			long l;
			errno = 0;
			l = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || l < 1 || l > 1000) {
				json_decref(arr);
				return kj_cli_usage_error("tasks", "--level wants a level number (1, 2, 3...), got '%s'",
							  optarg);
			}
			level = (int)l;
			break;
		}
		case 'c':
			cat = optarg;
			break;
		case 's':
			suite = optarg;
			break;
		case 'j':
			json = 1;
			break;
		case 'k':
			kbdir = optarg;
			break;
		case 'n':
			shapes = 0;
			break;
		case 'h':
			puts("usage: kjudge tasks [--level N] [--category C] [--suite S] [--json]\n"
			     "       kjudge tasks --kernelbench DIR [--level N] [--no-shapes] [--json]\n\n"
			     "--kernelbench DIR lists the problem files of a KernelBench checkout as tasks (level,\n"
			     "number, name, and their shapes from the describe step, which needs torch and a GPU;\n"
			     "--no-shapes: without it).\n"
			     "Lists every task under tasks/ (a suite is a folder there: level1, level2...).\n"
			     "Every task is parsed and checked; a task that fails to load is reported and\n"
			     "makes the command exit 2 (a task error).");
			json_decref(arr);
			return KJ_EXIT_OK;
		default:
			json_decref(arr);
			return kj_cli_usage_error("tasks", "unknown option");
		}
	}
	if (optind < argc) {
		json_decref(arr);
		return kj_cli_usage_error("tasks", "unexpected argument '%s'", argv[optind]);
	}
	if (kbdir) {
		json_decref(arr);
		if (cat || suite)
			return kj_cli_usage_error("tasks", "--kernelbench takes --level, not --category or --suite");
		return kj_cli_kb_tasks(kbdir, level, shapes, json);
	}
	kj_err_init(&err);
	if (kj_cli_list_tasks(&paths, &n, &err)) {
		fprintf(stderr, "kjudge tasks: %s\n", err.msg);
		json_decref(arr);
		return KJ_EXIT_JUDGE;
	}
	for (int i = 0; i < n; i++) {
		kj_task *t;
		kj_err_init(&err);
		if (kj_task_load(paths[i], &t, &err)) {
			fprintf(stderr, "kjudge tasks: %s\n", err.msg);
			bad++;
			continue;
		}
		in_suite = suite && !strncmp(t->id, suite, strlen(suite)) && t->id[strlen(suite)] == '/';
		seen_level |= t->level == level;
		seen_suite |= in_suite;
		if (cat && !strcmp(cat, t->category))
			seen_cat = 1;
		else if (cat && !strstr(cats, t->category) && strlen(cats) + strlen(t->category) + 3 < sizeof(cats))
			snprintf(cats + strlen(cats), sizeof(cats) - strlen(cats), "%s%s", cats[0] ? ", " : "",
				 t->category);
		if ((level && t->level != level) || (cat && strcmp(cat, t->category)) || (suite && !in_suite)) {
			kj_task_free(t);
			continue;
		}
		shown++;
		{
			json_t *o = json_object();
			json_object_set_new(o, "task", kj_cli_json_string(t->id));
			json_object_set_new(o, "name", kj_cli_json_string(t->name));
			json_object_set_new(o, "level", json_integer(t->level));
			json_object_set_new(o, "category", kj_cli_json_string(t->category));
			json_object_set_new(o, "about", kj_cli_json_string(t->about));
			json_object_set_new(o, "path", kj_cli_json_string(t->path));
			json_array_append_new(arr, o);
		}
		kj_task_free(t);
	}
	kj_cli_free_list(paths, n);
	/* a filter that names nothing is a typo, not an empty list */
	if ((level && !seen_level) || (cat && !seen_cat) || (suite && !seen_suite)) {
		json_decref(arr);
		if (level && !seen_level)
			return kj_cli_usage_error("tasks", "no task has level %d", level);
		if (cat && !seen_cat)
			return kj_cli_usage_error("tasks", "no task has category '%s' (categories: %s)", cat, cats);
		return kj_cli_usage_error("tasks", "no suite '%s' under tasks/ (a suite is a folder there: level1, "
					  "level2...)", suite);
	}
	if (json)
		print_json(arr);
	else {
		size_t k;
		json_t *o;
		printf("%-34s %-5s %-15s %s\n", "TASK", "LEVEL", "CATEGORY", "ABOUT");
		json_array_foreach(arr, k, o)
			printf("%-34s %-5d %-15s %s\n", json_string_value(json_object_get(o, "task")),
			       (int)json_integer_value(json_object_get(o, "level")),
			       json_string_value(json_object_get(o, "category")),
			       json_string_value(json_object_get(o, "about")));
		json_decref(arr);
		printf("%d task%s\n", shown, shown == 1 ? "" : "s");
	}
	return bad ? KJ_EXIT_USAGE : KJ_EXIT_OK;
}

static const char *kind_name(kj_value_kind k)
{
	return k == KJ_V_INPUT ? "input" : k == KJ_V_PARAM ? "param" : k == KJ_V_OUTPUT ? "output" : "temp";
}

static void decl_text(const kj_task *t, const kj_value *v, char *buf, size_t len)
{
	kj_plan p;
	size_t off = (size_t)snprintf(buf, len, "%s[", kj_dtype_name(v->dtype));
	(void)t;
	(void)p;
	for (int k = 0; k < v->rank && off < len; k++) {
		const kj_expr *e = v->dims[k];
		if (e->kind == KJ_X_IDENT)
			off += (size_t)snprintf(buf + off, len - off, "%s%s", k ? ", " : "", e->name);
		else if (e->kind == KJ_X_INT)
			off += (size_t)snprintf(buf + off, len - off, "%s%lld", k ? ", " : "", (long long)e->ival);
		else
			off += (size_t)snprintf(buf + off, len - off, "%s(expr)", k ? ", " : "");
	}
	if (off < len)
		snprintf(buf + off, len - off, "]");
}

int cmd_show(int argc, char **argv)
{
	static const struct option lo[] = { { "json", 0, 0, 'j' }, { "help", 0, 0, 'h' }, { 0, 0, 0, 0 } };
	int json = 0, c;
	kj_task *t;
	struct kj_err err;
	static char proto[KJ_PROTO_MAX], cproto[KJ_PROTO_MAX];
	json_t *o, *shapes;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		if (c == 'j')
			json = 1;
		else if (c == 'h') {
			puts("usage: kjudge show TASK [--json]\n\n"
			     "Prints a task: its tensors, shapes (check, bench, bench cpu) with FLOPs and\n"
			     "minimum bytes per shape, and the candidate prototypes of both tracks.");
			return KJ_EXIT_OK;
		} else
			return kj_cli_usage_error("show", "unknown option");
	}
	if (optind != argc - 1)
		return kj_cli_usage_error("show", "expected one TASK");
	kj_err_init(&err);
	if (kj_cli_load_task(argv[optind], &t, &err)) {
		fprintf(stderr, "kjudge show: %s\n", err.msg);
		return kj_cli_task_exit(err.code);
	}
	if (kj_task_prototype(t, 0, cproto, sizeof(cproto)) || kj_task_prototype(t, 1, proto, sizeof(proto))) {
		fprintf(stderr, "kjudge show: %s: the prototype does not fit in %zu bytes\n", t->id,
			sizeof(proto));
		kj_task_free(t);
		return KJ_EXIT_JUDGE;
	}
	o = json_object();
	shapes = json_array();
	json_object_set_new(o, "task", kj_cli_json_string(t->id));
	json_object_set_new(o, "name", kj_cli_json_string(t->name));
	json_object_set_new(o, "level", json_integer(t->level));
	json_object_set_new(o, "category", kj_cli_json_string(t->category));
	json_object_set_new(o, "about", kj_cli_json_string(t->about));
	json_object_set_new(o, "baseline_math", json_string(t->tf32 ? "tf32" : "strict-f32"));
	if (!json) {
		printf("task      %s (%s)\nlevel     %d\ncategory  %s\nabout     %s\n%s\n", t->id, t->name,
		       t->level, t->category, t->about,
		       t->tf32 ? "math      tf32 allowed: the GPU baseline's f32 matmuls and convolutions use TF32\n" : "");
		for (int i = 0; i < t->nvals; i++) {
			const kj_value *v = &t->vals[i];
			char d[256];
			if (v->kind == KJ_V_TEMP || v->kind == KJ_V_CONST)
				continue;
			decl_text(t, v, d, sizeof(d));
			printf("%-7s %-10s %s%s%s\n", kind_name(v->kind), v->name, d,
			       v->kind == KJ_V_OUTPUT ? "" : " ~ ",
			       v->kind == KJ_V_OUTPUT ? "" : kj_dist_name(v->dist));
		}
		printf("\n%-10s %-40s %8s %14s %14s\n", "SHAPE", "DIMS", "WEIGHT", "GFLOP", "MIN MB");
	}
	for (int b = 0; b < t->nbind; b++) {
		kj_plan p;
		char bs[256];
		const char *kind = t->binds[b].bench == 0 ? "check" : t->binds[b].bench == 1 ? "bench" : "bench cpu";
		if (kj_plan_build(t, b, &p, &err))
			continue;
		kj_binding_str(t, &t->binds[b], bs, sizeof(bs));
		if (json) {
			json_t *s = json_object();
			json_object_set_new(s, "kind", kj_cli_json_string(kind));
			json_object_set_new(s, "dims", kj_cli_json_string(bs));
			json_object_set_new(s, "weight", kj_cli_json_real(t->binds[b].weight));
			json_object_set_new(s, "flops", kj_cli_json_real(p.flops));
			json_object_set_new(s, "min_bytes", kj_cli_json_real(p.min_bytes));
			json_array_append_new(shapes, s);
		} else {
			printf("%-10s %-40s %8.3g %14.4f %14.3f\n", kind, bs, t->binds[b].weight,
			       p.flops / 1e9, p.min_bytes / 1e6);
		}
		kj_plan_release(&p);
	}
	if (json) {
		json_object_set_new(o, "shapes", shapes);
		json_object_set_new(o, "prototype_cpu", kj_cli_json_string(cproto));
		json_object_set_new(o, "prototype_cuda", kj_cli_json_string(proto));
		print_json(o);
	} else {
		json_decref(shapes);
		json_decref(o);
		printf("\nprototype (cpu):  %s;\nprototype (cuda): %s;\n", cproto, proto);
	}
	kj_task_free(t);
	return KJ_EXIT_OK;
}

int cmd_ops(int argc, char **argv)
{
	int n, json = argc > 1 && !strcmp(argv[1], "--json");
	const kj_op *ops = kj_op_table(&n);
	json_t *arr = json_array();
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		puts("usage: kjudge ops [--json]\n\nLists the op registry: each op's signature and semantics.");
		json_decref(arr);
		return KJ_EXIT_OK;
	}
	if (argc > 1 && !json) {
		json_decref(arr);
		return kj_cli_usage_error("ops", "unexpected argument '%s'", argv[1]);
	}
	for (int i = 0; i < n; i++) {
		char sig[512];
		size_t off = (size_t)snprintf(sig, sizeof(sig), "%s(", ops[i].name);
		if (!strcmp(ops[i].name, "copy"))
			continue;
		for (int k = 0; k < ops[i].nparams && off < sizeof(sig); k++)
			off += (size_t)snprintf(sig + off, sizeof(sig) - off, "%s%s%s", k ? ", " : "",
						ops[i].params[k].name, ops[i].params[k].required ? "" : "=...");
		if (off < sizeof(sig))
			snprintf(sig + off, sizeof(sig) - off, ")");
		if (json) {
			json_t *o = json_object();
			json_object_set_new(o, "name", kj_cli_json_string(ops[i].name));
			json_object_set_new(o, "signature", kj_cli_json_string(sig));
			json_object_set_new(o, "doc", kj_cli_json_string(ops[i].doc ? ops[i].doc : ""));
			json_object_set_new(o, "notes", ops[i].notes ? kj_cli_json_string(ops[i].notes) : json_null());
			json_array_append_new(arr, o);
		} else {
			printf("%-44s %s\n", sig, ops[i].doc ? ops[i].doc : "");
		}
	}
	if (json)
		print_json(arr);
	else
		json_decref(arr);
	return KJ_EXIT_OK;
}
