/*
 * The PostgreSQL schema, embedded from src/store/schema_pg.sql as schema.c
 * embeds schema.sql (the path is relative to the repository root, where make
 * runs).
 */
#include "store/schema.h"

__asm__(".pushsection .rodata.kj_store_schema_pg,\"a\"\n"
	".globl kj_store_schema_pg_sql\n"
	".hidden kj_store_schema_pg_sql\n"
	".type kj_store_schema_pg_sql, @object\n"
	"kj_store_schema_pg_sql:\n"
	".incbin \"src/store/schema_pg.sql\"\n"
	".byte 0\n"
	".size kj_store_schema_pg_sql, . - kj_store_schema_pg_sql\n"
	".popsection\n");
