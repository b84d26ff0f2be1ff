# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Common helpers, sourced by every script of the harness.  They run from the
# repository root, with the settings that the top-level Makefile exports.

set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPO=$(pwd)
# shellcheck disable=SC2034 # B is used by the scripts that source this
B=$REPO/build
# SUDO: empty as root, else sudo, for the scripts that install or chroot.
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export SUDO

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'ERROR: %s\n' "$*" >&2; exit 1; }

# series_patches FILE: the patch names of a quilt series file, "#" comments
# and blank lines dropped.
series_patches() {
	[ -f "$1" ] || return 0
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$1"
}

# Run the kernel's make with a clean environment: our own command-line
# variables (V=...) reach us through MAKEFLAGS and must not leak into
# kbuild.  ccache's base_dir makes its keys independent of where the repo is
# cloned, so clones on one machine share the cache.
kmake() {
	env -u MAKEFLAGS -u MFLAGS -u MAKEOVERRIDES -u MAKELEVEL -u CROSS_COMPILE \
		CCACHE_BASEDIR="${CCACHE_BASEDIR:-$REPO}" \
		make ARCH=x86_64 CC="ccache gcc" HOSTCC="ccache gcc" \
		${V:+V=$V} "$@"
}
