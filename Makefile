# SPDX-License-Identifier: GPL-2.0
#
# Build, boot and test harness for the dentry cgroup controller.
# The real work is done by the scripts in scripts/; this file only wires
# them together and holds the settings.  See README.md.

# The pinned base kernel.  Bump BASE_PKG_VERSION (and nothing else) to move
# to a newer Debian linux-source-6.12 upload; see README.md.
BASE_PKG         := linux-source-6.12
BASE_PKG_VERSION := 6.12.118-1~deb12u1
BASE_TARBALL     := /usr/src/$(BASE_PKG).tar.xz

# Everything the harness runs on the host.  python3 runs scripts/run-guest.py,
# git lists the overlay files and exports the series.
DEPS := $(BASE_PKG)=$(BASE_PKG_VERSION) qemu-system-x86 busybox-static \
	flex bison bc libelf-dev libssl-dev cpio dwarves ccache e2fsprogs \
	make gcc libc6-dev binutils perl python3 xz-utils patch git

# Knobs (all may be set on the command line or in the environment):
#   KERNEL_SRC=/path   use a copy of this 6.12 tree instead of the tarball
#   SERIES=file        quilt series to apply (empty or /dev/null: none)
#   OVERLAY="dirs"     repo paths copied into the tree (empty: none)
#   QEMU_ACCEL=kvm     boot with KVM instead of TCG
#   GUEST_TIMEOUT=s    whole-guest timeout, TEST_TIMEOUT=s per test binary
#   GUEST_ENV="N=V .." environment for the guest's tests (kernel command line)
KERNEL_SRC    ?=
SERIES        ?= patches/series
OVERLAY       ?= kernel fs include Documentation tools
QEMU_ACCEL    ?= tcg
GUEST_TIMEOUT ?= 900
TEST_TIMEOUT  ?= 600
DEBUG_GUEST_TIMEOUT ?= 2400
UPSTREAM_GUEST_TIMEOUT ?= 1800
GUEST_ENV     ?=

export BASE_PKG BASE_PKG_VERSION BASE_TARBALL DEPS
export KERNEL_SRC SERIES OVERLAY QEMU_ACCEL GUEST_TIMEOUT TEST_TIMEOUT GUEST_ENV

# deps must finish before kernel starts, even under make -j.
.NOTPARALLEL:

.PHONY: all help deps tree kernel tests initramfs check series checkpatch \
	series-buildcheck import-series kernel-base kernel-debug check-debug \
	check-upstream \
	clean distclean

all: kernel

help:
	@echo 'make deps               install the host packages (apt-get, idempotent)'
	@echo 'make tree               unpack base, apply patches/series, overlay: build/linux'
	@echo 'make kernel             make tree, then configure and build build/bzImage'
	@echo 'make kernel-base        the unpatched base, same config: build/bzImage-base'
	@echo 'make tests / initramfs  build the selftests / pack build/initramfs.cpio'
	@echo 'make check              build the kernel and selftests, boot them in QEMU'
	@echo 'make kernel-debug       the series with config/debug.config: build/bzImage-debug'
	@echo 'make check-debug        every selftest on the debug kernel (KASAN, lockdep, ...)'
	@echo 'make check-upstream     upstream cgroup/filesystems selftests: base vs patched'
	@echo 'make series             export a git format-patch series into build/series/'
	@echo 'make checkpatch         run checkpatch.pl --strict on build/series/'
	@echo 'make series-buildcheck  build every commit of the exported series'
	@echo 'make import-series      rewrite patches/ from commits edited in build/series-git'
	@echo 'make clean / distclean  remove build outputs / all of build/'

deps:
	@scripts/deps.sh

# build/linux = base + patches/series + overlay of the repo's new files.
tree:
	@scripts/prepare-tree.sh

kernel: tree
	@scripts/build-kernel.sh build/linux build/obj
	@cp build/obj/arch/x86/boot/bzImage build/bzImage.tmp && \
		mv build/bzImage.tmp build/bzImage

# The unpatched base with the same config (CONFIG_CGROUP_DENTRY does not
# exist there), for side-by-side runs: benchmarks, upstream's selftests.
# Built from build/base itself, which kbuild's O= leaves untouched.
kernel-base: tree
	@scripts/build-kernel.sh build/base build/obj-base
	@cp build/obj-base/arch/x86/boot/bzImage build/bzImage-base.tmp && \
		mv build/bzImage-base.tmp build/bzImage-base

# The same series with the debug fragment (KASAN, lockdep, kmemleak...), in
# its own obj dir so that make check's objects stay as they are.
kernel-debug: tree
	@EXTRA_CONFIG=config/debug.config \
		scripts/build-kernel.sh build/linux build/obj-debug
	@cp build/obj-debug/arch/x86/boot/bzImage build/bzImage-debug.tmp && \
		mv build/bzImage-debug.tmp build/bzImage-debug

tests: kernel
	@scripts/build-tests.sh

initramfs: tests
	@scripts/mkinitramfs.sh

check: deps kernel tests initramfs
	@scripts/run-guest.py

# The debug kernel is 10-30 times slower under TCG: longer timeouts.  Its
# struct dentry is larger (lockdep maps in d_lock and d_seq): the layout
# test gets the size this build really has, from its own compiler.
check-debug: deps kernel-debug tests initramfs
	@GUEST_KERNEL=build/bzImage-debug GUEST_LOG=console-debug \
		GUEST_TIMEOUT=$(DEBUG_GUEST_TIMEOUT) \
		GUEST_ENV="DENTRYMOB_DENTRY_SIZE=$$(scripts/dentry-size.sh build/obj-debug) $(GUEST_ENV)" \
		scripts/run-guest.py

# Upstream's cgroup and filesystems selftests on both kernels, compared.
check-upstream: deps kernel kernel-base tests
	@GUEST_TIMEOUT=$(UPSTREAM_GUEST_TIMEOUT) scripts/check-upstream.sh

series: tree
	@scripts/export-series.sh

checkpatch: series
	@scripts/checkpatch.sh

series-buildcheck: series
	@scripts/series-buildcheck.sh

# The way back: patches/ and the new files from build/series-git's commits.
import-series:
	@scripts/import-series.sh

# Keeps build/base (slow to unpack) and the ccache.
clean:
	rm -rf build/linux build/obj build/obj-series build/series build/series-git \
		build/tests build/initramfs build/*.cpio build/*.img build/*.log \
		build/bzImage build/obj-base build/bzImage-base \
		build/obj-debug build/bzImage-debug build/upstream-tests \
		build/initramfs-upstream build/upstream-*

distclean:
	rm -rf build
