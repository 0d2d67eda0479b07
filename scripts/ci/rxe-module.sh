#!/usr/bin/env bash
# scripts/ci/rxe-module.sh: build the soft-RoCE module (rdma_rxe) out of tree
# for a kernel whose distribution left it out (a hosted CI runner's), from
# that kernel's own distribution source and headers; optionally install and
# load it.
#
# usage: scripts/ci/rxe-module.sh [--kernel VER] [--cache DIR] [--out DIR]
#                                 [--source DIR] [--install] [--modules-dir ROOT]
#                                 [--load] [--force]
#
#   --kernel VER        the kernel to build for (default: the running one,
#                       uname -r); Debian's 6.1.0-56-amd64 or
#                       6.12.38+deb13-amd64, Ubuntu's 6.8.0-1021-azure
#   --cache DIR         where the sources and the built module are kept per
#                       kernel (default ${XDG_CACHE_HOME:-$HOME/.cache}/rdma-bench-rxe);
#                       a second run reuses them, and says so
#   --out DIR           also copy the built rdma_rxe.ko into DIR
#   --source DIR        build from this drivers/infiniband/sw/rxe directory
#                       instead of the distribution's source (the result is
#                       kept apart, never reused as the distribution's)
#   --install           copy the module into /lib/modules/VER/updates and run
#                       depmod VER (needs root)
#   --modules-dir ROOT  install into ROOT/lib/modules/VER/updates instead and
#                       run depmod -b ROOT VER (another module tree, such as
#                       a VM's; root only if ROOT is not yours); implies
#                       --install
#   --load              then modprobe rdma_rxe and rdma_ucm (the running
#                       kernel only; implies --install)
#   --force             build afresh (source fetched again, module rebuilt)
#                       even if the kernel already has rdma_rxe or the cache
#                       holds it
#
# Steps, each of which names what is missing and what to run when it fails:
#  0. nothing to do when the kernel (or ROOT's tree) already has rdma_rxe;
#     a module built before for VER from the same headers is reused;
#  1. the headers: /lib/modules/VER/build or /usr/src/linux-headers-VER; as
#     root, installs linux-headers-VER when missing (on Debian it brings
#     linux-kbuild-X.Y and the kernel's gcc); their .config must have the
#     RDMA core (CONFIG_INFINIBAND_USER_ACCESS), and their upstream version
#     must be the kernel's (/proc/version for the running kernel, else the
#     linux-image-VER package's);
#  2. the source of drivers/infiniband/sw/rxe at the kernel's version, whose
#     top Makefile must name the headers' upstream version:
#     Debian: the binary package linux-source-X.Y of the kernel's version
#     (the patched tree; no deb-src needed), else another revision of the
#     same upstream release; Ubuntu: the source package of linux-modules-VER
#     (deb-src must be enabled), its upstream tarball with the part of the
#     distribution's diff for rxe (and the top Makefile) applied;
#  3. the build: the directory's Makefile as a Kbuild with CONFIG_RDMA_RXE
#     forced to m, make -C HEADERS M=DIR modules; a failure prints the
#     compiler's last 20 lines;
#  4. --install (depmod) and --load (modprobe rdma_rxe, rdma_ucm).
# Nothing is left half done: temporary files go, the cache is written only
# with whole results, and an install whose depmod or load fails (or is
# interrupted) is taken back, the module it replaced put back. Headers the
# script installed stay installed.
#
# Exit status: 0 done (or nothing to do: rdma_rxe already there), 1 a step
# failed, 2 bad usage (or a kernel release that is neither Debian's nor
# Ubuntu's).
set -euo pipefail

kver='' cache=${XDG_CACHE_HOME:-$HOME/.cache}/rdma-bench-rxe source='' out='' mroot=''
install=0 load=0 force=0
# For tests: another os-release file (the distribution's ID is read from it).
os_release=${RXE_MODULE_OS_RELEASE:-/etc/os-release}

die() {
	echo "rxe-module: $*" >&2
	exit 1
}
usage_error() {
	echo "rxe-module: $*" >&2
	echo "usage: scripts/ci/rxe-module.sh [--kernel VER] [--cache DIR] [--out DIR] [--source DIR] [--install] [--modules-dir ROOT] [--load] [--force]" >&2
	exit 2
}
note() { echo "rxe-module: $*" >&2; }

while (($# > 0)); do
	case $1 in
	--kernel | --cache | --source | --out | --modules-dir)
		if (($# < 2)) || [[ -z $2 ]]; then
			usage_error "$1 needs a value"
		fi
		case $1 in
		--kernel) kver=$2 ;;
		--cache) cache=$2 ;;
		--source) source=$2 ;;
		--out) out=$2 ;;
		--modules-dir) mroot=$2 install=1 ;;
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
# release-ABI-flavour: Debian's 6.1.0-56-amd64, Ubuntu's 6.8.0-1021-azure;
# Debian from 6.11 on: 6.12.38+deb13-amd64, backports 6.12.12+bpo-amd64.
[[ $kver =~ ^([0-9]+)\.([0-9]+)\.[0-9]+(-[0-9]+|\+deb[0-9]+(u[0-9]+)?|\+bpo)-[a-z0-9][a-z0-9-]*$ ]] ||
	usage_error "kernel $kver: not a Debian or Ubuntu kernel release (such as 6.1.0-56-amd64, 6.12.38+deb13-amd64 or 6.8.0-1021-azure); give --kernel VER, or build from your kernel's tree with --source DIR"
series=${BASH_REMATCH[1]}.${BASH_REMATCH[2]}
if ((load)) && [[ $kver != "$running" ]]; then
	usage_error "--load loads into the running kernel $running, not $kver: drop --load, or --kernel"
fi
if ((load)) && [[ -n $mroot ]]; then
	usage_error "--load loads from /lib/modules, not from --modules-dir $mroot: drop one"
fi
mdir=$mroot/lib/modules/$kver
if ((install)); then
	if [[ -n $mroot ]]; then
		[[ -d $mdir ]] || die "--modules-dir $mroot: no $mdir (the kernel's modules are not in that tree)"
		[[ -w $mdir ]] || die "--modules-dir $mroot: cannot write $mdir: run as root or as its owner"
	elif ((EUID != 0)); then
		die "--install and --load need root (they write /lib/modules/$kver and load modules): run with sudo"
	fi
fi

# 0. Already there: loaded, or loadable for the running kernel; in ROOT's
# tree, listed by its modules.dep.
if ((!force)); then
	if [[ -z $mroot && $kver == "$running" ]]; then
		if [[ -d /sys/module/rdma_rxe ]]; then
			note "rdma_rxe is already loaded in kernel $kver: nothing to do (--force builds anyway)"
			((load)) && { modprobe rdma_ucm || die "modprobe rdma_ucm failed (dmesg says why)"; }
			exit 0
		fi
		if modprobe -n rdma_rxe 2>/dev/null; then
			note "kernel $kver already has rdma_rxe ($(modinfo -F filename rdma_rxe 2>/dev/null)): nothing to build (--force builds anyway)"
			if ((load)); then
				modprobe rdma_rxe || die "modprobe rdma_rxe failed (dmesg says why)"
				modprobe rdma_ucm || die "modprobe rdma_ucm failed (dmesg says why)"
			fi
			exit 0
		fi
	elif [[ -n $mroot ]] && have=$(grep -oE '^[^:]*/rdma_rxe\.ko(\.[a-z]+)?:' "$mdir/modules.dep" 2>/dev/null); then
		note "$mdir already has rdma_rxe (${have%:}): nothing to do (--force installs anyway)"
		exit 0
	fi
fi

# shellcheck source=/dev/null
distro=$(. "$os_release" 2>/dev/null && echo "${ID:-}")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rxe-module.XXXXXX")
# An install in progress when the script stops is taken back (restore).
dest='' prev='' made_dir=0 installing=0
restore() {
	rm -f "$dest"
	if [[ -n $prev ]]; then
		cp -p "$prev" "$dest"
		note "the install was taken back: the former $dest put back"
	else
		if ((made_dir)); then
			rmdir "${dest%/*}" 2>/dev/null || true
		fi
		note "the install was taken back: $dest removed"
	fi
	depmod ${mroot:+-b "$mroot"} "$kver" || true
}
cleanup() {
	((installing)) && restore
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# apt_do runs apt-get quietly, its output kept: on failure the last lines
# are shown with what was asked.
apt_do() {
	local what=$1
	shift
	if ! apt-get -q "$@" >"$tmp/apt.log" 2>&1; then
		tail -n 8 "$tmp/apt.log" >&2
		if grep -qiE "Temporary failure resolving|Could not resolve|Could not connect|Network is unreachable|Connection (refused|timed out)|No route to host" "$tmp/apt.log"; then
			die "$what: apt-get could not reach the archive (no network? a proxy?): retry with network"
		fi
		die "$what: apt-get $* failed"
	fi
}
# version_of prints VERSION.PATCHLEVEL.SUBLEVEL of a kernel Makefile.
version_of() {
	awk -F' *= *' '$1 == "VERSION" { v = $2 } $1 == "PATCHLEVEL" { p = $2 } $1 == "SUBLEVEL" { s = $2 }
		END { if (v != "" && p != "" && s != "") print v "." p "." s }' "$1"
}

headers=''
for d in "/lib/modules/$kver/build" "/usr/src/linux-headers-$kver"; do
	[[ -f $d/Makefile ]] && headers=$d && break
done
hver=$(dpkg-query -W -f '${Version}' "linux-headers-$kver" 2>/dev/null || true)
# The kernel's package version (Debian's 6.1.192-2; Ubuntu's 6.8.0-51.52)
# and upstream version (6.1.192; Ubuntu's from /proc/version_signature).
kpkg='' kup=''
if [[ $kver == "$running" ]]; then
	if [[ -r /proc/version_signature ]]; then
		kup=$(awk '{ print $NF }' /proc/version_signature)
	elif kpkg=$(grep -oE 'Debian [0-9][^ ]*' /proc/version | tail -n 1) && [[ -n $kpkg ]]; then
		# The last one: the compiler's "(Debian 12.2.0-14)" comes first.
		kpkg=${kpkg#Debian }
	fi
fi
[[ -n $kpkg ]] || kpkg=$(dpkg-query -W -f '${Version}' "linux-image-$kver" 2>/dev/null || true)
[[ -n $kpkg ]] || kpkg=$(dpkg-query -W -f '${Version}' "linux-image-unsigned-$kver" 2>/dev/null || true)
[[ -n $kpkg ]] || kpkg=$hver
[[ -n $kup || $distro != debian || -z $kpkg ]] || kup=${kpkg%%-*}

kcache=$cache/$kver
ko=$kcache/rdma_rxe.ko
stamp="linux-headers-$kver ${hver:-unknown}"
# 0'. A module built before for this kernel from the same headers (or, where
# the headers' version cannot be told, as in a guest given the cache, one
# whose vermagic names the kernel).
reuse=0
if [[ -z $source && $force == 0 && -f $ko ]] &&
	[[ $(modinfo -F vermagic "$ko" 2>/dev/null | awk '{ print $1 }') == "$kver" ]] &&
	[[ -z $hver || $(cat "$ko.stamp" 2>/dev/null) == "$stamp" ]]; then
	note "reusing the module built before for $kver ($(cat "$ko.stamp" 2>/dev/null || echo "no stamp")): $ko"
	reuse=1
fi

if ((!reuse)); then
	command -v make >/dev/null || die "no make: apt-get install make"
	# 1. The headers.
	if [[ -z $headers ]]; then
		((EUID == 0)) || die "no headers for kernel $kver (no /lib/modules/$kver/build): install linux-headers-$kver as root (apt-get install linux-headers-$kver), or run this as root"
		apt-cache show "linux-headers-$kver" >/dev/null 2>&1 ||
			die "no headers for kernel $kver: the archive has no package linux-headers-$kver (apt-get update first? a kernel the archive no longer carries: upgrade the kernel and reboot)"
		note "installing linux-headers-$kver (it stays installed)"
		apt_do "installing linux-headers-$kver" install -y --no-install-recommends "linux-headers-$kver"
		headers=/usr/src/linux-headers-$kver
		[[ -f $headers/Makefile ]] || die "linux-headers-$kver installed no $headers/Makefile"
		hver=$(dpkg-query -W -f '${Version}' "linux-headers-$kver" 2>/dev/null || true)
		stamp="linux-headers-$kver ${hver:-unknown}"
		[[ -n $kpkg ]] || kpkg=$hver
		[[ -n $kup || $distro != debian || -z $kpkg ]] || kup=${kpkg%%-*}
	fi
	# rdma_rxe needs the RDMA core (ib_core, ib_uverbs), which only the
	# kernel's own build provides.
	if [[ -f $headers/.config ]] && ! grep -qE '^CONFIG_INFINIBAND_USER_ACCESS=[ym]' "$headers/.config"; then
		die "kernel $kver has no RDMA core (CONFIG_INFINIBAND or CONFIG_INFINIBAND_USER_ACCESS is off in $headers/.config): rdma_rxe needs ib_core and ib_uverbs, which cannot be built out of tree here; use a kernel that has them (or the project's VM, vm/run.sh)"
	fi
	hup=$(make -s -C "$headers" kernelversion 2>/dev/null || true)
	[[ -n $hup ]] || die "cannot tell the upstream version of the headers in $headers (make kernelversion): reinstall linux-headers-$kver"
	if [[ -n $kup && $kup != "$hup" ]]; then
		die "the headers in $headers are linux $hup but kernel $kver is linux $kup: install the kernel's own headers (apt-get install --reinstall linux-headers-$kver), or boot the kernel they belong to"
	fi
fi

# 2. The source, cached per kernel with the package version it came from.
if ((!reuse)) && [[ -n $source ]]; then
	[[ -f $source/Makefile && -f $source/rxe.c ]] || die "--source $source: not a drivers/infiniband/sw/rxe directory (no Makefile and rxe.c)"
	cp -r "$source" "$tmp/rxe"
	ko=$kcache/from-source/rdma_rxe.ko
elif ((!reuse)); then
	# .rxe-module-source: the kernel's package version, its upstream
	# version, and the source package the directory came from.
	srcid='' s_kpkg='' s_up=''
	if [[ -f $kcache/rxe/.rxe-module-source ]]; then
		read -r s_kpkg s_up srcid <"$kcache/rxe/.rxe-module-source" || true
	fi
	if [[ -n $srcid ]] && ((force)); then
		note "--force: fetching the rxe source for $kver again"
		srcid=''
	elif [[ -n $srcid && ($s_up != "$hup" || (-n $kpkg && $s_kpkg != "$kpkg")) ]]; then
		note "the rxe source kept for $kver (for $s_kpkg, linux $s_up) is not the kernel's (${kpkg:-?}, linux $hup): fetching it again"
		srcid=''
	fi
	if [[ -n $srcid ]]; then
		note "reusing the rxe source kept for $kver in $kcache/rxe (from $srcid, linux $s_up)"
	else
		[[ -n $kpkg ]] || die "cannot tell the package version of kernel $kver (no linux-image-$kver nor linux-headers-$kver in dpkg): install linux-headers-$kver from the archive"
		case $distro in
		debian)
			pkg=linux-source-$series
			# The exact version, else another revision of the same upstream
			# release (a superseded one leaves the archive).
			avail=$(apt-cache madison "$pkg" 2>/dev/null | awk '{ print $3 }')
			want=$kpkg
			if ! grep -qxF "$kpkg" <<<"$avail"; then
				want=$(grep -m1 "^${kpkg%-*}-" <<<"$avail" || true)
				[[ -n $want ]] || die "no source for kernel $kver: the archive has no $pkg $kpkg, nor another revision of ${kpkg%-*} (apt-get update first? or give the rxe directory of the kernel's source with --source DIR)"
				note "$pkg $kpkg is not in the archive: taking $want, the same upstream release"
			fi
			note "fetching $pkg $want (the patched source of $kver; only drivers/infiniband/sw/rxe is unpacked)"
			(cd "$tmp" && apt_do "downloading $pkg=$want" download "$pkg=$want")
			deb=$(ls "$tmp"/linux-source-*.deb)
			mkdir -p "$tmp/tree"
			dpkg-deb --fsys-tarfile "$deb" | tar -xO "./usr/src/linux-source-$series.tar.xz" |
				tar -xJ -C "$tmp/tree" --strip-components=1 "linux-source-$series/Makefile" \
					--wildcards "linux-source-$series/drivers/infiniband/sw/rxe/*" ||
				die "unpacking drivers/infiniband/sw/rxe from $pkg $want failed"
			rm -f "$deb"
			srcid="${pkg}_$want"
			;;
		ubuntu)
			grep -rqsE '^(Types:.*deb-src|deb-src )' /etc/apt/sources.list /etc/apt/sources.list.d/ ||
				die "no source for kernel $kver: deb-src is not enabled in the apt sources; enable it (24.04: sed -i 's/^Types: deb\$/Types: deb deb-src/' /etc/apt/sources.list.d/ubuntu.sources; 22.04: uncomment the deb-src lines of /etc/apt/sources.list), then apt-get update"
			command -v filterdiff >/dev/null || die "no filterdiff: apt-get install patchutils"
			mver=$(dpkg-query -W -f '${Version}' "linux-modules-$kver" 2>/dev/null || true)
			note "fetching the source of linux-modules-$kver ${mver:-at the version the archive has}"
			if ! (cd "$tmp" && apt-get -q source --download-only "linux-modules-$kver${mver:+=$mver}" >"$tmp/apt.log" 2>&1); then
				[[ -n $mver ]] && note "the source of linux-modules-$kver $mver is not in the archive: taking the archive's"
				(cd "$tmp" && apt_do "downloading the source of linux-modules-$kver (apt-get update first?)" source --download-only "linux-modules-$kver")
			fi
			mkdir -p "$tmp/tree"
			tar -xf "$tmp"/*.orig.tar.* -C "$tmp/tree" --strip-components=1 --wildcards \
				--no-wildcards-match-slash '*/Makefile' --wildcards-match-slash '*/drivers/infiniband/sw/rxe/*' ||
				die "unpacking drivers/infiniband/sw/rxe from the upstream tarball failed"
			if ls "$tmp"/*.diff.gz >/dev/null 2>&1; then
				zcat "$tmp"/*.diff.gz | filterdiff -p1 -i 'drivers/infiniband/sw/rxe/*' -i 'Makefile' | (cd "$tmp/tree" && patch -s -p1 --forward) ||
					die "applying the distribution's changes to drivers/infiniband/sw/rxe failed"
			fi
			srcid=$(basename "$(ls "$tmp"/*.dsc)" .dsc)
			;;
		*) die "no source for kernel $kver: distribution '${distro:-unknown}' ($os_release): only Debian and Ubuntu are known; give the rxe directory of your kernel's source with --source DIR" ;;
		esac
		sup=$(version_of "$tmp/tree/Makefile")
		if [[ $sup != "$hup" ]]; then
			# Checked on Debian; on Ubuntu the Makefile's version comes from
			# the distribution's diff, which has not been seen here: said, not
			# refused (a module of another version would fail to load, and
			# the install be taken back).
			[[ $distro == ubuntu ]] ||
				die "the source fetched for $kver ($srcid) is linux ${sup:-of no version}, its headers linux $hup: update both (apt-get update; apt-get install linux-headers-$kver), or give --source DIR"
			note "warning: the source fetched for $kver ($srcid) says linux ${sup:-of no version}, its headers linux $hup: building anyway"
		fi
		mv "$tmp/tree/drivers/infiniband/sw/rxe" "$tmp/src"
		echo "${kpkg:-unknown} $hup $srcid" >"$tmp/src/.rxe-module-source"
		# Whole or not at all: a copy beside it, then renamed into place.
		mkdir -p "$kcache"
		rm -rf "$kcache/rxe" "$kcache/.rxe.new"
		cp -r "$tmp/src" "$kcache/.rxe.new" && mv "$kcache/.rxe.new" "$kcache/rxe"
	fi
	cp -r "$kcache/rxe" "$tmp/rxe"
fi

# 3. The build.
if ((!reuse)); then
	mv "$tmp/rxe/Makefile" "$tmp/rxe/Kbuild"
	# shellcheck disable=SC2016 # the Makefile's own $(CONFIG_RDMA_RXE)
	sed -i 's/\$(CONFIG_RDMA_RXE)/m/g' "$tmp/rxe/Kbuild"
	note "building rdma_rxe for $kver against $headers (linux $hup)"
	if ! make -C "$headers" M="$tmp/rxe" -j"$(nproc)" modules >"$tmp/build.log" 2>&1; then
		echo "rxe-module: the build failed; its last lines:" >&2
		tail -n 20 "$tmp/build.log" >&2
		die "building rdma_rxe for $kver failed (make -C $headers M=DIR modules): the compiler's output is above"
	fi
	# As the distribution installs its modules (INSTALL_MOD_STRIP): 10 MB
	# of debug information less.
	if command -v strip >/dev/null; then
		strip --strip-debug "$tmp/rxe/rdma_rxe.ko"
	fi
	magic=$(modinfo -F vermagic "$tmp/rxe/rdma_rxe.ko" | awk '{ print $1 }')
	[[ $magic == "$kver" ]] || die "the module built against $headers has vermagic $magic, not $kver"
	mkdir -p "${ko%/*}"
	cp "$tmp/rxe/rdma_rxe.ko" "$ko.new" && mv "$ko.new" "$ko"
	if [[ -z $source ]]; then
		echo "$stamp" >"$ko.stamp"
	fi
	note "built $ko"
fi
if [[ -n $out ]]; then
	mkdir -p "$out"
	cp "$ko" "$out/rdma_rxe.ko.new" && mv "$out/rdma_rxe.ko.new" "$out/rdma_rxe.ko"
	ko=$out/rdma_rxe.ko
	note "copied to $ko"
fi

# 4. Install and load; taken back if depmod or modprobe fails.
if ((install)); then
	dest=$mdir/updates/rdma_rxe.ko
	if [[ ! -d ${dest%/*} ]]; then
		mkdir "${dest%/*}"
		made_dir=1
	fi
	if [[ -e $dest ]]; then
		prev=$tmp/prev.ko
		cp -p "$dest" "$prev"
	fi
	installing=1
	cp "$ko" "$dest.new" && mv "$dest.new" "$dest"
	depmod ${mroot:+-b "$mroot"} "$kver" || die "depmod ${mroot:+-b $mroot }$kver failed"
	if ((load)); then
		if ! modprobe rdma_rxe; then
			die "modprobe rdma_rxe failed (dmesg says why; a kernel that enforces module signatures, as with Secure Boot, refuses this unsigned one)"
		fi
		if ! modprobe rdma_ucm; then
			modprobe -r rdma_rxe || true
			die "modprobe rdma_ucm failed (dmesg says why)"
		fi
		note "rdma_rxe and rdma_ucm loaded: attach a device with rdma-bench softroce up"
	fi
	installing=0
	note "installed $dest (depmod ${mroot:+-b $mroot }$kver)"
fi
echo "$ko"
