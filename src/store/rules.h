/*
 * Internal to the store: the checks that both backends (store.c on SQLite,
 * pg.c on PostgreSQL) make before writing or copying a verdict, once the
 * backend has read the candidates' state.  Plain logic, no SQL; each returns
 * 0, or KJ_E_USAGE with the message in err.
 */
#ifndef KJ_STORE_RULES_H
#define KJ_STORE_RULES_H

#include <stdint.h>
#include <string.h>

#include "kjudge/err.h"
#include "kjudge/store.h"

/* A verdict for candidate cid (of run run_id; has: it has one already),
 * written with options o (may be NULL). */
static inline int kj_store_check_put(int64_t cid, int64_t run_id, int has,
				     const struct kj_store_verdict_opts *o, struct kj_err *err)
{
	if (has)
		return kj_err_set(err, KJ_E_USAGE, "store: candidate %lld already has a verdict",
				  (long long)cid);
	if (o && o->run_id > 0 && o->run_id != run_id)
		return kj_err_set(err, KJ_E_USAGE, "store: candidate %lld is not in run %lld",
				  (long long)cid, (long long)o->run_id);
	return 0;
}

/* The verdict of candidate `from` reused for `to`: from must have one, to
 * must not, and both must be the same task and source (task id, sha256). */
static inline int kj_store_check_copy(int64_t from, int fhas, const char *ftask, const char *fsha,
				      int64_t to, int thas, const char *ttask, const char *tsha,
				      struct kj_err *err)
{
	if (!fhas)
		return kj_err_set(err, KJ_E_USAGE, "store: candidate %lld has no verdict to copy",
				  (long long)from);
	if (thas)
		return kj_err_set(err, KJ_E_USAGE, "store: candidate %lld already has a verdict",
				  (long long)to);
	if (strcmp(ftask, ttask) || strcmp(fsha, tsha))
		return kj_err_set(err, KJ_E_USAGE,
				  "store: candidates %lld and %lld differ in task or source: no reuse",
				  (long long)from, (long long)to);
	return 0;
}

#endif
