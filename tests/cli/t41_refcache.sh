#!/usr/bin/env bash
# The reference cache (src/judge/refcache.c) on the CPU track: kjudge run's
# verdicts are the same with it on, off (KJ_REF_CACHE_MB=0) and with a host
# budget too small for two tasks; the verdicts count its hits; a candidate
# that writes to its inputs leaves the next candidate's references as they
# were; a tiny budget evicts one task's entries for another's.
. "$(dirname "$0")/lib.sh"

if ! command -v sqlite3 >/dev/null 2>&1; then
	echo "1..0 # SKIP the sqlite3 command is not installed (Debian package sqlite3)"
	exit 0
fi

# relu (16 bytes an element kept: its input, the oracle's output, the
# baseline's): about 86 MB of entries over its shapes and seeds; leaky_relu
# the same.  Candidates in this order (--jobs 1 compiles, so judges, in
# order): a candidate that zeroes its input first, then honest ones.
ex=$KJ_ROOT/examples
cands="$ex/redteam/03_zero_input.c $ex/solutions/cpu/relu.c $ex/solutions/cpu/leaky_relu.c
$ex/redteam/03_restore_input.c $ex/broken/cpu/wrong_result.c $ex/broken/cpu/input_mutation.c"
spec=$TMP/spec.jsonl
i=0
for f in $cands; do
	i=$((i + 1))
	printf '{"task": "%s", "model": "m", "sample": %d, "path": "%s"}\n' "$(hdr "$f" task)" "$i" "$f"
done >"$spec"
n=$i

# run NAME [VAR=VALUE...]: kjudge run over the spec into its own store
run() {
	local name=$1
	shift
	env "$@" "$KJ" run "$spec" --db "$TMP/$name.sqlite" --no-perf --timeout 5 --jobs 1 --json \
		>"$TMP/$name.json"
}

# verdicts NAME: path, then the verdict JSON without what is timed or counts
# the cache, one line per candidate in judging order
verdicts() {
	sqlite3 "$TMP/$1.sqlite" "SELECT c.path, json(v.json) FROM candidates c JOIN verdicts v ON v.candidate_id = c.id
		ORDER BY v.rowid" | perl -MJSON::PP -ne '
		my ($p, $j) = split /\|/, $_, 2;
		my $v = JSON::PP->new->decode($j);
		delete @$v{qw(compile profile_seconds stage_seconds total_seconds ref_cache rtt_floor_us
			      worker_log worker_log_bytes timing_cpu)};
		print "$p ", JSON::PP->new->canonical->encode($v), "\n";'
}

# cache NAME PATH: hits and stored of that candidate's verdict
cache() {
	sqlite3 "$TMP/$1.sqlite" "SELECT json_extract(v.json, '\$.ref_cache.hits') || ' ' ||
		json_extract(v.json, '\$.ref_cache.stored') FROM candidates c
		JOIN verdicts v ON v.candidate_id = c.id WHERE c.path = '$2'"
}

expect_success "kjudge run with the cache on, off and in 40 MB judges every candidate" '
	run on && run off KJ_REF_CACHE_MB=0 && run tiny KJ_REF_CACHE_HOST_MB=40 &&
	for r in on off tiny; do
		test "$(json_get "$TMP/$r.json" judged)" = '"$n"' || exit 1
	done'

expect_success "every verdict is its case header's" '
	verdicts on >"$TMP/on.v" &&
	test $(wc -l <"$TMP/on.v") -eq '"$n"' &&
	while read -r p v; do
		s=$(printf "%s" "$v" | perl -MJSON::PP -e "local \$/; print JSON::PP->new->decode(<STDIN>)->{status}")
		test "$s" = "$(hdr "$p" expect)" || { echo "$p: $s"; exit 1; }
	done <"$TMP/on.v"'

expect_success "the verdicts are the same with the cache on, off and small" '
	verdicts off >"$TMP/off.v" && verdicts tiny >"$TMP/tiny.v" &&
	diff "$TMP/off.v" "$TMP/on.v" && diff "$TMP/off.v" "$TMP/tiny.v"'

expect_success "off: no hits and nothing stored" '
	test "$(json_get "$TMP/off.json" ref_cache.hits)" = 0 &&
	test "$(json_get "$TMP/off.json" ref_cache.stored)" = 0 &&
	test "$(cache off "$ex/solutions/cpu/relu.c")" = "0 0"'

# 4 check shapes and the CPU bench shape, 5 seeds each, and the
# determinism rerun's 2: 27 lookups per passing candidate
expect_success "on: the honest relu after the input writer hits its entry; the next relu hits every lookup" '
	test "$(cache on "$ex/solutions/cpu/relu.c")" = "3 24" &&
	test "$(cache on "$ex/redteam/03_restore_input.c")" = "27 0"'

expect_success "on: the first candidate of a task stores, and its rerun hits" '
	test "$(cache on "$ex/redteam/03_zero_input.c")" = "0 1" &&
	test "$(cache on "$ex/solutions/cpu/leaky_relu.c")" = "2 25"'

expect_success "the run sums the verdicts' hits and stores, and the profile has their time" '
	perl -MJSON::PP -e '\''
		local $/; open my $f, "<", $ARGV[0] or die; my $s = JSON::PP->new->decode(<$f>);
		my ($h, $st) = (0, 0);
		for (split /\n/, $ARGV[1]) { my ($a, $b) = split / /; $h += $a; $st += $b; }
		exit !($h > 0 && $s->{ref_cache}{hits} == $h && $s->{ref_cache}{stored} == $st &&
		       $s->{devices}[0]{ref_cache}{hits} == $h && $s->{profile_s}{ref_cache} > 0);
	'\'' "$TMP/on.json" "$(for f in $cands; do cache on "$f"; done)"'

# 40 MB holds relu's check shapes and one bench seed (16 MB each) at most:
# leaky_relu evicts relu's entries, so the next relu candidate stores again
expect_success "tiny: another task evicts the entries, which are computed and stored again" '
	set -- $(cache tiny "$ex/redteam/03_restore_input.c") &&
	test "$2" -gt 0 && test "$1" -lt 27 &&
	set -- $(cache on "$ex/redteam/03_restore_input.c") && test "$2" = 0'

expect_success "a single kjudge eval hits the determinism rerun's two lookups, or none when off" '
	"$KJ" eval level1/relu "$ex/solutions/cpu/relu.c" --backend cpu --no-perf --json >"$TMP/e.json" &&
	test "$(json_get "$TMP/e.json" ref_cache.hits)" = 2 &&
	test "$(json_get "$TMP/e.json" ref_cache.stored)" = 25 &&
	KJ_REF_CACHE_MB=0 "$KJ" eval level1/relu "$ex/solutions/cpu/relu.c" --backend cpu --no-perf --json \
		>"$TMP/e0.json" &&
	test "$(json_get "$TMP/e0.json" ref_cache.hits)" = 0'

done_testing
