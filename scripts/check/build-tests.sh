#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build the dentrymob selftests the kselftest way, through lib.mk's install
# (static, so the guest needs no libraries), into build/kselftest/: the
# tree that run_kselftest.sh runs in the guest (scripts/guest/init).  They
# are built from the overlaid copy in build/linux, against the uapi headers
# of the kernel just built (KHDR_INCLUDES).  build/tests/ gets what is not a
# kernel selftest: the harness's own guest_test and stress-ng's staging.
. "$(dirname "$0")/../lib.sh"
dir=$B/linux/tools/testing/selftests/dentrymob
ksft=$B/kselftest
out=$B/tests
: "${TEST_CFLAGS:=-O2 -g}"

kmake -s -C "$B/linux" O="$B/obj" headers

shopt -s nullglob
srcs=("$dir"/*_test.c)
[ ${#srcs[@]} -gt 0 ] || die "no tests: $dir/*_test.c does not exist (is tools/ overlaid?)"
rm -rf "$ksft" "$out" && mkdir -p "$out"
# lib.mk's install: the programs, settings, kselftest-list.txt and
# run_kselftest.sh with its runner, as upstream CI installs them.
make -s -C "$B/linux/tools/testing/selftests" O="$B/obj" TARGETS=dentrymob \
	KSFT_INSTALL_PATH="$ksft" CC="ccache gcc" USERCFLAGS="$TEST_CFLAGS" \
	USERLDFLAGS=-static -j"$(nproc)" install >/dev/null ||
	die "make -C tools/testing/selftests TARGETS=dentrymob install fails"
# The list run_kselftest.sh takes from the Makefile (lib.mk's emit_tests)
# must name every test here: a Makefile that misses a program fails.
listed=$(sed -n 's/^dentrymob://p' "$ksft/kselftest-list.txt" | sort)
ours=$(cd "$dir" && printf '%s\n' *_test.c *_test.sh | sed 's/\.c$//' | sort)
[ "$listed" = "$ours" ] ||
	die "kselftest-list.txt lists: $(tr '\n' ' ' <<<"$listed")
  the directory has: $(tr '\n' ' ' <<<"$ours")"
for t in $listed; do
	readelf -l "$ksft/dentrymob/$t" 2>/dev/null | grep -q INTERP &&
		die "$t is not static: the guest has no libc"
done

# The harness's own checks of the guest (scripts/check/guest_test.c) run
# before the selftests; they are not kernel selftests.
echo "  CC      tests/guest_test" >&2
# shellcheck disable=SC2086 # TEST_CFLAGS is a list of flags
ccache gcc $TEST_CFLAGS -static -Wall -D_GNU_SOURCE= -isystem "$B/obj/usr/include" \
	-I "$B/linux/tools/testing/selftests" -o "$out/guest_test" \
	"$(dirname "$0")/guest_test.c" || die "guest_test.c does not build"

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
