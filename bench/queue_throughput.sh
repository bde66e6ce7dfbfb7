#!/usr/bin/env bash
# Queue throughput of the PostgreSQL cluster queue with trivial jobs (no
# judging): jobs claimed and completed per second with 1, 4 and 16
# concurrent workers, and the scheduling overhead per candidate (the store
# calls a worker makes per job: claim, verdict-cache lookup, judgement row,
# complete), in ms.  Each worker is a thread with its own connection.
#
#   bench/queue_throughput.sh [JOBS]     (default 2000 per row)
#
# The server: $KJ_PG_URL, else a throw-away one (tests/cli/pg.sh, fsync off:
# the figures are the queue's, not the disk's).  Needs build/libkjudge.a
# (make); $KJ_BUILD names another build folder.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${KJ_BUILD:-$ROOT/build}
jobs=${1:-2000}
W=$(mktemp -d)
cleanup() {
	[ -n "${started:-}" ] && "$ROOT/tests/cli/pg.sh" stop "$W/pg"
	rm -rf "$W"
}
trap cleanup EXIT
[ -f "$BUILD/libkjudge.a" ] || { echo "queue_throughput: no $BUILD/libkjudge.a: run make" >&2; exit 2; }
cd "$ROOT" || exit 2
libs=$(sed -n 's/^LDLIBS  := //p' Makefile)
cuda=""
if ar t "$BUILD/libkjudge.a" | grep -qx gpu.o; then # a build with nvcc
	c=${CUDA_HOME:-/usr/local/cuda}
	cuda="-L$c/lib64 -Wl,-rpath,$c/lib64 -lcublasLt -lcublas -lcudart -lstdc++"
fi
cc -std=c11 -D_GNU_SOURCE -O2 -Iinclude -Isrc -o "$W/qt" bench/queue_throughput.c "$BUILD/libkjudge.a" \
	$libs $cuda || exit 2
url=${KJ_PG_URL:-}
if [ -z "$url" ]; then
	url=$("$ROOT/tests/cli/pg.sh" start "$W/pg") || exit 1
	started=1
fi
echo "queue_throughput: $jobs trivial jobs per row, $(nproc) CPUs, PostgreSQL $(psql -X -At "$url" -c 'SHOW server_version' 2>/dev/null)"
printf '%7s  %6s  %8s  %8s  %8s  %8s  %8s\n' workers jobs seconds 'jobs/s' 'mean ms' 'p50 ms' 'p99 ms'
for w in 1 4 16; do
	"$W/qt" "$url" "$w" "$jobs" || exit 1
done
echo "(ms: the scheduling overhead per candidate on a worker: claim + cache lookup + judgement row + complete)"
