#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the dentrymob selftests into build/tests/, static, so the guest needs
# no libraries.  They are built from the overlaid copy in build/linux, where
# "../kselftest_harness.h" resolves, against the uapi headers of the kernel
# just built (as kselftest's KHDR_INCLUDES does).
. "$(dirname "$0")/../lib.sh"
dir=$B/linux/tools/testing/selftests/dentrymob
out=$B/tests
: "${TEST_CFLAGS:=-static -O2 -g -Wall -pthread -D_GNU_SOURCE=}"

kmake -s -C "$B/linux" O="$B/obj" headers

rm -rf "$out" && mkdir -p "$out"
shopt -s nullglob
srcs=("$dir"/*_test.c)
[ ${#srcs[@]} -gt 0 ] || die "no tests: $dir/*_test.c does not exist (is tools/ overlaid?)"
# In parallel: a static link takes about a second each.
pids=()
for c in "${srcs[@]}"; do
	name=$(basename "$c" .c)
	echo "  CC      tests/$name" >&2
	# shellcheck disable=SC2086 # TEST_CFLAGS is a list of flags
	ccache gcc $TEST_CFLAGS -isystem "$B/obj/usr/include" \
		-I "$B/linux/tools/testing/selftests" -o "$out/$name" "$c" &
	pids+=($!)
done
failed=0
for i in "${!pids[@]}"; do
	wait "${pids[$i]}" || { echo "ERROR: building ${srcs[$i]} failed" >&2; failed=1; }
done
[ $failed -eq 0 ] || die "the selftests do not build"
# Shell tests (*_test.sh) and helper scripts, if any.
for s in "$dir"/*.sh; do
	install -m 0755 "$s" "$out/"
done
