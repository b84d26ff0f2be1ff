#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Pack build/initramfs.cpio (uncompressed newc): static busybox, the guest
# /init (scripts/guest-init) and the tests from build/tests in /tests.
# INITRAMFS_TESTS=dir packs another test directory instead, into
# INITRAMFS_OUT (both relative to the repository); make check-upstream
# packs upstream's selftests that way.
. "$(dirname "$0")/lib.sh"
tests=$REPO/${INITRAMFS_TESTS:-build/tests}
cpio_out=$REPO/${INITRAMFS_OUT:-build/initramfs.cpio}
R=${cpio_out%.cpio}
bb=/bin/busybox

# A dynamic busybox would die in the guest with a confusing "not found".
readelf -l "$bb" | grep -q INTERP && die "$bb is not static: install busybox-static"

rm -rf "$R" && mkdir -p "$R"/{bin,sbin,usr/bin,usr/sbin,etc,dev,proc,sys,tmp,root,mnt/scratch,tests}
cp "$bb" "$R/bin/busybox"		# the applet links are made by /init
install -m 0755 scripts/guest-init "$R/init"
cp -a "$tests/." "$R/tests/"
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
# No /dev/console node needed (nor root to mknod it): the kernel's built-in
# initramfs (usr/default_cpio_list) has one, and ours is unpacked on top.

(cd "$R" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$cpio_out.tmp"
mv "$cpio_out.tmp" "$cpio_out"
