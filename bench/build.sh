#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the benchmarks into build/bench/, static like the selftests, for the
# bench initramfs: bench/dentrybench.c and the guest script that runs it.
# They use no uapi header of the controller, so one build serves both the
# patched and the unpatched kernel.
. "$(dirname "$0")/../scripts/lib.sh"
out=$B/bench
: "${BENCH_CFLAGS:=-static -O2 -g -Wall -Wextra}"
rm -rf "$out" && mkdir -p "$out"
echo "  CC      bench/dentrybench" >&2
# shellcheck disable=SC2086 # BENCH_CFLAGS is a list of flags
ccache gcc $BENCH_CFLAGS -o "$out/dentrybench" bench/dentrybench.c
install -m 0755 bench/dentry_bench.sh "$out/"
