/*
 * Building candidates.  A candidate source becomes a shared object in a
 * content-addressed cache: the key is sha256 over the source, the compiler's
 * identity (its --version text), the flags and the candidate header, so a
 * change to any of them rebuilds and identical inputs never compile twice.
 * Entries are written to a temporary name and renamed, so concurrent judges
 * and crashes never leave a half-written object under a real key.
 *
 * A CUDA candidate is built from nvcc's own steps (`nvcc --dryrun`), with the
 * host's front end (preprocessing, cudafe++) and the device's chain
 * (preprocessing, cicc, ptxas, fatbinary) at once, then the host compile and
 * the links: the same commands nvcc runs one after the other, the same
 * kernels, the same messages in the same order.  A plan of steps that is not
 * the shape this expects is built by one nvcc call, as is every build with
 * one_nvcc set.
 */
#ifndef KJUDGE_COMPILE_H
#define KJUDGE_COMPILE_H

#include <stddef.h>

#include "kjudge/err.h"
#include "kjudge/verdict.h"

struct kj_compile_opts {
	kj_backend backend;
	const char *cache_dir;   /* NULL: $KJUDGE_CACHE, else $XDG_CACHE_HOME/kjudge, else ~/.cache/kjudge */
	const char *include_dir; /* folder holding kjudge_cpu.h (candidate header) */
	const char *arch;        /* CUDA: "sm_90a"; NULL = from the device or sm_90a */
	double timeout_s;        /* compiler wall-clock limit, 0 = 60 s */
	size_t log_cap;          /* compiler output kept, 0 = 16 KiB */
	int no_cache;            /* always rebuild (still writes the cache) */
	int unconfined;          /* run the compiler without the jail (--unsafe-no-sandbox) */
	size_t mem_limit;        /* the compiler's address space per process, 0 = 8 GiB */
	double cpu_limit_s;      /* its CPU time per process, 0 = 120 s */
	size_t fsize_limit;      /* the largest file it may write, 0 = 256 MiB */
	int one_nvcc;            /* CUDA: one nvcc call, its steps one after the other (the
				  * reference of the two-chain build; another cache key) */
};

struct kj_compile_result {
	int ok;              /* 1: so_path holds the object */
	int cached;          /* 1: found in the cache, no compiler run */
	char so_path[4096];
	char key[65];        /* hex sha256 cache key */
	char *log;           /* compiler output (capped), owned: free() */
	double seconds;      /* wall time spent (0 when cached) */
	char limit[256];     /* the compile was stopped by a limit: which, for the verdict's
			      * reason ("" otherwise) */
	char limits[256];    /* the compiler's limits that the caller's hard limits lowered
			      * (kj_rlimit_fit), "" when none or cached */
};

/* Compiles source (len bytes).  Returns 0 when the judge could try (res->ok
 * says whether the candidate compiled; a failed compile is the candidate's
 * fault, not an error), or an error code when the judge could not (no
 * compiler, cache not writable). */
int kj_compile(const char *source, size_t len, const struct kj_compile_opts *o,
	       struct kj_compile_result *res, struct kj_err *err);
void kj_compile_result_release(struct kj_compile_result *res);

/* The cache folder: override, else $KJUDGE_CACHE, else $XDG_CACHE_HOME/kjudge,
 * else ~/.cache/kjudge.  Compiled objects, baseline timings and device
 * calibrations live under it. */
int kj_cache_dir(const char *override, char *out, size_t n, struct kj_err *err);

/* Static stage on a built shared object: its undefined dynamic symbols are
 * matched against the policy.  Fills *verdict: 0 allowed, 1 flagged fallback,
 * 2 rejected; reason names the symbol and why ("calls fork: new processes are
 * not allowed"); libs lists fallback libraries (comma separated). */
struct kj_symcheck {
	int verdict;
	char reason[256];
	char libs[256];
	int nundef;
};
int kj_symcheck_so(const char *so_path, kj_backend b, struct kj_symcheck *out, struct kj_err *err);

#endif
