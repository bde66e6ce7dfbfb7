# TAP helpers for command-line tests (sourced).  One behaviour per
# expect_success call, as git's test-lib does; done_testing prints the plan.
set -u
KJ_BUILD=${KJ_BUILD:-$(cd "$(dirname "$0")/../.." && pwd)/build}
KJ_ROOT=$(cd "$(dirname "$0")/../.." && pwd)
KJ=$KJ_BUILD/kjudge
TMP=$(mktemp -d "${TMPDIR:-/tmp}/kjtest.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
# a caller may share a cache (the GPU run does, so baselines and compiles are reused)
export KJUDGE_CACHE=${KJ_TEST_CACHE:-$TMP/cache}
n_=0
failed_=0

# expect_success "description" 'shell commands'
expect_success() {
	n_=$((n_ + 1))
	if (eval "$2") >"$TMP/out.$n_" 2>&1; then
		echo "ok $n_ - $1"
	else
		echo "not ok $n_ - $1"
		sed 's/^/#   /' "$TMP/out.$n_" | head -40
		failed_=$((failed_ + 1))
	fi
}

# json_get FILE PATH: prints the value at a JSON path like status or perf.0.ms
json_get() {
	perl -MJSON::PP -e '
		local $/; open my $f, "<", $ARGV[0] or die "cannot open $ARGV[0]";
		my $v = JSON::PP->new->decode(<$f>);
		for my $k (split /\./, $ARGV[1]) { $v = ref $v eq "ARRAY" ? $v->[$k] : $v->{$k}; }
		print defined $v ? (ref $v ? JSON::PP->new->canonical->encode($v) : $v) : "null";
	' "$1" "$2"
}

# hdr FILE KEY: a value of a case file's `// kjudge-case:` header (task, expect, flag)
hdr() { head -n 1 "$1" | sed -n "s/.*$2=\([^ ]*\).*/\1/p"; }

# need_gpu_python: the GPU tests of the Python tracks skip (saying why) without
# a CUDA device or without torch, triton and cupy in ${KJ_PYTHON:-python3}
need_gpu_python() {
	if ! nvidia-smi -L >/dev/null 2>&1; then
		echo "1..0 # SKIP no CUDA device"
		exit 0
	fi
	if ! ${KJ_PYTHON:-python3} -c "import torch, triton, cupy" >/dev/null 2>&1; then
		echo "1..0 # SKIP ${KJ_PYTHON:-python3} cannot import torch, triton and cupy"
		exit 0
	fi
}

done_testing() {
	echo "1..$n_"
	[ "$failed_" -eq 0 ]
}

# pg_start: a throw-away PostgreSQL server in $TMP/pg (tests/cli/pg.sh) and
# its URL in $URL; with none here, the whole test skips (exit 77 from pg.sh)
# unless CI or KJ_REQUIRE_PG asks for one, and any other failure is one
# failing test.  The caller sets the trap that stops it.
pg_start() {
	local rc
	URL=$("$KJ_ROOT/tests/cli/pg.sh" start "$TMP/pg" 2>"$TMP/pg.err")
	rc=$?
	[ $rc -eq 0 ] && return 0
	if [ $rc -eq 77 ] && [ -z "${KJ_REQUIRE_PG:-}${CI:-}" ]; then
		echo "1..0 # SKIP no PostgreSQL server here: $(head -n 1 "$TMP/pg.err")"
		exit 0
	fi
	echo "not ok 1 - start a PostgreSQL server (Debian package postgresql)"
	sed 's/^/#   /' "$TMP/pg.err" | head -40
	echo "1..1"
	exit 1
}
