#!/usr/bin/env bash
# kjudge prompt (one-shot, few-shot, refinement) and kjudge refine with a
# generator command as the model, on the CPU track: a wrong kernel in round
# 0 is fixed in round 1 only when the prompt carried the mismatch; the
# report shows the pass at round 1; reruns resume without asking again;
# stalls restart from the best kernel; answers without code and generator
# failures are handled.
. "$(dirname "$0")/lib.sh"

if ! command -v sqlite3 >/dev/null 2>&1; then
	echo "1..0 # SKIP the sqlite3 command is not installed (Debian package sqlite3)"
	exit 0
fi
q() { sqlite3 "$1" "$2"; }
S=$KJ_ROOT/examples/solutions/cpu
B=$KJ_ROOT/examples/broken/cpu

# ---- prompts -----------------------------------------------------------------

expect_success "prompt --help lists the modes" '
	"$KJ" prompt --help | grep -q -- "--mode M" && "$KJ" prompt --help | grep -q -- "--feedback FILE"'
expect_success "few-shot: two worked examples of other tasks, before the task" '
	"$KJ" prompt level1/relu --backend cpu --mode fewshot --shots 2 >"$TMP/fs" &&
	grep -q "^### Example 2: " "$TMP/fs" && ! grep -q "^### Example 3: " "$TMP/fs" &&
	! grep -q "^### Example .*: level1/relu$" "$TMP/fs" &&
	test "$(grep -n "^### Example 1" "$TMP/fs" | cut -d: -f1)" -lt "$(grep -n "^## Task: level1/relu" "$TMP/fs" | cut -d: -f1)"'
expect_success "refinement prompt from a verdict: the source, the mismatch index, expected and got" '
	"$KJ" eval --json --no-perf level1/relu "$B/wrong_result.c" >"$TMP/v.json"; test $? -eq 1 &&
	"$KJ" prompt level1/relu --backend cpu --source "$B/wrong_result.c" --feedback "$TMP/v.json" >"$TMP/rp" &&
	grep -q "^## Your previous attempt (round 0)" "$TMP/rp" && grep -qF "1.01f * x[i]" "$TMP/rp" &&
	grep -q "first at index \[[0-9, ]*\] (flat [0-9]*): expected [-0-9.e]*, got [-0-9.e]*" "$TMP/rp"'
expect_success "refinement prompt after a compile error carries the compiler error" '
	"$KJ" eval --json level1/relu "$B/compile_error.c" >"$TMP/ce.json"; test $? -eq 1 &&
	"$KJ" prompt level1/relu --backend cpu --source "$B/compile_error.c" --feedback "$TMP/ce.json" >"$TMP/rp2" &&
	grep -q "Compiler output (trimmed):" "$TMP/rp2" && grep -q "error: .zero. undeclared" "$TMP/rp2"'
expect_success "a verdict for another task is refused (exit 2, naming both)" '
	"$KJ" prompt level1/softmax --backend cpu --source "$B/wrong_result.c" --feedback "$TMP/v.json" 2>"$TMP/e";
	test $? -eq 2 && grep -q "verdict for task level1/relu, not level1/softmax" "$TMP/e"'
expect_success "--mode refine without --source is a usage error" '
	"$KJ" prompt level1/relu --mode refine 2>"$TMP/e"; test $? -eq 2 && grep -q "needs --source" "$TMP/e"'
expect_success "--calib=FILE adds the hardware facts and the roofline per shape (cuda prompt)" '
	printf "{\"name\": \"Test GPU\", \"copy_gbs\": 4000, \"read_gbs\": 4400, \"fp32_tflops\": 50, \"fp16_tflops\": 800, \"bf16_tflops\": 800, \"tf32_tflops\": 400, \"fp64_tflops\": 60, \"int8_tops\": 1600}" >"$TMP/cal.json" &&
	"$KJ" prompt level1/relu --calib="$TMP/cal.json" >"$TMP/hp" && grep -q "^- GPU: Test GPU" "$TMP/hp" &&
	grep -q "T_sol [0-9.e+-]* ms, memory-bound" "$TMP/hp"'
expect_success "the prompt states the roofline peak the judge uses: a 16-bit conv is bound by the fp16 tensor cores, not fp32" '
	"$KJ" prompt level1/conv2d_f16 --calib="$TMP/cal.json" >"$TMP/cp" &&
	grep -q "T_sol [0-9.e+-]* ms, compute-bound (fp16 tensor-core peak)" "$TMP/cp" &&
	! grep -q "(fp32 peak)" "$TMP/cp"'

# ---- refine with a generator ---------------------------------------------------

# round 0: the wrong kernel; later: the right one, but only when the prompt
# shows the judge's mismatch (so the feedback must have reached it)
cat >"$TMP/gen.sh" <<EOF
#!/bin/sh
cat >"$TMP/prompt.\$KJUDGE_SAMPLE.\$KJUDGE_ROUND"
echo "\$KJUDGE_TASK \$KJUDGE_SAMPLE \$KJUDGE_ROUND \$KJUDGE_METHOD \$KJUDGE_MODEL" >>"$TMP/calls"
if [ "\$KJUDGE_ROUND" = 0 ]; then f=$B/wrong_result.c
elif grep -q "first at index .*expected .*got" "$TMP/prompt.\$KJUDGE_SAMPLE.\$KJUDGE_ROUND"; then f=$S/relu.c
else f=$B/compile_error.c; fi
printf 'Here is my kernel.\n\n\`\`\`c\n'; cat "\$f"; printf '\`\`\`\n\nIt should be fast.\n'
EOF
chmod +x "$TMP/gen.sh"
DB=$TMP/g.sqlite
R="--backend cpu --perf-budget 0.1 --db $DB"

expect_success "refine --help exits 0 and documents --generator and --stall" '
	"$KJ" refine --help | grep -q "usage: kjudge refine" && "$KJ" refine --help | grep -q -- "--generator CMD" &&
	"$KJ" refine --help | grep -q -- "--stall R"'
expect_success "usage errors exit 2: no task, no model, an unknown task" '
	"$KJ" refine --model m 2>/dev/null; test $? -eq 2 &&
	"$KJ" refine level1/relu 2>/dev/null; test $? -eq 2 &&
	"$KJ" refine level1/nope --generator true --backend cpu --db "$TMP/x.sqlite" 2>"$TMP/e"; test $? -eq 2 &&
	grep -q "unknown task" "$TMP/e"'
expect_success "2 rounds: round 0 mismatch, round 1 pass (exit 0)" '
	"$KJ" refine level1/relu --generator "$TMP/gen.sh" --rounds 2 --name g1 $R --json >"$TMP/g1.json" 2>"$TMP/g1.err" &&
	test "$(json_get "$TMP/g1.json" asked)" = 2 && test "$(json_get "$TMP/g1.json" best.0.round)" = 1 &&
	test "$(json_get "$TMP/g1.json" best.0.status)" = pass && test "$(json_get "$TMP/g1.json" judged)" = 2'
expect_success "progress lines on stderr name task, sample, round and verdict" '
	grep -q "level1/relu sample 0 round 0 (oneshot): mismatch" "$TMP/g1.err" &&
	grep -q "level1/relu sample 0 round 1 (refine): pass" "$TMP/g1.err"'
expect_success "the generator saw the task, sample, round, method and model in its environment" '
	test "$(cat "$TMP/calls")" = "$(printf "level1/relu 0 0 oneshot generator\nlevel1/relu 0 1 refine generator")"'
expect_success "the round-1 prompt held the previous source and the judge feedback" '
	grep -q "^## Your previous attempt (round 0)" "$TMP/prompt.0.1" && grep -qF "1.01f * x[i]" "$TMP/prompt.0.1" &&
	grep -q "^Status: mismatch" "$TMP/prompt.0.1"'
expect_success "the store holds both attempts: methods, parent, model, the extracted code only" '
	test "$(q "$DB" "SELECT round || method || model FROM candidates ORDER BY round" | tr "\n" " ")" = "0oneshotgenerator 1refinegenerator " &&
	test "$(q "$DB" "SELECT parent_id FROM candidates WHERE round = 1")" = "$(q "$DB" "SELECT id FROM candidates WHERE round = 0")" &&
	test "$(q "$DB" "SELECT count(*) FROM candidates WHERE source LIKE \"%Here is my kernel%\"")" = 0'
expect_success "report --format json: fast_p@N is 0 at round 0 and 1 at round 1" '
	"$KJ" report g1 --db "$DB" --format json >"$TMP/r1.json" &&
	test "$(json_get "$TMP/r1.json" candidates)" = 2 && test "$(json_get "$TMP/r1.json" correct)" = 1 &&
	test "$(json_get "$TMP/r1.json" fast_p_at_n.0.fast_p.0)" = 0 &&
	test "$(json_get "$TMP/r1.json" fast_p_at_n.1.fast_p.0)" = 1 && test "$(json_get "$TMP/r1.json" fast_p.0)" = 0 &&
	test "$(json_get "$TMP/r1.json" fix_vs_optimize.fixes)" = 1'
expect_success "a rerun with more rounds resumes: only round 2 is asked" '
	"$KJ" refine level1/relu --generator "$TMP/gen.sh" --rounds 3 --name g1 $R --json --quiet >"$TMP/g2.json" &&
	test "$(json_get "$TMP/g2.json" resumed)" = 2 && test "$(json_get "$TMP/g2.json" asked)" = 1 &&
	test "$(wc -l <"$TMP/calls")" -eq 3 && test "$(q "$DB" "SELECT count(*) FROM candidates")" = 3'
expect_success "the same command again asks nothing" '
	"$KJ" refine level1/relu --generator "$TMP/gen.sh" --rounds 3 --name g1 $R --json --quiet >"$TMP/g3.json" &&
	test "$(json_get "$TMP/g3.json" asked)" = 0 && test "$(wc -l <"$TMP/calls")" -eq 3'
expect_success "an attempt stored without a verdict is judged on resume, not asked again" '
	q "$DB" "DELETE FROM verdict_checks WHERE candidate_id = (SELECT id FROM candidates WHERE round = 2);
		 DELETE FROM verdict_shapes WHERE candidate_id = (SELECT id FROM candidates WHERE round = 2);
		 DELETE FROM verdicts WHERE candidate_id = (SELECT id FROM candidates WHERE round = 2)" &&
	"$KJ" refine level1/relu --generator "$TMP/gen.sh" --rounds 3 --name g1 $R 2>"$TMP/g4.err" >/dev/null &&
	grep -q "round 2: stored without a verdict, judging it" "$TMP/g4.err" && test "$(wc -l <"$TMP/calls")" -eq 3 &&
	test "$(q "$DB" "SELECT count(*) FROM verdicts")" = 3'

# always the same wrong kernel: no progress, so restarts from the best
cat >"$TMP/stuck.sh" <<EOF
#!/bin/sh
cat >/dev/null
echo "\$KJUDGE_ROUND \$KJUDGE_METHOD" >>"$TMP/stuck.calls"
printf '\`\`\`c\n'; cat "$B/wrong_result.c"; printf '\`\`\`\n'
EOF
chmod +x "$TMP/stuck.sh"
expect_success "--stall 1: after a round without progress, restart from the best (method refine-restart)" '
	"$KJ" refine level1/relu --generator "$TMP/stuck.sh" --model stuck --rounds 4 --stall 1 --name g1 $R --no-perf --json --quiet >"$TMP/s.json" &&
	test "$(json_get "$TMP/s.json" restarts)" = 2 &&
	test "$(q "$DB" "SELECT round || method FROM candidates WHERE model = \"stuck\" ORDER BY round" | tr "\n" " ")" = "0oneshot 1refine 2refine-restart 3refine-restart " &&
	test "$(q "$DB" "SELECT count(*) FROM candidates WHERE model = \"stuck\" AND round >= 2 AND parent_id = (SELECT id FROM candidates WHERE model = \"stuck\" AND round = 0)")" = 2 &&
	test "$(cat "$TMP/stuck.calls" | tr "\n" " ")" = "0 oneshot 1 refine 2 refine-restart 3 refine-restart "'
expect_success "two samples per task: both stored, fast_p@k has k = 2" '
	"$KJ" refine level1/relu --generator "$TMP/gen.sh" --model two --samples 2 --rounds 1 --name g1 $R --json --quiet >"$TMP/k.json" &&
	test "$(q "$DB" "SELECT group_concat(sample) FROM candidates WHERE model = \"two\"")" = "0,1" &&
	"$KJ" report g1 --db "$DB" --format json >"$TMP/r2.json" && test "$(json_get "$TMP/r2.json" by_model.two.fast_p_at_k.1.k)" = 2'

cat >"$TMP/prose.sh" <<'EOF'
#!/bin/sh
cat >/dev/null
echo "I would use a loop over every element."
EOF
chmod +x "$TMP/prose.sh"
expect_success "an answer without a code block is a failed attempt: compile_error, no code block in the answer" '
	"$KJ" refine level1/relu --generator "$TMP/prose.sh" --model prose --rounds 1 --name g1 $R --json --quiet >"$TMP/p.json" &&
	test "$(json_get "$TMP/p.json" no_code_block)" = 1 &&
	test "$(q "$DB" "SELECT v.status || \"/\" || v.stage || \"/\" || v.reason FROM verdicts v JOIN candidates c ON c.id = v.candidate_id WHERE c.model = \"prose\"")" = "compile_error/static/no code block in the answer"'
expect_success "a failing generator stops its chain: exit 1, the reason on stderr, nothing stored" '
	"$KJ" refine level1/relu --generator "exit 7" --model broken --rounds 2 --name g1 $R 2>"$TMP/f.err" >/dev/null;
	test $? -eq 1 && grep -q "exited with status 7" "$TMP/f.err" &&
	test "$(q "$DB" "SELECT count(*) FROM candidates WHERE model = \"broken\"")" = 0'
expect_success "a run of another backend is refused (exit 2)" '
	"$KJ" refine level1/relu --generator "$TMP/gen.sh" --rounds 1 --name g1 --db "$DB" --backend cuda 2>"$TMP/e";
	test $? -eq 2'

done_testing
