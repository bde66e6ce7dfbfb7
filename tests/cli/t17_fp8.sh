#!/usr/bin/env bash
# The f8e4m3 dtype (torch.float8_e4m3fn) end to end on the CPU track: the
# prototypes and prompts of level1/fp8_block_gemm, the op check that keeps
# f8 a storage type, its lint and sizing, and a cast-to-f8 task judged with
# PyTorch's rule (|x| > 464 -> NaN), which a saturating candidate fails.
. "$(dirname "$0")/lib.sh"

cat >"$TMP/badf8.kt" <<'KT'
task badf8
level 1
category Math
about "exp of an f8 tensor"
input  a: f8e4m3[N] ~ normal
output y: f32[N]
y = relu(cast(a, f32)) + exp(a)
check N=2
KT
cat >"$TMP/quant8.kt" <<'KT'
task quant8
level 1
category Quantization
about "x * 16 cast to f8e4m3"
input  x: f32[N] ~ normal
output q: f8e4m3[N]
q = cast(x * 16.0, f8e4m3)
check N=1; N=5003
bench cpu N=100003 weight=1
KT
cat >"$TMP/quant8.c" <<'C'
#include <stdint.h>

#include "kjudge_cpu.h"

void quant8(const float *x, kj_fp8_e4m3 *q, int64_t N)
{
	for (int64_t i = 0; i < N; i++)
		q[i] = kj_float_to_fp8_e4m3(x[i] * 16.0f);
}
C
# CUDA's __nv_fp8_e4m3(float) rule: past 448 saturate instead of NaN
cat >"$TMP/quant8_sat.c" <<'C'
#include <stdint.h>

#include "kjudge_cpu.h"

void quant8(const float *x, kj_fp8_e4m3 *q, int64_t N)
{
	for (int64_t i = 0; i < N; i++) {
		float v = x[i] * 16.0f;
		v = v > 448.0f ? 448.0f : v < -448.0f ? -448.0f : v;
		q[i] = kj_float_to_fp8_e4m3(v);
	}
}
C

expect_success "show: the CPU prototype passes kj_fp8_e4m3, the CUDA one __nv_fp8_e4m3" '
	"$KJ" show level1/fp8_block_gemm >"$TMP/show" &&
	grep -q "void fp8_block_gemm(const kj_fp8_e4m3\* a, const float\* sa, const kj_fp8_e4m3\* b, const float\* sb, kj_bfloat16\* y, int64_t M, int64_t KB, int64_t NB);" "$TMP/show" &&
	grep -q "extern \"C\" void fp8_block_gemm(const __nv_fp8_e4m3\* a, const float\* sa, const __nv_fp8_e4m3\* b" "$TMP/show"'
expect_success "the CUDA prompt explains f8e4m3 as __nv_fp8_e4m3 and its saturating constructor" '
	"$KJ" prompt level1/fp8_block_gemm --backend cuda >"$TMP/p" &&
	grep -q "f8e4m3 is PyTorch.s torch.float8_e4m3fn" "$TMP/p" &&
	grep -q "__nv_fp8_e4m3 (cuda_fp8.h" "$TMP/p" && grep -q "saturates to 448" "$TMP/p"'
expect_success "the CPU prompt names kj_fp8_e4m3 and its conversions" '
	"$KJ" prompt level1/fp8_block_gemm --backend cpu >"$TMP/p" &&
	grep -q "kj_fp8_e4m3 (an 8-bit pattern) with kj_fp8_e4m3_to_float and kj_float_to_fp8_e4m3" "$TMP/p"'
expect_success "a prompt without f8 values says nothing of f8e4m3" '
	"$KJ" prompt level1/w8a8_gemm --backend cuda >"$TMP/p" && ! grep -q "f8e4m3" "$TMP/p"'
expect_success "an op other than cast/reshape on f8 fails naming the op, operand and dtype" '
	"$KJ" show "$TMP/badf8.kt" >/dev/null 2>"$TMP/e"; rc=$?; cat "$TMP/e";
	test $rc -ne 0 &&
	grep -q "badf8.kt:7:26: exp: operand 1 has dtype f8e4m3, which only cast() and reshape take (cast it to f32, f16 or bf16 first)" "$TMP/e"'
expect_success "fp8_block_gemm passes the degeneracy lint" '
	"$KJ" lint-tasks level1/fp8_block_gemm >"$TMP/o" && grep -q "^ok level1/fp8_block_gemm$" "$TMP/o"'
expect_success "its two bench shapes are estimated within [1.5, 15] ms" '
	"$KJ" lint-tasks --only-sizing --estimates-only level1/fp8_block_gemm >"$TMP/o"; cat "$TMP/o";
	test $(grep -c "level1/fp8_block_gemm M=.*: ~.* ms" "$TMP/o") -eq 2 &&
	sed -n "s/.*: ~\([0-9.]*\) ms.*/\1/p" "$TMP/o" | awk "\$1 < 1.5 || \$1 > 15 { bad = 1 } END { exit bad }"'
expect_success "a cast to f8e4m3 by the PyTorch rule passes" '
	"$KJ" eval --json --quiet --no-perf "$TMP/quant8.kt" "$TMP/quant8.c" >"$TMP/v.json"; rc=$?;
	echo "$(json_get "$TMP/v.json" status): $(json_get "$TMP/v.json" reason)";
	test $rc -eq 0 && test "$(json_get "$TMP/v.json" status)" = pass'
expect_success "a saturating cast (the CUDA constructor) fails where outliers pass 464" '
	"$KJ" eval --json --quiet --no-perf "$TMP/quant8.kt" "$TMP/quant8_sat.c" >"$TMP/v.json"; rc=$?;
	echo "$(json_get "$TMP/v.json" status): $(json_get "$TMP/v.json" reason)";
	test $rc -eq 1 && test "$(json_get "$TMP/v.json" status)" = mismatch &&
	json_get "$TMP/v.json" reason | grep -q "outliers"'
done_testing
