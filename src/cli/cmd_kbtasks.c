/* kjudge tasks --kernelbench DIR: the problems of a KernelBench checkout as
 * tasks (docs/kernelbench.md, "KernelBench problem files as tasks"): level,
 * number, name and, from the describe step (cached), the shapes. */
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "kjudge/python.h"

struct kb_entry {
	int level, number;
	char name[256], path[4600];
};

static int cmp_entry(const void *a, const void *b)
{
	const struct kb_entry *x = a, *y = b;
	if (x->level != y->level)
		return x->level - y->level;
	if (x->number != y->number)
		return x->number - y->number;
	return strcmp(x->name, y->name);
}

/* "x0 f32[16, 16384] -> y0 f32[16, 16384]" (tensors only: scalars are not
 * the task's values) */
static void shapes_of(const kj_task *t, char *buf, size_t len)
{
	size_t off = 0;
	buf[0] = '\0';
	for (int i = 0; i < t->nvals; i++) {
		const kj_value *v = &t->vals[i];
		const char *sep = i == 0 ? "" :
				  v->kind == KJ_V_OUTPUT && t->vals[i - 1].kind != KJ_V_OUTPUT ? " -> " : ", ";
		int w = snprintf(buf + off, len - off, "%s%s %s[", sep, v->name, kj_dtype_name(v->dtype));
		if (w < 0 || (size_t)w >= len - off)
			return;
		off += (size_t)w;
		for (int d = 0; d < v->rank; d++) {
			w = snprintf(buf + off, len - off, "%s%lld", d ? ", " : "", (long long)v->dims[d]->ival);
			if (w < 0 || (size_t)w >= len - off)
				return;
			off += (size_t)w;
		}
		w = snprintf(buf + off, len - off, "]");
		if (w < 0 || (size_t)w >= len - off)
			return;
		off += (size_t)w;
	}
}

int kj_cli_kb_tasks(const char *dir, int level, int shapes, int json)
{
	char base[4200], ldir[4300];
	struct kb_entry *e = NULL;
	int n = 0, cap = 0;
	json_t *arr = json_array();
	char inc[4200];
	snprintf(inc, sizeof(inc), "%s/include/candidate", kj_cli_root());
	snprintf(base, sizeof(base), "%s/KernelBench", dir);
	{
		DIR *d = opendir(base);
		if (!d)
			snprintf(base, sizeof(base), "%s", dir);
		else
			closedir(d);
	}
	for (int l = 1; l <= 9; l++) {
		DIR *d;
		struct dirent *de;
		if (level && l != level)
			continue;
		snprintf(ldir, sizeof(ldir), "%s/level%d", base, l);
		if (!(d = opendir(ldir)))
			continue;
		while ((de = readdir(d))) {
			size_t nl = strlen(de->d_name);
			if (nl < 4 || strcmp(de->d_name + nl - 3, ".py") || de->d_name[0] == '.')
				continue;
			if (n == cap) {
				struct kb_entry *ne = realloc(e, (size_t)(cap = cap ? 2 * cap : 64) * sizeof(*e));
				if (!ne) {
					closedir(d);
					free(e);
					json_decref(arr);
					fprintf(stderr, "kjudge tasks: out of memory\n");
					return KJ_EXIT_JUDGE;
				}
				e = ne;
			}
			e[n].level = l;
			e[n].number = atoi(de->d_name);
			snprintf(e[n].name, sizeof(e[n].name), "%.*s", (int)(nl - 3), de->d_name);
			snprintf(e[n].path, sizeof(e[n].path), "%s/%s", ldir, de->d_name);
			n++;
		}
		closedir(d);
	}
	if (n == 0) {
		json_decref(arr);
		free(e);
		return kj_cli_usage_error("tasks", "no KernelBench problems (levelN/*.py) under '%s'", dir);
	}
	qsort(e, (size_t)n, sizeof(*e), cmp_entry);
	for (int i = 0; i < n; i++) {
		const char *us = strchr(e[i].name, '_');
		json_t *o = json_object();
		char id[400], sh[2048] = "";
		kj_task *t = NULL;
		struct kj_err err;
		kj_err_init(&err);
		snprintf(id, sizeof(id), "kernelbench/level%d/%s", e[i].level, e[i].name);
		if (shapes && kj_kb_task_load(e[i].path, NULL, inc, &t, &err) == 0)
			shapes_of(t, sh, sizeof(sh));
		json_object_set_new(o, "id", json_string(id));
		json_object_set_new(o, "level", json_integer(e[i].level));
		json_object_set_new(o, "number", json_integer(e[i].number));
		json_object_set_new(o, "name", json_string(us ? us + 1 : e[i].name));
		json_object_set_new(o, "path", kj_cli_json_string(e[i].path));
		if (t)
			json_object_set_new(o, "shapes", json_string(sh));
		else if (shapes)
			json_object_set_new(o, "error", kj_cli_json_string(err.msg));
		if (json)
			json_array_append_new(arr, o);
		else {
			printf("%-48s L%d #%-4d %-40s %s\n", id, e[i].level, e[i].number, us ? us + 1 : e[i].name,
			       t ? sh : shapes ? "(not described: see --json)" : "");
			json_decref(o);
		}
		kj_task_free(t);
	}
	free(e);
	if (json) {
		char *s = json_dumps(arr, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		puts(s ? s : "[]");
		free(s);
	}
	json_decref(arr);
	return KJ_EXIT_OK;
}
