#!/usr/bin/env bash
# KernelBench problem files as tasks, without a GPU or torch: the errors of
# `kjudge eval PROBLEM.py CAND.py` before any device is used (no such file,
# a Python without torch in the describe step, a KernelBench task name
# without a checkout), each with its exit status and one JSON object under
# --json.  tests/gpu/t60_kbprob.sh judges the candidates on a GPU.
. "$(dirname "$0")/lib.sh"
P=$KJ_ROOT/examples/kernelbench_problems
# a python3 in which torch cannot be imported, whatever this host has
mkdir -p "$TMP/py"
cat >"$TMP/py/python3" <<'PY'
#!/bin/sh
[ "$1" = -I ] && shift
exec python3 -I -c 'import runpy, sys; sys.modules["torch"] = None; sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name="__main__")' "$@"
PY
chmod +x "$TMP/py/python3"

expect_success "a problem file that does not exist: exit 2, named" '
	"$KJ" eval "$TMP/none.py" "$P/cand/relu_triton.py" 2>"$TMP/e"; rc=$?
	cat "$TMP/e"; test $rc -eq 2 && grep -q "cannot open KernelBench problem .*none.py.: No such file" "$TMP/e"'

expect_success "the describe step in a Python without torch: exit 3 saying so" '
	KJ_PYTHON=$TMP/py/python3 "$KJ" eval "$P/level1/1_relu.py" "$P/cand/relu_triton.py" 2>"$TMP/e"; rc=$?
	cat "$TMP/e"; test $rc -eq 3 &&
	grep -q "cannot describe KernelBench problem .*1_relu.py.: torch is not importable by" "$TMP/e"'

expect_success "--json: one object with the error and exit 3" '
	KJ_PYTHON=$TMP/py/python3 "$KJ" eval --json "$P/level1/1_relu.py" "$P/cand/relu_triton.py" >"$TMP/o" 2>/dev/null; rc=$?
	cat "$TMP/o"; test $rc -eq 3 && test "$(json_get "$TMP/o" exit)" = 3 &&
	json_get "$TMP/o" error.message | grep -q "torch is not importable"'

expect_success "no python3 at all: exit 3" '
	KJ_PYTHON=$TMP/nothing/python3 "$KJ" eval "$P/level1/1_relu.py" "$P/cand/relu_triton.py" 2>"$TMP/e"; rc=$?
	cat "$TMP/e"; test $rc -eq 3 && grep -q "python3 not found" "$TMP/e"'

expect_success "a KernelBench task name without a checkout: exit 2 saying where to point" '
	env -u KJ_KERNELBENCH_DIR "$KJ" eval kernelbench/level1/19_ReLU "$P/cand/relu_triton.py" 2>"$TMP/e"; rc=$?
	cat "$TMP/e"; test $rc -eq 2 && grep -q "kernelbench-dir DIR or KJ_KERNELBENCH_DIR" "$TMP/e"'

expect_success "--kernelbench-dir: a name that is not in the checkout is unknown (exit 2)" '
	"$KJ" eval --kernelbench-dir "$P" kernelbench/level1/99_none "$P/cand/relu_triton.py" 2>"$TMP/e"; rc=$?
	cat "$TMP/e"; test $rc -eq 2 && grep -q "unknown KernelBench problem" "$TMP/e"'

expect_success "--kernelbench-dir: a problem found there goes to the describe step" '
	KJ_PYTHON=$TMP/py/python3 "$KJ" eval --kernelbench-dir "$P" level1/1_relu "$P/cand/relu_triton.py" 2>"$TMP/e"; rc=$?
	cat "$TMP/e"; test $rc -eq 3 && grep -q "describe KernelBench problem .*level1/1_relu.py" "$TMP/e"'

expect_success "tasks --kernelbench DIR --no-shapes: the problems by level and number" '
	"$KJ" tasks --kernelbench "$P" --no-shapes >"$TMP/o" || exit 1
	cat "$TMP/o"; test $(wc -l <"$TMP/o") -eq 6 &&
	head -n 1 "$TMP/o" | grep -q "^kernelbench/level1/1_relu  *L1 #1  *relu" &&
	sed -n 2p "$TMP/o" | grep -q "^kernelbench/level1/2_linear "'

expect_success "tasks --kernelbench --json: one array; a problem not described carries its error" '
	KJ_PYTHON=$TMP/py/python3 "$KJ" tasks --kernelbench "$P" --level 1 --json >"$TMP/o" || exit 1
	test "$(json_get "$TMP/o" 4.id)" = kernelbench/level1/5_sum_dim && test "$(json_get "$TMP/o" 4.number)" = 5 &&
	json_get "$TMP/o" 0.error | grep -q "torch is not importable"'

expect_success "tasks --kernelbench on a folder without problems: exit 2" '
	"$KJ" tasks --kernelbench "$TMP" --no-shapes 2>"$TMP/e"; rc=$?
	cat "$TMP/e"; test $rc -eq 2 && grep -q "no KernelBench problems" "$TMP/e"'

# a python3 whose describe step answers with a fixed description, counting its runs
cat >"$TMP/py/fake3" <<PY
#!/bin/sh
echo run >>"$TMP/describe.count"
cat <<'JSON'
{"ok": true, "problem": "p", "seed": 42, "init": [], "inputs": [{"tensor": true, "shape": [64, 8191], "dtype": "float32", "min": -4.0, "max": 4.1}, {"tensor": false, "value": 2}], "outputs": [{"shape": [64, 8191], "dtype": "float32"}], "training": true, "torch": "stand-in"}
JSON
PY
chmod +x "$TMP/py/fake3"

expect_success "a described problem is a task: show names it, its shapes and tolerance" '
	rm -f "$TMP/describe.count"
	KJ_PYTHON=$TMP/py/fake3 "$KJ" show "$P/level1/1_relu.py" >"$TMP/o" 2>&1; rc=$?
	cat "$TMP/o"; test $rc -eq 0 && grep -q "kernelbench/level1/1_relu" "$TMP/o" && grep -q "x0" "$TMP/o" &&
	grep -q "8191" "$TMP/o"'

expect_success "the description is cached: a second load does not run the describe step" '
	KJ_PYTHON=$TMP/py/fake3 "$KJ" show "$P/level1/1_relu.py" >/dev/null 2>&1 &&
	test "$(wc -l <"$TMP/describe.count")" -eq 1'

expect_success "prompt PROBLEM.py: the source of the problem and the ModelNew contract" '
	KJ_PYTHON=$TMP/py/fake3 "$KJ" prompt "$P/level1/1_relu.py" >"$TMP/o" 2>&1; rc=$?
	test $rc -eq 0 && grep -q "return torch.relu(x)" "$TMP/o" && grep -q "torch.manual_seed(42)" "$TMP/o" &&
	grep -q "Task: kernelbench/level1/1_relu" "$TMP/o"'

expect_success "eval PROBLEM.py with another --backend is a usage error" '
	KJ_PYTHON=$TMP/py/fake3 "$KJ" eval --backend triton "$P/level1/1_relu.py" "$P/cand/relu_triton.py" 2>"$TMP/e"; rc=$?
	cat "$TMP/e"; test $rc -eq 2 && grep -q "judged with --backend kernelbench" "$TMP/e"'

expect_success "every candidate case names a problem file that exists and an expected status" '
	for f in "$P"/cand/*.py; do
		p=$(hdr "$f" problem); e=$(hdr "$f" expect)
		test -f "$P/$p.py" || { echo "$f: no problem $p"; exit 1; }
		case $e in pass|mismatch|rejected|runtime_error|call_error) ;; *) echo "$f: expect=$e"; exit 1 ;; esac
	done'

done_testing
