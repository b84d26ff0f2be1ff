#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make crun: Debian's crun ($CRUN_VERSION) with patches/crun/, built the
# Debian way (dpkg-buildpackage) and unpacked in build/crun/root.
#
#   build/crun/src    the git tree of the model (scripts/tree/gittree.sh):
#                     tag base = the source package as dpkg-source unpacks it
#                     (Debian's own patches applied), branch series = one
#                     commit per patch of patches/crun/series.  Edit it, commit
#                     into the patch, make save.
#   build/crun/build  a copy of the tree (without .git) that
#                     dpkg-buildpackage builds in, with a changelog entry of
#                     our own so that the .deb is never taken for Debian's
#
# Cached: nothing is built when the tree's content has not changed.
. "$(dirname "$0")/../lib.sh"
. "$REPO/scripts/tree/gittree.sh"
: "${CRUN_VERSION:?}"
D=$B/crun
S=$D/src
LOCAL=dentrymob1	# the local version suffix of the .deb
# shellcheck disable=SC2086 # a list of packages
scripts/host/apt.sh install $TOOLS_DEPS

crun_base() {
	local dl=$D/dl src
	scripts/host/apt.sh source crun "$CRUN_VERSION" "$dl"
	src=$(find "$dl" -mindepth 1 -maxdepth 1 -type d -name 'crun-*' | head -n1)
	[ -n "$src" ] || die "apt-get source crun made no crun-* directory in $dl"
	cp -a "$src/." "$1/"
}
gittree_sync "$S" patches/crun crun_base

# The content of the tree, committed or not, is the cache key.
key=$({ echo "$CRUN_VERSION+$LOCAL"; gt "$S" rev-parse 'HEAD^{tree}'
	gt "$S" diff HEAD; gt "$S" status --porcelain; } | sha1sum | cut -d' ' -f1)
if [ -x "$D/root/usr/bin/crun" ] && [ "$(cat "$D/.stamp" 2>/dev/null)" = "$key" ]; then
	exit 0
fi
scripts/host/apt.sh build-dep crun "$CRUN_VERSION" "$S"

W=$D/build/crun
rm -rf "$D/build" && mkdir -p "$W"
(cd "$S" && tar --exclude=./.git -cf - .) | tar -C "$W" -xf -
(cd "$W" && { printf '%s\n\n' "crun ($CRUN_VERSION+$LOCAL) UNRELEASED; urgency=medium"
	printf '  * With patches/crun/ of the dentrymob repository:\n'
	gt "$S" log --reverse --format='    %s' base..series
	printf '\n -- %s  %s\n\n' "dentrymob harness <harness@dentrymob.invalid>" \
		"$(date -R -d @"${SOURCE_DATE_EPOCH:-1764720000}")"
	cat debian/changelog; } >debian/changelog.new && mv debian/changelog.new debian/changelog)

log "building crun $CRUN_VERSION+$LOCAL with patches/crun/ (dpkg-buildpackage)"
(cd "$W" && DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" \
	dpkg-buildpackage -b -uc -us >"$D/build.log" 2>&1) ||
	die "crun did not build; see $D/build.log"
deb=$D/build/crun_${CRUN_VERSION#*:}+${LOCAL}_$(dpkg --print-architecture).deb
[ -f "$deb" ] || die "dpkg-buildpackage made no $deb"
rm -rf "$D/root" && dpkg-deb -x "$deb" "$D/root"
echo "$key" >"$D/.stamp"
log "patched crun: $D/root/usr/bin/crun"
