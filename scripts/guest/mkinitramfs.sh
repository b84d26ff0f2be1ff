#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Pack build/initramfs.cpio (uncompressed newc): static busybox, the guest
# /init (scripts/guest/init) and the tests from build/tests in /tests.
#
# make demo and make check-tools pack other guests with the same /init:
#   INITRAMFS_OUT=file     the cpio to write (build/initramfs.cpio)
#   INITRAMFS_TESTS=dir    what goes to /tests (build/tests)
#   INITRAMFS_KSELFTEST=dir a kselftest install tree, to /kselftest
#                          (build/kselftest, if INITRAMFS_TESTS is not given)
#   INITRAMFS_EXTRA="dirs" trees copied over the root, in order (none)
#   INITRAMFS_TMPFS_ROOT=1 /init first moves the root to a tmpfs, as on a
#                          real system (pivot_root(2) refuses the initramfs)
. "$(dirname "$0")/../lib.sh"
out=${INITRAMFS_OUT:-$B/initramfs.cpio}
tests=${INITRAMFS_TESTS:-$B/tests}
ksft=${INITRAMFS_KSELFTEST:-}
[ -n "${INITRAMFS_TESTS:-}" ] || ksft=${ksft:-$B/kselftest}
R=${out%.cpio}
[ "$R" != "$out" ] || die "INITRAMFS_OUT must end in .cpio: $out"
bb=/bin/busybox

# A dynamic busybox would die in the guest with a confusing "not found".
readelf -l "$bb" | grep -q INTERP && die "$bb is not static: install busybox-static"

rm -rf "$R" && mkdir -p "$R"/{bin,sbin,usr/bin,usr/sbin,etc,dev,proc,sys,tmp,root,mnt/scratch,tests}
cp "$bb" "$R/bin/busybox"		# the applet links are made by /init
install -m 0755 scripts/guest/init "$R/init"
cp -a "$tests/." "$R/tests/"
if [ -n "$ksft" ]; then
	[ -x "$ksft/run_kselftest.sh" ] || die "$ksft holds no kselftest install: run make tests"
	cp -a "$ksft" "$R/kselftest"
	install -m 0755 scripts/guest/ksft-timeout "$R/bin/ksft-timeout"
fi
cat >"$R/etc/passwd" <<'PW'
root:x:0:0:root:/root:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/false
PW
cat >"$R/etc/group" <<'GR'
root:x:0:
nogroup:x:65534:
nobody:x:65534:
GR
chmod 1777 "$R/tmp"
for d in ${INITRAMFS_EXTRA:-}; do
	cp -a "$d/." "$R/"
done
if [ "${INITRAMFS_TMPFS_ROOT:-0}" = 1 ]; then
	: >"$R/etc/dentrymob-tmpfs-root"
fi
# No /dev/console node needed (nor root to mknod it): the kernel's built-in
# initramfs (usr/default_cpio_list) has one, and ours is unpacked on top.

(cd "$R" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$out.tmp"
mv "$out.tmp" "$out"
