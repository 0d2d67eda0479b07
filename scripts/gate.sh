#!/usr/bin/env bash
# scripts/gate.sh (make gate): `rdma-bench gate` on this host's RDMA device,
# or inside the project's QEMU VM on soft-RoCE (vm/run.sh) when this host
# has none. Every argument goes to rdma-bench gate (points, --base-bin,
# --candidate-args, --budget, ...: rdma-bench gate --help); the gate's
# document is saved under results/gate/ (the work tree, which the VM
# shares).
#
# Exit status: the gate's: 0 pass, 1 fail (a regression), 3 undecided,
# 2 bad input, 4 a measurement failed, 130 interrupted; vm/run.sh's own 124
# (timeout) and 125 (no VM). Through `make gate` every status but 0 becomes
# make's 2: a CI job that tells them apart calls this script.
set -euo pipefail
root=$(git rev-parse --show-toplevel 2>/dev/null || pwd)
cd "$root"
[ -x ./rdma-bench ] || make -s build
if [ -n "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
	exec ./rdma-bench gate "$@"
fi
echo "gate: no RDMA device on this host: measuring on soft-RoCE in a QEMU VM (software-emulated)" >&2
exec vm/run.sh -- ./rdma-bench gate "$@"
