# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# Sourced by the guest programs of make demo and make check-tools: a
# transcript (say, run) and TAP results (check, tap_done) that
# scripts/guest/guest.py reads back from the console.
ntest=0 nfail=0

say() { printf '\n=== %s\n' "$*"; }
# Show a command, then run it.
run() { printf '# %s\n' "$*"; eval "$*"; }
check() {	# check DESCRIPTION COMMAND...: one TAP result
	local what=$1
	shift
	ntest=$((ntest + 1))
	if "$@"; then
		echo "ok $ntest - $what"
	else
		echo "not ok $ntest - $what"
		nfail=$((nfail + 1))
	fi
}
# tap_done TAG SUCCESS-MESSAGE: the plan and a summary; fails if any failed.
tap_done() {
	echo
	echo "1..$ntest"
	if [ "$nfail" -eq 0 ]; then
		echo "$1: all $ntest checks passed$2"
	else
		echo "$1: $nfail of $ntest checks FAILED"
		exit 1
	fi
}
# skip DESCRIPTION REASON: one TAP result that could not run, and why.
skip() {
	ntest=$((ntest + 1))
	echo "ok $ntest - $1 # SKIP $2"
}
