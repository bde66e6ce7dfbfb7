#!/usr/bin/env bash
# kjudge report, compare and export-pairs on a run of two fake models over two
# rounds, made with `kjudge run` from the shipped CPU examples.  Every count is
# worked out from the cases' known verdicts (their kjudge-case lines).
. "$(dirname "$0")/lib.sh"

S=$KJ_ROOT/examples/solutions/cpu
B=$KJ_ROOT/examples/broken/cpu
DB=$TMP/r.sqlite
# m1: relu mismatch -> pass (a fix); softmax pass -> same pass; gemm compile error -> pass (a fix)
# m2: relu pass -> crash (a regression); softmax mismatch -> compile error; gemm pass (one round)
cat >"$TMP/r.jsonl" <<EOF
{"task": "level1/relu", "model": "m1", "sample": 0, "round": 0, "path": "$B/wrong_result.c"}
{"task": "level1/relu", "model": "m1", "sample": 0, "round": 1, "path": "$S/relu.c"}
{"task": "level1/softmax", "model": "m1", "sample": 0, "round": 0, "path": "$S/softmax.c"}
{"task": "level1/softmax", "model": "m1", "sample": 0, "round": 1, "path": "$S/softmax.c"}
{"task": "level2/gemm_add_relu", "model": "m1", "sample": 0, "round": 0, "path": "$B/compile_error.c"}
{"task": "level2/gemm_add_relu", "model": "m1", "sample": 0, "round": 1, "path": "$S/gemm_add_relu.c"}
{"task": "level1/relu", "model": "m2", "sample": 0, "round": 0, "path": "$S/relu.c"}
{"task": "level1/relu", "model": "m2", "sample": 0, "round": 1, "path": "$B/segfault.c"}
{"task": "level1/softmax", "model": "m2", "sample": 0, "round": 0, "path": "$B/wrong_shape_specialisation.c"}
{"task": "level1/softmax", "model": "m2", "sample": 0, "round": 1, "path": "$B/compile_error.c"}
{"task": "level2/gemm_add_relu", "model": "m2", "sample": 0, "round": 0, "path": "$S/gemm_add_relu.c"}
EOF

expect_success "kjudge run judges the 11 candidates" '
	"$KJ" run "$TMP/r.jsonl" --db "$DB" --backend cpu --quiet'
expect_success "report --help, compare --help and export-pairs --help exit 0" '
	"$KJ" report --help | grep -q "usage: kjudge report" &&
	"$KJ" compare --help | grep -q "usage: kjudge compare" &&
	"$KJ" export-pairs --help | grep -q "usage: kjudge export-pairs"'
expect_success "report --format json writes one JSON object" '
	"$KJ" report r --db "$DB" --format json >"$TMP/r.json" && test "$(json_get "$TMP/r.json" run)" = r &&
	test "$(json_get "$TMP/r.json" schema)" = kjudge.report/1'
expect_success "counts: 11 candidates, 11 judged, 9 compiled, 8 ran, 6 correct" '
	test "$(json_get "$TMP/r.json" candidates)" = 11 && test "$(json_get "$TMP/r.json" judged)" = 11 &&
	test "$(json_get "$TMP/r.json" compiled)" = 9 && test "$(json_get "$TMP/r.json" call_ok)" = 8 &&
	test "$(json_get "$TMP/r.json" correct)" = 6'
expect_success "6 (model, task) items; fast_p[0] = 3 first-round passes / 6 = 0.5" '
	test "$(json_get "$TMP/r.json" tasks)" = 6 && test "$(json_get "$TMP/r.json" fast_p.0)" = 0.5'
expect_success "fast_p has the six thresholds" '
	perl -MJSON::PP -e "local \$/; my \$o = decode_json(<STDIN>);
		exit(join(\",\", sort keys %{\$o->{fast_p}}) eq \"0,0.5,0.8,1,1.5,2\" ? 0 : 1)" <"$TMP/r.json"'
expect_success "fast_p@N: 3 of 6 items by round 0, 5 of 6 by round 1" '
	test "$(json_get "$TMP/r.json" fast_p_at_n.0.fast_p.0)" = 0.5 &&
	perl -e "exit(abs(\$ARGV[0] - 5/6) < 1e-9 ? 0 : 1)" "$(json_get "$TMP/r.json" fast_p_at_n.1.fast_p.0)"'
expect_success "fast_p@k: one sample per item, @1 equals fast_p" '
	test "$(json_get "$TMP/r.json" fast_p_at_k.0.k)" = 1 && test "$(json_get "$TMP/r.json" fast_p_at_k.0.fast_p.0)" = 0.5 &&
	test "$(json_get "$TMP/r.json" fast_p_at_k.1)" = null'
expect_success "per model fast_p@N: m1 1/3 then 3/3 (two fixes), m2 2/3 then 2/3" '
	perl -e "exit(abs(\$ARGV[0] - 1/3) < 1e-9 ? 0 : 1)" "$(json_get "$TMP/r.json" by_model.m1.fast_p_at_n.0.fast_p.0)" &&
	test "$(json_get "$TMP/r.json" by_model.m1.fast_p_at_n.1.fast_p.0)" = 1 &&
	perl -e "exit(abs(\$ARGV[0] - 2/3) < 1e-9 ? 0 : 1)" "$(json_get "$TMP/r.json" by_model.m2.fast_p_at_n.1.fast_p.0)" &&
	test "$(json_get "$TMP/r.json" by_model.m2.fast_p_at_k.0.k)" = 1'
expect_success "by_level: level 1 has 8 candidates (4 correct), level 2 has 3 (2 correct)" '
	test "$(json_get "$TMP/r.json" by_level.1.candidates)" = 8 && test "$(json_get "$TMP/r.json" by_level.1.correct)" = 4 &&
	test "$(json_get "$TMP/r.json" by_level.2.candidates)" = 3 && test "$(json_get "$TMP/r.json" by_level.2.correct)" = 2'
expect_success "by_category carries the same fields, from the task files" '
	test "$(json_get "$TMP/r.json" by_category.Activation.candidates)" = 4 &&
	test "$(json_get "$TMP/r.json" by_category.Activation.fast_p.0)" = 0.5 &&
	test "$(json_get "$TMP/r.json" by_category.Normalization.correct)" = 2'
expect_success "by_model: m1 6 candidates 4 correct, fast_p[0] 1/3; m2 5 candidates 2 correct" '
	test "$(json_get "$TMP/r.json" by_model.m1.candidates)" = 6 && test "$(json_get "$TMP/r.json" by_model.m1.correct)" = 4 &&
	perl -e "exit(abs(\$ARGV[0] - 1/3) < 1e-9 ? 0 : 1)" "$(json_get "$TMP/r.json" by_model.m1.fast_p.0)" &&
	test "$(json_get "$TMP/r.json" by_model.m2.candidates)" = 5 && test "$(json_get "$TMP/r.json" by_model.m2.correct)" = 2'
expect_success "by_dtype: all 11 are f32 tasks" '
	test "$(json_get "$TMP/r.json" by_dtype.f32.candidates)" = 11'
expect_success "error classes per status and stage" '
	test "$(json_get "$TMP/r.json" error_classes.status.pass)" = 6 &&
	test "$(json_get "$TMP/r.json" error_classes.status.compile_error)" = 2 &&
	test "$(json_get "$TMP/r.json" error_classes.status.mismatch)" = 2 &&
	test "$(json_get "$TMP/r.json" error_classes.status.crash)" = 1 &&
	test "$(json_get "$TMP/r.json" error_classes.stage.call)" = 1'
expect_success "fix vs optimise: 5 round pairs, 2 fixes, 1 regression, 1 still failing" '
	test "$(json_get "$TMP/r.json" fix_vs_optimize.pairs)" = 5 && test "$(json_get "$TMP/r.json" fix_vs_optimize.fixes)" = 2 &&
	test "$(json_get "$TMP/r.json" fix_vs_optimize.regressions)" = 1 &&
	test "$(json_get "$TMP/r.json" fix_vs_optimize.unchanged_fail)" = 1'
expect_success "CPU track: SOL, IOU, MFU and S_agg are null; fallback rate 0" '
	test "$(json_get "$TMP/r.json" sol_frac_median)" = null && test "$(json_get "$TMP/r.json" mfu_median)" = null &&
	test "$(json_get "$TMP/r.json" s_agg)" = null && test "$(json_get "$TMP/r.json" fallback_rate)" = 0'
expect_success "code metrics and attribution are reported" '
	test "$(json_get "$TMP/r.json" code_metrics.correct.n)" = 6 && test "$(json_get "$TMP/r.json" code_metrics.incorrect.n)" = 5 &&
	test "$(json_get "$TMP/r.json" attribution.n)" = 11 && test "$(json_get "$TMP/r.json" attribution.model)" != null'
expect_success "report defaults to Markdown with the headline table" '
	"$KJ" report r --db "$DB" >"$TMP/r.md" && grep -q "^## Headline" "$TMP/r.md" &&
	grep -q "^| run | tasks | candidates | judged | compiled | call ok | correct |" "$TMP/r.md" &&
	grep -q "^| r | 6 | 11 | 11 | 9 | 8 | 6 |" "$TMP/r.md" && grep -q "^## By category" "$TMP/r.md" &&
	grep -q "^## By level" "$TMP/r.md"'
expect_success "report --format html -o writes a self-contained page with SVG charts" '
	"$KJ" report r --db "$DB" --format html -o "$TMP/r.html" && grep -q "<svg" "$TMP/r.html" &&
	test "$(grep -o "<svg" "$TMP/r.html" | wc -l)" -eq 6 && ! grep -Eq "https?://" "$TMP/r.html" &&
	! grep -qi "<script" "$TMP/r.html" && grep -q "fast_p against p" "$TMP/r.html" && grep -q "Roofline" "$TMP/r.html"'
expect_success "the default store is RUN.sqlite in the current folder" '
	cp "$DB" "$TMP/r2.sqlite" && (cd "$TMP" && "$KJ" report r2 --format json 2>"$TMP/e"; test $? -eq 1) &&
	grep -q "no run .r2." "$TMP/e" &&
	(cd "$TMP" && "$KJ" report r --format json | grep -q "\"candidates\": 11")'
expect_success "report of an unknown run names it and exits 1" '
	"$KJ" report nope --db "$DB" 2>"$TMP/e"; test $? -eq 1 && grep -q "no run .nope." "$TMP/e"'
expect_success "report without RUN, or with an unknown format, is a usage error (2)" '
	"$KJ" report 2>/dev/null; test $? -eq 2 && { "$KJ" report r --db "$DB" --format pdf 2>"$TMP/e"; test $? -eq 2; } &&
	grep -q "unknown format" "$TMP/e"'
expect_success "export-pairs writes the 2 (error, correction) pairs as JSONL" '
	"$KJ" export-pairs r --db "$DB" -o "$TMP/p.jsonl" && test "$(wc -l <"$TMP/p.jsonl")" -eq 2 &&
	perl -MJSON::PP -ne "my \$o = decode_json(\$_); exit 1 unless \$o->{kind} eq q(fix) &&
		\$o->{before}{status} ne q(pass) && \$o->{after}{status} eq q(pass) &&
		length(\$o->{after}{source}) > 0 && length(\$o->{before}{sha}) == 64" "$TMP/p.jsonl" &&
	head -1 "$TMP/p.jsonl" | grep -q "\"task\":\"level1/relu\"" && tail -1 "$TMP/p.jsonl" | grep -q "\"task\":\"level2/gemm_add_relu\""'
expect_success "compare of a run with itself: 11 matched, every ratio 1" '
	"$KJ" compare r r --db "$DB" --json >"$TMP/c.json" && test "$(json_get "$TMP/c.json" matched)" = 11 &&
	test "$(json_get "$TMP/c.json" worst_ratio)" = 1 && test "$(json_get "$TMP/c.json" median_ratio)" = 1 &&
	test "$(json_get "$TMP/c.json" tasks.2.task)" = level2/gemm_add_relu'
expect_success "compare matches a renamed model by sha256 and prints a table" '
	sed "s/\"m2\"/\"m3\"/" "$TMP/r.jsonl" >"$TMP/b.jsonl" &&
	"$KJ" run "$TMP/b.jsonl" --db "$DB" --backend cpu --quiet &&
	"$KJ" compare r b --db "$DB" --json >"$TMP/c.json" && test "$(json_get "$TMP/c.json" matched)" = 11 &&
	test "$(json_get "$TMP/c.json" matched_by_sha256)" = 5 && test "$(json_get "$TMP/c.json" unmatched_a)" = 0 &&
	"$KJ" compare r b --db "$DB" | grep -q "^| level1/relu |"'

# csv.pl FILE: checks that every row has the header's field count (RFC 4180
# quoting) and prints "ROWS<tab>FIELDS", then each row's fields joined by tabs
cat >"$TMP/csv.pl" <<'PERL'
use strict;
use warnings;
local $/;
open my $f, "<:raw", $ARGV[0] or die "cannot open $ARGV[0]\n";
my $d = <$f>;
my (@rows, @row);
my ($field, $q) = ("", 0);
for (my $i = 0; $i < length $d; $i++) {
	my $c = substr($d, $i, 1);
	if ($q) {
		if ($c eq '"' && substr($d, $i + 1, 1) eq '"') { $field .= '"'; $i++ }
		elsif ($c eq '"') { $q = 0 }
		else { $field .= $c }
	} elsif ($c eq '"') { $q = 1 }
	elsif ($c eq ",") { push @row, $field; $field = "" }
	elsif ($c eq "\r" && substr($d, $i + 1, 1) eq "\n") { push @row, $field; push @rows, [@row]; @row = (); $field = ""; $i++ }
	else { $field .= $c }
}
die "unterminated last row\n" if @row || length $field;
my $n = @{$rows[0]};
for (@rows) { die "a row of " . scalar(@$_) . " fields, not $n\n" if @$_ != $n }
print scalar(@rows), "\t$n\n";
print join("\t", map { my $x = $_; $x =~ s/[\t\n]/ /g; $x } @$_), "\n" for @rows;
PERL
expect_success "json: per_task has one row per task with its failures and first failure" '
	test "$(json_get "$TMP/r.json" per_task.0.task)" = level1/relu &&
	test "$(json_get "$TMP/r.json" per_task.0.candidates)" = 4 && test "$(json_get "$TMP/r.json" per_task.0.correct)" = 2 &&
	test "$(json_get "$TMP/r.json" per_task.0.failures)" = "mismatch 1, crash 1" &&
	test "$(json_get "$TMP/r.json" per_task.0.first_failure)" != null &&
	test "$(json_get "$TMP/r.json" per_task.2.task)" = level2/gemm_add_relu && test "$(json_get "$TMP/r.json" per_task.3)" = null'
expect_success "json: per_candidate has all 11 with status, whole reason, flags, speedup and spread" '
	test "$(json_get "$TMP/r.json" per_candidate.10.id)" != null && test "$(json_get "$TMP/r.json" per_candidate.11)" = null &&
	test "$(json_get "$TMP/r.json" per_candidate.0.status)" = mismatch &&
	test "$(json_get "$TMP/r.json" per_candidate.0.reason)" = "$(sqlite3 "$DB" "SELECT v.reason FROM verdicts v JOIN candidates c ON c.id = v.candidate_id JOIN runs r ON r.id = c.run_id WHERE r.name = '\''r'\'' ORDER BY c.id LIMIT 1")" &&
	test "$(json_get "$TMP/r.json" per_candidate.1.status)" = pass && test "$(json_get "$TMP/r.json" per_candidate.1.timed)" = true &&
	perl -e "exit(\$ARGV[0] > 0 && \$ARGV[1] >= 0 && \$ARGV[2] >= 0 ? 0 : 1)" "$(json_get "$TMP/r.json" per_candidate.1.speedup)" \
		"$(json_get "$TMP/r.json" per_candidate.1.rel_iqr)" "$(json_get "$TMP/r.json" per_candidate.1.baseline_rel_iqr)" &&
	test "$(json_get "$TMP/r.json" per_candidate.1.flags | cut -c1)" = "[" && test "$(json_get "$TMP/r.json" per_candidate.0.speedup)" = null'
expect_success "md: per-task, slowest and per-candidate tables, reasons cut, the spread explained" '
	grep -q "^## Per task" "$TMP/r.md" && grep -q "^| level1/relu | 4 | 2 | mismatch 1, crash 1 |" "$TMP/r.md" &&
	grep -q "^## Slowest correct candidates" "$TMP/r.md" && grep -q "^## Per candidate" "$TMP/r.md" &&
	test "$(sed -n "/^## Per candidate/,\$p" "$TMP/r.md" | grep -c "^| [0-9]")" -eq 11 &&
	sed -n "/^## Per candidate/,\$p" "$TMP/r.md" | grep -q "^| [0-9]* | level1/relu | m1 | 0 | 0 | mismatch | correctness |" &&
	sed -n "/^## Per candidate/,\$p" "$TMP/r.md" | grep "^| [0-9]" |
		perl -ne "my @f = split / \\| /; exit 1 if length(\$f[-1]) > 90" &&
	grep -q "spread: the largest IQR / median" "$TMP/r.md" && grep -q "not a confidence" "$TMP/r.md"'
expect_success "csv: a header and one row per candidate, the documented columns, whole reasons" '
	"$KJ" report r --db "$DB" --format csv -o "$TMP/r.csv" && perl "$TMP/csv.pl" "$TMP/r.csv" >"$TMP/csv.txt" &&
	test "$(head -1 "$TMP/csv.txt")" = "$(printf "12\t23")" &&
	test "$(sed -n 2p "$TMP/csv.txt")" = "$(printf "run\tcandidate_id\ttask\tlevel\tcategory\tdtype\tmodel\tmethod\tsample\tround\tstatus\tstage\treason\tflags\ttimed\tspeedup\trel_iqr\tbaseline_rel_iqr\tsol_frac\tshapes\tjudged_at\tsha256\tpath")" &&
	test "$(sed -n 3p "$TMP/csv.txt" | cut -f 3,11,13)" = "$(printf "level1/relu\tmismatch\t%s" "$(json_get "$TMP/r.json" per_candidate.0.reason)")" &&
	test "$(sed -n 4p "$TMP/csv.txt" | cut -f 11,15)" = "$(printf "pass\t1")"'
expect_success "the run's settings and manifest come first: version, spec, seeds, budget, policy, device, dates" '
	test "$(json_get "$TMP/r.json" manifest.settings.seeds)" = 5 && test "$(json_get "$TMP/r.json" manifest.settings.no_perf)" = false &&
	test "$(json_get "$TMP/r.json" manifest.settings.policy)" = flag &&
	test "$(json_get "$TMP/r.json" manifest.spec)" = "$TMP/r.jsonl" && test -n "$(json_get "$TMP/r.json" manifest.kjudge_version)" &&
	test "$(json_get "$TMP/r.json" manifest.devices.0.verdicts)" -ge 1 && test "$(json_get "$TMP/r.json" manifest.first_judged)" != null &&
	test "$(json_get "$TMP/r.json" manifest.timing)" = measured &&
	test "$(grep -n "^## Run" "$TMP/r.md" | cut -d: -f1)" -lt "$(grep -n "^## Headline" "$TMP/r.md" | cut -d: -f1)" &&
	grep -q "^| seeds | 5 |" "$TMP/r.md" && grep -q "^| perf budget | [0-9.]* s |" "$TMP/r.md" &&
	grep -q "^| policy | flag |" "$TMP/r.md" && grep -q "^| kjudge version | [0-9]" "$TMP/r.md" &&
	grep -q "^| device | " "$TMP/r.md" && grep -q "^| candidates | 11 (11 judged, 0 pending) |" "$TMP/r.md" &&
	grep -qF "| spec | $TMP/r.jsonl |" "$TMP/r.md" && grep -q "^| calibration | none (CPU track" "$TMP/r.md"'
# a correctness-only run: 3 of 4 pass, nothing timed
cat >"$TMP/np.jsonl" <<EOF
{"task": "level1/relu", "model": "m1", "path": "$S/relu.c"}
{"task": "level1/softmax", "model": "m1", "path": "$S/softmax.c"}
{"task": "level2/gemm_add_relu", "model": "m1", "path": "$S/gemm_add_relu.c"}
{"task": "level1/relu", "model": "m2", "path": "$B/wrong_result.c"}
EOF
expect_success "a --no-perf run reports correctness and says timing was not measured (no fast_p = 0)" '
	"$KJ" run "$TMP/np.jsonl" --db "$DB" --name np --backend cpu --no-perf --quiet;
	"$KJ" report np --db "$DB" --format json >"$TMP/np.json" &&
	test "$(json_get "$TMP/np.json" correct)" = 3 && test "$(json_get "$TMP/np.json" candidates)" = 4 &&
	test "$(json_get "$TMP/np.json" fast_p.0)" = null && test "$(json_get "$TMP/np.json" fast_p.1)" = null &&
	test "$(json_get "$TMP/np.json" by_model.m1.fast_p.0)" = null && test "$(json_get "$TMP/np.json" fast_p_at_n.0.fast_p.0)" = null &&
	test "$(json_get "$TMP/np.json" timing)" = "not measured" && test "$(json_get "$TMP/np.json" manifest.settings.no_perf)" = true &&
	test "$(json_get "$TMP/np.json" per_candidate.0.timed)" = false && test "$(json_get "$TMP/np.json" per_candidate.0.status)" = pass &&
	"$KJ" report np --db "$DB" >"$TMP/np.md" && grep -q "Timing was not measured" "$TMP/np.md" &&
	grep -q "^| np | 4 | 4 | 4 | 4 | 4 | 3 | 100.0% | 75.0% | 0.750 | not timed |" "$TMP/np.md" &&
	! grep -q "fast_p@N" "$TMP/np.md" && grep -q "^| level1/softmax | 1 | 1 | - | not timed |" "$TMP/np.md" &&
	"$KJ" report np --db "$DB" --format html | grep -q "id=\"not-timed\""'
expect_success "compare counts correct candidates of untimed runs (both correct 3, none timed)" '
	"$KJ" run "$TMP/np.jsonl" --db "$DB" --name np2 --backend cpu --no-perf --quiet;
	"$KJ" compare np np2 --db "$DB" --json >"$TMP/cn.json" && test "$(json_get "$TMP/cn.json" both_correct)" = 3 &&
	test "$(json_get "$TMP/cn.json" both_timed)" = 0 && test "$(json_get "$TMP/cn.json" tasks.1.both_correct)" = 1 &&
	"$KJ" compare np np2 --db "$DB" >"$TMP/cn.txt" && grep -q "^| level1/softmax | 1 | 1 | 0 | - | - | - |" "$TMP/cn.txt" &&
	grep -q "3 correct in both, 0 of them timed in both (timing not measured" "$TMP/cn.txt"'
# a store in a folder nobody may write (an archive, a shared results folder):
# bubblewrap makes the whole file system read-only, even for root
RO_OK=0
bwrap --ro-bind / / --dev /dev --proc /proc true 2>/dev/null && RO_OK=1
expect_success "report reads a store on a read-only file system, and writes nothing" '
	if [ "$RO_OK" -ne 1 ]; then echo "# bwrap cannot make a read-only view here"; exit 0; fi
	mkdir "$TMP/ro" && cp "$DB" "$TMP/ro/r.sqlite" && sha=$(sha256sum <"$TMP/ro/r.sqlite") &&
	bwrap --ro-bind / / --dev /dev --proc /proc "$KJ" report r --db "$TMP/ro/r.sqlite" --format json >"$TMP/ro.json" &&
	test "$(json_get "$TMP/ro.json" correct)" = 6 && test "$(json_get "$TMP/ro.json" per_task.0.task)" = level1/relu &&
	bwrap --ro-bind / / --dev /dev --proc /proc "$KJ" compare r b --db "$TMP/ro/r.sqlite" --json >/dev/null &&
	test "$(sha256sum <"$TMP/ro/r.sqlite")" = "$sha" && test "$(ls "$TMP/ro")" = r.sqlite'
expect_success "an older store is read as it is, never migrated, even where it could be" '
	cp "$DB" "$TMP/old.sqlite" && sqlite3 "$TMP/old.sqlite" "DROP TABLE run_jobs; PRAGMA user_version = 2" &&
	"$KJ" report r --db "$TMP/old.sqlite" --format json >"$TMP/old.json" &&
	test "$(json_get "$TMP/old.json" correct)" = 6 && test "$(json_get "$TMP/old.json" manifest.schema_version)" = 2 &&
	test "$(sqlite3 "$TMP/old.sqlite" "PRAGMA user_version")" = 2 &&
	test -z "$(sqlite3 "$TMP/old.sqlite" "SELECT name FROM sqlite_master WHERE name = '\''run_jobs'\''")"'
done_testing
