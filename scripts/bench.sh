#!/usr/bin/env bash
# The main job: `rdma-bench suite`, RDMA write/read/send latency and
# bandwidth against the TCP baseline at sizes 2 B to 1 MiB, side by side,
# on the first RDMA device, or on soft-RoCE in the QEMU VM when this host
# has none. The JSON document is saved under results/.
# Extra arguments go to `rdma-bench suite` (e.g. --sizes 64,4K -D 2).
set -euo pipefail
root=$(git rev-parse --show-toplevel 2>/dev/null || pwd)
cd "$root"
[ -x ./rdma-bench ] || go build -o rdma-bench ./cmd/rdma-bench
cmd=(./rdma-bench suite --loopback --save "$@")
if [ -n "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
	"${cmd[@]}"
else
	echo "bench: no RDMA device on this host: running the suite on soft-RoCE in a QEMU VM (software-emulated: compare rows, not absolute figures)" >&2
	vm/run.sh -- "${cmd[@]}"
fi
