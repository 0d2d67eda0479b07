#!/bin/sh
# Stage 1 of the soft-RoCE test VM: /init of the busybox initramfs that
# vm/run.sh builds (and caches) for one Debian kernel version.
#
# It loads the virtio/9p/overlay modules listed in /modules/order (already in
# dependency order), mounts the host's / read-only over virtio-9p with a tmpfs
# overlay on top, mounts the per-run directory (tag rbrun) at
# /run/rdma-bench-vm and the caller's work tree (tag work) at its host path,
# makes the kernel's modules visible at /lib/modules/$(uname -r), and
# switch_roots into stage 2 (vm/guest-init.sh, copied into the run dir).
#
# PID 1 must never exit: every failure path powers the VM off instead.
# shellcheck shell=sh

PATH=/bin
export PATH

die() {
	echo "rdma-bench-vm stage 1: $*" >/dev/console
	poweroff -f
	sleep 60
}

/bin/busybox --install -s /bin || die "busybox --install failed"
mkdir -p /proc /sys /dev /lower /rw /newroot
mount -t proc proc /proc || die "mount /proc failed"
mount -t sysfs sysfs /sys || die "mount /sys failed"
mount -t devtmpfs devtmpfs /dev || die "mount /dev failed"

while read -r ko args; do
	# shellcheck disable=SC2086 # module parameters are word-split on purpose
	insmod "/modules/$ko" $args || die "insmod $ko failed"
done </modules/order

echo "<6>rdma-bench-vm: stage 1 modules loaded" >/dev/kmsg
o9p=trans=virtio,version=9p2000.L,msize=512000
mount -t 9p -o "$o9p,ro,cache=loose" hostroot /lower || die "mount of the host's / over 9p failed"
mount -t tmpfs -o mode=0755 tmpfs /rw || die "mount tmpfs failed"
mkdir -p /rw/upper /rw/work
mount -t overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work overlay /newroot ||
	die "mount of the overlay root failed"

# Fresh /run and /tmp: nothing from the host's runtime state leaks in.
mount -t tmpfs -o mode=0755 tmpfs /newroot/run || die "mount /run failed"
mount -t tmpfs -o mode=1777 tmpfs /newroot/tmp || die "mount /tmp failed"
run=/newroot/run/rdma-bench-vm
mkdir -p "$run"
mount -t 9p -o "$o9p" rbrun "$run" || die "mount of the run directory failed"

# The run directory's config: one key=value per line, written by vm/run.sh.
work='' modules=''
while IFS='=' read -r key value; do
	case $key in
	work) work=$value ;;
	modules) modules=$value ;;
	esac
done <"$run/config"
if [ -z "$work" ] || [ -z "$modules" ]; then
	die "incomplete $run/config"
fi

mkdir -p "/newroot$work" || die "mkdir $work failed"
mount -t 9p -o "$o9p" work "/newroot$work" || die "mount of the work tree $work failed"

kver=$(uname -r)
mkdir -p "/newroot/lib/modules/$kver"
# From /lower: the cache may be under /tmp, which the fresh tmpfs hides.
mount -o bind "/lower$modules" "/newroot/lib/modules/$kver" ||
	die "bind mount of the kernel modules $modules failed"

for d in dev proc sys; do
	mount -o move "/$d" "/newroot/$d" || die "moving /$d failed"
done

echo "<6>rdma-bench-vm: stage 1 switching root" >/dev/kmsg
# shellcheck disable=SC2093 # exec only returns if switch_root cannot run
exec switch_root /newroot /bin/bash /run/rdma-bench-vm/guest-init.sh
die "switch_root failed"
