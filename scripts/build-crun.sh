#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build Debian's crun ($CRUN_VERSION) from its source package with the
# patches in patches/crun/ added to debian/patches, the Debian way
# (dpkg-buildpackage), and unpack the result in build/crun/root.
# Cached: nothing is done when the version and the patches are unchanged.
. "$(dirname "$0")/lib.sh"
: "${CRUN_VERSION:?}"
D=$B/crun
LOCAL=dentrymob1	# the local version suffix: bump it when patches/crun/ changes
key=$({ echo "$CRUN_VERSION+$LOCAL"; cat patches/crun/series; cat patches/crun/*.patch; } | sha1sum | cut -d' ' -f1)
if [ -x "$D/root/usr/bin/crun" ] && [ "$(cat "$D/.stamp" 2>/dev/null)" = "$key" ]; then
	exit 0
fi

scripts/apt-source.sh crun "$CRUN_VERSION" "$D"
src=$(find "$D" -mindepth 1 -maxdepth 1 -type d -name 'crun-*' | head -n1)
[ -n "$src" ] || die "apt-get source crun made no crun-* directory in $D"

# Debian's source format 3.0 (quilt): dpkg-buildpackage applies the patches
# of debian/patches/series that are not applied yet, ours included.
while read -r p; do
	[ -n "$p" ] || continue
	cp "patches/crun/$p" "$src/debian/patches/dentrymob-$p"
	echo "dentrymob-$p" >>"$src/debian/patches/series"
done < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' patches/crun/series)

# A version of its own, so that the .deb is never taken for Debian's.
(cd "$src" && { printf '%s\n\n' "crun ($CRUN_VERSION+$LOCAL) UNRELEASED; urgency=medium"
	printf '  * Add patches/crun/ of the dentrymob repository:\n'
	sed -e 's/#.*//' -e '/^[[:space:]]*$/d' -e 's/^/    /' "$REPO/patches/crun/series"
	printf '\n -- %s  %s\n\n' "Seed 97b2929a maintainers <maintainers@users.noreply.a-seed-97b2929a.example>" \
		"$(date -R -d @"${SOURCE_DATE_EPOCH:-1764720000}")"
	cat debian/changelog; } >debian/changelog.new && mv debian/changelog.new debian/changelog)

log "building crun $CRUN_VERSION+$LOCAL with patches/crun/ (dpkg-buildpackage)"
(cd "$src" && DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" \
	dpkg-buildpackage -b -uc -us >"$D/build.log" 2>&1) ||
	die "crun did not build; see $D/build.log"
deb=$D/crun_${CRUN_VERSION#*:}+${LOCAL}_$(dpkg --print-architecture).deb
[ -f "$deb" ] || die "dpkg-buildpackage made no $deb"
rm -rf "$D/root" && dpkg-deb -x "$deb" "$D/root"
echo "$key" >"$D/.stamp"
log "patched crun: $D/root/usr/bin/crun"
