#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make series: patches/ as a git format-patch series against the base, with
# the new files in the commits that patches/newfiles assigns them to.
#   build/series-git  a git worktree of build/linux (it shares its objects),
#                     branch "export": one commit per patch of patches/series,
#                     plus the new files of that patch ("PATCH  path" lines
#                     of patches/newfiles), copied from the repository
#   build/series/     git format-patch --cover-letter output, the cover letter
#                     filled from patches/cover-letter.txt if there is one
# It exports what patches/ holds: commits of build/linux that are not saved
# yet (make save) are not in it, and it says so.
. "$(dirname "$0")/../lib.sh"
. "$REPO/scripts/tree/gittree.sh"
L=$B/linux
G=$B/series-git
out=$B/series
mapfile -t patches < <(series_patches patches/series)
# The committer (and the cover letter's From:) is you, if git knows you.
GT_NAME=$(git config user.name || echo "dentrymob export")
GT_EMAIL=$(git config user.email || echo export@dentrymob.invalid)

read -r have_hash have_head < <(gittree_state "$L")
if [ "$(gt "$L" rev-parse series)" != "$have_head" ] || [ -n "$(gittree_dirty "$L")" ]; then
	log "warning: build/linux has work that make save has not written to patches/; it is not exported"
fi

# Who adds which new file.  Every new file must belong to a patch, or the
# series would not build what make kernel builds.
declare -A owner=()
if [ -f patches/newfiles ]; then
	while read -r p f rest; do
		[ -n "$p" ] || continue
		[ -n "$f" ] && [ -z "$rest" ] || die "patches/newfiles: bad line '$p $f $rest'"
		printf '%s\n' "${patches[@]}" | grep -qxF -- "$p" ||
			die "patches/newfiles: $p is not in patches/series"
		[ -f "$f" ] || die "patches/newfiles: $f does not exist"
		[ -z "${owner[$f]:-}" ] || die "patches/newfiles: $f is listed twice"
		owner[$f]=$p
	done < <(sed 's/#.*//' patches/newfiles)
fi
unowned=()
while read -r f; do
	[ -z "${owner[$f]:-}" ] && unowned+=("$f")
done <"$L/.git/dentrymob-links"
if [ ${#unowned[@]} -gt 0 ]; then
	printf '  %s\n' "${unowned[@]}" >&2
	die "the new files above are in no patch: assign them in patches/newfiles"
fi

if [ ! -e "$G/.git" ]; then
	log "creating build/series-git, a worktree of build/linux (a checkout of the base)"
	rm -rf "$G"
	gt "$L" worktree prune
	gt "$L" worktree add -q -f --detach "$G" base
fi
gt "$G" checkout -q -f -B export base
gt "$G" clean -q -fdx

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for p in "${patches[@]}"; do
	gt "$G" am -q --empty=keep --committer-date-is-author-date "$REPO/patches/$p" || {
		gt "$G" am --abort || true
		die "patches/$p does not apply"
	}
	added=0
	for n in "${!owner[@]}"; do
		[ "${owner[$n]}" = "$p" ] || continue
		mkdir -p "$G/$(dirname "$n")"
		cp --preserve=mode "$n" "$G/$n"
		gt "$G" add -f -- "$n"
		added=1
	done
	if [ $added = 1 ]; then
		# Committer date = author date: the same series, the same hashes.
		GIT_COMMITTER_DATE=$(gt "$G" log -1 --format=%aD) \
			gt "$G" commit -q --amend --no-edit --allow-empty
	fi
	gt "$G" diff --quiet HEAD^ HEAD && die "patches/$p: the exported commit would be empty"
	echo "  committed $p" >&2
done

rm -rf "$out" && mkdir -p "$out"
if [ ${#patches[@]} -eq 0 ]; then
	echo "No patches: patches/series is empty." >"$out/NOTE"
	log "build/series: empty"
	exit 0
fi
gt "$G" -c user.name="$GT_NAME" -c user.email="$GT_EMAIL" \
	format-patch -q --numbered --cover-letter -o "$out" base..export
if [ -f patches/cover-letter.txt ]; then
	# First line: the subject ("Subject: " optional); the rest: the body.
	python3 - "$out"/0000-cover-letter.patch patches/cover-letter.txt <<'PY'
import sys
cover, letter = sys.argv[1:]
subj, _, body = open(letter).read().partition('\n')
s = open(cover).read()
s = s.replace('*** SUBJECT HERE ***', subj.removeprefix('Subject:').strip())
s = s.replace('*** BLURB HERE ***', body.strip('\n'))
open(cover, 'w').write(s)
PY
fi
log "build/series: $(ls "$out" | wc -l) files (cover letter + ${#patches[@]} patches)"
