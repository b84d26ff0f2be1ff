#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the host packages listed in $DEPS ("pkg" or "pkg=version").
# Idempotent: when dpkg already has all of them (at the pinned version, where
# one is given) this does nothing, not even apt-get update.
. "$(dirname "$0")/lib.sh"

missing=()
for dep in $DEPS; do
	pkg=${dep%%=*}
	want=${dep#"$pkg"}; want=${want#=}
	st=$(dpkg-query -W -f='${db:Status-Status} ${Version}' "$pkg" 2>/dev/null || true)
	if [ "${st%% *}" != installed ] || { [ -n "$want" ] && [ "${st#* }" != "$want" ]; }; then
		missing+=("$dep")
	fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

log "installing: ${missing[*]}"
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
# --allow-downgrades: the pin may be older than what is installed.
$SUDO apt-get install -y -q --no-install-recommends --allow-downgrades "${missing[@]}"
