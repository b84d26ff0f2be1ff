# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The git-tree model, shared by the kernel (build/linux, patches/), crun
# (build/crun/src, patches/crun/) and systemd (build/systemd/src,
# patches/systemd/).  Sourced after lib.sh.
#
# A tree is a git repository: commit "base" (tag base) is the pristine
# source, and branch "series" has one commit per patch of the patch
# directory, made by git am.  The tree is the one writable copy of what the
# patches change: edit it, commit into the right patch (git commit
# --fixup=SHA, git rebase -i --autosquash base), then gittree_save writes
# the patch directory back with git format-patch.  A patch directory holds
# "series" (quilt format: the order) and the patches, in format-patch form.
#
# .git/dentrymob-state records "HASH HEAD": the hash of the patch directory
# and the series head at the last sync or save.  Both sides are checked, so
# neither a save nor a sync can silently overwrite the other's work:
#  - gittree_sync re-applies a changed patch directory only if the tree
#    holds nothing unsaved (FORCE=1 keeps that work on a branch
#    unsaved/DATE first);
#  - gittree_save refuses while the tree has uncommitted changes, or when
#    the patch directory changed since the tree was made from it.

# Every git call with a fixed configuration: the user's global settings
# (format.*, diff.*, core.abbrev) must not change the bytes of a patch.
gt() {
	local dir=$1
	shift
	GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 git -C "$dir" \
		-c core.abbrev=12 -c advice.detachedHead=false \
		-c user.name="${GT_NAME:-dentrymob tree}" \
		-c user.email="${GT_EMAIL:-tree@dentrymob.invalid}" "$@"
}

# The hash of a patch directory: the order and the content of its patches.
gittree_hash() {
	local pdir=$1 p
	{
		series_patches "$pdir/series"
		while read -r p; do
			[ -f "$pdir/$p" ] || die "$pdir/series names $p, which does not exist"
			sha1sum <"$pdir/$p"
		done < <(series_patches "$pdir/series")
	} | sha1sum | cut -d' ' -f1
}

gittree_state() { cat "$1/.git/dentrymob-state" 2>/dev/null || echo "none none"; }

gittree_set_state() {
	echo "$(gittree_hash "$2") $(gt "$1" rev-parse series)" >"$1/.git/dentrymob-state"
}

# Refuse to work on a tree in the middle of something.
gittree_check_branch() {
	local dir=$1
	[ -d "$dir/.git/rebase-merge" ] || [ -d "$dir/.git/rebase-apply" ] &&
		die "$dir: a rebase or git am is in progress: finish or abort it first"
	[ "$(gt "$dir" symbolic-ref -q HEAD || true)" = refs/heads/series ] ||
		die "$dir: not on branch series (git -C $dir checkout series)"
}

# The tree's uncommitted changes and untracked files, one per line.
gittree_dirty() { gt "$1" status --porcelain; }

gittree_am() {
	local dir=$1 pdir=$2 p
	local -a files=()
	while read -r p; do files+=("$(realpath "$pdir/$p")"); done < <(series_patches "$pdir/series")
	[ ${#files[@]} -gt 0 ] || return 0
	# The committer date is the author date: the same patches give the
	# same commits on every machine.
	# --empty=keep: a patch may add only new files of the repository
	# (patches/newfiles), which its commit in the tree does not hold.
	gt "$dir" am -q --empty=keep --committer-date-is-author-date "${files[@]}" || {
		gt "$dir" am --abort 2>/dev/null || true
		die "$pdir: a patch of the series does not apply with git am (see above)"
	}
}

# gittree_sync DIR PDIR MAKE_BASE: make DIR the tree of PDIR.  MAKE_BASE is
# a command that fills the empty directory it is given with the pristine
# source.  Does nothing when PDIR has not changed since the tree was made or
# saved: the tree is then the newer copy.
gittree_sync() {
	local dir=$1 pdir=$2 make_base=$3 want have_hash have_head head dirty
	want=$(gittree_hash "$pdir")
	if [ ! -d "$dir/.git" ]; then
		log "creating $dir: base + $pdir/series (git am)"
		rm -rf "$dir" "$dir.tmp"
		mkdir -p "$dir.tmp"
		"$make_base" "$dir.tmp"
		gt "$dir.tmp" init -q -b series
		# -f: a release tarball has files that its own .gitignore matches.
		gt "$dir.tmp" add -A -f
		GIT_AUTHOR_DATE=2000-01-01T00:00:00Z GIT_COMMITTER_DATE=2000-01-01T00:00:00Z \
			gt "$dir.tmp" commit -q -m base
		gt "$dir.tmp" tag base
		gittree_am "$dir.tmp" "$pdir"
		mv "$dir.tmp" "$dir"
		gittree_set_state "$dir" "$pdir"
		return 0
	fi
	read -r have_hash have_head < <(gittree_state "$dir")
	[ "$want" = "$have_hash" ] && return 0

	gittree_check_branch "$dir"
	head=$(gt "$dir" rev-parse series)
	dirty=$(gittree_dirty "$dir")
	if [ "$head" != "$have_head" ] || [ -n "$dirty" ]; then
		if [ "${FORCE:-0}" != 1 ]; then
			[ -n "$dirty" ] && printf '  %s\n' "$dirty" >&2
			die "$pdir changed (git pull, checkout or a hand edit), and $dir has work that is not in it: $([ -n "$dirty" ] && echo "uncommitted changes (above)" || echo "commits made since the last make save").
  To keep the work in $pdir: undo the change to $pdir (git stash / git checkout), then make save.
  To take $pdir and keep the work aside: make tree FORCE=1 (it goes to a branch unsaved/DATE of $dir)."
		fi
		local keep
		keep=unsaved/$(date +%Y%m%d-%H%M%S)
		if [ -n "$dirty" ]; then
			gt "$dir" add -A
			gt "$dir" commit -q --no-verify -m "uncommitted work, kept by make tree FORCE=1"
		fi
		gt "$dir" branch "$keep" series
		log "$dir: the old work is on branch $keep"
	fi
	log "$dir: $pdir changed, applying it again"
	gt "$dir" reset -q --hard base
	gittree_am "$dir" "$pdir"
	gittree_set_state "$dir" "$pdir"
}

# gittree_unsaved DIR PDIR: true (and says why) if DIR holds work that
# PDIR does not: uncommitted changes, or commits since the last sync or save.
gittree_unsaved() {
	local dir=$1 pdir=$2 have_hash have_head
	[ -d "$dir/.git" ] || return 1
	read -r have_hash have_head < <(gittree_state "$dir")
	if [ -n "$(gittree_dirty "$dir")" ]; then
		echo "$dir: uncommitted changes"
	elif [ "$(gt "$dir" rev-parse -q --verify series)" != "$have_head" ]; then
		echo "$dir: commits that are not saved in $pdir"
	else
		return 1
	fi
}

# gittree_save DIR PDIR [NO_NEW_FILES]: write PDIR from DIR's commits.  A
# save right after a sync leaves PDIR byte-identical.  With NO_NEW_FILES, a
# commit may not add files (the kernel's new files live in the repository).
gittree_save() {
	local dir=$1 pdir=$2 no_new=${3:-} have_hash have_head dirty tmp p n=0 f
	[ -d "$dir/.git" ] || return 0
	gittree_check_branch "$dir"
	dirty=$(gittree_dirty "$dir")
	if [ -n "$dirty" ]; then
		printf '  %s\n' "$dirty" >&2
		die "$dir has uncommitted changes (above): commit them into their patch first:
  git -C $dir commit -a --fixup=SHA && git -C $dir rebase -i --autosquash base
  (git -C $dir log --oneline base.. lists the patches; a new file of the kernel goes into the repository, see README.md)"
	fi
	read -r have_hash have_head < <(gittree_state "$dir")
	[ "$(gittree_hash "$pdir")" = "$have_hash" ] ||
		die "$pdir changed since $dir was made from it (git pull, checkout or a hand edit): saving would overwrite that.
  Keep $pdir: make tree FORCE=1 (your commits go to a branch unsaved/DATE of $dir; git cherry-pick them back).
  Keep $dir: undo the change to $pdir (git checkout $pdir), then make save."
	if [ -n "$no_new" ]; then
		f=$(gt "$dir" log --format= --diff-filter=A --name-only base..series)
		[ -z "$f" ] || die "commits of $dir add files: $f
  The kernel's new files live in the repository at their kernel paths (linked into $dir):
  move each there (mv $dir/FILE FILE), assign it to a patch in patches/newfiles, drop it from the commit, make tree."
	fi

	tmp=$(mktemp -d)
	# --always: such a commit is empty in the tree, and still a patch.
	gt "$dir" format-patch -q --always --zero-commit --no-signature --no-numbered \
		--filename-max-length=64 --stat=72 -o "$tmp" base..series
	: >"$tmp/.series"
	for f in "$tmp"/*.patch; do
		[ -e "$f" ] || break
		p=${f##*/}
		echo "$p" >>"$tmp/.series"
		n=$((n + 1))
		if ! cmp -s "$f" "$pdir/$p"; then
			cp "$f" "$pdir/$p"
			log "saved $pdir/$p"
		fi
	done
	# Patches that are gone: git rm them if the repository tracks them.
	while read -r p; do
		grep -qxF -- "$p" "$tmp/.series" && continue
		if git ls-files --error-unmatch "$pdir/$p" >/dev/null 2>&1; then
			git rm -q -f "$pdir/$p"
		else
			rm -f "$pdir/$p"
		fi
		log "removed $pdir/$p"
	done < <(series_patches "$pdir/series")
	# The series file keeps its leading comment.
	{ sed -n '/^#/!q; p' "$pdir/series" 2>/dev/null; cat "$tmp/.series"; } >"$tmp/.series.new"
	cmp -s "$tmp/.series.new" "$pdir/series" || cp "$tmp/.series.new" "$pdir/series"
	rm -rf "$tmp"
	gittree_set_state "$dir" "$pdir"
	log "$pdir: $n patches saved from $dir"
}
