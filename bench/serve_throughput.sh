#!/usr/bin/env bash
# Throughput of `kjudge serve`: jobs judged per second, end to end over HTTP.
#
# N distinct candidates (the honest solutions of examples/solutions/BACKEND,
# each copy made distinct by a `// variant K` line, so every compile misses the
# cache) are POSTed by C concurrent clients to a fresh server on loopback with
# a fresh store and compile cache (only the GPU calibration is copied in);
# each client then long-polls its jobs until they are done.  Prints the wall
# time from the first POST to the last verdict, jobs per second, the statuses,
# and the server's own per-job figures from the store.
#
#   bench/serve_throughput.sh [--backend cpu|cuda] [--n N] [--clients C]
#                             [--gpus LIST | --workers N] [-- extra serve options]
# On the GPU machine: bash tests/gpu/device.sh bash bench/serve_throughput.sh --backend cuda --gpus 0
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
kj=${KJ:-${KJ_BUILD:-$root/build}/kjudge}
backend=cpu
n=24
clients=4
devs=()
extra=()
while [ $# -gt 0 ]; do
	case $1 in
	--backend) backend=$2; shift 2 ;;
	--n) n=$2; shift 2 ;;
	--clients) clients=$2; shift 2 ;;
	--gpus) devs=(--gpus "$2"); shift 2 ;;
	--workers) devs=(--workers "$2"); shift 2 ;;
	--) shift; extra=("$@"); break ;;
	-h|--help) sed -n '2,14p' "$0"; exit 0 ;;
	*) echo "serve_throughput: unknown option $1" >&2; exit 2 ;;
	esac
done
case $backend in
cuda) ext=cu ;;
cpu) ext=c ;;
*) echo "serve_throughput: --backend is cpu or cuda" >&2; exit 2 ;;
esac
command -v curl >/dev/null || { echo "serve_throughput: curl is needed" >&2; exit 2; }
[ -x "$kj" ] || { echo "serve_throughput: no kjudge at $kj" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/kjserve.XXXXXX")
pid=""
cleanup() { [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
old_cache=${KJUDGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kjudge}
mkdir -p "$work/cache/calib" "$work/src" "$work/ids"
cp "$old_cache"/calib/*.json "$work/cache/calib/" 2>/dev/null || true

# the jobs: JSON bodies built by perl (sources need escaping)
cases=$(ls "$root/examples/solutions/$backend"/*."$ext")
k=0
while [ $k -lt "$n" ]; do
	for f in $cases; do
		[ $k -lt "$n" ] || break
		task=$(head -n 1 "$f" | sed -n 's/.*task=\([^ ]*\).*/\1/p')
		[ -n "$task" ] || continue
		{ cat "$f"; printf '\n// variant %d\n' "$k"; } >"$work/src/$k.$ext"
		perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0] or die; my $s = <$f>;
			print JSON::PP->new->canonical->encode({task => $ARGV[1], source => $s,
				backend => $ARGV[2], model => "bench", sample => $ARGV[3] + 0})' \
			"$work/src/$k.$ext" "$task" "$backend" "$k" >"$work/src/$k.json"
		k=$((k + 1))
	done
done

KJUDGE_CACHE=$work/cache "$kj" serve --listen 127.0.0.1:0 --port-file "$work/port" \
	--db "$work/serve.sqlite" --backend "$backend" "${devs[@]}" --quiet "${extra[@]}" \
	2>"$work/serve.err" &
pid=$!
for _ in $(seq 1 100); do [ -s "$work/port" ] && break; sleep 0.1; done
[ -s "$work/port" ] || { echo "serve_throughput: the server did not start:" >&2; cat "$work/serve.err" >&2; exit 1; }
base=http://127.0.0.1:$(cat "$work/port")

client() { # client index: posts its share, then waits for each verdict
	local c=$1 i id
	for ((i = c; i < k; i += clients)); do
		id=$(curl -sf -X POST -H 'Content-Type: application/json' --data-binary @"$work/src/$i.json" \
			"$base/v1/jobs" | perl -MJSON::PP -e 'local $/; print JSON::PP->new->decode(<STDIN>)->{id}')
		echo "$id" >>"$work/ids/$c"
	done
	while read -r id; do
		while :; do
			curl -sf "$base/v1/jobs/$id?wait=60" >"$work/ids/$id.json"
			perl -MJSON::PP -e 'local $/; my $j = JSON::PP->new->decode(<STDIN>);
				exit($j->{state} =~ /^(done|failed|cancelled)$/ ? 0 : 1)' <"$work/ids/$id.json" && break
		done
	done <"$work/ids/$c"
}
start=$(date +%s.%N)
for ((c = 0; c < clients; c++)); do client $c & done
wait $(jobs -p | grep -v "^$pid$") 2>/dev/null || true
end=$(date +%s.%N)
perl -MJSON::PP -e '
	my ($dir, $n, $secs, $backend, $dev) = @ARGV; my %st; my $done = 0;
	for my $f (glob "$dir/*.json") {
		local $/; open my $h, "<", $f or next; my $j = JSON::PP->new->decode(<$h>);
		$done++ if $j->{state} eq "done";
		my $s = $j->{verdict} ? $j->{verdict}{status} : $j->{state}; $st{$s}++;
	}
	printf "serve_throughput: %d jobs (%s backend, %s), %d done in %.1f s = %.2f jobs/s\n",
		$n, $backend, $dev, $done, $secs, $done / $secs;
	printf "statuses: %s\n", join(" ", map { "$_=$st{$_}" } sort keys %st);
' "$work/ids" "$k" "$(awk "BEGIN{print $end - $start}")" "$backend" "${devs[*]:-default devices}"
