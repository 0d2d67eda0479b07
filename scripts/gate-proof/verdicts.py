#!/usr/bin/env python3
"""verdicts.py: the proof tables of docs/investigations/2026-11-28-verdicts.md,
from what scripts/gate-proof.sh wrote under one directory per condition
(quiet, loaded): gates (A/A, calibrated slowdowns, real changes, the half-width
at equal time of each way of running) and, from the sessions of the firmware
recipe, compare's A/A session pairs, a slow session against three, and history
trials with a step made of slowdown sessions.

    python3 scripts/gate-proof/verdicts.py [--bin ./rdma-bench] DIR...

Shares come with 95% Wilson intervals. compare and history run on this host
(they need no RDMA), on copies of the sessions in temporary directories.
"""
import argparse, datetime, glob, json, math, os, random, shutil, subprocess, tempfile
from collections import defaultdict

def wilson(k, n, z=1.959964):
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return (max(0.0, c - h), min(1.0, c + h))

def share(k, n):
    if n == 0:
        return "0/0"
    lo, hi = wilson(k, n)
    return f"{k}/{n} ({100*k/n:.0f}%, 95% CI {100*lo:.0f}-{100*hi:.0f}%)"

def gates(root, prefix):
    out = []
    for d in sorted(glob.glob(os.path.join(root, prefix + "*"))):
        f = sorted(glob.glob(os.path.join(d, "gate-*.json")))
        e = os.path.join(d, "exit")
        if f and os.path.exists(e):
            out.append((os.path.basename(d), json.load(open(f[-1])), int(open(e).read().strip())))
    return out

def median(v):
    s = sorted(v)
    n = len(s)
    return (s[n // 2] + s[(n - 1) // 2]) / 2 if n else float("nan")

def pct(x):
    return "unbounded" if x is None else f"{x:+.1f}%"

def gate_table(root, title, prefix, want):
    g = gates(root, prefix)
    if not g:
        return
    print(f"#### {title}: {len(g)} gates\n")
    exits = defaultdict(int)
    rows = defaultdict(lambda: defaultdict(int))
    pairs, est, spread, secs = defaultdict(list), defaultdict(list), defaultdict(list), []
    loads = []
    for _, d, e in g:
        exits[e] += 1
        secs.append(d["seconds"])
        if d.get("load"):
            loads.append(d["load"].get("others_cpus", 0))
        for r in d["rows"]:
            k = f'{r["point"]["workload"]} {r["point"]["size_bytes"]} B'
            rows[k][r["decision"]] += 1
            pairs[k].append(r["pairs"] or len(r["base"]))
            est[k].append(r["estimate_pct"])
            spread[k].append((r.get("pair_p90_pct", 0) - r.get("pair_p10_pct", 0)) / 2)
    other = sum(v for k, v in exits.items() if k not in (0, 1, 3))
    s = sorted(secs)
    print("| gates | exit 0 (pass) | exit 1 (fail) | exit 3 (undecided) | other | seconds a gate (median, max) |")
    print("|---|---|---|---|---|---|")
    print(f"| {len(g)} | {exits[0]} | {exits[1]} | {exits[3]} | {other} | {median(s):.0f}, {s[-1]:.0f} |\n")
    print(f"| point | {want} | pass | fail | undecided | pairs (median) | estimate (median) | half the p10-p90 pair spread (median) |")
    print("|---|---|---|---|---|---|---|---|")
    for k in rows:
        n = sum(rows[k].values())
        print(f'| {k} | {share(rows[k][want], n)} | {rows[k]["pass"]} | {rows[k]["fail"]} | {rows[k]["undecided"]} | '
              f'{median(pairs[k]):.0f} | {median(est[k]):+.1f}% | {median(spread[k]):.1f}% |')
    if loads:
        print(f"\nOther processes' CPU seen inside the VM (median of the gates): {median(loads):.2f} CPUs")
    print()

def width_table(root):
    g = gates(root, "width-")
    if not g:
        return
    print("#### The half-width at equal time\n")
    print("Each gate measured A/A pairs for the same time with no look but the final one; the half-width is half the "
          "final interval's width (its confidence the whole 0.5% share of each point).\n")
    print("| way | gates | pairs in the time (median) | write_lat 64 B half-width (median) | write_bw 4 KiB half-width (median) | seconds a pair of both points |")
    print("|---|---|---|---|---|---|")
    by = defaultdict(list)
    for name, d, _ in g:
        by[name.split("-")[1]].append(d)
    for way, ds in sorted(by.items()):
        n, hw, secs = [], defaultdict(list), []
        for d in ds:
            n.append(len(d["rows"][0]["base"]))
            secs.append(sum(r["pair_seconds"] for r in d["rows"]) / max(1, len(d["rows"][0]["base"])))
            for r in d["rows"]:
                lo, hi = r["lo_pct"], r["hi_pct"]
                if lo is not None and hi is not None:
                    hw[r["point"]["workload"]].append((hi - lo) / 2)
        print(f'| {way} | {len(ds)} | {median(n):.0f} | {median(hw["write_lat"]):.1f}% | {median(hw["write_bw"]):.1f}% | {median(secs):.2f} |')
    print()

def real_table(root):
    g = gates(root, "real-") + gates(root, "pool-")
    if not g:
        return
    print("#### Real changes and calibration pools\n")
    print("| gate | exit | per point: decision after pairs, estimate [interval] |")
    print("|---|---|---|")
    for name, d, e in g:
        cells = "; ".join(f'{r["point"]["workload"]} {r["point"]["size_bytes"]} B {r["decision"]} after {r["pairs"]}: '
                          f'{pct(r["estimate_pct"])} [{pct(r["lo_pct"])}, {pct(r["hi_pct"])}]' for r in d["rows"])
        print(f"| {name} | {e} | {cells} |")
    print()

def sessions(root):
    """The session documents, by label, in time order."""
    by = defaultdict(list)
    for f in glob.glob(os.path.join(root, "sessions", "*.json")):
        d = json.load(open(f))
        by[d.get("label", "")].append((d["started_at"], f))
    return {k: [f for _, f in sorted(v)] for k, v in by.items()}

SESSION_GAP = []  # ["--session-gap", D] for compare and history, when given

def run(binary, args):
    if args[0] in ("compare", "history"):
        args = args + SESSION_GAP
    p = subprocess.run([binary] + args, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr

def gather(files):
    d = tempfile.mkdtemp()
    for f in files:
        shutil.copy(f, d)
    return d

def compare_proof(binary, root):
    s = sessions(root)
    a, b = s.get("fw-A", []), s.get("fw-B", [])
    if not a or not b:
        return
    print("#### compare: A/A session pairs of the firmware recipe\n")
    codes = defaultdict(int)
    n = min(len(a), len(b))
    for i in range(n):
        c, _, _ = run(binary, ["compare", a[i], b[i]])
        codes[c] += 1
    print(f"One session a side (fw-A session i against fw-B session i, taken minutes apart), {n} pairs: "
          f"exit 1 (fail) {share(codes[1], n)}, exit 3 (inconclusive) {codes[3]}, exit 0 {codes[0]}, other {n - codes[1] - codes[3] - codes[0]}.\n")
    codes = defaultdict(int)
    k = 0
    for i in range(0, n - 2, 3):
        base, new = gather(a[i:i + 3]), gather(b[i:i + 3])
        c, out, _ = run(binary, ["compare", base, new])
        codes[c] += 1
        k += 1
    print(f"Three sessions a side (fw-A sessions 3j..3j+2 against fw-B's), {k} comparisons: exit 1 (fail) {share(codes[1], k)}, "
          f"exit 3 {codes[3]}, exit 0 {codes[0]}.\n")
    for lvl in ("s10", "s5"):
        slow = s.get("slow-" + lvl, [])
        if not slow:
            continue
        caught, tried = 0, 0
        for i, f in enumerate(slow):
            base = gather(a[3 * i:3 * i + 3] if 3 * i + 3 <= len(a) else a[-3:])
            c, out, _ = run(binary, ["compare", base, f, "--fail-on", "lat.p50>+5%,bw<-5%"])
            tried += 1
            caught += c == 1
            if i == 0:
                print(f"A {lvl[1:]}% slowdown session against three fw-A sessions (the first):\n")
                print("    " + "\n    ".join(l for l in out.splitlines() if "write_lat RC poll 64 B" in l and "lat.p50" in l or l.startswith("gate ")))
                print()
        print(f"{lvl[1:]}% slowdown sessions against three base sessions each: caught (exit 1) {share(caught, tried)}.\n")

def nightly(files, d):
    """Copies files into directory d, re-dated an hour apart in their
    order (a nightly series' cadence, none in the future), so that each
    document is one session whatever --session-gap says: sessions taken
    seconds apart would otherwise join, and a step's index, counted in
    sessions, would no longer match its place among the documents."""
    first = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(days=2)
    for i, f in enumerate(files):
        doc = json.load(open(f))
        at = datetime.datetime.fromisoformat(doc["started_at"].replace("Z", "+00:00"))
        delta = (first + datetime.timedelta(hours=i) - at).total_seconds()
        doc["started_at"] = shift(doc["started_at"], 0, delta)
        for r in doc["results"]:
            for run_ in r.get("runs", []):
                run_["started_at"] = shift(run_["started_at"], 0, delta)
        json.dump(doc, open(os.path.join(d, f"{i:03d}.json"), "w"))
    return d

def history_proof(binary, root, trials=20, seed=1):
    s = sessions(root)
    steady = sorted(s.get("fw-A", []) + s.get("fw-B", []), key=lambda f: json.load(open(f))["started_at"])
    slow = s.get("slow-s5", [])
    if len(steady) < 10:
        return
    print("#### history: false changes and a 5% step\n")
    print("Every document is re-dated an hour apart, in its order, so that each is one session.\n")
    c, out, _ = run(binary, ["history", nightly(steady, tempfile.mkdtemp()), "-o", "json"])
    res = json.loads(out) if out.strip().startswith("{") else {"series": []}
    steps = sum(len(x.get("steps") or []) for x in res["series"])
    series = len(res["series"])
    print(f"All {len(steady)} A/A sessions in time order ({res.get('sessions', '?')} sessions as history counts them), "
          f"{series} series: {steps} steps found (exit {c}); "
          f"{100 * steps / max(1, series * len(steady)):.2f} false changes per 100 sessions of a series.\n")
    if not slow:
        return
    a, b = session_p50s(steady), session_p50s(slow)
    print(f"The step as measured: write_lat 64 B p50, median of the slowdown sessions' medians {median(b):.2f} us "
          f"against the A/A sessions' {median(a):.2f} us: {100 * (median(b) / median(a) - 1):+.1f}% "
          f"(A/A sessions' medians from {min(a):.2f} to {max(a):.2f} us).\n")
    rng = random.Random(seed)
    found, regress, tried = 0, 0, 0
    for t in range(trials):
        k = rng.randint(8, min(16, len(steady)))
        start = rng.randint(0, len(steady) - k)
        after = rng.sample(slow, min(3, len(slow)))
        d = nightly(steady[start:start + k] + after, tempfile.mkdtemp())
        c, out, err = run(binary, ["history", d, "-o", "json", "--metrics", "lat.p50"])
        if not out.strip().startswith("{"):
            raise SystemExit(f"history {d}: exit {c}: {err}")
        res = json.loads(out)
        tried += 1
        near = [st for x in res["series"] if x["point"].startswith("write_lat RC poll 64 B")
                for st in x.get("steps") or [] if abs(st["index"] - k) <= 2]
        found += bool(near)
        regress += any(st["regression"] for st in near)
    print(f"write_lat 64 B, the step (three slowdown sessions after 8 to 16 A/A sessions), {tried} trials: "
          f"a step found within two sessions of it {share(found, tried)}; "
          f"found and a regression beyond the threshold {share(regress, tried)}.\n")

def session_p50s(files):
    """Each session's median of its write_lat 64 B runs' p50."""
    out = []
    for f in files:
        for r in json.load(open(f))["results"]:
            if r.get("workload") == "write_lat" and r.get("size_bytes") == 64:
                v = [x["latency_us"]["p50"] for x in r.get("runs", []) if x.get("latency_us", {}).get("p50")]
                if v:
                    out.append(median(v))
    return out

def shift(t, hours, seconds=0):
    x = datetime.datetime.fromisoformat(t.replace("Z", "+00:00")) + datetime.timedelta(hours=hours, seconds=seconds)
    return x.isoformat().replace("+00:00", "Z")

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="./rdma-bench")
    ap.add_argument("--session-gap", help="passed to compare and history: sessions taken back to back, seconds apart, "
                    "are one session at their default of a minute")
    ap.add_argument("dirs", nargs="+")
    a = ap.parse_args()
    if a.session_gap:
        SESSION_GAP.extend(["--session-gap", a.session_gap])
    for root in a.dirs:
        print(f"### {os.path.basename(root.rstrip('/'))}\n")
        width_table(root)
        gate_table(root, "A/A, write_lat 64 B and write_bw 4 KiB", "aa2-", "fail")
        for lvl in ("s5", "s10"):
            gate_table(root, f"Slowdown {lvl[1:]}%", f"slow-{lvl}-", "fail")
        real_table(root)
        compare_proof(a.bin, root)
        history_proof(a.bin, root)

if __name__ == "__main__":
    main()
