#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# dentry-size.sh OBJ: print sizeof(struct dentry) of the kernel built in OBJ.
# It compiles a two-line file with the very command line that kbuild saved
# for fs/dcache.o in OBJ (same compiler, flags and generated config), the
# way kbuild's asm-offsets do: the size ends up as a constant in the
# assembler output.  No debug info or pahole needed.
. "$(dirname "$0")/../lib.sh"
[ $# -eq 1 ] || die "usage: $0 OBJ"
obj=$(realpath "$1")
cmdf=$obj/fs/.dcache.o.cmd
[ -f "$cmdf" ] || die "$cmdf is missing: build the kernel in $obj first"
# "savedcmd_fs/dcache.o := CC FLAGS -c -o fs/dcache.o SRC/fs/dcache.c[; objtool]"
cmd=$(sed -n 's|^savedcmd_fs/dcache\.o := ||p' "$cmdf")
cmd=${cmd%%;*}
cmd=$(printf '%s' "$cmd" | sed 's/[[:space:]]*$//')
case $cmd in
*" -c -o fs/dcache.o "*fs/dcache.c) ;;
*) die "unexpected command line for fs/dcache.o in $cmdf" ;;
esac
cmd=${cmd% -c -o fs/dcache.o *}
cmd=$(printf '%s' "$cmd" | sed 's/ -Wp,-MMD,[^ ]*//')

tmp=$(mktemp -d "$obj/.dentry-size.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/size.c" <<'C'
#include <linux/dcache.h>
void dentrymob_size(void);
void dentrymob_size(void)
{
	asm volatile("\n.ascii \"->DENTRYMOB_DENTRY_SIZE %c0\"" : : "i" (sizeof(struct dentry)));
}
C
# The saved command is shell-quoted (-DKBUILD_MODNAME='"dcache"' ...).
(cd "$obj" && eval "$cmd -S -o '$tmp/size.s' '$tmp/size.c'") ||
	die "could not compile the size probe with the flags of $obj/fs/dcache.o"
size=$(sed -n 's/.*->DENTRYMOB_DENTRY_SIZE \([0-9][0-9]*\).*/\1/p' "$tmp/size.s")
[ -n "$size" ] || die "no size in the probe's output $tmp/size.s"
echo "$size"
