#!/usr/bin/env bash
# Summarises a KJ_TIMING_LOG file (bench/gpu_check.sh writes one): for each
# perf shape that had a train (gpu_train in src/judge/judge_gpu.c), the
# train's bound on one call against the median of the worker's event times
# of that shape's timed calls, and how far apart they are, absolute (ms)
# and relative; then the distribution over shapes.  A shape's calls and
# train follow each other in the log, so the median is of the calls logged
# since the previous train or shape of another task.
#
#   bash bench/train_summary.sh timing.tsv
#
# Per-call lines: task, perf index, event ms, bound ms, raw ms, floor ms,
# gap.  Train lines: task, perf index, "train", pass (0: the untimed first
# pass, 1 and 2: the timed ones, 3: the least bound on one call in the
# round trip's place), reps, round trip ms, floor a ms, floor b ms per
# call, the worker's events per call.
set -u
f=${1:?usage: train_summary.sh TIMING_LOG}
awk -F'\t' '
function median(a, n,   i, j, t) {
	for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
$3 != "train" {
	key = $1 "#" $2
	if (key != cur) { cur = key; n = 0 }
	ev[++n] = $3
	next
}
$4 == 0 { w0 = ($6 - $7) / $5; e0 = $9; np = 0; next }
$4 >= 1 && $4 <= 2 { np++; wp[np] = ($6 - $7 - ($5 - 1) * $8) / $5; ep[np] = $9; trip = $6; a = $7; b = $8; next }
$4 == 3 {
	key = $1 "#" $2
	if (key != cur || n == 0) { printf "%-40s pi %s reps %5d bound %.5f (no timed calls logged)\n", $1, $2, $5, $6; next }
	m = median(ev, n)
	d = $6 - m
	printf "%-40s pi %s reps %5d trip %8.3f a %.4f b %.5f | first pass %.5f (events %.5f) | passes %.5f (events %.5f) %.5f (events %.5f) | bound %.5f | calls %.5f | d %+.5f rel %+.4f\n",
		$1, $2, $5, trip, a, b, w0, e0, wp[1], ep[1], wp[2], ep[2], $6, m, d, (m > 0 ? d / m : 0)
	n = 0; cur = ""
}' "$f" | tee /tmp/train_lines.$$
echo "--"
awk '/ rel / { for (i = 1; i <= NF; i++) { if ($i == "rel") r = $(i + 1); if ($i == "d") d = $(i + 1) } print r, d }' /tmp/train_lines.$$ | sort -g |
	awk '{ r[NR] = $1; d[NR] = $2 } END { n = NR; if (!n) { print "no trains"; exit }
		printf "trains %d; (bound - median events)/median events: p10 %+.4f p50 %+.4f p90 %+.4f max %+.4f\n",
			n, r[int(n*0.1)+1], r[int(n*0.5)+1], r[int(n*0.9)+1], r[n] }'
rm -f /tmp/train_lines.$$
