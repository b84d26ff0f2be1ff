#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make tree: build/linux, the one writable copy of the kernel change.
#
#   build/linux   a git tree (see gittree.sh): tag base = build/base, branch
#                 series = one commit per patch of patches/series (git am).
#                 The repository's new files (NEWFILE_DIRS below) are
#                 symbolic links to the repository, so editing either path
#                 edits the same file; git ignores them (.git/info/exclude).
#
# Run it any time: it does nothing when patches/ has not changed, re-applies
# patches/ when it has (refusing to lose unsaved work, see gittree.sh), and
# links new files that appeared in the repository.
. "$(dirname "$0")/../lib.sh"
. "$REPO/scripts/tree/gittree.sh"
L=$B/linux
# tools/testing only: the repository's own tools (tools/dentrymob-oci-hook)
# are in no patch.
NEWFILE_DIRS=(kernel fs include Documentation tools/testing)

scripts/tree/base.sh
# A base unpacked anew makes build/linux stale, whatever it holds: keep its
# branches (git fetch into the new tree is cheap), make it anew.
if [ -d "$L/.git" ] && ! cmp -s "$B/base/.dentrymob-base" "$L/.git/dentrymob-base"; then
	keep=$B/linux-old-$(date +%Y%m%d-%H%M%S)
	log "the base changed: build/linux moves to $keep (its commits stay there)"
	mv "$L" "$keep"
	rm -rf "$B/obj" "$B/series-git"
fi

copy_base() {
	log "copying build/base (git then takes a minute to record it)"
	cp -a "$B/base/." "$1/"
	rm -f "$1/.dentrymob-base"
}
gittree_sync "$L" patches copy_base
cp "$B/base/.dentrymob-base" "$L/.git/dentrymob-base"

# The new files: every file the repository has (tracked, or untracked and
# not ignored) under NEWFILE_DIRS, linked at the same path.
mapfile -t new < <(git ls-files -co --exclude-standard -- "${NEWFILE_DIRS[@]}")
links=$L/.git/dentrymob-links
n=0
for f in "${new[@]}"; do
	[ -f "$f" ] || continue		# tracked but deleted
	if gt "$L" cat-file -e "base:$f" 2>/dev/null; then
		die "$f is in the base tree: change it in build/linux (a patch), not in the repository"
	fi
	if [ "$(readlink "$L/$f" 2>/dev/null)" != "$REPO/$f" ]; then
		[ -e "$L/$f" ] && [ ! -L "$L/$f" ] &&
			die "build/linux/$f is a file of its own; the repository has $f too: keep one (the repository's) and run make tree again"
		mkdir -p "$(dirname "$L/$f")"
		ln -sfn "$REPO/$f" "$L/$f"
		n=$((n + 1))
	fi
	echo "$f"
done >"$links.new"
# Links to files that left the repository.
if [ -f "$links" ]; then
	while read -r f; do
		grep -qxF -- "$f" "$links.new" && continue
		[ -L "$L/$f" ] && rm -f "$L/$f" && log "unlinked $f"
	done <"$links"
fi
mv "$links.new" "$links"
sed 's,^,/,' "$links" >"$L/.git/info/exclude"
[ $n -eq 0 ] || log "build/linux: linked $n new files from the repository"
log "build/linux: $(gt "$L" rev-list --count base..series) patches, $(wc -l <"$links") new files linked"
