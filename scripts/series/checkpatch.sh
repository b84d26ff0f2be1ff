#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run checkpatch.pl --strict on every patch of build/series (not the cover
# letter).  Any ERROR, WARNING or CHECK fails, with one exception:
# checkpatch warns FILE_PATH_CHANGES ("does MAINTAINERS need updating?")
# for every patch that adds a file and does not touch MAINTAINERS.  It does
# not look whether an F: line already covers the file; this script does,
# in MAINTAINERS as it stands before the patch (build/series-git), and
# passes the patch only if every file it adds is covered.
. "$(dirname "$0")/../lib.sh"
shopt -s nullglob
cp=$B/linux/scripts/checkpatch.pl
G=$B/series-git
mapfile -t commits < <(git -C "$G" rev-list --reverse base..export)

# covered COMMIT PATCH: every file PATCH adds matches an F: pattern (a
# directory pattern ends in "/") of an entry that the series adds to
# MAINTAINERS, as it stands at COMMIT^.  Entries of the base do not count:
# "KERNEL SELFTEST FRAMEWORK" claims all of tools/testing/selftests/.
covered() {
	python3 - "$2" <(git -C "$G" show base:MAINTAINERS) \
		<(git -C "$G" show "$1^:MAINTAINERS") <<'PY'
import sys
patch, base, now = sys.argv[1:]
def entries(path):
    ents, cur = {}, None
    for l in open(path, errors="replace"):
        l = l.rstrip("\n")
        if not l:
            cur = None
        elif cur is None:
            cur = l
            ents[cur] = []
        elif l.startswith("F:\t"):
            ents[cur].append(l[3:].strip())
    return ents
old = entries(base)
pats = [p for t, ps in entries(now).items() if t not in old for p in ps]
added, new = [], False
for l in open(patch, errors="replace"):
    if l.startswith("diff --git "):
        new = False
    elif l.startswith("new file mode"):
        new = True
    elif l.startswith("+++ b/") and new:
        added.append(l[6:].strip())
def hit(f):
    return any(f == p or (p.endswith("/") and f.startswith(p)) for p in pats)
bad = [f for f in added if not hit(f)]
for f in bad:
    print("  not covered by the series' MAINTAINERS entries: " + f)
sys.exit(1 if bad or not added else 0)
PY
}

bad=0 n=0
for f in "$B"/series/*.patch; do
	case $f in */0000-cover-letter.patch) continue ;; esac
	n=$((n + 1))
	out=$("$cp" --strict --no-tree --show-types "$f" 2>&1) || true
	probs=$(grep -E '^(ERROR|WARNING|CHECK):' <<<"$out" || true)
	if [ -z "$probs" ]; then
		echo "  ok   ${f##*/}"
	elif [ "$probs" = "WARNING:FILE_PATH_CHANGES: added, moved or deleted file(s), does MAINTAINERS need updating?" ] &&
	     [ -n "${commits[$((n - 1))]:-}" ] && covered "${commits[$((n - 1))]}" "$f"; then
		echo "  ok   ${f##*/} (its new files are covered by MAINTAINERS)"
	else
		echo "  FAIL ${f##*/}"
		printf '%s\n\n' "$out"
		bad=$((bad + 1))
	fi
done
[ $n -gt 0 ] || { log "checkpatch: no patches in build/series"; exit 0; }
[ $bad -eq 0 ] || die "checkpatch: $bad of $n patches have errors, warnings or checks"
log "checkpatch: all $n patches clean"
