#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The way back from build/series-git to the repository: how a kernel change
# is made.
#
#   make series                 # build/series-git: base + one commit per patch
#   cd build/series-git; edit; git commit --fixup=<patch commit>
#   git rebase -i --autosquash base   # or reword, split, add commits
#   cd -; make import-series    # rewrite patches/ and the new files from it
#
# For every commit in base..series (in order) this writes:
#   patches/NNNN-<subject>.patch  its message and its diff of the files that
#                                 exist in the base tree (patch -p1 -F0)
#   the files it adds, at their kernel paths in the repository
#   patches/series, patches/newfiles
# Patches that no longer exist are removed with git rm if tracked.
. "$(dirname "$0")/lib.sh"
G=$B/series-git
pdir=$(series_dir)
[ -d "$G/.git" ] || die "no build/series-git: run make series first"
git -C "$G" rev-parse -q --verify base >/dev/null || die "build/series-git has no tag base"
[ -z "$(git -C "$G" status --porcelain --untracked-files=no)" ] ||
	die "build/series-git has uncommitted changes: commit them first"

mapfile -t commits < <(git -C "$G" rev-list --reverse base..HEAD)
[ ${#commits[@]} -gt 0 ] || die "build/series-git: no commits on top of base"

# New files are written back over the repository's copies: refuse to
# overwrite local edits that series-git does not have (make series first).
clobber=()
for c in "${commits[@]}"; do
	while read -r f; do
		[ -f "$f" ] || continue
		git diff --quiet HEAD -- "$f" 2>/dev/null && continue
		git -C "$G" show "$c:$f" | cmp -s - "$f" || clobber+=("$f")
	done < <(git -C "$G" diff-tree --no-commit-id -r --name-only --diff-filter=A "$c")
done
if [ ${#clobber[@]} -gt 0 ]; then
	printf '  %s\n' "${clobber[@]}" >&2
	die "these files have local changes that build/series-git does not have: commit them or run make series again"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/series"
: >"$tmp/newfiles"
mapfile -t old < <(series_patches)
n=0
for c in "${commits[@]}"; do
	n=$((n + 1))
	name=$(git -C "$G" format-patch -1 -o "$tmp/fp" --filename-max-length=80 \
		--start-number=$n "$c")
	name=$(basename "$name")
	rm -rf "$tmp/fp"
	# Files the commit adds go to the overlay, the rest into the patch.
	mapfile -t added < <(git -C "$G" diff-tree --no-commit-id -r --name-only \
		--diff-filter=A "$c")
	mapfile -t changed < <(git -C "$G" diff-tree --no-commit-id -r --name-only \
		--diff-filter=a "$c")
	author=$(git -C "$G" log -1 --format='%an <%ae>' "$c")
	{
		printf 'From: %s\n' "$author"
		printf 'Subject: [PATCH] %s\n\n' "$(git -C "$G" log -1 --format=%s "$c")"
		git -C "$G" log -1 --format=%b "$c" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}'
		if [ ${#changed[@]} -gt 0 ]; then
			printf -- '---\n'
			git -C "$G" diff --stat=72 "$c^" "$c" -- "${changed[@]}"
			printf '\n'
			git -C "$G" -c core.abbrev=7 diff --no-color --no-ext-diff "$c^" "$c" -- "${changed[@]}"
		fi
	} >"$tmp/$name"
	echo "$name" >>"$tmp/series"
	for f in "${added[@]}"; do
		mkdir -p "$(dirname "$f")"
		git -C "$G" show "$c:$f" >"$f"
		[ -x "$G/$f" ] && chmod +x "$f"
		printf '%s\t%s\n' "$name" "$f" >>"$tmp/newfiles"
	done
	log "imported $name (${#changed[@]} changed, ${#added[@]} new files)"
done

# Files assigned to a patch that series-git does not have yet (added since
# the last make series) keep their assignment.
if [ -f "$pdir/newfiles" ]; then
	while read -r p f rest; do
		[ -n "$p" ] && [ -n "$f" ] && [ -f "$f" ] || continue
		grep -qxF "$p" "$tmp/series" || continue
		cut -f2 "$tmp/newfiles" | grep -qxF -- "$f" && continue
		printf '%s\t%s\n' "$p" "$f" >>"$tmp/newfiles"
	done < <(sed 's/#.*//' "$pdir/newfiles")
	sort -o "$tmp/newfiles" "$tmp/newfiles"
fi

# Old patches that are gone.
for p in "${old[@]}"; do
	grep -qxF "$p" "$tmp/series" && continue
	if git ls-files --error-unmatch "$pdir/$p" >/dev/null 2>&1; then
		git rm -q -f "$pdir/$p"
	else
		rm -f "$pdir/$p"
	fi
done
while read -r p; do cp "$tmp/$p" "$pdir/$p"; done <"$tmp/series"
{
	sed -n '/^#/p' "$pdir/series" 2>/dev/null | sed '/^# *[0-9]/d'
	cat "$tmp/series"
} >"$tmp/series.new" && mv "$tmp/series.new" "$pdir/series"
{
	sed -n '/^#/p' "$pdir/newfiles" 2>/dev/null
	cat "$tmp/newfiles"
} >"$tmp/newfiles.new" && mv "$tmp/newfiles.new" "$pdir/newfiles"
log "patches/: ${#commits[@]} patches; check with: git diff --stat; make check checkpatch"
