#!/usr/bin/env bash
# Judges every CPU case file (examples/solutions/cpu, examples/broken/cpu,
# examples/redteam/*.c) and asserts the verdict its kjudge-case header
# declares, the exit code that goes with it, and the flag when one is named.
. "$(dirname "$0")/lib.sh"

files=$(ls "$KJ_ROOT"/examples/solutions/cpu/*.c "$KJ_ROOT"/examples/broken/cpu/*.c \
	"$KJ_ROOT"/examples/redteam/*.c 2>/dev/null)
count=0
for f in $files; do
	hdr=$(head -n 1 "$f")
	task=$(printf '%s\n' "$hdr" | sed -n 's/.*task=\([^ ]*\).*/\1/p')
	expect=$(printf '%s\n' "$hdr" | sed -n 's/.*expect=\([^ ]*\).*/\1/p')
	flag=$(printf '%s\n' "$hdr" | sed -n 's/.*flag=\([^ ]*\).*/\1/p')
	rel=${f#"$KJ_ROOT"/}
	count=$((count + 1))
	if [ -z "$task" ] || [ -z "$expect" ]; then
		expect_success "$rel has a kjudge-case header" 'false'
		continue
	fi
	want_rc=1
	[ "$expect" = pass ] && want_rc=0
	expect_success "$rel: $expect${flag:+ flag=$flag}" '
		"$KJ" eval --json --quiet --no-perf --timeout 2 "'"$task"'" "'"$f"'" >"$TMP/v.json"; rc=$?
		st=$(json_get "$TMP/v.json" status)
		echo "status $st rc $rc: $(json_get "$TMP/v.json" reason)"
		test "$st" = "'"$expect"'" && test $rc -eq '"$want_rc"' &&
		{ test -z "'"$flag"'" || json_get "$TMP/v.json" flags | grep -q "\"'"$flag"'\""; }'
done
expect_success "found at least 10 honest and 8 broken CPU cases" '
	test $(ls "$KJ_ROOT"/examples/solutions/cpu/*.c | wc -l) -ge 10 &&
	test $(ls "$KJ_ROOT"/examples/broken/cpu/*.c | wc -l) -ge 8'
done_testing
