#!/usr/bin/env bash
# kjudge report --kernelbench: KernelBench's per-problem results (level,
# problem, sample, compiled, correctness, runtime, ref runtime, speedup)
# beside kjudge's fields, on a CPU run of four candidates whose verdicts the
# case files declare: a pass and a mismatch on level1/relu (KernelBench L1
# #19_ReLU), a compile error on level1/softmax (L1 #23_Softmax), and a pass
# on level1/dropout, which mirrors no KernelBench problem.  The ordinary
# report names each task's KernelBench problem in its per-task tables.
. "$(dirname "$0")/lib.sh"

S=$KJ_ROOT/examples/solutions/cpu
B=$KJ_ROOT/examples/broken/cpu
DB=$TMP/kb.sqlite
cat >"$TMP/kb.jsonl" <<EOF2
{"task": "level1/relu", "model": "m", "sample": 0, "path": "$S/relu.c"}
{"task": "level1/relu", "model": "m", "sample": 1, "path": "$B/wrong_result.c"}
{"task": "level1/softmax", "model": "m", "sample": 0, "path": "$B/compile_error.c"}
{"task": "level1/dropout", "model": "m", "sample": 0, "path": "$S/dropout.c"}
EOF2

expect_success "kjudge run judges the 4 candidates" '
	"$KJ" run "$TMP/kb.jsonl" --db "$DB" --backend cpu --quiet --seeds 1 --perf-budget 0.05'

expect_success "--kernelbench --format json: one row per candidate, schema kjudge.kernelbench/1" '
	"$KJ" report kb --db "$DB" --kernelbench --format json >"$TMP/kb.json" &&
	test "$(json_get "$TMP/kb.json" schema)" = kjudge.kernelbench/1 &&
	test "$(json_get "$TMP/kb.json" run)" = kb && test "$(json_get "$TMP/kb.json" rows.3.task)" = level1/dropout &&
	test "$(json_get "$TMP/kb.json" rows.4)" = null'

expect_success "the pass names KernelBench L1 #19_ReLU, compiled, correct, timed" '
	test "$(json_get "$TMP/kb.json" rows.0.level)" = 1 && test "$(json_get "$TMP/kb.json" rows.0.problem_id)" = 19 &&
	test "$(json_get "$TMP/kb.json" rows.0.problem_name)" = 19_ReLU &&
	test "$(json_get "$TMP/kb.json" rows.0.sample_id)" = 0 &&
	test "$(json_get "$TMP/kb.json" rows.0.compiled)" = true &&
	test "$(json_get "$TMP/kb.json" rows.0.correctness)" = true &&
	test "$(json_get "$TMP/kb.json" rows.0.status)" = pass'

expect_success "ref_runtime / runtime is the speedup (weighted geometric means over the bench shapes)" '
	rt=$(json_get "$TMP/kb.json" rows.0.runtime); ref=$(json_get "$TMP/kb.json" rows.0.ref_runtime)
	sp=$(json_get "$TMP/kb.json" rows.0.speedup); echo "runtime $rt ref $ref speedup $sp"
	perl -e "exit !(\$ARGV[0] > 0 && \$ARGV[1] > 0 && abs(\$ARGV[1] / \$ARGV[0] / \$ARGV[2] - 1) < 1e-6)" "$rt" "$ref" "$sp"'

expect_success "the mismatch compiled, is not correct and has no times" '
	test "$(json_get "$TMP/kb.json" rows.1.sample_id)" = 1 &&
	test "$(json_get "$TMP/kb.json" rows.1.compiled)" = true &&
	test "$(json_get "$TMP/kb.json" rows.1.correctness)" = false &&
	test "$(json_get "$TMP/kb.json" rows.1.runtime)" = null && test "$(json_get "$TMP/kb.json" rows.1.speedup)" = null &&
	test "$(json_get "$TMP/kb.json" rows.1.status)" = mismatch'

expect_success "the compile error did not compile; it names KernelBench L1 #23_Softmax" '
	test "$(json_get "$TMP/kb.json" rows.2.compiled)" = false &&
	test "$(json_get "$TMP/kb.json" rows.2.problem_name)" = 23_Softmax &&
	test "$(json_get "$TMP/kb.json" rows.2.stage)" = compile'

expect_success "a task that mirrors no KernelBench problem has none, and its kjudge fields" '
	test "$(json_get "$TMP/kb.json" rows.3.level)" = null &&
	test "$(json_get "$TMP/kb.json" rows.3.problem_id)" = null &&
	test "$(json_get "$TMP/kb.json" rows.3.correctness)" = true'

expect_success "--format csv: the header and one row per candidate" '
	"$KJ" report kb --db "$DB" --kernelbench --format csv | tr -d "\r" >"$TMP/kb.csv" && cat "$TMP/kb.csv" &&
	test "$(head -n 1 "$TMP/kb.csv")" = "level,problem_id,problem_name,sample_id,compiled,correctness,runtime_ms,ref_runtime_ms,speedup,task,model,round,status,stage,flags" &&
	test "$(wc -l <"$TMP/kb.csv")" -eq 5 &&
	grep -q "^1,23,23_Softmax,0,false,false,,,,level1/softmax,m,0,compile_error,compile," "$TMP/kb.csv" &&
	grep -q "^,,,0,true,true,[0-9.e+-]*,[0-9.e+-]*,[0-9.e+-]*,level1/dropout," "$TMP/kb.csv"'

expect_success "the default (md) is a table with the same rows" '
	"$KJ" report kb --db "$DB" --kernelbench >"$TMP/kb.md" &&
	grep -q "^| level | problem | sample | compiled | correctness | runtime (ms) | ref runtime (ms) | speedup |" "$TMP/kb.md" &&
	grep -q "^| 1 | 19_ReLU | 1 | true | false | - | - | - | level1/relu | m | 0 | mismatch |" "$TMP/kb.md"'

expect_success "--kernelbench with html or --weights is a usage error (exit 2)" '
	"$KJ" report kb --db "$DB" --kernelbench --format html 2>"$TMP/e"; rc=$?
	cat "$TMP/e"; test $rc -eq 2 && grep -q "md, json or csv" "$TMP/e"'

expect_success "the report names each task's KernelBench problem: md, json and html per-task tables" '
	"$KJ" report kb --db "$DB" >"$TMP/r.md" && "$KJ" report kb --db "$DB" --format json >"$TMP/r.json" &&
	"$KJ" report kb --db "$DB" --format html >"$TMP/r.html" &&
	grep -q "^| task | candidates | .* | first failure | KernelBench |$" "$TMP/r.md" &&
	grep -q "^| level1/relu | 2 | 1 | .* | L1 #19_ReLU |$" "$TMP/r.md" &&
	grep -q "^| level1/dropout | 1 | 1 | .* | - |$" "$TMP/r.md" &&
	test "$(json_get "$TMP/r.json" per_task.1.task)" = level1/relu &&
	test "$(json_get "$TMP/r.json" per_task.1.kernelbench.problem_id)" = 19 &&
	test "$(json_get "$TMP/r.json" per_task.2.kernelbench.problem_name)" = 23_Softmax &&
	test "$(json_get "$TMP/r.json" per_task.0.kernelbench)" = null &&
	grep -q "<th>KernelBench</th>" "$TMP/r.html" && grep -q "L1 #19_ReLU" "$TMP/r.html"'

expect_success "kj_kernelbench_origin reads every task's about that names a KernelBench problem" '
	cat >"$TMP/kbo.c" <<-EOF2
	#include <stdio.h>
	#include "kjudge/report.h"
	int main(int argc, char **argv) {
		for (int i = 1; i < argc; i++) {
			struct kj_kb_origin o;
			int f = kj_kernelbench_origin(argv[i], &o);
			printf("%d %d %d %s\n", f, o.level, o.problem, o.name);
		}
		return 0;
	}
	EOF2
	cc -std=c11 -I"$KJ_ROOT/include" -I"$KJ_ROOT/src" -o "$TMP/kbo" "$TMP/kbo.c" "$KJ_ROOT/build/libkjudge.a" \
		-ljansson -lm &&
	test "$("$TMP/kbo" "ReLU (KernelBench L1 #19_ReLU)")" = "1 1 19 19_ReLU" &&
	test "$("$TMP/kbo" "MLP (KernelBench L3 #1_MLP; as written)")" = "1 3 1 1_MLP" &&
	test "$("$TMP/kbo" "(KernelBench L1 #39_L2Norm_)")" = "1 1 39 39_L2Norm_" &&
	test "$("$TMP/kbo" "int8 conv (KernelBench-X Quantization)")" = "0 0 0 " &&
	test "$("$TMP/kbo" "KernelBench L #3")" = "0 0 0 " &&
	grep -h "^about .*KernelBench L[0-9]* #" "$KJ_ROOT"/tasks/*/*.kt >"$TMP/abouts" &&
	n=$(wc -l <"$TMP/abouts") && echo "$n tasks name a KernelBench problem" && test "$n" -gt 100 &&
	while IFS= read -r a; do "$TMP/kbo" "$a"; done <"$TMP/abouts" | grep -c "^1 [1-3] [1-9][0-9]* [1-9][0-9]*_" >"$TMP/nk" &&
	test "$(cat "$TMP/nk")" -eq "$n"'

expect_success "report --help names --kernelbench" '
	"$KJ" report --help | grep -q -- "--kernelbench"'

done_testing
