/*
 * docs/ops.md's index of ops (the block between <!-- ops-index:begin --> and
 * <!-- ops-index:end -->, written by tests/ops_index.py) against the
 * registry: every op of kj_op_table has a row, every row names an op of the
 * registry, and every file a row names exists.  Then the same check on
 * planted indexes, which it must reject: a row missing, a file that is not
 * there.  Run from the top of the tree (KJ_ROOT overrides).
 */
#include "kjudge/fsutil.h"
#include "kjudge/ops.h"
#include "tap.h"

#include <stdlib.h>
#include <unistd.h>

#define BEGIN "<!-- ops-index:begin -->"
#define END "<!-- ops-index:end -->"

/* The text of cell `col` (0-based) of a table row "| `a` | `b` | ..." into
 * out, without the backquotes; returns 0 when the row has no such cell. */
static int cell(const char *row, int col, char *out, size_t len)
{
	const char *p = row, *e;
	for (int c = 0; c <= col; c++) {
		p = strchr(p, '|');
		if (!p)
			return 0;
		p++;
	}
	e = strchr(p, '|');
	if (!e)
		return 0;
	while (p < e && (*p == ' ' || *p == '`'))
		p++;
	while (e > p && (e[-1] == ' ' || e[-1] == '`'))
		e--;
	if ((size_t)(e - p) >= len)
		return 0;
	memcpy(out, p, (size_t)(e - p));
	out[e - p] = 0;
	return 1;
}

/* The row of op `name` in the index block [b, e), or NULL. */
static const char *find_row(const char *b, const char *e, const char *name)
{
	char pat[96];
	snprintf(pat, sizeof(pat), "\n| `%s` |", name);
	const char *r = strstr(b, pat);
	return r && r < e ? r + 1 : NULL;
}

/* Problems of index text `doc` against the registry and the files under
 * root, each printed as a TAP comment; returns their count (0: clean). */
static int index_problems(const char *doc, const char *root)
{
	const char *b = strstr(doc, BEGIN), *e = b ? strstr(b, END) : NULL;
	const kj_op *ops;
	int nops, bad = 0;

	if (!b || !e) {
		printf("#   no %s ... %s block\n", BEGIN, END);
		return 1;
	}
	ops = kj_op_table(&nops);
	for (int i = 0; i < nops; i++)
		if (!find_row(b, e, ops[i].name)) {
			printf("#   op %s is registered but has no row in the index\n", ops[i].name);
			bad++;
		}
	for (const char *r = strstr(b, "\n| `"); r && r < e; r = strstr(r + 1, "\n| `")) {
		char name[64], path[512], file[256];
		if (!cell(r + 1, 0, name, sizeof(name))) {
			printf("#   a row of the index has no op cell\n");
			bad++;
			continue;
		}
		if (!kj_op_find(name)) {
			printf("#   the index names op %s, which is not registered\n", name);
			bad++;
		}
		for (int c = 1; c <= 3; c++) {
			if (!cell(r + 1, c, file, sizeof(file))) {
				printf("#   the row of %s has no cell %d\n", name, c);
				bad++;
				continue;
			}
			snprintf(path, sizeof(path), "%s/%s", root, file);
			if (access(path, R_OK) != 0) {
				printf("#   the row of %s names %s, which does not exist\n", name, file);
				bad++;
			}
		}
	}
	return bad;
}

/* doc with the first occurrence of `from` replaced by `to` (caller frees). */
static char *plant(const char *doc, const char *from, const char *to)
{
	const char *p = strstr(doc, from);
	size_t n = strlen(doc) - strlen(from) + strlen(to) + 1;
	char *out = malloc(n);
	if (!p || !out) {
		free(out);
		return NULL;
	}
	snprintf(out, n, "%.*s%s%s", (int)(p - doc), doc, to, p + strlen(from));
	return out;
}

int main(void)
{
	const char *root = getenv("KJ_ROOT") ? getenv("KJ_ROOT") : ".";
	char path[512], *doc, *bad;
	const char *row;

	snprintf(path, sizeof(path), "%s/docs/ops.md", root);
	doc = kj_read_file(path, NULL);
	if (!ok(doc != NULL, "read %s", path))
		return done_testing();
	is_int(index_problems(doc, root), 0,
	       "every registered op has a row, every row a registered op, every file exists");

	/* a registered op with no row: the row of cumsum dropped */
	row = strstr(doc, "\n| `cumsum` |");
	ok(row != NULL, "the index has a row for cumsum");
	if (row) {
		const char *end = strchr(row + 1, '\n');
		char cut[512];
		snprintf(cut, sizeof(cut), "%.*s", (int)(end - row), row);
		bad = plant(doc, cut, "");
		ok(bad && index_problems(bad, root) == 1, "an index without cumsum's row is rejected");
		free(bad);
	}
	/* a file that is not there */
	bad = plant(doc, "| `src/ops/cuda/ops_scan.cu` |", "| `src/ops/cuda/ops_nowhere.cu` |");
	ok(bad && index_problems(bad, root) == 1, "an index naming a missing file is rejected");
	free(bad);
	free(doc);
	return done_testing();
}
