/*
 * Inside src/trace: mapping one aggregate of a trace to the text of a task
 * (map.c) and a small growing string (sb).
 */
#ifndef KJ_TRACE_INTERNAL_H
#define KJ_TRACE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "kjudge/trace.h"

struct sb {
	char *p;
	size_t n, cap;
	int oom;
};
void sb_printf(struct sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_release(struct sb *b);

#define MAP_MAX_SYMS 12

/* What one aggregate becomes: the parts of a task and the aggregate's shape,
 * or the reason it has no task. */
struct map {
	int ok;
	char reason[200];
	char base[64];        /* "linear_bf16" */
	const char *category;
	char about[240];
	struct sb decl, body; /* declaration and statement lines */
	char tol[64];         /* "" or a tol line */
	int nsym;
	char sym[MAP_MAX_SYMS][8];
	int64_t val[MAP_MAX_SYMS];
	int64_t big[MAP_MAX_SYMS]; /* sizes check shapes may give the symbol (0: any) */
};

/* Maps a; m is initialised here and released by map_release. */
void map_agg(const struct kj_trace_agg *a, struct map *m);
void map_release(struct map *m);

#endif
