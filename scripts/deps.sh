#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages rdma-bench builds and tests with,
# when any is missing: rdma-core's development files for cgo, and the tools
# of the soft-RoCE VM harness (vm/run.sh installs its own on first use).
set -euo pipefail
need=()
[ -f /usr/include/infiniband/verbs.h ] || need+=(libibverbs-dev)
[ -f /usr/include/rdma/rdma_cma.h ] || need+=(librdmacm-dev)
dpkg -s ibverbs-providers >/dev/null 2>&1 || need+=(ibverbs-providers)
[ ${#need[@]} -eq 0 ] && exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
echo "installing ${need[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
