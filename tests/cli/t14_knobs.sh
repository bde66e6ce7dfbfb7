#!/usr/bin/env bash
# The baseline's tuning knobs: `kjudge baseline --knobs` lists the one table
# (no GPU needed), every KJ_ knob read in src/ops is in it and read through
# it, and docs/baseline.md's table has every knob of it.
. "$(dirname "$0")/lib.sh"

# the test's own environment: every knob unset
for k in $(grep -oE '"KJ_[A-Z0-9_]+"' "$KJ_ROOT/src/ops/knobs.c" | tr -d '"'); do
	unset "$k"
done

# knobs FILE: the names in a --knobs --json object, one a line, in order
knobs() {
	perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0] or die; my $o = JSON::PP->new->decode(<$f>);
		print "$_->{name}\n" for @{$o->{knobs}}' "$1"
}
# knob FILE NAME FIELD: a field of one knob of a --knobs --json object
knob() {
	perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0] or die; my $o = JSON::PP->new->decode(<$f>);
		for (@{$o->{knobs}}) { next if $_->{name} ne $ARGV[1]; my $v = $_->{$ARGV[2]};
			print !defined $v ? "null" : JSON::PP::is_bool($v) ? ($v ? "true" : "false") : $v }' "$1" "$2" "$3"
}

expect_success "baseline --help documents --knobs" '
	"$KJ" baseline --help | grep -q "kjudge baseline --knobs \[--json\]" &&
	"$KJ" baseline --help | grep -q "^  --knobs "'
expect_success "baseline --knobs --json: one object, 19 knobs sorted, all at their defaults, an empty key" '
	"$KJ" baseline --knobs --json >"$TMP/k.json" &&
	test "$(knobs "$TMP/k.json" | wc -l)" -eq 19 &&
	knobs "$TMP/k.json" | sort -c &&
	test "$(json_get "$TMP/k.json" key)" = "" &&
	test "$(knob "$TMP/k.json" KJ_RED_BPS value)" = 4 &&
	test "$(knob "$TMP/k.json" KJ_RED_BPS min)" = 1 &&
	test "$(knob "$TMP/k.json" KJ_RED_BPS max)" = 64 &&
	test "$(knob "$TMP/k.json" KJ_RED_BPS set)" = false &&
	test "$(knob "$TMP/k.json" KJ_SDPA_PATH default)" = auto &&
	test "$(knob "$TMP/k.json" KJ_CONV_LOG changes)" = log'
expect_success "a knob set: its value, set, and the key name it" '
	KJ_RED_BPS=8 KJ_CONV_LAYOUT=nhwc KJ_SDPA_DEBUG=1 "$KJ" baseline --knobs --json >"$TMP/k8.json" &&
	test "$(knob "$TMP/k8.json" KJ_RED_BPS value)" = 8 &&
	test "$(knob "$TMP/k8.json" KJ_RED_BPS set)" = true &&
	test "$(knob "$TMP/k8.json" KJ_SDPA_DEBUG set)" = true &&
	test "$(json_get "$TMP/k8.json" key)" = "KJ_CONV_LAYOUT=nhwc;KJ_RED_BPS=8"'
expect_success "a knob out of range: exit 1, the knob named with its range" '
	KJ_RED_BPS=0 "$KJ" baseline --knobs --json >"$TMP/k0.json" 2>"$TMP/k0.err"; test $? -eq 1 &&
	knob "$TMP/k0.json" KJ_RED_BPS error | grep -qF "KJ_RED_BPS='"'"'0'"'"': expected an integer in [1, 64] (default 4)" &&
	grep -qF "KJ_RED_BPS=" "$TMP/k0.err" && test "$(json_get "$TMP/k0.json" key)" = null'
expect_success "an unknown string value: exit 1, the allowed values named" '
	KJ_CONV_I8=fast "$KJ" baseline --knobs >"$TMP/ki.txt" 2>"$TMP/ki.err"; test $? -eq 1 &&
	grep -qF "expected one of auto,direct,gemm" "$TMP/ki.err" && grep -q "^KJ_CONV_I8 .*fast  (NOT ALLOWED)" "$TMP/ki.txt"'
expect_success "baseline --knobs (text): a row per knob and the key" '
	KJ_FAST16=0 "$KJ" baseline --knobs >"$TMP/kt.txt" &&
	grep -q "^KJ_FAST16 *int  results  0\.\.1 *1 *0  (set)$" "$TMP/kt.txt" &&
	grep -q "^key: KJ_FAST16=0$" "$TMP/kt.txt"'
expect_success "baseline --knobs with a TASK is a usage error (exit 2)" '
	"$KJ" baseline --knobs level1/relu 2>/dev/null; test $? -eq 2'

# every knob the ops read is in the table, and read through it
expect_success "every KJ_ knob read in src/ops is in the table" '
	grep -rhoE "(getenv|kj_env_knob|kj_knob_int|kj_knob_str)\(\"KJ_[A-Z0-9_]+\"" "$KJ_ROOT/src/ops" |
		grep -oE "KJ_[A-Z0-9_]+" | sort -u >"$TMP/read" &&
	test "$(wc -l <"$TMP/read")" -ge 17 &&
	knobs "$TMP/k.json" | sort >"$TMP/table" &&
	comm -23 "$TMP/read" "$TMP/table" >"$TMP/missing" && cat "$TMP/missing" && test ! -s "$TMP/missing"'
expect_success "no KJ_ knob in src/ops is read around the table (getenv, kj_env_knob)" '
	! grep -rnE "(getenv|kj_env_knob)\(\"KJ_" "$KJ_ROOT/src/ops" --include=*.c --include=*.cu \
		--include=*.cuh --include=*.h | grep -v "^$KJ_ROOT/src/ops/knobs.c:"'
# docs/baseline.md's table: a row per knob as --knobs --json describes it
expect_success "docs/baseline.md has every knob of the table, with its values, default and effect" '
	perl -MJSON::PP -e "local \$/; my \$o = JSON::PP->new->decode(<STDIN>);
		for my \$k (@{\$o->{knobs}}) {
			my \$r = \$k->{kind} eq q(int) ? qq(integer \$k->{min}..\$k->{max}) : join(q(, ), @{\$k->{values}});
			print qq(| \\\`\$k->{name}\\\` | \$r | \$k->{default} | \$k->{changes} | \$k->{about} |\n);
		}" <"$TMP/k.json" >"$TMP/rows" &&
	test "$(wc -l <"$TMP/rows")" -eq 19 &&
	while IFS= read -r row; do
		grep -qxF "$row" "$KJ_ROOT/docs/baseline.md" || { echo "not in docs/baseline.md: $row"; exit 1; }
	done <"$TMP/rows"'
done_testing
