#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# A peer workload nobody here wrote: Debian's stress-ng filesystem
# stressors run inside a bound ext4 tree and a bound tmpfs tree at a small
# dentry.max.  The other tests drive the controller the way its authors
# think of it; stress-ng makes, renames, links and removes names in its own
# patterns, and treats every errno its own way.
#
# For each tree, in a cgroup of its own below a common parent:
#  - the freshly bound empty directory is charged 1 (its root);
#  - stress-ng runs the nine stressors together, which race for the same
#    dentries, then each alone: together, those that make many names (dir,
#    dirdeep) can take the whole limit before the others have made their
#    temporary directory;
#  - stress-ng may see ENOMEM from the limit, and fail operations for it,
#    but must not crash, fail for any other reason (a --verify failure) or
#    see ENOMEM when the limit refused nothing (dentry.events);
#  - dentry.peak and dentry.current, sampled while stress-ng runs, stay at
#    most dentry.max on any number of CPUs: every charge in the run is made
#    inside the one mob, so none is forced (only a bind, a mount joining it
#    or a rename the kernel makes itself is), and a charge takes a level
#    only if it stays within the limit (a cmpxchg), never adding first and
#    taking a refused charge back;
#  - once the tree is emptied, dentry.current is exactly 1 (the root) plus
#    the negative dentries left where names were removed (dentry.stat
#    "negative"; none on tmpfs, which caches no negative dentry);
#  - unbinding returns every charge: dentry.current of the cgroup and of
#    its parent is exactly 0.
#
# The kernel's own reports (KASAN, lockdep, WARN) are judged by the host
# from the console.  /tests/stress-ng/run, where a test guest may stage a
# stress-ng with its libraries, is used if it exists; else the stress-ng
# in PATH.
#
# On a kernel without the controller the test skips (exit code 4,
# KSFT_SKIP), as the C programs of this directory do.
#
# Each stress-ng run lasts a fixed wall time on any kernel (the nine
# together DENTRYMOB_STRESSNG_SECONDS, 15 by default; each alone a fifth of
# it), so the debug kernel, 10-30 times slower under TCG, does fewer
# operations in the same time: the bogo-op counts are printed, not judged.

SNG=/tests/stress-ng/run
[ -x $SNG ] || SNG=stress-ng
SECS=${DENTRYMOB_STRESSNG_SECONDS:-15}
ALONE=$(((SECS + 4) / 5))
SCRATCH=${DENTRYMOB_SCRATCH:-/mnt/scratch}
CGROOT=/sys/fs/cgroup
P=$CGROOT/stressng_test.$$	# the parent of both cgroups
W=/tmp/stressng_test.$$		# outside every mob: logs, the tmpfs mountpoint
EXT4_MAX=300
TMPFS_MAX=500
STRESSORS="dentry dir dirdeep dirmany rename link symlink getdent touch"

ntest=0
nfail=0

# check DESCRIPTION COMMAND...: one TAP result.
check() {
	local what=$1

	shift
	ntest=$((ntest + 1))
	if "$@"; then
		echo "ok $ntest $what"
	else
		echo "not ok $ntest $what"
		nfail=$((nfail + 1))
	fi
}

diag() { echo "# $*"; }

# eq A B: A and B are the same (an unreadable file gives "").
eq() {
	[ "$1" = "$2" ] && return 0
	diag "got '$1', expected '$2'"
	return 1
}

le() {
	[ -n "$1" ] && [ "$1" -le "$2" ] && return 0
	diag "got '$1', expected at most $2"
	return 1
}

# key FILE KEY: the value of KEY in a flat-keyed file.
key() { awk -v k="$2" '$1 == k { print $2 }' "$1" 2>/dev/null; }

# sampler CGROUP OUT: the highest dentry.current seen while $W/running
# exists, and the number of samples, written to OUT.
sampler() {
	local hi=0 n=0 c

	while [ -e "$W/running" ]; do
		c=$(cat "$1/dentry.current")
		[ "$c" -gt "$hi" ] && hi=$c
		n=$((n + 1))
		sleep 0.2
	done
	echo "$hi $n" >"$2"
}

# stressng CGROUP DIR LOG ARGS...: run stress-ng with ARGS in DIR, print
# its output and numbers as diagnostics, and judge it: true if it exited on
# its own and every failure it reported comes from the limit.
stressng() {
	local cg=$1 dir=$2 log=$3 ev0 t0 rc refused enomem bad

	shift 3
	set -- "$@" --temp-path "$dir" --verify --metrics-brief --no-rand-seed
	diag "stress-ng $*"
	ev0=$(key "$cg/dentry.events" max)
	t0=$(date +%s)
	"$SNG" "$@" >"$log" 2>&1
	rc=$?
	refused=$(($(key "$cg/dentry.events" max) - ev0))
	sed 's/^/# /' "$log"
	enomem=$(grep -c -e 'errno=12' -e 'Cannot allocate memory' "$log")
	diag "took $(($(date +%s) - t0)) s, exit code $rc; bogo ops:" \
		$(awk '/metrc:/ && $5 ~ /^[0-9]+$/ { print $4 "=" $5 }' "$log")
	diag "allocations the limit refused: $refused;" \
		"stress-ng lines with ENOMEM: $enomem"

	# Exit codes (stress-ng.h): 0 success, 2 a stressor failed, 3 one
	# lacked a resource, which only the limit may cause here; 1 is a usage
	# error, 4 a stressor not implemented here, 5 and above a stressor
	# killed by a signal, or worse.
	case $rc in
	0 | 2) ;;
	3) [ "$refused" -gt 0 ] ||
		{ diag "out of resources, but the limit refused nothing"
		  return 1; } ;;
	*) diag "stress-ng exited with $rc"; return 1 ;;
	esac
	if [ "$enomem" -gt 0 ] && [ "$refused" -le 0 ]; then
		diag "ENOMEM, but the limit refused nothing"
		return 1
	fi
	# The "fail:" lines, but the summary naming the failed stressors, an
	# ENOMEM, and, once the limit refused something:
	#  - the ENOTEMPTY of a stressor's last rmdir of its own directory:
	#    stress-ng's clean-up ignores the errors of its stat() and
	#    unlink(), which need a new dentry for a name no longer cached,
	#    and the limit may refuse that too;
	#  - "symlink: readlinkat failed, errno=2": the readlinkat() of a
	#    link whose dentry reclaim freed right after symlink() returned
	#    fails with ENOMEM, and stress-ng 0.15.06 calls statfs() on the
	#    bare name (relative to its cwd, so ENOENT) before it prints
	#    errno.  Traced with strace in the guest: readlinkat() = -ENOMEM,
	#    then statfs() = -ENOENT, then the message; never a real ENOENT.
	bad=$(grep ' fail: ' "$log" | grep -v ' failed: [0-9]*:' |
	      grep -v -e 'errno=12' -e 'Cannot allocate memory' |
	      if [ "$refused" -gt 0 ]; then
		      grep -v -e "rmdir '$dir/tmp-stress-ng-[^ ]*' failed, errno=39" \
			   -e 'symlink: readlinkat failed, errno=2 '
	      else
		      cat
	      fi)
	[ -z "$bad" ] && return 0
	diag "failures not caused by the limit:"
	echo "$bad" | sed 's/^/#   /'
	return 1
}

# phase NAME DIR MAX: the stressors in DIR, bound to cgroup $P/NAME at MAX.
phase() {
	local name=$1 dir=$2 max=$3 cg=$P/$1 bad s all peak hi cur neg

	mkdir "$cg" && echo "$max" >"$cg/dentry.max" &&
		echo "$dir" >"$cg/dentry.root"
	check "$name: bound empty $dir at dentry.max $max is charged 1" \
		eq "$(cat "$cg/dentry.current")" 1

	: >"$W/running"
	sampler "$cg" "$W/$name.hi" &
	all=
	for s in $STRESSORS; do
		all="$all --$s 1"
	done
	# shellcheck disable=SC2086 # $all is a list of options
	check "$name: nine stressors together fail only for the limit" \
		stressng "$cg" "$dir" "$W/$name.log" $all --timeout "${SECS}s"
	bad=0
	for s in $STRESSORS; do
		stressng "$cg" "$dir" "$W/$name.log" "--$s" 1 \
			--timeout "${ALONE}s" || bad=1
	done
	check "$name: each stressor alone fails only for the limit" \
		[ $bad -eq 0 ]
	rm -f "$W/running"
	wait

	peak=$(cat "$cg/dentry.peak")
	read -r hi s <"$W/$name.hi"
	diag "$name dentry.max $max: dentry.peak $peak," \
		"highest of $s samples of dentry.current $hi;" \
		"dentry.events max $(key "$cg/dentry.events" max)," \
		"reclaimed $(key "$cg/dentry.stat" reclaimed)"
	check "$name: dentry.peak stays at most dentry.max" le "$peak" "$max"
	check "$name: sampled dentry.current at most dentry.max" le "$hi" "$max"

	# stress-ng removes its files; what it could not remove goes now.
	diag "$name: left behind by stress-ng:" \
		"$(find "$dir" -mindepth 1 | wc -l) names"
	rm -rf "${dir:?}"/* "$dir"/.[!.]* 2>/dev/null
	check "$name: the tree is empty again" eq "$(ls -A "$dir")" ""
	cur=$(cat "$cg/dentry.current")
	neg=$(key "$cg/dentry.stat" negative)
	diag "$name emptied: dentry.current $cur, negative $neg"
	check "$name: dentry.current is the root plus its negative dentries" \
		eq "$cur" $((1 + ${neg:-0}))

	echo "-$dir" >"$cg/dentry.root"
	check "$name: unbinding returns every charge" \
		eq "$(cat "$cg/dentry.current") $(cat "$P/dentry.current")" "0 0"
	check "$name: cgroup removed" rmdir "$cg"
}

echo "TAP version 13"
if ! grep -qw dentry "$CGROOT/cgroup.controllers" 2>/dev/null; then
	echo "1..0 # SKIP no dentry controller in $CGROOT/cgroup.controllers"
	exit 4
fi
if ! "$SNG" --version >/dev/null 2>&1; then
	diag "$SNG does not run"
	echo "1..0 # SKIP stress-ng is missing"
	exit 4
fi
diag "$("$SNG" --version)"
start=$(date +%s)

grep -qw dentry "$CGROOT/cgroup.subtree_control" ||
	echo +dentry >"$CGROOT/cgroup.subtree_control"
mkdir -p "$W" && mkdir "$P" && echo +dentry >"$P/cgroup.subtree_control"
check "parent cgroup with the dentry controller for its children" \
	grep -qw dentry "$P/cgroup.subtree_control"

# A phase whose directory is missing fails its own checks.
mkdir "$SCRATCH/stressng"
phase ext4 "$SCRATCH/stressng" $EXT4_MAX
rmdir "$SCRATCH/stressng"

mkdir "$W/tmpfs"
check "tmpfs mounted" mount -t tmpfs -o size=64m tmpfs "$W/tmpfs"
mkdir "$W/tmpfs/stressng"
phase tmpfs "$W/tmpfs/stressng" $TMPFS_MAX
umount "$W/tmpfs"

check "parent cgroup removed" rmdir "$P"
rm -rf "$W"
diag "took $(($(date +%s) - start)) s"

echo "1..$ntest"
[ $nfail -eq 0 ] || exit 1
exit 0
