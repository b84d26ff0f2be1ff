#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# apt-source.sh PKG VERSION DIR: unpack Debian's source package PKG=VERSION
# in DIR (emptied first) and install its build dependencies.  The deb-src
# entries that apt-get source needs come from scripts/apt-src.sh.
. "$(dirname "$0")/lib.sh"
pkg=$1 ver=$2 dir=$3
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive

has_src() { apt-get source --print-uris -q "$pkg=$ver" >/dev/null 2>&1; }
if ! has_src; then
	"$REPO/scripts/apt-src.sh"
	$SUDO apt-get update -q
	has_src || die "apt-get source $pkg=$ver: not in the archive (bump the version in the Makefile)"
fi
rm -rf "$dir" && mkdir -p "$dir"
(cd "$dir" && apt-get source -q "$pkg=$ver" >source.log 2>&1) ||
	die "apt-get source $pkg=$ver failed; see $dir/source.log"
src=$(find "$dir" -mindepth 1 -maxdepth 1 -type d | head -n1)
if ! (cd "$src" && dpkg-checkbuilddeps >/dev/null 2>&1); then
	log "installing the build dependencies of $pkg"
	$SUDO apt-get build-dep -y -q "$pkg=$ver"
fi
