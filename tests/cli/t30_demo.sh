#!/usr/bin/env bash
# kjudge demo, as the README's first command runs it.
. "$(dirname "$0")/lib.sh"
expect_success "demo --quick judges every example as its header says and exits 0" '
	"$KJ" demo --quick >"$TMP/d"; rc=$?; tail -3 "$TMP/d"; test $rc -eq 0 &&
	grep -q "0 unexpected, 0 judge errors" "$TMP/d"'
done_testing
