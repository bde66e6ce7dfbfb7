#!/usr/bin/env bash
# A resumability drill on a realistic batch: every CUDA (or CPU) case file --
# honest, broken and red-team -- under two fake models and two refinement
# rounds (each copy a distinct source; MODELS="m1 m2 m3" for three), judged by `kjudge run`, killed with
# SIGKILL twice at random points and resumed until complete; then the report.
#
#   bench/run_killed.sh [--backend cuda|cpu] [--kill-after S] [-- extra run options]
#
# Prints the run summary, how many candidates each attempt judged, whether
# any candidate was judged twice, and the report's headline (Markdown); the
# HTML and JSON reports go to $OUT when it is set.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
KJ=${KJ:-$ROOT/build/kjudge}
MODELS=${MODELS:-m1 m2}
backend=cuda
kill_after=35
extra=()
while [ $# -gt 0 ]; do
	case $1 in
	--backend) backend=$2; shift 2 ;;
	--kill-after) kill_after=$2; shift 2 ;;
	--) shift; extra=("$@"); break ;;
	*) echo "usage: $0 [--backend cuda|cpu] [--kill-after S] [-- extra kjudge run options]" >&2; exit 2 ;;
	esac
done
ext=cu
[ "$backend" = cpu ] && ext=c
W=$(mktemp -d)
out=${OUT:-$W}
spec=$W/spec.jsonl
: >"$spec"
k=0
for f in "$ROOT"/examples/solutions/$backend/*.$ext "$ROOT"/examples/broken/$backend/*.$ext "$ROOT"/examples/redteam/*.$ext; do
	[ -f "$f" ] || continue
	task=$(head -n1 "$f" | sed -n 's/.*task=\([^ ]*\).*/\1/p')
	base=$(basename "$f" ".$ext")
	k=$((k + 1)) # one sample index per file: several files may target one task
	for model in $MODELS; do
		for round in 0 1; do
			src=$W/src/$model/$base.$round.$ext
			mkdir -p "$(dirname "$src")"
			{ cat "$f"; echo "// variant $model $round"; } >"$src"
			printf '{"task":"%s","model":"%s","sample":%d,"round":%d,"path":"%s"}\n' \
				"$task" "$model" "$k" "$round" "$src" >>"$spec"
		done
	done
done
n=$(wc -l <"$spec")
echo "run_killed: $n candidates, backend $backend"
db=$W/drill.sqlite
attempt=0
start=$(date +%s)
while :; do
	attempt=$((attempt + 1))
	"$KJ" run "$spec" --db "$db" --name drill --backend "$backend" --json "${extra[@]}" >"$W/run.$attempt.json" 2>"$W/run.$attempt.err" &
	pid=$!
	if [ "$attempt" -le 2 ]; then
		sleep "$kill_after"
		if kill -0 "$pid" 2>/dev/null; then
			kill -9 "$pid"
			pkill -9 -f kjudge-worker 2>/dev/null
			wait "$pid" 2>/dev/null
			echo "attempt $attempt: killed with SIGKILL after ${kill_after}s"
			continue
		fi
	fi
	wait "$pid"
	echo "attempt $attempt: finished, rc=$?"
	cat "$W/run.$attempt.json"
	break
done
echo "wall: $(( $(date +%s) - start )) s"
python3 - "$db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
q = lambda sql: c.execute(sql).fetchone()[0]
print("candidates:", q("SELECT count(*) FROM candidates"),
      "| verdicts:", q("SELECT count(*) FROM verdicts"),
      "| judgements finished per candidate (max):",
      q("SELECT max(k) FROM (SELECT count(*) k FROM judgements WHERE finished IS NOT NULL GROUP BY candidate_id)"),
      "| judgements cut by a kill:", q("SELECT count(*) FROM judgements WHERE finished IS NULL"))
PY
"$KJ" report drill --db "$db" --format md >"$out/report.md" 2>&1
"$KJ" report drill --db "$db" --format json >"$out/report.json" 2>&1
"$KJ" report drill --db "$db" --format html -o "$out/report.html" 2>&1
head -60 "$out/report.md"
