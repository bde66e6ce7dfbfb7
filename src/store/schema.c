/*
 * The store's schema, embedded from src/store/schema.sql so that the SQL file
 * stays the one definition (docs/store.md explains the migration steps).
 * The assembler's .incbin copies the file's bytes into read-only data at
 * build time and a NUL is appended, giving kj_store_schema_sql[] as a C
 * string; the path is relative to the repository root, where make runs.
 * kj_schema_steps() serves both backends' migrations.
 */
#include <stdlib.h>
#include <string.h>

#include "store/schema.h"

__asm__(".pushsection .rodata.kj_store_schema,\"a\"\n"
	".globl kj_store_schema_sql\n"
	".hidden kj_store_schema_sql\n"
	".type kj_store_schema_sql, @object\n"
	"kj_store_schema_sql:\n"
	".incbin \"src/store/schema.sql\"\n"
	".byte 0\n"
	".size kj_store_schema_sql, . - kj_store_schema_sql\n"
	".popsection\n");

int kj_schema_steps(const char *schema, struct kj_schema_step *st, int cap)
{
	static const char mark[] = "-- migrate: ";
	const char *p = schema;
	int n = 0;
	while (p && *p) {
		const char *eol = strchr(p, '\n');
		const char *next = eol ? eol + 1 : p + strlen(p);
		if (!strncmp(p, mark, sizeof(mark) - 1)) {
			if (n == cap)
				return -1;
			st[n].n = atoi(p + sizeof(mark) - 1);
			st[n].sql = next;
			if (n)
				st[n - 1].len = (size_t)(p - st[n - 1].sql);
			n++;
		}
		p = next;
	}
	if (n)
		st[n - 1].len = strlen(st[n - 1].sql);
	for (int i = 0; i < n; i++)
		if (st[i].n != i + 1)
			return -1;
	return n;
}
