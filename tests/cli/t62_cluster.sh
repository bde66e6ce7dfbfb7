#!/usr/bin/env bash
# The cluster queue on a real PostgreSQL server (tests/cli/pg.sh starts one on
# 127.0.0.1 in a temp folder): a run's CPU candidates enqueued, judged by
# three `kjudge worker` processes (one with two threads), one of them killed
# with SIGKILL in the middle of a judgement; every candidate judged exactly
# once, identical sources judged once, and the report identical to the
# single-machine SQLite run of the same candidates.  Then the C tests of the
# queue's semantics (leases, fencing, SKIP LOCKED) against the same server.
#
# Without PostgreSQL's server binaries the test skips on a developer machine
# and fails in CI (KJ_REQUIRE_PG=1, set by .ci/run, or CI set).
. "$(dirname "$0")/lib.sh"

for c in psql sqlite3; do
	if ! command -v $c >/dev/null 2>&1; then
		if [ -n "${KJ_REQUIRE_PG:-}${CI:-}" ]; then
			echo "not ok 1 - the $c command is missing (Debian packages postgresql-client, sqlite3)"
			echo "1..1"
			exit 1
		fi
		echo "1..0 # SKIP the $c command is not installed"
		exit 0
	fi
done
pg_start
trap '"$KJ_ROOT/tests/cli/pg.sh" stop "$TMP/pg"; rm -rf "$TMP"' EXIT

pq() { psql -X -At -v ON_ERROR_STOP=1 "$URL" -c "$1"; }

# 48 CPU cases (every broken one, 20 honest, 10 red-team) and 4 more
# candidates whose sources repeat earlier ones under another model.  The
# endless loop comes first: jobs are claimed in order, so the first worker's
# first judgement lasts the whole call timeout, and the kill below cannot miss
# it however loaded the machine is.
spec=$TMP/cl.jsonl
i=0
slow="$KJ_ROOT/examples/broken/cpu/infinite_loop.c"
files=$(echo "$slow"; ls "$KJ_ROOT"/examples/broken/cpu/*.c | grep -v /infinite_loop.c;
	ls "$KJ_ROOT"/examples/solutions/cpu/*.c | head -n 20; ls "$KJ_ROOT"/examples/redteam/*.c | head -n 10)
for f in $files; do
	i=$((i + 1))
	printf '{"task": "%s", "model": "m", "sample": %d, "path": "%s"}\n' "$(hdr "$f" task)" "$i" "$f"
done >"$spec"
ndistinct=$i
for f in $(ls "$KJ_ROOT"/examples/solutions/cpu/*.c | head -n 4); do
	i=$((i + 1))
	printf '{"task": "%s", "model": "dup", "sample": %d, "path": "%s"}\n' "$(hdr "$f" task)" "$i" "$f"
done >>"$spec"
ncand=$i
ref=$TMP/ref.sqlite
RUNOPT="--no-perf --timeout 2"

expect_success "worker and --enqueue-only refuse a SQLite store, with the reason" '
	"$KJ" worker --db "$TMP/x.sqlite" --backend cpu 2>"$TMP/e1"; rc1=$?
	"$KJ" run "$spec" --db "$TMP/x.sqlite" --enqueue-only 2>"$TMP/e2"; rc2=$?
	"$KJ" worker --backend cpu 2>"$TMP/e3"; rc3=$?
	cat "$TMP/e1" "$TMP/e2" "$TMP/e3"
	test $rc1 -eq 2 && test $rc2 -eq 2 && test $rc3 -eq 2 &&
	grep -q "postgresql://" "$TMP/e1" && grep -q "needs --db postgresql://" "$TMP/e2" &&
	grep -q "is required" "$TMP/e3" && test ! -e "$TMP/x.sqlite"'

expect_success "worker --help names every option" '
	"$KJ" worker --help >"$TMP/help" &&
	for o in --db --backend --gpus --workers --run --lease --max-attempts --wait --json; do
		grep -q -- "$o" "$TMP/help" || { echo "missing $o"; exit 1; }
	done'

expect_success "the single-machine SQLite run of the $ncand candidates (reference)" '
	"$KJ" run "$spec" --db "$ref" --name cl $RUNOPT --quiet --json >"$TMP/ref.json" &&
	test "$(json_get "$TMP/ref.json" judged)" = '"$ncand"''

expect_success "--enqueue-only loads the run into PostgreSQL: one job per distinct source" '
	"$KJ" run "$spec" --db "$URL" --name cl $RUNOPT --enqueue-only --json >"$TMP/enq.json" 2>"$TMP/enq.err"
	rc=$?; cat "$TMP/enq.json" "$TMP/enq.err"
	test $rc -eq 0 &&
	test "$(json_get "$TMP/enq.json" candidates)" = '"$ncand"' &&
	test "$(json_get "$TMP/enq.json" jobs_added)" = '"$ndistinct"' &&
	test "$(json_get "$TMP/enq.json" queue.queued)" = '"$ndistinct"' &&
	test "$(pq "SELECT count(*) FROM verdicts")" = 0'

expect_success "enqueueing again adds no job" '
	"$KJ" run "$spec" --db "$URL" --name cl $RUNOPT --enqueue-only --json >"$TMP/enq2.json" &&
	test "$(json_get "$TMP/enq2.json" jobs_added)" = 0 &&
	test "$(json_get "$TMP/enq2.json" added)" = 0 &&
	test "$(pq "SELECT count(*) FROM run_jobs")" = '"$ndistinct"''

# three workers; the first, started alone, is killed with SIGKILL while its
# first judgement (the endless loop) is in progress (a judgements row of its
# pid, not finished); then the other two drain the queue
WOPT="--db $URL --backend cpu --lease 2 --poll 0.2 --json"
"$KJ" worker $WOPT >"$TMP/w1.json" 2>"$TMP/w1.err" &
w1=$!
caught=0
for _ in $(seq 1 600); do
	if [ "$(pq "SELECT count(*) FROM judgements WHERE pid = $w1 AND finished IS NULL" 2>/dev/null)" = 1 ]; then
		kill -9 $w1
		caught=1
		break
	fi
	sleep 0.05
done
[ $caught = 1 ] || kill -9 $w1 2>/dev/null
wait $w1 2>/dev/null
"$KJ" worker $WOPT --workers 2 >"$TMP/w2.json" 2>"$TMP/w2.err" &
w2=$!
"$KJ" worker $WOPT >"$TMP/w3.json" 2>"$TMP/w3.err" &
w3=$!
wait $w2
rc2=$?
wait $w3
rc3=$?
killed_job=$(pq "SELECT j.id FROM run_jobs j JOIN judgements g ON g.candidate_id = j.candidate_id
	WHERE g.pid = $w1 AND g.finished IS NULL")

expect_success "a worker was killed with SIGKILL in the middle of a judgement" '
	test $caught = 1 && test -n "'"$killed_job"'"'

expect_success "the other workers drained the queue and exited 0" '
	cat "$TMP/w2.json" "$TMP/w3.json" "$TMP/w2.err" "$TMP/w3.err"
	test '"$rc2"' -eq 0 && test '"$rc3"' -eq 0 &&
	test "$(pq "SELECT count(*) FROM run_jobs WHERE state <> '"'"'done'"'"'")" = 0'

expect_success "the killed worker's job was claimed again after its lease, exactly once" '
	test "$(pq "SELECT attempts FROM run_jobs WHERE id = '"$killed_job"'")" = 2 &&
	test "$(pq "SELECT count(*) FROM run_jobs WHERE attempts <> 1")" = 1'

expect_success "every candidate has exactly one verdict" '
	test "$(pq "SELECT count(*) FROM verdicts")" = '"$ncand"' &&
	test "$(pq "SELECT count(*) FROM candidates c WHERE NOT EXISTS (SELECT 1 FROM verdicts v WHERE v.candidate_id = c.id)")" = 0'

expect_success "every distinct source was judged exactly once (one finished judgement)" '
	test "$(pq "SELECT count(*) FROM judgements WHERE finished IS NOT NULL")" = '"$ndistinct"' &&
	test "$(pq "SELECT count(*) FROM (SELECT c.task, c.sha256 FROM judgements g JOIN candidates c ON c.id = g.candidate_id WHERE g.finished IS NOT NULL GROUP BY 1, 2 HAVING count(*) > 1) x")" = 0 &&
	test "$(pq "SELECT count(*) FROM judgements WHERE finished IS NULL")" = 1 &&
	test "$(pq "SELECT count(*) FROM verdicts WHERE reused_from IS NULL")" = '"$ndistinct"''

expect_success "identical sources got copies of one verdict" '
	test "$(pq "SELECT count(*) FROM verdicts v JOIN candidates c ON c.id = v.candidate_id WHERE c.model = '"'"'dup'"'"' AND v.reused_from IS NOT NULL")" = 4'

expect_success "each candidate's verdict equals the SQLite run's" '
	key="c.model || '"'"'/'"'"' || c.task || '"'"'/'"'"' || c.sample || '"'"' '"'"' || v.status || '"'"' '"'"' || v.stage || '"'"' '"'"' || v.reason"
	sqlite3 "$ref" "SELECT $key FROM candidates c JOIN verdicts v ON v.candidate_id = c.id ORDER BY 1" >"$TMP/s1" &&
	pq "SELECT $key FROM candidates c JOIN verdicts v ON v.candidate_id = c.id ORDER BY 1" >"$TMP/s2" &&
	test $(wc -l <"$TMP/s1") -eq '"$ncand"' && diff "$TMP/s1" "$TMP/s2"'

expect_success "kjudge report --format json is identical to the SQLite run's (but its created time)" '
	"$KJ" report cl --db "$ref" --format json >"$TMP/r1.json" &&
	"$KJ" report cl --db "$URL" --format json >"$TMP/r2.json" &&
	perl -MJSON::PP -e '"'"'
		my $j = JSON::PP->new->canonical;
		my @d = map { local $/; open my $f, "<", $_ or die "$_: $!"; my $v = $j->decode(<$f>);
			delete $v->{created}; delete $v->{manifest}; delete $_->{id} for @{$v->{per_candidate}}; $v } @ARGV;
		for my $k (qw(candidates judged compiled correct fast_p by_category by_level)) {
			die "no $k in the report\n" unless exists $d[0]{$k};
		}
		my ($a, $b) = map { $j->encode($_) } @d;
		die "reports differ\n" unless $a eq $b;
		print "identical: ", length($a), " bytes\n";
	'"'"' "$TMP/r1.json" "$TMP/r2.json" &&
	test "$(json_get "$TMP/r2.json" candidates)" = '"$ncand"''

expect_success "kjudge report on a PostgreSQL store names a missing run" '
	"$KJ" report nosuch --db "$URL" 2>"$TMP/nr.err"; rc=$?; cat "$TMP/nr.err"
	test $rc -eq 1 && grep -q "no run '"'"'nosuch'"'"'" "$TMP/nr.err"'

expect_success "a worker on an empty queue exits 0 at once" '
	"$KJ" worker $WOPT >"$TMP/w4.json" &&
	test "$(json_get "$TMP/w4.json" judged)" = 0'

expect_success "a waiting worker stops on SIGTERM with exit 1" '
	"$KJ" worker $WOPT --wait >"$TMP/w6.json" 2>"$TMP/w6.err" &
	pid=$!
	sleep 1
	kill -TERM $pid
	wait $pid; rc=$?; cat "$TMP/w6.json" "$TMP/w6.err"
	test $rc -eq 1 && test "$(json_get "$TMP/w6.json" interrupted)" = true'

expect_success "jobs of candidates judged meanwhile by kjudge run end without a judgement" '
	head -n 3 "$spec" >"$TMP/three.jsonl" &&
	"$KJ" run "$TMP/three.jsonl" --db "$URL" --name cl3 $RUNOPT --enqueue-only --quiet >/dev/null &&
	"$KJ" run "$TMP/three.jsonl" --db "$URL" --name cl3 $RUNOPT --quiet --json >"$TMP/cl3.json" &&
	test "$(json_get "$TMP/cl3.json" this_run.judged)" = 0 &&
	test "$(json_get "$TMP/cl3.json" this_run.reused)" = 3 &&
	"$KJ" worker $WOPT --run cl3 >"$TMP/w5.json" && cat "$TMP/w5.json" &&
	test "$(json_get "$TMP/w5.json" judged)" = 0 &&
	test "$(pq "SELECT count(*) FROM run_jobs j JOIN runs r ON r.id = j.run_id WHERE r.name = '"'"'cl3'"'"' AND j.state = '"'"'done'"'"'")" = 3'

expect_success "the queue's C tests pass against this server (leases, fencing, SKIP LOCKED)" '
	KJ_TEST_PG_URL="$URL" "$KJ_BUILD/tests/test_cluster" >"$TMP/tc.out"; rc=$?
	cat "$TMP/tc.out"
	test $rc -eq 0 && ! grep -q "^not ok" "$TMP/tc.out" && grep -q "^1\.\.[1-9]" "$TMP/tc.out"'

expect_success "kjudge report reads an older store as it is: no migration on read" '
	pq "DROP TABLE run_jobs; DELETE FROM kjudge_schema; INSERT INTO kjudge_schema (version) VALUES (2)" &&
	"$KJ" report cl --db "$URL" --format json >"$TMP/old.json" &&
	test "$(json_get "$TMP/old.json" candidates)" = '"$ncand"' &&
	test "$(json_get "$TMP/old.json" manifest.schema_version)" = 2 &&
	test "$(pq "SELECT max(version) FROM kjudge_schema")" = 2 &&
	test "$(pq "SELECT to_regclass('"'"'run_jobs'"'"') IS NULL")" = t'

done_testing
