#!/usr/bin/env bash
# The tally of issue 38: runs the project's bad-input and fault suites and
# the fault-injection suite ("no green without measuring") together, on
# this host, and counts what each case ended as: clean, silently accepted,
# hang, crash, misleading, data lost (docs/faults.md says what each
# means). The fault suite records each view it judges in $RDMA_BENCH_TALLY
# (case, view, outcome); every other test counts as one case, classed by
# its own result: a pass is clean, a failure by what it printed (a test
# that timed out a command: hang; a panic: crash; exit 0: silently
# accepted; otherwise misleading). TestBadInputEveryFlag counts the
# command lines it logs. Tests that need an RDMA device skip on a host
# without one and are listed as skipped.
#
# usage: scripts/diag/fault-tally.sh [OUT.tsv]
#   The per-case lines go to OUT.tsv (default .build/fault-tally.tsv), the
#   summary to standard output. Takes about 5 minutes on 2 cores.
set -euo pipefail
root=$(git rev-parse --show-toplevel 2>/dev/null || pwd)
cd "$root"
mkdir -p .build
out=${1:-.build/fault-tally.tsv}
views=$(mktemp)
log=$(mktemp)
trap 'rm -f "$views" "$log"' EXIT

# The suites: the bad-input ones, the fault ones, then the new ones.
badinput='^(TestBadInput|TestBadInputEveryFlag|TestEmptyTokenKeepsEnv|TestTCPRefusesRDMAFlags|TestCompareBadInput|TestPlotBadInput|TestReportBadInput|TestFabricBadInput|TestParameterMismatchRefused|TestParseRefusals|TestShortRepeatRefused|TestLoad.*|TestMeasuredRefusals|TestOtherDocumentsNamed)$'
faults='^(TestConnectRefused|TestPeerKilledMidRun|TestStoppedPeer|TestSignalEndsAnyWait|TestBusyServerKeepsItsRun|TestCraftedHelloRefused|TestSilentConnectionsDoNotStarve|TestReportIntervalMinimum|TestInterruptTCP|TestHangupAndTerm|TestInterruptRDMA|TestFabricInterrupted|TestFabricRankKilled|TestFabricRendezvousFailures|TestOneShotServerInterrupted|TestOneShotServerSurvivesMismatch|TestFlood.*|TestJunkFlood.*)$'
new='^(TestNoGreen.*|TestCompareSignals|TestPlotSignals|TestReportSignals|TestScaleLabelledDirectories|TestReadStopsOnContext|TestEachStopsOnContext|TestPipelinesStopOnContext|TestWriteAllStopsOnContext)$'
status=0
RDMA_BENCH_TALLY=$views nice -n 19 go test -json -count=1 -p 1 -timeout 30m \
	-run "$badinput|$faults|$new" ./cmd/rdma-bench ./pkg/results ./pkg/document ./internal/infile ./pkg/analysis ./pkg/plot >"$log" || status=$?

python3 - "$log" "$views" "$out" "$badinput" "$faults" "$new" <<'PY'
import collections, json, re, sys
log, views, out, badinput, faults, new = sys.argv[1:]
suites = [("bad input", re.compile(badinput)), ("faults", re.compile(faults)), ("new", re.compile(new))]
events = [json.loads(l) for l in open(log) if l.startswith("{")]
output = collections.defaultdict(list)
result = {}
for e in events:
    if "Test" not in e:
        continue
    key = (e["Package"], e["Test"])
    if e["Action"] == "output":
        output[key].append(e["Output"])
    elif e["Action"] in ("pass", "fail", "skip"):
        result[key] = e["Action"]
parents = {(p, t.rsplit("/", 1)[0]) for p, t in result if "/" in t}
rows = []  # suite, case, view, outcome, detail
judged = set()
for line in open(views):
    case, view, outcome, detail = (line.rstrip("\n").split("\t") + [""] * 4)[:4]
    rows.append(("new", case, view, outcome, detail))
    judged.add(case)
def suite_of(test):
    top = test.split("/")[0]
    for name, rx in suites:
        if rx.match(top):
            return name
    return "?"
for (pkg, test), action in sorted(result.items()):
    if (pkg, test) in parents or test.split("/")[0].startswith("TestNoGreen"):
        continue  # a parent of subtests, or judged view by view above
    text = "".join(output[(pkg, test)])
    n = 1
    if test == "TestBadInputEveryFlag":
        m = re.search(r"(\d+) bad command lines refused", text)
        n = int(m.group(1)) if m else 1
    if action == "skip":
        outcome = "skipped"
    elif action == "pass":
        outcome = "clean"
    elif re.search(r"still running|did not finish|no end within|not finish within", text):
        outcome = "hang"
    elif "panic:" in text:
        outcome = "crash"
    elif re.search(r"exit 0\b|succeeded", text):
        outcome = "silently accepted"
    else:
        outcome = "misleading"
    for i in range(n):
        rows.append((suite_of(test), pkg.rsplit("/", 1)[-1] + " " + test, "", outcome, ""))
with open(out, "w") as f:
    for r in rows:
        f.write("\t".join(r) + "\n")
classes = ["clean", "silently accepted", "hang", "crash", "misleading", "data lost"]
print("%-10s %6s %6s %8s %5s %6s %11s %10s %8s" % ("suite", "tried", "clean", "silent", "hang", "crash", "misleading", "data lost", "skipped"))
total = collections.Counter()
for name in ["bad input", "faults", "new"]:
    c = collections.Counter(r[3] for r in rows if r[0] == name)
    tried = sum(v for k, v in c.items() if k != "skipped")
    total.update(c)
    print("%-10s %6d %6d %8d %5d %6d %11d %10d %8d" % (name, tried, c["clean"], c["silently accepted"], c["hang"], c["crash"], c["misleading"], c["data lost"], c["skipped"]))
tried = sum(v for k, v in total.items() if k != "skipped")
print("%-10s %6d %6d %8d %5d %6d %11d %10d %8d" % ("all", tried, total["clean"], total["silently accepted"], total["hang"], total["crash"], total["misleading"], total["data lost"], total["skipped"]))
print("clean: %.1f%% of %d tried" % (100.0 * total["clean"] / max(tried, 1), tried))
cases = collections.Counter(r[1] for r in rows if r[0] == "new" and r[1] in judged)
print("fault-injection cases judged view by view: %d cases, %d views" % (len(cases), sum(cases.values())))
for r in rows:
    if r[3] not in ("clean", "skipped"):
        print("NOT CLEAN: %s | %s | %s | %s | %s" % r)
PY
exit "$status"
