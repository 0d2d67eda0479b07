#!/bin/bash
# vm/run.sh: run a command inside a throwaway QEMU VM that has a soft-RoCE
# device, for hosts whose kernel has no RDMA (no rdma_rxe module).
#
# usage: vm/run.sh [--timeout SECONDS] [--] CMD [ARGS...]
#        vm/run.sh --prepare
#
# The VM boots Debian's own kernel (linux-image-amd64's current ABI, e.g.
# 6.1.0-56-amd64) under QEMU (TCG, -accel tcg -cpu max, or KVM where it works:
# RDMA_BENCH_VM_ACCEL below; -smp 2 -m 2G) through
# the PVH entry of the uncompressed vmlinux, with a busybox initramfs
# (vm/initramfs-init.sh) that mounts the host's / read-only over virtio-9p with
# a tmpfs overlay, so the guest runs the host's own binaries and libraries.
# The git work tree of the current directory (or $PWD outside git) is shared
# read-write at the same absolute path, so binaries and test binaries built on
# the host there run unchanged. The guest (vm/guest-init.sh) loads rdma_rxe,
# creates rxe0 on lo (RoCE v2 GID ::ffff:127.0.0.1, GID index 1), sets
# ulimit -l unlimited, runs the work tree's rdma-bench binaries from tmpfs
# copies bind-mounted over their paths (9p pages them in slowly at every
# start), and runs CMD in the caller's directory with
# RDMA_BENCH_REQUIRE_DEVICE=1, RDMA_BENCH_IN_VM=1, RDMA_BENCH_VM_NETDEV (lo)
# and RDMA_BENCH_VM_ADDR (the IPv4 address of rxe0's netdev), PATH plus
# /usr/local/go/bin, and the caller's RDMA_BENCH_*, GO*, CGO_*, HOME, USER,
# TERM, CI, LANG and LC_* variables. CMD's stdin is /dev/null.
#
# CMD's stdout and stderr stream back live (two virtio serial ports written to
# host files) and vm/run.sh exits with CMD's exit code. Its own exit codes:
#   124  the guest did not finish within --timeout (default 1200 s); QEMU killed
#   125  the VM could not be prepared, booted, or set up soft-RoCE
# Inside the VM already (RDMA_BENCH_IN_VM=1) it just runs CMD.
#
# --prepare installs the host packages and builds the cache, then exits; it
# also picks up a newer kernel from the archive (runs use the newest cached one).
# Everything downloaded or built is cached per kernel version in
# ${RDMA_BENCH_VM_CACHE:-$HOME/.cache/rdma-bench-vm} (about 400 MB).
#
# Environment:
#   RDMA_BENCH_VM_CACHE    cache directory (see above)
#   RDMA_BENCH_VM_KERNEL   kernel version to use instead of the archive's current
#   RDMA_BENCH_VM_TIMEOUT  default for --timeout
#   RDMA_BENCH_VM_NETDEV   lo (default) or dummy0: rxe0 on a dummy interface
#                          with 169.254.77.1/16 (GID index 1 too). rdma_cm
#                          (perftest -R) needs dummy0: it cannot resolve a
#                          route to 127.0.0.1 on lo.
#   RDMA_BENCH_VM_RXE      yes (default) or none: no rxe0, and rdma_rxe removed
#                          from the guest's module tree (a writable overlay,
#                          depmod run), as on a hosted runner whose kernel lacks
#                          it; /lib/modules/VER/build points at the host's
#                          /usr/src/linux-headers-VER when that exists
#   RDMA_BENCH_VM_VERBOSE  1: stream the kernel console to stderr, keep the run dir
#   RDMA_BENCH_VM_ACCEL    auto (default), kvm or tcg. auto takes KVM (-accel kvm
#                          -cpu host) where /dev/kvm opens read-write and the CPU
#                          flags show vmx or svm (hosted Linux runners offer
#                          it), TCG otherwise, and says which and why. KVM has
#                          never been tried by this project: the machine it is
#                          built on has a /dev/kvm without vmx/svm (kvm_pvm), on
#                          which Debian's kernel does not boot under KVM.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache_root=${RDMA_BENCH_VM_CACHE:-$HOME/.cache/rdma-bench-vm}
verbose=${RDMA_BENCH_VM_VERBOSE:-0}
timeout=${RDMA_BENCH_VM_TIMEOUT:-1200}
netdev=${RDMA_BENCH_VM_NETDEV:-lo}
rxe=${RDMA_BENCH_VM_RXE:-yes}

# Host packages: QEMU and the initramfs tools, plus what the guest runs (the
# guest uses the host's root file system, so these are its packages too).
host_packages=(qemu-system-x86 busybox-static kmod xz-utils cpio iproute2
	openmpi-bin mpich # the fabric tests' launchers: mpirun.openmpi, mpiexec.hydra
	ibverbs-providers ibverbs-utils perftest)
# Modules the initramfs needs to mount its root (dependencies are added).
initramfs_modules=(virtio_pci 9pnet_virtio 9p overlay virtio_console)

die() {
	echo "vm/run.sh: $*" >&2
	exit 125
}

# Temporary directories, QEMU and helper processes: removed and stopped on exit.
tmp_dirs=()
pids=()
keep_run=''
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	if [[ -n $keep_run ]]; then
		note "run directory kept: $keep_run"
	fi
	((${#tmp_dirs[@]} == 0)) || rm -rf "${tmp_dirs[@]}"
	return 0
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

note() {
	echo "vm/run.sh: $*" >&2
}

usage() {
	cat <<'EOF'
usage: vm/run.sh [--timeout SECONDS] [--] CMD [ARGS...]
       vm/run.sh --prepare
Runs CMD inside a QEMU VM with a soft-RoCE device rxe0 (on lo, RoCE v2 GID
index 1) and exits with its code; 124: timeout, 125: VM failure.
Environment: RDMA_BENCH_VM_CACHE, RDMA_BENCH_VM_KERNEL, RDMA_BENCH_VM_TIMEOUT,
RDMA_BENCH_VM_VERBOSE=1 (see the comment at the top of vm/run.sh).
EOF
}

as_root() {
	if ((EUID == 0)); then
		"$@"
	elif command -v sudo >/dev/null; then
		sudo "$@"
	else
		die "need root to run: $*"
	fi
}

# ensure_packages installs the missing host packages (apt-get update only then).
ensure_packages() {
	local p installed missing=()
	command -v dpkg-query >/dev/null || die "this script needs a Debian-based host (no dpkg-query)"
	installed=$(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' "${host_packages[@]}" 2>/dev/null || true)
	for p in "${host_packages[@]}"; do
		grep -qx "ii  *$p" <<<"$installed" || missing+=("$p")
	done
	((${#missing[@]} == 0)) && return 0
	note "installing ${missing[*]}"
	local log
	log=$(mktemp)
	if ! { as_root apt-get update -q &&
		as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
		cat "$log" >&2
		rm -f "$log"
		die "apt-get install ${missing[*]} failed"
	fi
	rm -f "$log"
}

# archive_kernel prints the kernel version linux-image-amd64 depends on.
archive_kernel() {
	apt-cache depends linux-image-amd64 2>/dev/null |
		awk '$1 ~ /Depends:$/ && $2 ~ /^linux-image-[0-9]/ { sub(/^linux-image-/, "", $2); print $2; exit }'
}

# cached_kernel prints the newest kernel version in the cache.
cached_kernel() {
	[[ -d $cache_root ]] || return 0
	find "$cache_root" -mindepth 2 -maxdepth 2 -name vmlinux -printf '%h\n' 2>/dev/null |
		xargs -r -n1 basename | sort -V | tail -n1
}

# pick_kernel sets kver: the override; else the newest cached kernel (apt-cache
# takes a second; --prepare asks it anyway, to pick up a newer kernel); else
# the archive's current one; else, offline, any cached one.
pick_kernel() {
	kver=${RDMA_BENCH_VM_KERNEL:-}
	[[ -n $kver ]] && return 0
	if ((!prepare_only)); then
		kver=$(cached_kernel)
		[[ -n $kver ]] && return 0
	fi
	kver=$(archive_kernel)
	[[ -n $kver ]] && return 0
	as_root apt-get update -q >/dev/null 2>&1 || true
	kver=$(archive_kernel)
	[[ -n $kver ]] && return 0
	kver=$(cached_kernel)
	[[ -n $kver ]] || die "cannot find the kernel package linux-image-amd64 depends on (apt-cache depends linux-image-amd64)"
}

# extract_vmlinux VMLINUZ OUT writes the uncompressed kernel inside a bzImage:
# it boots about twice as fast under TCG as the bzImage, which decompresses
# itself slowly there.
extract_vmlinux() {
	local setup_sects offset length magic
	[[ $(dd if="$1" bs=1 skip=$((0x202)) count=4 status=none) == HdrS ]] || die "$1 is not a bzImage"
	# Boot protocol header: setup_sects at 0x1f1, payload_offset and
	# payload_length (relative to the protected-mode code) at 0x248.
	setup_sects=$(($(od -An -tu1 -j $((0x1f1)) -N1 "$1")))
	((setup_sects != 0)) || setup_sects=4
	offset=$((($(od -An -tu4 -j $((0x248)) -N4 "$1")) + (setup_sects + 1) * 512))
	length=$(($(od -An -tu4 -j $((0x24c)) -N4 "$1")))
	dd if="$1" of="$2.payload" bs=1M iflag=skip_bytes,count_bytes skip="$offset" count="$length" status=none
	magic=$(od -An -tx1 -N4 "$2.payload" | tr -d ' \n')
	case $magic in # the payload ends in its 4-byte uncompressed size: ignore it
	fd377a58) xz -dcq --single-stream <"$2.payload" >"$2" ;;
	28b52ffd) zstd -dcq <"$2.payload" >"$2" ;;
	*) die "$1: unsupported kernel compression (magic $magic)" ;;
	esac
	rm -f "$2.payload"
	[[ $(od -An -c -N4 "$2" | tr -d ' \n') == '177ELF' ]] || die "$2 is not an ELF kernel"
}

# build_kernel_cache downloads and unpacks the kernel into $cache_root/$kver.
build_kernel_cache() {
	local tmp deb
	mkdir -p "$cache_root"
	tmp=$(mktemp -d "$cache_root/.build.XXXXXX")
	tmp_dirs+=("$tmp")
	note "downloading and unpacking linux-image-$kver (once; cached in $cache_root)"
	if ! (cd "$tmp" && apt-get download -q -o APT::Sandbox::User="$(id -un)" \
		"linux-image-$kver") >"$tmp/apt.log" 2>&1; then
		[[ -z ${RDMA_BENCH_VM_KERNEL:-} ]] || { cat "$tmp/apt.log" >&2; die "apt-get download linux-image-$kver failed"; }
		# The apt lists may name a kernel the archive no longer has.
		as_root apt-get update -q >/dev/null 2>&1 || true
		kver=$(archive_kernel)
		[[ -n $kver ]] || die "cannot resolve linux-image-amd64 after apt-get update"
		[[ -e $cache_root/$kver/vmlinux ]] && return 0
		(cd "$tmp" && apt-get download -q -o APT::Sandbox::User="$(id -un)" \
			"linux-image-$kver") >"$tmp/apt.log" 2>&1 ||
			{ cat "$tmp/apt.log" >&2; die "apt-get download linux-image-$kver failed"; }
	fi
	deb=$(echo "$tmp"/linux-image-*.deb)
	dpkg-deb -x "$deb" "$tmp/root"
	rm -f "$deb"
	[[ -d $tmp/root/lib/modules/$kver ]] || die "$deb has no lib/modules/$kver"
	depmod -b "$tmp/root" "$kver"
	extract_vmlinux "$tmp/root/boot/vmlinuz-$kver" "$tmp/vmlinux"
	cp "$tmp/root/boot/config-$kver" "$tmp/config"
	rm -rf "$tmp/root/boot" "$tmp/root/usr" "$tmp/apt.log"
	chmod 755 "$tmp"
	mv -T "$tmp" "$cache_root/$kver"
}

# build_initramfs sets initramfs to the cached busybox initramfs for $kver,
# built if missing; its name hashes its inputs, so edits rebuild it.
build_initramfs() {
	local kdir=$cache_root/$kver m line ko args order='' hash stage name
	declare -A seen=()
	for m in "${initramfs_modules[@]}"; do
		while read -r line; do
			[[ $line == insmod\ * ]] || continue # "builtin X": nothing to load
			read -r _ ko args <<<"$line"
			[[ -n ${seen[$ko]:-} ]] && continue
			seen[$ko]=1
			order+="$ko${args:+ $args}"$'\n'
		done < <(modprobe -d "$kdir/root" -S "$kver" --show-depends "$m")
	done
	[[ $order == *9p.ko* ]] || die "modprobe --show-depends found no 9p module for $kver"
	hash=$({ cat "$here/initramfs-init.sh"; echo "$order"; sha256sum </bin/busybox; } |
		sha256sum | cut -c1-16)
	initramfs=$kdir/initramfs-$hash.cpio
	[[ -e $initramfs ]] && return 0

	stage=$(mktemp -d)
	tmp_dirs+=("$stage")
	mkdir -p "$stage/bin" "$stage/modules"
	cp /bin/busybox "$stage/bin/busybox"
	ln -s busybox "$stage/bin/sh"
	install -m 755 "$here/initramfs-init.sh" "$stage/init"
	: >"$stage/modules/order"
	while read -r ko args; do
		[[ -n $ko ]] || continue
		name=$(basename "$ko")
		case $name in # busybox insmod takes plain .ko files
		*.ko.xz) xz -dc "$ko" >"$stage/modules/${name%.xz}" ;;
		*.ko.zst) zstd -dcq "$ko" >"$stage/modules/${name%.zst}" ;;
		*.ko.gz) gzip -dc "$ko" >"$stage/modules/${name%.gz}" ;;
		*) cp "$ko" "$stage/modules/$name" ;;
		esac
		echo "${name%.ko*}.ko${args:+ $args}" >>"$stage/modules/order"
	done <<<"$order"
	(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$initramfs.tmp"
	mv "$initramfs.tmp" "$initramfs"
	# Initramfs images of edited scripts: drop them once no run can still use them.
	find "$kdir" -maxdepth 1 -name 'initramfs-*.cpio' ! -name "${initramfs##*/}" -mmin +60 -delete
}

# prepare sets kver, kdir and initramfs, building whatever is not cached.
prepare() {
	local lock
	ensure_packages
	pick_kernel
	mkdir -p "$cache_root"
	exec {lock}>"$cache_root/.lock"
	flock "$lock" # concurrent runs wait for one builder
	[[ -e $cache_root/$kver/vmlinux ]] || build_kernel_cache
	kdir=$cache_root/$kver
	build_initramfs
	exec {lock}>&-
}

# qemu_path escapes a path for a QEMU option value (commas are doubled).
qemu_path() {
	printf '%s' "${1//,/,,}"
}

# write_cmd writes the script the guest runs: environment, cwd, then CMD.
write_cmd() {
	local name path=$PATH
	[[ :$path: == *:/usr/local/go/bin:* ]] || path+=:/usr/local/go/bin
	[[ :$path: == *:/usr/sbin:* ]] || path+=:/usr/sbin:/sbin
	{
		echo '# written by vm/run.sh: the command the guest runs'
		while read -r name; do
			case $name in
			RDMA_BENCH_* | GO* | CGO_* | HOME | USER | LOGNAME | TERM | CI | LANG | LC_*)
				printf 'export %s=%q\n' "$name" "${!name}"
				;;
			esac
		done < <(compgen -e)
		printf 'export PATH=%q RDMA_BENCH_REQUIRE_DEVICE=1 RDMA_BENCH_IN_VM=1\n' "$path"
		printf 'export RDMA_BENCH_VM_NETDEV=%s RDMA_BENCH_VM_ADDR=%s\n' "$netdev" "$addr"
		printf 'cd -- %q || exit 125\n' "$PWD"
		printf 'exec'
		printf ' %q' "$@"
		printf '\n'
	} >"$run/cmd.sh"
}

# --- arguments ---
prepare_only=0
while (($#)); do
	case $1 in
	--prepare) prepare_only=1 && shift ;;
	--timeout)
		(($# >= 2)) || { usage >&2 && exit 2; }
		timeout=$2 && shift 2
		;;
	--timeout=*) timeout=${1#*=} && shift ;;
	-h | --help) usage && exit 0 ;;
	--) shift && break ;;
	-*) echo "vm/run.sh: unknown option $1" >&2 && usage >&2 && exit 2 ;;
	*) break ;;
	esac
done
case $netdev in
lo) addr=127.0.0.1 ;;
dummy0) addr=169.254.77.1 ;;
*) echo "vm/run.sh: RDMA_BENCH_VM_NETDEV must be lo or dummy0, got '$netdev'" >&2 && exit 2 ;;
esac
[[ $rxe == yes || $rxe == none ]] || { echo "vm/run.sh: RDMA_BENCH_VM_RXE must be yes or none, got '$rxe'" >&2 && exit 2; }
[[ $timeout =~ ^[1-9][0-9]*$ ]] || { echo "vm/run.sh: --timeout wants a whole number of seconds, got '$timeout'" >&2 && exit 2; }
if ((prepare_only)); then
	(($# == 0)) || { usage >&2 && exit 2; }
	prepare
	echo "vm/run.sh: ready: kernel $kver, cache $kdir"
	exit 0
fi
(($# > 0)) || { usage >&2 && exit 2; }

if [[ ${RDMA_BENCH_IN_VM:-} == 1 ]]; then
	exec "$@" # already inside the VM
fi

prepare

# --- one run ---
work=$(git rev-parse --show-toplevel 2>/dev/null) || work=$PWD
work=$(realpath "$work")
modules=$(realpath "$kdir/root/lib/modules/$kver")
[[ $work$modules$PWD != *$'\n'* ]] || die "paths with newlines are not supported"
[[ $work != / ]] || die "cannot share / as the work tree: run from a project directory"

run=$(mktemp -d "${TMPDIR:-/tmp}/rdma-bench-vm.XXXXXX")
if [[ $verbose == 1 ]]; then
	keep_run=$run
else
	tmp_dirs+=("$run")
fi

cp "$here/guest-init.sh" "$run/guest-init.sh"
printf 'work=%s\nmodules=%s\nnetdev=%s\nrxe=%s\n' "$work" "$modules" "$netdev" "$rxe" >"$run/config"
write_cmd "$@"
: >"$run/stdout"
: >"$run/stderr"
: >"$run/console.log"

# pick_accel sets accel (QEMU's -accel and -cpu) and says which and why.
pick_accel() {
	local want=${RDMA_BENCH_VM_ACCEL:-auto} why
	case $want in
	tcg) accel=(-accel tcg -cpu max) why="RDMA_BENCH_VM_ACCEL=tcg" ;;
	kvm) accel=(-accel kvm -cpu host) why="RDMA_BENCH_VM_ACCEL=kvm" ;;
	auto)
		if [[ ! -e /dev/kvm ]]; then
			why="no /dev/kvm"
		elif ! { : <>/dev/kvm; } 2>/dev/null; then
			why="/dev/kvm cannot be opened read-write"
		elif ! grep -qwE 'vmx|svm' /proc/cpuinfo; then
			why="/dev/kvm is there but the CPU flags show neither vmx nor svm (a paravirtual KVM such as kvm_pvm, which Debian's kernel does not boot under)"
		else
			accel=(-accel kvm -cpu host)
			note "accelerator: KVM (/dev/kvm opens and the CPU has vmx or svm)"
			return
		fi
		accel=(-accel tcg -cpu max)
		;;
	*) die "RDMA_BENCH_VM_ACCEL=$want: want auto, kvm or tcg" ;;
	esac
	note "accelerator: ${accel[1]^^} ($why)"
}
pick_accel

append="console=ttyS0 panic=-1 rdinit=/init i8042.noaux i8042.nokbd i8042.nopnp"
[[ $verbose == 1 ]] || append+=" quiet"
# shellcheck disable=SC2054 # commas separate QEMU suboptions
qemu=(
	qemu-system-x86_64 -nodefaults -no-user-config -display none -no-reboot
	-machine pc "${accel[@]}" -smp 2 -m 2G
	-kernel "$kdir/vmlinux" -initrd "$initramfs" -append "$append"
	-chardev "file,id=con,append=on,path=$(qemu_path "$run/console.log")" -serial chardev:con
	-device virtio-serial-pci
	-chardev "file,id=out,append=on,path=$(qemu_path "$run/stdout")"
	-device virtserialport,chardev=out,name=rb.stdout
	-chardev "file,id=err,append=on,path=$(qemu_path "$run/stderr")"
	-device virtserialport,chardev=err,name=rb.stderr
	-fsdev "local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap"
	-device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot
	-fsdev "local,id=work,path=$(qemu_path "$work"),security_model=none,multidevs=remap"
	-device virtio-9p-pci,fsdev=work,mount_tag=work
	-fsdev "local,id=rbrun,path=$(qemu_path "$run"),security_model=none"
	-device virtio-9p-pci,fsdev=rbrun,mount_tag=rbrun
)
"${qemu[@]}" </dev/null >"$run/qemu.log" 2>&1 &
qpid=$!
pids+=("$qpid")
tails=()
tail -n +1 -s 0.1 -f --pid="$qpid" "$run/stdout" &
tails+=("$!")
tail -n +1 -s 0.1 -f --pid="$qpid" "$run/stderr" >&2 &
tails+=("$!")
if [[ $verbose == 1 ]]; then
	tail -n +1 -s 0.1 -f --pid="$qpid" "$run/console.log" >&2 &
	tails+=("$!")
fi
pids+=("${tails[@]}")
sleep "$timeout" &
spid=$!
pids+=("$spid")

finished=''
wait -n -p finished "$qpid" "$spid" || true
timed_out=0
if [[ $finished == "$spid" ]]; then
	timed_out=1
	kill "$qpid" 2>/dev/null || true
else
	kill "$spid" 2>/dev/null || true
fi
wait "$qpid" 2>/dev/null || true
wait "${tails[@]}" 2>/dev/null || true
pids=()

if [[ -s $run/rc ]]; then
	exit "$(<"$run/rc")"
fi
if ((timed_out)); then
	note "the guest did not finish within $timeout s (--timeout); killed QEMU. Console log tail:"
	tail -n 40 "$run/console.log" >&2
	exit 124
fi
note "the VM stopped without the command's exit code (boot failure?). Console log tail:"
tail -n 40 "$run/console.log" >&2
if [[ -s $run/qemu.log ]]; then
	note "QEMU said:"
	tail -n 20 "$run/qemu.log" >&2
fi
exit 125
