#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# apt-src.sh: make sure apt knows Debian's source packages (deb-src), so that
# "apt-get source" and "apt-get build-dep" work on a fresh machine.  The
# deb-src entries mirror the machine's own "deb" entries (same archive, same
# suites), so no host name is written down here.  Idempotent.
. "$(dirname "$0")/lib.sh"

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo

if grep -rqsE '^[[:space:]]*(deb-src|Types:.*deb-src)' \
	/etc/apt/sources.list /etc/apt/sources.list.d/; then
	exit 0
fi

out=/etc/apt/sources.list.d/dentrymob-deb-src.sources
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
# deb822 files: the same stanzas with "Types: deb-src".
for f in /etc/apt/sources.list.d/*.sources; do
	[ -f "$f" ] || continue
	[ "$f" = "$out" ] && continue
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
$SUDO apt-get update -q
