#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Export patches/series as a git format-patch series against the base:
#   build/series-git  throwaway git repo: commit "base" (tag base), then one
#                     commit per patch on branch "series"
#   build/series/     git format-patch --cover-letter output
# Each commit = the patch (its mail header is the commit message and author)
# + the new files that patches/newfiles assigns to it ("PATCH  path" lines).
. "$(dirname "$0")/lib.sh"
G=$B/series-git
out=$B/series
pdir=$(series_dir)
mapfile -t patches < <(series_patches)
# The committer (and the cover letter's From:) is you, if git knows you.
me=$(git config user.name || echo "dentrymob export")
mail=$(git config user.email || echo export@dentrymob.invalid)
sg() {
	git -C "$G" -c user.name="$me" -c user.email="$mail" \
		-c core.autocrlf=false -c advice.detachedHead=false "$@"
}

# Who adds which new file.  Every file the overlay copies must belong to a
# patch, or the series would not build what make kernel builds.
declare -A owner=()
if [ -f "$pdir/newfiles" ]; then
	while read -r p f rest; do
		[ -n "$p" ] || continue
		[ -n "$f" ] && [ -z "$rest" ] || die "$pdir/newfiles: bad line '$p $f $rest'"
		printf '%s\n' "${patches[@]}" | grep -qxF -- "$p" ||
			die "$pdir/newfiles: $p is not in $SERIES"
		[ -f "$f" ] || die "$pdir/newfiles: $f does not exist"
		[ -z "${owner[$f]:-}" ] || die "$pdir/newfiles: $f is listed twice"
		owner[$f]=$p
	done < <(sed 's/#.*//' "$pdir/newfiles")
fi
unowned=()
while read -r f; do
	if [ -f "$f" ] && [ -z "${owner[$f]:-}" ]; then unowned+=("$f"); fi
done < <([ -z "$OVERLAY" ] || git ls-files -co --exclude-standard -- $OVERLAY)
if [ ${#unowned[@]} -gt 0 ]; then
	printf '  %s\n' "${unowned[@]}" >&2
	msg="the files above are in no patch: assign them in $pdir/newfiles"
	[ ${#patches[@]} -eq 0 ] && log "warning: $msg" || die "$msg"
fi

# The base commit is made once per base (git add of the whole tree is slow).
if [ "$(cat "$G/.git/dentrymob-base" 2>/dev/null)" != "$(cat "$B/base/.dentrymob-base")" ]; then
	log "creating build/series-git from build/base (takes a minute)"
	rm -rf "$G" "$G.tmp"
	# A real copy: git must never write into build/base through a hardlink.
	cp -a "$B/base" "$G.tmp"
	rm "$G.tmp/.dentrymob-base"
	git init -q -b series "$G.tmp"
	# -f: the tarball has files that the kernel's .gitignore files match.
	G=$G.tmp sg add -A -f
	GIT_AUTHOR_DATE=2000-01-01T00:00:00Z GIT_COMMITTER_DATE=2000-01-01T00:00:00Z \
		G=$G.tmp sg commit -q -m "base: $(cat "$B/base/.dentrymob-base")"
	G=$G.tmp sg tag base
	cp "$B/base/.dentrymob-base" "$G.tmp/.git/dentrymob-base"
	mv "$G.tmp" "$G"
fi
sg checkout -q -f -B series base
sg clean -q -fdx

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for p in "${patches[@]}"; do
	f=$pdir/$p
	[ -f "$f" ] || die "patch '$p' (listed in $SERIES) does not exist"
	git mailinfo "$tmp/msg" "$tmp/diff" <"$f" >"$tmp/info"
	author=$(sed -n 's/^Author: //p' "$tmp/info")
	email=$(sed -n 's/^Email: //p' "$tmp/info")
	subject=$(sed -n 's/^Subject: //p' "$tmp/info")
	date=$(sed -n 's/^Date: //p' "$tmp/info")
	[ -n "$author" ] && [ -n "$email" ] && [ -n "$subject" ] ||
		die "$f: needs a mail header (From: Name <email>, Subject: ...) for its commit"
	if [ -s "$tmp/diff" ]; then
		popt=(-d "$G" -p1 -F0 -f --no-backup-if-mismatch -s -i "$(realpath "$f")")
		patch --dry-run "${popt[@]}" && patch "${popt[@]}" ||
			die "patch '$f' does not apply (patch -p1 -F0)"
	fi
	for n in "${!owner[@]}"; do
		[ "${owner[$n]}" = "$p" ] || continue
		mkdir -p "$G/$(dirname "$n")"
		cp --preserve=mode "$n" "$G/$n"
	done
	sg add -A -f
	sg diff --cached --quiet && die "$f: the commit would be empty"
	(
		export GIT_AUTHOR_NAME=$author GIT_AUTHOR_EMAIL=$email
		# Committer date = author date: the same series, the same hashes.
		if [ -n "$date" ]; then
			export GIT_AUTHOR_DATE=$date GIT_COMMITTER_DATE=$date
		fi
		{ printf '%s\n\n' "$subject"; cat "$tmp/msg"; } |
			sg commit -q --cleanup=whitespace -F -
	)
	echo "  committed $p: $subject" >&2
done

rm -rf "$out" && mkdir -p "$out"
if [ ${#patches[@]} -eq 0 ]; then
	echo "No patches: ${SERIES:-patches/series} is empty or missing." >"$out/NOTE"
	log "build/series: empty (no patches in ${SERIES:-patches/series})"
	exit 0
fi
sg format-patch -q --numbered --cover-letter -o "$out" base..series
if [ -f "$pdir/cover-letter.txt" ]; then
	# First line: the subject ("Subject: " optional); the rest: the body.
	python3 - "$out"/0000-cover-letter.patch "$pdir/cover-letter.txt" <<'PY'
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
