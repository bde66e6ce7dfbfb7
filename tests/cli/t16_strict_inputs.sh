#!/usr/bin/env bash
# Inputs that used to be accepted and should not be: unknown keys in run
# specs, second spellings of a task id, filters that match nothing, FIFOs and
# devices where a file is expected, and task files no candidate could pass
# (impossible metrics, non-finite numbers, weights that are not shares, a C
# library function as the task's name, shapes too large to judge).
. "$(dirname "$0")/lib.sh"

RELU=$KJ_ROOT/examples/solutions/cpu/relu.c

# a task like the shipped relu, with one line replaced
mk() { # mk NAME 'sed expression'
	sed "$2" "$KJ_ROOT/tasks/level1/relu.kt" >"$TMP/$1.kt"
}

expect_success "a run spec with a misspelt key is refused with its file and line (exit 2)" '
	printf "%s\n" "# two candidates" \
		"{\"task\": \"level1/relu\", \"sample\": 0, \"path\": \"$RELU\"}" \
		"{\"task\": \"level1/relu\", \"sampel\": 1, \"path\": \"$RELU\"}" >"$TMP/spec.jsonl"
	"$KJ" run "$TMP/spec.jsonl" --db "$TMP/s.sqlite" --backend cpu --no-perf 2>"$TMP/err"; rc=$?
	cat "$TMP/err"; test $rc -eq 2 && grep -q "spec.jsonl:3: unknown key \"sampel\"" "$TMP/err"'

expect_success "a task name with a .. part is refused, not made a second task id (exit 2)" '
	"$KJ" eval --backend cpu --no-perf level1/../level1/relu "$RELU" 2>"$TMP/err"; rc=$?
	cat "$TMP/err"; test $rc -eq 2 && grep -q "has an empty, .\.. or .\.\.. part" "$TMP/err"'

expect_success "a task file reached through .. has the task id of its real path" '
	"$KJ" show --json "$KJ_ROOT/tasks/level1/../level1/relu.kt" >"$TMP/show.json" &&
	test "$(json_get "$TMP/show.json" task)" = level1/relu'

expect_success "tasks --level x is a usage error, not the whole list (exit 2)" '
	"$KJ" tasks --level x >"$TMP/out" 2>"$TMP/err"; rc=$?
	cat "$TMP/err"; test $rc -eq 2 && test ! -s "$TMP/out" && grep -q "level number" "$TMP/err"'

expect_success "a category, level or suite that no task has is a usage error naming what exists (exit 2)" '
	"$KJ" tasks --category Nope 2>"$TMP/err1"; r1=$?
	"$KJ" tasks --level 99 2>"$TMP/err2"; r2=$?
	"$KJ" tasks --suite level 2>"$TMP/err3"; r3=$?
	cat "$TMP/err1" "$TMP/err2" "$TMP/err3"
	test $r1 -eq 2 && test $r2 -eq 2 && test $r3 -eq 2 &&
	grep -q "categories: .*Activation" "$TMP/err1" && grep -q "no task has level 99" "$TMP/err2" &&
	grep -q "no suite .level." "$TMP/err3"'

expect_success "an existing filter still lists its tasks (exit 0)" '
	"$KJ" tasks --suite level1 --category Activation >"$TMP/out" &&
	grep -q "^level1/relu " "$TMP/out" && ! grep -q "^level2/" "$TMP/out"'

expect_success "a FIFO as the candidate or the task is refused at once, not waited on" '
	mkfifo "$TMP/fifo"
	timeout 20 "$KJ" eval --backend cpu --no-perf level1/relu "$TMP/fifo" 2>"$TMP/err1"; r1=$?
	timeout 20 "$KJ" show "$TMP/fifo" 2>"$TMP/err2"; r2=$?
	cat "$TMP/err1" "$TMP/err2"
	test $r1 -eq 2 && grep -q "is a FIFO, not a file" "$TMP/err1" &&
	test $r2 -ne 124 && test $r2 -ne 0 && grep -q "is a FIFO, not a task file" "$TMP/err2"'

expect_success "a device or a folder as the candidate is refused by what it is" '
	"$KJ" eval --backend cpu --no-perf level1/relu /dev/zero 2>"$TMP/err1"; r1=$?
	"$KJ" eval --backend cpu --no-perf level1/relu "$TMP" 2>"$TMP/err2"; r2=$?
	cat "$TMP/err1" "$TMP/err2"
	test $r1 -eq 2 && grep -q "is a character device" "$TMP/err1" &&
	test $r2 -eq 2 && grep -q "is a directory" "$TMP/err2"'

expect_success "the task checker refuses an impossible metric (cos>=2, l1<=-1)" '
	mk cos2 "s/^y = relu(x)$/y = relu(x)\nmetric cos>=2/"
	mk l1neg "s/^y = relu(x)$/y = relu(x)\nmetric l1<=-1/"
	! "$KJ" show "$TMP/cos2.kt" 2>"$TMP/err1" && ! "$KJ" show "$TMP/l1neg.kt" 2>"$TMP/err2"
	rc=$?; cat "$TMP/err1" "$TMP/err2"
	test $rc -eq 0 && grep -q "cos>=2 cannot be met" "$TMP/err1" && grep -q "l1<=-1 cannot be met" "$TMP/err2"'

expect_success "the task checker refuses non-finite numbers and weights that are not shares" '
	mk inf "s/weight=0.7;/weight=1e999;/"
	mk heavy "s/weight=0.3$/weight=0.7/"
	! "$KJ" show "$TMP/inf.kt" 2>"$TMP/err1" && ! "$KJ" show "$TMP/heavy.kt" 2>"$TMP/err2"
	rc=$?; cat "$TMP/err1" "$TMP/err2"
	test $rc -eq 0 && grep -q "finite number" "$TMP/err1" && grep -q "sum to 1.4, not 1" "$TMP/err2"'

expect_success "the task checker refuses a C library function or main as the task name" '
	mk ex "s/^task relu$/task exit/"
	mk mn "s/^task relu$/task main/"
	! "$KJ" show "$TMP/ex.kt" 2>"$TMP/err1" && ! "$KJ" show "$TMP/mn.kt" 2>"$TMP/err2"
	rc=$?; cat "$TMP/err1" "$TMP/err2"
	test $rc -eq 0 && grep -q "exit. cannot name a task" "$TMP/err1" && grep -q "main. cannot name a task" "$TMP/err2"'

expect_success "the task checker refuses a check shape too large to judge, with the estimate" '
	mk huge "s/^check B=1 D=1;/check B=100000 D=100000;/"
	! "$KJ" show "$TMP/huge.kt" 2>"$TMP/err"; rc=$?; cat "$TMP/err"
	test $rc -eq 0 && grep -q "check shape B=100000 D=100000 needs about 223.5 GiB to judge" "$TMP/err"'

expect_success "a task file saved with a UTF-8 byte-order mark parses" '
	printf "\357\273\277" >"$TMP/bom.kt" && cat "$KJ_ROOT/tasks/level1/relu.kt" >>"$TMP/bom.kt" &&
	"$KJ" show "$TMP/bom.kt" | grep -q "^task .*(relu)"'

expect_success "a stray non-ASCII byte says the file must be ASCII there" '
	mk utf "s/^y = relu(x)$/y = relu(x) \xc3\xa9/"
	! "$KJ" show "$TMP/utf.kt" 2>"$TMP/err"; rc=$?; cat "$TMP/err"
	test $rc -eq 0 && grep -q "unexpected byte 0xc3 (a task file is ASCII outside strings and comments)" "$TMP/err"'

expect_success "a bad dtype lists every dtype, f8e4m3 too" '
	mk dt "s/f32\[B, D\] ~ normal/f33[B, D] ~ normal/"
	! "$KJ" show "$TMP/dt.kt" 2>"$TMP/err"; rc=$?; cat "$TMP/err"
	test $rc -eq 0 && grep -q "f8e4m3" "$TMP/err"'

expect_success "CUDA source judged on the CPU track gets a hint to use --backend cuda" '
	"$KJ" eval --json --backend cpu --no-perf level1/relu "$KJ_ROOT/examples/solutions/cuda/relu.cu" >"$TMP/v.json"
	json_get "$TMP/v.json" reason; test "$(json_get "$TMP/v.json" status)" = compile_error &&
	json_get "$TMP/v.json" reason | grep -q "judge it with --backend cuda"'

expect_success "every shipped task passes the stricter checker" '
	"$KJ" tasks >/dev/null'

done_testing
