#!/usr/bin/env bash
# scripts/ci/rdma-core.sh: build rdma-core in place from the distribution's
# source package, to measure against another rdma-core than the system's
# (rdma-core 50's rxe provider drops completions: docs/ci.md) through
# LD_LIBRARY_PATH; prints the library directory to put there.
#
# usage: scripts/ci/rdma-core.sh [--version V] [--suite S] [--cache DIR]
#
#   --version V   the source package's version (default: the newest the
#                 sources offer), such as 56.1-1
#   --suite S     also look in suite S (another release's, such as trixie)
#   --cache DIR   where builds are kept, one directory per version (default
#                 ${XDG_CACHE_HOME:-$HOME/.cache}/rdma-bench-rdma-core); a
#                 built version is reused, and said so
#
# The sources are the system's apt sources turned into deb-src, in a private
# apt state directory: the system's apt configuration is not touched. The
# package's own patches (debian/patches/series) are applied; the build is
# cmake's in-place one (-DIN_PLACE=1, no man pages, no pyverbs), whose
# libibverbs finds its providers beside it. As root it installs the build
# tools when missing (cmake, ninja-build, pkg-config, libnl-3-dev,
# libnl-route-3-dev); otherwise it names them. Then, for example:
#
#   lib=$(scripts/ci/rdma-core.sh --version 56.1-1 --suite trixie)
#   rdma-bench gate --base-env LD_LIBRARY_PATH=$lib --candidate-env LD_LIBRARY_PATH=$lib ...
#
# Exit status: 0 built (or reused), 1 a step failed, 2 bad usage.
set -euo pipefail

version='' suite='' cache=${XDG_CACHE_HOME:-$HOME/.cache}/rdma-bench-rdma-core
die() {
	echo "rdma-core: $*" >&2
	exit 1
}
note() { echo "rdma-core: $*" >&2; }
while (($# > 0)); do
	case $1 in
	--version | --suite | --cache)
		(($# > 1)) || { echo "rdma-core: $1 needs a value" >&2 && exit 2; }
		case $1 in
		--version) version=$2 ;;
		--suite) suite=$2 ;;
		--cache) cache=$2 ;;
		esac
		shift 2
		;;
	*) echo "rdma-core: unknown argument '$1'" >&2 && exit 2 ;;
	esac
done
[[ -z $version || $version =~ ^[0-9][0-9.]*-[0-9A-Za-z.+~]+$ ]] || { echo "rdma-core: --version $version: want a Debian version such as 56.1-1" >&2 && exit 2; }
[[ -z $suite || $suite =~ ^[a-z][a-z0-9-]*$ ]] || { echo "rdma-core: --suite $suite: want a suite name such as trixie" >&2 && exit 2; }

mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
if [[ -n $version && -e $cache/$version/build/lib/libibverbs.so.1 ]]; then
	note "reusing rdma-core $version built before in $cache/$version"
	echo "$cache/$version/build/lib"
	exit 0
fi

tools=(cmake ninja-build pkg-config libnl-3-dev libnl-route-3-dev gcc)
missing=()
for p in "${tools[@]}"; do
	dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if ((${#missing[@]} > 0)); then
	((EUID == 0)) || die "missing build tools: apt-get install ${missing[*]} (as root), then run this again"
	note "installing ${missing[*]}"
	apt-get -q install -y --no-install-recommends "${missing[@]}" >/dev/null || die "apt-get install ${missing[*]} failed"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rdma-core.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# A private apt: the system's sources as deb-src, plus --suite.
mkdir -p "$tmp/apt/parts" "$tmp/apt/lists/partial" "$tmp/apt/cache/archives/partial"
n=0
for f in /etc/apt/sources.list.d/*.sources; do
	[[ -e $f ]] || continue
	sed 's/^Types:.*/Types: deb-src/' "$f" >"$tmp/apt/parts/$n.sources"
	n=$((n + 1))
done
if [[ -n $suite ]]; then
	# The archive of the first stanza that is not a security one.
	uri=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/*.sources 2>/dev/null | grep -v security | head -n 1)
	key=$(sed -n 's/^Signed-By: *//p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
	[[ -n $uri ]] || die "--suite $suite: no archive address in /etc/apt/sources.list.d/*.sources to take it from"
	printf 'Types: deb-src\nURIs: %s\nSuites: %s\nComponents: main\n%s\n' "$uri" "$suite" "${key:+Signed-By: $key}" >"$tmp/apt/parts/suite.sources"
fi
if [[ -f /etc/apt/sources.list ]]; then
	sed -n 's/^deb /deb-src /p' /etc/apt/sources.list >"$tmp/apt/parts/legacy.list"
fi
apt_opts=(-o "Dir::Etc::sourcelist=$tmp/apt/parts/legacy.list" -o "Dir::Etc::sourceparts=$tmp/apt/parts"
	-o "Dir::State::Lists=$tmp/apt/lists" -o "Dir::Cache=$tmp/apt/cache" -o "APT::Sandbox::User=root")
[[ -f $tmp/apt/parts/legacy.list ]] || : >"$tmp/apt/parts/legacy.list"
apt-get -q "${apt_opts[@]}" update >"$tmp/apt.log" 2>&1 || { tail -n 8 "$tmp/apt.log" >&2; die "apt-get update of the source lists failed (no network?)"; }
if [[ -z $version ]]; then
	version=$(apt-cache "${apt_opts[@]}" showsrc rdma-core 2>/dev/null | sed -n 's/^Version: //p' | sort -V | tail -n 1)
	[[ -n $version ]] || die "no rdma-core source package in the sources (give --suite, such as trixie)"
	if [[ -e $cache/$version/build/lib/libibverbs.so.1 ]]; then
		note "reusing rdma-core $version built before in $cache/$version"
		echo "$cache/$version/build/lib"
		exit 0
	fi
fi
upstream=${version%-*}
note "fetching rdma-core $version's source"
# The .dsc is not needed: the upstream tarball and the Debian changes are
# (some mirrors serve the two and not the .dsc).
(cd "$tmp" && apt-get -q "${apt_opts[@]}" source --download-only "rdma-core=$version" >"$tmp/src.log" 2>&1) || true
[[ -f $tmp/rdma-core_$upstream.orig.tar.gz && -f $tmp/rdma-core_$version.debian.tar.xz ]] || {
	tail -n 8 "$tmp/src.log" >&2
	die "no source of rdma-core $version (its upstream tarball and Debian changes): another --version, or --suite"
}
# In place means the build's paths are compiled in: it is made where it
# stays, and removed if it fails.
dest=$cache/$version
rm -rf "$dest"
mkdir -p "$dest"
trap 'rm -rf "$tmp"; [[ -e $dest/build/lib/libibverbs.so.1 ]] || rm -rf "$dest"' EXIT
tar -xzf "$tmp/rdma-core_$upstream.orig.tar.gz" -C "$dest" --strip-components=1
tar -xJf "$tmp/rdma-core_$version.debian.tar.xz" -C "$dest"
if [[ -f $dest/debian/patches/series ]]; then
	while read -r p _; do
		[[ -z $p || $p == \#* ]] && continue
		patch -s -p1 -d "$dest" <"$dest/debian/patches/$p" || die "applying Debian's patch $p failed"
	done <"$dest/debian/patches/series"
fi
note "building rdma-core $version in place in $dest"
if ! { cmake -S "$dest" -B "$dest/build" -GNinja -DIN_PLACE=1 -DNO_MAN_PAGES=1 -DNO_PYVERBS=1 \
	-DCMAKE_BUILD_TYPE=Release && ninja -C "$dest/build"; } >"$tmp/build.log" 2>&1; then
	tail -n 20 "$tmp/build.log" >&2
	die "building rdma-core $version failed"
fi
note "built rdma-core $version in $cache/$version"
echo "$cache/$version/build/lib"
