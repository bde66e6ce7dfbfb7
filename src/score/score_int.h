/*
 * Internals of the scores shared between their files, not part of the
 * public API.
 */
#ifndef KJ_SCORE_INT_H
#define KJ_SCORE_INT_H

#include <jansson.h>

#include "kjudge/score.h"

/* Reads the verdict JSON v's speedup interval and noise floor into c
 * (speedup_lo, speedup_hi, noise_floor; NAN where v has none: a verdict
 * judged before they existed, or one not timed).  intervals.c */
void kj_score_read_interval(struct kj_score_cand *c, json_t *v);

/* Counts a pair timed in both runs (x in a, y in b) into t's with_intervals
 * and significant; keeps the intervals while it is t's only timed pair. */
void kj_score_cmp_intervals(struct kj_score_cmp_task *t, const struct kj_score_cand *x,
			    const struct kj_score_cand *y);

#endif
