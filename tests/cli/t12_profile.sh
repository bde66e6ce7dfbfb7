#!/usr/bin/env bash
# KJUDGE_PROFILE=1: workers get the judge's environment (so a profiler's
# injection variables reach them) and verdicts say `unconfined`; without it the
# worker's environment is the minimal one.
. "$(dirname "$0")/lib.sh"

# ReLU that writes NaN unless the judge's variable KJ_PROBE reached the worker
cat >"$TMP/probe.c" <<'C'
#include <stdint.h>
#include <stdlib.h>
void relu(const float *x, float *y, int64_t B, int64_t D)
{
	const char *p = getenv("KJ_PROBE");
	for (int64_t i = 0; i < B * D; i++)
		y[i] = p ? (x[i] > 0 ? x[i] : 0.0f) : 0.0f / 0.0f;
}
C

expect_success 'without KJUDGE_PROFILE the worker does not see the judge environment' '
	KJ_PROBE=1 "$KJ" eval level1/relu "$TMP/probe.c" --backend cpu --no-perf --json >"$TMP/v1.json"
	test "$(json_get "$TMP/v1.json" status)" = mismatch
'
expect_success 'and the verdict is not flagged unconfined' '
	! grep -q unconfined "$TMP/v1.json"
'
expect_success 'with KJUDGE_PROFILE=1 it does, and the candidate passes' '
	KJUDGE_PROFILE=1 KJ_PROBE=1 "$KJ" eval level1/relu "$TMP/probe.c" --backend cpu --no-perf --json >"$TMP/v2.json"
	test "$(json_get "$TMP/v2.json" status)" = pass
'
expect_success 'and the verdict says unconfined' '
	test "$(json_get "$TMP/v2.json" flags)" = "[\"unconfined\"]"
'
done_testing
