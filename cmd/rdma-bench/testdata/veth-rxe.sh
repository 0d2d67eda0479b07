#!/usr/bin/env bash
# veth-rxe.sh up|down: two soft-RoCE devices, rxea on veth0 (10.0.0.1) and
# rxeb on veth1 (10.0.0.2), with policy routing that sends traffic between
# the two local addresses out of the veths instead of delivering it
# locally, so that it passes their qdiscs (rxe's own loopback, one device
# talking to itself, never reaches a qdisc: docs/counters.md). rxe 6.1
# listens in the initial network namespace only, so both ends stay in it.
# For the accuracy tests, inside the VM (root).
set -euo pipefail
case "${1:-}" in
up)
	ip link add veth0 type veth peer name veth1
	sysctl -qw net.ipv6.conf.veth0.disable_ipv6=1 net.ipv6.conf.veth1.disable_ipv6=1
	ip addr add 10.0.0.1/24 dev veth0
	ip addr add 10.0.0.2/24 dev veth1
	ip link set veth0 up
	ip link set veth1 up
	for k in all default veth0 veth1; do
		sysctl -qw "net.ipv4.conf.$k.accept_local=1" "net.ipv4.conf.$k.rp_filter=0"
	done
	ip neigh replace 10.0.0.2 lladdr "$(cat /sys/class/net/veth1/address)" dev veth0 nud permanent
	ip neigh replace 10.0.0.1 lladdr "$(cat /sys/class/net/veth0/address)" dev veth1 nud permanent
	ip route add 10.0.0.2/32 dev veth0 src 10.0.0.1 table 100
	ip route add 10.0.0.1/32 dev veth1 src 10.0.0.2 table 100
	ip rule add pref 10 iif veth0 lookup local # arriving: deliver locally
	ip rule add pref 11 iif veth1 lookup local
	ip rule add pref 20 lookup 100 # leaving: out of the veth
	ip rule add pref 30 lookup local
	ip rule del pref 0
	rdma link add rxea type rxe netdev veth0
	rdma link add rxeb type rxe netdev veth1
	;;
down)
	rdma link delete rxea 2>/dev/null || true
	rdma link delete rxeb 2>/dev/null || true
	ip rule add pref 0 lookup local 2>/dev/null || true
	for p in 10 11 20 30; do ip rule del pref "$p" 2>/dev/null || true; done
	ip route flush table 100 2>/dev/null || true
	ip link del veth0 2>/dev/null || true
	;;
*)
	echo "usage: $0 up|down" >&2
	exit 2
	;;
esac
