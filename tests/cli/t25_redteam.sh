#!/usr/bin/env bash
# Red-team behaviour that a case header cannot express (t20_cases.sh judges
# every examples/redteam/*.c by its header, with --no-perf): options
# (--policy strict, --seed-secret), the timing phase, and the class counts
# the suite promises (docs/threat-model.md).
. "$(dirname "$0")/lib.sh"

RT=$KJ_ROOT/examples/redteam

expect_success "the red team has at least 30 cases and every class 1-19" '
	test $(ls "$RT"/*.c "$RT"/*.cu | wc -l) -ge 30 &&
	for c in 01 02 03 04 05 06 07 08 09 10 11 12 13 14 15 16 17 18 19; do
		ls "$RT"/${c}_* >/dev/null 2>&1 || { echo "no case for class $c"; exit 1; }
	done'

expect_success "every red-team case names its class in its comment" '
	for f in "$RT"/*.c "$RT"/*.cu; do
		sed -n 2,3p "$f" | grep -q "class [0-9]" || { echo "$f"; exit 1; }
	done'

expect_success "a BLAS fallback is rejected under --policy strict" '
	"$KJ" eval --json --quiet --no-perf --policy strict level1/matmul_square \
		"$RT/09_cblas_extern.c" >"$TMP/v.json"; rc=$?
	test $rc -eq 1 && test "$(json_get "$TMP/v.json" status)" = rejected &&
	json_get "$TMP/v.json" reason | grep -q "library fallback (BLAS).*(policy strict)"'

expect_success "the same fallback is flagged, with its library, under the default policy" '
	"$KJ" eval --json --quiet --no-perf level1/matmul_square "$RT/09_cblas_extern.c" >"$TMP/v.json"
	json_get "$TMP/v.json" flags | grep -q "\"fallback\"" &&
	test "$(json_get "$TMP/v.json" fallback_libs)" = BLAS'

expect_success "seed prediction works against the public default seed (documented gap)" '
	"$KJ" eval --json --quiet --no-perf level1/relu "$RT/13_seed_prediction.c" >"$TMP/v.json"
	test "$(json_get "$TMP/v.json" status)" = pass'

if "$KJ" eval --help 2>&1 | grep -q -- --seed-secret; then
	expect_success "seed prediction fails under a hidden seed (--seed-secret)" '
		"$KJ" eval --json --quiet --no-perf --seed-secret "kjudge-test-secret-$$" level1/relu \
			"$RT/13_seed_prediction.c" >"$TMP/v.json"; rc=$?
		test $rc -eq 1 && test "$(json_get "$TMP/v.json" status)" = mismatch'
else
	n_=$((n_ + 1))
	echo "ok $n_ # SKIP kjudge eval has no --seed-secret yet"
fi

# Honest for exactly the calls the correctness stage makes on level1/relu
# (4 check shapes + 1 CPU bench shape, 5 seeds), lazy afterwards: the phases
# after it (the determinism rerun, then the timed calls, every one checked)
# must catch it.
cat >"$TMP/lazy_after_correctness.c" <<'EOF'
#include <stdint.h>
static int calls;
void relu(const float *x, float *y, int64_t B, int64_t D)
{
	if (++calls > 25)
		return;
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
EOF
expect_success "a candidate honest only in the correctness calls is caught after them" '
	{ "$KJ" eval --json --quiet --perf-budget 0.2 level1/relu "$TMP/lazy_after_correctness.c" >"$TMP/v.json"; test $? -eq 1; } &&
	test "$(json_get "$TMP/v.json" status)" = mismatch &&
	json_get "$TMP/v.json" reason | grep -Eq "determinism rerun|timed call"'

expect_success "the judge goes on after a candidate kills its worker (SIGSYS), then passes an honest one" '
	"$KJ" eval --json --quiet --no-perf level1/relu "$RT/15_elf_walk_fork.c" >"$TMP/v.json"
	json_get "$TMP/v.json" reason | grep -q "bad system call (SIGSYS)" &&
	"$KJ" eval --json --quiet --no-perf level1/relu "$KJ_ROOT/examples/solutions/cpu/relu.c" >"$TMP/h.json" &&
	test "$(json_get "$TMP/h.json" status)" = pass'

# A metric task's cosine/L1/RMSE sum float elements only: its integer
# outputs must still be judged exactly, or they could hold anything.
cat >"$TMP/metric_int.kt" <<'KT'
task metric_int
level 1
category Quantization
about "a float output judged by metric next to an integer one"
input  x: f32[N] ~ normal
output y: f32[N]
output q: i32[N]
y = x * 2.0
q = cast(x * 100.0, i32)
check N=37; N=1000
bench cpu N=4096 weight=1
metric cos>=0.999 l1<=0.01
KT
cat >"$TMP/metric_int_ok.c" <<'C'
#include <stdint.h>
void metric_int(const float *x, float *y, int32_t *q, int64_t N)
{
	for (int64_t i = 0; i < N; i++) {
		y[i] = x[i] * 2.0f;
		q[i] = (int32_t)(x[i] * 100.0f);
	}
}
C
sed 's/q\[i\] = (int32_t)(x\[i\] \* 100.0f);/q[i] = 0;/' "$TMP/metric_int_ok.c" >"$TMP/metric_int_zero.c"
expect_success "a metric task passes a candidate whose integer output is right" '
	"$KJ" eval --json --quiet --no-perf "$TMP/metric_int.kt" "$TMP/metric_int_ok.c" >"$TMP/v.json"
	test "$(json_get "$TMP/v.json" status)" = pass'
expect_success "and fails one whose integer output is zeros (the metric skips integers)" '
	grep -q "q\[i\] = 0;" "$TMP/metric_int_zero.c" &&
	"$KJ" eval --json --quiet --no-perf "$TMP/metric_int.kt" "$TMP/metric_int_zero.c" >"$TMP/v.json"
	test "$(json_get "$TMP/v.json" status)" = mismatch &&
	json_get "$TMP/v.json" reason | grep -q "q"'

# ---- classes 20-29: attacks that reach past the symbol policy (raw system
# calls, in-memory ELF walks, GOT hooks in kjudge-worker, constructors) ----

expect_success "every class 20-29 has a C or CUDA case that names it" '
	for c in 20 21 22 23 24 25 26 27 28 29; do
		ls "$RT"/${c}_*.c "$RT"/${c}_*.cu 2>/dev/null | xargs -r grep -l "class $c " | grep -q . ||
			{ echo "no C/CUDA case for class $c"; exit 1; }
	done'

# A crash is the right verdict only if the filter made it: a bug in the
# attack (a bad clone stack, a wild pointer) would read "crash" too.
expect_success "signalling the judge and raw threads die by the filter (SIGSYS), the judge goes on" '
	for c in 20_fsetown_kill 20_fioasync_ioctl 25_clone_spinners 26_raw_clone_rows 26_libc_walk_pthread; do
		"$KJ" eval --json --quiet --no-perf --timeout 2 level1/relu "$RT/$c.c" >"$TMP/v.json"; rc=$?
		echo "$c: rc $rc status $(json_get "$TMP/v.json" status): $(json_get "$TMP/v.json" reason)"
		test $rc -eq 1 && test "$(json_get "$TMP/v.json" status)" = crash &&
			json_get "$TMP/v.json" reason | grep -q "bad system call (SIGSYS)" || exit 1
	done'

# 21_got_recvmsg_ftruncate.c keeps the ARENA descriptor through a recvmsg
# hook and truncates it after each call: the judge must survive, and the
# log must show that the attack ran and was refused (a pass with the hook
# broken would prove nothing).
expect_success "a kept arena descriptor cannot shrink the arena, and the judge survives" '
	"$KJ" eval --json --quiet --no-perf --timeout 2 level1/relu "$RT/21_got_recvmsg_ftruncate.c" >"$TMP/v.json"; rc=$?
	echo "rc $rc: $(json_get "$TMP/v.json" status): $(json_get "$TMP/v.json" worker_log)"
	test $rc -eq 0 && test "$(json_get "$TMP/v.json" status)" = pass &&
	json_get "$TMP/v.json" worker_log | grep -Eq "ftruncate\(arena fd [0-9]+, 0\) = -[0-9]+"'

# Replies other than a CALL's held back 50 ms from inside the worker: a
# round-trip floor measured after the load would eat every CPU call (ms 0,
# speedup 0).
for c in 22_got_send_delay 22_got_recvmsg_nop; do
	expect_success "$c: delayed untimed replies do not zero the times (perf on)" '
		"$KJ" eval --json --quiet --timeout 2 --perf-budget 0.2 level1/relu "$RT/'"$c"'.c" >"$TMP/v.json"
		ms=$(json_get "$TMP/v.json" perf.0.ms); sp=$(json_get "$TMP/v.json" perf.0.speedup)
		echo "status $(json_get "$TMP/v.json" status) ms $ms speedup $sp"
		test "$(json_get "$TMP/v.json" status)" = pass &&
		perl -e "exit !(\$ARGV[0] > 0 && \$ARGV[1] > 0)" "$ms" "$sp"'
done

expect_success "a BLAS reached through libc's symbol table is flagged, with its library" '
	"$KJ" eval --json --quiet --no-perf level1/matmul_square "$RT/27_elf_walk_dlopen_blas.c" >"$TMP/v.json"
	json_get "$TMP/v.json" flags | grep -q "\"fallback\"" &&
	json_get "$TMP/v.json" fallback_libs | grep -q BLAS'

expect_success "27_elf_walk_dlopen_blas: rejected under --policy strict" '
	"$KJ" eval --json --quiet --no-perf --policy strict level1/matmul_square "$RT/27_elf_walk_dlopen_blas.c" \
		>"$TMP/v.json"; rc=$?
	echo "rc $rc: $(json_get "$TMP/v.json" status): $(json_get "$TMP/v.json" reason)"
	test $rc -eq 1 && test "$(json_get "$TMP/v.json" status)" = rejected &&
	json_get "$TMP/v.json" reason | grep -q "BLAS"'

# Loading a library within a call (and unloading it before returning, so
# that no map read after the call shows it) needs an open and an executable
# mapping, both refused on the CPU track once the candidate is loaded.
expect_success "27_dlopen_dlclose_per_call: no library can be loaded during a call" '
	"$KJ" eval --json --quiet --no-perf --policy strict level1/matmul_square "$RT/27_dlopen_dlclose_per_call.c" \
		>"$TMP/v.json"; rc=$?
	echo "rc $rc: $(json_get "$TMP/v.json" status): $(json_get "$TMP/v.json" reason)"
	test $rc -eq 1 && test "$(json_get "$TMP/v.json" status)" = mismatch'

# The same refusals from inside a call, by raw system calls: an open of a
# library, anonymous memory made executable, an executable mapping.
cat >"$TMP/postload.c" <<'EOF'
#include <stdint.h>
static long sys6(long nr, long a, long b, long c, long d, long e, long f)
{
	long r;
	register long r10 __asm__("r10") = d, r8 __asm__("r8") = e, r9 __asm__("r9") = f;
	__asm__ volatile("syscall" : "=a"(r) : "0"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return r;
}
void relu(const float *x, float *y, int64_t B, int64_t D)
{
	long fd = sys6(257 /* openat */, -100, (long)"/usr/lib/x86_64-linux-gnu/libc.so.6", 0, 0, 0, 0);
	long m = sys6(9 /* mmap */, 0, 4096, 3 /* rw */, 0x22 /* private anon */, -1, 0);
	long px = sys6(10 /* mprotect */, m, 4096, 5 /* r-x */, 0, 0, 0);
	long fx = sys6(9 /* mmap */, 0, 4096, 5 /* r-x */, 0x22, -1, 0);
	/* an answer only when all three were refused (-EPERM) */
	for (int64_t i = 0; i < B * D; i++)
		y[i] = fd == -1 && px == -1 && fx == -1 && m > 0 ? (x[i] > 0 ? x[i] : 0) : -1;
}
EOF
expect_success "after LOAD the CPU worker can neither open a file nor make memory executable" '
	"$KJ" eval --json --quiet --no-perf level1/relu "$TMP/postload.c" >"$TMP/v.json"; rc=$?
	echo "rc $rc: $(json_get "$TMP/v.json" status): $(json_get "$TMP/v.json" reason)"
	test $rc -eq 0 && test "$(json_get "$TMP/v.json" status)" = pass'

# Honest through the correctness stage, lazy on timed calls: the headers say
# pass (t20 runs --no-perf); with perf every timed call is checked.
for c in 28_skip_every_second 28_proc_seed_skip; do
	expect_success "$c: caught on the timed calls (perf on)" '
		"$KJ" eval --json --quiet --timeout 2 --perf-budget 0.3 level1/relu "$RT/'"$c"'.c" >"$TMP/v.json"; rc=$?
		test $rc -eq 1 && test "$(json_get "$TMP/v.json" status)" = mismatch &&
		json_get "$TMP/v.json" reason | grep -q "timed call"'
done

# 28_proc_seed_skip.c prints any secret it finds in /proc/*/cmdline or
# /proc/*/environ into its log, which the verdict carries.
secret="kjudge-rt-secret-$$-$RANDOM"
expect_success "a seed secret given on the command line never reaches the candidate" '
	"$KJ" eval --json --quiet --timeout 2 --perf-budget 0.3 --seed-secret "'"$secret"'" level1/relu \
		"$RT/28_proc_seed_skip.c" >"$TMP/v.json"
	json_get "$TMP/v.json" worker_log | grep -q "secret(s) found" &&
	! grep -q "'"$secret"'" "$TMP/v.json"'
expect_success "nor one given in the environment" '
	KJUDGE_SEED_SECRET="'"$secret"'-env" "$KJ" eval --json --quiet --no-perf level1/relu \
		"$RT/28_proc_seed_skip.c" >"$TMP/v.json"
	json_get "$TMP/v.json" worker_log | grep -q "secret(s) found" &&
	! grep -q "'"$secret"'-env" "$TMP/v.json"'

# Host files at compile time: a marker in a file the judge's user can read
# and one in the judge's environment must not come back in the verdict
# (the compiler's log, the candidate's log), and the build must fail.
marker="KJRT_HOST_MARKER_$$_$RANDOM"
printf '%s marker line\n' "$marker" >"$TMP/host_marker.txt"
cat >"$TMP/include_host.c" <<C
#include "/proc/self/environ"
#include "$TMP/host_marker.txt"
#include <stdint.h>
void relu(const float *x, float *y, int64_t B, int64_t D)
{
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
C
cat >"$TMP/incbin_host.c" <<C
#include <stdint.h>
#include <stdio.h>
extern const char blob[], blob_end[];
__asm__(".section .rodata\n.globl blob\nblob:\n.incbin \"$TMP/host_marker.txt\"\n"
	".globl blob_end\nblob_end:\n.byte 0\n.previous\n");
void relu(const float *x, float *y, int64_t B, int64_t D)
{
	fprintf(stderr, "%.*s\n", (int)(blob_end - blob), blob);
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}
C
for c in include_host incbin_host; do
	expect_success "$c: a host file and the judge's environment stay out of the verdict" '
		KJRT_ENV_MARKER="'"$marker"'_ENV" "$KJ" eval --json --quiet --no-perf --timeout 2 level1/relu \
			"$TMP/'"$c"'.c" >"$TMP/v.json"; rc=$?
		echo "rc $rc status $(json_get "$TMP/v.json" status)"
		test $rc -eq 1 && test "$(json_get "$TMP/v.json" status)" = compile_error &&
		! grep -q "'"$marker"'" "$TMP/v.json"'
done

expect_success "an endless include (/dev/zero) ends in a compile_error that names the compiler's limit" '
	"$KJ" eval --json --quiet --no-perf level1/relu "$RT/29_include_dev_zero.c" >"$TMP/v.json"; rc=$?
	echo "rc $rc: $(json_get "$TMP/v.json" status): $(json_get "$TMP/v.json" reason)"
	test $rc -eq 1 && test "$(json_get "$TMP/v.json" status)" = compile_error &&
	json_get "$TMP/v.json" reason | grep -qi "limit"'

done_testing
