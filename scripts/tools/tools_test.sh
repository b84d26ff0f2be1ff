#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make check-tools: the guest's program.  The dentry controller driven by
# the tools operators use, Debian's builds of them: cgroup-tools (libcgroup
# 2.0.2), runc, crun, and crun rebuilt with patches/crun/.  Each runs the
# mkdir loop in a tree bound to its cgroup, which must stop at dentry.max
# with ENOMEM.  Prints a transcript and TAP (see scripts/guest/guest.py).
set -eu

CG=/sys/fs/cgroup
MAX=400
export PATH=$PATH:/usr/local/bin		# crun-patched
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

# The mkdir loop.  $1: where; $2 = hold: stay alive afterwards (exec'ing
# sleep allocates no dentry: every name on the way is cached) so that the
# host can read the cgroup of a container before its runtime removes it.
cat >/tmp/loop.sh <<'EOF'
cd "$1"
n=0
while err=$(mkdir x 2>&1); do
	cd x
	n=$((n + 1))
done
echo "depth=$n"
echo "error: $err"
[ "${2:-}" != hold ] || exec /bin/sleep 1000
EOF

# A bundle for an OCI runtime: a busybox rootfs and a config.json whose
# linux.resources.unified sets dentry.max and binds the rootfs (a host path:
# runtimes write unified keys from the host's mount namespace).  With
# "noroot", unified has dentry.max alone: the runtime must bind the rootfs.
bundle() {	# bundle DIR CGROUPS_PATH [noroot]
	local b=$1 root=",
				\"dentry.root\": \"$1/rootfs\""
	[ "${3:-}" != noroot ] || root=
	mkdir -p "$b/rootfs/bin" "$b/rootfs/proc" "$b/rootfs/dev" "$b/rootfs/tmp"
	cp /bin/busybox "$b/rootfs/bin/"
	for a in sh mkdir sleep; do ln -s busybox "$b/rootfs/bin/$a"; done
	cp /tmp/loop.sh "$b/rootfs/loop.sh"
	cat >"$b/config.json" <<EOF
{
	"ociVersion": "1.0.2",
	"process": {
		"terminal": false,
		"user": { "uid": 0, "gid": 0 },
		"args": [ "/bin/sh", "/loop.sh", "/tmp", "hold" ],
		"env": [ "PATH=/bin" ],
		"cwd": "/",
		"noNewPrivileges": true
	},
	"root": { "path": "rootfs" },
	"hostname": "ct",
	"mounts": [
		{ "destination": "/proc", "type": "proc", "source": "proc" },
		{ "destination": "/dev", "type": "tmpfs", "source": "tmpfs",
		  "options": [ "nosuid", "mode=755", "size=1m" ] }
	],
	"linux": {
		"cgroupsPath": "$2",
		"resources": {
			"devices": [ { "allow": false, "access": "rwm" } ],
			"unified": {
				"dentry.max": "$MAX"$root
			}
		},
		"namespaces": [ { "type": "pid" }, { "type": "ipc" },
				{ "type": "uts" }, { "type": "mount" } ]
	}
}
EOF
}

# Start a container detached, wait for its loop to end, check its cgroup
# while it is alive, then delete it.
container() {	# container RUNTIME NAME BUNDLE CGROUPS_PATH
	local rt=$1 name=$2 b=$3 cg=$CG$4 i=0
	if ! run "$rt run -d --bundle $b $name > $b/out 2>&1 < /dev/null"; then
		sed 's/^/   /' "$b/out"
		check "$rt run starts the container" false
		"$rt" delete -f "$name" >/dev/null 2>&1 || true
		return 0
	fi
	while ! grep -q '^error:' "$b/out" && [ $i -lt 300 ]; do
		sleep 0.2
		i=$((i + 1))
	done
	sed 's/^/   container: /' "$b/out"
	run "cat $cg/dentry.max $cg/dentry.current $cg/dentry.events"
	run "cat $cg/dentry.root"
	check "$rt: the mkdir loop stopped with ENOMEM" grep -q "Cannot allocate memory" "$b/out"
	check "$rt: dentry.max is $MAX" test "$(cat "$cg/dentry.max")" = "$MAX"
	check "$rt: the mob is exactly full: dentry.current = $MAX" \
		test "$(cat "$cg/dentry.current")" = "$MAX"
	check "$rt: dentry.events counted the refusal" \
		test "$(sed -n 's/^max //p' "$cg/dentry.events")" -ge 1
	check "$rt: dentry.root binds the container's rootfs" \
		grep -q " $b/rootfs\$" "$cg/dentry.root"
	run "$rt delete -f $name"
}

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

say "2. runc: enables every controller of cgroup.controllers along the path"
bundle /srv/runc /dentrymob/runc
run "cat $CG/cgroup.subtree_control; echo"
container runc ct-runc /srv/runc /dentrymob/runc
check "runc enabled dentry in the root and in /dentrymob" \
	eval 'enabled "" && enabled /dentrymob'
reset_root /dentrymob/runc /dentrymob

say "3. crun as Debian ships it: enables a fixed list of controllers"
bundle /srv/crun /dentrymob/crun
fails "crun run -d --bundle /srv/crun ct-crun < /dev/null" || true
check "crun: dentry.* keys fail without +dentry on the ancestors, legibly" \
	grep -q "controller .dentry. is not available" /tmp/out
crun delete -f ct-crun >/dev/null 2>&1 || true
reset_root /dentrymob/crun /dentrymob
echo "The workaround: enable dentry on every ancestor first."
run "echo +dentry > $CG/cgroup.subtree_control"
run "mkdir $CG/dentrymob && echo +dentry > $CG/dentrymob/cgroup.subtree_control"
container crun ct-crun /srv/crun /dentrymob/crun
reset_root /dentrymob/crun /dentrymob

say "4. crun with patches/crun/: enables what the unified keys need (OCI rule)"
bundle /srv/crun-patched /dentrymob/crun-patched
run "cat $CG/cgroup.subtree_control; echo"
container crun-patched ct-crun-patched /srv/crun-patched /dentrymob/crun-patched
check "patched crun enabled dentry in the root and in /dentrymob" \
	eval 'enabled "" && enabled /dentrymob'
reset_root /dentrymob/crun-patched /dentrymob

say "5. runc with patches/runc/: binds the rootfs itself"
b=/srv/runc-patched
bundle $b /dentrymob/runc-patched noroot
run "sed -n '/unified/,/}/p' $b/config.json"
check "the bundle's unified sets dentry.max and no dentry.root" \
	eval "grep -q dentry.max $b/config.json && ! grep -q dentry.root $b/config.json"
echo "A rootfs that another cgroup binds already: the start fails, legibly."
run "echo +dentry > $CG/cgroup.subtree_control"
run "mkdir $CG/dentrymob && echo +dentry > $CG/dentrymob/cgroup.subtree_control"
run "mkdir $CG/dentrymob/other"
run "echo $b/rootfs > $CG/dentrymob/other/dentry.root"
fails "runc-patched run -d --bundle $b ct-runc-patched < /dev/null" || true
check "runc-patched: the failed bind names dentry.root and EBUSY" \
	eval 'grep "dentry.root" /tmp/out | grep -q EBUSY'
check "runc-patched: the failed start removed the container's cgroup" \
	test ! -d $CG/dentrymob/runc-patched
runc-patched delete -f ct-runc-patched >/dev/null 2>&1 || true
run "echo -$b/rootfs > $CG/dentrymob/other/dentry.root"
reset_root /dentrymob/other /dentrymob
container runc-patched ct-runc-patched $b /dentrymob/runc-patched
reset_root /dentrymob/runc-patched /dentrymob

tap_done TOOLS ""
