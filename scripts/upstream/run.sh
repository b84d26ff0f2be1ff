#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check-upstream: boot upstream's own selftests (build.sh beside this
# file) on the patched kernel (build/bzImage) and on the unpatched base with
# the same config (build/bzImage-base), then compare: compare.py fails if
# the patched kernel differs.
# Failures that both kernels share are upstream's known failures in this
# guest (docs/upstream.md says why); they do not fail the target.
. "$(dirname "$0")/../lib.sh"
scripts/upstream/build.sh
INITRAMFS_TESTS=build/upstream-tests INITRAMFS_OUT=build/initramfs-upstream.cpio \
	scripts/guest/mkinitramfs.sh
for k in base patched; do
	kernel=build/bzImage
	[ $k = base ] && kernel=build/bzImage-base
	log "upstream selftests on the $k kernel ($kernel)"
	# The exit code is the comparison's to judge, not this run's.
	GUEST_KERNEL=$kernel GUEST_INITRAMFS=build/initramfs-upstream.cpio \
	GUEST_TESTS=build/upstream-tests GUEST_LOG=upstream-$k \
	GUEST_RESULTS=build/upstream-$k.json \
		scripts/guest/guest.py >"$B/upstream-$k.txt" || true
	tail -n1 "$B/upstream-$k.txt" >&2
done
scripts/upstream/compare.py build/upstream-base.json build/upstream-patched.json \
	build/upstream-table.md
