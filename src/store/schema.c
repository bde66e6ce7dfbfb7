/*
 * The store's schema, embedded from src/store/schema.sql so that the SQL file
 * stays the one definition (docs/store.md explains the migration steps).
 * The assembler's .incbin copies the file's bytes into read-only data at
 * build time and a NUL is appended, giving kj_store_schema_sql[] as a C
 * string; the path is relative to the repository root, where make runs.
 */
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
