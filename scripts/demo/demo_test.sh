#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make demo: the guest's program.  A container as a runtime lays it out: an
# image of two layers on the ext4 disk, overlayfs with an upper layer at its
# root, a tmpfs on its /dev/shm mounted before the cgroup binds it, and a
# data directory on ext4 at /data.  Its cgroup's dentry mob is bound to the
# root and the data directory and capped.  Beside it, a second overlay of the
# same image in no mob shows what the same attack costs the host without the
# limit.  Inside the container: a flood of lookups of missing names, mkdir
# loops; outside it, the rest of the system.
#
# It prints a transcript for people and TAP for scripts/guest/guest.py: every
# claim the transcript makes is checked, and a claim that does not hold is a
# "not ok", so make demo fails when the dentries are not contained.
set -eu
set -o pipefail

CG=/sys/fs/cgroup
C=$CG/ct1			# the container's cgroup
S=/mnt/scratch			# the ext4 disk
IMG=$S/image			# the image's layers: base (busybox), app
ROOT=/ct1			# the container's root: an overlay of the image
OTHER=/ct2			# another overlay of the image, in no mob
DATA=$S/ct1-data		# its data directory on ext4, bound at /data
LAYERS=2			# lower layers of the image
MAX=1000
FLOOD=5000
# What the host may gain besides the mob's own dentries, in the bound on
# nr_dentry growth: 2 x MAX (the mob's dentries and the layer dentries its
# live overlay dentries pin, about one each) + SLACK (what starting the
# container looks up: /proc, the cgroup's files, the image's directories).
SLACK=256
BOUND=$((2 * MAX + SLACK))
ESCAPE_CAP=$((3 * MAX))		# a mkdir loop that is not stopped ends here
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
# baseline: drop what is unused (the host's and the mob's), then read
# nr_dentry into $base.
baseline() {
	run "echo 2 > /proc/sys/vm/drop_caches"
	base=$(nr_dentry)
	echo "   host nr_dentry before: $base"
}
# growth: the host's nr_dentry growth since baseline, into $growth: the
# smallest of three reads 0.3 s apart (dentries freed by the last exits
# can still be on their way out).
growth() {
	min=$(nr_dentry)
	for _ in 1 2; do
		sleep 0.3
		v=$(nr_dentry)
		[ "$v" -ge "$min" ] || min=$v
	done
	growth=$((min - base))
	echo "   host nr_dentry after:  $min (+$growth)"
}
per() { awk -v g="$1" -v n="$2" 'BEGIN { printf "%.2f", g / n }'; }
dev_of() { awk -v m="$1" '$5 == m { print $3 }' /proc/self/mountinfo; }
enomem() { grep -q "Cannot allocate memory\|Out of memory" "$@"; }
# stopped OUT DEPTH: the loop's mkdir failed with ENOMEM before depth MAX.
stopped() { enomem "$1" && [ "$2" -lt "$MAX" ]; }
roots() { grep -qx "$1" "$C/dentry.root" && grep -qx "$2" "$C/dentry.root"; }

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

say "2. The image: two layers on the ext4 disk; base has a static busybox, app adds files"
run "mkdir -p $IMG/base/bin $IMG/base/dev/shm $IMG/base/etc $IMG/base/tmp $IMG/base/data $IMG/base/cg"
run "cp /bin/busybox $IMG/base/bin/ && chmod 1777 $IMG/base/tmp && mknod -m 666 $IMG/base/dev/null c 1 3"
run "for a in sh cat mkdir rm stat seq sed sort uniq xargs grep cut tr; do ln -s busybox $IMG/base/bin/\$a; done"
# The tenant's programs, in the app layer's /bin.
mkdir -p "$IMG/app/bin" "$IMG/app/etc" "$IMG/app/tmp" "$IMG/app/usr/share/app"
# flood.sh N: stat() N missing names in the current directory, 500 per
# stat(1), and count the errors; in the container, the mob's counters
# every 1000 names.
cat >"$IMG/app/bin/flood.sh" <<'EOF'
b=0
while [ $((b * 500)) -lt "$1" ]; do
	seq $((b * 500)) $((b * 500 + 499)) | sed 's/^/missing-/' |
		xargs stat 2>&1 >/dev/null | sed 's/.*: //' >>/tmp/flood.err
	b=$((b + 1))
	if [ -e /cg/dentry.current ] && [ $((b % 2)) = 0 ]; then
		printf '   after %5d names: current %s, negative %s, reclaimed %s\n' \
			$((b * 500)) "$(cat /cg/dentry.current)" \
			"$(grep negative /cg/dentry.stat | cut -d' ' -f2)" \
			"$(grep reclaimed /cg/dentry.stat | cut -d' ' -f2)"
	fi
done
sort /tmp/flood.err | uniq -c | sed 's/^ */   stat errors: /'
rm /tmp/flood.err
EOF
# loop.sh DIR CAP [NAME]: while mkdir x; do cd x; done in DIR (x or NAME
# at the first level), stopped at CAP levels if nothing else stops it;
# mkdir's error goes to stderr.
cat >"$IMG/app/bin/loop.sh" <<'EOF'
cd "$1"
n=0 x=${3:-x}
while [ $n -lt "$2" ] && mkdir "$x"; do
	cd -P "$x"
	x=x
	n=$((n + 1))
	if [ $((n % 200)) = 0 ]; then
		printf '   depth %4d: current %s\n' $n "$(cat /cg/dentry.current)"
	fi
done
echo "   the loop stopped at depth $n"
echo "depth=$n"
EOF
run "echo ct1 > $IMG/app/etc/hostname && echo 'the app layer' > $IMG/app/usr/share/app/README && chmod 1777 $IMG/app/tmp && : > $IMG/app/tmp/.keep"
run "cd $IMG && find . ! -type d ! -type l | sort | tr '\n' ' '; echo; cd /"

say "3. The container: the image's layers + an upper layer on ext4, merged at its root; a tmpfs on its /dev/shm"
echo "   As runc does, /dev/shm is mounted inside the root before the cgroup"
echo "   binds the root: the bind adopts it."
run "mkdir -p $S/ct1/upper $S/ct1/work $ROOT $DATA"
run "mount -t overlay ct1-root -o lowerdir=$IMG/app:$IMG/base,upperdir=$S/ct1/upper,workdir=$S/ct1/work $ROOT"
run "mount -t tmpfs -o mode=1777,size=64m ct1-shm $ROOT/dev/shm"
run "grep ' $ROOT' /proc/mounts"
run "ls -a $ROOT $ROOT/bin $ROOT/tmp | tr '\n' ' '; echo"
check "/, /bin and /tmp of the root merge both layers" \
	test -x "$ROOT/bin/busybox" -a -f "$ROOT/bin/flood.sh" -a -f "$ROOT/tmp/.keep" -a -f "$ROOT/etc/hostname"

say "4. Bind the root and the data directory to the cgroup's mob and cap it at $MAX dentries"
run "echo $ROOT > $C/dentry.root"
run "echo $DATA > $C/dentry.root"
run "echo $MAX > $C/dentry.max"
run "cat $C/dentry.root"
show
ovl=$(dev_of $ROOT) shm=$(dev_of $ROOT/dev/shm) ext=$(dev_of $S)
check "dentry.root lists the overlay root ($ovl) and the data directory ($ext)" \
	roots "$ovl /" "$ext /ct1-data"
check "dentry.root lists /dev/shm's tmpfs ($shm): mounted before the bind, adopted by it" \
	grep -qx "$shm /" "$C/dentry.root"
check "dentry.max reads back $MAX" test "$(val max)" = "$MAX"

say "5. The escape and its containment: stat() $FLOOD missing names in an overlay's root"
echo "   Overlayfs looks each name up in every layer.  It drops the upper"
echo "   layer's negative dentry but, for an overlay in no mob, keeps its own"
echo "   and one in each of the $LAYERS lower layers: $((1 + LAYERS)) dentries per name that"
echo "   no limit sees.  For an overlay in a mob, it keeps none in the layers."
echo
echo "   (a) Another overlay of the same image, in no mob: what a container"
echo "   without the limit costs the host."
run "mkdir -p $S/ct2/upper $S/ct2/work $OTHER"
run "mount -t overlay ct2-root -o lowerdir=$IMG/app:$IMG/base,upperdir=$S/ct2/upper,workdir=$S/ct2/work $OTHER"
baseline
run "chroot $OTHER /bin/sh -c 'cd / && sh /bin/flood.sh $FLOOD' > /tmp/flood2.out; cat /tmp/flood2.out"
growth
g_free=$growth
check "every stat() in the unlimited overlay failed with ENOENT" \
	grep -q "stat errors: *$FLOOD No such file or directory$" /tmp/flood2.out
check "without the limit the host kept $((1 + LAYERS)) dentries per name: growth $g_free >= $((1 + LAYERS)) x $FLOOD - $SLACK" \
	test "$g_free" -ge $(((1 + LAYERS) * FLOOD - SLACK))
echo
echo "   (b) The same flood in the container's root."
baseline
r0=$(key stat reclaimed)
run "container 'cd / && sh /bin/flood.sh $FLOOD' > /tmp/flood1.out; cat /tmp/flood1.out"
growth
g_ct=$growth
show
check "every stat() in the container failed with ENOENT, none with ENOMEM" \
	grep -q "stat errors: *$FLOOD No such file or directory$" /tmp/flood1.out
check "dentry.peak stayed within dentry.max" test "$(val peak)" -le "$MAX"
check "the limit reclaimed at least $FLOOD - $MAX of the flood's dentries" \
	test $(($(key stat reclaimed) - r0)) -ge $((FLOOD - MAX))
check "in the container the host grew by $g_ct <= 2 x max + $SLACK = $BOUND" \
	test "$g_ct" -le "$BOUND"
echo
printf '   %-34s %6s %14s %9s\n' "stat() of missing names in" names "host growth" "per name"
printf '   %-34s %6s %14s %9s\n' "$OTHER: overlay, no mob" "$FLOOD" "+$g_free" "$(per "$g_free" "$FLOOD")"
printf '   %-34s %6s %14s %9s\n' "$ROOT: overlay, dentry.max $MAX" "$FLOOD" "+$g_ct" "$(per "$g_ct" "$FLOOD")"
run "umount $OTHER"

say "6. Inside the container: stat() $FLOOD missing names in /data (ext4 keeps negative dentries)"
baseline
before=$(val current) r0=$(key stat reclaimed) g0=$(nr_negative)
run "container 'cd /data && sh /bin/flood.sh $FLOOD' > /tmp/flood.out; cat /tmp/flood.out"
growth
show
echo "   global: $(global)"
check "every stat() failed with ENOENT, none with ENOMEM" \
	grep -q "stat errors: *$FLOOD No such file or directory$" /tmp/flood.out
check "dentry.peak stayed within dentry.max" test "$(val peak)" -le "$MAX"
check "at least $FLOOD - ($MAX - $before) dentries were reclaimed by the limit" \
	test $(($(key stat reclaimed) - r0)) -ge $((FLOOD - (MAX - before)))
check "the global negative count grew by less than the cap" \
	test $(($(nr_negative) - g0)) -le "$MAX"

say "7. Inside the container: while mkdir x; do cd x; done in its /tmp (the overlay)"
echo "   Each level is an overlay dentry and the upper layer's directory it"
echo "   pins, both charged: the container's task made the upper one itself."
baseline
ev0=$(key events fail)
run "container 'sh /bin/loop.sh /tmp $ESCAPE_CAP' > /tmp/loop1.out 2>&1; cat /tmp/loop1.out"
growth
show
depth=$(sed -n 's/^depth=//p' /tmp/loop1.out)
check "the loop in /tmp stopped with ENOMEM before depth $MAX (at $depth)" \
	stopped /tmp/loop1.out "$depth"
check "dentry.events counted the refusal" test "$(key events fail)" -gt "$ev0"
check "the host grew by $growth <= 2 x max + $SLACK = $BOUND" test "$growth" -le "$BOUND"
run "container 'rm -rf /tmp/x'"
show

say "8. Inside the container: the same loop in its /dev/shm (tmpfs pins every dentry)"
echo "   Without the adoption at bind this tmpfs would be in no mob, and the"
echo "   loop would run until it stopped itself at depth $ESCAPE_CAP."
baseline
ev0=$(key events fail)
run "container 'sh /bin/loop.sh /dev/shm $ESCAPE_CAP' > /tmp/loop2.out 2>&1; cat /tmp/loop2.out"
growth
show
depth=$(sed -n 's/^depth=//p' /tmp/loop2.out)
check "the loop in /dev/shm stopped with ENOMEM before depth $MAX (at $depth)" \
	stopped /tmp/loop2.out "$depth"
check "the mob is exactly full: dentry.current = dentry.max = $MAX" test "$(val current)" = "$MAX"
check "dentry.stat negative is 0: no negative dentry is left to reclaim" \
	test "$(key stat negative)" = 0
check "dentry.events counted the refusal" test "$(key events fail)" -gt "$ev0"
check "the host grew by $growth <= 2 x max + $SLACK = $BOUND" test "$growth" -le "$BOUND"

say "9. Outside the container, the rest of the system allocates freely"
d0=$(nr_dentry) n0=$(nr_negative)
echo "   global before: $(global)"
run "mkdir /tmp/outside && seq 1 3000 | sed 's|^|/tmp/outside/d|' | xargs mkdir"
run "mkdir $S/outside && cd $S/outside && seq 1 $FLOOD | sed 's/^/missing-/' | { xargs stat >/dev/null 2>&1 || [ \$? = 123 ]; }; cd /"
echo "   global after:  $(global)"
show
check "3000 directories made outside" test "$(ls /tmp/outside | wc -l)" = 3000
check "nr_dentry grew by at least 3000 + $FLOOD" test $(($(nr_dentry) - d0)) -ge $((3000 + FLOOD))
check "nr_negative grew by at least $FLOOD" test $(($(nr_negative) - n0)) -ge "$FLOOD"
check "none of it was charged to the container: dentry.current is still $MAX" \
	test "$(val current)" = "$MAX"

say "10. ... while the container still cannot, until its limit is raised"
echo "   The mob can free only the few dentries the container's last run left"
echo "   unused, and starting the container takes them again."
ev0=$(key events fail)
run "container 'sh /bin/loop.sh /dev/shm $ESCAPE_CAP y' > /tmp/one.out 2>&1; cat /tmp/one.out"
show
depth=$(sed -n 's/^depth=//p' /tmp/one.out)
check "the container's next mkdir fails with ENOMEM (the new loop got $depth levels)" \
	stopped /tmp/one.out "$depth"
check "the mob is full again: dentry.current = $MAX, dentry.events counted it" \
	test "$(val current)" = "$MAX" -a "$(key events fail)" -gt "$ev0"
run "echo $((MAX + 100)) > $C/dentry.max"
run "container 'mkdir /dev/shm/one-more && echo made /dev/shm/one-more' || true"
show
check "with dentry.max raised, the container's mkdir works" test -d "$ROOT/dev/shm/one-more"

tap_done DEMO ": the container's dentries were contained"
