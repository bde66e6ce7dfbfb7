#!/usr/bin/env bash
# The sandbox from the command line: a judge without bubblewrap refuses to
# judge unless told --unsafe-no-sandbox (and then says unconfined), verdicts
# say how the candidate was confined and what round-trip floor was taken
# off, nothing of the host reaches a verdict through the compiler or the
# worker, and the seed secret stays off the judge's command line.
. "$(dirname "$0")/lib.sh"

RELU=$KJ_ROOT/examples/solutions/cpu/relu.c

expect_success "without bubblewrap, eval refuses to judge (exit 3) and says what to do" '
	KJ_BWRAP=/nonexistent/bwrap "$KJ" eval --quiet --no-perf level1/relu "$RELU" >"$TMP/o" 2>"$TMP/e"; rc=$?
	cat "$TMP/e"
	test $rc -eq 3 && grep -q "cannot sandbox untrusted code" "$TMP/e" &&
	grep -q "bubblewrap" "$TMP/e" && grep -q -- "--unsafe-no-sandbox" "$TMP/e"'

expect_success "--unsafe-no-sandbox judges anyway, and the verdict says unconfined" '
	KJ_BWRAP=/nonexistent/bwrap "$KJ" eval --json --quiet --no-perf --unsafe-no-sandbox level1/relu "$RELU" \
		>"$TMP/v.json"; rc=$?
	test $rc -eq 0 && test "$(json_get "$TMP/v.json" status)" = pass &&
	json_get "$TMP/v.json" flags | grep -q "\"unconfined\"" &&
	json_get "$TMP/v.json" sandbox | grep -q "unsafe-no-sandbox"'

expect_success "a sandboxed verdict names its sandbox, is not flagged, and has its trusted floor" '
	"$KJ" eval --json --quiet --perf-budget 0.1 level1/relu "$RELU" >"$TMP/v.json" &&
	json_get "$TMP/v.json" sandbox | grep -q "^bubblewrap" &&
	! json_get "$TMP/v.json" flags | grep -q unconfined &&
	perl -e "exit !(\$ARGV[0] > 0)" "$(json_get "$TMP/v.json" rtt_floor_us)" &&
	perl -e "exit !(\$ARGV[0] > 0)" "$(json_get "$TMP/v.json" perf.0.wall_ms)" &&
	test "$(json_get "$TMP/v.json" perf.0.checked_outputs)" = "$(json_get "$TMP/v.json" perf.0.verified_outputs)"'

# A host file the compiler must not see, by its absolute path.
printf 'int kj_leak = 1; /* KJHOSTSECRET-%s */\n' $$ >"$TMP/host_secret.h"
expect_success "#include of a host file by its absolute path: compile_error, not a byte of it in the verdict" '
	printf "#include \"%s\"\nvoid relu(const float *x, float *y, long long B, long long D) {}\n" \
		"$TMP/host_secret.h" >"$TMP/inc.c"
	"$KJ" eval --json --quiet --no-perf level1/relu "$TMP/inc.c" >"$TMP/v.json"; rc=$?
	json_get "$TMP/v.json" reason
	test $rc -eq 1 && test "$(json_get "$TMP/v.json" status)" = compile_error &&
	json_get "$TMP/v.json" compile.log | grep -q "No such file or directory" &&
	! grep -q KJHOSTSECRET "$TMP/v.json"'

expect_success "the compile cache and the store are not there either" '
	"$KJ" eval --quiet --no-perf level1/relu "$RELU" >/dev/null &&
	so=$(find "$KJUDGE_CACHE/cpu" -name "*.so" | head -n 1) && test -n "$so" &&
	printf "#include \"%s\"\n" "$so" >"$TMP/inc2.c" &&
	"$KJ" eval --json --quiet --no-perf level1/relu "$TMP/inc2.c" >"$TMP/v.json"; rc=$?
	test $rc -eq 1 && json_get "$TMP/v.json" compile.log | grep -q "No such file or directory"'

expect_success "an endless #include of /dev/zero ends in compile_error naming the memory limit" '
	printf "#include \"/dev/zero\"\n" >"$TMP/zero.c"
	"$KJ" eval --json --quiet --no-perf level1/relu "$TMP/zero.c" >"$TMP/v.json"; rc=$?
	json_get "$TMP/v.json" reason
	test $rc -eq 1 && test "$(json_get "$TMP/v.json" status)" = compile_error &&
	json_get "$TMP/v.json" reason | grep -q "memory limit"'

# The worker prints what it can read of its environment and of its
# parent: the judge's variables (a marker here) must not be among them.
cat >"$TMP/env_dump.c" <<'EOF'
#include <stdint.h>
/* raw system calls: the symbol policy rejects file functions, the sandbox
 * is what must keep the judge's secrets out of reach */
static long sys3(long nr, long a, long b, long c)
{
	long r;
	__asm__ volatile("syscall" : "=a"(r) : "0"(nr), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
	return r;
}
static void dump(const char *path)
{
	char buf[8192];
	long fd = sys3(257 /* openat */, -100, (long)path, 0), n;
	if (fd < 0)
		return;
	n = sys3(0 /* read */, fd, (long)buf, sizeof(buf));
	sys3(3 /* close */, fd, 0, 0);
	for (long i = 0; i < n; i++)
		if (!buf[i])
			buf[i] = '\n';
	if (n > 0)
		sys3(1 /* write */, 1, (long)buf, n);
}
/* at load: once the calls begin the CPU worker can open nothing */
__attribute__((constructor)) static void look(void)
{
	dump("/proc/self/environ");
	dump("/proc/1/environ");
	dump("/proc/1/cmdline");
}
void relu(const float *x, float *y, int64_t B, int64_t D)
{
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0 ? x[i] : 0;
}
EOF
expect_success "the judge's environment and command line are not readable from the worker" '
	KJ_TEST_MARKER=kjmarker-$$ "$KJ" eval --json --quiet --no-perf --seed-secret "kjsecret-$$" level1/relu \
		"$TMP/env_dump.c" >"$TMP/v.json"; rc=$?
	json_get "$TMP/v.json" worker_log | head -c 600
	test $rc -eq 0 && json_get "$TMP/v.json" worker_log | grep -q "HOME=/scratch" &&
	! grep -q "kjmarker-$$" "$TMP/v.json" && ! grep -q "kjsecret-$$" "$TMP/v.json"'

expect_success "--seed-secret-file gives the same hidden seed as --seed-secret" '
	printf "kj-file-secret\n" >"$TMP/secret"
	"$KJ" eval --json --quiet --no-perf --seed-secret kj-file-secret level1/relu "$RELU" >"$TMP/a.json" &&
	"$KJ" eval --json --quiet --no-perf --seed-secret-file "$TMP/secret" level1/relu "$RELU" >"$TMP/b.json" &&
	test "$(json_get "$TMP/a.json" base_seed)" = hidden &&
	test "$(json_get "$TMP/a.json" correctness.0.seed)" = "$(json_get "$TMP/b.json" correctness.0.seed)" &&
	KJUDGE_SEED_SECRET_FILE="$TMP/secret" "$KJ" eval --json --quiet --no-perf level1/relu "$RELU" >"$TMP/c.json" &&
	test "$(json_get "$TMP/a.json" correctness.0.seed)" = "$(json_get "$TMP/c.json" correctness.0.seed)"'

# A candidate that sleeps in its first call keeps the judge running long
# enough to read its command line from outside.
cat >"$TMP/slow.c" <<'EOF'
#include <stdint.h>
#include <time.h>
void relu(const float *x, float *y, int64_t B, int64_t D)
{
	static int first = 1;
	if (first) {
		struct timespec t = { 1, 500000000 };
		first = 0;
		nanosleep(&t, 0);
	}
	for (int64_t i = 0; i < B * D; i++)
		y[i] = x[i] > 0 ? x[i] : 0;
}
EOF
expect_success "a --seed-secret given on the command line is overwritten in the judge's argv" '
	"$KJ" eval --quiet --no-perf --timeout 5 --seed-secret "kjargv-$$" level1/relu "$TMP/slow.c" >/dev/null &
	pid=$!
	seen=""
	# once the judge has a child (the compiler or the worker), its options are parsed
	for i in $(seq 1 200); do
		sleep 0.05
		test -n "$(cat "/proc/$pid/task/$pid/children" 2>/dev/null)" || continue
		seen=$(tr "\0" " " <"/proc/$pid/cmdline" 2>/dev/null)
		break
	done
	wait $pid
	echo "cmdline: $seen"
	test -n "$seen" && ! echo "$seen" | grep -q "kjargv-$$"'

# AddressSanitizer reserves terabytes of address space as a program starts:
# a sanitizer build of kjudge cannot start under a 4 GiB RLIMIT_AS at all
# (and gives its workers none: worker_client.c, KJ_ASAN_BUILD)
if nm -D "$KJ" 2>/dev/null | grep -q ' __asan_init$'; then
	n_=$((n_ + 1))
	echo "ok $n_ # SKIP an AddressSanitizer build of kjudge cannot start under an RLIMIT_AS of 4 GiB"
else
	expect_success "under an inherited hard RLIMIT_AS of 4 GiB a candidate is judged and the verdict names the lowered limit" '
		( ulimit -v 4194304 &&
		  "$KJ" eval --json --quiet --no-perf --no-cache level1/relu "$KJ_ROOT/examples/solutions/cpu/relu.c" \
			>"$TMP/lim.json" ); rc=$?
		echo "rc $rc limits $(json_get "$TMP/lim.json" limits)"
		test $rc -eq 0 && test "$(json_get "$TMP/lim.json" status)" = pass &&
		json_get "$TMP/lim.json" limits | grep -q "worker: RLIMIT_AS 4096 MiB (kjudge asks 8192 MiB)"'
fi

expect_success "without an inherited limit the verdict has none to report" '
	"$KJ" eval --json --quiet --no-perf level1/relu "$KJ_ROOT/examples/solutions/cpu/relu.c" >"$TMP/nolim.json" &&
	test "$(json_get "$TMP/nolim.json" limits)" = null'

expect_success "eval --help says how to pass the secret and what the sandbox is" '
	"$KJ" eval --help >"$TMP/h" && grep -q -- "--seed-secret-file" "$TMP/h" &&
	grep -q -- "--unsafe-no-sandbox" "$TMP/h" && grep -q "bubblewrap" "$TMP/h"'

done_testing
