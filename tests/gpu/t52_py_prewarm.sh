#!/usr/bin/env bash
# Pre-warmed Python workers on a real GPU (docs/kernelbench.md, "Pre-warmed
# workers"): the same verdicts with and without them, in `kjudge eval` and in
# `kjudge run`; the profile says where the worker's start went (py_wait,
# py_start); and a candidate's worker never sees what the previous one left
# in its scratch folder or its build cache (tests/data/prewarm: the first
# leaves folders there, the second computes nothing if it finds one).  The
# pool's own behaviour (a fresh process per candidate, a dead spare
# replaced, none left at exit) is tests/unit/test_pypool.c's.  Needs python3
# with torch, triton and cupy (KJ_PYTHON to choose).
. "$(dirname "$0")/../cli/lib.sh"
need_gpu_python
E=$KJ_ROOT/examples
D=$KJ_ROOT/tests/data/prewarm
cases="$E/solutions/triton/relu.py $E/solutions/kernelbench/relu.py $E/broken/triton/wrong_max.py
$E/redteam/26_py_self_patch.py"
[ "${KJ_PY_INLINE:-0}" = 1 ] && cases="$cases $E/solutions/kernelbench/relu_cuda_inline.py"

be_of() { if grep -q "^class ModelNew" "$1"; then echo kernelbench; else echo triton; fi; }
# status stage flags of a verdict, without unstable_timing: that flag says
# the timing hit its budget before the median settled, which two runs of the
# same build differ in (on the H200 one run of triton/relu.py had it and the
# next not)
sig() { echo "$(json_get "$1" status) $(json_get "$1" stage) $(json_get "$1" flags | sed 's/"unstable_timing",\{0,1\}//; s/,\]/]/')"; }

i=0
for f in $cases; do
	i=$((i + 1))
	rel=${f#"$KJ_ROOT"/}
	be=$(be_of "$f")
	expect_success "$rel ($be): the same verdict with no spares and with one" '
		for n in 0 1; do
			KJUDGE_PY_SPARES=$n "$KJ" eval --json --quiet --backend '"$be"' --perf-budget 0.2 \
				"$(hdr "'"$f"'" task)" "'"$f"'" >"$TMP/v'"$i"'_$n.json"
			echo "spares $n: $(sig "$TMP/v'"$i"'_$n.json"): $(json_get "$TMP/v'"$i"'_$n.json" reason | cut -c1-160)"
			echo "  profile: py_wait $(json_get "$TMP/v'"$i"'_$n.json" profile_seconds.py_wait)" \
				"py_start $(json_get "$TMP/v'"$i"'_$n.json" profile_seconds.py_start)" \
				"compile $(json_get "$TMP/v'"$i"'_$n.json" profile_seconds.compile)" \
				"total $(json_get "$TMP/v'"$i"'_$n.json" total_seconds)"
		done
		test "$(json_get "$TMP/v'"$i"'_0.json" status)" = "$(hdr "'"$f"'" expect)" &&
		test "$(sig "$TMP/v'"$i"'_0.json")" = "$(sig "$TMP/v'"$i"'_1.json")"'
	sed 's/^/# /' "$TMP/out.$n_"
done

expect_success "a verdict that reached the worker says what its start cost (py_start > 0, spawn 0)" '
	perl -MJSON::PP -e '\''
		local $/; open my $f, "<", $ARGV[0] or die; my $v = JSON::PP->new->decode(<$f>);
		my $p = $v->{profile_seconds};
		exit !($p->{py_start} > 0 && $p->{spawn} == 0 && defined $p->{py_wait});
	'\'' "$TMP/v1_1.json"'

# the store's verdicts as "path|status" lines
q() { python3 -c 'import sqlite3, sys
for r in sqlite3.connect(sys.argv[1]).execute("SELECT c.path, v.status FROM candidates c JOIN verdicts v ON v.candidate_id = c.id"):
    print("%s|%s" % r)' "$1"; }

# kjudge run, one per backend: the cases, then the pair that looks for what
# the other left (in the SPEC's order: the pair's first is judged first)
k=0
for f in $cases "$D/a_leaves_folders.py" "$D/b_looks_for_folders.py"; do
	k=$((k + 1))
	printf '{"task": "%s", "model": "m%d", "sample": %d, "path": "%s"}\n' "$(hdr "$f" task)" "$k" "$k" "$f" \
		>>"$TMP/spec_$(be_of "$f").jsonl"
done
for n in 0 1; do
	for be in triton kernelbench; do
		[ -s "$TMP/spec_$be.jsonl" ] || continue
		expect_success "kjudge run --backend $be with KJUDGE_PY_SPARES=$n: every verdict as its header says" '
			KJUDGE_PY_SPARES='"$n"' "$KJ" run "$TMP/spec_'"$be"'.jsonl" --db "$TMP/r'"$n$be"'.sqlite" \
				--backend '"$be"' --order spec --perf-budget 0.2 --json >"$TMP/run'"$n$be"'.json"; bad=$?
			perl -MJSON::PP -e '\''
				local $/; open my $f, "<", $ARGV[0] or die; my $s = JSON::PP->new->decode(<$f>);
				my $p = $s->{profile_s} || {}; my $c = $s->{judged} || 1;
				printf "%d judged; seconds per candidate: %s\n", $s->{judged},
					join(" ", map { sprintf "%s %.2f", $_, ($p->{$_} // 0) / $c } qw(py_wait py_start compile load other));
			'\'' "$TMP/run'"$n$be"'.json"
			q "$TMP/r'"$n$be"'.sqlite" >"$TMP/st"
			test "$(wc -l <"$TMP/st")" -eq "$(wc -l <"$TMP/spec_'"$be"'.jsonl")" || bad=1
			while IFS="|" read -r p s; do
				e=$(hdr "$p" expect)
				echo "  ${p#"$KJ_ROOT"/}: $s (expected $e)"
				[ "$s" = "$e" ] || bad=1
			done <"$TMP/st"
			test $bad -eq 0'
		sed 's/^/# /' "$TMP/out.$n_"
	done
done

done_testing
