#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the dentrymob selftests into build/tests/, static, so the guest needs
# no libraries, with the harness's own guest_test beside them.  They are
# built from the overlaid copy in build/linux, where "kselftest_harness.h"
# resolves, against the uapi headers of the kernel just built (as
# kselftest's KHDR_INCLUDES does).
. "$(dirname "$0")/../lib.sh"
dir=$B/linux/tools/testing/selftests/dentrymob
out=$B/tests
: "${TEST_CFLAGS:=-static -O2 -g -Wall -pthread -D_GNU_SOURCE=}"

kmake -s -C "$B/linux" O="$B/obj" headers

rm -rf "$out" && mkdir -p "$out"
shopt -s nullglob
srcs=("$dir"/*_test.c)
[ ${#srcs[@]} -gt 0 ] || die "no tests: $dir/*_test.c does not exist (is tools/ overlaid?)"
# cc OUT ARGS...: the one compiler command line, in build/linux's selftests.
cc() {
	local o=$1
	shift
	# shellcheck disable=SC2086 # TEST_CFLAGS is a list of flags
	ccache gcc $TEST_CFLAGS -isystem "$B/obj/usr/include" \
		-I "$B/linux/tools/testing/selftests" -o "$o" "$@"
}
# The plain helpers, compiled once and linked into every test program (the
# selftests' Makefile has lib.mk compile them with each program instead).
util=$out/.dentrymob_util.o
echo "  CC      tests/.dentrymob_util.o" >&2
cc "$util" -c "$dir/dentrymob_util.c" || die "dentrymob_util.c does not build"
# The harness's own checks of the guest (scripts/check/guest_test.c) run
# as one more test program; they are not kernel selftests.
srcs+=("$(dirname "$0")/guest_test.c")
# In parallel: a static link takes about a second each.
pids=()
for c in "${srcs[@]}"; do
	name=$(basename "$c" .c)
	echo "  CC      tests/$name" >&2
	case $c in
	"$dir"/*) cc "$out/$name" "$c" "$util" & ;;
	*) cc "$out/$name" "$c" & ;;
	esac
	pids+=($!)
done
failed=0
for i in "${!pids[@]}"; do
	wait "${pids[$i]}" || { echo "ERROR: building ${srcs[$i]} failed" >&2; failed=1; }
done
[ $failed -eq 0 ] || die "the selftests do not build"
rm -f "$util"
# Shell tests (*_test.sh) and helper scripts, if any.
for s in "$dir"/*.sh; do
	install -m 0755 "$s" "$out/"
done

# The kselftest way too, as upstream builds them (docs/harness.md), into
# build/obj/kselftest/dentrymob/; and the list kselftest's runner takes
# from the Makefile (lib.mk's emit_tests) must name every test here, so a
# Makefile that misses a program fails make check.
make -s -C "$B/linux/tools/testing/selftests" O="$B/obj" TARGETS=dentrymob \
	>/dev/null || die "make -C tools/testing/selftests TARGETS=dentrymob fails"
emitted=$(make -s --no-print-directory -C "$dir" top_srcdir="$B/linux" \
	OUTPUT="$B/obj/kselftest/dentrymob" emit_tests | sed 's/^.*://' | sort)
ours=$(cd "$dir" && printf '%s\n' *_test.c *_test.sh | sed 's/\.c$//' | sort)
[ "$emitted" = "$ours" ] ||
	die "the selftests' Makefile lists: $(tr '\n' ' ' <<<"$emitted")
  the directory has: $(tr '\n' ' ' <<<"$ours")"

# stress-ng for stressng_test.sh: Debian's own binary (make deps installs it)
# with the shared libraries that ldd names, as make check-tools does for
# runc.  The guest's root is a static busybox with no /lib64 or /lib, so
# they go below the helper directory tests/stress-ng/ at the paths ldd
# gives, and the wrapper tests/stress-ng/run starts the binary through the
# copied dynamic loader with --library-path: nothing outside /tests changes
# for the other tests.  /init runs only *_test, *_test.sh and *_bench.sh.
sng=/usr/bin/stress-ng
[ -x $sng ] || die "$sng is missing: run make deps"
S=$out/stress-ng G=/tests/stress-ng	# G: where S is in the guest
libs=$(ldd $sng | grep -o '/[^ ]*')
install -D -m 0755 $sng "$S$sng"
for lib in $libs; do
	install -D -m 0755 "$(readlink -f "$lib")" "$S$lib"
done
ld=$(grep /ld-linux <<<"$libs") || die "ldd names no dynamic loader for $sng"
libpath=$(grep -v /ld-linux <<<"$libs" | xargs -n1 dirname | sort -u |
	sed "s|^|$G|" | paste -sd:)
cat >"$S/run" <<RUN
#!/bin/sh
# $sng through its own loader (scripts/check/build-tests.sh)
exec $G$ld --library-path $libpath $G$sng "\$@"
RUN
chmod 0755 "$S/run"
