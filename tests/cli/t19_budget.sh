#!/usr/bin/env bash
# The error budget (docs/verdict.md) on the CPU track: sum_tight's tolerance
# (atol 1e-7 on sums of thousands of f32 values) is tighter than the eager
# f32 arithmetic meets, so a candidate doing that arithmetic with its error
# made 1.5 times larger passes on the budget (within KJ_BUDGET_MULT x the
# baseline's error), one with it 20 times larger fails with a reason naming
# the budget, and a NaN fails whatever the budget.  The same with an RMSE
# metric instead of atol/rtol.  Candidates: tests/data/budget/.
. "$(dirname "$0")/lib.sh"
D=$KJ_ROOT/tests/data/budget

# checks FILE PERL-EXPR: the number of correctness entries $c for which the
# expression holds (numbers as JSON gives them; "inf"/"nan" as strings)
checks() {
	perl -MJSON::PP -e '
		local $/; open my $f, "<", $ARGV[0] or die; my $v = JSON::PP->new->decode(<$f>);
		my $n = 0; for my $c (@{$v->{correctness}}) { $n++ if eval $ARGV[1]; } print $n;
	' "$1" "$2"
}

sed 's/y\[b\] = (float)((double)s + 0.5 \* ((double)s - d));/y[b] = b == B - 1 \&\& N > 1 ? (float)NAN : (float)((double)s + 0.5 * ((double)s - d));/; s/#include <stdint.h>/#include <math.h>\n#include <stdint.h>/' \
	"$D/within.c" >"$TMP/nan.c"

for k in sum_tight sum_tight_rmse; do
	expect_success "$k: the eager arithmetic with 1.5x its error passes on the budget, timed calls included" '
		"$KJ" eval --json --quiet "$D/'$k'.kt" "$D/within.c" >"$TMP/w.json"; rc=$?;
		echo "$(json_get "$TMP/w.json" status): $(json_get "$TMP/w.json" reason)";
		test $rc -eq 0 && test "$(json_get "$TMP/w.json" status)" = pass &&
		json_get "$TMP/w.json" flags | grep -q tolerance_budget &&
		json_get "$TMP/w.json" flags | grep -q baseline_out_of_tolerance &&
		test "$(json_get "$TMP/w.json" perf.0.verified_outputs)" -gt 0'
	expect_success "$k: its checks off the declared tolerance say budget_used, within the budget" '
		test "$(checks "$TMP/w.json" "\$c->{budget_used}")" -ge 10 &&
		test "$(checks "$TMP/w.json" "\$c->{budget_used} && !(\$c->{tol_ratio} > 1 && \$c->{tol_ratio} <= \$c->{budget})")" -eq 0 &&
		test "$(checks "$TMP/w.json" "!\$c->{budget_used} && \$c->{tol_ratio} > 1")" -eq 0'
	expect_success "$k: the budget is max(1, K x the baseline ratio), K the same on every check" '
		perl -MJSON::PP -e '"'"'
			local $/; open my $f, "<", $ARGV[0] or die; my $v = JSON::PP->new->decode(<$f>); my %k;
			for my $c (@{$v->{correctness}}) {
				next unless $c->{budget_used};
				$k{sprintf "%.6g", $c->{budget} / $c->{baseline_tol_ratio}} = 1;
			}
			my @k = keys %k; print "@k\n"; exit(@k == 1 && $k[0] >= 1 ? 0 : 1);
		'"'"' "$TMP/w.json"'
	expect_success "$k: the eager arithmetic with 20x its error fails, the reason naming the budget" '
		"$KJ" eval --json --quiet --no-perf "$D/'$k'.kt" "$D/over.c" >"$TMP/o.json"; rc=$?;
		echo "$(json_get "$TMP/o.json" status): $(json_get "$TMP/o.json" reason)";
		test $rc -eq 1 && test "$(json_get "$TMP/o.json" status)" = mismatch &&
		json_get "$TMP/o.json" reason | grep -q "the tolerance; the eager baseline.s is .*x, the budget max(1, " &&
		test "$(checks "$TMP/o.json" "!\$c->{pass} && \$c->{tol_ratio} > \$c->{budget} && \$c->{budget} > 1")" -eq 1'
done

expect_success "a NaN where the reference is finite fails whatever the budget" '
	"$KJ" eval --json --quiet --no-perf "$D/sum_tight.kt" "$TMP/nan.c" >"$TMP/n.json"; rc=$?;
	echo "$(json_get "$TMP/n.json" status): $(json_get "$TMP/n.json" reason)";
	test $rc -eq 1 && test "$(json_get "$TMP/n.json" status)" = mismatch &&
	json_get "$TMP/n.json" reason | grep -q "(1 NaN/Inf where the reference differs: no error budget excuses them)" &&
	! json_get "$TMP/n.json" reason | grep -q "the budget max" &&
	test "$(checks "$TMP/n.json" "!\$c->{pass} && \$c->{tol_ratio} <= \$c->{budget}")" -eq 1'
done_testing
