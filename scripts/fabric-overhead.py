#!/usr/bin/env python3
"""fabric-overhead.py DOC...: a fabric sweep's round time, split into the
measuring (each run's own elapsed time), the rest of the slowest pair (its
set-up and teardown: connect, open, report), and rank 0's synchronisation
between rounds (the span of the document less the slowest pairs)."""
import json, statistics as st, sys
from datetime import datetime

def ts(s):
    """An RFC 3339 time with nanoseconds, in seconds (to the microsecond)."""
    head, _, frac = s.rstrip("Z").partition(".")
    return datetime.fromisoformat(head + "+00:00").timestamp() + float("0." + (frac or "0"))

for f in sys.argv[1:]:
    d = json.load(open(f))
    rounds = {}
    for p in d["pairs"]:
        rounds.setdefault(p["round"], []).append(p["elapsed_ns"] / 1e6)
    slowest = [max(v) for v in rounds.values()]
    runs = [r["elapsed_ns"] / 1e6 for p in d["pairs"] for res in p["result"]["results"] for r in res["runs"]]
    span = (ts(d["finished_at"]) - ts(d["started_at"])) * 1000
    n = len(rounds)
    print(f"{f}: {d['workloads']} {len(d['members'])} ranks, {n} rounds in {span / 1000:.1f} s: {span / n:.0f} ms a round; "
          f"pair median {st.median([x for v in rounds.values() for x in v]):.0f} ms of which measuring {st.median(runs):.1f} ms; "
          f"slowest pair a round {st.mean(slowest):.0f} ms; synchronisation a round {(span - sum(slowest)) / n:.0f} ms")
