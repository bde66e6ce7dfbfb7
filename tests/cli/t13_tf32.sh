#!/usr/bin/env bash
# The TF32 policy line (docs/task-language.md, "The TF32 policy"): `tf32
# allowed` parses, shows, reaches the prompt and names the verdict's
# baseline_math; strict f32 is the default; a bad line names file:line:col.
. "$(dirname "$0")/lib.sh"

mm() { # a small f32 matmul task, then any extra lines
	printf 'task mm\ninput a: f32[M, K]\ninput b: f32[K, N]\noutput y: f32[M, N]\ny = matmul(a, b)\ncheck M=2 K=3 N=4\n'
	printf '%s\n' "$@"
}
mm "tf32 allowed" >"$TMP/tf.kt"
mm >"$TMP/strict.kt"
sed '/^task relu/a tf32 allowed' "$KJ_ROOT/tasks/level1/relu.kt" >"$TMP/relu_tf32.kt"

expect_success "show of a task with tf32 allowed prints the math line and baseline_math tf32" '
	"$KJ" show "$TMP/tf.kt" >"$TMP/s" && grep -q "^math      tf32 allowed" "$TMP/s" &&
	"$KJ" show --json "$TMP/tf.kt" >"$TMP/s.json" && test "$(json_get "$TMP/s.json" baseline_math)" = tf32'
expect_success "strict f32 is the default, and show prints no math line" '
	"$KJ" show "$TMP/strict.kt" >"$TMP/s" && ! grep -q "^math" "$TMP/s" &&
	"$KJ" show --json "$TMP/strict.kt" >"$TMP/s.json" && test "$(json_get "$TMP/s.json" baseline_math)" = strict-f32'
expect_success "tf32 strict is accepted and strict" '
	mm "tf32 strict" >"$TMP/st2.kt" && "$KJ" show --json "$TMP/st2.kt" >"$TMP/s.json" &&
	test "$(json_get "$TMP/s.json" baseline_math)" = strict-f32'
expect_success "a tf32 line without allowed or strict is an invalid task (2) at file:line:col" '
	mm "tf32 maybe" >"$TMP/bad.kt"; "$KJ" show "$TMP/bad.kt" 2>"$TMP/e"; test $? -eq 2 &&
	grep -qF "bad.kt:7:6: expected '"'"'allowed'"'"' or '"'"'strict'"'"' after tf32" "$TMP/e"'
expect_success "two tf32 lines are an invalid task (2)" '
	mm "tf32 allowed" "tf32 allowed" >"$TMP/bad2.kt"; "$KJ" show "$TMP/bad2.kt" 2>"$TMP/e"; test $? -eq 2 &&
	grep -q "second .tf32. line" "$TMP/e"'
expect_success "the prompt of a tf32 task says TF32 is allowed; a strict one does not" '
	"$KJ" prompt "$TMP/tf.kt" >"$TMP/p" && grep -q "TF32 is allowed" "$TMP/p" &&
	"$KJ" prompt "$TMP/strict.kt" >"$TMP/p2" && ! grep -q "TF32 is allowed" "$TMP/p2"'
expect_success "a CPU-track verdict is against the strict baseline even when the task allows TF32" '
	"$KJ" eval --json --backend cpu --no-perf "$TMP/relu_tf32.kt" "$KJ_ROOT/examples/solutions/cpu/relu.c" >"$TMP/v.json" &&
	test "$(json_get "$TMP/v.json" status)" = pass &&
	test "$(json_get "$TMP/v.json" baseline_math)" = strict-f32'
expect_success "a verdict of a default task says baseline_math strict-f32" '
	"$KJ" eval --json --backend cpu --no-perf level1/relu "$KJ_ROOT/examples/solutions/cpu/relu.c" >"$TMP/v2.json" &&
	test "$(json_get "$TMP/v2.json" baseline_math)" = strict-f32'
expect_success "a run's report counts the verdicts by baseline math (the CPU track: all strict f32)" '
	printf "{\"task\": \"%s\", \"model\": \"m\", \"path\": \"%s\"}\n" \
		level1/relu "$KJ_ROOT/examples/solutions/cpu/relu.c" \
		"$TMP/relu_tf32.kt" "$KJ_ROOT/examples/solutions/cpu/relu.c" >"$TMP/r.jsonl" &&
	"$KJ" run "$TMP/r.jsonl" --db "$TMP/r.sqlite" --name tf --backend cpu --no-perf --quiet &&
	"$KJ" report tf --db "$TMP/r.sqlite" --format json >"$TMP/r.json" &&
	test "$(json_get "$TMP/r.json" manifest.baseline_math.strict-f32)" = 2 &&
	test "$(json_get "$TMP/r.json" manifest.baseline_math.tf32)" = 0 &&
	"$KJ" report tf --db "$TMP/r.sqlite" >"$TMP/r.md" && grep -q "strict f32 (no TF32) for every verdict" "$TMP/r.md"'

done_testing
