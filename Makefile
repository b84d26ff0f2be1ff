# SPDX-License-Identifier: GPL-2.0
#
# Build, boot and test harness for the dentry cgroup controller.  This file
# holds the settings and wires the scripts together; the scripts live in
# scripts/ by concern (tree, series, guest, host, one folder per suite) and
# bench/.  README.md is the guide, docs/harness.md the details.

# The pinned base kernel.  Bump BASE_PKG_VERSION (and nothing else) to move
# to a newer Debian linux-source-6.12 upload; see README.md.
BASE_PKG         := linux-source-6.12
BASE_PKG_VERSION := 6.12.118-1~deb12u1
BASE_TARBALL     := /usr/src/$(BASE_PKG).tar.xz

# The userspace that the operator suites build or run, pinned like the base:
# Debian's systemd source package that patches/systemd/ applies to (make
# check-integration), and what make check-tools runs as Debian ships it
# (crun and runc are also rebuilt with patches/crun/ and patches/runc/).
SYSTEMD_PKG_VERSION  := 252.39-1~deb12u2
RUNC_VERSION         := 1.1.5+ds1-1+deb12u1
CRUN_VERSION         := 1.8.1-1+deb12u1
CGROUP_TOOLS_VERSION := 2.0.2-2

# Host packages: what every target needs, and what make check-tools adds.
DEPS := $(BASE_PKG)=$(BASE_PKG_VERSION) qemu-system-x86 busybox-static \
	flex bison bc libelf-dev libssl-dev cpio dwarves ccache e2fsprogs \
	make gcc libc6-dev binutils perl python3 xz-utils patch git rsync stress-ng=0.15.06-2
TOOLS_DEPS := runc=$(RUNC_VERSION) crun=$(CRUN_VERSION) \
	cgroup-tools=$(CGROUP_TOOLS_VERSION) dpkg-dev

# Settings (command line or environment; docs/harness.md lists them all):
#   KERNEL_SRC=/path   base on a copy of this 6.12 tree, not the tarball
#   QEMU_ACCEL=kvm     boot with KVM instead of TCG
#   GUEST_TIMEOUT=s    whole-guest timeout for every suite (default: the table)
#   TEST_TIMEOUT=s     timeout of each test binary in the guest
#   GUEST_ENV="N=V .." environment of the guest's tests (kernel command line)
#   FORCE=1            make tree: take a changed patches/ over unsaved work
#                      (which is kept on a branch unsaved/DATE of build/linux)
KERNEL_SRC    ?=
QEMU_ACCEL    ?= tcg
GUEST_TIMEOUT ?=
TEST_TIMEOUT  ?= 600
GUEST_ENV     ?=

# Guest timeouts in seconds, one per suite.  The debug kernel is 10-30
# times slower under TCG; bench boots run minutes each.
# check-tools is one guest binary that runs every runtime row: its
# TEST_TIMEOUT is the suite's too.
TIMEOUTS := check:900 demo:900 tools:1500 debug:2400 upstream:1800 \
	integration:1500 bench:3600
timeout = $(or $(GUEST_TIMEOUT),$(patsubst $(1):%,%,$(filter $(1):%,$(TIMEOUTS))))

export BASE_PKG BASE_PKG_VERSION BASE_TARBALL CRUN_VERSION RUNC_VERSION TOOLS_DEPS \
	SYSTEMD_PKG_VERSION KERNEL_SRC QEMU_ACCEL TEST_TIMEOUT GUEST_ENV FORCE

# deps must finish before kernel starts, even under make -j.
.NOTPARALLEL:

.PHONY: all help deps base tree save kernel tests initramfs check demo \
	check-debug check-rt check-tools check-integration check-upstream crun runc systemd \
	rootfs-integration bench bench-report bench-locks bench-smp series checkpatch \
	series-buildcheck clean distclean

all: kernel

help:
	@echo 'make demo               a container whose dcache is capped, as a transcript'
	@echo 'make check              build the kernel and the selftests, boot them, report'
	@echo 'make tree               build/linux: git tree of base + patches/, new files linked'
	@echo 'make save               patches/ (and crun/, runc/, systemd/) from the trees'\'' commits'
	@echo 'make kernel[-VARIANT]   build/bzImage[-VARIANT]; variants: base debug tools integration locks rt'
	@echo 'make check-debug        every selftest on the debug kernel (KASAN, lockdep, ...)'
	@echo 'make check-rt           the same suites on a PREEMPT_RT kernel (build/bzImage-rt)'
	@echo 'make check-tools        cgroup-tools, runc, crun (Debian and patched) in the guest'
	@echo 'make check-integration  patched systemd as PID 1 on a Debian rootfs: DentryMax='
	@echo 'make check-upstream     upstream cgroup/filesystems selftests: base vs patched'
	@echo 'make bench              benchmark patched against base: bench/results.md'
	@echo 'make bench-locks        longest lock holds on a LOCK_STAT kernel: bench/locks.md'
	@echo 'make bench-smp          four CPUs charging one mob, patched vs base: bench/smp.md'
	@echo 'make series             the git format-patch series in build/series/'
	@echo 'make checkpatch         checkpatch.pl --strict on build/series/'
	@echo 'make series-buildcheck  build every commit of the exported series'
	@echo 'make crun / runc / systemd  the patched userspace (trees build/{crun,runc,systemd}/src)'
	@echo 'make deps               install the host packages (apt-get, idempotent)'
	@echo 'make clean / distclean  remove build outputs / all of build/'

deps:
	@scripts/host/apt.sh install $(DEPS)

base: deps
	@scripts/tree/base.sh

tree: deps
	@scripts/tree/linux.sh

save:
	@scripts/tree/save.sh

# Kernel variants, one rule: $(1) the name ("" is make check's own kernel),
# $(2) the source tree, $(3) the config fragments added to
# config/dentrymob.config.  Each builds in build/obj[-NAME] and gives
# build/bzImage[-NAME].
define kernel_variant
kernel$(if $(1),-$(1)): $(if $(filter base,$(1)),base,tree)
	@EXTRA_CONFIG="$(3)" scripts/tree/build-kernel.sh $(2) build/obj$(if $(1),-$(1))
	@cp build/obj$(if $(1),-$(1))/arch/x86/boot/bzImage build/bzImage$(if $(1),-$(1)).tmp
	@mv build/bzImage$(if $(1),-$(1)).tmp build/bzImage$(if $(1),-$(1))
.PHONY: kernel$(if $(1),-$(1))
endef
# The unpatched base with the same config, for side-by-side runs.
$(eval $(call kernel_variant,,build/linux,))
$(eval $(call kernel_variant,base,build/base,))
$(eval $(call kernel_variant,debug,build/linux,config/debug.config))
$(eval $(call kernel_variant,tools,build/linux,config/tools.config))
$(eval $(call kernel_variant,integration,build/linux,config/integration.config))
$(eval $(call kernel_variant,locks,build/linux,config/locks.config))
$(eval $(call kernel_variant,rt,build/linux,config/rt.config))

tests: kernel
	@scripts/check/build-tests.sh

initramfs: tests
	@scripts/guest/mkinitramfs.sh

check: deps kernel tests initramfs
	@GUEST_TIMEOUT=$(call timeout,check) GUEST_SKIP=fail scripts/guest/guest.py

# The debug kernel's struct dentry is larger (lockdep maps in d_lock and
# d_seq): guest_test's size check gets the size this build really has.
# walk_test's directory of a million dentries would not fit KASAN's guest,
# nor its time: with 200000 its six tests took 587 s of the 600 each
# binary had, on an idle build machine, and timed out in CI; 100000 still
# make each walk 1500 batches of 64.  Each binary gets 1200 s there.
# 10000 cycles of cycles_test take 25 min there (about 164 ms each):
# 1500 run every variant under lockdep and kmemleak in about 4 min.  The
# full 10000 by hand: make check-debug GUEST_ENV=DENTRYMOB_CYCLES=10000
# TEST_TIMEOUT=2400 GUEST_TIMEOUT=3600 (docs/robustness.md).  The roots
# test's 20000 mounts took 6 min there, at 4.6 us a root against the 5 us
# meant for the make check kernel: 5000 roots, and 20 us.  walk_test's
# reclaim observers waited up to 116 ms there, against 150 meant for make
# check: 300.
debug_env = $(if $(findstring DENTRYMOB_HUGE_N,$(GUEST_ENV)),,DENTRYMOB_HUGE_N=100000) \
	$(if $(findstring DENTRYMOB_CYCLES,$(GUEST_ENV)),,DENTRYMOB_CYCLES=1500) \
	$(if $(findstring DENTRYMOB_ROOTS,$(GUEST_ENV)),,DENTRYMOB_ROOTS=5000 DENTRYMOB_ROOT_NS=20000) \
	$(if $(findstring DENTRYMOB_SLOW_MS,$(GUEST_ENV)),,DENTRYMOB_SLOW_MS=300)
# The selftests on PREEMPT_RT, where the stock's lock must not sleep.
# d_lock is an rt_mutex there, so struct dentry is larger, as in the debug
# kernel.
check-rt: deps kernel-rt tests initramfs
	@GUEST_KERNEL=build/bzImage-rt GUEST_LOG=console-rt \
		GUEST_TIMEOUT=$(call timeout,check) GUEST_SKIP=fail \
		GUEST_ENV="DENTRYMOB_DENTRY_SIZE=$$(scripts/tree/dentry-size.sh build/obj-rt) $(GUEST_ENV)" \
		scripts/guest/guest.py

check-debug: deps kernel-debug tests initramfs
	@GUEST_KERNEL=build/bzImage-debug GUEST_LOG=console-debug \
		GUEST_TIMEOUT=$(call timeout,debug) GUEST_SKIP=fail \
		TEST_TIMEOUT=$(if $(filter command line environment,$(origin TEST_TIMEOUT)),$(TEST_TIMEOUT),1200) \
		GUEST_ENV="DENTRYMOB_DENTRY_SIZE=$$(scripts/tree/dentry-size.sh build/obj-debug) $(debug_env) $(GUEST_ENV)" \
		scripts/guest/guest.py

demo: deps kernel
	@GUEST_TIMEOUT=$(call timeout,demo) scripts/demo/run.sh

crun: deps
	@scripts/tools/build-crun.sh

runc: deps
	@scripts/tools/build-runc.sh

check-tools: deps kernel-tools crun runc
	@GUEST_TIMEOUT=$(call timeout,tools) TEST_TIMEOUT=$(call timeout,tools) \
		scripts/tools/run.sh

systemd: deps
	@scripts/integration/build-systemd.sh

rootfs-integration: systemd crun
	@scripts/integration/mk-rootfs.sh

check-integration: deps kernel-integration rootfs-integration
	@GUEST_TIMEOUT=$(call timeout,integration) scripts/integration/run.py

check-upstream: deps kernel kernel-base tests
	@GUEST_TIMEOUT=$(call timeout,upstream) scripts/upstream/run.sh

# Both kernels, the same static benchmarks and QEMU settings; the medians
# and ratios go to bench/results.md (see docs/bench.md).
bench: deps kernel-base kernel
	@bench/build.sh
	@INITRAMFS_OUT=build/bench-initramfs.cpio INITRAMFS_TESTS=build/bench \
		scripts/guest/mkinitramfs.sh
	@BENCH_COMMAND="make bench $(strip $(MAKEOVERRIDES))" \
		GUEST_TIMEOUT=$(call timeout,bench) TEST_TIMEOUT=$(call timeout,bench) \
		bench/run-bench.py

# Rewrite bench/results.md from the consoles of the last make bench.
bench-report:
	@bench/run-bench.py --report

# The longest holds of d_lock, rename_lock and the LRU locks during the
# flood and a 1M-dentry migration, from /proc/lock_stat of the patched
# kernel built with config/locks.config: bench/locks.md (docs/bench.md).
# 9: the per-CPU charge stock, four CPUs, wall time: bench/smp.md.
bench-smp: deps kernel-base kernel
	@bench/build.sh
	@INITRAMFS_OUT=build/bench-initramfs.cpio INITRAMFS_TESTS=build/bench \
		scripts/guest/mkinitramfs.sh
	@BENCH_COMMAND="make bench-smp $(strip $(MAKEOVERRIDES))" \
		GUEST_TIMEOUT=$(call timeout,bench) TEST_TIMEOUT=$(call timeout,bench) \
		bench/run-bench.py --smp

bench-locks: deps kernel-locks
	@bench/build.sh
	@INITRAMFS_OUT=build/bench-initramfs.cpio INITRAMFS_TESTS=build/bench \
		scripts/guest/mkinitramfs.sh
	@BENCH_COMMAND="make bench-locks $(strip $(MAKEOVERRIDES))" \
		GUEST_TIMEOUT=$(call timeout,bench) TEST_TIMEOUT=$(call timeout,bench) \
		bench/run-bench.py --locks

series: tree
	@scripts/series/export.sh

checkpatch: series
	@scripts/series/checkpatch.sh

series-buildcheck: series
	@scripts/series/buildcheck.sh

# Keeps the trees (build/base, build/linux and its worktree build/series-git,
# build/crun/src, build/runc/src, build/systemd/src: they may hold unsaved
# work), the debootstrap of check-integration and the ccache.
clean:
	rm -rf build/obj build/obj-* build/bzImage build/bzImage-* build/series \
		build/tests build/kselftest build/initramfs build/*.cpio build/*.img build/*.log \
		build/*.json build/*.txt build/demo build/tools build/bench \
		build/bench-initramfs build/upstream-tests build/initramfs-upstream \
		build/integration/root build/integration/*.img build/integration/*.log \
		build/crun/root build/crun/build build/runc/root build/runc/build \
		build/systemd/obj build/systemd/dest

# The trees may hold work that make save has not written to patches/ yet.
distclean:
	@[ "$(FORCE)" = 1 ] || scripts/tree/save.sh --check || \
		{ echo 'make distclean: the trees above hold unsaved work: make save, or FORCE=1'; exit 1; }
	rm -rf build
