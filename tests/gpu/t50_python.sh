#!/usr/bin/env bash
# Python candidates on a real GPU: judges every Python case file
# (examples/solutions/triton, examples/solutions/kernelbench,
# examples/broken/triton, examples/redteam/*.py) with --backend triton or
# kernelbench (a file with `class ModelNew` is KernelBench's format) and
# asserts the verdict and flag its kjudge-case header declares.  Solutions
# are timed; the other cases stop after correctness (their verdicts come
# earlier).  Needs python3 with torch, triton and cupy (KJ_PYTHON to choose).
# KJ_PY_ONLY=REGEX judges only the matching files; KJ_PY_INLINE=1 adds the
# load_inline cases (a minute of nvcc each); KJ_PY_LOG=FILE collects one line
# per case (status, stage, flags, speedup, wall time, reason).  A rejection
# must name the candidate's line (issue 21); a case whose docstring has a line
# "Expected reason: TEXT" must have TEXT in its reason (the sandbox's cases).
. "$(dirname "$0")/../cli/lib.sh"
need_gpu_python
for f in "$KJ_ROOT"/examples/solutions/triton/*.py "$KJ_ROOT"/examples/solutions/kernelbench/*.py \
	"$KJ_ROOT"/examples/broken/triton/*.py "$KJ_ROOT"/examples/redteam/*.py; do
	[ -f "$f" ] || continue
	# KJ_PY_ONLY: an extended regular expression the case's path must match
	if [ -n "${KJ_PY_ONLY:-}" ] && ! printf '%s\n' "$f" | grep -Eq "$KJ_PY_ONLY"; then
		continue
	fi
	# load_inline builds with nvcc for about a minute: only when asked
	if grep -q "load_inline(" "$f" && [ "${KJ_PY_INLINE:-0}" != 1 ]; then
		echo "# skipping ${f#"$KJ_ROOT"/}: it builds CUDA with load_inline (set KJ_PY_INLINE=1)"
		continue
	fi
	hdr=$(head -n 1 "$f")
	task=$(printf '%s\n' "$hdr" | sed -n 's/.*task=\([^ ]*\).*/\1/p')
	expect=$(printf '%s\n' "$hdr" | sed -n 's/.*expect=\([^ ]*\).*/\1/p')
	flag=$(printf '%s\n' "$hdr" | sed -n 's/.*flag=\([^ ]*\).*/\1/p')
	be=triton
	grep -q "^class ModelNew" "$f" && be=kernelbench
	perf="--no-perf --seeds 3"
	case $f in */solutions/*) perf="--perf-budget ${KJ_PY_PERF_BUDGET:-0.3}" ;; esac
	rel=${f#"$KJ_ROOT"/}
	# "Expected reason: TEXT" in a case's docstring: the verdict's reason holds TEXT
	want_reason=$(sed -n 's/^Expected reason: //p' "$f" | head -n 1)
	want_rc=1
	[ "$expect" = pass ] && want_rc=0
	expect_success "$rel ($be): $expect${flag:+ flag=$flag}" '
		t0=$(date +%s%N)
		"$KJ" eval --json --quiet --backend '"$be"' '"$perf"' "'"$task"'" "'"$f"'" >"$TMP/v.json"; rc=$?
		st=$(json_get "$TMP/v.json" status)
		line="status $st stage $(json_get "$TMP/v.json" stage) rc $rc flags $(json_get "$TMP/v.json" flags) speedup $(json_get "$TMP/v.json" speedup) wall $(( ($(date +%s%N) - t0) / 1000000 )) ms: $(json_get "$TMP/v.json" reason)"
		echo "$line"; [ -n "${KJ_PY_LOG:-}" ] && echo "'"$rel"': $line" >>"$KJ_PY_LOG"
		test "$st" = "'"$expect"'" && test $rc -eq '"$want_rc"' &&
		{ test -z "'"$flag"'" || json_get "$TMP/v.json" flags | grep -q "\"'"$flag"'\""; } &&
		{ test "$st" != rejected || json_get "$TMP/v.json" reason | grep -q "candidate\.py:[1-9]"; } &&
		{ test -z "'"$want_reason"'" || json_get "$TMP/v.json" reason | grep -qF "'"$want_reason"'"; }'
done
done_testing
