#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make save: write patches/ (and patches/crun/, patches/runc/, patches/systemd/)
# from the commits of build/linux (and build/crun/src, build/runc/src,
# build/systemd/src), for each tree that exists.  See gittree.sh for what it
# refuses and why.
#   save.sh --check   only list the trees with unsaved work (exit 1 if any)
. "$(dirname "$0")/../lib.sh"
. "$REPO/scripts/tree/gittree.sh"

# save.sh --check: only say which trees hold unsaved work (exit 1 if any).
if [ "${1:-}" = --check ]; then
	rc=0
	gittree_unsaved "$B/linux" patches && rc=1
	gittree_unsaved "$B/crun/src" patches/crun && rc=1
	gittree_unsaved "$B/runc/src" patches/runc && rc=1
	gittree_unsaved "$B/systemd/src" patches/systemd && rc=1
	exit $rc
fi

old=()
mapfile -t old < <(series_patches patches/series)
gittree_save "$B/linux" patches no-new-files

# patches/newfiles names the patch that adds each new file.  A patch whose
# subject changed has a new name: its files follow it, by position.
mapfile -t now < <(series_patches patches/series)
if [ "${old[*]}" != "${now[*]}" ] && [ -f patches/newfiles ]; then
	[ ${#old[@]} -eq ${#now[@]} ] ||
		log "warning: the series has ${#now[@]} patches instead of ${#old[@]}: check patches/newfiles by hand"
	declare -A map=()
	for i in "${!old[@]}"; do
		[ -n "${now[$i]:-}" ] && map[${old[$i]}]=${now[$i]}
	done
	while IFS= read -r line; do
		case $line in
		'#'* | '') printf '%s\n' "$line" ;;
		*)	p=${line%%[[:space:]]*}
			printf '%s%s\n' "${map[$p]:-$p}" "${line#"$p"}" ;;
		esac
	done <patches/newfiles >patches/newfiles.new
	mv patches/newfiles.new patches/newfiles
fi

gittree_save "$B/crun/src" patches/crun
gittree_save "$B/runc/src" patches/runc
gittree_save "$B/systemd/src" patches/systemd
