#!/usr/bin/env bash
# docs/ops.md's index of ops is what tests/ops_index.py reads from the code
# (the tables, the preprocessed CPU sources, the CUDA objects of the build),
# and the script notices a block that is out of date.
. "$(dirname "$0")/lib.sh"
if ! command -v python3 >/dev/null 2>&1; then
	echo "1..0 # SKIP python3 is not installed"
	exit 0
fi
if ! ls "$KJ_BUILD"/obj/src/ops/cuda/*.o >/dev/null 2>&1; then
	echo "1..0 # SKIP no CUDA objects in $KJ_BUILD (the index needs a CUDA build)"
	exit 0
fi
IDX=$KJ_ROOT/tests/ops_index.py

expect_success "docs/ops.md's index is what the code says" '
	cd "$KJ_ROOT" && "$IDX" --build "$KJ_BUILD" --check docs/ops.md'
expect_success "an index whose cumsum row names another CUDA file is out of date" '
	sed "s#^\(| .cumsum. |.*\)ops_scan\.cu#\1ops_reduce.cu#" "$KJ_ROOT/docs/ops.md" >"$TMP/ops.md" &&
	! cmp -s "$TMP/ops.md" "$KJ_ROOT/docs/ops.md" &&
	cd "$KJ_ROOT" && ! "$IDX" --build "$KJ_BUILD" --check "$TMP/ops.md" 2>"$TMP/err" &&
	grep -q "is out of date" "$TMP/err"'
done_testing
