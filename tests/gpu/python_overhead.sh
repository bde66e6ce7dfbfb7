#!/usr/bin/env bash
# The per-candidate overhead of the Python tracks next to the CUDA track's:
# one relu candidate per track judged with --no-perf --seeds 1, twice each
# with an empty cache (cold: probe, Triton/nvcc builds) and once more with the
# warm cache.  Prints one line per run: track, cold|warm, total and stage
# seconds, and the profile's py_wait and py_start (pre-warmed Python workers:
# bench/py_prewarm.sh compares with and without them).  Not a test: numbers
# for the notes.
#   KJ_BUILD=build bash tests/gpu/python_overhead.sh
set -u
KJ=${KJ_BUILD:-build}/kjudge
R=$(cd "$(dirname "$0")/../.." && pwd)
C=$(mktemp -d "${TMPDIR:-/tmp}/kjoh.XXXXXX")
for track in cuda:examples/solutions/cuda/relu.cu triton:examples/solutions/triton/relu.py \
	kernelbench:examples/solutions/kernelbench/relu.py; do
	be=${track%%:*}
	f=$R/${track#*:}
	rm -rf "$C/cache"
	for run in cold warm; do
		# cold keeps the device calibration (not a per-candidate cost)
		[ $run = cold ] && [ -d "$C/calib" ] && mkdir -p "$C/cache" && cp -r "$C/calib" "$C/cache/"
		t0=$(date +%s%N)
		KJUDGE_CACHE=$C/cache "$KJ" eval --json --quiet --no-perf --seeds 1 --backend "$be" level1/relu "$f" \
			>"$C/v.json" 2>"$C/e.txt"
		t1=$(date +%s%N)
		[ -d "$C/calib" ] || cp -r "$C/cache/calib" "$C/calib" 2>/dev/null
		perl -MJSON::PP -e '
			local $/; open my $f, "<", $ARGV[0] or die; my $v = JSON::PP->new->decode(<$f>);
			my $s = $v->{stage_seconds};
			print map { "    $_\n" } grep { /kjudge-pyworker/ } split /\n/, ($v->{worker_log} // "") if $ENV{KJ_PYWORKER_TRACE};
			my $p = $v->{profile_seconds} || {};
			printf "%-12s %-5s %-6s wall %6.2f s  total %6.2f  static %5.2f compile %5.2f call %5.2f correctness %5.2f  py_wait %5.2f py_start %5.2f\n",
				$ARGV[1], $ARGV[2], $v->{status}, $ARGV[3], $v->{total_seconds}, $s->{static}, $s->{compile},
				$s->{call}, $s->{correctness}, $p->{py_wait} // 0, $p->{py_start} // 0;
		' "$C/v.json" "$be" "$run" "$(( (t1 - t0) / 1000000 ))e-3" || cat "$C/e.txt"
	done
done
rm -rf "$C"
