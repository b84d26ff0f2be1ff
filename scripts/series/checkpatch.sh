#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run checkpatch.pl --strict on every patch of build/series (not the cover
# letter).  Any ERROR, WARNING or CHECK fails.
. "$(dirname "$0")/../lib.sh"
shopt -s nullglob
cp=$B/linux/scripts/checkpatch.pl
bad=0 n=0
for f in "$B"/series/*.patch; do
	case $f in */0000-cover-letter.patch) continue ;; esac
	n=$((n + 1))
	if out=$("$cp" --strict --no-tree --show-types "$f" 2>&1) &&
	   ! grep -qE '^(ERROR|WARNING|CHECK):' <<<"$out"; then
		echo "  ok   ${f##*/}"
	else
		echo "  FAIL ${f##*/}"
		printf '%s\n\n' "$out"
		bad=$((bad + 1))
	fi
done
[ $n -gt 0 ] || { log "checkpatch: no patches in build/series"; exit 0; }
[ $bad -eq 0 ] || die "checkpatch: $bad of $n patches have errors, warnings or checks"
log "checkpatch: all $n patches clean"
