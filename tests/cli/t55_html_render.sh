#!/usr/bin/env bash
# The HTML report renders: headless Chromium (Debian's chromium) screenshots
# the page, and a small PNG decoder (Perl, core Compress::Zlib) checks that the
# picture is not blank and that the charts' colours are on it.
. "$(dirname "$0")/lib.sh"

CHROMIUM=$(command -v chromium || true)
if [ -z "$CHROMIUM" ]; then
	echo "1..0 # SKIP chromium not installed"
	exit 0
fi

# png.pl FILE prints "WIDTH HEIGHT COLOURS NONWHITE_PERMILLE BLUE RED GREEN
# PASSBG FAILBG": the distinct colours, the share of non-white pixels, the
# pixels within 3 of the charts' first three colours (#1f77b4, #d62728,
# #2ca02c) and of the status cells' backgrounds (#e2f2e2 pass, #f7e1e1 fail).
cat >"$TMP/png.pl" <<'EOF'
use strict;
use warnings;
use Compress::Zlib;
my $f = shift;
open my $fh, "<:raw", $f or die "cannot open $f\n";
local $/;
my $d = <$fh>;
substr($d, 0, 8) eq "\x89PNG\r\n\x1a\n" or die "not a PNG\n";
my ($pos, $idat, $w, $h, $depth, $ctype, $inter) = (8, "");
while ($pos < length $d) {
	my ($len, $type) = unpack "Na4", substr($d, $pos, 8);
	my $data = substr($d, $pos + 8, $len);
	($w, $h, $depth, $ctype, undef, undef, $inter) = unpack "NNCCCCC", $data if $type eq "IHDR";
	$idat .= $data if $type eq "IDAT";
	$pos += 12 + $len;
}
die "unsupported PNG (depth $depth, colour type $ctype, interlace $inter)\n"
	unless $depth == 8 && ($ctype == 2 || $ctype == 6) && !$inter;
my $bpp = $ctype == 6 ? 4 : 3;
my $raw = uncompress($idat) // die "bad zlib data\n";
my $stride = $w * $bpp;
my @prev = (0) x $stride;
my (%colours, $nonwhite, $blue, $red, $green, $passbg, $failbg);
$nonwhite = $blue = $red = $green = $passbg = $failbg = 0;
sub near { my ($p, $r, $g, $b) = @_; abs($p->[0] - $r) <= 3 && abs($p->[1] - $g) <= 3 && abs($p->[2] - $b) <= 3 }
for my $y (0 .. $h - 1) {
	my $ft = ord substr($raw, $y * ($stride + 1), 1);
	my @c = unpack "C*", substr($raw, $y * ($stride + 1) + 1, $stride);
	for my $i (0 .. $stride - 1) {
		my $a = $i >= $bpp ? $c[$i - $bpp] : 0;
		my $b = $prev[$i];
		my $cc = $i >= $bpp ? $prev[$i - $bpp] : 0;
		if ($ft == 1) { $c[$i] = ($c[$i] + $a) & 255 }
		elsif ($ft == 2) { $c[$i] = ($c[$i] + $b) & 255 }
		elsif ($ft == 3) { $c[$i] = ($c[$i] + (($a + $b) >> 1)) & 255 }
		elsif ($ft == 4) {
			my $p = $a + $b - $cc;
			my ($pa, $pb, $pc) = (abs($p - $a), abs($p - $b), abs($p - $cc));
			$c[$i] = ($c[$i] + ($pa <= $pb && $pa <= $pc ? $a : $pb <= $pc ? $b : $cc)) & 255;
		}
	}
	for (my $i = 0; $i < $stride; $i += $bpp) {
		my @px = @c[$i .. $i + 2];
		$colours{"@px"} = 1;
		$nonwhite++ if $px[0] + $px[1] + $px[2] < 3 * 240;
		$blue++ if near(\@px, 0x1f, 0x77, 0xb4);
		$red++ if near(\@px, 0xd6, 0x27, 0x28);
		$green++ if near(\@px, 0x2c, 0xa0, 0x2c);
		$passbg++ if near(\@px, 0xe2, 0xf2, 0xe2);
		$failbg++ if near(\@px, 0xf7, 0xe1, 0xe1);
	}
	@prev = @c;
}
printf "%d %d %d %d %d %d %d %d %d\n", $w, $h, scalar(keys %colours), int(1000 * $nonwhite / ($w * $h)), $blue, $red,
	$green, $passbg, $failbg;
EOF

# shot HTML PNG [HEIGHT]
shot() {
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --user-data-dir="$TMP/chrome" \
		--hide-scrollbars --screenshot="$2" --window-size=1200,"${3:-1400}" "file://$1" >"$TMP/chrome.log" 2>&1
	test -s "$2" || { cat "$TMP/chrome.log"; return 1; }
}

# The page as Chromium lays it out: a copy of the report with a script that
# measures what is shown (each table's visible rows and size, the rendered text
# of a row, a status cell's computed background; each chart's drawn marks) and
# writes it into the page, which --dump-dom then prints.  The report itself
# has no script.
cat >"$TMP/probe.js" <<'EOF'
(function () {
	var out = [];
	function shown(e) {
		var r = e.getBoundingClientRect(), st = getComputedStyle(e);
		return r.width > 0 && r.height > 0 && st.visibility !== "hidden" && st.display !== "none";
	}
	["manifest", "per-task", "slowest", "per-candidate"].forEach(function (id) {
		var t = document.getElementById(id), n = 0, r;
		if (!t) { out.push("table " + id + " missing"); return; }
		for (var i = 0; i < t.rows.length; i++) if (shown(t.rows[i])) n++;
		r = t.getBoundingClientRect();
		out.push("table " + id + " " + n + " " + Math.round(r.width) + " " + Math.round(r.height));
		for (var i = 0; i < t.rows.length; i++)
			out.push("row " + id + " " + t.rows[i].innerText.replace(/\s+/g, " ").trim());
	});
	document.querySelectorAll("#per-candidate td.fail, #per-candidate td.pass").forEach(function (td) {
		out.push("cell " + td.className + " " + td.innerText.trim() + " " + getComputedStyle(td).backgroundColor);
	});
	document.querySelectorAll("svg").forEach(function (s) {
		var marks = 0;
		s.querySelectorAll("polyline, circle, rect").forEach(function (e) {
			var b = e.getBoundingClientRect();
			if (b.width > 0 || b.height > 0) marks++;
		});
		out.push("svg " + (shown(s) ? "shown" : "hidden") + " " + marks + " " + s.querySelector("title").textContent);
	});
	var pre = document.createElement("pre");
	pre.id = "probe";
	pre.textContent = "\n" + out.join("\n") + "\n";
	document.body.appendChild(pre);
})();
EOF
# probe HTML OUT: what Chromium shows of HTML, one line per fact
probe() {
	{ sed "s#</body></html>##" "$1"; printf "<script>\n"; cat "$TMP/probe.js"; printf "</script></body></html>\n"; } >"$TMP/probe.html" &&
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --user-data-dir="$TMP/chrome" \
		--window-size=1200,1400 --dump-dom "file://$TMP/probe.html" >"$TMP/dom.html" 2>"$TMP/chrome.log" &&
	sed -n "/<pre id=\"probe\">/,/<\/pre>/p" "$TMP/dom.html" | sed "1d;\$d" | perl -pe "s/&lt;/</g; s/&gt;/>/g; s/&amp;/&/g" >"$2" &&
	test -s "$2" || { cat "$TMP/chrome.log"; return 1; }
}

S=$KJ_ROOT/examples/solutions/cpu
B=$KJ_ROOT/examples/broken/cpu
cat >"$TMP/h.jsonl" <<EOF
{"task": "level1/relu", "model": "m1", "round": 0, "path": "$B/wrong_result.c"}
{"task": "level1/relu", "model": "m1", "round": 1, "path": "$S/relu.c"}
{"task": "level1/softmax", "model": "m1", "round": 0, "path": "$S/softmax.c"}
{"task": "level1/relu", "model": "m2", "round": 0, "path": "$S/relu.c"}
{"task": "level1/softmax", "model": "m2", "round": 0, "path": "$B/compile_error.c"}
{"task": "level1/softmax", "model": "m2", "round": 1, "path": "$S/softmax.c"}
EOF
printf '<!DOCTYPE html>\n<html><body></body></html>\n' >"$TMP/blank.html"

expect_success "a run and its HTML report" '
	HOME=$TMP "$KJ" run "$TMP/h.jsonl" --db "$TMP/h.sqlite" --backend cpu --quiet &&
	"$KJ" report h --db "$TMP/h.sqlite" --format html -o "$TMP/h.html"'
expect_success "the decoder sees a blank page as one white colour" '
	HOME=$TMP shot "$TMP/blank.html" "$TMP/blank.png" && perl "$TMP/png.pl" "$TMP/blank.png" >"$TMP/blank.txt" &&
	read -r w h colours nonwhite blue red green passbg failbg <"$TMP/blank.txt" &&
	test "$w" -eq 1200 && test "$colours" -eq 1 && test "$nonwhite" -eq 0'
expect_success "Chromium renders the report to a PNG" '
	HOME=$TMP shot "$TMP/h.html" "$TMP/h.png" 2200 && perl "$TMP/png.pl" "$TMP/h.png" >"$TMP/h.txt" && cat "$TMP/h.txt"'
expect_success "the screenshot is not blank: many colours, over 2% of pixels drawn" '
	read -r w h colours nonwhite blue red green passbg failbg <"$TMP/h.txt" && test "$colours" -gt 100 && test "$nonwhite" -gt 20'
expect_success "the charts are on it: the series colours cover bars, lines and legends" '
	read -r w h colours nonwhite blue red green passbg failbg <"$TMP/h.txt" &&
	test "$blue" -gt 1000 && test "$red" -gt 100 && test "$green" -gt 100'
expect_success "Chromium lays out the new tables: manifest, per task, slowest, per candidate" '
	probe "$TMP/h.html" "$TMP/p.txt" && cat "$TMP/p.txt" &&
	grep -Eq "^table manifest (1[0-9]|[2-9][0-9]) [0-9]{3,} [0-9]{3,}$" "$TMP/p.txt" &&
	grep -Eq "^table per-task 3 [0-9]{3,} [0-9]{2,}$" "$TMP/p.txt" &&
	grep -Eq "^table slowest [2-9] [0-9]{3,} [0-9]{2,}$" "$TMP/p.txt" &&
	grep -Eq "^table per-candidate 7 [0-9]{3,} [0-9]{2,}$" "$TMP/p.txt"'
expect_success "the shown text: settings first, each task with its failures, each candidate with status and reason" '
	grep -q "^row manifest run h$" "$TMP/p.txt" && grep -q "^row manifest seeds 5$" "$TMP/p.txt" &&
	grep -q "^row manifest timing measured: 4 of 4 correct candidates timed$" "$TMP/p.txt" &&
	grep -q "^row per-task level1/relu 3 2 mismatch 1 " "$TMP/p.txt" &&
	grep -q "^row per-task level1/softmax 3 2 compile_error 1 " "$TMP/p.txt" &&
	grep -Eq "^row per-candidate [0-9]+ level1/relu m1 0 0 mismatch correctness - - - - .{20,}$" "$TMP/p.txt" &&
	grep -Eq "^row per-candidate [0-9]+ level1/relu m1 0 1 pass done [0-9.]+ \[[0-9.]+, [0-9.]+\] [0-9.]+% / [0-9.]+% - [a-z_,-]+ -$" "$TMP/p.txt"'
expect_success "status cells are coloured as rendered: pass green, failures red" '
	grep -q "^cell txt pass pass rgb(226, 242, 226)$" "$TMP/p.txt" &&
	grep -q "^cell txt fail mismatch rgb(247, 225, 225)$" "$TMP/p.txt" &&
	grep -q "^cell txt fail compile_error rgb(247, 225, 225)$" "$TMP/p.txt"'
expect_success "the charts are rendered: six shown SVGs, each with drawn marks" '
	test "$(grep -c "^svg shown " "$TMP/p.txt")" -eq 6 &&
	! grep "^svg " "$TMP/p.txt" | grep -Ev "^svg shown ([3-9]|[0-9]{2,}) " &&
	grep -q "^svg shown [0-9]* fast_p against p$" "$TMP/p.txt" && grep -q "^svg shown [0-9]* Roofline$" "$TMP/p.txt"'
expect_success "a screenshot of the whole page shows the status colours of the tables" '
	HOME=$TMP shot "$TMP/h.html" "$TMP/tall.png" 4000 && perl "$TMP/png.pl" "$TMP/tall.png" >"$TMP/tall.txt" && cat "$TMP/tall.txt" &&
	read -r w h colours nonwhite blue red green passbg failbg <"$TMP/tall.txt" &&
	test "$passbg" -gt 1000 && test "$failbg" -gt 500'
done_testing
