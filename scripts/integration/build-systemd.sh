#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make systemd: Debian's systemd source package + patches/systemd/, built
# with meson/ninja (ccache) and installed into build/systemd/dest, the tree
# that mk-rootfs.sh copies into the guest's root.
#
#   build/systemd/dl     the source package (apt-get source)
#   build/systemd/src    the git tree of the model (scripts/tree/gittree.sh):
#                        tag base = the package as dpkg-source unpacks it,
#                        branch series = one commit per patch of
#                        patches/systemd/series.  Edit it, commit into the
#                        patch, make save.
#   build/systemd/obj    the meson build directory (out of the tree)
#   build/systemd/dest   DESTDIR of "meson install"
#
# git only rewrites the files that change, so ninja recompiles only those.
# The feature set is fixed below (everything not needed to boot and run
# units is off), so the result does not depend on which -dev packages
# happen to be installed on the build machine.
. "$(dirname "$0")/../lib.sh"
. "$REPO/scripts/tree/gittree.sh"

ver=${SYSTEMD_PKG_VERSION:?set by the Makefile}
S=$B/systemd

# 1. Build dependencies: an explicit list for the features enabled below
#    (apt-get build-dep would pull the whole Debian build, docs and all).
scripts/host/apt.sh install meson ninja-build gperf pkg-config gcc libc6-dev \
	ccache libmount-dev libcap-dev libcrypt-dev python3-jinja2 dpkg-dev patch

# 2. The patched tree.
systemd_base() {
	local src
	scripts/host/apt.sh source systemd "$ver" "$S/dl"
	src=$(find "$S/dl" -mindepth 1 -maxdepth 1 -type d -name 'systemd-*' | head -n1)
	[ -n "$src" ] || die "apt-get source systemd made no systemd-* directory in $S/dl"
	cp -a "$src/." "$1/"
	rm -rf "$S/dl"
}
gittree_sync "$S/src" patches/systemd systemd_base

# 3. Configure (again only when the options change), build, install.
off=(resolve efi tpm environment-d binfmt coredump pstore oomd logind
     hostnamed localed machined portabled sysext userdb networkd
     timedated timesyncd nss-myhostname nss-systemd firstboot
     randomseed backlight vconsole quotacheck hibernate rfkill
     xdg-autostart hwdb utmp ldconfig kernel-install analyze idn
     smack ima gshadow urlify translations
     repart sysupdate homed remote nss-mymachines nss-resolve
     importd man html tests seccomp selinux apparmor polkit acl
     audit blkid fdisk kmod pam pwquality microhttpd libcryptsetup
     libcryptsetup-plugins libcurl libidn2 libidn libiptc qrencode
     gcrypt gnutls openssl p11kit libfido2 tpm2 elfutils zlib bzip2
     xz lz4 zstd xkbcommon pcre2 glib dbus gnu-efi bpf-framework
     dns-over-tls)
# Debian's paths and names (debian/rules), so that the result replaces
# nothing of the Debian root file system in a surprising place.
opts=(--prefix=/usr --sysconfdir=/etc --localstatedir=/var
      --libdir=lib/x86_64-linux-gnu -Dmode=release -Dsplit-usr=false
      -Drootprefix=/usr -Dfuzz-tests=false -Dinstall-tests=false
      -Dbashcompletiondir=no -Dzshcompletiondir=no
      -Ddefault-hierarchy=unified -Dnobody-group=nogroup)
for o in "${off[@]}"; do opts+=("-D$o=false"); done
okey=$(printf '%s\n' "$ver" "${opts[@]}" | sha1sum | cut -d' ' -f1)
if [ ! -f "$S/obj/build.ninja" ] || [ "$(cat "$S/obj/.dentrymob-opts" 2>/dev/null)" != "$okey" ]; then
	log "configuring systemd in $S/obj"
	rm -rf "$S/obj"
	CC="ccache gcc" CCACHE_BASEDIR="$S" meson setup "$S/obj" "$S/src" "${opts[@]}" \
		>"$B/systemd-meson.log" ||
		{ tail -n 30 "$B/systemd-meson.log" >&2; die "meson setup failed: $B/systemd-meson.log"; }
	echo "$okey" >"$S/obj/.dentrymob-opts"
fi
log "building systemd in $S/obj"
CCACHE_BASEDIR="$S" ninja -C "$S/obj" -j"$(nproc)"
rm -rf "$S/dest.tmp"
DESTDIR="$S/dest.tmp" meson install -C "$S/obj" --no-rebuild --quiet >/dev/null
rm -rf "$S/dest"
mv "$S/dest.tmp" "$S/dest"
log "systemd installed into $S/dest"
