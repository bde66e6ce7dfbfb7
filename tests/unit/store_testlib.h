/* The store tests' folder and their one-number SQL reads.  Included by
 * test_store.c and test_record.c, each of which creates `dir` (mkdtemp)
 * before its first tmp_path. */
#ifndef KJ_TEST_STORE_TESTLIB_H
#define KJ_TEST_STORE_TESTLIB_H

#include <sqlite3.h>
#include <stdio.h>

#include "kjudge/store.h"

static char dir[256];

/* dir/name, in one of four rotating buffers (so a call's two paths differ) */
static const char *tmp_path(const char *name)
{
	static char p[4][512];
	static int k;
	k = (k + 1) % 4;
	snprintf(p[k], sizeof(p[k]), "%s/%s", dir, name);
	return p[k];
}

/* The first column of the first row of sql on s's SQLite database; -1
 * without a row, -2 when the statement does not prepare. */
static long long q_int(kj_db *s, const char *sql)
{
	sqlite3_stmt *st;
	long long v = -1;
	if (sqlite3_prepare_v2(kj_store_sqlite(s), sql, -1, &st, NULL) != SQLITE_OK)
		return -2;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

#endif
