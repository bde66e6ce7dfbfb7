#!/usr/bin/env bash
# The reference cache on the CUDA track (src/judge/refcache.c): kjudge run
# over every CUDA solution and broken case, and a second candidate of one
# task, gives the same statuses, stages and flags with the cache in device
# memory (the default), off (KJ_REF_CACHE_MB=0) and with 64 MB of device
# memory (most entries go to the host store, or are computed again).  Only
# statuses, stages and flags: a candidate or baseline kernel with atomics
# may differ in its last bits from run to run whatever the cache does.
. "$(dirname "$0")/../cli/lib.sh"
if ! nvidia-smi -L >/dev/null 2>&1; then
	echo "1..0 # SKIP no CUDA device"
	exit 0
fi
if ! command -v sqlite3 >/dev/null 2>&1; then
	echo "1..0 # SKIP the sqlite3 command is not installed (Debian package sqlite3)"
	exit 0
fi

spec=$TMP/spec.jsonl
i=0
for f in "$KJ_ROOT"/examples/solutions/cuda/*.cu "$KJ_ROOT"/examples/broken/cuda/*.cu; do
	i=$((i + 1))
	printf '{"task": "%s", "model": "m", "sample": %d, "path": "%s"}\n' "$(hdr "$f" task)" "$i" "$f"
done >"$spec"
# a second candidate of the first solution's task (another source: judged, not reused)
first=$(ls "$KJ_ROOT"/examples/solutions/cuda/*.cu | head -n 1)
cp "$first" "$TMP/again.cu"
printf '\n// again\n' >>"$TMP/again.cu"
printf '{"task": "%s", "model": "m", "sample": 0, "path": "%s"}\n' "$(hdr "$first" task)" "$TMP/again.cu" >>"$spec"
n=$((i + 1))

run() {
	local name=$1
	shift
	env "$@" "$KJ" run "$spec" --db "$TMP/$name.sqlite" --no-perf --timeout 10 --jobs 4 --json >"$TMP/$name.json"
}

# path, status, stage and flags of every verdict, sorted by path
verdicts() {
	sqlite3 "$TMP/$1.sqlite" "SELECT c.path || ' ' || v.status || ' ' || json_extract(v.json, '\$.stage') ||
		' ' || json_extract(v.json, '\$.flags') FROM candidates c JOIN verdicts v ON v.candidate_id = c.id
		ORDER BY c.path"
}

expect_success "kjudge run with the cache on, off and in 64 MB of device memory judges all $n" '
	run on && run off KJ_REF_CACHE_MB=0 && run small KJ_REF_CACHE_MB=64 &&
	for r in on off small; do
		test "$(json_get "$TMP/$r.json" judged)" = '"$n"' || exit 1
	done'

expect_success "statuses, stages and flags are the same on, off and small" '
	verdicts off >"$TMP/off.v" && verdicts on >"$TMP/on.v" && verdicts small >"$TMP/small.v" &&
	test $(wc -l <"$TMP/off.v") -eq '"$n"' &&
	diff "$TMP/off.v" "$TMP/on.v" && diff "$TMP/off.v" "$TMP/small.v"'

expect_success "on: hits, and the later of two candidates of a task hits more than its rerun" '
	cat "$TMP/on.json" &&
	test "$(json_get "$TMP/on.json" ref_cache.hits)" -gt 0 &&
	test "$(json_get "$TMP/off.json" ref_cache.hits)" = 0 &&
	test "$(json_get "$TMP/off.json" ref_cache.stored)" = 0 &&
	h=$(sqlite3 "$TMP/on.sqlite" "SELECT max(json_extract(v.json, '\''\$.ref_cache.hits'\'')) FROM candidates c
		JOIN verdicts v ON v.candidate_id = c.id WHERE c.path IN ('\''$TMP/again.cu'\'', '\''$first'\'')") &&
	echo "the later of the two: $h hits" && test "$h" -gt 2'

done_testing
