#!/usr/bin/env bash
# The CUDA track on a real GPU: judges every CUDA case file
# (examples/solutions/cuda, examples/broken/cuda, examples/redteam/*.cu) and
# asserts the verdict and flag its kjudge-case header declares; a case
# that declares no flag must not be flagged timing_gap (an honest kernel's
# times agree with the judge's clock).
# KJ_CASES_ONLY=a,b picks case files by path; KJ_CASES_BUDGET=S sets --perf-budget
# (default 0.5); KJ_CASES_LOG=FILE appends one
# line per case with its verdict and speedup over the baseline.
. "$(dirname "$0")/../cli/lib.sh"
if ! nvidia-smi -L >/dev/null 2>&1; then
	echo "1..0 # SKIP no CUDA device"
	exit 0
fi
for f in "$KJ_ROOT"/examples/solutions/cuda/*.cu "$KJ_ROOT"/examples/broken/cuda/*.cu \
	"$KJ_ROOT"/examples/redteam/*.cu; do
	[ -f "$f" ] || continue
	# KJ_CASES_ONLY=a,b: only the case files whose path contains a part
	if [ -n "${KJ_CASES_ONLY:-}" ]; then
		keep=0
		for part in ${KJ_CASES_ONLY//,/ }; do
			case "$f" in *"$part"*) keep=1 ;; esac
		done
		[ $keep = 1 ] || continue
	fi
	hdr=$(head -n 1 "$f")
	task=$(printf '%s\n' "$hdr" | sed -n 's/.*task=\([^ ]*\).*/\1/p')
	expect=$(printf '%s\n' "$hdr" | sed -n 's/.*expect=\([^ ]*\).*/\1/p')
	flag=$(printf '%s\n' "$hdr" | sed -n 's/.*flag=\([^ ]*\).*/\1/p')
	rel=${f#"$KJ_ROOT"/}
	want_rc=1
	[ "$expect" = pass ] && want_rc=0
	expect_success "$rel: $expect${flag:+ flag=$flag}" '
		"$KJ" eval --json --quiet --timeout 10 --perf-budget ${KJ_CASES_BUDGET:-0.5} "'"$task"'" "'"$f"'" >"$TMP/v.json"; rc=$?
		st=$(json_get "$TMP/v.json" status)
		echo "status $st rc $rc flags $(json_get "$TMP/v.json" flags) speedup $(json_get "$TMP/v.json" speedup): $(json_get "$TMP/v.json" reason)"
		# KJ_CASES_LOG=FILE: one line per case (verdict, speedup) for the session summary
		if [ -n "${KJ_CASES_LOG:-}" ]; then
			echo "'"$rel"' $st speedup $(json_get "$TMP/v.json" speedup) flags $(json_get "$TMP/v.json" flags | tr -d " ")" >>"$KJ_CASES_LOG"
		fi
		test "$st" = "'"$expect"'" && test $rc -eq '"$want_rc"' &&
		{ test -z "'"$flag"'" || json_get "$TMP/v.json" flags | grep -q "\"'"$flag"'\""; } &&
		{ test -n "'"$flag"'" || ! json_get "$TMP/v.json" flags | grep -q "\"timing_gap\""; }'
done
done_testing
