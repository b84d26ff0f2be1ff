#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# mk-integration-rootfs.sh: the root file system of make check-integration,
# build/integration/root.img (ext4, made with mke2fs -d):
#   build/integration/debootstrap   Debian bookworm, --variant=minbase, plus
#                                   dbus (systemd-run --wait needs the bus),
#                                   the libraries our systemd links with,
#                                   busybox-static (the RootDirectory=
#                                   test), podman (Debian's 4.3, with
#                                   what it depends on; debootstrap does
#                                   not resolve its virtual
#                                   container-network-stack: netavark, the
#                                   smaller one), Debian's crun (podman
#                                   with the OCI hook) and lxc 5.0; made
#                                   once, stamp .dentrymob-key
#   build/systemd/dest              the patched systemd (build-systemd.sh),
#                                   copied over it
#   build/crun/root/usr/bin/crun    the patched crun (build-crun.sh), as
#                                   /usr/local/bin/crun-dentrymob, podman's
#                                   runtime (containers.conf)
#   build/integration/busybox.tar   the image podman imports in the guest (no
#                                   registry is reachable): the host's
#                                   busybox-static and its applet links;
#                                   the same tree is the LXC container's
#                                   rootfs, /var/lib/lxc/dentry-lxc/rootfs
#   tools/dentrymob-oci-hook        built static, installed with podman's
#                                   hooks.d entry in /usr/share/containers
#   tools/dentrymob-lxc-hook        the LXC container's start-host hook
#   scripts/integration/            the test script and units
# The archive is the one the machine's apt uses (the first "deb" entry for
# bookworm in /etc/apt), or DEBIAN_MIRROR.  Needs root (or sudo).
. "$(dirname "$0")/../lib.sh"

I=$B/integration
suite=bookworm
include=dbus,busybox-static,libcap2,libmount1,libcrypt1,podman,netavark,crun,lxc

debian_mirror() {
	local f
	# deb822: the URIs of the first stanza of Types deb with the suite.
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk -v suite="$suite" '
			function flush() {
				if (deb && has && uri != "") { print uri; found = 1; exit }
				deb = 0; has = 0; uri = ""
			}
			/^[[:space:]]*$/ { flush(); next }
			/^Types:/ { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
			/^URIs:/ { uri = $2 }
			/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == suite) has = 1 }
			END { if (!found) flush() }' "$f"
	done
	# one-line format
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk -v suite="$suite" '$1 == "deb" {
			i = 2; if ($i ~ /^\[/) while ($i !~ /\]$/) i++
			if ($i ~ /^\[/ || $i ~ /\]$/) i++
			if ($(i + 1) == suite) print $i }' "$f"
	done
}

# 1. debootstrap, once.
key="$suite minbase $include"
if [ "$(cat "$I/debootstrap/.dentrymob-key" 2>/dev/null)" != "$key" ]; then
	command -v debootstrap >/dev/null || {
		$SUDO apt-get install -y -q --no-install-recommends debootstrap ||
			{ $SUDO apt-get update -q && $SUDO apt-get install -y -q --no-install-recommends debootstrap; }
	}
	mirror=${DEBIAN_MIRROR:-$(debian_mirror | head -n1)}
	[ -n "$mirror" ] || die "no Debian archive for $suite in /etc/apt; set DEBIAN_MIRROR"
	log "debootstrap $suite (minbase + $include) from $mirror"
	$SUDO rm -rf "$I/debootstrap" "$I/debootstrap.tmp"
	mkdir -p "$I"
	$SUDO debootstrap --variant=minbase --include="$include" "$suite" \
		"$I/debootstrap.tmp" "$mirror" >"$I/debootstrap.log" 2>&1 ||
		{ tail -n 20 "$I/debootstrap.log" >&2; die "debootstrap failed: $I/debootstrap.log"; }
	# The packages' caches are not needed in the guest.
	$SUDO rm -rf "$I/debootstrap.tmp/var/cache/apt/archives/"*.deb
	echo "$key" | $SUDO tee "$I/debootstrap.tmp/.dentrymob-key" >/dev/null
	$SUDO mv "$I/debootstrap.tmp" "$I/debootstrap"
fi

# 2. Assemble: a copy of it, the patched systemd, the tests.
[ -d "$B/systemd/dest/usr/lib/systemd" ] || die "build/systemd/dest is missing: run make systemd"
log "assembling the root file system"
R=$I/root
$SUDO rm -rf "$R"
$SUDO cp -a "$I/debootstrap" "$R"
$SUDO rm -f "$R/.dentrymob-key"
$SUDO cp -a "$B/systemd/dest/." "$R/"
$SUDO chroot "$R" /sbin/ldconfig
$SUDO install -m 0755 scripts/integration/dentry-itest "$R/usr/local/sbin/dentry-itest"
$SUDO install -m 0644 scripts/integration/dentry-itest.service \
	scripts/integration/dentry-rootdir.service "$R/etc/systemd/system/"
$SUDO mkdir -p "$R/etc/systemd/system/multi-user.target.wants" \
	"$R/etc/systemd/system/sockets.target.wants" "$R/srv/rd/bin"
$SUDO ln -sf ../dentry-itest.service "$R/etc/systemd/system/multi-user.target.wants/"
$SUDO ln -sf /usr/lib/systemd/system/dbus.socket "$R/etc/systemd/system/sockets.target.wants/"
$SUDO ln -sf /usr/lib/systemd/system/multi-user.target "$R/etc/systemd/system/default.target"
$SUDO cp "$R/bin/busybox" "$R/srv/rd/bin/busybox"
# podman: the patched crun as its runtime, overlay storage on the root disk
# (ext4), the files and logs of its own; the busybox image to import.
[ -x "$B/crun/root/usr/bin/crun" ] || die "build/crun/root/usr/bin/crun is missing: run make crun"
$SUDO install -m 0755 "$B/crun/root/usr/bin/crun" "$R/usr/local/bin/crun-dentrymob"
$SUDO mkdir -p "$R/etc/containers" "$R/usr/local/share/dentry-itest"
$SUDO tee "$R/etc/containers/containers.conf" >/dev/null <<'CONF'
# make check-integration: podman runs the patched crun, as root, in
# systemd's cgroups; logs in files
[engine]
runtime = "crun"
cgroup_manager = "systemd"
events_logger = "file"

[engine.runtimes]
crun = ["/usr/local/bin/crun-dentrymob"]

# The guest kernel has no IPv4 (podman's default sets
# net.ipv4.ping_group_range)
[containers]
log_driver = "k8s-file"
default_sysctls = []
CONF
# podman's own units (its API socket and service, which delegate every
# controller in system.slice, auto-update, restart) would run at boot
# and change what the systemd tests see: not enabled.
$SUDO rm -f "$R"/etc/systemd/system/*.wants/podman*
$SUDO tee "$R/etc/containers/storage.conf" >/dev/null <<'CONF'
[storage]
driver = "overlay"
runroot = "/run/containers/storage"
graphroot = "/var/lib/containers/storage"
CONF
[ -f "$R/etc/containers/policy.json" ] ||
	echo '{"default": [{"type": "insecureAcceptAnything"}]}' |
	$SUDO tee "$R/etc/containers/policy.json" >/dev/null
bb=$I/busybox-rootfs
rm -rf "$bb" && mkdir -p "$bb/bin" "$bb/dev" "$bb/proc" "$bb/sys" "$bb/tmp" "$bb/etc" "$bb/root"
cp /bin/busybox "$bb/bin/busybox"
for a in $("$bb/bin/busybox" --list); do
	[ -e "$bb/bin/$a" ] || ln -s busybox "$bb/bin/$a"
done
tar -C "$bb" --owner=0 --group=0 --numeric-owner -cf "$I/busybox.tar" .
$SUDO install -m 0644 "$I/busybox.tar" "$R/usr/local/share/dentry-itest/busybox.tar"
# Debian's crun as it is, with the OCI hook: podman 4.3 reads only
# /usr/share/containers/oci/hooks.d unless containers.conf's hooks_dir
# says otherwise (an entry in /etc/containers/oci/hooks.d is not run).
make -s -C tools/dentrymob-oci-hook clean
make -s -C tools/dentrymob-oci-hook LDFLAGS=-static dentrymob-oci-hook
$SUDO make -s -C tools/dentrymob-oci-hook install DESTDIR="$R" PREFIX=/usr/local \
	HOOKDIR=/usr/share/containers/oci/hooks.d
make -s -C tools/dentrymob-oci-hook clean
[ -x "$R/usr/bin/crun" ] || die "Debian's crun is missing from the root file system"
# LXC: the busybox tree as a privileged container's rootfs, a config with
# the limit and the start-host hook (see dentry-itest); LXC's own units
# (lxc-net's bridge, autostart) are not enabled.
$SUDO install -D -m 0755 tools/dentrymob-lxc-hook/dentrymob-lxc-hook \
	"$R/usr/local/libexec/dentrymob-lxc-hook"
L=$R/var/lib/lxc/dentry-lxc
$SUDO mkdir -p "$L"
$SUDO cp -a "$bb" "$L/rootfs"
$SUDO chown -R 0:0 "$L/rootfs"
$SUDO tee "$L/config" >/dev/null <<'CONF'
# make check-integration: a privileged busybox container whose dentries
# are capped (lxc.cgroup2.dentry.max) and bound by the start-host hook
lxc.uts.name = dentry-lxc
lxc.rootfs.path = dir:/var/lib/lxc/dentry-lxc/rootfs
lxc.init.cmd = /bin/sleep 1000000
lxc.net.0.type = empty
lxc.apparmor.profile = unconfined
lxc.autodev = 1
lxc.mount.auto = proc:mixed sys:ro cgroup:mixed
lxc.mount.entry = tmpfs dev/shm tmpfs rw,nosuid,nodev,create=dir 0 0
lxc.tty.max = 0
lxc.pty.max = 16
lxc.console.path = none
lxc.cgroup2.dentry.max = 300
lxc.hook.version = 1
lxc.hook.start-host = /usr/local/libexec/dentrymob-lxc-hook
CONF
$SUDO rm -f "$R"/etc/systemd/system/*.wants/lxc*
# A fixed machine id: no first-boot logic (presets, firstboot) in the guest.
echo 0123456789abcdef0123456789abcdef | $SUDO tee "$R/etc/machine-id" >/dev/null
echo dentry-itest | $SUDO tee "$R/etc/hostname" >/dev/null
printf '/dev/vda / ext4 rw,errors=remount-ro 0 1\n' | $SUDO tee "$R/etc/fstab" >/dev/null

# 3. The image: a fresh ext4 with the tree in it.
rm -f "$I/root.img.tmp"
truncate -s 1G "$I/root.img.tmp"
$SUDO mke2fs -q -t ext4 -F -L root -E lazy_itable_init=0,lazy_journal_init=0 \
	-d "$R" "$I/root.img.tmp" 1G
$SUDO chown "$(id -u):$(id -g)" "$I/root.img.tmp"
mv "$I/root.img.tmp" "$I/root.img"
log "root file system: $I/root.img"
