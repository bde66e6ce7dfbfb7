#!/usr/bin/env bash
# The layer rules of docs/architecture.md (tests/check_layers.sh, make
# check-layers): the tree keeps them, and a planted include that breaks one
# is found and named.
. "$(dirname "$0")/lib.sh"
CHECK=$KJ_ROOT/tests/check_layers.sh

# copy ROOT: the parts of the tree that the check reads, in $TMP/ROOT
copy() { mkdir -p "$TMP/$1" && cp -r "$KJ_ROOT/src" "$KJ_ROOT/include" "$KJ_ROOT/docs" "$TMP/$1/"; }

expect_success "the tree keeps its layers" '
	"$CHECK" "$KJ_ROOT"'
expect_success "the store including the judge fails, naming the file, line and rule" '
	copy store && printf "#include \"kjudge/judge.h\"\n" >>"$TMP/store/src/store/queue.c"
	"$CHECK" "$TMP/store" >"$TMP/o"; rc=$?; cat "$TMP/o"; test $rc -eq 1 &&
	n=$(wc -l <"$KJ_ROOT/src/store/queue.c") &&
	grep -qx "src/store/queue.c:$((n + 1)) includes kjudge/judge.h: store may not use judge" "$TMP/o"'
expect_success "a public header that breaks a rule fails too (verdict.h including store.h)" '
	copy hdr && sed -i "s|#include \"kjudge/task.h\"|&\n#include \"kjudge/store.h\"|" \
		"$TMP/hdr/include/kjudge/verdict.h"
	"$CHECK" "$TMP/hdr" >"$TMP/o"; rc=$?; cat "$TMP/o"; test $rc -eq 1 &&
	grep -q "^include/kjudge/verdict.h:[0-9]* includes kjudge/store.h: verdict may not use store$" "$TMP/o"'
expect_success "a private header of another folder counts as its layer (core including sandbox/wire.h)" '
	copy priv && printf "#include \"sandbox/wire.h\"\n" >>"$TMP/priv/src/core/err.c"
	"$CHECK" "$TMP/priv" >"$TMP/o"; rc=$?; cat "$TMP/o"; test $rc -eq 1 &&
	grep -q "^src/core/err.c:[0-9]* includes sandbox/wire.h: core may not use sandbox$" "$TMP/o"'
expect_success "a folder or public header missing from the table is an error (exit 2)" '
	copy new && mkdir "$TMP/new/src/newmod" && printf "int x;\n" >"$TMP/new/src/newmod/x.c" &&
	printf "int y;\n" >"$TMP/new/include/kjudge/newmod.h"
	"$CHECK" "$TMP/new" >"$TMP/o"; rc=$?; cat "$TMP/o"; test $rc -eq 2 &&
	grep -q "^src/newmod/x.c: no layer" "$TMP/o" && grep -q "^include/kjudge/newmod.h: no layer" "$TMP/o"'
expect_success "an include that resolves to no file is an error (exit 2)" '
	copy miss && printf "#include \"kjudge/nowhere.h\"\n" >>"$TMP/miss/src/task/plan.c"
	"$CHECK" "$TMP/miss" >"$TMP/o"; rc=$?; cat "$TMP/o"; test $rc -eq 2 &&
	grep -q "^src/task/plan.c:[0-9]* includes kjudge/nowhere.h: no such file" "$TMP/o"'
done_testing
