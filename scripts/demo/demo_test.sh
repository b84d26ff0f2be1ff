#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make demo: the guest's program.  A "container" (its own mount namespace,
# root on a tmpfs, data on the ext4 disk) in a cgroup whose dentry mob is
# bound to both trees and capped; inside it, the mkdir loop and a flood of
# lookups of missing names; outside it, the rest of the system.
#
# It prints a transcript for people and TAP for scripts/guest/guest.py: every
# claim the transcript makes is checked, and a claim that does not hold is a
# "not ok", so make demo fails when the dentries are not contained.
set -eu
set -o pipefail

CG=/sys/fs/cgroup
C=$CG/ct1			# the container's cgroup
ROOT=/ct1			# its root filesystem, a tmpfs
DATA=/mnt/scratch/ct1-data	# its data directory on ext4, bound at /data
MAX=1000
FLOOD=5000
# shellcheck source=scripts/guest/tap.sh
. "$(dirname "$0")/tap.sh"
val() { cat "$C/dentry.$1"; }
key() { sed -n "s/^$2 //p" "$C/dentry.$1"; }	# key FILE KEY
show() {
	printf '   current %s  peak %s  max %s | events: %s | stat: %s\n' \
		"$(val current)" "$(val peak)" "$(val max)" \
		"$(tr '\n' ' ' <"$C/dentry.events")" \
		"$(tr '\n' ' ' <"$C/dentry.stat")"
}
# The kernel's global dcache counters: nr_dentry and nr_negative.
global() { awk '{ print "nr_dentry " $1 ", nr_negative " $5 }' /proc/sys/fs/dentry-state; }
nr_dentry() { awk '{ print $1 }' /proc/sys/fs/dentry-state; }
nr_negative() { awk '{ print $5 }' /proc/sys/fs/dentry-state; }

# Run a shell command in the container: join its cgroup, take a new mount
# namespace, bind its data directory and its cgroup directory (to watch its
# own dentry.* files from inside), chroot.  This is what a runtime would do,
# with busybox and nothing else.
cat >/tmp/container <<EOF
echo \$\$ > $C/cgroup.procs
exec unshare -m sh -c '
	mount --make-rprivate / &&
	mount --bind $DATA $ROOT/data &&
	mount --bind $C $ROOT/cg &&
	exec chroot $ROOT /bin/sh -c "PATH=/bin; \$0"' "\$1"
EOF
container() { sh /tmp/container "$1"; }

echo "The dentry cgroup controller: a container whose dcache is capped."
echo "Kernel $(uname -r).  Every '# ...' line is a command being run."

say "1. A cgroup for the container, with the dentry controller enabled"
run "echo +dentry > $CG/cgroup.subtree_control"
run "mkdir $C"
run "ls $C | grep dentry | tr '\n' ' '; echo"

say "2. The container's root: a tmpfs with a static busybox; its data: a directory on the ext4 disk"
run "mkdir $ROOT && mount -t tmpfs -o size=64m ct1-root $ROOT"
run "mkdir $ROOT/bin $ROOT/dev $ROOT/tmp $ROOT/data $ROOT/cg && cp /bin/busybox $ROOT/bin/"
run "mknod -m 666 $ROOT/dev/null c 1 3"
run "for a in sh cat mkdir stat seq sed sort uniq xargs grep tr awk; do ln -s busybox $ROOT/bin/\$a; done"
run "mkdir $DATA"

say "3. Bind both trees to the cgroup's mob and cap it at $MAX dentries"
run "echo $ROOT > $C/dentry.root"
run "echo $DATA > $C/dentry.root"
run "echo $MAX > $C/dentry.max"
run "cat $C/dentry.root"
show
check "dentry.root lists both roots" \
	test "$(awk '{ print $2 }' "$C/dentry.root" | sort | tr '\n' ' ')" = "/ /ct1-data "
check "dentry.max reads back $MAX" test "$(val max)" = "$MAX"

say "4. Inside the container: stat() $FLOOD missing names in /data (ext4 keeps negative dentries)"
cat >"$ROOT/flood.sh" <<'EOF'
set -eu
cd /data
b=0
while [ $b -lt 10 ]; do
	# 500 names per stat(1); each fails, and should fail with ENOENT
	seq $((b * 500)) $((b * 500 + 499)) | sed 's/^/missing-/' |
		xargs stat 2>&1 >/dev/null | sed 's/.*: //' | sort | uniq -c |
		sed 's/^ */   stat errors: /'
	printf '   after %5d names: current %s, negative %s, reclaimed %s\n' \
		$((b * 500 + 500)) "$(cat /cg/dentry.current)" \
		"$(grep negative /cg/dentry.stat | cut -d' ' -f2)" \
		"$(grep reclaimed /cg/dentry.stat | cut -d' ' -f2)"
	b=$((b + 1))
done
EOF
g0=$(nr_negative)
before=$(val current)
run "container 'sh /flood.sh' > /tmp/flood.out; cat /tmp/flood.out"
show
echo "   global: $(global)"
check "every stat() failed with ENOENT, none with ENOMEM" \
	test "$(grep -c 'stat errors: *500 No such file or directory$' /tmp/flood.out)" = 10
check "dentry.peak stayed within dentry.max" test "$(val peak)" -le "$MAX"
check "at least $FLOOD - ($MAX - $before) dentries were reclaimed by the limit" \
	test "$(key stat reclaimed)" -ge $((FLOOD - (MAX - before)))
check "the global negative count grew by less than the cap" \
	test $(($(nr_negative) - g0)) -le "$MAX"

echo
echo "   The same on the container's tmpfs root: tmpfs never keeps a negative"
echo "   dentry (each one is freed as soon as its lookup is done), so there is"
echo "   nothing to contain there."
before=$(val current)
run "container 'seq 1 500 | sed s/^/missing-/ | { xargs stat >/dev/null 2>&1 || [ \$? = 123 ]; }'"
show
check "a flood on tmpfs leaves no dentry behind" test "$(val current)" = "$before"

say "5. Inside the container: while mkdir x; do cd x; done (tmpfs pins every dentry)"
cat >"$ROOT/loop.sh" <<'EOF'
set -u
cd /tmp
n=0
while err=$(mkdir x 2>&1); do
	cd x
	n=$((n + 1))
	if [ $((n % 200)) = 0 ]; then
		printf '   depth %4d: current %s\n' $n "$(cat /cg/dentry.current)"
	fi
done
echo "   the loop stopped at depth $n: $err"
echo "depth=$n"
EOF
neg=$(key stat negative)
ev0=$(key events max)
run "container 'sh /loop.sh' > /tmp/loop.out; cat /tmp/loop.out"
show
depth=$(sed -n 's/^depth=//p' /tmp/loop.out)
check "mkdir failed with ENOMEM" grep -q "Cannot allocate memory\|Out of memory" /tmp/loop.out
check "the mob is exactly full: dentry.current = dentry.max = $MAX" test "$(val current)" = "$MAX"
# dentry.stat's "unused" counts the (lazy) LRU, which also holds dentries
# in use again, so what is pinned is read off the result: the loop's depth
# and the rest of the mob, none of which is a reclaimable negative dentry.
check "the loop reclaimed all $neg negative dentries of the flood (dentry.stat negative = 0) and reached depth $depth = max - $((MAX - depth)) in use" \
	test "$(key stat negative)" = 0 -a "$depth" -gt $((MAX - neg))
check "dentry.events counted the refusal" test "$(key events max)" -gt "$ev0"

say "6. Outside the container, the rest of the system allocates freely"
d0=$(nr_dentry) n0=$(nr_negative)
echo "   global before: $(global)"
run "mkdir /tmp/outside && seq 1 3000 | sed 's|^|/tmp/outside/d|' | xargs mkdir"
run "mkdir /mnt/scratch/outside && cd /mnt/scratch/outside && seq 1 $FLOOD | sed 's/^/missing-/' | { xargs stat >/dev/null 2>&1 || [ \$? = 123 ]; }; cd /"
echo "   global after:  $(global)"
show
check "3000 directories made outside" test "$(ls /tmp/outside | wc -l)" = 3000
check "nr_dentry grew by at least 3000 + $FLOOD" test $(($(nr_dentry) - d0)) -ge $((3000 + FLOOD))
check "nr_negative grew by at least $FLOOD" test $(($(nr_negative) - n0)) -ge "$FLOOD"
check "none of it was charged to the container: dentry.current is still $MAX" \
	test "$(val current)" = "$MAX"

say "7. ... while the container still cannot, until its limit is raised"
run "container 'mkdir /tmp/one-more' 2>&1 | tee /tmp/one.out || true"
check "the container's mkdir still fails with ENOMEM" \
	grep -q "Cannot allocate memory\|Out of memory" /tmp/one.out
run "echo $((MAX + 100)) > $C/dentry.max"
run "container 'mkdir /tmp/one-more && echo made /tmp/one-more'"
show
check "with dentry.max raised, the container's mkdir works" test -d "$ROOT/tmp/one-more"

tap_done DEMO ": the container's dentries were contained"
