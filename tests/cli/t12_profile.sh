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

# ReLU that writes NaN unless the worker's file-size and descriptor limits
# are the sandbox's (1 MiB, 64; KJ_WANT=sandbox) or the judge's own
# (KJ_WANT=judge: profile mode, for a profiler's buffers and descriptors)
cat >"$TMP/limits.c" <<'C'
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
void relu(const float *x, float *y, int64_t B, int64_t D)
{
	struct rlimit f, n;
	const char *want = getenv("KJ_WANT");
	int ok = getrlimit(RLIMIT_FSIZE, &f) == 0 && getrlimit(RLIMIT_NOFILE, &n) == 0;
	if (!want || !strcmp(want, "sandbox"))
		ok = ok && f.rlim_cur == (rlim_t)1 << 20 && n.rlim_cur == 64;
	else
		ok = ok && f.rlim_cur == (rlim_t)strtoull(getenv("KJ_FSIZE"), NULL, 10) &&
		     n.rlim_cur == (rlim_t)strtoull(getenv("KJ_NOFILE"), NULL, 10);
	for (int64_t i = 0; i < B * D; i++)
		y[i] = ok ? (x[i] > 0 ? x[i] : 0.0f) : 0.0f / 0.0f;
}
C
expect_success 'without KJUDGE_PROFILE the worker has the sandbox limits: 1 MiB files, 64 descriptors' '
	"$KJ" eval level1/relu "$TMP/limits.c" --backend cpu --no-perf --json >"$TMP/v3.json"
	test "$(json_get "$TMP/v3.json" status)" = pass
'
expect_success 'and its verdict has no flags (the worker itself maps no library the judge flags as a fallback)' '
	test "$(json_get "$TMP/v3.json" flags)" = "[]"
'
expect_success 'with KJUDGE_PROFILE=1 it keeps the judge limits' '
	test "$(ulimit -n)" -gt 64 &&
	KJUDGE_PROFILE=1 KJ_WANT=judge KJ_NOFILE=$(ulimit -n) \
		KJ_FSIZE=$(python3 -c "import resource; print(resource.getrlimit(resource.RLIMIT_FSIZE)[0] % 2**64)") \
		"$KJ" eval level1/relu "$TMP/limits.c" --backend cpu --no-perf --json >"$TMP/v4.json"
	test "$(json_get "$TMP/v4.json" status)" = pass
'
done_testing
