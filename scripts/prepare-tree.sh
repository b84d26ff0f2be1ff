#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Make build/linux = pristine base + $SERIES (strictly) + overlay of the repo's
# new files ($OVERLAY), incrementally:
#   build/base   the pristine tree, unpacked once (stamp: .dentrymob-base)
#   build/linux  a hardlinked copy of it (cp -al); we never write through a
#                hardlink: changed files are replaced (cp --remove-destination)
#   build/linux/.dentrymob-touched  files the last run patched or overlaid
# Every run rebuilds the wanted content of the touched files (old and new) in
# a scratch dir, from base, and installs only the files whose content differs,
# so kbuild sees new mtimes exactly where something changed.
. "$(dirname "$0")/lib.sh"

# 1. The base.  The stamp says where it came from; another source (a bumped
#    BASE_PKG_VERSION, another KERNEL_SRC) unpacks it again.
if [ -n "$KERNEL_SRC" ]; then
	src=$(realpath -e "$KERNEL_SRC") || die "KERNEL_SRC=$KERNEL_SRC does not exist"
	[ -f "$src/Makefile" ] && [ -f "$src/init/Kconfig" ] ||
		die "KERNEL_SRC=$KERNEL_SRC is not a kernel source tree"
	case $src/ in "$B"/*) die "KERNEL_SRC must not be inside build/" ;; esac
	want="dir $src"
else
	have=$(dpkg-query -W -f='${Version}' "$BASE_PKG" 2>/dev/null || true)
	[ "$have" = "$BASE_PKG_VERSION" ] ||
		die "$BASE_PKG=$BASE_PKG_VERSION is not installed (have: ${have:-none}); run make deps"
	want="pkg $BASE_PKG $BASE_PKG_VERSION"
fi
stamp=$B/base/.dentrymob-base
# An empty stamp was left by a hand unpack of the tarball: adopt it.
if [ -z "$KERNEL_SRC" ] && [ -f "$stamp" ] && [ ! -s "$stamp" ]; then
	echo "$want" >"$stamp"
fi
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
	# Everything derived from the old base is stale (mtimes included).
	rm -rf "$B/base" "$B/base.tmp" "$B/linux" "$B/obj" "$B/series-git" "$B/obj-series"
	mkdir -p "$B/base.tmp"
	if [ -n "$KERNEL_SRC" ]; then
		log "copying $src into build/base (the original is left alone)"
		tar -C "$src" --exclude=.git -cf - . | tar -C "$B/base.tmp" -xf -
		# kbuild refuses O= builds from a configured tree: clean our copy.
		kmake -s -C "$B/base.tmp" mrproper
	else
		log "unpacking $BASE_TARBALL into build/base"
		tar -C "$B/base.tmp" --strip-components=1 -xf "$BASE_TARBALL"
	fi
	echo "$want" >"$B/base.tmp/.dentrymob-base"
	mv "$B/base.tmp" "$B/base"
fi

# 2. The working tree.  A fresh one has base mtimes, older than objects built
#    from patched files, so build/obj must go with it.
if [ ! -f "$B/linux/.dentrymob-linux" ]; then
	log "creating build/linux (hardlinked to build/base)"
	rm -rf "$B/linux" "$B/linux.tmp" "$B/obj"
	cp -al "$B/base" "$B/linux.tmp"
	touch "$B/linux.tmp/.dentrymob-linux"
	mv "$B/linux.tmp" "$B/linux"
fi

# 3. Wanted content of the touched files, built in a scratch dir.
S=$B/apply
rm -rf "$S" "$S".* && mkdir -p "$S"
trap 'rm -rf "$S" "$S".*' EXIT
touched=$B/linux/.dentrymob-touched
pdir=$(series_dir)
mapfile -t patches < <(series_patches)
for p in "${patches[@]}"; do
	[ -f "$pdir/$p" ] || die "patch '$p' (listed in $SERIES) does not exist"
done

# Pristine copies of what the patches name and of what was touched last time.
{
	cat "$touched" 2>/dev/null || true
	for p in "${patches[@]}"; do
		sed -n -e 's,^\(---\|+++\) [^/	]*/\([^	]*\).*,\2,p' \
			-e 's/^\(rename\|copy\) from //p' "$pdir/$p"
	done
} | sort -u >"$S.pristine"
while read -r f; do
	if [ -f "$B/base/$f" ]; then
		mkdir -p "$S/$(dirname "$f")"
		cp --preserve=mode "$B/base/$f" "$S/$f"
	fi
done <"$S.pristine"

# Apply strictly: no fuzz, dry run first so a failing patch leaves no trace.
: >"$S.new"
for p in "${patches[@]}"; do
	popt=(-d "$S" -p1 -F0 -f --no-backup-if-mismatch -i "$(realpath "$pdir/$p")")
	if ! out=$(patch --dry-run "${popt[@]}" 2>&1); then
		printf '%s\n' "$out" >&2
		die "patch '$pdir/$p' does not apply (patch -p1 -F0) on top of the patches before it in $SERIES"
	fi
	# Collect "patching file NAME" lines: those files are touched.
	patch "${popt[@]}" | sed -e '/^patching file /!d' -e 's///' \
		-e 's/ (\(renamed\|copied\) from .*)$//' -e "s/^'\(.*\)'\$/\1/" >>"$S.new"
	echo "  applied $p" >&2
done
# Base files the patches deleted or renamed away are touched too.
while read -r f; do
	if [ -f "$B/base/$f" ] && ! cmp -s "$S/$f" "$B/base/$f" 2>/dev/null; then
		echo "$f"
	fi
done <"$S.pristine" >>"$S.new"

# Overlay the repo's new files (tracked or untracked, not ignored).
nover=0
if [ -n "$OVERLAY" ]; then
	if git rev-parse --git-dir >/dev/null 2>&1; then
		list() { git ls-files -co --exclude-standard -- $OVERLAY; }
	else
		list() { find $OVERLAY -type f 2>/dev/null || true; }
	fi
	while read -r f; do
		[ -f "$f" ] || continue	# tracked but deleted
		[ -e "$B/base/$f" ] && log "warning: overlay file $f replaces an upstream file"
		mkdir -p "$S/$(dirname "$f")"
		cp --remove-destination --preserve=mode "$f" "$S/$f"
		echo "$f" >>"$S.new"
		nover=$((nover + 1))
	done < <(list)
fi

# 4. Install.  Record old+new first, so an interrupted run is undone next time.
sort -u "$S.new" -o "$S.new"
sort -u "$S.new" "$touched" -o "$S.all" 2>/dev/null || cp "$S.new" "$S.all"
cp "$S.all" "$touched.tmp" && mv "$touched.tmp" "$touched"
nchg=0
while read -r f; do
	if [ -f "$S/$f" ]; then
		cmp -s "$S/$f" "$B/linux/$f" && continue
		mkdir -p "$B/linux/$(dirname "$f")"
		cp --remove-destination --preserve=mode "$S/$f" "$B/linux/$f"
	elif [ -e "$B/linux/$f" ]; then
		rm -f "$B/linux/$f"
		rmdir -p --ignore-fail-on-non-empty "$(dirname "$B/linux/$f")"
	else
		continue
	fi
	echo "  updated $f" >&2
	nchg=$((nchg + 1))
done <"$S.all"
cp "$S.new" "$touched.tmp" && mv "$touched.tmp" "$touched"
log "build/linux: ${#patches[@]} patches, $nover overlay files, $nchg files updated"
