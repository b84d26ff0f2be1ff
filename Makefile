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

# make check-integration: Debian's systemd source package that
# patches/systemd/series applies to.  Bump together with the patches.
SYSTEMD_PKG_VERSION := 252.39-1~deb12u2

# Everything the harness runs on the host.  python3 runs scripts/run-guest.py,
# git lists the overlay files and exports the series.
DEPS := $(BASE_PKG)=$(BASE_PKG_VERSION) qemu-system-x86 busybox-static \
	flex bison bc libelf-dev libssl-dev cpio dwarves ccache e2fsprogs \
	make gcc libc6-dev binutils perl python3 xz-utils patch git

# What make check-tools runs in the guest, as Debian ships it, and what it
# needs to rebuild crun from its source package (scripts/build-crun.sh adds
# the build dependencies with apt-get build-dep).  Pinned like the base:
# bump the versions here when the archive moves on.
RUNC_VERSION         := 1.1.5+ds1-1+deb12u1
CRUN_VERSION         := 1.8.1-1+deb12u1
CGROUP_TOOLS_VERSION := 2.0.2-2
TOOLS_DEPS := runc=$(RUNC_VERSION) crun=$(CRUN_VERSION) \
	cgroup-tools=$(CGROUP_TOOLS_VERSION) dpkg-dev

# Knobs (all may be set on the command line or in the environment):
#   KERNEL_SRC=/path   use a copy of this 6.12 tree instead of the tarball
#   SERIES=file        quilt series to apply (empty or /dev/null: none)
#   OVERLAY="dirs"     repo paths copied into the tree (empty: none)
#   QEMU_ACCEL=kvm     boot with KVM instead of TCG
#   GUEST_TIMEOUT=s    whole-guest timeout, TEST_TIMEOUT=s per test binary
#   BENCH_TIMEOUT=s    both, for each guest of make bench
#   GUEST_ENV="N=V .." environment for the guest's tests (kernel command line)
KERNEL_SRC    ?=
SERIES        ?= patches/series
OVERLAY       ?= kernel fs include Documentation tools
QEMU_ACCEL    ?= tcg
GUEST_TIMEOUT ?= 900
TEST_TIMEOUT  ?= 600
BENCH_TIMEOUT ?= 3600
DEBUG_GUEST_TIMEOUT ?= 2400
UPSTREAM_GUEST_TIMEOUT ?= 1800
GUEST_ENV     ?=

export BASE_PKG BASE_PKG_VERSION BASE_TARBALL DEPS CRUN_VERSION TOOLS_DEPS \
	SYSTEMD_PKG_VERSION
export KERNEL_SRC SERIES OVERLAY QEMU_ACCEL GUEST_TIMEOUT TEST_TIMEOUT GUEST_ENV

# deps must finish before kernel starts, even under make -j.
.NOTPARALLEL:

.PHONY: all help deps tree kernel tests initramfs check demo check-tools \
	bench bench-report series checkpatch \
	series-buildcheck import-series kernel-base kernel-tools \
	kernel-integration systemd rootfs-integration check-integration \
	kernel-debug check-debug check-upstream \
	clean distclean

all: kernel

help:
	@echo 'make deps               install the host packages (apt-get, idempotent)'
	@echo 'make tree               unpack base, apply patches/series, overlay: build/linux'
	@echo 'make kernel             make tree, then configure and build build/bzImage'
	@echo 'make kernel-base        the unpatched base, same config: build/bzImage-base'
	@echo 'make tests / initramfs  build the selftests / pack build/initramfs.cpio'
	@echo 'make check              build the kernel and selftests, boot them in QEMU'
	@echo 'make demo               boot the kernel with a contained "container" (transcript)'
	@echo 'make check-tools        cgroup-tools, runc, crun (Debian and patched) in the guest'
	@echo 'make bench              benchmark patched against base: bench/results.md'
	@echo 'make check-integration  patched systemd as PID 1 on a Debian rootfs: DentryMax='
	@echo 'make systemd            Debian systemd + patches/systemd: build/systemd/dest'
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
	@EXTRA_CONFIG= scripts/build-kernel.sh build/linux build/obj
	@cp build/obj/arch/x86/boot/bzImage build/bzImage.tmp && \
		mv build/bzImage.tmp build/bzImage

# The unpatched base with the same config (CONFIG_CGROUP_DENTRY does not
# exist there), for side-by-side runs: benchmarks, upstream's selftests.
# Built from build/base itself, which kbuild's O= leaves untouched.
kernel-base: tree
	@EXTRA_CONFIG= scripts/build-kernel.sh build/base build/obj-base
	@cp build/obj-base/arch/x86/boot/bzImage build/bzImage-base.tmp && \
		mv build/bzImage-base.tmp build/bzImage-base

# The kernel of make check-integration: the same tree, plus what systemd
# needs as PID 1 (config/integration.config), in its own obj dir.
kernel-integration: tree
	@EXTRA_CONFIG=config/integration.config \
		scripts/build-kernel.sh build/linux build/obj-integration
	@cp build/obj-integration/arch/x86/boot/bzImage build/bzImage-integration.tmp && \
		mv build/bzImage-integration.tmp build/bzImage-integration

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

# The kernel of make check-tools: the same tree, plus config/tools.config
# (what runc and crun need: eBPF device control, keyrings).
kernel-tools: tree
	@EXTRA_CONFIG=config/tools.config scripts/build-kernel.sh build/linux build/obj-tools
	@cp build/obj-tools/arch/x86/boot/bzImage build/bzImage-tools.tmp && \
		mv build/bzImage-tools.tmp build/bzImage-tools

# Debian's cgroup-tools, runc and crun, and crun with patches/crun/, in the
# guest.  Caches: build/crun (the crun build), build/obj-tools (the kernel).
check-tools: deps kernel-tools
	@scripts/check-tools.sh

# The README's first command: a container whose dcache is capped, as a
# transcript.  Same kernel as make check; its own initramfs in build/demo.
demo: deps kernel
	@scripts/demo.sh

# Both kernels, the same static benchmarks and QEMU settings; the medians
# and ratios go to bench/results.md (see README.md).
bench: deps kernel-base kernel
	@scripts/build-bench.sh
	@INITRAMFS_OUT=build/bench-initramfs.cpio INITRAMFS_TESTS=build/bench scripts/mkinitramfs.sh
	@BENCH_COMMAND="make bench $(strip $(MAKEOVERRIDES))" \
		GUEST_TIMEOUT=$(BENCH_TIMEOUT) TEST_TIMEOUT=$(BENCH_TIMEOUT) bench/run-bench.py

# Rewrite bench/results.md from the consoles of the last make bench.
bench-report:
	@bench/run-bench.py --report

# The systemd path (heavy, not part of make check): Debian's systemd with
# patches/systemd, as PID 1 of a debootstrap root, on the kernel above plus
# config/integration.config.  Needs root or sudo (debootstrap, chroot).
systemd:
	@scripts/build-systemd.sh

rootfs-integration: systemd
	@scripts/mk-integration-rootfs.sh

check-integration: deps kernel-integration rootfs-integration
	@scripts/check-integration.sh

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

# Keeps build/base (slow to unpack), the ccache, and the slow parts of
# check-integration: build/systemd and build/integration/debootstrap.
clean:
	rm -rf build/linux build/obj build/obj-series build/series build/series-git \
		build/tests build/initramfs build/*.cpio build/*.img build/*.log \
		build/bzImage build/obj-base build/bzImage-base build/demo \
		build/obj-tools build/bzImage-tools build/tools build/bench \
		build/bench-initramfs build/obj-integration build/bzImage-integration \
		build/integration/root build/integration/*.img build/integration/*.log \
		build/obj-debug build/bzImage-debug build/upstream-tests \
		build/initramfs-upstream build/upstream-*

distclean:
	rm -rf build
