#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The one apt helper of the harness.
#
#   apt.sh install PKG[=VERSION]...   install what dpkg does not have (at the
#                                     pinned version, where one is given);
#                                     does nothing, not even apt-get update,
#                                     when all are there
#   apt.sh source PKG VERSION DIR     download Debian's source package
#                                     PKG=VERSION into DIR (emptied first)
#                                     and unpack it there (dpkg-source -x:
#                                     Debian's own patches applied)
#   apt.sh build-dep PKG VERSION SRC  install the build dependencies of the
#                                     unpacked source tree SRC, if missing
#
# deb-src entries, which source and build-dep need, are derived from the
# machine's own deb entries (same archive, same suites) when apt has none,
# so no host name is written down here.
. "$(dirname "$0")/../lib.sh"
export DEBIAN_FRONTEND=noninteractive

updated=0
apt_update() {
	[ $updated = 1 ] && return 0
	$SUDO apt-get update -q
	updated=1
}

install_pkgs() {
	local dep pkg want st
	local -a missing=()
	for dep in "$@"; do
		pkg=${dep%%=*}
		want=${dep#"$pkg"}; want=${want#=}
		st=$(dpkg-query -W -f='${db:Status-Status} ${Version}' "$pkg" 2>/dev/null || true)
		if [ "${st%% *}" != installed ] || { [ -n "$want" ] && [ "${st#* }" != "$want" ]; }; then
			missing+=("$dep")
		fi
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	log "installing: ${missing[*]}"
	apt_update
	# --allow-downgrades: the pin may be older than what is installed.
	$SUDO apt-get install -y -q --no-install-recommends --allow-downgrades "${missing[@]}"
}

deb_src() {
	local out=/etc/apt/sources.list.d/dentrymob-deb-src.sources tmp f
	grep -rqsE '^[[:space:]]*(deb-src|Types:.*deb-src)' \
		/etc/apt/sources.list /etc/apt/sources.list.d/ && return 0
	tmp=$(mktemp)
	# deb822 files: the same stanzas with "Types: deb-src".
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] && [ "$f" != "$out" ] || continue
		sed -n -e 's/^Types:.*\bdeb\b.*/Types: deb-src/' -e '/^#/d' -e p "$f" >>"$tmp"
		echo >>"$tmp"
	done
	# One-line files: "deb URI SUITE COMPONENTS" -> "deb-src ...", as deb822.
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk '$1 == "deb" && $2 !~ /^\[/ {
			printf "Types: deb-src\nURIs: %s\nSuites: %s\nComponents:", $2, $3
			for (i = 4; i <= NF; i++) printf " %s", $i
			printf "\n\n"
		}' "$f" >>"$tmp"
	done
	grep -q '^Types: deb-src' "$tmp" || die "no Debian deb entries in /etc/apt to derive deb-src from"
	log "adding deb-src entries: $out"
	$SUDO install -m 0644 "$tmp" "$out"
	rm -f "$tmp"
	updated=0
}

source_pkg() {
	local pkg=$1 ver=$2 dir=$3
	if ! apt-get source --print-uris -q "$pkg=$ver" >/dev/null 2>&1; then
		deb_src
		apt_update
		apt-get source --print-uris -q "$pkg=$ver" >/dev/null 2>&1 ||
			die "apt-get source $pkg=$ver: not in the archive (bump the version in the Makefile)"
	fi
	rm -rf "$dir" && mkdir -p "$dir"
	(cd "$dir" && apt-get source -q "$pkg=$ver" >source.log 2>&1) ||
		die "apt-get source $pkg=$ver failed; see $dir/source.log"
}

build_dep() {
	local pkg=$1 ver=$2 src=$3
	(cd "$src" && dpkg-checkbuilddeps >/dev/null 2>&1) && return 0
	log "installing the build dependencies of $pkg"
	deb_src
	apt_update
	$SUDO apt-get build-dep -y -q "$pkg=$ver"
}

cmd=${1:-}
shift || true
case $cmd in
install) install_pkgs "$@" ;;
source) [ $# -eq 3 ] || die "usage: apt.sh source PKG VERSION DIR"; source_pkg "$@" ;;
build-dep) [ $# -eq 3 ] || die "usage: apt.sh build-dep PKG VERSION SRC"; build_dep "$@" ;;
*) die "usage: apt.sh install PKG[=VER]... | source PKG VER DIR | build-dep PKG VER SRC" ;;
esac
