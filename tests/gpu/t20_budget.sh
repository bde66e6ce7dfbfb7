#!/usr/bin/env bash
# The error budget on the CUDA track: `kjudge baseline --check` judges the
# eager baseline with its own budget, so sum_tight (atol 1e-7 on long f32
# sums, tests/data/budget/) passes where its declared tolerance fails, and
# says so (declared_pass false, budget_governs); the device comparison's
# measures themselves are checked in test_gpu_infra.
. "$(dirname "$0")/../cli/lib.sh"
if ! nvidia-smi -L >/dev/null 2>&1; then
	echo "1..0 # SKIP no CUDA device"
	exit 0
fi
D=$KJ_ROOT/tests/data/budget
for k in sum_tight sum_tight_rmse; do
	expect_success "$k: the baseline --check passes on the budget and says the declared tolerance is exceeded" '
		"$KJ" baseline "$D/'$k'.kt" --check --json --budget 0.05 >"$TMP/b.json"; rc=$?; cat "$TMP/b.json";
		test $rc -eq 0 && test "$(json_get "$TMP/b.json" budget_governs)" -ge 1 &&
		test "$(json_get "$TMP/b.json" shapes.0.check.0.pass)" = true &&
		test "$(json_get "$TMP/b.json" shapes.0.check.0.declared_pass)" = false &&
		test "$(json_get "$TMP/b.json" shapes.0.check.0.over_tolerance_seeds)" != "[]"'
done
expect_success "the text output lists it as within the error budget only" '
	"$KJ" baseline "$D/sum_tight.kt" --check --budget 0.05 >"$TMP/b.txt"; rc=$?; cat "$TMP/b.txt";
	test $rc -eq 0 && grep -q "ok within the error budget only" "$TMP/b.txt" &&
	grep -q "the budget governs, on 1 of 1 shape outputs" "$TMP/b.txt"'
done_testing
