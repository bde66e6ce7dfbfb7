#!/usr/bin/env bash
# Tasks with many tensors and dims (worker protocol v3: up to 64 pointer and
# 32 dim arguments): the prototype is printed whole, a candidate with more
# than 16 pointers is called and judged on the CPU track, and a task past
# the limits is refused before anything is compiled, with the reason.
. "$(dirname "$0")/lib.sh"

# a task with N inputs x0..x{N-1} (each adds its index+1 times itself) and one
# output: N + 1 pointer arguments, one dim
wide_task() {
	local n=$1 i
	{
		echo "task wide$n"
		echo "level 1"
		echo "category Math"
		echo "about \"sum of $n scaled inputs\""
		for i in $(seq 0 $((n - 1))); do echo "input  x$i: f32[N] ~ normal"; done
		echo "output y: f32[N]"
		printf 'y = x0'
		for i in $(seq 1 $((n - 1))); do printf ' + x%d * %d.0' "$i" $((i + 1)); done
		echo
		echo "check N=1; N=37"
	} >"$TMP/wide$n.kt"
}
# its CPU candidate, honest (or with inputs 30 and 31 swapped when $2 = swap)
wide_cand() {
	local n=$1 i
	{
		echo "#include <stdint.h>"
		printf 'void wide%d(' "$n"
		for i in $(seq 0 $((n - 1))); do printf 'const float *x%d, ' "$i"; done
		echo "float *y, int64_t N)"
		echo "{"
		echo "	for (int64_t i = 0; i < N; i++)"
		printf '		y[i] = x0[i]'
		for i in $(seq 1 $((n - 1))); do
			k=$i
			if [ "${2:-}" = swap ] && [ "$i" = 30 ]; then k=31; elif [ "${2:-}" = swap ] && [ "$i" = 31 ]; then k=30; fi
			printf ' + x%d[i] * %d.0f' "$k" $((i + 1))
		done
		echo ";"
		echo "}"
	} >"$TMP/wide$n${2:-}.c"
}

# 33 inputs of 33 different lengths: 33 dims
{
	echo "task dims33"; echo "level 1"; echo "category Math"; echo "about \"33 dims\""
	for i in $(seq 0 32); do echo "input  x$i: f32[D$i] ~ normal"; done
	echo "output y: f32[D0]"
	printf 'y = x0'
	for i in $(seq 1 32); do printf ' + sum(x%d)' "$i"; done
	echo
	printf 'check'; for i in $(seq 0 32); do printf ' D%d=%d' "$i" $((i + 2)); done; echo
} >"$TMP/dims33.kt"
wide_task 40
wide_cand 40
wide_cand 40 swap
wide_task 64

expect_success "show prints the whole prototype of a 20-pointer task" '
	"$KJ" show --json level3/deep_narrow_mlp >"$TMP/show.json" &&
	p=$(json_get "$TMP/show.json" prototype_cpu) &&
	test "$(printf "%s" "$p" | grep -o "float\*" | wc -l)" -eq 20 &&
	printf "%s" "$p" | grep -q "float\* y, int64_t N, int64_t IN, int64_t H, int64_t OUT)$" &&
	printf "%s" "$(json_get "$TMP/show.json" prototype_cuda)" | grep -q "int64_t OUT, cudaStream_t stream)$"'
expect_success "the prompt carries the 41-pointer prototype exactly" '
	"$KJ" prompt --backend cpu "$TMP/wide40.kt" >"$TMP/prompt" &&
	grep -qF "const float* x39, float* y, int64_t N)" "$TMP/prompt"'
expect_success "a 41-pointer candidate is called and passes (exit 0)" '
	"$KJ" eval --json --quiet --no-perf "$TMP/wide40.kt" "$TMP/wide40.c" >"$TMP/v.json"; rc=$?
	echo "rc $rc: $(json_get "$TMP/v.json" reason)"
	test $rc -eq 0 && test "$(json_get "$TMP/v.json" status)" = pass'
expect_success "swapping pointer arguments 31 and 32 is a mismatch (exit 1)" '
	"$KJ" eval --json --quiet --no-perf "$TMP/wide40.kt" "$TMP/wide40swap.c" >"$TMP/v.json"; rc=$?
	echo "rc $rc: $(json_get "$TMP/v.json" reason)"
	test $rc -eq 1 && test "$(json_get "$TMP/v.json" status)" = mismatch'
expect_success "a task of 65 tensors is refused before compiling, naming the limit" '
	"$KJ" eval --quiet --no-perf "$TMP/wide64.kt" "$TMP/wide40.c" 2>"$TMP/err"; rc=$?
	cat "$TMP/err"; test $rc -ne 0 && test $rc -ne 1 && grep -q "more than 64 tensors" "$TMP/err"'
expect_success "a task of 33 dims is refused before compiling, naming the limit" '
	"$KJ" eval --quiet --no-perf "$TMP/dims33.kt" "$TMP/wide40.c" 2>"$TMP/err"; rc=$?
	cat "$TMP/err"; test $rc -ne 0 && test $rc -ne 1 && grep -q "33 dims, more than the 32" "$TMP/err"'
done_testing
