#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make crun: Debian's crun ($CRUN_VERSION) with patches/crun/, built and cached
# by build-deb.sh (which says where the trees are).
exec "$(dirname "$0")/build-deb.sh" crun "${CRUN_VERSION:?}" usr/bin/crun
