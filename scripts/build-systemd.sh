#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build-systemd.sh: Debian's systemd source package + patches/systemd/series,
# built with meson/ninja (ccache) and installed into build/systemd/dest, the
# tree that scripts/mk-integration-rootfs.sh copies into the guest's root.
#
#   build/systemd/dl     the source package (apt-get source --download-only)
#   build/systemd/src    dpkg-source -x of it, then our patches (stamp:
#                        .dentrymob-src = version + sha1 of the series)
#   build/systemd/obj    the meson build directory
#   build/systemd/dest   DESTDIR of "meson install"
#
# Only the source tree is rebuilt when the patches change; ninja then
# recompiles what changed.  The feature set is fixed below (everything not
# needed to boot and run units is off), so the result does not depend on
# which -dev packages happen to be installed on the build machine.
. "$(dirname "$0")/lib.sh"

ver=${SYSTEMD_PKG_VERSION:?set by the Makefile}
series=$REPO/patches/systemd/series
S=$B/systemd
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo

# 1. Build dependencies: an explicit list for the features enabled below
#    (apt-get build-dep would pull the whole Debian build, docs and all).
deps=(meson ninja-build gperf pkg-config gcc libc6-dev ccache
      libmount-dev libcap-dev libcrypt-dev python3-jinja2 dpkg-dev patch)
missing=()
for p in "${deps[@]}"; do
	dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qx installed ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	log "installing: ${missing[*]}"
	$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" ||
		{ $SUDO apt-get update -q &&
		  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"; }
fi

# 2. The source package, downloaded once per version.
dsc=$S/dl/systemd_${ver#*:}.dsc
if [ ! -f "$dsc" ]; then
	"$REPO/scripts/apt-src.sh"
	mkdir -p "$S/dl"
	log "downloading the systemd $ver source package"
	(cd "$S/dl" && apt-get source -q --download-only "systemd=$ver") ||
		die "apt-get source systemd=$ver failed (is that version still in the archive? see SYSTEMD_PKG_VERSION in the Makefile)"
fi

# 3. The patched tree.
patches=()
while IFS= read -r p; do patches+=("$REPO/patches/systemd/$p"); done < <(
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$series")
want="$ver $(cat "$series" "${patches[@]}" | sha1sum | cut -d' ' -f1)"
if [ "$(cat "$S/src/.dentrymob-src" 2>/dev/null)" != "$want" ]; then
	log "unpacking systemd $ver and applying patches/systemd/series"
	rm -rf "$S/src.tmp"
	dpkg-source -q -x "$dsc" "$S/src.tmp" >/dev/null
	for p in "${patches[@]}"; do
		patch -d "$S/src.tmp" -p1 -F0 -N --dry-run -s <"$p" >/dev/null ||
			die "patches/systemd/${p##*/} does not apply to systemd $ver"
		patch -d "$S/src.tmp" -p1 -F0 -N -s <"$p"
	done
	echo "$want" >"$S/src.tmp/.dentrymob-src"
	# Files the patches did not touch keep their old mtimes: the
	# existing build dir then recompiles only what changed.
	if [ -d "$S/src" ]; then
		rsync_like() {
			# Copy changed files only (by content), keeping the rest as is.
			(cd "$S/src.tmp" && find . -type f -print0) |
			while IFS= read -r -d '' f; do
				cmp -s "$S/src.tmp/$f" "$S/src/$f" ||
					{ mkdir -p "$(dirname "$S/src/$f")"; cp "$S/src.tmp/$f" "$S/src/$f"; }
			done
		}
		rsync_like
		rm -rf "$S/src.tmp"
	else
		mv "$S/src.tmp" "$S/src"
	fi
fi

# 4. Configure (again only when the options change), build, install.
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
