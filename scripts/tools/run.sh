#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check-tools: boot build/bzImage-tools with Debian's cgroup-tools,
# runc and crun (as packaged, and rebuilt with patches/crun/ and
# patches/runc/ by build-crun.sh and build-runc.sh) in the initramfs, and
# run tools_test.sh there.
#
# The tools are the host's own binaries, installed by apt-get ($TOOLS_DEPS),
# copied into the initramfs with the shared libraries that ldd names: no
# second root filesystem to build or keep in sync.
. "$(dirname "$0")/../lib.sh"
T=$B/tools
X=$T/extra
[ -f "$B/bzImage-tools" ] || die "build/bzImage-tools is missing: run make kernel-tools"
[ -x "$B/crun/root/usr/bin/crun" ] || die "the patched crun is missing: run make crun"
[ -x "$B/runc/root/usr/sbin/runc" ] || die "the patched runc is missing: run make runc"

# copy FILE [DEST]: FILE at DEST (default: the same path) in the guest, and
# the libraries it needs at the paths ldd gives.
copy() {
	local f=$1 dst=${2:-$1} lib
	install -D -m 0755 "$f" "$X$dst"
	for lib in $(ldd "$f" | grep -o '/[^ ]*'); do
		[ -e "$X$lib" ] || install -D -m 0755 "$(readlink -f "$lib")" "$X$lib"
	done
}
rm -rf "$X" "$T/tests" && mkdir -p "$X" "$T/tests"
copy /usr/bin/runc
copy /usr/bin/crun
copy "$B/crun/root/usr/bin/crun" /usr/local/bin/crun-patched
copy "$B/runc/root/usr/sbin/runc" /usr/local/bin/runc-patched
# The OCI hook, for Debian's runc and crun as they are.
make -s -C tools/dentrymob-oci-hook clean dentrymob-oci-hook
copy tools/dentrymob-oci-hook/dentrymob-oci-hook /usr/local/bin/dentrymob-oci-hook
make -s -C tools/dentrymob-oci-hook clean
for f in $(dpkg -L cgroup-tools | grep -E '/s?bin/cg(create|set|get|exec|delete)$'); do
	copy "$f"
done
mkdir -p "$X/run" "$X/srv" "$X/etc"
# What the guest can print about the versions: it has no dpkg.
for p in runc crun cgroup-tools; do
	dpkg-query -W -f='${Package} ${Version}\n' "$p"
done >"$X/etc/dentrymob-tools-versions"
for p in crun runc; do
	v=${p^^}_VERSION
	echo "$p-patched ${!v} + patches/$p/$(series_patches "patches/$p/series" | tr '\n' ' ')"
done >>"$X/etc/dentrymob-tools-versions"
install -m 0755 scripts/tools/tools_test.sh "$T/tests/"
install -m 0644 scripts/guest/tap.sh "$T/tests/"

INITRAMFS_OUT=$T/initramfs.cpio INITRAMFS_TESTS=$T/tests INITRAMFS_EXTRA=$X \
	INITRAMFS_TMPFS_ROOT=1 scripts/guest/mkinitramfs.sh
GUEST_KERNEL=$B/bzImage-tools GUEST_INITRAMFS=$T/initramfs.cpio \
	GUEST_TESTS=$T/tests GUEST_CONSOLE=$T/console.log GUEST_SHOW=1 \
	exec scripts/guest/guest.py
