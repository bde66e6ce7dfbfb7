#!/usr/bin/env bash
# KernelBench-format candidates per hour (issue 21 item 4): kjudge against
# KernelBench's own evaluator, on the same candidates, in one GPU session.
#
#   bench/kb_throughput.sh [--kb-repo DIR] [--plain N] [--no-inline] [--only kj|kb]
#
# The batch: bench/kb_cands.py's honest candidates for problems of the
# KernelBench checkout (--kb-repo, default .kb/repo; it needs src/ for the
# evaluator and KernelBench/level1-3 for the problems): N plain PyTorch
# ModelNew files (default 12) and the load_inline activations (8; each
# builds a torch extension, cold).  Then:
#   kernelbench  each candidate in a fresh Python process running
#                KernelBench's eval_kernel_against_ref as its batch script
#                does (bench/kb_eval_one.py: 5 correctness trials, 100 timed,
#                a build folder per candidate), one after another on GPU 0;
#   kjudge       `kjudge run` over the same pairs, the problem file as each
#                spec line's task, a cold cache.
# Prints a row per candidate (both verdicts, both times), then
#   kernelbench evaluator: C candidates in S s = X candidates per GPU-hour
#   kjudge run: C candidates in S s = Y candidates per GPU-hour
#   kb_throughput: kjudge / kernelbench = R
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
kj=${KJ:-${KJ_BUILD:-$root/build}/kjudge}
repo=$root/.kb/repo
plain=12
inline=--inline
only=""
while [ $# -gt 0 ]; do
	case $1 in
	--kb-repo) repo=$2; shift 2 ;;
	--plain) plain=$2; shift 2 ;;
	--no-inline) inline=""; shift ;;
	--only) only=$2; shift 2 ;;
	-h|--help) sed -n '2,21p' "$0"; exit 0 ;;
	*) echo "kb_throughput: unknown option $1" >&2; exit 2 ;;
	esac
done
[ -d "$repo/src/kernelbench" ] || { echo "kb_throughput: $repo has no src/kernelbench (a KernelBench checkout)" >&2; exit 2; }
repo=$(cd "$repo" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/kjkbt.XXXXXX")
trap 'rm -rf "$work"' EXIT
# shellcheck disable=SC2086
python3 "$root/bench/kb_cands.py" "$repo" "$work/cands" --plain "$plain" $inline >&2
pairs=$work/cands/pairs.tsv
n=$(grep -c . "$pairs")

# KernelBench's evaluator: a fresh process per candidate
kb_s=0
if [ "$only" != kj ]; then
	: >"$work/kb.jsonl"
	t0=$(date +%s.%N)
	i=0
	while IFS=$'\t' read -r prob cand kind; do
		mkdir -p "$work/kbbuild/$i"
		line=$(cd "$work" && timeout 900 python3 "$root/bench/kb_eval_one.py" "$repo" "$prob" "$cand" "$work/kbbuild/$i" 2>"$work/kb_$i.err" | tail -n 1)
		[ -n "$line" ] || line='{"error": "no result (see its stderr)"}'
		printf '%s\n' "$line" >>"$work/kb.jsonl"
		i=$((i + 1))
	done <"$pairs"
	kb_s=$(echo "$(date +%s.%N) - $t0" | bc)
fi

# kjudge run over the same pairs, cold
kj_s=0
if [ "$only" != kb ]; then
	export KJUDGE_CACHE=$work/kjcache
	old_cache=${XDG_CACHE_HOME:-$HOME/.cache}/kjudge
	mkdir -p "$KJUDGE_CACHE/calib"
	! ls "$old_cache"/calib/*.json >/dev/null 2>&1 || cp "$old_cache"/calib/*.json "$KJUDGE_CACHE/calib/"
	i=0
	while IFS=$'\t' read -r prob cand kind; do
		printf '{"task": "%s", "model": "%s", "sample": %d, "round": 0, "path": "%s"}\n' "$prob" "$kind" "$i" "$cand"
		i=$((i + 1))
	done <"$pairs" >"$work/spec.jsonl"
	t0=$(date +%s.%N)
	set +e
	"$kj" run "$work/spec.jsonl" --db "$work/kj.sqlite" --name kbthroughput --backend kernelbench --gpus 0 --json \
		>"$work/kj.json" 2>"$work/kj.err"
	echo "kb_throughput: kjudge run exited $?" >&2
	set -e
	kj_s=$(echo "$(date +%s.%N) - $t0" | bc)
	tail -n 5 "$work/kj.err" >&2
fi

python3 - "$pairs" "$work/kb.jsonl" "$work/kj.sqlite" "$kb_s" "$kj_s" "$n" <<'PY'
import json, os, sqlite3, sys
pairs, kbf, kjdb, kb_s, kj_s, n = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
rows = [l.rstrip("\n").split("\t") for l in open(pairs) if l.strip()]
kb = [json.loads(l) for l in open(kbf)] if os.path.exists(kbf) else []
kj = {}
if os.path.exists(kjdb):
    db = sqlite3.connect(kjdb)
    for path, status, flags, js in db.execute("SELECT c.path, v.status, v.flags, v.json FROM candidates c JOIN verdicts v ON v.candidate_id = c.id"):
        kj[path] = (status, flags, json.loads(js) if js else {})
print("%-52s %-6s | %-22s %9s %9s %6s | %-14s %-18s %9s %9s" % ("problem", "kind", "kernelbench", "ms", "ref ms", "s", "kjudge", "flags", "ms", "base ms"))
for i, (prob, cand, kind) in enumerate(rows):
    name = "/".join(prob.split("/")[-2:])[:52]
    k = kb[i] if i < len(kb) else {}
    kbs = "-" if not k else ("correct" if k.get("correctness") else ("compiled" if k.get("compiled") else "not compiled"))
    if k.get("error") and not k.get("correctness"):
        kbs += "*"
    s, f, v = kj.get(cand, ("-", "", {}))
    perf = (v.get("perf") or [{}])[0] if v else {}
    fmt = lambda x: "%.4f" % x if isinstance(x, (int, float)) else "-"
    print("%-52s %-6s | %-22s %9s %9s %6s | %-14s %-18s %9s %9s" % (name, kind, kbs, fmt(k.get("runtime_ms")), fmt(k.get("ref_runtime_ms")),
          "%.1f" % k["seconds"] if isinstance(k.get("seconds"), (int, float)) else "-", s, f[:18], fmt(perf.get("ms")), fmt(perf.get("baseline_ms"))))
errs = [(rows[i][0].split("/")[-1], k["error"]) for i, k in enumerate(kb) if k.get("error") and not k.get("correctness")]
for name, e in errs[:10]:
    print("  kernelbench %s: %s" % (name, e[:160]))
kbr = len(kb) / kb_s * 3600 if kb_s > 0 and kb else 0
kjr = len(kj) / kj_s * 3600 if kj_s > 0 and kj else 0
if kb:
    print("kernelbench evaluator: %d candidates in %.1f s = %.0f candidates per GPU-hour (%d correct)" % (len(kb), kb_s, kbr, sum(bool(k.get("correctness")) for k in kb)))
if kj:
    print("kjudge run: %d candidates in %.1f s = %.0f candidates per GPU-hour (%d pass)" % (len(kj), kj_s, kjr, sum(v[0] == "pass" for v in kj.values())))
if kbr and kjr:
    print("kb_throughput: kjudge / kernelbench = %.2f" % (kjr / kbr))
PY
