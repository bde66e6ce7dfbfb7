#!/usr/bin/env bash
# Wall time of `kjudge eval` per candidate on the CPU track: each honest CPU
# solution judged 5 times with a cold compile cache (a fresh cache folder per
# run) and 5 times warm, correctness only (--no-perf: timing runs for a fixed
# budget and would dominate) and with timing.  Prints medians per candidate
# and over all candidates.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
KJ=${KJ:-$ROOT/build/kjudge}
N=${N:-5}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
now() { date +%s.%N; }
printf '%-34s %10s %10s %10s\n' candidate cold_s warm_s warm+perf_s
: >"$TMP/all_cold"; : >"$TMP/all_warm"; : >"$TMP/all_perf"
for f in "$ROOT"/examples/solutions/cpu/*.c; do
	task=$(head -n1 "$f" | sed -n 's/.*task=\([^ ]*\).*/\1/p')
	: >"$TMP/cold"; : >"$TMP/warm"; : >"$TMP/perf"
	for i in $(seq "$N"); do
		t0=$(now); KJUDGE_CACHE="$TMP/c$i" "$KJ" eval --quiet --no-perf "$task" "$f" >/dev/null; t1=$(now)
		awk "BEGIN{print $t1 - $t0}" >>"$TMP/cold"
	done
	for i in $(seq "$N"); do
		t0=$(now); KJUDGE_CACHE="$TMP/c1" "$KJ" eval --quiet --no-perf "$task" "$f" >/dev/null; t1=$(now)
		awk "BEGIN{print $t1 - $t0}" >>"$TMP/warm"
	done
	t0=$(now); KJUDGE_CACHE="$TMP/c1" "$KJ" eval --quiet "$task" "$f" >/dev/null; t1=$(now)
	awk "BEGIN{print $t1 - $t0}" >>"$TMP/perf"
	c=$(median <"$TMP/cold"); w=$(median <"$TMP/warm"); p=$(cat "$TMP/perf")
	echo "$c" >>"$TMP/all_cold"; echo "$w" >>"$TMP/all_warm"; echo "$p" >>"$TMP/all_perf"
	printf '%-34s %10.3f %10.3f %10.3f\n' "$(basename "$f" .c)" "$c" "$w" "$p"
	rm -rf "$TMP"/c*
done
printf '%-34s %10.3f %10.3f %10.3f\n' "MEDIAN over candidates" "$(median <"$TMP/all_cold")" \
	"$(median <"$TMP/all_warm")" "$(median <"$TMP/all_perf")"
