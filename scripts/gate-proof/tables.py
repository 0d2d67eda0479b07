#!/usr/bin/env python3
"""tables.py: the proof tables of docs/investigations/2026-11-26-gate-proof.md
from results/gate-proof/ (the
documents scripts/gate-proof.sh wrote): A/A gates, power per calibrated
slowdown level, real changes. Shares come with 95% Wilson intervals.

    python3 scripts/gate-proof/tables.py [results/gate-proof]
"""
import glob, json, math, os, sys
from verdicts import share, wilson
from collections import defaultdict

root = sys.argv[1] if len(sys.argv) > 1 else "results/gate-proof"

def share(k, n):
    lo, hi = wilson(k, n)
    return f"{k}/{n} ({100*k/n:.0f}%, 95% CI {100*lo:.0f}-{100*hi:.0f}%)"

def docs(prefix):
    out = []
    for d in sorted(glob.glob(os.path.join(root, prefix + "*"))):
        f = sorted(glob.glob(os.path.join(d, "gate-*.json")))
        e = os.path.join(d, "exit")
        if f and os.path.exists(e):
            out.append((os.path.basename(d), json.load(open(f[-1])), int(open(e).read().strip())))
    return out

def pct(x):
    return "inf" if x is None else f"{x:+.1f}%"

def group(title, prefix):
    g = docs(prefix)
    if not g:
        return
    print(f"### {title}: {len(g)} gates\n")
    exits = defaultdict(int)
    rows = defaultdict(lambda: defaultdict(int))
    pairs = defaultdict(list)
    est = defaultdict(list)
    secs = []
    for name, d, e in g:
        exits[e] += 1
        secs.append(d["seconds"])
        for r in d["rows"]:
            key = f'{r["point"]["workload"]} {r["point"]["size_bytes"]} B'
            rows[key][r["decision"]] += 1
            pairs[key].append(r["pairs"])
            est[key].append(r["estimate_pct"])
    print("| gates | exit 0 (pass) | exit 1 (fail) | exit 3 (undecided) | other | seconds per gate (median, max) |")
    print("|---|---|---|---|---|---|")
    s = sorted(secs)
    other = sum(v for k, v in exits.items() if k not in (0, 1, 3))
    print(f"| {len(g)} | {exits[0]} | {exits[1]} | {exits[3]} | {other} | {s[len(s)//2]:.0f}, {s[-1]:.0f} |\n")
    print("| point | fail | pass | undecided | pairs (mean) | change (median of the gates' estimates) |")
    print("|---|---|---|---|---|---|")
    for k in rows:
        n = sum(rows[k].values())
        e = sorted(est[k])
        print(f'| {k} | {share(rows[k]["fail"], n)} | {rows[k]["pass"]} | {rows[k]["undecided"]} | '
              f'{sum(pairs[k])/len(pairs[k]):.1f} | {e[len(e)//2]:+.1f}% |')
    print()

def real():
    g = docs("real-") + docs("netem-")
    if not g:
        return
    print("### Real changes\n")
    print("| change | exit | per point: decision, pairs, change [interval] |")
    print("|---|---|---|")
    for name, d, e in g:
        cells = "; ".join(f'{r["point"]["workload"]} {r["point"]["size_bytes"]} B {r["decision"]} after {r["pairs"]}: '
                          f'{pct(r["estimate_pct"])} [{pct(r["lo_pct"])}, {pct(r["hi_pct"])}]' for r in d["rows"])
        print(f"| {name} | {e} | {cells} |")
    print()

group("A/A, write_lat 64 B and write_bw 4 KiB", "aa2-")
group("A/A, the default points", "aa-")
for lvl in ["s2_5", "s5", "s10", "s20"]:
    group(f"Slowdown {lvl[1:].replace('_', '.')}%", f"slow-{lvl}-")
real()
