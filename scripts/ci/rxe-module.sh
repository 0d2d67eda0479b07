#!/usr/bin/env bash
# scripts/ci/rxe-module.sh: build the soft-RoCE module (rdma_rxe) out of tree
# for a kernel whose distribution left it out (a hosted CI runner's), from
# that kernel's own distribution source and headers; optionally install and
# load it.
#
# usage: scripts/ci/rxe-module.sh [--kernel VER] [--cache DIR] [--source DIR]
#                                 [--install] [--load] [--force]
#
#   --kernel VER  the kernel to build for (default: the running one, uname -r)
#   --cache DIR   where the sources and the built module are kept per kernel
#                 (default ${XDG_CACHE_HOME:-$HOME/.cache}/rdma-bench-rxe); a
#                 second run reuses them, and says so
#   --source DIR  build from this drivers/infiniband/sw/rxe directory instead
#                 of the distribution's source
#   --install     copy the module into /lib/modules/VER/updates and run depmod
#   --load        then modprobe rdma_rxe and rdma_ucm (the running kernel only)
#   --force       build even if the kernel already has rdma_rxe
#
# Steps, each of which names what is missing and what to run when it fails:
#  1. the headers: /lib/modules/VER/build or /usr/src/linux-headers-VER; as
#     root, installs linux-headers-VER when missing;
#  2. the source of drivers/infiniband/sw/rxe at the kernel's exact version:
#     Debian: the binary package linux-source-X.Y of the headers' version
#     (the patched tree; no deb-src needed); Ubuntu: the source package of
#     linux-modules-VER (deb-src must be enabled), its upstream tarball with
#     the distribution diff's part for rxe applied;
#  3. the build: the directory's Makefile as a Kbuild with CONFIG_RDMA_RXE
#     forced to m, make -C HEADERS M=DIR modules; a failure prints the
#     compiler's last lines;
#  4. --install and --load.
# Nothing is left half done: temporary files go, a module is installed only
# once built, and an install whose depmod fails is taken back.
#
# Exit status: 0 done (or nothing to do: rdma_rxe already there), 1 a step
# failed, 2 bad usage.
set -euo pipefail

kver='' cache=${XDG_CACHE_HOME:-$HOME/.cache}/rdma-bench-rxe source=''
install=0 load=0 force=0

die() {
	echo "rxe-module: $*" >&2
	exit 1
}
usage_error() {
	echo "rxe-module: $*" >&2
	echo "usage: scripts/ci/rxe-module.sh [--kernel VER] [--cache DIR] [--source DIR] [--install] [--load] [--force]" >&2
	exit 2
}
note() { echo "rxe-module: $*" >&2; }

while (($# > 0)); do
	case $1 in
	--kernel | --cache | --source)
		(($# > 1)) || usage_error "$1 needs a value"
		case $1 in
		--kernel) kver=$2 ;;
		--cache) cache=$2 ;;
		--source) source=$2 ;;
		esac
		shift 2
		;;
	--install) install=1 && shift ;;
	--load) load=1 install=1 && shift ;;
	--force) force=1 && shift ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' && exit 0 ;;
	*) usage_error "unknown argument '$1'" ;;
	esac
done

running=$(uname -r)
kver=${kver:-$running}
# Debian's 6.1.0-56-amd64, Ubuntu's 6.8.0-1021-azure: release-ABI-flavour.
[[ $kver =~ ^([0-9]+)\.([0-9]+)\.[0-9]+-[0-9]+-[a-z0-9][a-z0-9-]*$ ]] ||
	usage_error "--kernel $kver: not a Debian or Ubuntu kernel release (such as 6.1.0-56-amd64 or 6.8.0-1021-azure)"
series=${BASH_REMATCH[1]}.${BASH_REMATCH[2]}
if ((load)) && [[ $kver != "$running" ]]; then
	usage_error "--load loads into the running kernel $running, not $kver: drop --load, or --kernel"
fi
if ((install)) && ((EUID != 0)); then
	die "--install and --load need root (they write /lib/modules/$kver and load modules): run with sudo"
fi

# Already there: loaded, or loadable for the running kernel.
if ((!force)) && [[ $kver == "$running" ]]; then
	if [[ -d /sys/module/rdma_rxe ]]; then
		note "rdma_rxe is already loaded in kernel $kver: nothing to do (--force builds anyway)"
		((load)) && { modprobe rdma_ucm || die "modprobe rdma_ucm failed"; }
		exit 0
	fi
	if modprobe -n rdma_rxe 2>/dev/null; then
		note "kernel $kver already has rdma_rxe: nothing to build (--force builds anyway)"
		if ((load)); then
			modprobe rdma_rxe || die "modprobe rdma_rxe failed"
			modprobe rdma_ucm || die "modprobe rdma_ucm failed"
		fi
		exit 0
	fi
fi

distro=$(. /etc/os-release 2>/dev/null && echo "${ID:-}")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rxe-module.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# apt_do runs apt-get quietly, its output kept: on failure the last lines
# are shown with what was asked.
apt_do() {
	local what=$1
	shift
	if ! apt-get -q "$@" >"$tmp/apt.log" 2>&1; then
		tail -n 8 "$tmp/apt.log" >&2
		if grep -qE "Temporary failure resolving|Could not resolve|Failed to fetch|Network is unreachable" "$tmp/apt.log"; then
			die "$what: apt-get could not reach the archive (no network?)"
		fi
		die "$what: apt-get $* failed"
	fi
}

# 1. The headers.
headers=''
for d in "/lib/modules/$kver/build" "/usr/src/linux-headers-$kver"; do
	[[ -f $d/Makefile ]] && headers=$d && break
done
if [[ -z $headers ]]; then
	((EUID == 0)) || die "no headers for kernel $kver (no /lib/modules/$kver/build): install linux-headers-$kver as root, or run this as root"
	apt-cache show "linux-headers-$kver" >/dev/null 2>&1 ||
		die "no headers for kernel $kver: the archive has no package linux-headers-$kver (apt-get update? a kernel the archive no longer carries?)"
	note "installing linux-headers-$kver"
	apt_do "installing linux-headers-$kver" install -y --no-install-recommends "linux-headers-$kver"
	headers=/usr/src/linux-headers-$kver
	[[ -f $headers/Makefile ]] || die "linux-headers-$kver installed no $headers"
fi
hver=$(dpkg-query -W -f '${Version}' "linux-headers-$kver" 2>/dev/null || true)

# 2. The source, cached per kernel.
kcache=$cache/$kver
ko=$kcache/rdma_rxe.ko
mkdir -p "$kcache"
if [[ -n $source ]]; then
	[[ -f $source/Makefile && -f $source/rxe.c ]] || die "--source $source: not a drivers/infiniband/sw/rxe directory (no Makefile and rxe.c)"
	rm -f "$ko"
	cp -r "$source" "$tmp/rxe"
elif [[ -f $ko && $force == 0 ]]; then
	note "reusing the module built before for $kver: $ko"
else
	if [[ -d $kcache/rxe ]]; then
		note "reusing the rxe source kept for $kver in $kcache/rxe"
	else
		[[ -n $hver ]] || die "cannot tell the version of linux-headers-$kver (dpkg-query): install it from the archive"
		case $distro in
		debian)
			pkg=linux-source-$series
			note "fetching $pkg $hver (the patched source of $kver)"
			# The exact version, else the archive's other revisions of the
			# same upstream release (a superseded one leaves the archive).
			if ! (cd "$tmp" && apt-get -q download "$pkg=$hver" >"$tmp/apt.log" 2>&1); then
				alt=$(apt-cache madison "$pkg" 2>/dev/null | awk -v up="${hver%-*}" '$3 ~ "^"up"-" { print $3; exit }')
				[[ -n $alt ]] || { tail -n 8 "$tmp/apt.log" >&2; die "no $pkg $hver (nor another revision of ${hver%-*}) in the archive: apt-get update, or give --source DIR"; }
				note "$pkg $hver is not in the archive: taking $alt, the same upstream release"
				(cd "$tmp" && apt_do "downloading $pkg=$alt" download "$pkg=$alt")
			fi
			deb=$(ls "$tmp"/linux-source-*.deb)
			dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/src/linux-source-$series.tar.xz" |
				tar -xJ -C "$tmp" --wildcards "linux-source-$series/drivers/infiniband/sw/rxe/*" ||
				die "unpacking drivers/infiniband/sw/rxe from $pkg $hver failed"
			rm -f "$deb"
			mv "$tmp/linux-source-$series/drivers/infiniband/sw/rxe" "$tmp/src"
			;;
		ubuntu)
			grep -rqsE '^(Types:.*deb-src|deb-src )' /etc/apt/sources.list /etc/apt/sources.list.d/ ||
				die "no deb-src in the apt sources: enable them (sed -i 's/^Types: deb\$/Types: deb deb-src/' /etc/apt/sources.list.d/ubuntu.sources; apt-get update)"
			command -v filterdiff >/dev/null || die "no filterdiff: apt-get install patchutils"
			note "fetching the source of linux-modules-$kver"
			mver=$(dpkg-query -W -f '${Version}' "linux-modules-$kver" 2>/dev/null || true)
			(cd "$tmp" && { apt-get -q source --download-only "linux-modules-$kver${mver:+=$mver}" >"$tmp/apt.log" 2>&1 ||
				apt_do "downloading the source of linux-modules-$kver" source --download-only "linux-modules-$kver"; })
			mkdir -p "$tmp/tree"
			tar -xf "$tmp"/*.orig.tar.* -C "$tmp/tree" --wildcards --strip-components=1 '*/drivers/infiniband/sw/rxe/*' ||
				die "unpacking drivers/infiniband/sw/rxe from the upstream tarball failed"
			if ls "$tmp"/*.diff.gz >/dev/null 2>&1; then
				zcat "$tmp"/*.diff.gz | filterdiff -p1 -i 'drivers/infiniband/sw/rxe/*' | (cd "$tmp/tree" && patch -s -p1 --forward) ||
					die "applying the distribution's changes to drivers/infiniband/sw/rxe failed"
			fi
			mv "$tmp/tree/drivers/infiniband/sw/rxe" "$tmp/src"
			;;
		*) die "distribution '${distro:-unknown}' (/etc/os-release): only Debian and Ubuntu are known; give the rxe directory of your kernel's source with --source DIR" ;;
		esac
		rm -rf "$kcache/rxe"
		cp -r "$tmp/src" "$kcache/rxe"
	fi
	cp -r "$kcache/rxe" "$tmp/rxe"
fi

# 3. The build.
if [[ -d $tmp/rxe ]]; then
	mv "$tmp/rxe/Makefile" "$tmp/rxe/Kbuild"
	# shellcheck disable=SC2016 # the Makefile's own $(CONFIG_RDMA_RXE)
	sed -i 's/\$(CONFIG_RDMA_RXE)/m/g' "$tmp/rxe/Kbuild"
	note "building rdma_rxe for $kver against $headers"
	if ! make -C "$headers" M="$tmp/rxe" -j"$(nproc)" modules >"$tmp/build.log" 2>&1; then
		echo "rxe-module: the build failed; its last lines:" >&2
		tail -n 20 "$tmp/build.log" >&2
		die "building rdma_rxe for $kver failed (make -C $headers M=... modules)"
	fi
	cp "$tmp/rxe/rdma_rxe.ko" "$ko.tmp" && mv "$ko.tmp" "$ko"
	note "built $ko"
fi

# 4. Install and load.
if ((install)); then
	dest=/lib/modules/$kver/updates/rdma_rxe.ko
	mkdir -p "${dest%/*}"
	cp "$ko" "$dest"
	if ! depmod "$kver"; then
		rm -f "$dest"
		depmod "$kver" || true
		die "depmod $kver failed: $dest taken back"
	fi
	note "installed $dest"
fi
if ((load)); then
	modprobe rdma_rxe || die "modprobe rdma_rxe failed (dmesg says why)"
	modprobe rdma_ucm || die "modprobe rdma_ucm failed"
	note "rdma_rxe and rdma_ucm loaded: attach a device with rdma-bench softroce up"
fi
echo "$ko"
