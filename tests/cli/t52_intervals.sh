#!/usr/bin/env bash
# Speedup intervals (docs/verdict.md, "Intervals"): an eval's verdict carries
# them per shape and overall with the noise floor; `report --strict-intervals`
# counts fast_p on speedup_lo; `compare` calls a change significant only where
# the intervals separate.  No timing thresholds: the report and compare
# checks run on verdicts whose speedups and intervals are set in the store.
. "$(dirname "$0")/lib.sh"

if ! command -v sqlite3 >/dev/null 2>&1; then
	echo "1..0 # SKIP the sqlite3 command is not installed (Debian package sqlite3)"
	exit 0
fi

S=$KJ_ROOT/examples/solutions/cpu
DB=$TMP/r.sqlite
q() { sqlite3 "$DB" "$1"; }
# within A B C: A <= B <= C (numbers)
within() { perl -e 'exit($ARGV[0] <= $ARGV[1] && $ARGV[1] <= $ARGV[2] ? 0 : 1)' "$1" "$2" "$3"; }
# set_sp RUN TASK SPEEDUP LO HI: a verdict's speedup and its interval, in the
# column the scores read and in the verdict's JSON
set_sp() {
	q "UPDATE verdicts SET speedup = $3, json = json_set(json, '\$.speedup', $3, '\$.speedup_lo', $4,
		'\$.speedup_hi', $5) WHERE task = '$2' AND run_id = (SELECT id FROM runs WHERE name = '$1');"
}

expect_success "eval: the verdict and its perf entry carry an interval holding the speedup, and a noise floor" '
	"$KJ" eval --json --quiet --backend cpu --perf-budget 0.2 level1/relu "$S/relu.c" >"$TMP/v.json" &&
	within "$(json_get "$TMP/v.json" speedup_lo)" "$(json_get "$TMP/v.json" speedup)" "$(json_get "$TMP/v.json" speedup_hi)" &&
	within "$(json_get "$TMP/v.json" perf.0.speedup_lo)" "$(json_get "$TMP/v.json" perf.0.speedup)" \
		"$(json_get "$TMP/v.json" perf.0.speedup_hi)" &&
	within 0 "$(json_get "$TMP/v.json" noise_floor)" 1e9 &&
	within 0 "$(json_get "$TMP/v.json" perf.0.noise_floor)" "$(json_get "$TMP/v.json" noise_floor)"'
# whether a process here may hold itself to one of its CPUs (a container's
# cpuset may refuse it): then the judge must have pinned its timing
if python3 -c "import os; os.sched_setaffinity(0, {max(os.sched_getaffinity(0))})" 2>/dev/null; then
	can_pin=1
else
	can_pin=0
fi
expect_success "eval: the CPU track says which CPU it timed on: a CPU where this host lets a process pin itself ($can_pin), null otherwise" '
	c=$(json_get "$TMP/v.json" timing_cpu) &&
	echo "timing_cpu $c" &&
	if [ '"$can_pin"' = 1 ]; then printf "%s\n" "$c" | grep -Eq "^[0-9]+\$"; else test "$c" = null; fi'
expect_success "eval --max-noise: a loose rule still gives a verdict with an interval" '
	"$KJ" eval --json --quiet --backend cpu --perf-budget 0.2 --max-noise 0.5 level1/relu "$S/relu.c" >"$TMP/v2.json" &&
	test "$(json_get "$TMP/v2.json" status)" = pass &&
	within "$(json_get "$TMP/v2.json" speedup_lo)" "$(json_get "$TMP/v2.json" speedup)" "$(json_get "$TMP/v2.json" speedup_hi)"'
expect_success "eval --max-noise outside (0, 1) is a usage error" '
	"$KJ" eval --backend cpu --max-noise 0 level1/relu "$S/relu.c" 2>"$TMP/e"; test $? -eq 2 &&
	grep -q "max-noise" "$TMP/e"'
expect_success "eval --no-perf: no speedup, a null interval" '
	"$KJ" eval --json --quiet --backend cpu --no-perf level1/relu "$S/relu.c" >"$TMP/v3.json" &&
	test "$(json_get "$TMP/v3.json" speedup_lo)" = null && test "$(json_get "$TMP/v3.json" speedup_hi)" = null'

cat >"$TMP/r.jsonl" <<EOF
{"task": "level1/relu", "model": "m", "path": "$S/relu.c"}
{"task": "level1/softmax", "model": "m", "path": "$S/softmax.c"}
EOF
expect_success "a run of two correct candidates, then known speedups and intervals set in the store" '
	"$KJ" run "$TMP/r.jsonl" --db "$DB" --backend cpu --quiet --perf-budget 0.2 --name a &&
	"$KJ" run "$TMP/r.jsonl" --db "$DB" --backend cpu --quiet --perf-budget 0.2 --name b &&
	set_sp a level1/relu 1.3 0.9 1.6 && set_sp a level1/softmax 1.3 1.1 1.5 &&
	set_sp b level1/relu 1.35 1.0 1.7 && set_sp b level1/softmax 2.0 1.8 2.2 &&
	test "$(q "SELECT count(*) FROM verdicts WHERE status = '\''pass'\''")" = 4'
expect_success "report: fast_1 counts both speedups of 1.3 (2 of 2 items)" '
	"$KJ" report a --db "$DB" --format json >"$TMP/r.json" && test "$(json_get "$TMP/r.json" fast_p.1)" = 1 &&
	test "$(json_get "$TMP/r.json" strict_intervals)" = false &&
	test "$(json_get "$TMP/r.json" per_candidate.0.speedup_lo)" = 0.9'
expect_success "report --strict-intervals: only the one whose interval clears 1 counts (fast_1 = 0.5)" '
	"$KJ" report a --db "$DB" --format json --strict-intervals >"$TMP/rs.json" &&
	test "$(json_get "$TMP/rs.json" fast_p.1)" = 0.5 && test "$(json_get "$TMP/rs.json" fast_p.0)" = 1 &&
	test "$(json_get "$TMP/rs.json" strict_intervals)" = true && test "$(json_get "$TMP/rs.json" no_interval)" = 0 &&
	test "$(json_get "$TMP/rs.json" speedup_geomean)" = "$(json_get "$TMP/r.json" speedup_geomean)"'
expect_success "report --strict-intervals in Markdown says so" '
	"$KJ" report a --db "$DB" --strict-intervals | grep -q "strict-intervals" &&
	"$KJ" report a --db "$DB" | grep -q "1.300 \[0.900, 1.600\]"'
expect_success "compare: relu overlaps (not significant), softmax separates (significant)" '
	"$KJ" compare a b --db "$DB" --json >"$TMP/c.json" &&
	test "$(json_get "$TMP/c.json" with_intervals)" = 2 && test "$(json_get "$TMP/c.json" significant)" = 1 &&
	test "$(json_get "$TMP/c.json" tasks.0.task)" = level1/relu && test "$(json_get "$TMP/c.json" tasks.0.significant)" = 0 &&
	test "$(json_get "$TMP/c.json" tasks.1.significant)" = 1 && test "$(json_get "$TMP/c.json" tasks.1.interval_b)" = "[1.8,2.2]"'
expect_success "compare prints the intervals and which change is significant" '
	"$KJ" compare a b --db "$DB" >"$TMP/c.txt" &&
	grep -q "^| level1/relu | .* | \[0.900, 1.600\] | \[1.000, 1.700\] | no |$" "$TMP/c.txt" &&
	grep -q "^| level1/softmax | .* | \[1.100, 1.500\] | \[1.800, 2.200\] | yes |$" "$TMP/c.txt" &&
	grep -q "significant changes (speedup intervals that separate): 1 of 2" "$TMP/c.txt"'
expect_success "verdicts judged before intervals: report and compare still work, with null intervals" '
	q "UPDATE verdicts SET json = json_remove(json, '\''\$.speedup_lo'\'', '\''\$.speedup_hi'\'', '\''\$.noise_floor'\'');" &&
	"$KJ" report a --db "$DB" --format json >"$TMP/o.json" && test "$(json_get "$TMP/o.json" fast_p.1)" = 1 &&
	test "$(json_get "$TMP/o.json" per_candidate.0.speedup_lo)" = null &&
	"$KJ" report a --db "$DB" --format json --strict-intervals >"$TMP/os.json" &&
	test "$(json_get "$TMP/os.json" fast_p.1)" = 0 && test "$(json_get "$TMP/os.json" no_interval)" = 2 &&
	"$KJ" compare a b --db "$DB" --json >"$TMP/oc.json" && test "$(json_get "$TMP/oc.json" with_intervals)" = 0 &&
	"$KJ" compare a b --db "$DB" | grep -q "significant changes: unknown"'
done_testing
