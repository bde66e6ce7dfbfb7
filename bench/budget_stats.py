#!/usr/bin/env python3
"""The error budget's multiple from measurements (docs/verdict.md, "Error
budget"): over the verdicts of a store (a `kjudge run` over case files, e.g.
bench/gpu_check.sh's /tmp/cases.sqlite), every correctness check's candidate
distance over the declared limit (tol_ratio) against the eager baseline's on
the same output, shape and seed (baseline_tol_ratio).

  python3 bench/budget_stats.py STORE.sqlite [--min-base 0.05]

Prints, for the honest solutions (paths with /solutions/), the quantiles of
tol_ratio / baseline_tol_ratio over the checks where the baseline's distance is
at least --min-base of the declared limit (below that the ratio says
nothing: the declared tolerance governs), the largest such ratios with their
case, and the checks that passed only within the budget; for the cases that
must fail (paths with /redteam/ or /broken/ whose verdict is mismatch), how
far the failing check was above the budget it was held to, and the multiple
at which it would have passed (its distance over the baseline's): a multiple
between the honest maximum and the least of those separates the two.
"""
import argparse
import json
import sqlite3
import sys


def quantile(xs, q):
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("store")
    ap.add_argument("--min-base", type=float, default=0.05)
    a = ap.parse_args()
    db = sqlite3.connect("file:%s?mode=ro" % a.store, uri=True)
    rows = db.execute("SELECT c.path, v.status, v.json FROM candidates c JOIN verdicts v "
                      "ON v.candidate_id = c.id").fetchall()
    honest, used, over_budget, would_pass = [], [], [], []
    nchecks = 0
    for path, status, js in rows:
        try:
            v = json.loads(js)
        except ValueError:
            continue
        short = path.split("examples/")[-1]
        for c in v.get("correctness") or []:
            tr, bud = c.get("tol_ratio"), c.get("budget")
            br = c.get("baseline_tol_ratio", c.get("base_tol_ratio"))
            if not isinstance(tr, (int, float)):
                continue
            nchecks += 1
            if "/solutions/" in path or short.startswith("solutions/"):
                if isinstance(br, (int, float)) and br >= a.min_base:
                    honest.append((tr / br, short, c.get("output"), c.get("budget_metric"), tr, br))
                if c.get("budget_used"):
                    used.append((short, c.get("output"), c.get("budget_metric"), tr, br, bud))
            elif status == "mismatch" and not c.get("pass", True) and isinstance(bud, (int, float)) and bud > 0:
                over_budget.append((tr / bud, short, c.get("output"), c.get("budget_metric"), tr, bud))
                if isinstance(br, (int, float)) and br > 0 and tr > 1:
                    # the multiple at which this failing check would pass
                    would_pass.append((tr / br, short, v.get("task"), c.get("output"), tr, br))
    print("checks with a budget measure: %d in %d verdicts" % (nchecks, len(rows)))
    rs = [h[0] for h in honest]
    print("honest checks with baseline_tol_ratio >= %g: %d; tol_ratio/baseline_tol_ratio p50 %.3f p90 %.3f p99 %.3f max %.3f"
          % (a.min_base, len(rs), quantile(rs, .5), quantile(rs, .9), quantile(rs, .99), max(rs) if rs else float("nan")))
    for h in sorted(honest, reverse=True)[:8]:
        print("  %.3f  %s %s (%s): candidate %.3g, baseline %.3g" % h)
    print("honest checks that passed only within the budget: %d" % len(used))
    for u in used[:12]:
        print("  %s %s (%s): candidate %.3g, baseline %.3g, budget %.3g" % u)
    print("failing checks of mismatch cases (red team, broken): %d; candidate/budget min %.3g"
          % (len(over_budget), min(o[0] for o in over_budget) if over_budget else float("nan")))
    for o in sorted(over_budget)[:10]:
        print("  %.3g  %s %s (%s): candidate %.3g, budget %.3g" % o)
    # the range of multiples that keeps every honest check passing (above the
    # honest maximum) and every failing check failing (below the least
    # multiple at which one would pass), each case counted once
    least = {}
    for w in would_pass:
        if w[1] not in least or w[0] < least[w[1]][0]:
            least[w[1]] = w
    ws = sorted(least.values())
    print("failing checks of mismatch cases with a baseline error: %d cases; the multiple at which each would pass, least first:"
          % len(ws))
    for w in ws[:10]:
        print("  %.3g  %s (%s) %s: candidate %.3g, baseline %.3g" % w)
    if rs and ws:
        print("separating multiples: above %.3g (honest maximum) and below %.3g (least failing case)" % (max(rs), ws[0][0]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
