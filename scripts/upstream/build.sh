#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build upstream's own selftests that matter to this series from the
# unpatched base tree (build/base), static, into build/upstream-tests/:
# tools/testing/selftests/cgroup (every C test), the C tests of
# filesystems/, and the mount tests that go through fs/namespace.c's
# mount and move_mount paths, which patch 0005 changes.  They are
# installed as SUITE-NAME_test, the names scripts/guest/init runs.
# The shell tests (test_cpuset_prs.sh, test_stress.sh, ...) need bash and
# other tools the busybox guest does not have; docs/upstream.md lists them.
. "$(dirname "$0")/../lib.sh"
st=$B/base/tools/testing/selftests
out=$B/upstream-tests
[ -d "$st/cgroup" ] || die "$st is missing: run make tree first"
[ -d "$B/obj/usr/include" ] || die "no uapi headers in build/obj: run make tests first"
khdr=(-isystem "$B/obj/usr/include")
cflags=(-static -O2 -g -Wall -pthread -D_GNU_SOURCE= -I "$st")

rm -rf "$out" && mkdir -p "$out"
# NAME  SOURCES (relative to tools/testing/selftests)  [tools]
tests=(
	"cgroup-test_core cgroup/test_core.c cgroup/cgroup_util.c"
	"cgroup-test_cpu cgroup/test_cpu.c cgroup/cgroup_util.c"
	"cgroup-test_cpuset cgroup/test_cpuset.c cgroup/cgroup_util.c"
	"cgroup-test_freezer cgroup/test_freezer.c cgroup/cgroup_util.c"
	"cgroup-test_hugetlb_memcg cgroup/test_hugetlb_memcg.c cgroup/cgroup_util.c"
	"cgroup-test_kill cgroup/test_kill.c cgroup/cgroup_util.c"
	"cgroup-test_kmem cgroup/test_kmem.c cgroup/cgroup_util.c"
	"cgroup-test_memcontrol cgroup/test_memcontrol.c cgroup/cgroup_util.c"
	"cgroup-test_pids cgroup/test_pids.c cgroup/cgroup_util.c"
	"cgroup-test_zswap cgroup/test_zswap.c cgroup/cgroup_util.c"
	"filesystems-devpts_pts filesystems/devpts_pts.c"
	"filesystems-epoll_wakeup_test filesystems/epoll/epoll_wakeup_test.c"
	"filesystems-eventfd_test filesystems/eventfd/eventfd_test.c"
	"filesystems-statmount_test filesystems/statmount/statmount_test.c tools"
	"filesystems-statmount_test_ns filesystems/statmount/statmount_test_ns.c tools"
	"filesystems-dev_in_maps filesystems/overlayfs/dev_in_maps.c"
	"mount_setattr-mount_setattr_test mount_setattr/mount_setattr_test.c"
	"move_mount_set_group-move_mount_set_group_test move_mount_set_group/move_mount_set_group_test.c"
)
pids=() names=()
for t in "${tests[@]}"; do
	read -r -a w <<<"$t"
	name=${w[0]} srcs=() extra=()
	for s in "${w[@]:1}"; do
		if [ "$s" = tools ]; then
			extra=(-isystem "$B/base/tools/include/uapi")
		else
			srcs+=("$st/$s")
		fi
	done
	echo "  CC      upstream-tests/${name}_test" >&2
	ccache gcc "${cflags[@]}" "${khdr[@]}" "${extra[@]}" \
		-o "$out/${name}_test" "${srcs[@]}" &
	pids+=($!) names+=("$name")
	# two at a time: the machine is shared
	if [ ${#pids[@]} -ge 2 ]; then
		wait "${pids[0]}" || die "building ${names[0]} failed"
		pids=("${pids[@]:1}") names=("${names[@]:1}")
	fi
done
for i in "${!pids[@]}"; do
	wait "${pids[$i]}" || die "building ${names[$i]} failed"
done
