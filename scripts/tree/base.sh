#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build/base: the pristine base kernel, unpacked once from Debian's
# linux-source tarball (or copied from KERNEL_SRC).  Nothing writes into it:
# make kernel-base and make check-upstream build from it with O=, and
# build/linux starts as a copy of it.  The stamp says where it came from; a
# bumped BASE_PKG_VERSION or another KERNEL_SRC unpacks it again, and then
# build/linux is made anew from it (see linux.sh).
. "$(dirname "$0")/../lib.sh"

if [ -n "${KERNEL_SRC:-}" ]; then
	src=$(realpath -e "$KERNEL_SRC") || die "KERNEL_SRC=$KERNEL_SRC does not exist"
	[ -f "$src/Makefile" ] && [ -f "$src/init/Kconfig" ] ||
		die "KERNEL_SRC=$KERNEL_SRC is not a kernel source tree"
	case $src/ in "$B"/*) die "KERNEL_SRC must not be inside build/" ;; esac
	want="dir $src"
else
	have=$(dpkg-query -W -f='${Version}' "$BASE_PKG" 2>/dev/null || true)
	[ "$have" = "$BASE_PKG_VERSION" ] ||
		die "$BASE_PKG=$BASE_PKG_VERSION is not installed (have: ${have:-none}); run make deps"
	want="pkg $BASE_PKG $BASE_PKG_VERSION"
fi
stamp=$B/base/.dentrymob-base
[ "$(cat "$stamp" 2>/dev/null)" = "$want" ] && exit 0

rm -rf "$B/base" "$B/base.tmp"
mkdir -p "$B/base.tmp"
if [ -n "${KERNEL_SRC:-}" ]; then
	log "copying $src into build/base (the original is left alone)"
	tar -C "$src" --exclude=.git -cf - . | tar -C "$B/base.tmp" -xf -
	# kbuild refuses O= builds from a configured tree: clean our copy.
	kmake -s -C "$B/base.tmp" mrproper
else
	log "unpacking $BASE_TARBALL into build/base"
	tar -C "$B/base.tmp" --strip-components=1 -xf "$BASE_TARBALL"
fi
echo "$want" >"$B/base.tmp/.dentrymob-base"
mv "$B/base.tmp" "$B/base"
