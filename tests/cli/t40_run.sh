#!/usr/bin/env bash
# kjudge run: a batch of CPU cases into the store, each verdict as its
# kjudge-case header says; reruns judge nothing again; a run killed with
# SIGKILL and started again loses nothing and judges nothing twice; SIGINT
# stops after the candidate in hand; identical sources are judged once.
. "$(dirname "$0")/lib.sh"

if ! command -v sqlite3 >/dev/null 2>&1; then
	echo "1..0 # SKIP the sqlite3 command is not installed (Debian package sqlite3)"
	exit 0
fi

q() { sqlite3 "$1" "$2"; }
PASS="'pass'" # a string in SQL ("pass" would name verdict_checks.pass)

# every CPU case: honest and broken, one candidate each (sample = its number)
spec=$TMP/cases.jsonl
i=0
for f in "$KJ_ROOT"/examples/solutions/cpu/*.c "$KJ_ROOT"/examples/broken/cpu/*.c; do
	i=$((i + 1))
	printf '{"task": "%s", "model": "%s", "sample": %d, "path": "%s"}\n' \
		"$(hdr "$f" task)" "$(basename "$(dirname "$(dirname "$f")")")" "$i" "$f"
done >"$spec"
ncases=$i
db=$TMP/r.sqlite

expect_success "run judges every case and exits 0 ($ncases candidates)" '
	"$KJ" run "$spec" --db "$db" --no-perf --timeout 2 --json >"$TMP/run1.json"
	test $? -eq 0 && cat "$TMP/run1.json" &&
	test "$(json_get "$TMP/run1.json" candidates)" = '"$ncases"' &&
	test "$(json_get "$TMP/run1.json" judged)" = '"$ncases"' &&
	test "$(json_get "$TMP/run1.json" pending)" = 0 &&
	test "$(json_get "$TMP/run1.json" run)" = cases'

expect_success "every stored verdict is the one its kjudge-case header expects" '
	bad=0
	q "$db" "SELECT c.path || \"|\" || v.status FROM candidates c JOIN verdicts v ON v.candidate_id = c.id" >"$TMP/st"
	test $(wc -l <"$TMP/st") -eq '"$ncases"' || bad=1
	while IFS="|" read -r p s; do
		e=$(hdr "$p" expect)
		[ "$e" = "$s" ] || { echo "$p: expected $e, stored $s"; bad=1; }
	done <"$TMP/st"
	test $bad -eq 0'

expect_success "the summary counts by status add up to the candidates" '
	sum=0
	for s in pass compile_error call_error mismatch runtime_error timeout crash rejected; do
		sum=$((sum + $(json_get "$TMP/run1.json" by_status.$s)))
	done
	test $sum -eq '"$ncases"' &&
	test "$(json_get "$TMP/run1.json" by_status.pass)" = \
		"$(ls "$KJ_ROOT"/examples/solutions/cpu/*.c | wc -l)"'

expect_success "the summary says where the evaluation lane spent its time" '
	test "$(json_get "$TMP/run1.json" devices.0.jobs)" = '"$ncases"' &&
	perl -MJSON::PP -e '\''
		local $/; open my $f, "<", $ARGV[0] or die; my $s = JSON::PP->new->decode(<$f>);
		my $d = $s->{devices}[0];
		exit !(@{$s->{devices}} == 1 && $d->{busy_s} > 0 && $d->{wait_s} >= 0 &&
		       $d->{first_start_s} >= 0 && $d->{first_start_s} <= $d->{last_end_s} &&
		       $d->{last_end_s} <= $s->{seconds} && $d->{busy_s} <= $d->{last_end_s} - $d->{first_start_s} + 1e-6);
	'\'' "$TMP/run1.json"'

expect_success "each candidate was judged exactly once, its judgement finished" '
	test "$(q "$db" "SELECT count(*) FROM judgements WHERE finished IS NOT NULL")" = '"$ncases"' &&
	test "$(q "$db" "SELECT count(*) FROM (SELECT candidate_id FROM judgements GROUP BY 1 HAVING count(*) > 1)")" = 0'

expect_success "verdict rows hold the JSON, checks and the device" '
	test "$(q "$db" "SELECT count(*) FROM verdicts WHERE json_extract(json, \"$.status\") = status")" = '"$ncases"' &&
	test "$(q "$db" "SELECT count(DISTINCT candidate_id) FROM verdict_checks")" -ge 30 &&
	test "$(q "$db" "SELECT count(*) FROM verdicts WHERE device_id IS NULL")" = 0 &&
	test "$(q "$db" "SELECT count(*) FROM tasks WHERE level IN (1, 2) AND category != \"\"")" -ge 10'

expect_success "running it again adds and judges nothing" '
	"$KJ" run "$spec" --db "$db" --no-perf --timeout 2 --json >"$TMP/run2.json" &&
	test "$(json_get "$TMP/run2.json" this_run.added)" = 0 &&
	test "$(json_get "$TMP/run2.json" this_run.judged)" = 0 &&
	test "$(json_get "$TMP/run2.json" judged)" = '"$ncases"' &&
	test "$(q "$db" "SELECT count(*) FROM judgements")" = '"$ncases"''

expect_success "a SPEC error names file:line and adds nothing" '
	{ head -n 2 "$spec"; echo "{\"task\": \"level9/nope\", \"source\": \"x\"}"; } >"$TMP/bad.jsonl"
	"$KJ" run "$TMP/bad.jsonl" --db "$TMP/bad.sqlite" --no-perf 2>"$TMP/bad.err"
	rc=$?; cat "$TMP/bad.err"
	test $rc -eq 2 && grep -q "bad.jsonl:3" "$TMP/bad.err" &&
	test "$(q "$TMP/bad.sqlite" "SELECT count(*) FROM candidates")" = 0'

expect_success "the default store is RUN.sqlite in the current folder" '
	mkdir -p "$TMP/cwd" && printf "{\"task\": \"level1/relu\", \"path\": \"%s\"}\n" \
		"$KJ_ROOT/examples/solutions/cpu/relu.c" >"$TMP/one.jsonl" &&
	(cd "$TMP/cwd" && "$KJ" run "$TMP/one.jsonl" --no-perf --quiet >/dev/null) &&
	test -f "$TMP/cwd/one.sqlite" &&
	(cd "$TMP/cwd" && "$KJ" run "$TMP/one.jsonl" --name other --no-perf --quiet >/dev/null) &&
	test -f "$TMP/cwd/other.sqlite"'

# folder tree: model/level1__relu/S_R.c and model/level1/relu/S_R.c
tree=$TMP/tree
mkdir -p "$tree/mA/level1__relu" "$tree/mB/level1/relu" "$tree/mB/level1/mse_loss"
cp "$KJ_ROOT/examples/solutions/cpu/relu.c" "$tree/mA/level1__relu/0_0.c"
cp "$KJ_ROOT/examples/broken/cpu/segfault.c" "$tree/mA/level1__relu/1_0.c"
cp "$KJ_ROOT/examples/solutions/cpu/relu.c" "$tree/mA/level1__relu/1_1.c"
cp "$KJ_ROOT/examples/solutions/cpu/relu.c" "$tree/mB/level1/relu/0_0.c"
cp "$KJ_ROOT/examples/broken/cpu/constant_output.c" "$tree/mB/level1/mse_loss/0_0.c"
echo "notes" >"$tree/mB/level1/relu/README"
expect_success "a folder tree SPEC: models, tasks, samples and rounds from the paths" '
	"$KJ" run "$tree" --db "$TMP/tree.sqlite" --no-perf --timeout 2 --json >"$TMP/tree.json" &&
	test "$(json_get "$TMP/tree.json" candidates)" = 5 &&
	test "$(q "$TMP/tree.sqlite" "SELECT group_concat(c.model || \":\" || c.task || \":\" || c.sample || \":\" || c.round || \":\" || v.status, \" \") FROM (SELECT * FROM candidates ORDER BY model, task, sample, round) c JOIN verdicts v ON v.candidate_id = c.id")" = \
		"mA:level1/relu:0:0:pass mA:level1/relu:1:0:crash mA:level1/relu:1:1:pass mB:level1/mse_loss:0:0:mismatch mB:level1/relu:0:0:pass"'

expect_success "round 1 has round 0 of the same sample as its parent" '
	test "$(q "$TMP/tree.sqlite" "SELECT p.sample || \"_\" || p.round FROM candidates c JOIN candidates p ON p.id = c.parent_id WHERE c.round = 1")" = "1_0"'

expect_success "identical sources in a run are judged once, the others reuse the verdict" '
	test "$(json_get "$TMP/tree.json" reused)" = 2 &&
	test "$(q "$TMP/tree.sqlite" "SELECT count(*) FROM judgements")" = 3 &&
	test "$(q "$TMP/tree.sqlite" "SELECT count(DISTINCT reused_from) FROM verdicts WHERE reused_from IS NOT NULL")" = 1 &&
	judged=$(q "$TMP/tree.sqlite" "SELECT count(*) FROM verdict_checks k JOIN verdicts v ON v.candidate_id = k.candidate_id WHERE v.reused_from IS NULL AND v.status = $PASS") &&
	copied=$(q "$TMP/tree.sqlite" "SELECT count(*) FROM verdict_checks k JOIN verdicts v ON v.candidate_id = k.candidate_id WHERE v.reused_from IS NOT NULL") &&
	echo "checks: judged $judged, copied $copied" &&
	test "$judged" -gt 0 && test "$copied" -eq $((2 * judged))'

# slow candidates: each a distinct source (a comment line), each timing out
# after --timeout 1, so a run of them lasts several seconds; every one has a
# duplicate under another sample
kspec=$TMP/kill.jsonl
mkdir -p "$TMP/v"
nk=0
for k in 1 2 3 4 5 6; do
	cp "$KJ_ROOT/examples/broken/cpu/infinite_loop.c" "$TMP/v/loop$k.c"
	echo "// variant $k" >>"$TMP/v/loop$k.c"
	cp "$KJ_ROOT/examples/solutions/cpu/relu.c" "$TMP/v/relu$k.c"
	echo "// variant $k" >>"$TMP/v/relu$k.c"
	for s in 0 1; do
		printf '{"task": "level1/relu", "model": "loop", "sample": %d, "path": "v/loop%d.c"}\n' $((2 * k + s)) $k
		printf '{"task": "level1/relu", "model": "relu", "sample": %d, "path": "v/relu%d.c"}\n' $((2 * k + s)) $k
		nk=$((nk + 2))
	done
done >"$kspec"
kdb=$TMP/kill.sqlite

expect_success "a run killed twice with SIGKILL leaves candidates pending" '
	want=1
	for round in 1 2; do
		"$KJ" run "$kspec" --db "$kdb" --no-perf --timeout 1 --jobs 2 --quiet >/dev/null 2>&1 &
		pid=$!
		# wait until one more verdict is in, then kill at once
		for _ in $(seq 1 400); do
			n=$(q "$kdb" "SELECT count(*) FROM verdicts" 2>/dev/null || echo 0)
			[ "${n:-0}" -ge $want ] && break
			sleep 0.05
		done
		kill -9 $pid; wait $pid 2>/dev/null
		done_=$(q "$kdb" "SELECT count(*) FROM verdicts")
		echo "kill $round: $done_ verdicts of '"$nk"'"
		test "$done_" -ge $want && test "$done_" -lt '"$nk"' || exit 1
		want=$((done_ + 1))
	done'

expect_success "the rerun judges the rest; nothing lost, nothing judged twice" '
	"$KJ" run "$kspec" --db "$kdb" --no-perf --timeout 1 --json >"$TMP/kill.json" 2>/dev/null
	test $? -eq 0 && cat "$TMP/kill.json" &&
	test "$(json_get "$TMP/kill.json" candidates)" = '"$nk"' &&
	test "$(json_get "$TMP/kill.json" judged)" = '"$nk"' &&
	test "$(q "$kdb" "SELECT count(*) FROM verdicts")" = '"$nk"' &&
	test "$(q "$kdb" "SELECT count(*) FROM (SELECT candidate_id FROM judgements WHERE finished IS NOT NULL GROUP BY 1 HAVING count(*) > 1)")" = 0 &&
	test "$(q "$kdb" "SELECT count(*) FROM verdicts v WHERE reused_from IS NULL AND (SELECT count(*) FROM judgements j WHERE j.candidate_id = v.candidate_id AND j.finished IS NOT NULL) != 1")" = 0 &&
	test "$(q "$kdb" "SELECT count(*) FROM judgements WHERE finished IS NULL")" -le 2'

expect_success "each distinct source was judged once, each duplicate reused" '
	test "$(q "$kdb" "SELECT count(*) FROM verdicts WHERE reused_from IS NULL")" = 12 &&
	test "$(q "$kdb" "SELECT count(*) FROM verdicts WHERE reused_from IS NOT NULL")" = 12 &&
	test "$(q "$kdb" "SELECT group_concat(model || \"=\" || status) FROM (SELECT DISTINCT c.model, v.status FROM candidates c JOIN verdicts v ON v.candidate_id = c.id ORDER BY 1)")" = "loop=timeout,relu=pass"'

expect_success "SIGINT stops after the candidate in hand, exit 1, no judgement cut short" '
	sed "s/\"sample\": /\"sample\": 100/" "$kspec" >"$TMP/int.jsonl"
	"$KJ" run "$TMP/int.jsonl" --db "$TMP/int.sqlite" --no-perf --timeout 1 --json >"$TMP/int.json" 2>/dev/null &
	pid=$!
	for _ in $(seq 1 200); do
		n=$(q "$TMP/int.sqlite" "SELECT count(*) FROM judgements" 2>/dev/null || echo 0)
		[ "${n:-0}" -ge 1 ] && break
		sleep 0.05
	done
	kill -INT $pid; wait $pid; rc=$?
	cat "$TMP/int.json"; echo "rc $rc, unfinished $(q "$TMP/int.sqlite" "SELECT count(*) FROM judgements WHERE finished IS NULL")"
	test $rc -eq 1 && test "$(json_get "$TMP/int.json" interrupted)" = true &&
	test "$(q "$TMP/int.sqlite" "SELECT count(*) FROM judgements WHERE finished IS NULL")" = 0 &&
	test "$(json_get "$TMP/int.json" pending)" -gt 0'

# dispatch order: by default the candidates of the costliest task (by its
# shapes' FLOPs and bytes) are judged first, --order spec keeps the SPEC's
# (a 16x16 transposed conv, then a ReLU over 1M elements, 8 MB)
small=level2/convtranspose2d_add_min_gelu_multiply
printf '{"task": "%s", "model": "m", "sample": 1, "path": "%s"}\n{"task": "level1/relu", "model": "m", "sample": 2, "path": "%s"}\n' \
	$small "$KJ_ROOT/examples/solutions/cpu/${small#*/}.c" "$KJ_ROOT/examples/solutions/cpu/relu.c" >"$TMP/order.jsonl"
expect_success "--order cost (the default) judges the costlier task first" '
	"$KJ" run "$TMP/order.jsonl" --db "$TMP/o1.sqlite" --no-perf --quiet --jobs 1 &&
	q "$TMP/o1.sqlite" "SELECT c.task FROM judgements j JOIN candidates c ON c.id = j.candidate_id ORDER BY j.id" >"$TMP/o1" &&
	cat "$TMP/o1" && test "$(head -n 1 "$TMP/o1")" = level1/relu'
expect_success "--order spec judges in the SPEC order" '
	"$KJ" run "$TMP/order.jsonl" --db "$TMP/o2.sqlite" --no-perf --quiet --jobs 1 --order spec &&
	q "$TMP/o2.sqlite" "SELECT c.task FROM judgements j JOIN candidates c ON c.id = j.candidate_id ORDER BY j.id" >"$TMP/o2" &&
	cat "$TMP/o2" && test "$(head -n 1 "$TMP/o2")" = "'"$small"'"'
expect_success "--order with another value is a usage error" '
	"$KJ" run "$TMP/order.jsonl" --db "$TMP/o3.sqlite" --order fastest 2>"$TMP/o3.err"
	test $? -eq 2 && grep -q "cost or spec" "$TMP/o3.err"'

done_testing
