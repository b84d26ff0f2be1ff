#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build-deb.sh PKG VERSION BIN: Debian's source package PKG at VERSION with
# patches/PKG/, built the Debian way (dpkg-buildpackage) and unpacked in
# build/PKG/root, where BIN (e.g. usr/bin/crun) is the program.  make crun
# and make runc (build-crun.sh, build-runc.sh) run it.
#
#   build/PKG/src    the git tree of the model (scripts/tree/gittree.sh):
#                     tag base = the source package as dpkg-source unpacks it
#                     (Debian's own patches applied), branch series = one
#                     commit per patch of patches/PKG/series.  Edit it, commit
#                     into the patch, make save.
#   build/PKG/build  a copy of the tree (without .git) that
#                     dpkg-buildpackage builds in, with a changelog entry of
#                     our own so that the .deb is never taken for Debian's
#
# Cached: nothing is built when the tree's content has not changed.
. "$(dirname "$0")/../lib.sh"
. "$REPO/scripts/tree/gittree.sh"
PKG=${1:?}
VERSION=${2:?}
BIN=${3:?}
D=$B/$PKG
S=$D/src
LOCAL=dentrymob1	# the local version suffix of the .deb
# shellcheck disable=SC2086 # a list of packages
scripts/host/apt.sh install $TOOLS_DEPS

pkg_base() {
	local dl=$D/dl src
	scripts/host/apt.sh source "$PKG" "$VERSION" "$dl"
	src=$(find "$dl" -mindepth 1 -maxdepth 1 -type d -name "$PKG-*" | head -n1)
	[ -n "$src" ] || die "apt-get source $PKG made no $PKG-* directory in $dl"
	cp -a "$src/." "$1/"
}
gittree_sync "$S" "patches/$PKG" pkg_base

# The content of the tree, committed or not, is the cache key.
key=$({ echo "$VERSION+$LOCAL"; gt "$S" rev-parse 'HEAD^{tree}'
	gt "$S" diff HEAD; gt "$S" status --porcelain; } | sha1sum | cut -d' ' -f1)
if [ -x "$D/root/$BIN" ] && [ "$(cat "$D/.stamp" 2>/dev/null)" = "$key" ]; then
	exit 0
fi
scripts/host/apt.sh build-dep "$PKG" "$VERSION" "$S"

W=$D/build/$PKG
rm -rf "$D/build" && mkdir -p "$W"
(cd "$S" && tar --exclude=./.git -cf - .) | tar -C "$W" -xf -
(cd "$W" && { printf '%s\n\n' "$PKG ($VERSION+$LOCAL) UNRELEASED; urgency=medium"
	printf '  * With patches/%s/ of the dentrymob repository:\n' "$PKG"
	gt "$S" log --reverse --format='    %s' base..series
	printf '\n -- %s  %s\n\n' "dentrymob harness <harness@dentrymob.invalid>" \
		"$(date -R -d @"${SOURCE_DATE_EPOCH:-1764720000}")"
	cat debian/changelog; } >debian/changelog.new && mv debian/changelog.new debian/changelog)

log "building $PKG $VERSION+$LOCAL with patches/$PKG/ (dpkg-buildpackage)"
(cd "$W" && DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" \
	dpkg-buildpackage -b -uc -us >"$D/build.log" 2>&1) ||
	die "$PKG did not build; see $D/build.log"
deb=$D/build/${PKG}_${VERSION#*:}+${LOCAL}_$(dpkg --print-architecture).deb
[ -f "$deb" ] || die "dpkg-buildpackage made no $deb"
rm -rf "$D/root" && dpkg-deb -x "$deb" "$D/root"
echo "$key" >"$D/.stamp"
log "patched $PKG: $D/root/$BIN"
