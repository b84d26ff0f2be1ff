#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make runc: Debian's runc ($RUNC_VERSION) with patches/runc/, built the
# Debian way (dpkg-buildpackage) and unpacked in build/runc/root.
#
#   build/runc/src    the git tree of the model (scripts/tree/gittree.sh):
#                     tag base = the source package as dpkg-source unpacks it
#                     (Debian's own patches applied), branch series = one
#                     commit per patch of patches/runc/series.  Edit it, commit
#                     into the patch, make save.
#   build/runc/build  a copy of the tree (without .git) that
#                     dpkg-buildpackage builds in, with a changelog entry of
#                     our own so that the .deb is never taken for Debian's
#
# Cached: nothing is built when the tree's content has not changed.
. "$(dirname "$0")/../lib.sh"
. "$REPO/scripts/tree/gittree.sh"
: "${RUNC_VERSION:?}"
D=$B/runc
S=$D/src
LOCAL=dentrymob1	# the local version suffix of the .deb
# shellcheck disable=SC2086 # a list of packages
scripts/host/apt.sh install $TOOLS_DEPS

runc_base() {
	local dl=$D/dl src
	scripts/host/apt.sh source runc "$RUNC_VERSION" "$dl"
	src=$(find "$dl" -mindepth 1 -maxdepth 1 -type d -name 'runc-*' | head -n1)
	[ -n "$src" ] || die "apt-get source runc made no runc-* directory in $dl"
	cp -a "$src/." "$1/"
}
gittree_sync "$S" patches/runc runc_base

# The content of the tree, committed or not, is the cache key.
key=$({ echo "$RUNC_VERSION+$LOCAL"; gt "$S" rev-parse 'HEAD^{tree}'
	gt "$S" diff HEAD; gt "$S" status --porcelain; } | sha1sum | cut -d' ' -f1)
if [ -x "$D/root/usr/sbin/runc" ] && [ "$(cat "$D/.stamp" 2>/dev/null)" = "$key" ]; then
	exit 0
fi
scripts/host/apt.sh build-dep runc "$RUNC_VERSION" "$S"

W=$D/build/runc
rm -rf "$D/build" && mkdir -p "$W"
(cd "$S" && tar --exclude=./.git -cf - .) | tar -C "$W" -xf -
(cd "$W" && { printf '%s\n\n' "runc ($RUNC_VERSION+$LOCAL) UNRELEASED; urgency=medium"
	printf '  * With patches/runc/ of the dentrymob repository:\n'
	gt "$S" log --reverse --format='    %s' base..series
	printf '\n -- %s  %s\n\n' "dentrymob harness <harness@dentrymob.invalid>" \
		"$(date -R -d @"${SOURCE_DATE_EPOCH:-1764720000}")"
	cat debian/changelog; } >debian/changelog.new && mv debian/changelog.new debian/changelog)

log "building runc $RUNC_VERSION+$LOCAL with patches/runc/ (dpkg-buildpackage)"
(cd "$W" && DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" \
	dpkg-buildpackage -b -uc -us >"$D/build.log" 2>&1) ||
	die "runc did not build; see $D/build.log"
deb=$D/build/runc_${RUNC_VERSION#*:}+${LOCAL}_$(dpkg --print-architecture).deb
[ -f "$deb" ] || die "dpkg-buildpackage made no $deb"
rm -rf "$D/root" && dpkg-deb -x "$deb" "$D/root"
echo "$key" >"$D/.stamp"
log "patched runc: $D/root/usr/sbin/runc"
