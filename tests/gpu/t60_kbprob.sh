#!/usr/bin/env bash
# KernelBench problem files as tasks on a real GPU (docs/kernelbench.md,
# "KernelBench problem files as tasks"): kjudge's own problem files in
# examples/kernelbench_problems/level1 (not KernelBench's) and the candidates
# in examples/kernelbench_problems/cand, each with a header
#   # kjudge-case: problem=level1/1_relu expect=pass[ flag=fallback]
# judged with `kjudge eval PROBLEM.py CAND.py --json`; every verdict (and
# flag) is asserted, and a passing one must carry a baseline time measured
# by the reference worker.  Then: the describe step's JSON, a file without
# Model (exit 2), --kernelbench-dir with a task name, and `kjudge run` with a
# spec whose task is a problem file.  Needs python3 with torch, triton and
# cupy (KJ_PYTHON to choose).  KJ_KB_ONLY=REGEX judges only matching cases;
# KJ_KB_LOG=FILE collects one line per case (status, flags, ms, baseline ms).
. "$(dirname "$0")/../cli/lib.sh"
need_gpu_python
P=$KJ_ROOT/examples/kernelbench_problems
W=$KJ_ROOT/python/kjudge_pyworker.py

expect_success "describe: a scalar among get_inputs' values, outputs' shapes from one forward" '
	${KJ_PYTHON:-python3} -I "$W" --describe "$P/level1/4_scale_scalar.py" >"$TMP/d.json" &&
	cat "$TMP/d.json" && test "$(json_get "$TMP/d.json" ok)" = true &&
	test "$(json_get "$TMP/d.json" inputs.1.value)" = 3.5 &&
	test "$(json_get "$TMP/d.json" outputs.0.shape.1)" = 4099'

expect_success "describe: the init arguments" '
	${KJ_PYTHON:-python3} -I "$W" --describe "$P/level1/2_linear.py" >"$TMP/d.json" &&
	test "$(json_get "$TMP/d.json" init.1)" = 768 && test "$(json_get "$TMP/d.json" outputs.0.shape.1)" = 768'

expect_success "tasks --kernelbench: the shapes from the describe step" '
	"$KJ" tasks --kernelbench "$P" --level 1 --json >"$TMP/t.json"; cat "$TMP/t.json"
	test "$(json_get "$TMP/t.json" 0.shapes)" = "x0 f32[64, 8191] -> y0 f32[64, 8191]" &&
	test "$(json_get "$TMP/t.json" 3.shapes)" = "x0 f32[1024, 4099] -> y0 f32[1024, 4099]" &&
	json_get "$TMP/t.json" 5.error | grep -q "defines no Model"'

expect_success "prompt PROBLEM.py: the problem's source and the ModelNew contract" '
	"$KJ" prompt "$P/level1/2_linear.py" >"$TMP/p.txt" && grep -q "class Model(nn.Module)" "$TMP/p.txt" &&
	grep -q "torch.manual_seed(42)" "$TMP/p.txt"'

expect_success "a file without Model is a usage error naming what is missing" '
	"$KJ" eval --json "$P/level1/6_no_model.py" "$P/cand/relu_triton.py" >"$TMP/v.json"; rc=$?
	cat "$TMP/v.json"; test $rc -eq 2 && grep -q "defines no Model" "$TMP/v.json"'

for f in "$P"/cand/*.py; do
	if [ -n "${KJ_KB_ONLY:-}" ] && ! printf '%s\n' "$f" | grep -Eq "$KJ_KB_ONLY"; then
		continue
	fi
	problem=$(hdr "$f" problem)
	expect=$(hdr "$f" expect)
	flag=$(hdr "$f" flag)
	perf="--no-perf --seeds 3"
	[ "$expect" = pass ] && perf="--perf-budget ${KJ_KB_PERF_BUDGET:-0.3}"
	want_rc=1
	[ "$expect" = pass ] && want_rc=0
	rel=${f#"$KJ_ROOT"/}
	expect_success "$rel on $problem: $expect${flag:+ flag=$flag}" '
		t0=$(date +%s%N)
		"$KJ" eval --json --quiet '"$perf"' "'"$P/$problem.py"'" "'"$f"'" >"$TMP/v.json"; rc=$?
		st=$(json_get "$TMP/v.json" status)
		line="status $st stage $(json_get "$TMP/v.json" stage) rc $rc flags $(json_get "$TMP/v.json" flags) ms $(json_get "$TMP/v.json" perf.0.ms) baseline_ms $(json_get "$TMP/v.json" perf.0.baseline_ms) wall $(( ($(date +%s%N) - t0) / 1000000 )) ms: $(json_get "$TMP/v.json" reason)"
		echo "$line"; [ -n "${KJ_KB_LOG:-}" ] && echo "'"$rel"': $line" >>"$KJ_KB_LOG"
		test "$(json_get "$TMP/v.json" task)" = "kernelbench/'"$problem"'" &&
		test "$st" = "'"$expect"'" && test $rc -eq '"$want_rc"' &&
		{ test -z "'"$flag"'" || json_get "$TMP/v.json" flags | grep -q "\"'"$flag"'\""; } &&
		{ test "'"$expect"'" != pass || perl -e "exit !(\$ARGV[0] > 0)" "$(json_get "$TMP/v.json" perf.0.baseline_ms)"; }'
done

expect_success "the problem's own get_inputs() values are one seed more (seed_index 5 of 0..5)" '
	"$KJ" eval --json --quiet --no-perf "$P/level1/2_linear.py" "$P/cand/linear_torch.py" >"$TMP/v.json"; rc=$?
	n=$(perl -MJSON::PP -e "local \$/; open my \$f, q(<), \$ARGV[0]; my \$v = JSON::PP->new->decode(<\$f>);
		my \$m = -1; for (@{\$v->{correctness}}) { \$m = \$_->{seed_index} if \$_->{seed_index} > \$m } print \$m" "$TMP/v.json")
	echo "rc $rc max seed_index $n"; test $rc -eq 0 && test "$n" = 5'

expect_success "--kernelbench-dir: a problem named by its path under the checkout" '
	"$KJ" eval --json --quiet --no-perf --seeds 2 --kernelbench-dir "$P" level1/5_sum_dim "$P/cand/sum_dim_torch.py" \
		>"$TMP/v.json"; rc=$?
	echo "rc $rc status $(json_get "$TMP/v.json" status)"; test $rc -eq 0 &&
	test "$(json_get "$TMP/v.json" task)" = kernelbench/level1/5_sum_dim'

expect_success "kjudge run: a spec whose task is a problem file" '
	printf "{\"task\": \"%s\", \"model\": \"m\", \"path\": \"%s\"}\n" "$P/level1/1_relu.py" "$P/cand/relu_triton.py" \
		>"$TMP/spec.jsonl" &&
	printf "{\"task\": \"%s\", \"model\": \"m\", \"sample\": 1, \"path\": \"%s\"}\n" "$P/level1/1_relu.py" \
		"$P/cand/relu_wrong.py" >>"$TMP/spec.jsonl" &&
	"$KJ" run "$TMP/spec.jsonl" --backend kernelbench --db "$TMP/r.sqlite" --name kbp --no-perf --seeds 2 --json \
		>"$TMP/run.json"; rc=$?; cat "$TMP/run.json"
	KJ_KERNELBENCH_DIR=$P "$KJ" report kbp --db "$TMP/r.sqlite" --format json >"$TMP/rep.json" || exit 1
	echo "judged $(json_get "$TMP/rep.json" judged) correct $(json_get "$TMP/rep.json" correct)"
	test "$(json_get "$TMP/rep.json" judged)" = 2 && test "$(json_get "$TMP/rep.json" correct)" = 1'

. "$KJ_ROOT/tests/cli/serve_lib.sh"
expect_success "serve --kernelbench-dir: a job naming a problem of the checkout gets its verdict" '
	start kb "$TMP/s.sqlite" --backend kernelbench --kernelbench-dir "$P"
	test "$PORT_kb" -gt 0 || { cat "$TMP/kb.log"; exit 1; }
	body "$TMP/kbjob.json" kernelbench/level1/1_relu "$P/cand/relu_triton.py" &&
	test "$(http $PORT_kb POST /v1/jobs --data-binary @"$TMP/kbjob.json")" = 202 || { cat "$TMP/resp"; exit 1; }
	id=$(json_get "$TMP/resp" id)
	http $PORT_kb GET "/v1/jobs/$id?wait=300" >/dev/null; cat "$TMP/resp" | head -c 600; echo
	st=$(json_get "$TMP/resp" verdict.status); kill $PID_kb; wait $PID_kb
	test "$st" = pass'

done_testing
