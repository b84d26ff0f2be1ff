# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Common helpers, sourced by the other scripts.  They run from the repo root
# (make does that), with the settings exported by the top-level Makefile.

set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPO=$(pwd)
# shellcheck disable=SC2034 # B is used by the scripts that source this
B=$REPO/build

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'ERROR: %s\n' "$*" >&2; exit 1; }

# The series files, "#" comments and blank lines dropped.  An empty SERIES
# (or /dev/null, or a missing patches/series) means "no patches".
series_patches() {
	[ -n "${SERIES:-}" ] && [ -f "$SERIES" ] || return 0
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$SERIES"
}
series_dir() { dirname "${SERIES:-patches/series}"; }

# Run the kernel's make with a clean environment: our own command-line
# variables (SERIES=..., V=...) reach us through MAKEFLAGS and must not leak
# into kbuild.  ccache's base_dir makes its keys independent of where the
# repo is cloned, so clones on one machine share the cache.
kmake() {
	env -u MAKEFLAGS -u MFLAGS -u MAKEOVERRIDES -u MAKELEVEL -u CROSS_COMPILE \
		CCACHE_BASEDIR="${CCACHE_BASEDIR:-$REPO}" \
		make ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" \
		${V:+V=$V} "$@"
}
