/*
 * Internal to the store: the text of src/store/schema.sql, NUL-terminated,
 * embedded at build time by schema.c.  Its migration steps start at lines
 * `-- migrate: N`.
 */
#ifndef KJ_STORE_SCHEMA_H
#define KJ_STORE_SCHEMA_H

extern const char kj_store_schema_sql[];

#endif
