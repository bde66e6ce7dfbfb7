#!/usr/bin/env bash
# kjudge trace import: a suite from the small Llama trace (tests/data), its
# tasks listed, shown and judged with CPU candidates, a run reported with the
# suite's importance weights; refresh, broken traces, and the shipped suite
# tasks/trace/llama being exactly what the importer makes of its trace.
. "$(dirname "$0")/lib.sh"

SMALL=$KJ_ROOT/tests/data/llama_small.json
BIG=$KJ_ROOT/tests/data/llama_trace.json.gz
S=$KJ_ROOT/examples/solutions/cpu
HOME_=$TMP/home
D=$HOME_/tasks/trace/small

expect_success "trace --help and trace import --help exit 0" '
	"$KJ" trace --help | grep -q "usage: kjudge trace import" &&
	"$KJ" trace import --help | grep -q -- "--min-share"'
expect_success "an unknown trace subcommand is a usage error (exit 2)" '
	"$KJ" trace frob 2>"$TMP/e"; test $? -eq 2 && grep -q "unknown subcommand" "$TMP/e"'
expect_success "import the small trace: 48 tasks, 72 shapes, 97.9% of the GPU time (--json)" '
	"$KJ" trace import "$SMALL" -o "$D" --min-share 0 --json >"$TMP/imp.json" &&
	test "$(json_get "$TMP/imp.json" tasks)" = 48 && test "$(json_get "$TMP/imp.json" shapes)" = 72 &&
	test "$(json_get "$TMP/imp.json" kernels)" = 412 &&
	perl -e "exit(abs(\$ARGV[0] - 0.9786742620973168) < 1e-9 ? 0 : 1)" "$(json_get "$TMP/imp.json" coverage)" &&
	test "$(json_get "$TMP/imp.json" suite)" = small'
expect_success "what could not be mapped is listed by operator with its share" '
	test "$(json_get "$TMP/imp.json" unmapped.0.op)" = aten::cos &&
	perl -e "exit(abs(\$ARGV[0] - 0.00774107) < 1e-7 ? 0 : 1)" "$(json_get "$TMP/imp.json" unmapped.0.share)" &&
	test "$(json_get "$TMP/imp.json" unmapped.0.reason)" = "no kjudge op for aten::cos" &&
	test "$(json_get "$TMP/imp.json" unmapped.3.op)" = aten::gather'
expect_success "the manifest: one .kt per task, shape weights summing to 1 within 1e-9" '
	test "$(ls "$D"/*.kt | wc -l)" = 48 &&
	perl -MJSON::PP -e "local \$/; my \$m = decode_json(<STDIN>); my \$s = 0;
		for my \$t (@{\$m->{tasks}}) { \$s += \$_->{weight} for @{\$t->{shapes}} }
		exit(\$m->{schema} eq \"kjudge.suite/1\" && abs(\$s - 1) < 1e-9 ? 0 : 1)" <"$D/suite.json"'
expect_success "prefill and decode tasks are kept apart" '
	test -f "$D/prefill_linear_bf16.kt" && test -f "$D/decode_linear_bf16.kt" &&
	grep -q "^bench M=2 K=512 N=1408 weight=" "$D/decode_linear_bf16.kt" &&
	grep -q "^bench M=128 K=512 N=1408 weight=" "$D/prefill_linear_bf16.kt"'
expect_success "the text summary gives the coverage and the unmapped operators" '
	"$KJ" trace import "$SMALL" --min-share 0 >"$TMP/imp.txt" &&
	grep -q "covering 97.87% of the GPU time" "$TMP/imp.txt" &&
	grep -q "^  aten::sin .*no kjudge op for aten::sin" "$TMP/imp.txt"'
expect_success "--min-share leaves small aggregates out and says how much" '
	"$KJ" trace import "$SMALL" --min-share 0.02 --json >"$TMP/ms.json" &&
	perl -e "exit(\$ARGV[0] > 0.2 && abs(\$ARGV[0] + \$ARGV[1] + \$ARGV[2] - 1) < 1e-9 ? 0 : 1)" \
		"$(json_get "$TMP/ms.json" below_min_share)" "$(json_get "$TMP/ms.json" coverage)" \
		"$(json_get "$TMP/ms.json" unmapped_share)"'
expect_success "every generated task passes lint-tasks" '
	"$KJ" lint-tasks "$D"/*.kt >"$TMP/lint" && grep -q "48 tasks linted: 48 ok, 0 failed, 0 errors" "$TMP/lint"'
expect_success "kjudge tasks lists the suite (KJUDGE_HOME holding it)" '
	KJUDGE_HOME=$HOME_ "$KJ" tasks --suite trace/small >"$TMP/tasks" &&
	test "$(grep -c "^trace/small/" "$TMP/tasks")" = 48'
expect_success "kjudge show and prompt --backend cpu on a generated task" '
	KJUDGE_HOME=$HOME_ "$KJ" show trace/small/decode_linear_bf16 >"$TMP/show" &&
	grep -q "void decode_linear_bf16(const kj_bfloat16\* x, const kj_bfloat16\* w, kj_bfloat16\* y, int64_t M, int64_t K, int64_t N)" "$TMP/show" &&
	"$KJ" prompt "$D/decode_linear_bf16.kt" --backend cpu | grep -q "void decode_linear_bf16("'
expect_success "an honest CPU candidate passes a generated task (exit 0)" '
	"$KJ" eval "$D/decode_linear_bf16.kt" "$S/trace_llama_decode_linear_bf16.c" --backend cpu --no-perf --json >"$TMP/v.json" &&
	test "$(json_get "$TMP/v.json" status)" = pass'
cat >"$TMP/mean_wrong.c" <<'EOF'
#include <stdint.h>
void decode_mean_f32(const float *x, float *y, int64_t B, int64_t S, int64_t D)
{
	for (int64_t r = 0; r < B * S; r++)
		y[r] = x[r * D]; /* the first element, not the mean */
}
EOF
cat >"$TMP/run.jsonl" <<EOF
{"task": "$D/decode_linear_bf16.kt", "model": "m", "path": "$S/trace_llama_decode_linear_bf16.c"}
{"task": "$D/prefill_linear_bf16.kt", "model": "m", "path": "$S/trace_llama_prefill_linear_bf16.c"}
{"task": "$D/decode_mean_f32.kt", "model": "m", "path": "$TMP/mean_wrong.c"}
{"task": "level1/relu", "model": "m", "path": "$S/relu.c"}
EOF
expect_success "a run over three suite tasks (two honest, one wrong) and one other task" '
	"$KJ" run "$TMP/run.jsonl" --db "$TMP/r.sqlite" --name r --backend cpu --quiet'
expect_success "report --weights: fast_p weighted by the tasks' shares of GPU time" '
	"$KJ" report r --db "$TMP/r.sqlite" --format json --weights "$D" >"$TMP/rep.json" &&
	test "$(json_get "$TMP/rep.json" weighted.tasks_weighted)" = 3 &&
	test "$(json_get "$TMP/rep.json" weighted.tasks_unweighted)" = 1 &&
	perl -MJSON::PP -e "local \$/; open my \$f, \"<\", \$ARGV[0]; my \$m = decode_json(<\$f>);
		my %w = map { \$_->{task} => \$_->{weight} } @{\$m->{tasks}};
		my \$want = (\$w{decode_linear_bf16} + \$w{prefill_linear_bf16}) /
			(\$w{decode_linear_bf16} + \$w{prefill_linear_bf16} + \$w{decode_mean_f32});
		exit(abs(\$ARGV[1] - \$want) < 1e-9 && abs(\$ARGV[2] - \$want) < 1e-9 ? 0 : 1)" \
		"$D/suite.json" "$(json_get "$TMP/rep.json" weighted.fast_p.0)" "$(json_get "$TMP/rep.json" weighted.correct_rate)"'
expect_success "the weighted S_agg is reported (null on the CPU track: no roofline there)" '
	grep -q "\"s_agg\": null" "$TMP/rep.json" &&
	perl -MJSON::PP -e "local \$/; my \$o = decode_json(<STDIN>); exit(exists \$o->{weighted}{s_agg} ? 0 : 1)" <"$TMP/rep.json" &&
	test "$(json_get "$TMP/rep.json" fast_p.0)" = 0.75'
expect_success "the Markdown and HTML reports have the weighted section" '
	"$KJ" report r --db "$TMP/r.sqlite" --weights "$D/suite.json" | grep -q "^## Weighted by importance" &&
	"$KJ" report r --db "$TMP/r.sqlite" --weights "$D" --format html | grep -q "<h2>Weighted by importance</h2>"'
expect_success "report --weights with a missing manifest fails and names it" '
	"$KJ" report r --db "$TMP/r.sqlite" --weights "$TMP/nope.json" 2>"$TMP/e"; test $? -eq 1 &&
	grep -q "nope.json" "$TMP/e"'
expect_success "importing over a suite needs --force" '
	"$KJ" trace import "$SMALL" -o "$D" 2>"$TMP/e"; test $? -eq 1 && grep -q "already holds a suite" "$TMP/e"'
cp -r "$D" "$TMP/before"
expect_success "refresh from the same trace leaves the suite as it was" '
	"$KJ" trace import "$SMALL" --refresh "$D" --json >"$TMP/ref.json" &&
	test "$(json_get "$TMP/ref.json" shapes_found)" = 72 && test "$(json_get "$TMP/ref.json" new_shapes)" = 0 &&
	for f in "$D"/*.kt; do cmp -s "$f" "$TMP/before/$(basename "$f")" || exit 1; done'
expect_success "refresh from another trace rewrites only the bench weights" '
	"$KJ" trace import "$BIG" --refresh "$D" --json >"$TMP/ref2.json" &&
	test "$(json_get "$TMP/ref2.json" shapes_found)" = 2 && test "$(json_get "$TMP/ref2.json" new_shapes)" = 80 &&
	! cmp -s "$D/decode_linear_bf16.kt" "$TMP/before/decode_linear_bf16.kt" &&
	for f in "$D"/*.kt; do
		diff <(grep -v "^bench [A-Z]" "$f") <(grep -v "^bench [A-Z]" "$TMP/before/$(basename "$f")") || exit 1
	done'
cat >"$TMP/other.json" <<'EOF'
{"traceEvents": [
 {"ph": "X", "cat": "cpu_op", "name": "aten::frobnicate", "pid": 1, "tid": 1, "ts": 10, "dur": 50, "args": {"External id": 5, "Input Dims": [[4]], "Input type": ["float"]}},
 {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 20, "dur": 5, "args": {"correlation": 7}},
 {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 30, "dur": 3, "args": {"correlation": 7}}
]}
EOF
expect_success "an unknown operator is listed, not fatal" '
	"$KJ" trace import "$TMP/other.json" --json >"$TMP/o.json" &&
	test "$(json_get "$TMP/o.json" tasks)" = 0 && test "$(json_get "$TMP/o.json" unmapped.0.op)" = aten::frobnicate &&
	test "$(json_get "$TMP/o.json" unmapped.0.share)" = 1'
expect_success "refresh from a trace with none of the suite's shapes fails (exit 1)" '
	"$KJ" trace import "$TMP/other.json" --refresh "$D" 2>"$TMP/e"; test $? -eq 1 && grep -q "no shape of the suite" "$TMP/e"'
printf '{"traceEvents": [\n {"ph": "X", "cat": "kernel",\n' >"$TMP/cut.json"
expect_success "a truncated trace: exit 1, says where and suggests truncation" '
	"$KJ" trace import "$TMP/cut.json" 2>"$TMP/e"; test $? -eq 1 &&
	grep -q "is not valid JSON: .* at line 3, column 0" "$TMP/e" && grep -q "truncated" "$TMP/e"'
: >"$TMP/empty.json"
expect_success "an empty trace: exit 1, says empty" '
	"$KJ" trace import "$TMP/empty.json" 2>"$TMP/e"; test $? -eq 1 && grep -q "is empty" "$TMP/e"'
expect_success "the shipped tasks/trace/llama is what the importer makes of tests/data/llama_trace.json.gz" '
	"$KJ" trace import "$BIG" -o "$TMP/llama" >/dev/null && diff -r "$TMP/llama" "$KJ_ROOT/tasks/trace/llama"'
done_testing
