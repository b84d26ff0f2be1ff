#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make series-buildcheck: build every commit of the exported series
# (build/series-git, branch export) in order, with the config of make
# kernel, incrementally in build/obj-series (ccache keeps it cheap), and say
# which commits do not build.  Logs: build/obj-series/build-N.log.
. "$(dirname "$0")/../lib.sh"
G=$B/series-git
O=$B/obj-series
mapfile -t commits < <(git -C "$G" rev-list --reverse base..export)
[ ${#commits[@]} -gt 0 ] || { log "series is empty: nothing to build"; exit 0; }
mkdir -p "$O"
n=0 fails=()
for c in "${commits[@]}"; do
	n=$((n + 1))
	subj=$(git -C "$G" log -1 --format=%s "$c")
	git -C "$G" -c advice.detachedHead=false checkout -q -f "$c"
	log "building $n/${#commits[@]}: $subj"
	if scripts/tree/build-kernel.sh "$G" "$O" >"$O/build-$n.log" 2>&1; then
		echo "  ok   $n $subj"
	else
		tail -n 30 "$O/build-$n.log"
		echo "  FAIL $n $subj (log: $O/build-$n.log)"
		fails+=("$n $subj")
	fi
done
git -C "$G" checkout -q -f export
[ ${#fails[@]} -eq 0 ] || die "these commits do not build: $(printf '\n  %s' "${fails[@]}")"
log "all ${#commits[@]} commits build"
