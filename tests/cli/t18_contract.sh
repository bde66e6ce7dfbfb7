#!/usr/bin/env bash
# One contract for every command (docs/cli.md): exit 0/1/2/3 by meaning, and
# with --json exactly one JSON object on stdout in every case, errors too,
# with nothing dropped for not being UTF-8.
. "$(dirname "$0")/lib.sh"

RELU=$KJ_ROOT/examples/solutions/cpu/relu.c
printf 'task broken\nlevel 1\ncategory Math\ninput x: f32[N] ~ normal\noutput y: f32[N]\ny = nope(x)\ncheck N=3\n' \
	>"$TMP/broken.kt"

# one_json FILE: the whole file is one JSON document (an object; `tasks
# --json` is the one array); prints its "exit" or "ok"
one_json() {
	perl -MJSON::PP -e '
		local $/; open my $f, "<", $ARGV[0] or die; my $t = <$f>;
		my $v = JSON::PP->new->decode($t);
		die "not an object or array\n" unless ref $v eq "HASH" || ref $v eq "ARRAY";
		print ref $v eq "HASH" && exists $v->{exit} ? $v->{exit} : "ok";' "$1"
}

expect_success "an invalid task file exits 2 from show, eval, prompt and lint-tasks alike" '
	"$KJ" show "$TMP/broken.kt" 2>/dev/null; a=$?
	"$KJ" eval --backend cpu --no-perf "$TMP/broken.kt" "$RELU" 2>/dev/null; b=$?
	"$KJ" prompt "$TMP/broken.kt" >/dev/null 2>&1; c=$?
	"$KJ" lint-tasks "$TMP/broken.kt" >/dev/null 2>&1; d=$?
	echo "show $a eval $b prompt $c lint $d"
	test $a -eq 2 && test $b -eq 2 && test $c -eq 2 && test $d -eq 2'

expect_success "eval --json prints one error object on stdout when it exits 2" '
	"$KJ" eval --json --backend cpu --no-perf level1/nope "$RELU" >"$TMP/o" 2>"$TMP/e"; rc=$?
	cat "$TMP/o"; test $rc -eq 2 && test "$(one_json "$TMP/o")" = 2 &&
	test "$(json_get "$TMP/o" error.kind)" = usage &&
	json_get "$TMP/o" error.message | grep -q "^unknown task .level1/nope." &&
	grep -q "unknown task" "$TMP/e"'

expect_success "eval --json prints one error object on stdout when it exits 3 (no sandbox)" '
	KJ_BWRAP=/nonexistent/bwrap PATH=/nonexistent "$KJ" eval --json --backend cpu --no-perf level1/relu "$RELU" \
		>"$TMP/o" 2>"$TMP/e"; rc=$?
	cat "$TMP/o" "$TMP/e"; test $rc -eq 3 && test "$(one_json "$TMP/o")" = 3 &&
	test "$(json_get "$TMP/o" error.kind)" = judge'

expect_success "show, tasks, lint-tasks and run with --json print one object on stdout on usage errors" '
	"$KJ" show --json nope/x >"$TMP/o1" 2>/dev/null; r1=$?
	"$KJ" tasks --json --level x >"$TMP/o2" 2>/dev/null; r2=$?
	"$KJ" lint-tasks --json nope/x >"$TMP/o3" 2>/dev/null; r3=$?
	printf "{\"task\": \"level1/relu\", \"sampel\": 1, \"path\": \"%s\"}\n" "$RELU" >"$TMP/spec.jsonl"
	"$KJ" run "$TMP/spec.jsonl" --json --db "$TMP/s.sqlite" --backend cpu --no-perf >"$TMP/o4" 2>/dev/null; r4=$?
	echo "$r1 $r2 $r3 $r4"; cat "$TMP/o1" "$TMP/o2" "$TMP/o3" "$TMP/o4"
	test $r1 -eq 2 && test $r2 -eq 2 && test $r4 -eq 2 && test $r3 -eq 2 &&
	one_json "$TMP/o1" >/dev/null && one_json "$TMP/o2" >/dev/null && one_json "$TMP/o3" >/dev/null &&
	one_json "$TMP/o4" >/dev/null'

expect_success "a successful --json command prints its own object, not an error" '
	"$KJ" tasks --json --suite level1 >"$TMP/o" && test "$(one_json "$TMP/o")" = ok'

expect_success "a task id that is not UTF-8 stays in the JSON of show and of the verdict" '
	d="$TMP/tasks/level1"; mkdir -p "$d"; f="$d/$(printf "r\377elu").kt"
	cp "$KJ_ROOT/tasks/level1/relu.kt" "$f"
	"$KJ" show --json "$f" >"$TMP/s.json" &&
	"$KJ" eval --json --backend cpu --no-perf "$f" "$RELU" >"$TMP/v.json"
	echo "show: $(json_get "$TMP/s.json" task) verdict: $(json_get "$TMP/v.json" task)"
	json_get "$TMP/s.json" task | grep -q "^level1/r.*elu$" &&
	test "$(json_get "$TMP/v.json" task)" = "level1/r?elu"'

expect_success "a token whose name is not UTF-8 keeps its row in token list --json" '
	"$KJ" serve token add "$(printf "b\377b")" --db "$TMP/tok.sqlite" >/dev/null &&
	"$KJ" serve token add carol --db "$TMP/tok.sqlite" >/dev/null &&
	"$KJ" serve token list --json --db "$TMP/tok.sqlite" >"$TMP/tl.json" && cat "$TMP/tl.json" &&
	test "$(perl -MJSON::PP -e "local \$/; print scalar @{JSON::PP->new->decode(<STDIN>)->{tokens}}" <"$TMP/tl.json")" = 2'

expect_success "a verdict names the kjudge that judged it (kjudge --version); on the CPU track no baseline id and no GPU state" '
	"$KJ" eval --json --backend cpu --no-perf level1/relu "$RELU" >"$TMP/v.json"
	ver=$("$KJ" --version); echo "$ver / $(json_get "$TMP/v.json" kjudge_version)"
	case $ver in "kjudge 0."[0-9]*) ;; *) false ;; esac &&
	test "kjudge $(json_get "$TMP/v.json" kjudge_version)" = "$ver" &&
	perl -MJSON::PP -e "local \$/; my \$v = JSON::PP->new->decode(<STDIN>);
		exit(exists \$v->{baseline_id} && !defined \$v->{baseline_id} &&
		     exists \$v->{gpu_state} && !defined \$v->{gpu_state} ? 0 : 1)" <"$TMP/v.json"'

done_testing
