/*
 * The eager baseline's tuning knobs: the KJ_* environment variables that the
 * CUDA baseline (src/ops/cuda/ops_*.cu) reads to pick a kernel variant or a
 * route, for measurements on the device.  One table (src/ops/knobs.c) holds
 * every knob: its name, kind (an integer with a default and a range, or a
 * string with its allowed values), what it changes, and a line on what it
 * does.  Every read of a knob goes through that table (kj_knob_int,
 * kj_knob_str), and tests/cli/t14_knobs.sh checks that every knob read in
 * src/ops is in it.
 *
 * A knob set to a value other than its default changes the baseline's
 * timing, and some its outputs; kj_knobs_key renders those values, and the
 * baseline-timing cache key (src/judge/judge_gpu.c) and the verdict settings
 * (kj_store_cache_key) include it, so that a baseline timed with a knob set
 * is never reused by a default run and the other way round.
 *
 * Nothing here allocates; the table is static and read-only.
 */
#ifndef KJUDGE_KNOBS_H
#define KJUDGE_KNOBS_H

#include <stddef.h>
#include <stdint.h>

#include "kjudge/err.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { KJ_KNOB_INT, KJ_KNOB_STR } kj_knob_kind;

/* What a knob set to another value changes: the baseline's outputs (another
 * kernel or summation order, hence other roundings) and its time; its time
 * only (the same arithmetic, element by element); or nothing but a debug
 * line on stderr (never part of a key). */
typedef enum { KJ_KNOB_RESULTS, KJ_KNOB_TIMING, KJ_KNOB_LOG } kj_knob_effect;

typedef struct kj_knob {
	const char *name;      /* "KJ_RED_BPS" */
	kj_knob_kind kind;
	kj_knob_effect effect;
	int64_t def, lo, hi;   /* KJ_KNOB_INT: default and range, lo <= def <= hi */
	const char *values;    /* KJ_KNOB_STR: allowed values, comma-separated */
	const char *sdef;      /* KJ_KNOB_STR: the default, one of values */
	const char *about;     /* one line: what it does */
} kj_knob;

/* The longest text kj_knobs_key can write, its NUL included. */
#define KJ_KNOBS_KEY_MAX 1024

/* The number of knobs, and knob i (0 <= i < kj_knob_count()), sorted by name. */
int kj_knob_count(void);
const kj_knob *kj_knob_at(int i);
/* The knob named name, or NULL when the table has none. */
const kj_knob *kj_knob_find(const char *name);
/* "results", "timing" or "log". */
const char *kj_knob_effect_name(kj_knob_effect e);

/* Knob name's value for the baseline, read from the environment each call:
 * an integer knob's value when set to an integer within its range, else its
 * default; a string knob's text when set and not empty, else its default
 * (not checked against the allowed values: the caller decides what an
 * unknown value does).  name must be in the table (asserted; an integer
 * knob read as a string or the other way round likewise). */
int64_t kj_knob_int(const char *name);
const char *kj_knob_str(const char *name);

/* Whether k's value in the environment is allowed (unset or empty is: the
 * default).  Writes the value as the key shows it into out (an integer
 * normalised, "08" -> "8"; the default's text when unset) and sets
 * *is_default.  Returns 0, or KJ_E_USAGE with a message naming the knob,
 * its value and the allowed range or values. */
int kj_knob_value(const kj_knob *k, char *out, size_t len, int *is_default, struct kj_err *err);

/* Checks every knob in the environment (kj_knob_value).  Returns 0, or
 * KJ_E_USAGE with the first bad knob's message in err. */
int kj_knobs_check(struct kj_err *err);

/* The knobs that change the baseline (not the log-only ones) set to a
 * value other than their default, sorted by name, as "NAME=value;NAME=value"
 * (the empty string when none is).  len must be at least KJ_KNOBS_KEY_MAX.
 * Returns 0, or KJ_E_USAGE when a knob's value is not allowed (buf then
 * holds the empty string). */
int kj_knobs_key(char *buf, size_t len, struct kj_err *err);

#ifdef __cplusplus
}
#endif

#endif
