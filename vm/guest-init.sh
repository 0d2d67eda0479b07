#!/bin/bash
# Stage 2 of the soft-RoCE test VM: PID 1 after switch_root into the host's
# root (read-only 9p + tmpfs overlay). vm/run.sh copies this file into the
# per-run directory, which the guest sees at /run/rdma-bench-vm.
#
# It brings up lo, creates the soft-RoCE device rxe0 on lo (RoCE v2 GID
# ::ffff:127.0.0.1) or, with netdev=dummy0 in the run's config, on a dummy
# interface with the link-local address 169.254.77.1/16 (rdma_cm cannot
# resolve routes to 127.0.0.1), runs the caller's command (cmd.sh, written by vm/run.sh)
# with stdout and stderr on two virtio serial ports that QEMU writes to host
# files, stores the exit code in the run directory and powers off.
#
# PID 1 must never exit (that would panic the kernel): no set -e here, and
# every path ends in poweroff.

run=/run/rdma-bench-vm
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
rxe_name=rxe0
rxe_netdev=lo
rxe=yes
work=''
while IFS='=' read -r key value; do
	[[ $key == work ]] && work=$value
	[[ $key == netdev ]] && rxe_netdev=$value
	[[ $key == rxe ]] && rxe=$value
done <"$run/config"

# log MSG notes a step in the kernel log (shown with RDMA_BENCH_VM_VERBOSE=1).
log() {
	echo "<6>rdma-bench-vm: $*" >/dev/kmsg
}

poweroff_now() {
	sync
	/bin/busybox poweroff -f
	sleep 60
}

# virtio_port NAME prints the device node of the virtio serial port NAME.
virtio_port() {
	local f
	for f in /sys/class/virtio-ports/*/name; do
		if [[ -r $f && $(<"$f") == "$1" ]]; then
			f=${f%/name}
			echo "/dev/${f##*/}"
			return 0
		fi
	done
	return 1
}

# finish RC stores the exit code for vm/run.sh, then powers off.
finish() {
	echo "$1" >"$run/rc.tmp" && mv "$run/rc.tmp" "$run/rc"
	log "powering off"
	poweroff_now
}

# A virtio port can be open only once: fds 3 and 4 hold the caller's stdout
# and stderr for good, and setup errors go to the caller's stderr too.
out=$(virtio_port rb.stdout) || out=/dev/console
err=$(virtio_port rb.stderr) || err=/dev/console
exec 3>"$out" 4>"$err" 2>&4

# fail MSG reports a setup failure on the caller's stderr: exit code 125.
fail() {
	echo "vm/run.sh (guest): $*" >&2
	finish 125
}

mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts 2>/dev/null
mount -t tmpfs -o mode=1777 tmpfs /dev/shm 2>/dev/null
hostname rdma-bench-vm 2>/dev/null

log "stage 2 started"
ip link set lo up || fail "ip link set lo up failed"
if [[ $rxe_netdev == dummy0 ]]; then
	{ ip link add dummy0 type dummy && ip addr add 169.254.77.1/16 dev dummy0 &&
		ip link set dummy0 up; } || fail "creating dummy0 failed"
fi
# no_rxe makes the guest a host whose kernel lacks rdma_rxe: the module
# tree becomes writable (an overlay), rdma_rxe leaves it, and the headers
# the host has for this kernel are its build directory, as a headers
# package makes it.
no_rxe() {
	local m
	m=/lib/modules/$(uname -r)
	mkdir -p /tmp/rb-modules/upper /tmp/rb-modules/work
	mount -t overlay -o "lowerdir=$m,upperdir=/tmp/rb-modules/upper,workdir=/tmp/rb-modules/work" overlay "$m" ||
		fail "making $m writable failed"
	find "$m" -name 'rdma_rxe.ko*' -delete
	depmod || fail "depmod failed"
	! modprobe -n rdma_rxe 2>/dev/null || fail "rdma_rxe is still there after its removal"
	if [[ -d /usr/src/linux-headers-$(uname -r) ]]; then
		rm -f "$m/build"
		ln -s "/usr/src/linux-headers-$(uname -r)" "$m/build"
	fi
	log "rdma_rxe removed from the module tree"
}

if [[ $rxe == none ]]; then
	no_rxe
else
	modprobe rdma_rxe || fail "modprobe rdma_rxe failed"
	log "rdma_rxe loaded"
	rdma link add "$rxe_name" type rxe netdev "$rxe_netdev" ||
		fail "rdma link add $rxe_name type rxe netdev $rxe_netdev failed"
	state=/sys/class/infiniband/$rxe_name/ports/1/state
	for _ in $(seq 50); do
		[[ $(<"$state") == *ACTIVE* ]] && break
		sleep 0.1
	done
	[[ $(<"$state") == *ACTIVE* ]] || fail "$rxe_name port 1 is not active: $(<"$state")"
fi

ulimit -l unlimited || fail "ulimit -l unlimited failed"

# The work tree is 9p without a page cache (what the guest writes reaches
# the host at once), so a binary started from there pages itself in over 9p
# at every start: under TCG, rdma-bench version took 1.5-3.2 s from the work
# tree and 0.45 s from tmpfs (2026-12-02), and the tests start hundreds of
# rdma-bench processes. The rdma-bench binaries the host built before the
# boot run from tmpfs copies bind-mounted over their own paths (up to
# 400 MB of them); rebuilding one inside the guest would fail (EBUSY).
in_memory() {
	local f total=0 size
	mkdir -p /tmp/rb-bin || return
	{ find "$work" -maxdepth 1 -name 'rdma-bench*' -type f -perm -u+x
		find "$work/.build" -maxdepth 3 -name 'rdma-bench*' -type f -perm -u+x; } >/tmp/rb-bin/list 2>/dev/null
	while IFS= read -r f; do
		[[ $(head -c 4 "$f" 2>/dev/null | od -An -c | tr -d ' ') == '177ELF' ]] || continue
		size=$(stat -c %s "$f") || continue
		((total + size <= 400 << 20)) || break
		local copy
		copy=$(mktemp /tmp/rb-bin/bin.XXXXXX) && cp "$f" "$copy" && chmod 0755 "$copy" &&
			mount --bind "$copy" "$f" && total=$((total + size))
	done </tmp/rb-bin/list
	log "run from memory: $((total >> 20)) MB of rdma-bench binaries"
}
[[ -n $work && -d $work ]] && in_memory

log "running the command"
/bin/bash "$run/cmd.sh" </dev/null >&3 2>&4 3>&- 4>&-
rc=$?
log "the command exited with $rc"
finish "$rc"
