#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make runc: Debian's runc ($RUNC_VERSION) with patches/runc/, built and cached
# by build-deb.sh (which says where the trees are).  Debian installs it in
# /usr/sbin.
exec "$(dirname "$0")/build-deb.sh" runc "${RUNC_VERSION:?}" usr/sbin/runc
