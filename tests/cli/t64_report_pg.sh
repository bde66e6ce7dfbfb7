#!/usr/bin/env bash
# Reports read a PostgreSQL store directly, through the store's API (no SQLite
# copy): a run judged straight into a throw-away PostgreSQL server
# (tests/cli/pg.sh) is reported in md, json and csv with the numbers of the
# SQLite run of the same candidates; compare and export-pairs read it too, a
# report needs no temporary folder and writes nothing; refine resumes a chain
# stored in PostgreSQL.
#
# Without PostgreSQL's server binaries the test skips on a developer machine
# and fails in CI (KJ_REQUIRE_PG=1, set by .ci/run, or CI set).
. "$(dirname "$0")/lib.sh"

if ! command -v psql >/dev/null 2>&1; then
	if [ -n "${KJ_REQUIRE_PG:-}${CI:-}" ]; then
		echo "not ok 1 - the psql command is missing (Debian package postgresql-client)"
		echo "1..1"
		exit 1
	fi
	echo "1..0 # SKIP the psql command is not installed"
	exit 0
fi
pg_start
trap '"$KJ_ROOT/tests/cli/pg.sh" stop "$TMP/pg"; rm -rf "$TMP"' EXIT

pq() { psql -X -At -v ON_ERROR_STOP=1 "$URL" -c "$1"; }
# what a report must not change: verdicts, judgements, the schema's version
state() {
	echo "$(pq "SELECT count(*) FROM verdicts") $(pq "SELECT count(*) FROM judgements")" \
		"$(pq "SELECT max(version) FROM kjudge_schema")"
}

# 12 honest CPU solutions, the broken cases but the endless loop, 4 red-team
# cases, and 2 sources repeated under another model (verdict copies)
spec=$TMP/r.jsonl
i=0
files=$(ls "$KJ_ROOT"/examples/solutions/cpu/*.c | head -n 12
	ls "$KJ_ROOT"/examples/broken/cpu/*.c | grep -v /infinite_loop.c
	ls "$KJ_ROOT"/examples/redteam/*.c | head -n 4)
for f in $files; do
	i=$((i + 1))
	printf '{"task": "%s", "model": "m", "sample": %d, "path": "%s"}\n' "$(hdr "$f" task)" "$i" "$f"
done >"$spec"
for f in $(ls "$KJ_ROOT"/examples/solutions/cpu/*.c | head -n 2); do
	i=$((i + 1))
	printf '{"task": "%s", "model": "dup", "sample": %d, "path": "%s"}\n' "$(hdr "$f" task)" "$i" "$f"
done >>"$spec"
ncand=$i
ref=$TMP/ref.sqlite
RUNOPT="--no-perf --timeout 2 --quiet"

# the reports of both stores with what differs by nature removed: the
# creation and judgement times, the store's name, candidate ids
same_json() {
	perl -MJSON::PP -e '
		my $j = JSON::PP->new->canonical;
		my @d = map { local $/; open my $f, "<", $_ or die "$_: $!"; my $v = $j->decode(<$f>);
			delete $v->{created}; delete $v->{manifest}; delete $_->{id} for @{$v->{per_candidate}}; $v } @ARGV;
		for my $k (qw(candidates judged compiled correct fast_p by_category by_level per_candidate)) {
			die "no $k in the report\n" unless exists $d[0]{$k};
		}
		my ($a, $b) = map { $j->encode($_) } @d;
		die "reports differ\n" unless $a eq $b;
		print "identical: ", length($a), " bytes\n";
	' "$1" "$2"
}
strip_md() {
	grep -v -e '^| created |' -e '^| judged |' -e '^| store |' -e '^| spec |' "$1" |
		sed -e 's/created [0-9T:.Z-]*,/created X,/' -e 's/#[0-9][0-9]*/#ID/g'
}

expect_success "the same candidates judged into SQLite and straight into PostgreSQL" '
	"$KJ" run "$spec" --db "$ref" --name r $RUNOPT --json >"$TMP/ref.json" &&
	"$KJ" run "$spec" --db "$URL" --name r $RUNOPT --json >"$TMP/pg.json" &&
	test "$(json_get "$TMP/ref.json" judged)" = '"$ncand"' &&
	test "$(json_get "$TMP/pg.json" judged)" = '"$ncand"' &&
	test "$(json_get "$TMP/pg.json" reused)" = 2'

expect_success "report --format json on PostgreSQL has the numbers of the SQLite report" '
	"$KJ" report r --db "$ref" --format json >"$TMP/r1.json" &&
	"$KJ" report r --db "$URL" --format json >"$TMP/r2.json" &&
	same_json "$TMP/r1.json" "$TMP/r2.json" &&
	test "$(json_get "$TMP/r2.json" candidates)" = '"$ncand"' &&
	test "$(json_get "$TMP/r2.json" correct)" = "$(json_get "$TMP/r1.json" correct)" &&
	test "$(json_get "$TMP/r2.json" compiled)" = "$(json_get "$TMP/r1.json" compiled)"'

expect_success "report (md) on PostgreSQL is the SQLite report but for times, ids and the store" '
	"$KJ" report r --db "$ref" >"$TMP/r1.md" && "$KJ" report r --db "$URL" >"$TMP/r2.md" &&
	strip_md "$TMP/r1.md" >"$TMP/s1.md" && strip_md "$TMP/r2.md" >"$TMP/s2.md" &&
	diff "$TMP/s1.md" "$TMP/s2.md" && test $(wc -l <"$TMP/s2.md") -gt 40 &&
	grep -q "^| store | postgresql://kjudge@127.0.0.1:[0-9]*/kjudge (schema version [0-9]*, opened read-only) |" "$TMP/r2.md"'

expect_success "report --format csv: the same rows but for the judgement times" '
	"$KJ" report r --db "$ref" --format csv | sed "s/,20[0-9T:.Z-]*Z,/,T,/" >"$TMP/r1.csv" &&
	"$KJ" report r --db "$URL" --format csv | sed "s/,20[0-9T:.Z-]*Z,/,T,/" >"$TMP/r2.csv" &&
	diff "$TMP/r1.csv" "$TMP/r2.csv" && test $(wc -l <"$TMP/r2.csv") -gt '"$ncand"''

expect_success "a report needs no temporary copy: it works without a writable TMPDIR" '
	TMPDIR=/nonexistent "$KJ" report r --db "$URL" --format json >"$TMP/r3.json" &&
	same_json "$TMP/r1.json" "$TMP/r3.json"'

expect_success "a report writes nothing: the database is unchanged" '
	before=$(state) && "$KJ" report r --db "$URL" >/dev/null && test "$(state)" = "$before"'

expect_success "compare reads two runs of a PostgreSQL store, and one against SQLite" '
	"$KJ" run "$spec" --db "$URL" --name r2 $RUNOPT >/dev/null &&
	"$KJ" compare r r2 --db "$URL" --json >"$TMP/c1.json" &&
	"$KJ" compare r r --db "$URL" --db-b "$ref" --json >"$TMP/c2.json" &&
	test "$(json_get "$TMP/c1.json" matched)" = '"$ncand"' &&
	test "$(json_get "$TMP/c2.json" matched)" = '"$ncand"''

expect_success "export-pairs reads a PostgreSQL store" '
	"$KJ" export-pairs r --db "$URL" -o "$TMP/p2.jsonl" && "$KJ" export-pairs r --db "$ref" -o "$TMP/p1.jsonl" &&
	test "$(wc -l <"$TMP/p1.jsonl")" = "$(wc -l <"$TMP/p2.jsonl")"'

expect_success "a missing run on PostgreSQL: exit 1, named" '
	"$KJ" report nosuch --db "$URL" 2>"$TMP/nr.err"; rc=$?; cat "$TMP/nr.err"
	test $rc -eq 1 && grep -q "no run '"'"'nosuch'"'"' in '"'"'postgresql://" "$TMP/nr.err"'

# refine on PostgreSQL: round 0 a wrong kernel, then the right one; a rerun
# with one round more resumes from the attempts stored in PostgreSQL
cat >"$TMP/gen.sh" <<EOF
#!/bin/sh
echo "\$KJUDGE_ROUND" >>"$TMP/calls"
if [ "\$KJUDGE_ROUND" = 0 ]; then f=$KJ_ROOT/examples/broken/cpu/wrong_result.c; else f=$KJ_ROOT/examples/solutions/cpu/relu.c; fi
printf '\`\`\`c\n'; cat "\$f"; printf '\`\`\`\n'
EOF
chmod +x "$TMP/gen.sh"
RO="--generator $TMP/gen.sh --backend cpu --perf-budget 0.1 --db $URL --name g --json --quiet"

expect_success "refine stores its chain in PostgreSQL and resumes from it" '
	"$KJ" refine level1/relu --rounds 2 $RO >"$TMP/g1.json" &&
	test "$(json_get "$TMP/g1.json" asked)" = 2 && test "$(json_get "$TMP/g1.json" best.0.status)" = pass &&
	"$KJ" refine level1/relu --rounds 3 $RO >"$TMP/g2.json" &&
	test "$(json_get "$TMP/g2.json" resumed)" = 2 && test "$(json_get "$TMP/g2.json" asked)" = 1 &&
	test "$(wc -l <"$TMP/calls")" -eq 3 &&
	test "$(pq "SELECT count(*) FROM candidates c JOIN runs r ON r.id = c.run_id WHERE r.name = '"'"'g'"'"'")" = 3'

expect_success "the refined run reports from PostgreSQL: fast_p@N 0 at round 0, 1 at round 1" '
	"$KJ" report g --db "$URL" --format json >"$TMP/g.json" &&
	test "$(json_get "$TMP/g.json" candidates)" = 3 &&
	test "$(json_get "$TMP/g.json" fast_p_at_n.0.fast_p.0)" = 0 &&
	test "$(json_get "$TMP/g.json" fast_p_at_n.1.fast_p.0)" = 1'

done_testing
