#!/usr/bin/env bash
# Throughput of `kjudge run`: candidates judged per GPU-hour on a mixed batch
# with cold compiles.
#
# The batch: every case of examples/solutions/BACKEND and examples/broken/BACKEND
# (level 1 and level 2 tasks, honest and broken), repeated under several fake
# models and samples until there are at least N candidates.  Each copy gets a
# line `// variant K` appended, so no two sources are identical: nothing is
# reused and every compile misses the cache.  The compile cache is a fresh
# folder; only the GPU calibration (calib/*.json) is copied in from the usual
# cache, so the run does not spend its time calibrating.
#
#   bench/run_throughput.sh [--backend cuda|cpu] [--n N] [--gpus LIST] [--jobs N]
#                           [--redteam] [-- extra kjudge run options]
#
# --redteam adds examples/redteam's cases of the backend to the batch.
# KJ_KEEP_STORE=PATH copies the run's store there (bench/budget_stats.py).
# Prints the run's JSON summary and one line:
#   throughput: C candidates in S s on G device(s) = X candidates per GPU-hour
# (per device-hour on the CPU track, where the device is the host), then
# whether every verdict is the one its case file's header names (exit 1
# when not).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
kj=${KJ:-${KJ_BUILD:-$root/build}/kjudge}
backend=""
n=120
gpus=0
jobs=""
redteam=0
extra=()
while [ $# -gt 0 ]; do
	case $1 in
	--backend) backend=$2; shift 2 ;;
	--n) n=$2; shift 2 ;;
	--gpus) gpus=$2; shift 2 ;;
	--jobs) jobs=$2; shift 2 ;;
	--redteam) redteam=1; shift ;;
	--) shift; extra=("$@"); break ;;
	-h|--help) sed -n '2,22p' "$0"; exit 0 ;;
	*) echo "run_throughput: unknown option $1" >&2; exit 2 ;;
	esac
done
if [ -z "$backend" ]; then
	if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
		backend=cuda
	else
		backend=cpu
	fi
fi
case $backend in
cuda) ext=cu ;;
cpu) ext=c ;;
*) echo "run_throughput: --backend is cuda or cpu" >&2; exit 2 ;;
esac
[ -x "$kj" ] || { echo "run_throughput: no kjudge at $kj (build it, or set KJ=)" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/kjbench.XXXXXX")
trap 'rm -rf "$work"' EXIT
old_cache=${KJUDGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kjudge}
export KJUDGE_CACHE=$work/cache
mkdir -p "$KJUDGE_CACHE/calib" "$work/src"
if ls "$old_cache"/calib/*.json >/dev/null 2>&1; then
	cp "$old_cache"/calib/*.json "$KJUDGE_CACHE/calib/"
fi

cases=$(ls "$root/examples/solutions/$backend"/*."$ext" "$root/examples/broken/$backend"/*."$ext" 2>/dev/null || true)
if [ $redteam = 1 ]; then
	cases="$cases
$(ls "$root"/examples/redteam/*."$ext" 2>/dev/null || true)"
fi
ncases=$(printf '%s\n' "$cases" | grep -c . || true)
[ "$ncases" -gt 0 ] || { echo "run_throughput: no $backend cases under examples/" >&2; exit 2; }

spec=$work/batch.jsonl
k=0
while [ $k -lt "$n" ]; do
	for f in $cases; do
		[ $k -lt "$n" ] || break
		task=$(head -n 1 "$f" | sed -n 's/.*task=\([^ ]*\).*/\1/p')
		[ -n "$task" ] || continue
		model=model$((k % 4))
		sample=$((k / 4))
		# the case's folder (solutions, broken, redteam) stays in the
		# path: bench/budget_stats.py tells honest cases from those by it
		cat=$(printf '%s\n' "$f" | sed -n 's#.*/examples/\([a-z]*\)/.*#\1#p')
		mkdir -p "$work/src/${cat:-other}"
		out=$work/src/${cat:-other}/$k.$ext
		cp "$f" "$out"
		printf '\n// variant %d\n' "$k" >>"$out"
		printf '{"task": "%s", "model": "%s", "sample": %d, "round": 0, "path": "%s"}\n' \
			"$task" "$model" "$sample" "$out"
		k=$((k + 1))
	done
done >"$spec"

args=(run "$spec" --db "$work/bench.sqlite" --name throughput --backend "$backend" --json)
[ "$backend" = cuda ] && args+=(--gpus "$gpus")
[ -n "$jobs" ] && args+=(--jobs "$jobs")
echo "run_throughput: $k candidates ($ncases cases x variants), backend $backend, cold cache $KJUDGE_CACHE" >&2
start=$(date +%s.%N)
set +e
"$kj" "${args[@]}" "${extra[@]}" >"$work/summary.json"
rc=$?
set -e
end=$(date +%s.%N)
cat "$work/summary.json"
if [ $rc -ne 0 ]; then
	echo "run_throughput: kjudge run exited $rc" >&2
fi
ndev=1
[ "$backend" = cuda ] && ndev=$(printf '%s\n' "$gpus" | tr ',' '\n' | grep -c .)
perl -MJSON::PP -e '
	my ($file, $start, $end, $ndev, $backend) = @ARGV;
	local $/; open my $f, "<", $file or die; my $s = JSON::PP->new->decode(<$f>);
	my $secs = $end - $start;
	my $c = $s->{judged};
	printf "status: %s\n", join(" ", map { "$_=$s->{by_status}{$_}" } sort grep { $s->{by_status}{$_} } keys %{$s->{by_status}});
	printf "throughput: %d candidates in %.1f s on %d %s device(s) = %.0f candidates per %s-hour\n",
		$c, $secs, $ndev, $backend, $c / $secs * 3600 / $ndev, $backend eq "cuda" ? "GPU" : "device";
	# where the evaluation threads spent their time, per judged candidate
	if (my $p = $s->{profile_s} and $c > 0) {
		my @k = sort { $p->{$b} <=> $p->{$a} } keys %$p;
		printf "profile (s per judged candidate): %s\n",
			join(" ", map { sprintf "%s %.3f", $_, $p->{$_} / $c } grep { $p->{$_} / $c >= 0.0005 } @k);
		my $busy = 0; $busy += $_->{busy_s} for @{$s->{devices} || []};
		printf "evaluation threads busy %.1f s of %.1f s wall\n", $busy, $secs;
	}
	# the reference cache (KJ_REF_CACHE_MB=0 turns it off): correctness
	# inputs with their reference and baseline outputs copied back, not computed
	if (my $r = $s->{ref_cache}) {
		printf "reference cache: %d hits, %d stored (%.1f hits per judged candidate)\n",
			$r->{hits}, $r->{stored}, $c > 0 ? $r->{hits} / $c : 0;
	}
' "$work/summary.json" "$start" "$end" "$ndev" "$backend"
# every verdict against its case file's header (expect=STATUS, flag=FLAG):
# the batch is judged as each case says, whatever the run's settings
python3 - "$work/bench.sqlite" <<'PY' || rc=1
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT c.path, v.status, v.flags FROM candidates c JOIN verdicts v ON v.candidate_id = c.id").fetchall()
bad = []
for path, status, flags in rows:
    head = open(path).readline()
    want = dict(kv.split("=", 1) for kv in head.split() if "=" in kv)
    ok = status == want.get("expect") and (not want.get("flag") or want["flag"] in flags.split(","))
    if not ok:
        bad.append("  %s (%s): %s [%s], the case says %s%s" % (path.rsplit("/", 1)[-1], want.get("task"), status, flags,
                   want.get("expect"), " flag " + want["flag"] if want.get("flag") else ""))
print("verdicts as their cases say: %d of %d" % (len(rows) - len(bad), len(rows)))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
# KJ_KEEP_STORE=PATH keeps the run's store (for bench/budget_stats.py)
[ -z "${KJ_KEEP_STORE:-}" ] || cp "$work/bench.sqlite" "$KJ_KEEP_STORE"
exit $rc
