#!/usr/bin/env bash
# The cost of a change to the judge, two builds measured in one run on the same
# machine ("before" and "after"; made for the sandbox work: bench/make_before.sh
# builds the before side):
#
#   bench/sandbox_cost.sh --before DIR --after DIR [--tracks cpu,cuda] [--n N] [--total S]
#       [--warm K] [--perf-budget S] [--tp-n N] [--tp-timeout S] [--tp-tracks LIST]
#
#   bash tests/gpu/device.sh bash bench/sandbox_cost.sh --before build/device-before --after build/device
#
# Each DIR holds a `kjudge` (its kjudge-worker beside it, found by kjudge
# itself).  A DIR with libkjudge.so.gz and no libkjudge.so (bench/make_before.sh
# packs it so, for the carry limit) has it unpacked into the scratch folder,
# which goes first on LD_LIBRARY_PATH for that build's commands only.  Each
# build gets its own private compile cache (KJUDGE_CACHE) with the GPU
# calibration copied in (from $KJUDGE_CACHE/calib, or ~/.cache/kjudge/calib,
# when there is one, else from one `kjudge calibrate`), so that no eval
# calibrates.  Both builds judge this tree's tasks/ (KJUDGE_HOME).
#
# First, on the tracks of --tp-tracks (default cuda), `bench/run_throughput.sh`
# once per build: KJ=DIR/kjudge, its default settings but --n, which is --tp-n
# (default 120, its own default); each run is cut at --tp-timeout seconds
# (default 180) or a third of the budget left, whichever is less.
#
# Then per track (cpu: examples/solutions/cpu/*.c, cuda:
# examples/solutions/cuda/*.cu: the honest solutions, in name order, the task
# from the `// kjudge-case:` line) and per candidate, as bench/eval_latency.sh
# and eval_latency_cpu.sh do it, before and after alternating run by run (and
# which goes first flips every candidate), so that drift hits both alike:
#   cold  `kjudge eval --no-cache --no-perf` (the compiler runs), wall time;
#   warm  K times (--warm, default 3) `--no-perf` (the compile cache hits),
#         the median wall time;
#   perf  `--perf-budget 0.5 --json` (--perf-budget), the verdict's `speedup`.
# One untimed eval per build and track comes first (binaries, compiler and
# driver loaded).
#
# --n caps the candidates per track (default: all); --total (default 520 s) is
# the whole script's budget: each track's evals get an equal share of what the
# throughput runs left, and a candidate starts only while the last one's time
# still fits.  At the defaults the run ends within ~9 minutes: one 10-minute
# device call, with tests/gpu/device.sh.
#
# A build whose judge fails (exit 3: the after build prints an error and exits
# 3 when `bwrap` is not on PATH) is reported with its message, and is not run
# again on that track after a candidate on which all its runs failed.
#
# Output: one progress line per candidate; then the per-candidate speedups
# (candidate, before, after, ratio after/before) and the geometric mean of the
# ratios; the sandbox's cost per candidate (median over candidates of after -
# before, cold and warm); and last the short table: track, build, candidates,
# cold median s, warm median s, throughput per GPU-hour where measured.  The
# raw lines (one per eval: track build candidate kind wall_s rc status
# total_s speedup; one per throughput run) and run_throughput's output go to
# $OUT/sandbox_cost.txt as they are measured, the tables after them, when OUT
# is set.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
usage() { awk 'NR > 1 && !/^#/ {exit} NR > 1 {print}' "$0"; }
before="" after="" tracks="" n=1000000 total=520 warm=3 budget=0.5 tp_n=120 tp_timeout=180 tp_tracks=cuda
while [ $# -gt 0 ]; do
	case $1 in
	--before) before=$2; shift 2 ;;
	--after) after=$2; shift 2 ;;
	--tracks) tracks=$2; shift 2 ;;
	--n) n=$2; shift 2 ;;
	--total) total=$2; shift 2 ;;
	--warm) warm=$2; shift 2 ;;
	--perf-budget) budget=$2; shift 2 ;;
	--tp-n) tp_n=$2; shift 2 ;;
	--tp-timeout) tp_timeout=$2; shift 2 ;;
	--tp-tracks) tp_tracks=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	*) echo "sandbox_cost: unknown option $1" >&2; usage >&2; exit 2 ;;
	esac
done
[ -n "$before" ] && [ -n "$after" ] || { echo "sandbox_cost: --before DIR and --after DIR are required" >&2; exit 2; }
gpu=0
command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1 && gpu=1
[ -n "$tracks" ] || { [ $gpu = 1 ] && tracks=cuda,cpu || tracks=cpu; }
unset KJ_WORKER                 # each kjudge finds the worker beside itself
export KJUDGE_HOME=$ROOT        # both builds judge this tree's tasks
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kjsandbox.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
declare -A KJ LDP
for b in before after; do
	d=${!b}
	d=$(cd "$d" 2>/dev/null && pwd) || { echo "sandbox_cost: --$b: no folder ${!b}" >&2; exit 2; }
	[ -x "$d/kjudge" ] || { echo "sandbox_cost: --$b: no kjudge in $d" >&2; exit 2; }
	[ -x "$d/kjudge-worker" ] || echo "sandbox_cost: warning: --$b: no kjudge-worker beside $d/kjudge" >&2
	KJ[$b]=$d/kjudge
	LDP[$b]=""
	if [ ! -e "$d/libkjudge.so" ] && [ -e "$d/libkjudge.so.gz" ]; then
		mkdir -p "$WORK/lib-$b"
		gunzip -c "$d/libkjudge.so.gz" >"$WORK/lib-$b/libkjudge.so" ||
			{ echo "sandbox_cost: --$b: cannot unpack $d/libkjudge.so.gz" >&2; exit 2; }
		LDP[$b]=$WORK/lib-$b${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	fi
done
# kjudge of build $1 with the rest of the arguments (its own libkjudge.so first
# on LD_LIBRARY_PATH where it was unpacked; the environment untouched otherwise)
kjb() {
	local b=$1
	shift
	if [ -n "${LDP[$b]}" ]; then
		LD_LIBRARY_PATH=${LDP[$b]} "${KJ[$b]}" "$@"
	else
		"${KJ[$b]}" "$@"
	fi
}
for b in before after; do
	# the build must at least start
	if ! kjb "$b" tasks >/dev/null 2>"$WORK/start.err"; then
		echo "sandbox_cost: --$b: ${KJ[$b]} does not start: $(tail -n 1 "$WORK/start.err")" >&2
		exit 2
	fi
done
RAWF=$WORK/raw.txt
RES=${OUT:+$OUT/sandbox_cost.txt}
[ -n "$RES" ] && { mkdir -p "$OUT"; : >"$RES"; }
: >"$RAWF"
now() { date +%s.%N; }
START=$(now)
el() { awk "BEGIN{printf \"%.0f\", $(now) - $START}"; }
raw() { # a line for the raw record (and $OUT as it goes)
	printf '%s\n' "$*" >>"$RAWF"
	[ -n "$RES" ] && printf '%s\n' "$*" >>"$RES"
}
say() { echo "$*"; raw "# $*"; }

rev() { [ -s "$(dirname "$1")/REVISION" ] && echo " (revision $(cut -c1-12 "$(dirname "$1")/REVISION"))"; }
say "sandbox_cost: before ${KJ[before]}$(rev "${KJ[before]}"), after ${KJ[after]}$(rev "${KJ[after]}")"
say "sandbox_cost: tracks $tracks, n $([ "$n" -ge 1000000 ] && echo all || echo "$n"), total ${total} s, warm x$warm, perf budget $budget; bwrap: $(command -v bwrap || echo 'not on PATH')"

# private caches, the calibration copied in
old_cache=${KJUDGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kjudge}
declare -A CACHE
for b in before after; do
	CACHE[$b]=$WORK/cache-$b
	mkdir -p "${CACHE[$b]}/calib"
done
if [[ ",$tracks,$tp_tracks," == *",cuda,"* ]] && [ $gpu = 1 ]; then
	if ls "$old_cache"/calib/*.json >/dev/null 2>&1; then
		cp "$old_cache"/calib/*.json "$WORK/cache-before/calib/"
		say "calibration: copied from $old_cache/calib"
	else
		mkdir -p "$WORK/calib"
		t0=$(now)
		for b in after before; do
			kjb "$b" calibrate --cache "$WORK/calib" >/dev/null 2>"$WORK/calib.err" && break
			say "calibration with the $b build failed: $(tail -n 1 "$WORK/calib.err")"
		done
		cp "$WORK/calib"/calib/*.json "$WORK/cache-before/calib/" 2>/dev/null ||
			say "no calibration: each build's first CUDA eval will calibrate inside its time"
		say "calibration: $(awk "BEGIN{printf \"%.1f\", $(now) - $t0}") s"
	fi
	cp "$WORK/cache-before/calib/"*.json "$WORK/cache-after/calib/" 2>/dev/null
fi

# --- run throughput, once per build --------------------------------------
for tr in ${tp_tracks//,/ }; do
	[[ ",$tracks," == *",$tr,"* ]] || continue
	if [ "$tr" = cuda ] && [ $gpu = 0 ]; then continue; fi
	# the same cut for both: --tp-timeout, at most a third of what is left each
	left=$(awk "BEGIN{l = ($total - ($(now) - $START)) / 3; t = $tp_timeout; printf \"%d\", (l < t ? l : t)}")
	for b in before after; do
		if [ "$left" -lt 20 ]; then
			say "throughput $tr $b: not run (${left} s of the budget for it)"
			continue
		fi
		t0=$(now)
		( [ -n "${LDP[$b]}" ] && export LD_LIBRARY_PATH=${LDP[$b]}
		  KJ=${KJ[$b]} KJUDGE_CACHE=${CACHE[$b]} exec timeout "$left" bash "$ROOT/bench/run_throughput.sh" --backend "$tr" --n "$tp_n" ) \
			>"$WORK/tp-$tr-$b.out" 2>"$WORK/tp-$tr-$b.err"
		rc=$?
		line=$(grep '^throughput:' "$WORK/tp-$tr-$b.out")
		st=$(grep '^status:' "$WORK/tp-$tr-$b.out")
		[ $rc = 124 ] && line="timed out after ${left} s (--tp-timeout, --tp-n)"
		[ -z "$line" ] && line="no result (exit $rc): $(grep -v -e '^run_throughput:' -e ' at -e line ' "$WORK/tp-$tr-$b.err" | grep . | tail -n 1 | cut -c1-200)"
		raw "tp	$tr	$b	$rc	$line	$st"
		[ -n "$RES" ] && sed 's/^/#   /' "$WORK/tp-$tr-$b.out" "$WORK/tp-$tr-$b.err" | tail -n 40 >>"$RES"
		say "throughput $tr $b ($(awk "BEGIN{printf \"%.0f\", $(now) - $t0}") s, exit $rc): $line${st:+; $st}"
	done
done

# --- evals: cold, warm, perf per candidate, builds alternating ---------------
ev() { # track build cand kind task file [eval options]
	local tr=$1 b=$2 cand=$3 kind=$4 task=$5 file=$6 t0 t1 rc i js st tot sp
	shift 6
	i=$(wc -l <"$RAWF")
	js=$WORK/r$i.json
	t0=$(now)
	KJUDGE_CACHE=${CACHE[$b]} kjb "$b" eval "$task" "$file" --json --quiet "$@" >"$js" 2>"$WORK/r$i.err"
	rc=$?
	t1=$(now)
	read -r st tot sp < <(python3 -c '
import json, sys
try:
    v = json.load(open(sys.argv[1]))
except Exception:
    print("-", "-", "-"); sys.exit()
g = lambda k: "-" if v.get(k) is None else v.get(k)
print(g("status"), g("total_seconds"), g("speedup"))' "$js")
	if [ "$rc" -gt 1 ]; then
		st="exit$rc"
		printf '%s\n' "$(grep -v '^\s*$' "$WORK/r$i.err" | tail -n 1 | cut -c1-240)" >"$WORK/fail-$tr-$b"
		raw "fail	$tr	$b	$cand	$kind	$rc	$(cat "$WORK/fail-$tr-$b")"
	fi
	raw "$tr	$b	$cand	$kind	$(awk "BEGIN{printf \"%.4f\", $t1 - $t0}")	$rc	$st	$tot	$sp"
	[ "$rc" -le 1 ]
}

warmup() { # one untimed eval per build (a scratch cache), so that the first
	# timed run does not pay for loading the binaries, the compiler, the driver
	local b task=$(head -n 1 "$1" | sed -n 's/.*task=\([^ ]*\).*/\1/p')
	for b in before after; do
		rm -rf "$WORK/warmup" && mkdir -p "$WORK/warmup" && cp -r "${CACHE[$b]}/calib" "$WORK/warmup/"
		KJUDGE_CACHE=$WORK/warmup kjb "$b" eval "$task" "$1" --quiet --no-perf >/dev/null 2>&1
	done
	rm -rf "$WORK/warmup"
}

IFS=, read -r -a TR <<<"$tracks"
ntr=${#TR[@]}
for ((ti = 0; ti < ntr; ti++)); do
	tr=${TR[$ti]}
	case $tr in
	cpu) ext=c ;;
	cuda) ext=cu ;;
	*) say "track $tr: unknown (cpu or cuda)"; continue ;;
	esac
	if [ "$tr" = cuda ] && [ $gpu = 0 ]; then
		say "track cuda: no GPU (nvidia-smi -L), not run"
		continue
	fi
	# this track's share of what is left
	deadline=$(awk "BEGIN{printf \"%.3f\", $(now) + ($total - ($(now) - $START)) / ($ntr - $ti)}")
	declare -A broken=()
	k=0 last=0 skipped=0
	shopt -s nullglob
	files=("$ROOT/examples/solutions/$tr"/*."$ext")
	[ ${#files[@]} -gt 0 ] && warmup "${files[0]}"
	for f in "${files[@]}"; do
		cand=$(basename "$f" ".$ext")
		task=$(head -n 1 "$f" | sed -n 's/.*task=\([^ ]*\).*/\1/p')
		[ -n "$task" ] || continue
		if [ $k -ge "$n" ] || awk "BEGIN{exit !($(now) + $last > $deadline)}"; then
			skipped=$((skipped + 1))
			continue
		fi
		t0=$(now)
		if [ $((k % 2)) = 0 ]; then order="before after"; else order="after before"; fi
		declare -A ok=([before]=0 [after]=0)
		for b in $order; do
			[ -n "${broken[$b]:-}" ] && continue
			ev "$tr" "$b" "$cand" cold "$task" "$f" --no-cache --no-perf && ok[$b]=1
		done
		for ((w = 0; w < warm; w++)); do
			for b in $order; do
				[ -n "${broken[$b]:-}" ] && continue
				ev "$tr" "$b" "$cand" warm "$task" "$f" --no-perf && ok[$b]=1
			done
		done
		for b in $order; do
			[ -n "${broken[$b]:-}" ] && continue
			ev "$tr" "$b" "$cand" perf "$task" "$f" --perf-budget "$budget" && ok[$b]=1
		done
		line="$tr $cand:"
		for b in before after; do
			if [ -n "${broken[$b]:-}" ]; then
				line="$line  $b (not run)"
				continue
			fi
			line="$line  $b $(awk -F'\t' -v t="$tr" -v b="$b" -v c="$cand" '
				$1 == t && $2 == b && $3 == c { if ($4 == "cold") cw = $5; if ($4 == "warm") w[++wn] = $5
				if ($4 == "perf") sp = $9; st = $7 }
				END { for (i = 2; i <= wn; i++) for (j = i; j > 1 && w[j - 1] > w[j]; j--) { x = w[j]; w[j] = w[j - 1]; w[j - 1] = x }
				      wm = wn % 2 ? w[(wn + 1) / 2] : (w[wn / 2] + w[wn / 2 + 1]) / 2
				      printf "cold %.2f warm %.2f speedup %s (%s)", cw, wm, sp == "-" ? sp : sprintf("%.3f", sp), st }' "$RAWF")"
			if [ "${ok[$b]}" = 0 ]; then
				broken[$b]=1
				say "$tr: every run of the $b build failed on $cand: $(cat "$WORK/fail-$tr-$b" 2>/dev/null); not run again on $tr"
			fi
		done
		echo "$line  [$(el) s]"
		k=$((k + 1))
		last=$(awk "BEGIN{print $(now) - $t0}")
	done
	[ $skipped -gt 0 ] && say "track $tr: $k candidates measured, $skipped left out (--n or --total)"
	unset broken
done

# --- tables -------------------------------------------------------------------
python3 - "$RAWF" "${RES:-}" <<'PY'
import math, statistics, sys

raw, res = sys.argv[1], sys.argv[2]
lines = []


def say(s=""):
    print(s, flush=True)
    lines.append(s)


def num(x):
    try:
        return float(x)
    except ValueError:
        return None


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def f(x, spec=".3f"):
    return "-" if x is None else format(x, spec)


ev = {}        # (track, build, cand) -> {cold: [], warm: [], perf: []}
cands = {}     # track -> [cand] in order
fails = {}     # (track, build) -> [reason]
tp = {}        # (track, build) -> line
for row in open(raw):
    row = row.rstrip("\n")
    if not row or row.startswith("#"):
        continue
    p = row.split("\t")
    if p[0] == "tp":
        tp[(p[1], p[2])] = p[4]
        continue
    if p[0] == "fail":
        fails.setdefault((p[1], p[2]), []).append((p[3], p[5], p[6]))
        continue
    tr, b, cand, kind, wall, rc, st, tot, sp = p
    cands.setdefault(tr, [])
    if cand not in cands[tr]:
        cands[tr].append(cand)
    r = ev.setdefault((tr, b, cand), {"cold": [], "warm": [], "perf": []})
    if int(rc) > 1:
        continue
    r[kind].append({"wall": float(wall), "st": st, "sp": num(sp)})

say()
say("== speedups (perf run, --perf-budget; ratio = after / before)")
say("%-6s %-40s %9s %9s %7s" % ("track", "candidate", "before", "after", "ratio"))
ratios = {}
for tr, cs in cands.items():
    for c in cs:
        sb = [x["sp"] for x in ev.get((tr, "before", c), {}).get("perf", [])]
        sa = [x["sp"] for x in ev.get((tr, "after", c), {}).get("perf", [])]
        sb = sb[0] if sb else None
        sa = sa[0] if sa else None
        ratio = sa / sb if sa and sb else None
        if ratio:
            ratios.setdefault(tr, []).append(ratio)
        say("%-6s %-40s %9s %9s %7s" % (tr, c, f(sb), f(sa), f(ratio)))
for tr, rs in ratios.items():
    g = math.exp(sum(math.log(r) for r in rs) / len(rs))
    say("geometric mean of the ratios, %s: %.4f over %d candidates (min %.3f, max %.3f)" % (tr, g, len(rs), min(rs), max(rs)))
allr = [r for rs in ratios.values() for r in rs]
if len(ratios) > 1:
    say("geometric mean of the ratios, all: %.4f over %d candidates" % (
        math.exp(sum(math.log(r) for r in allr) / len(allr)), len(allr)))
if not allr:
    say("no candidate has a speedup from both builds")

say()
say("== sandbox cost per candidate (median over candidates of after - before, paired)")
for tr, cs in cands.items():
    dc, dw = [], []
    for c in cs:
        rb, ra = ev.get((tr, "before", c)), ev.get((tr, "after", c))
        if not rb or not ra:
            continue
        if rb["cold"] and ra["cold"]:
            dc.append(ra["cold"][0]["wall"] - rb["cold"][0]["wall"])
        wb, wa = med([x["wall"] for x in rb["warm"]]), med([x["wall"] for x in ra["warm"]])
        if wb is not None and wa is not None:
            dw.append(wa - wb)
    say("%-5s cold %s s, warm %s s (%d candidates)" % (
        tr, f(med(dc), "+.3f"), f(med(dw), "+.3f"), max(len(dc), len(dw))))
for (tr, b), fs in sorted(fails.items()):
    say("%s %s: the judge failed on %d run(s), first on %s (exit %s): %s" % (tr, b, len(fs), fs[0][0], fs[0][1], fs[0][2]))

say()
say("== summary (wall seconds of kjudge eval --no-perf: cold = --no-cache, warm = cache hit; medians over candidates)")
say("%-6s %-7s %6s %8s %8s  %s" % ("track", "build", "cands", "cold_s", "warm_s", "throughput"))
for tr, cs in cands.items():
    for b in ("before", "after"):
        cold = [ev[(tr, b, c)]["cold"][0]["wall"] for c in cs if ev.get((tr, b, c), {}).get("cold")]
        warm = [med([x["wall"] for x in ev[(tr, b, c)]["warm"]]) for c in cs if ev.get((tr, b, c), {}).get("warm")]
        t = tp.get((tr, b), "-")
        if t.startswith("throughput:"):
            t = t.split("=")[-1].strip()
        t = t[:90]
        say("%-6s %-7s %6d %8s %8s  %s" % (tr, b, len(cold), f(med(cold)), f(med(warm)), t))
for (tr, b), t in tp.items():
    if tr not in cands:
        say("%-6s %-7s %6s %8s %8s  %s" % (tr, b, "-", "-", "-", t.split("=")[-1].strip()))
if res:
    with open(res, "a") as fo:
        fo.write("\n".join(lines) + "\n")
PY
echo "sandbox_cost done in $(el) s"
