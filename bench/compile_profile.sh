#!/usr/bin/env bash
# Cold compile of CUDA candidates, step by step: where nvcc's time goes, and
# what the two-chain build (src/judge/compile.c: the host's front end and the
# device's chain at once) makes of it.  Runs here and on the GPU machine
# (nothing needs a GPU):
#   bash bench/compile_profile.sh [FILE.cu...]
#   bash tests/gpu/device.sh bash bench/compile_profile.sh
# For each candidate (default: four of examples/solutions/cuda; ALL=1: every
# .cu of examples/solutions/cuda, examples/broken/cuda and examples/redteam):
#   steps   kjudge's own nvcc command (one call, outside the jail, under a
#           wrapper nvcc that adds -time), N times: the median seconds of
#           each step: pre4 (gcc -E, host), cudafe++, pre1 (gcc -E, device),
#           cicc, ptxas, fatbin, gcc -c (host), then the link (nvlink, the
#           link stub, fatbinary and gcc of the device link, g++): host =
#           pre4 + cudafe++, device = pre1 + cicc + ptxas + fatbin, and
#           "2-chain est" = max(host, device) + gcc -c + link;
#   totals  kj_compile in the jail, cold, N times each way: "1 call" (one
#           nvcc, before) and "2 chains" (after), medians, with the whole
#           build's overhead (jail, the --dryrun plan);
#   kernels whether both ways give the same kernels (the .text sections
#           of the cubins, byte for byte), or for a candidate that does
#           not compile, whether both logs agree.
# Environment: N (runs per way, default 3; ALL=1 makes it 1), KJ_BUILD
# (build folder: libkjudge.a, or the device bundle's libkjudge.so), OUT (the
# table goes there too), NVCC (default: nvcc on PATH).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
BUILD=${KJ_BUILD:-$ROOT/build}
NVCC_BIN=$(command -v "${NVCC:-nvcc}") || { echo "compile_profile: no nvcc on PATH"; exit 1; }
WORK=$(mktemp -d)
[ -n "${KEEP_WORK:-}" ] || trap 'rm -rf "$WORK"' EXIT

if [ "$#" -gt 0 ]; then
	files=("$@")
elif [ "${ALL:-0}" = 1 ]; then
	shopt -s nullglob
	files=(examples/solutions/cuda/*.cu examples/broken/cuda/*.cu examples/redteam/*.cu)
	N=${N:-1}
else
	files=(examples/solutions/cuda/softmax.cu examples/solutions/cuda/layer_norm.cu
	       examples/solutions/cuda/fp8_block_gemm.cu examples/solutions/cuda/gemm_sub_mul_relu.cu)
fi
N=${N:-3}

# the helper, against the static library here or the bundle's shared one;
# the kernels are compared where libelf's headers are
CFLAGS_H="-std=c11 -D_GNU_SOURCE -O2 -Iinclude -Itests/unit"
ELF=""
printf '#include <gelf.h>\n' | cc -E - >/dev/null 2>&1 && ELF="-DKJ_SASS_CHECK -lelf"
LIBS="-lmicrohttpd -lcurl -ljansson -lffi -lelf -lcrypto -lsqlite3 -lpq -lseccomp -lz -ldl -lm -lpthread"
CUDA_LIBS="-L${CUDA_HOME:-/usr/local/cuda}/lib64 -lcublasLt -lcublas -lcudnn -lcudart -lstdc++"
if [ -f "$BUILD/libkjudge.a" ]; then
	cc $CFLAGS_H -o "$WORK/ct" bench/compile_time.c "$BUILD/libkjudge.a" $ELF $LIBS $CUDA_LIBS 2>"$WORK/cc.err"
else
	cc $CFLAGS_H -o "$WORK/ct" bench/compile_time.c -L"$BUILD" -lkjudge -Wl,-rpath,"$BUILD" \
		-Wl,--allow-shlib-undefined $ELF 2>"$WORK/cc.err"
fi || { echo "compile_profile: cannot build bench/compile_time.c:"; cat "$WORK/cc.err"; exit 1; }

# nvcc as kjudge calls it, with -time into a file per run
cat >"$WORK/nvcc" <<EOF
#!/bin/sh
case " \$* " in
*" --dryrun "*|*" --version "*) exec '$NVCC_BIN' "\$@" ;;
esac
exec '$NVCC_BIN' "\$@" -time "$WORK/times/t.\$\$.csv"
EOF
chmod +x "$WORK/nvcc"

: >"$WORK/rows.tsv"
for f in "${files[@]}"; do
	name=$(basename "$f")
	rm -rf "$WORK/times" && mkdir -p "$WORK/times"
	KJ_NVCC="$WORK/nvcc" "$WORK/ct" --one --unconfined --cache "$WORK/cache" -n "$N" "$f" >/dev/null \
		2>>"$WORK/ct.err"
	cat "$WORK"/times/t.*.csv 2>/dev/null >"$WORK/steps.$name.csv"
	"$WORK/ct" --cache "$WORK/cache" -n "$N" "$f" >>"$WORK/rows.tsv" 2>>"$WORK/ct.err"
done

python3 - "$WORK" "${OUT:-}" "$N" <<'PY'
import csv, glob, os, statistics, sys

work, out_dir, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
STEPS = ["pre4", "cudafe++", "pre1", "cicc", "ptxas", "fatbin", "gcc -c", "link"]
lines = []


def say(s=""):
    print(s, flush=True)
    lines.append(s)


def step_of(row):
    phase = row[1].strip()
    files = row[2] + row[3]
    if phase == "gcc (preprocessing 4)":
        return "pre4"
    if phase == "gcc (preprocessing 1)":
        return "pre1"
    if phase in ("cudafe++", "cicc", "ptxas"):
        return phase
    if phase == "fatbinary" and "dlink" not in files:
        return "fatbin"
    if phase == "gcc (compiling)" and "dlink" not in files and "link.stub" not in files:
        return "gcc -c"
    return "link"  # nvlink, the device link's fatbinary and stub, g++, the driver


def runs(path):
    """Each run's seconds per step: a run starts at its header line."""
    out, cur = [], None
    for row in csv.reader(open(path)):
        if len(row) < 7:
            continue
        if row[0].startswith("source file name"):
            cur = dict.fromkeys(STEPS, 0.0)
            out.append(cur)
            continue
        try:
            ms = float(row[6])
        except ValueError:
            continue
        if cur is not None:
            cur[step_of(row)] += ms / 1000
    return [r for r in out if any(r.values())]


totals = {}
for row in open(os.path.join(work, "rows.tsv")):
    name, one, two, verdict = row.rstrip("\n").split("\t")
    totals[name] = (float(one), float(two), verdict)

say("cold compile of CUDA candidates, median of %d runs, seconds" % n)
say("%-30s " % "candidate" + " ".join("%8s" % s for s in STEPS) +
    " | %6s %6s %6s %10s | %6s %8s %6s  %s" % ("host", "device", "serial", "2-chain est", "1 call", "2 chains",
                                                "gain", "kernels"))
agg = {k: [] for k in ("serial", "est", "one", "two")}
for path in sorted(glob.glob(os.path.join(work, "steps.*.csv"))):
    name = os.path.basename(path)[len("steps."):-len(".csv")]
    rs = runs(path)
    one, two, verdict = totals.get(name, (-1, -1, "no total"))
    if rs:
        med = {s: statistics.median(r[s] for r in rs) for s in STEPS}
        host = med["pre4"] + med["cudafe++"]
        dev = med["pre1"] + med["cicc"] + med["ptxas"] + med["fatbin"]
        serial = sum(med.values())
        est = max(host, dev) + med["gcc -c"] + med["link"]
        cells = " ".join("%8.3f" % med[s] for s in STEPS)
    else:
        host = dev = serial = est = float("nan")
        cells = " ".join("%8s" % "-" for s in STEPS)
    gain = 1 - two / one if one > 0 and two > 0 else float("nan")
    say("%-30s %s | %6.3f %6.3f %6.3f %10.3f | %6.3f %8.3f %5.0f%%  %s" % (
        name[:30], cells, host, dev, serial, est, one, two, 100 * gain, verdict))
    if rs and one > 0 and two > 0 and verdict.startswith("same"):
        agg["serial"].append(serial)
        agg["est"].append(est)
        agg["one"].append(one)
        agg["two"].append(two)
if agg["one"]:
    m = {k: statistics.median(v) for k, v in agg.items()}
    say()
    say("MEDIAN over %d candidates that compile: steps one after the other %.3f s, two chains estimated %.3f s; "
        "kj_compile cold: one nvcc call %.3f s, two chains %.3f s (%.0f%% less)" % (
            len(agg["one"]), m["serial"], m["est"], m["one"], m["two"], 100 * (1 - m["two"] / m["one"])))
bad = [l for l in lines if "DIFFER" in l or "UNREADABLE" in l or "judge error" in l]
unchecked = any("not compared" in l for l in lines)
say("kernels: %s" % ("not compared (no libelf headers here)" if unchecked and not bad else
                     "every candidate the same both ways" if not bad else
                     "%d candidate(s) NOT the same" % len(bad)))
if out_dir:
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "compile_profile.txt"), "w") as fo:
        fo.write("\n".join(lines) + "\n")
PY
if [ -s "$WORK/ct.err" ]; then
	echo "helper messages:"
	sort -u "$WORK/ct.err" | head -n 20
fi
