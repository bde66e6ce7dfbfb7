#!/usr/bin/env bash
# Red-team behaviour that a case header cannot express (t20_cases.sh judges
# every examples/redteam/*.c by its header, with --no-perf): options
# (--policy strict, --seed-secret), the timing phase, and the class counts
# the suite promises (docs/threat-model.md).
. "$(dirname "$0")/lib.sh"

RT=$KJ_ROOT/examples/redteam

expect_success "the red team has at least 30 cases and every class 1-19" '
	test $(ls "$RT"/*.c "$RT"/*.cu | wc -l) -ge 30 &&
	for c in 01 02 03 04 05 06 07 08 09 10 11 12 13 14 15 16 17 18 19; do
		ls "$RT"/${c}_* >/dev/null 2>&1 || { echo "no case for class $c"; exit 1; }
	done'

expect_success "every red-team case names its class in its comment" '
	for f in "$RT"/*.c "$RT"/*.cu; do
		sed -n 2,3p "$f" | grep -q "class [0-9]" || { echo "$f"; exit 1; }
	done'

expect_success "a BLAS fallback is rejected under --policy strict" '
	"$KJ" eval --json --quiet --no-perf --policy strict level1/matmul_square \
		"$RT/09_cblas_extern.c" >"$TMP/v.json"; rc=$?
	test $rc -eq 1 && test "$(json_get "$TMP/v.json" status)" = rejected &&
	json_get "$TMP/v.json" reason | grep -q "library fallback (BLAS).*(policy strict)"'

expect_success "the same fallback is flagged, with its library, under the default policy" '
	"$KJ" eval --json --quiet --no-perf level1/matmul_square "$RT/09_cblas_extern.c" >"$TMP/v.json"
	json_get "$TMP/v.json" flags | grep -q "\"fallback\"" &&
	test "$(json_get "$TMP/v.json" fallback_libs)" = BLAS'

expect_success "seed prediction works against the public default seed (documented gap)" '
	"$KJ" eval --json --quiet --no-perf level1/relu "$RT/13_seed_prediction.c" >"$TMP/v.json"
	test "$(json_get "$TMP/v.json" status)" = pass'

if "$KJ" eval --help 2>&1 | grep -q -- --seed-secret; then
	expect_success "seed prediction fails under a hidden seed (--seed-secret)" '
		"$KJ" eval --json --quiet --no-perf --seed-secret "kjudge-test-secret-$$" level1/relu \
			"$RT/13_seed_prediction.c" >"$TMP/v.json"; rc=$?
		test $rc -eq 1 && test "$(json_get "$TMP/v.json" status)" = mismatch'
else
	n_=$((n_ + 1))
	echo "ok $n_ # SKIP kjudge eval has no --seed-secret yet"
fi

# Honest for exactly the calls the correctness stage makes on level1/relu
# (4 check shapes + 1 CPU bench shape, 5 seeds), lazy afterwards: the phases
# after it (the determinism rerun, then the timed calls, every one checked)
# must catch it.
cat >"$TMP/lazy_after_correctness.c" <<'EOF'
#include <stdint.h>
static int calls;
void relu(const float *x, float *y, int64_t B, int64_t D)
{
	if (++calls > 25)
		return;
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
EOF
expect_success "a candidate honest only in the correctness calls is caught after them" '
	{ "$KJ" eval --json --quiet --perf-budget 0.2 level1/relu "$TMP/lazy_after_correctness.c" >"$TMP/v.json"; test $? -eq 1; } &&
	test "$(json_get "$TMP/v.json" status)" = mismatch &&
	json_get "$TMP/v.json" reason | grep -Eq "determinism rerun|timed call"'

expect_success "the judge goes on after a candidate kills its worker (SIGSYS), then passes an honest one" '
	"$KJ" eval --json --quiet --no-perf level1/relu "$RT/15_elf_walk_fork.c" >"$TMP/v.json"
	json_get "$TMP/v.json" reason | grep -q "bad system call (SIGSYS)" &&
	"$KJ" eval --json --quiet --no-perf level1/relu "$KJ_ROOT/examples/solutions/cpu/relu.c" >"$TMP/h.json" &&
	test "$(json_get "$TMP/h.json" status)" = pass'

# A metric task's cosine/L1/RMSE sum float elements only: its integer
# outputs must still be judged exactly, or they could hold anything.
cat >"$TMP/metric_int.kt" <<'KT'
task metric_int
level 1
category Quantization
about "a float output judged by metric next to an integer one"
input  x: f32[N] ~ normal
output y: f32[N]
output q: i32[N]
y = x * 2.0
q = cast(x * 100.0, i32)
check N=37; N=1000
bench cpu N=4096 weight=1
metric cos>=0.999 l1<=0.01
KT
cat >"$TMP/metric_int_ok.c" <<'C'
#include <stdint.h>
void metric_int(const float *x, float *y, int32_t *q, int64_t N)
{
	for (int64_t i = 0; i < N; i++) {
		y[i] = x[i] * 2.0f;
		q[i] = (int32_t)(x[i] * 100.0f);
	}
}
C
sed 's/q\[i\] = (int32_t)(x\[i\] \* 100.0f);/q[i] = 0;/' "$TMP/metric_int_ok.c" >"$TMP/metric_int_zero.c"
expect_success "a metric task passes a candidate whose integer output is right" '
	"$KJ" eval --json --quiet --no-perf "$TMP/metric_int.kt" "$TMP/metric_int_ok.c" >"$TMP/v.json"
	test "$(json_get "$TMP/v.json" status)" = pass'
expect_success "and fails one whose integer output is zeros (the metric skips integers)" '
	grep -q "q\[i\] = 0;" "$TMP/metric_int_zero.c" &&
	"$KJ" eval --json --quiet --no-perf "$TMP/metric_int.kt" "$TMP/metric_int_zero.c" >"$TMP/v.json"
	test "$(json_get "$TMP/v.json" status)" = mismatch &&
	json_get "$TMP/v.json" reason | grep -q "q"'

done_testing
