#!/usr/bin/env bash
# The command-line contract: help, exit codes, listings, prompts, JSON.
. "$(dirname "$0")/lib.sh"

expect_success "kjudge --help exits 0 and lists the commands" '
	"$KJ" --help >"$TMP/h" && grep -q "eval TASK FILE" "$TMP/h" && grep -q "demo" "$TMP/h"'
for c in tasks show prompt eval demo ops calibrate; do
	expect_success "kjudge $c --help exits 0" '"$KJ" '$c' --help | grep -q "usage: kjudge '$c'"'
done
expect_success "no command is a usage error (2)" '"$KJ"; test $? -eq 2'
expect_success "an unknown command is a usage error (2)" '"$KJ" frobnicate 2>"$TMP/e"; test $? -eq 2 && grep -q "unknown command" "$TMP/e"'
expect_success "eval without a file is a usage error (2)" '"$KJ" eval level1/relu 2>"$TMP/e"; test $? -eq 2 && grep -q "expected TASK and FILE" "$TMP/e"'
expect_success "eval of an unknown task says so and exits 2" '
	"$KJ" eval level1/nope "$KJ_ROOT/examples/solutions/cpu/relu.c" 2>"$TMP/e"; test $? -eq 2 &&
	grep -q "unknown task .level1/nope." "$TMP/e"'
expect_success "eval of a missing file names it and exits 2" '
	"$KJ" eval level1/relu /nonexistent.c 2>"$TMP/e"; test $? -eq 2 && grep -q "/nonexistent.c" "$TMP/e"'
expect_success "eval rejects a bad --seeds value" '"$KJ" eval --seeds 0 level1/relu x.c 2>/dev/null; test $? -eq 2'
expect_success "tasks lists at least 20 tasks, every one loading" '
	"$KJ" tasks >"$TMP/t" && test "$(grep -c "^level" "$TMP/t")" -ge 20'
expect_success "tasks --level 2 lists only level 2" '
	"$KJ" tasks --level 2 >"$TMP/t" && grep -q "^level2/" "$TMP/t" && ! grep -q "^level1/" "$TMP/t"'
expect_success "tasks --json is a JSON array with task, level, category" '
	"$KJ" tasks --json >"$TMP/t.json" && test "$(json_get "$TMP/t.json" 0.level)" -ge 1 &&
	test "$(json_get "$TMP/t.json" 0.task)" != null'
expect_success "show prints both prototypes" '
	"$KJ" show level1/softmax >"$TMP/s" &&
	grep -qF "void softmax(const float* x, float* y, int64_t B, int64_t D);" "$TMP/s" &&
	grep -qF "extern \"C\" void softmax(const float* x, float* y, int64_t B, int64_t D, cudaStream_t stream);" "$TMP/s"'
expect_success "show --json gives flops per shape" '
	"$KJ" show --json level1/matmul_square >"$TMP/s.json" && test "$(json_get "$TMP/s.json" shapes.0.flops)" != null'
expect_success "prompt names the prototype, the op semantics and the rules" '
	"$KJ" prompt level1/softmax --backend cpu >"$TMP/p" &&
	grep -qF "void softmax(const float* x, float* y, int64_t B, int64_t D);" "$TMP/p" &&
	grep -q "^- softmax" "$TMP/p" && grep -q "pre-filled with NaN" "$TMP/p"'
expect_success "prompt for cuda asks for the stream" '
	"$KJ" prompt level1/softmax >"$TMP/p" && grep -q "cudaStream_t stream" "$TMP/p"'
if ! nvidia-smi -L >/dev/null 2>&1; then
	expect_success "without a GPU, eval --backend cuda is a judge error (3) that says why" '
		"$KJ" eval --backend cuda level1/relu "$KJ_ROOT/examples/solutions/cpu/relu.c" 2>"$TMP/e"; test $? -eq 3 &&
		grep -q "needs a CUDA device" "$TMP/e"'
	expect_success "without a GPU, calibrate exits 3 and says why" '
		"$KJ" calibrate 2>"$TMP/e"; test $? -eq 3 && grep -q "no CUDA device" "$TMP/e"'
fi
expect_success "ops lists matmul with its semantics" '"$KJ" ops | grep -q "^matmul("'

cat >"$TMP/bad.kt" <<'KT'
task bad
input a: f32[M, K]
input b: f32[32, N]
output c: f32[M, N]
c = matmul(a, b)
check M=2 K=64 N=3
KT
expect_success "a task error names file:line:col and the shapes" '
	"$KJ" show "$TMP/bad.kt" 2>"$TMP/e"; test $? -eq 2 &&
	grep -qF "bad.kt:5:5: matmul: inner dims K=64 and 32 differ" "$TMP/e"'

S=$KJ_ROOT/examples/solutions/cpu
expect_success "eval --json prints one kjudge.verdict/1 object with the contract fields" '
	"$KJ" eval --json --quiet level1/relu "$S/relu.c" >"$TMP/v.json" &&
	test "$(json_get "$TMP/v.json" schema)" = kjudge.verdict/1 &&
	test "$(json_get "$TMP/v.json" status)" = pass &&
	test "$(json_get "$TMP/v.json" stage)" = done &&
	for k in task backend candidate_sha256 reason flags correctness perf device; do
		test "$(json_get "$TMP/v.json" $k)" != null || { echo "missing $k"; exit 1; }; done &&
	test "$(json_get "$TMP/v.json" perf.0.n)" -ge 10 &&
	test "$(json_get "$TMP/v.json" perf.0.baseline_ms)" != null'
expect_success "the second eval of the same source uses the compile cache" '
	"$KJ" eval --json --quiet --no-perf level1/relu "$S/relu.c" >"$TMP/v2.json" &&
	test "$(json_get "$TMP/v2.json" compile.cached)" = true'
expect_success "--no-cache compiles again" '
	"$KJ" eval --json --quiet --no-perf --no-cache level1/relu "$S/relu.c" >"$TMP/v3.json" &&
	test "$(json_get "$TMP/v3.json" compile.cached)" = false'
expect_success "verdicts repeat exactly (correctness details identical)" '
	"$KJ" eval --json --no-perf level1/softmax "$S/softmax.c" >"$TMP/a.json" &&
	"$KJ" eval --json --no-perf level1/softmax "$S/softmax.c" >"$TMP/b.json" &&
	test "$(json_get "$TMP/a.json" correctness)" = "$(json_get "$TMP/b.json" correctness)" &&
	test "$(json_get "$TMP/a.json" correctness.29.seed_index)" = 4'
expect_success "--seed-secret hides the seed and draws other inputs" '
	"$KJ" eval --json --no-perf --seed-secret s3cret level1/softmax "$S/softmax.c" >"$TMP/h.json" &&
	test "$(json_get "$TMP/h.json" base_seed)" = hidden &&
	test "$(json_get "$TMP/h.json" status)" = pass &&
	test "$(json_get "$TMP/h.json" correctness)" != "$(json_get "$TMP/a.json" correctness)"'
expect_success "KJUDGE_SEED_SECRET in the environment does the same" '
	KJUDGE_SEED_SECRET=s3cret "$KJ" eval --json --no-perf level1/softmax "$S/softmax.c" >"$TMP/h2.json" &&
	test "$(json_get "$TMP/h2.json" correctness)" = "$(json_get "$TMP/h.json" correctness)"'
expect_success "the eager baseline error is reported beside the candidate error" '
	test "$(json_get "$TMP/a.json" correctness.0.baseline_max_abs_err)" != null'
expect_success "a wrong answer names the output, index, expected and got" '
	"$KJ" eval --json --no-perf level1/relu "$KJ_ROOT/examples/broken/cpu/wrong_result.c" >"$TMP/w.json"; test $? -eq 1 &&
	test "$(json_get "$TMP/w.json" status)" = mismatch &&
	json_get "$TMP/w.json" reason | grep -q "expected .*, got"'
cat >"$TMP/exp0.kt" <<'KT'
task exp0
input  x: f32[B, D] ~ normal
output y: f32[B, D]
y = exp(x)
check B=3 D=17
bench cpu B=3 D=17 weight=1
tol atol=0 rtol=0
KT
cat >"$TMP/exp0.c" <<'C'
#include <math.h>
#include <stdint.h>
void exp0(const float *x, float *y, int64_t B, int64_t D)
{
	for (int64_t i = 0; i < B * D; i++)
		y[i] = (float)exp((double)x[i]);
}
C
expect_success "a check the eager baseline fails too says so in the reason, and flags the verdict" '
	"$KJ" eval --json --no-perf "$TMP/exp0.kt" "$TMP/exp0.c" >"$TMP/e0.json"; test $? -eq 1 &&
	test "$(json_get "$TMP/e0.json" status)" = mismatch &&
	json_get "$TMP/e0.json" flags | grep -q baseline_out_of_tolerance &&
	json_get "$TMP/e0.json" reason | grep -q "the eager baseline is out of tolerance on this check too ([1-9][0-9]* elements, max abs err"'
expect_success "a wrong answer where the baseline is within tolerance does not mention it" '
	! json_get "$TMP/w.json" reason | grep -q "eager baseline" &&
	! json_get "$TMP/w.json" flags | grep -q baseline_out_of_tolerance'
done_testing
