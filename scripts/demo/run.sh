#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo: boot build/bzImage with demo_test.sh (beside this file) as the
# guest's only program and print its transcript as it runs.  The exit code
# is guest.py's: non-zero if any of the demo's checks failed.
. "$(dirname "$0")/../lib.sh"
D=$B/demo
[ -f "$B/bzImage" ] || die "build/bzImage is missing: run make kernel"
rm -rf "$D/tests" && mkdir -p "$D/tests"
install -m 0755 scripts/demo/demo_test.sh "$D/tests/"
install -m 0644 scripts/guest/tap.sh "$D/tests/"
INITRAMFS_OUT=$D/initramfs.cpio INITRAMFS_TESTS=$D/tests scripts/guest/mkinitramfs.sh
GUEST_INITRAMFS=$D/initramfs.cpio GUEST_TESTS=$D/tests \
	GUEST_CONSOLE=$D/console.log GUEST_SHOW=1 exec scripts/guest/guest.py
