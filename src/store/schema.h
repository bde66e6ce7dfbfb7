/*
 * Internal to the store: the text of src/store/schema.sql, NUL-terminated,
 * embedded at build time by schema.c.  Its migration steps start at lines
 * `-- migrate: N`; kj_schema_steps() splits it (or schema_pg.sql) there.
 */
#ifndef KJ_STORE_SCHEMA_H
#define KJ_STORE_SCHEMA_H

#include <stddef.h>

extern const char kj_store_schema_sql[];
/* The same for PostgreSQL: schema_pg.sql, embedded by schema_pg.c. */
extern const char kj_store_schema_pg_sql[];

/* One migration step: number n, its SQL at sql (len bytes, pointing into
 * the schema text, not NUL-terminated). */
struct kj_schema_step {
	int n;
	const char *sql;
	size_t len;
};

#define KJ_SCHEMA_MAX_STEPS 64

/* Splits schema at its `-- migrate: N` lines into st[0..cap).  Returns the
 * number of steps, or -1 when there are more than cap or they are not
 * numbered 1, 2, 3... in order. */
int kj_schema_steps(const char *schema, struct kj_schema_step *st, int cap);

#endif
