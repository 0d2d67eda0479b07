#!/usr/bin/env bash
# scripts/ci/soft-roce.sh: stand soft-RoCE up on a CI runner, the step
# docs/ci.md's workflows run (as root), rehearsed in the project's VM by
# scripts/ci/rehearse-runner.sh.
#
# usage: scripts/ci/soft-roce.sh [--packages] [--unload-nic-rdma] [--netdev IFACE]
#                                [--cache DIR] [--bin RDMA_BENCH]
#
#   --packages         apt-get install rdma-core and the verbs libraries, and
#                      on Ubuntu enable deb-src and install
#                      linux-modules-extra-$(uname -r) where it exists
#   --unload-nic-rdma  unload the runner's own RDMA drivers (mana_ib, mlx5_ib),
#                      so that the soft-RoCE device is the only one; the
#                      network stays up on their netdev drivers
#   --netdev IFACE     the interface to attach rxe0 to (default: the default
#                      route's)
#   --cache DIR        passed to scripts/ci/rxe-module.sh
#   --bin PATH         the rdma-bench binary (default ./rdma-bench)
#
# Then: rdma_rxe from the kernel's modules, else built by
# scripts/ci/rxe-module.sh --install --load; rdma-bench softroce up; and
# rdma-bench devices. Exit status: 0 up, 1 a step failed, 2 bad usage.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
packages=0 unload=0 netdev='' cache=() bin=./rdma-bench
die() {
	echo "soft-roce: $*" >&2
	exit 1
}
while (($# > 0)); do
	case $1 in
	--packages) packages=1 && shift ;;
	--unload-nic-rdma) unload=1 && shift ;;
	--netdev | --cache | --bin)
		(($# > 1)) || { echo "soft-roce: $1 needs a value" >&2 && exit 2; }
		case $1 in
		--netdev) netdev=$2 ;;
		--cache) cache=(--cache "$2") ;;
		--bin) bin=$2 ;;
		esac
		shift 2
		;;
	*) echo "soft-roce: unknown argument '$1'" >&2 && exit 2 ;;
	esac
done
((EUID == 0)) || die "needs root (modules, devices): run with sudo"
[[ -x $bin ]] || die "no rdma-bench at $bin: make build, or --bin PATH"

if ((packages)); then
	# Ubuntu: rxe-module.sh needs the kernel's source package (deb-src) and
	# filterdiff; Debian's linux-source-X.Y is a binary package.
	# 24.04 lists its sources in ubuntu.sources, 22.04 in sources.list with
	# the deb-src lines commented out.
	# shellcheck source=/dev/null
	if [[ $(. /etc/os-release && echo "$ID") == ubuntu ]]; then
		if [[ -f /etc/apt/sources.list.d/ubuntu.sources ]]; then
			sed -i 's/^Types: deb$/Types: deb deb-src/' /etc/apt/sources.list.d/ubuntu.sources
		elif [[ -f /etc/apt/sources.list ]]; then
			sed -i 's/^# *deb-src /deb-src /' /etc/apt/sources.list
		fi
	fi
	apt-get -q update >/dev/null
	apt-get -q install -y --no-install-recommends rdma-core ibverbs-providers ibverbs-utils \
		libibverbs-dev librdmacm-dev patchutils >/dev/null || die "installing rdma-core failed"
	# Ubuntu's extra modules have rdma_rxe for some kernels, not for others.
	apt-get -q install -y "linux-modules-extra-$(uname -r)" >/dev/null 2>&1 ||
		echo "soft-roce: no linux-modules-extra-$(uname -r): rdma_rxe will be built" >&2
fi
"$here/rxe-module.sh" "${cache[@]}" --install --load
if ((unload)); then
	for m in mana_ib mlx5_ib; do
		if modprobe -r "$m" 2>/dev/null; then
			echo "soft-roce: unloaded $m (the runner's own RDMA device)" >&2
		fi
	done
fi
if [[ -z $netdev ]]; then
	netdev=$(ip -o -4 route show to default | awk '{ print $5; exit }')
	[[ -n $netdev ]] || die "no default route to take the interface from: give --netdev IFACE"
fi
"$bin" softroce up --netdev "$netdev"
"$bin" devices
