#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# make check-tools: the guest's program.  The dentry controller driven by
# the tools operators use, Debian's builds of them: cgroup-tools (libcgroup
# 2.0.2), runc, crun, and the runtimes rebuilt with patches/crun/ and
# patches/runc/.  cgroup-tools runs the mkdir loop in a bound tree; each
# runtime runs real containers (an overlayfs root laid out as
# containers/storage does, the runtime's own /dev, /dev/shm, /dev/mqueue,
# /proc and /sys) in which the tenant runs the attacks of issue 13, and the
# host checks what each did to its dcache.  Prints a transcript, a table of
# the numbers and TAP (see scripts/guest/guest.py).
set -eu

CG=/sys/fs/cgroup
MAX=400
export PATH=$PATH:/usr/local/bin		# crun-patched, runc-patched
# shellcheck source=scripts/guest/tap.sh
. "$(dirname "$0")/tap.sh"
# Run a command that must fail; its output goes to /tmp/out and the terminal.
fails() {
	printf '# %s\n' "$*"
	if eval "$*" >/tmp/out 2>&1; then
		cat /tmp/out
		return 1
	fi
	cat /tmp/out
}
enabled() { grep -qw dentry "$CG$1/cgroup.subtree_control"; }	# enabled CGPATH
not_enabled() { ! enabled "$1"; }
# Leave the hierarchy as the next part expects it: no +dentry anywhere.
reset_root() {
	local d
	for d in "$@"; do
		[ ! -d "$CG$d" ] || rmdir "$CG$d"
	done
	if enabled ""; then
		echo -dentry >"$CG/cgroup.subtree_control"
	fi
}

# The mkdir loop of cgroup-tools.  $1: where.
cat >/tmp/loop.sh <<'EOF'
cd "$1"
n=0
while err=$(mkdir x 2>&1); do
	cd x
	n=$((n + 1))
done
echo "depth=$n"
echo "error: $err"
EOF

echo "Operators' tools and the dentry controller, kernel $(uname -r):"
sed 's/^/   /' /etc/dentrymob-tools-versions

say "1. libcgroup 2.0.2 (cgroup-tools): cgcreate, cgset, cgget, cgexec"
mkdir -p /srv/ct1
echo "Debian's libcgroup 2.0.2 writes +CONTROLLER to the parent's subtree_control,"
echo "the root's included, before it makes the group: check that it does."
run "cat $CG/cgroup.subtree_control; echo"
check "dentry starts disabled in the root" not_enabled ""
run "cgcreate -g dentry:/ct1"
run "cat $CG/cgroup.subtree_control; echo"
check "cgcreate enabled dentry in the root's subtree_control" enabled ""
check "ct1 has the dentry.* files" test -f "$CG/ct1/dentry.max"
run "cgset -r dentry.max=$MAX ct1"
run "cgset -r dentry.root=/srv/ct1 ct1"
run "cgget -r dentry.max -r dentry.root -r dentry.current ct1"
check "cgget reads dentry.max back" test "$(cgget -n -v -r dentry.max ct1)" = "$MAX"
check "cgget reads dentry.root back" \
	test "$(cgget -n -v -r dentry.root ct1 | cut -d' ' -f2)" = /srv/ct1
run "cgexec -g dentry:ct1 sh /tmp/loop.sh /srv/ct1 > /tmp/loop.out; cat /tmp/loop.out"
run "cgget -r dentry.current -r dentry.events ct1"
check "the mkdir loop in /srv/ct1 stopped with ENOMEM" grep -q "Cannot allocate memory" /tmp/loop.out
check "dentry.current = dentry.max = $MAX" test "$(cgget -n -v -r dentry.current ct1)" = "$MAX"
check "the loop reached exactly depth $MAX - 1 (the bound root is the one other dentry)" \
	grep -qx "depth=$((MAX - 1))" /tmp/loop.out
echo "Bad values are refused, legibly, and change nothing:"
fails "cgset -r dentry.max=lots ct1" || true
check "cgset -r dentry.max=lots fails with EINVAL" grep -q "Invalid argument" /tmp/out
fails "cgset -r dentry.root=relative/path ct1" || true
check "cgset -r dentry.root=relative/path fails with EINVAL" grep -q "Invalid argument" /tmp/out
fails "cgset -r dentry.root=/nonexistent ct1" || true
check "cgset -r dentry.root=/nonexistent fails with ENOENT" grep -q "No such file" /tmp/out
check "dentry.max is still $MAX" test "$(cat "$CG/ct1/dentry.max")" = "$MAX"
check "dentry.root still binds /srv/ct1 alone" \
	test "$(cut -d' ' -f2 "$CG/ct1/dentry.root")" = /srv/ct1
run "cgdelete -g dentry:/ct1"
reset_root

# ---------------------------------------------------------------------------
# The runtimes.  Every container has dentry.max = CMAX and runs one attack;
# the host drops its caches, reads nr_dentry right before the runtime
# starts, and again when the tenant says it is done.
CMAX=300
# The bound on the host's nr_dentry growth during one attack: the mob's own
# dentries (max), the real layer dentries that live overlay dentries pin
# (about one each: max), and room for what the runtime itself looks up
# (state, cgroup and proc files, the image's few directories).  The one
# place to change it; the kernel documentation states the bound.
BOUND=$((2 * CMAX + 256))
ESCAPE_CAP=$((10 * CMAX))	# a mkdir loop that is not stopped ends here
NEG_NAMES=20000			# names the negative flood stats
NEW_FILES=5000			# files the creation attack makes
READY_TIMEOUT=240		# seconds an attack may take under TCG

# The image, on the ext4 scratch disk, as containers/storage's overlay
# driver lays it out: overlay/<layer-id>/{diff,work,merged,link[,lower]},
# overlay/l/<short> -> ../<layer-id>/diff, and a container layer mounted
# with lowerdir=l/<upper-lower>:l/<lower> relative to overlay/ (the driver
# mounts from that directory so that the options fit in a page).
O=${DENTRYMOB_SCRATCH:-/mnt/scratch}/containers/storage/overlay
hexid() { printf %s "$1" | sha256sum | cut -c1-64; }
shortid() { hexid "l-$1" | cut -c1-26 | tr '[:lower:]' '[:upper:]'; }
# layer NAME [LOWER]: a layer's directories and link; prints its diff.
layer() {
	local id short
	id=$(hexid "$1")
	short=$(shortid "$1")
	mkdir -p "$O/$id/diff" "$O/$id/work" "$O/$id/merged" "$O/l"
	printf %s "$short" >"$O/$id/link"
	ln -sfn "../$id/diff" "$O/l/$short"
	[ -z "${2:-}" ] || printf %s "$2" >"$O/$id/lower"
	echo "$O/$id/diff"
}
LOWERS="l/$(shortid layer2):l/$(shortid layer1)"

# The tenant: /bin/attack.sh KIND DIR N, in the upper lower layer.  It
# attacks, says "ready", waits for the host's SIGUSR1, removes the last
# thing it made, makes a directory and says whether that worked.  Busybox
# runs its applets in a forked child without execve(): no path lookup
# after the attack, when the mob may be full.
cat >/tmp/attack.sh <<'EOF'
trap 'go=1' USR1
go=
if [ "$1" = move-mkdir ]; then
	# A tmpfs mounted on the volume (in no mob), moved to DIR, then the
	# mkdir loop in it.  Needs CAP_SYS_ADMIN.
	if mount -t tmpfs -o mode=1777 none /vol/t && mkdir -p "$2" &&
		mount --move /vol/t "$2"; then
		echo "moved: the tmpfs of /vol/t to $2"
	else
		echo "moved: failed"
	fi
	set -- mkdir "$2" "$3"
fi
cd "$2"
n=0
case $1 in
mkdir)	# a mkdir loop, stopped at N levels if nothing else stops it
	while [ "$n" -lt "$3" ] && mkdir x; do
		cd -P x		# chdir("x"): no path of the whole depth
		n=$((n + 1))
	done ;;
negative)	# stat() of N names that do not exist
	while [ "$n" -lt "$3" ]; do
		[ -e "m$n" ] || :
		n=$((n + 1))
	done ;;
create)	# N files created and closed
	while [ "$n" -lt "$3" ] && : >"f$n"; do
		n=$((n + 1))
	done ;;
esac
echo "attack: $1 in $2: $n"
echo ready
while [ -z "$go" ]; do sleep 0.2; done
if [ "$n" -gt 0 ]; then
	case $1 in
	mkdir) cd -P .. && rmdir x ;;
	create) rm "f$((n - 1))" ;;
	esac
fi
if mkdir after; then echo "after: mkdir ok"; else echo "after: mkdir failed"; fi
while :; do sleep 1; done
EOF

say "The image: two layers and a container layer per run, on ext4 (containers/storage's overlay layout)"
l1=$(layer layer1)
mkdir -p "$l1/bin" "$l1/etc" "$l1/dev" "$l1/proc" "$l1/sys" "$l1/tmp" \
	"$l1/root" "$l1/usr/bin" "$l1/var/lib"
chmod 1777 "$l1/tmp"
cp /bin/busybox "$l1/bin/"
for a in sh mkdir rmdir rm sleep ls cat mount; do ln -s busybox "$l1/bin/$a"; done
cp /etc/passwd /etc/group "$l1/etc/"
l2=$(layer layer2 "l/$(shortid layer1)")
# Files in directories of the lower layer, so that /, /bin, /etc, /usr,
# /var and /tmp are merged directories.
mkdir -p "$l2/bin" "$l2/etc" "$l2/usr/share/app" "$l2/var/lib/app" \
	"$l2/tmp" "$l2/srv"
cp /tmp/attack.sh "$l2/bin/attack.sh"
echo ct >"$l2/etc/hostname"
echo "an extra layer" >"$l2/usr/share/app/README"
: >"$l2/var/lib/app/state"
chmod 1777 "$l2/tmp"
run "ls -l $O $O/l"

# ctr_mount NAME: mount a fresh container layer of NAME at its merged/ as
# the driver does; sets $merged, and $dev to the overlay's MAJ:MIN.
ctr_mount() {
	local id
	id=$(hexid "ctr-$1")
	rm -rf "${O:?}/$id"
	layer "ctr-$1" "$LOWERS" >/dev/null
	(cd "$O" && mount -t overlay overlay \
		-o "lowerdir=$LOWERS,upperdir=$id/diff,workdir=$id/work,nodev" \
		"$id/merged")
	merged=$O/$id/merged
	dev=$(awk -v m="$merged" '$5 == m { print $3 }' /proc/self/mountinfo)
}

# bundle DIR CGROUPS_PATH ROOTFS GIVES_ROOT ARGS: a config.json with the
# mounts runc's and crun's default specs make (no network namespace: the
# host's), dentry.max and, if GIVES_ROOT is yes, dentry.root = ROOTFS (a
# host path: runtimes write unified keys from the host's mount namespace).
# GIVES_ROOT hook: no unified keys at all; the annotation dentry.max = CMAX
# and a createRuntime hook, dentrymob-oci-hook, which enables the
# controller, sets the limit and binds, as podman's hooks.d would run it.
# As the setup of the attack asks (ctr sets them, empty by default):
# $b_shm_bind: /dev/shm is a bind mount of DIR/shm, as podman makes it;
# $b_vol: a bind mount of that host directory at /vol (a volume);
# $b_caps: the tenant has CAP_SYS_ADMIN (there is no seccomp profile).
bundle() {
	local root="" shm vol="" caps="" unified hooks=""
	[ "$4" != yes ] || root=",
				\"dentry.root\": \"$3\""
	unified="\"dentry.max\": \"$CMAX\"$root"
	[ "$4" != hook ] || {
		unified=""
		hooks='
	"annotations": { "dentry.max": "'$CMAX'" },
	"hooks": { "createRuntime": [
		{ "path": "/usr/local/bin/dentrymob-oci-hook" } ] },'
	}
	shm='{ "destination": "/dev/shm", "type": "tmpfs", "source": "shm",
		  "options": [ "nosuid", "noexec", "nodev", "mode=1777", "size=65536k" ] }'
	[ -z "$b_shm_bind" ] || shm="{ \"destination\": \"/dev/shm\", \"type\": \"bind\",
		  \"source\": \"$1/shm\",
		  \"options\": [ \"bind\", \"private\", \"nosuid\", \"noexec\", \"nodev\" ] }"
	[ -z "$b_vol" ] || vol=",
		{ \"destination\": \"/vol\", \"type\": \"bind\", \"source\": \"$b_vol\",
		  \"options\": [ \"rbind\" ] }"
	[ -z "$b_caps" ] || caps='
		"capabilities": {
			"bounding": [ "CAP_SYS_ADMIN", "CAP_KILL", "CAP_AUDIT_WRITE" ],
			"effective": [ "CAP_SYS_ADMIN", "CAP_KILL", "CAP_AUDIT_WRITE" ],
			"permitted": [ "CAP_SYS_ADMIN", "CAP_KILL", "CAP_AUDIT_WRITE" ]
		},'
	mkdir -p "$1"
	cat >"$1/config.json" <<EOF
{
	"ociVersion": "1.0.2",
	"process": {
		"terminal": false,
		"user": { "uid": 0, "gid": 0 },
		"args": [ "/bin/sh", "/bin/attack.sh", $5 ],
		"env": [ "PATH=/bin:/usr/bin" ],
		"cwd": "/",$caps
		"noNewPrivileges": true
	},
	"root": { "path": "$3" },
	"hostname": "ct",$hooks
	"mounts": [
		{ "destination": "/proc", "type": "proc", "source": "proc",
		  "options": [ "nosuid", "noexec", "nodev" ] },
		{ "destination": "/dev", "type": "tmpfs", "source": "tmpfs",
		  "options": [ "nosuid", "strictatime", "mode=755", "size=65536k" ] },
		$shm,
		{ "destination": "/dev/mqueue", "type": "mqueue", "source": "mqueue",
		  "options": [ "nosuid", "noexec", "nodev" ] },
		{ "destination": "/sys", "type": "sysfs", "source": "sysfs",
		  "options": [ "nosuid", "noexec", "nodev", "ro" ] }$vol
	],
	"linux": {
		"cgroupsPath": "$2",
		"resources": {
			"devices": [ { "allow": false, "access": "rwm" } ],
			"unified": { $unified }
		},
		"namespaces": [ { "type": "pid" }, { "type": "ipc" },
				{ "type": "uts" }, { "type": "mount" } ],
		"maskedPaths": [ "/proc/acpi", "/proc/asound", "/proc/kcore",
			"/proc/keys", "/proc/latency_stats", "/proc/timer_list",
			"/proc/timer_stats", "/proc/sched_debug", "/proc/scsi",
			"/sys/firmware" ],
		"readonlyPaths": [ "/proc/bus", "/proc/fs", "/proc/irq",
			"/proc/sys", "/proc/sysrq-trigger" ]
	}
}
EOF
}

# Not the shell's read: it reads a byte at a time, and a sysctl file read
# at an offset other than 0 is empty, so it would get the first digit.
nr_dentry() { cut -f1 /proc/sys/fs/dentry-state; }
# What the attack left: the smallest nr_dentry of five reads 0.4 s apart.
# Right after "ready" some hundred dentries may still be on their way out
# (seen: 217 fewer a few ms later, none of them the tenant's).
settled_nr() {
	local i=0 v min
	min=$(nr_dentry)
	while [ $i -lt 4 ]; do
		sleep 0.4
		v=$(nr_dentry)
		[ "$v" -ge "$min" ] || min=$v
		i=$((i + 1))
	done
	echo "$min"
}
# wait_for PATTERN FILE SECONDS
wait_for() {
	local i=0
	while ! grep -q "$1" "$2" && [ $i -lt $(($3 * 5)) ]; do
		sleep 0.2
		i=$((i + 1))
	done
	grep -q "$1" "$2"
}
num() { [ "$1" -eq "$1" ] 2>/dev/null; }
le() { num "$1" && [ "$1" -le "$2" ]; }	# le A B: A is a number <= B
rootfs_bound() { grep -qx "$dev /" "$cg/dentry.root"; }
listed() { [ -n "$1" ] && grep -qx "$1 /" "$cg/dentry.root"; }	# listed MAJ:MIN
not_listed() { [ -n "$1" ] && ! grep -qx "$1 /" "$cg/dentry.root"; }
# mount_dev MOUNTINFO DIR: the MAJ:MIN of what is mounted at DIR.
mount_dev() { awk -v m="$2" '$5 == m { d = $3 } END { print d }' "$1"; }
# The tenant's PID on the host: the container's pid 1.
ctr_pid() { "$1" state "$2" | sed -n 's/.*"pid": *\([0-9]*\).*/\1/p'; }
: >/tmp/table
# One line of the table: row what count growth current result
table() {
	printf '%-22s %-11s %7s %7s %6s %7s  %s\n' "$1" "$2" "$3" "$4" "$BOUND" \
		"$5" "$6" >>/tmp/table
}

# ctr ROW RUNTIME GIVES_ROOT WHAT KIND DIR N [SETUP]: one container, one
# attack (WHAT idle: none, the runtime's own growth); sets $ran to whether
# it ran and $bound_ok to whether its rootfs showed in dentry.root.  With
# $enables set, an idle run checks that the runtime enabled dentry on the
# way.  SETUP, "-" by default, is one of
#   shm-bundle  podman's /dev/shm: a tmpfs (mode 1777) that the host mounts
#               at BUNDLE/shm, bind-mounted at /dev/shm; it must be bound
#   volume      a host tmpfs outside the bundle, bind-mounted at /vol (a
#               volume); it must not be bound, and the loop is stopped all
#               the same: what the tenant makes in no mob is its own
#   move        CAP_SYS_ADMIN and an ext4 directory of the host, in no mob
#               and outside the bundle, bind-mounted at /vol; the tenant
#               mounts a tmpfs at /vol/t and moves it to DIR (move-mkdir):
#               inside the rootfs it joins the mob
#   move-out    the same, moved to DIR on the volume: the tmpfs is the
#               tenant's own (a limited task made its root), so it is
#               listed wherever it is mounted, and the loop is stopped
ctr() {
	local row=$1 rt=$2 what=$4 kind=$5 dir=$6 n=$7 setup=${8:--} name b base growth cur count
	local s0 s1 first extra="" vol="" pid full
	local t0 f0=$nfail res=pass
	name=ct-$(echo "$row-$what" | tr -c 'a-z0-9\n' -)
	b=/srv/bundles/$name
	cg=$CG/dentrymob/$name
	b_shm_bind="" b_vol="" b_caps=""
	ctr_mount "$name"
	mkdir -p "$b"
	case $setup in
	shm-bundle)
		b_shm_bind=yes
		mkdir -p "$b/shm"
		mount -t tmpfs -o mode=1777,size=65536k,nosuid,nodev,noexec shm "$b/shm"
		extra=$(mount_dev /proc/self/mountinfo "$b/shm") ;;
	volume)
		vol=/srv/volumes/$name b_vol=$vol
		mkdir -p "$vol"
		mount -t tmpfs -o mode=1777 vol "$vol"
		extra=$(mount_dev /proc/self/mountinfo "$vol") ;;
	move | move-out)
		vol=${O%/containers/storage/overlay}/volumes/$name b_vol=$vol b_caps=yes
		rm -rf "$vol" && mkdir -p "$vol/t" ;;
	esac
	bundle "$b" "/dentrymob/$name" "$merged" "$3" "\"$kind\", \"$dir\", \"$n\""
	echo 2 >/proc/sys/vm/drop_caches
	s0=$(cat /proc/sys/fs/dentry-state)
	base=$(nr_dentry)
	t0=$(date +%s)
	printf '# %s run -d --bundle %s %s (rootfs %s)\n' "$rt" "$b" "$name" "$merged"
	if ! "$rt" run -d --bundle "$b" "$name" >"$b/out" 2>&1 </dev/null ||
		! wait_for '^ready' "$b/out" "$READY_TIMEOUT"; then
		sed 's/^/   /' "$b/out"
		"$rt" delete -f "$name" >/dev/null 2>&1 || true
		ctr_umount
		ran=no bound_ok=no
		[ "$what" = idle ] && return 0
		check "$row $what: the container ran its attack" false
		table "$row" "$what" - - - "FAIL (did not run)"
		return 0
	fi
	first=$(($(nr_dentry) - base))
	growth=$(($(settled_nr) - base))
	s1=$(cat /proc/sys/fs/dentry-state)
	cur=$(cat "$cg/dentry.current" 2>/dev/null || echo '?')
	count=$(sed -n 's/^attack: .*: //p' "$b/out")
	case $setup in move*)
		pid=$(ctr_pid "$rt" "$name")
		extra=$(mount_dev "/proc/$pid/mountinfo" "$dir") ;;
	esac
	sed 's/^/   container: /' "$b/out"
	run "cat $cg/dentry.max $cg/dentry.current $cg/dentry.events" || true
	run "cat $cg/dentry.root" || true
	echo "# $row $what: $count in $(($(date +%s) - t0)) s;" \
		"nr_dentry +$growth (+$first at ready; bound $BOUND)," \
		"dentry.current $cur (max $CMAX)"
	echo "# dentry-state before: $s0; after: $s1"
	ran=yes bound_ok=no
	! rootfs_bound || bound_ok=yes
	[ "$what" != idle ] || [ -z "$enables" ] ||
		check "$rt enabled dentry in the root and in /dentrymob" \
			eval 'enabled "" && enabled /dentrymob'
	if [ "$what" != idle ]; then
		check "$row $what: host nr_dentry growth <= 2 x max + 256" le "$growth" "$BOUND"
		check "$row $what: dentry.current <= max" le "$cur" "$CMAX"
		check "$row $what: dentry.root lists the rootfs" rootfs_bound
	fi
	case $setup in
	shm-bundle)
		check "$row $what: dentry.root lists the tmpfs of BUNDLE/shm ($extra)" listed "$extra" ;;
	volume)
		check "$row $what: dentry.root does not list the volume's tmpfs ($extra)" \
			not_listed "$extra" ;;
	move)
		check "$row $what: the tenant moved its tmpfs from /vol/t to $dir" \
			grep -q '^moved: the tmpfs' "$b/out"
		check "$row $what: dentry.root lists the moved tmpfs ($extra)" listed "$extra" ;;
	move-out)
		check "$row $what: the tenant moved its tmpfs from /vol/t to $dir" \
			grep -q '^moved: the tmpfs' "$b/out"
		check "$row $what: dentry.root lists the tenant's own tmpfs, moved to the volume ($extra)" \
			listed "$extra" ;;
	esac
	case $kind in
	mkdir | move-mkdir)
		check "$row $what: the mkdir loop stopped with ENOMEM" \
			grep -q "Cannot allocate memory" "$b/out"
		# A level of the loop in the overlay charges two: the overlay
		# dentry and its upper dentry, both the tenant's.  The refused
		# level may leave one unit free there; in a tmpfs, none.
		full=$CMAX
		[ "$dir" != / ] || full=$((CMAX - 1))
		check "$row $what: the mob is full: $full <= dentry.current <= $CMAX" \
			eval 'num "$cur" && [ "$cur" -ge "$full" ] && [ "$cur" -le "$CMAX" ]'
		check "$row $what: dentry.events counted the refusal" \
			test "$(sed -n 's/^fail //p' "$cg/dentry.events")" -ge 1 ;;
	esac
	[ "$what" != mkdir-root ] ||
		check "$row: dentry.max is $CMAX" test "$(cat "$cg/dentry.max")" = "$CMAX"
	"$rt" kill "$name" USR1 || true	# the tenant goes on
	if [ "$what" != idle ]; then
		wait_for '^after:' "$b/out" 60 || true
		sed -n 's/^after/   container: after/p' "$b/out"
		check "$row $what: after removing what it made, its next mkdir succeeds" \
			grep -q '^after: mkdir ok' "$b/out"
		[ "$nfail" -eq "$f0" ] || res=FAIL
		table "$row" "$what" "$count" "$growth" "$cur" "$res"
	fi
	run "$rt delete -f $name" || true
	ctr_umount
}
# What ctr mounted on the host: the overlay, BUNDLE/shm, the volume.
ctr_umount() {
	local d
	for d in "$merged" "$b/shm" "$vol"; do
		if [ -n "$d" ] && [ -n "$(mount_dev /proc/self/mountinfo "$d")" ]; then
			umount "$d" || umount -l "$d"
		fi
	done
}

# The runtimes, one a line: the binary, whether config.json gives
# dentry.root besides dentry.max (no: the runtime must bind the rootfs
# itself), and the row's name.
RUNTIMES="runc yes runc
crun yes crun
crun-patched yes crun-patched
runc-patched no runc-patched/no-root
crun-patched no crun-patched/no-root
runc hook runc+oci-hook
crun hook crun+oci-hook"
# The attacks, one a line: name, what the tenant does (attack.sh), where,
# how many, and the setup of the container (ctr's SETUP).  mkdir-moved:
# the tenant moves a tmpfs that it mounted on a volume into its rootfs
# (MS_MOVE), which the kernel makes join, whoever bound the rootfs.
ATTACKS="mkdir-root mkdir / $ESCAPE_CAP -
mkdir-shm mkdir /dev/shm $ESCAPE_CAP -
negative negative / $NEG_NAMES -
create create / $NEW_FILES -
mkdir-moved move-mkdir /tmp/m $ESCAPE_CAP move"
# And for a runtime that binds by itself (GIVES_ROOT no): podman's
# /dev/shm, a tmpfs mounted on the host in the bundle, which the runtime
# must bind too; and the two controls, which must stay out of the mob: a
# volume outside the bundle, and a tmpfs moved onto a volume.
SELF_ATTACKS="shm-bundle mkdir /dev/shm $ESCAPE_CAP shm-bundle
vol-escape mkdir /vol $((2 * CMAX)) volume
move-out move-mkdir /vol/m $((2 * CMAX)) move-out"

# row RUNTIME GIVES_ROOT ROW: every attack in its own container.
row() {
	local rt=$1 gives=$2 row=$3 what kind dir n why=""
	say "$row: the attacks of issue 13 in overlayfs containers (dentry.root given: $gives)"
	if ! command -v "$rt" >/dev/null; then
		why="$rt is not in the guest (make runc / make crun builds it)"
	else
		# The runtime's own growth; for a runtime that must bind the
		# rootfs itself, the probe of whether this build does.
		ctr "$row" "$rt" "$gives" idle idle / 0
		if [ "$gives" = no ] && [ "$ran" != yes ]; then
			why="the probe container did not start"
		elif [ "$gives" = hook ] && [ "$ran" != yes ]; then
			check "$row: the probe container started" false
			why="the probe container did not start"
		elif [ "$gives" = hook ] && [ "$bound_ok" != yes ]; then
			check "$row: the hook bound the rootfs" false
			why="the hook did not bind the rootfs"
		elif [ "$gives" = no ] && [ "$bound_ok" != yes ]; then
			why="this $rt does not bind the rootfs when only dentry.max is given"
		fi
	fi
	while read -r what kind dir n setup <&4; do
		[ -n "$what" ] || continue
		if [ -n "$why" ]; then
			skip "$row $what: the attack in a container" "$why"
			table "$row" "$what" - - - skip
		else
			ctr "$row" "$rt" "$gives" "$what" "$kind" "$dir" "$n" "$setup"
		fi
	done 4<<EOF
$ATTACKS
$([ "$gives" = yes ] || echo "$SELF_ATTACKS")
EOF
	[ ! -d "$CG/dentrymob" ] || rmdir "$CG/dentrymob"/* 2>/dev/null || true
	reset_root /dentrymob
}

t_start=$(date +%s)
while read -r rt gives name <&3; do
	enables=""
	case $name in
	runc | crun-patched | *+oci-hook)
		# runc enables every controller of cgroup.controllers along
		# the path, the patched crun those that unified needs, the
		# hook dentry, for Debian's crun too.
		run "cat $CG/cgroup.subtree_control; echo"
		enables=yes
		;;
	crun)
		say "crun as Debian ships it: enables a fixed list of controllers"
		ctr_mount ct-crun-plain
		bundle /srv/bundles/ct-crun-plain /dentrymob/crun "$merged" yes '"idle", "/", "0"'
		fails "crun run -d --bundle /srv/bundles/ct-crun-plain ct-crun-plain < /dev/null" || true
		check "crun: dentry.* keys fail without +dentry on the ancestors, legibly" \
			grep -q "controller .dentry. is not available" /tmp/out
		crun delete -f ct-crun-plain >/dev/null 2>&1 || true
		umount "$merged"
		reset_root /dentrymob/crun /dentrymob
		echo "The workaround: enable dentry on every ancestor first."
		run "echo +dentry > $CG/cgroup.subtree_control"
		run "mkdir $CG/dentrymob && echo +dentry > $CG/dentrymob/cgroup.subtree_control"
		;;
	esac
	row "$rt" "$gives" "$name"
done 3<<EOF
$RUNTIMES
EOF

say "dentrymob-oci-hook: nothing without a request, a legible failure on a bad one"
echo "A hooks.d entry may run the hook for every container: without the"
echo "annotation (or a unified dentry key) it binds nothing and the container"
echo "runs.  A limit it cannot set fails the start, with the file and errno."
ctr_mount ct-hook-unified
echo "runc with unified dentry.max alone and the hook: runc writes the limit, the hook binds."
bundle /srv/bundles/ct-hook-unified /dentrymob/hook-unified "$merged" no '"idle", "/", "0"'
sed -i 's|"hostname": "ct",|"hostname": "ct", "hooks": { "createRuntime": [ { "path": "/usr/local/bin/dentrymob-oci-hook" } ] },|' \
	/srv/bundles/ct-hook-unified/config.json
check "the bundle has the hook, unified dentry.max and no annotation" \
	sh -c "grep -q dentrymob-oci-hook /srv/bundles/ct-hook-unified/config.json &&
		! grep -q annotations /srv/bundles/ct-hook-unified/config.json"
run "runc run -d --bundle /srv/bundles/ct-hook-unified ct-hook-unified < /dev/null > /tmp/out 2>&1; cat /tmp/out"
cg=$CG/dentrymob/hook-unified
run "cat $cg/dentry.max $cg/dentry.root" || true
check "runc+hook, unified: dentry.max is $CMAX" test "$(cat "$cg/dentry.max")" = "$CMAX"
check "runc+hook, unified: the hook bound the rootfs ($dev)" rootfs_bound
runc delete -f ct-hook-unified >/dev/null 2>&1 || true
umount "$merged"
reset_root /dentrymob/hook-unified /dentrymob
ctr_mount ct-hook-none
bundle /srv/bundles/ct-hook-none /dentrymob/hook-none "$merged" hook '"idle", "/", "0"'
sed -i 's|"annotations": { "dentry.max": "[0-9]*" },|"annotations": { "other": "1" },|' \
	/srv/bundles/ct-hook-none/config.json
check "the bundle has the hook and no dentry.max annotation" \
	sh -c "grep -q dentrymob-oci-hook /srv/bundles/ct-hook-none/config.json &&
		! grep -q '\"dentry.max\"' /srv/bundles/ct-hook-none/config.json"
run "crun run -d --bundle /srv/bundles/ct-hook-none ct-hook-none < /dev/null > /tmp/out 2>&1; cat /tmp/out"
check "crun: the container without an annotation starts" \
	sh -c "crun state ct-hook-none | grep -q '\"status\": \"running\"'"
check "the hook enabled nothing in the root (crun's list has no dentry)" not_enabled ""
crun delete -f ct-hook-none >/dev/null 2>&1 || true
# runc prints a failed hook's stderr in its error; crun prints only the
# exit code, and writes the hooks' stderr to the file that the annotation
# run.oci.hooks.stderr names.
while read -r rt v err; do
	bundle /srv/bundles/ct-hook-bad /dentrymob/hook-bad "$merged" hook '"idle", "/", "0"'
	sed -i "s|\"annotations\": { \"dentry.max\": \"[0-9]*\" },|\"annotations\": { \"dentry.max\": \"$v\", \"run.oci.hooks.stderr\": \"/tmp/hook.err\" },|" \
		/srv/bundles/ct-hook-bad/config.json
	check "the bundle asks for dentry.max=$v" grep -q "\"dentry.max\": \"$v\"" \
		/srv/bundles/ct-hook-bad/config.json
	: >/tmp/hook.err
	fails "$rt run -d --bundle /srv/bundles/ct-hook-bad ct-hook-bad < /dev/null" || true
	run "cat /tmp/hook.err"
	check "$rt: the hook fails the start for dentry.max=$v with '$err', legibly" \
		sh -c "cat /tmp/out /tmp/hook.err | grep -q 'dentrymob-oci-hook: setting the limit of annotation dentry.max=$v: writing .*/dentry.max: $err'"
	check "$rt: the container with dentry.max=$v does not run" \
		sh -c "! $rt state ct-hook-bad 2>/dev/null | grep -q '\"status\": \"running\"'"
	$rt delete -f ct-hook-bad >/dev/null 2>&1 || true
done <<EOF
runc lots Invalid argument
crun lots Invalid argument
crun -5 Numerical result out of range
EOF
umount "$merged"
reset_root /dentrymob/hook-none /dentrymob/hook-bad /dentrymob

say "A redirected bind: the path given as dentry.root is a symlink to /"
echo "A tenant who owns the directory that a runtime binds replaces it by a"
echo "link to the host's root.  The kernel does not follow a symlink as the"
echo "last component of a dentry.root path: the start fails with ELOOP."
ctr_mount ct-link
mkdir -p /srv/tenant && ln -sfn / /srv/tenant/vol
bundle /srv/bundles/ct-link /dentrymob/link "$merged" yes '"idle", "/", "0"'
sed -i "s|\"dentry.root\": \"$merged\"|\"dentry.root\": \"/srv/tenant/vol\"|" \
	/srv/bundles/ct-link/config.json
check "the bundle's dentry.root is the link" grep -q '"dentry.root": "/srv/tenant/vol"' \
	/srv/bundles/ct-link/config.json
fails "runc run -d --bundle /srv/bundles/ct-link ct-link < /dev/null" || true
check "runc: binding through the link fails with ELOOP, legibly" \
	grep -q "too many levels of symbolic links" /tmp/out
rootdev=$(awk '$5 == "/" { d = $3 } END { print d }' /proc/self/mountinfo)
check "the host's root ($rootdev /) is bound to no cgroup" \
	sh -c "! cat $CG/*/dentry.root $CG/*/*/dentry.root 2>/dev/null | grep -qx '$rootdev /'"
runc delete -f ct-link >/dev/null 2>&1 || true
umount "$merged"
reset_root /dentrymob/link /dentrymob

say "An automount inside a bound tree joins the mob"
echo "debugfs mounted inside a bound tree joins it (a whole filesystem that is"
echo "mounted nowhere else); its tracing directory automounts tracefs, which"
echo "finish_automount() attaches: tracefs must join the same mob, as a mount"
echo "made by mount(2) there would."
mi=/proc/self/mountinfo
# /init mounts debugfs at /sys/kernel/debug when the kernel has it: a mount
# outside the mob would keep debugfs out by the join rule (as it should: the
# filesystem is shared), so this part unmounts it first, deepest first.
for m in $(awk '/ - (debugfs|tracefs) / { print $5 }' $mi | sort -r); do
	run "umount $m"
done
check "neither debugfs nor tracefs is mounted any more" \
	sh -c "! grep -qE ' - (debugfs|tracefs) ' $mi"
run "echo +dentry > $CG/cgroup.subtree_control"
run "mkdir -p $CG/dentrymob && echo +dentry > $CG/dentrymob/cgroup.subtree_control"
run "mkdir $CG/dentrymob/auto && mkdir -p /srv/auto/dbg"
run "echo /srv/auto > $CG/dentrymob/auto/dentry.root"
run "mount -t debugfs none /srv/auto/dbg"
dbgdev=$(mount_dev $mi /srv/auto/dbg)
check "debugfs ($dbgdev) joined at mount" \
	grep -qx "$dbgdev /" "$CG/dentrymob/auto/dentry.root"
run "ls /srv/auto/dbg/tracing/ | head -n 3"
trdev=$(mount_dev $mi /srv/auto/dbg/tracing)
check "the lookup automounted tracefs ($trdev)" \
	sh -c "grep -q ' /srv/auto/dbg/tracing .* - tracefs ' $mi"
check "tracefs ($trdev) joined at automount" \
	grep -qx "$trdev /" "$CG/dentrymob/auto/dentry.root"
run "cat $CG/dentrymob/auto/dentry.root"
umount /srv/auto/dbg/tracing
umount /srv/auto/dbg
echo -/srv/auto >"$CG/dentrymob/auto/dentry.root"
reset_root /dentrymob/auto /dentrymob

say "The numbers (kernel $(uname -r), dentry.max $CMAX, $(($(date +%s) - t_start)) s)"
printf '%-22s %-11s %7s %7s %6s %7s  %s\n' runtime attack count growth bound current result
cat /tmp/table
echo "count: mkdir depth, names looked up or files created; growth: host nr_dentry"

tap_done TOOLS ""
