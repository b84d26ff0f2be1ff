#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# build-kernel.sh SRC OBJ: configure (tinyconfig + config/dentrymob.config
# + the fragments in $EXTRA_CONFIG, in that order) and build SRC out of tree
# in OBJ, with ccache.  EXTRA_CONFIG is a space-separated list of fragment
# paths relative to the repository, e.g. EXTRA_CONFIG=config/debug.config;
# empty (what make check uses) adds nothing.  A later fragment overrides an
# earlier one, as in merge_config.sh.
. "$(dirname "$0")/../lib.sh"
src=$(realpath "$1"); obj=$(realpath -m "$2")
frags=("$REPO/config/dentrymob.config")
for f in ${EXTRA_CONFIG:-}; do
	[ -f "$REPO/$f" ] || die "EXTRA_CONFIG: no such fragment: $f"
	frags+=("$REPO/$f")
done
mkdir -p "$obj"

sum() { sha1sum | cut -d' ' -f1; }

# Generate the config under another name; check it; install it only if it
# differs (rewriting .config, even unchanged, costs a syncconfig).
make_config() {
	local new=.config.dentrymob line sym missing=()
	kmake -s -C "$src" O="$obj" KCONFIG_CONFIG=$new tinyconfig >/dev/null
	KCONFIG_CONFIG=$obj/$new "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" \
		"$obj/$new" "${frags[@]}" >/dev/null
	kmake -s -C "$src" O="$obj" KCONFIG_CONFIG=$new olddefconfig >/dev/null

	# tinyconfig drops options with unmet dependencies without a word:
	# check that every assignment of the fragment made it.
	# CONFIG_CGROUP_DENTRY only exists once the controller patch is in.
	while IFS= read -r line; do
		sym=${line%%=*}; sym=${sym#CONFIG_}
		if [ "$sym" = CGROUP_DENTRY ] &&
		   ! grep -rqx --include='Kconfig*' "config $sym" "$src"; then
			continue
		fi
		grep -qxF -- "$line" "$obj/$new" ||
			missing+=("$line (got: $(grep -E "^(# )?CONFIG_${sym}[= ]" "$obj/$new" || echo unset))")
	done < <(grep -hE '^CONFIG_[A-Za-z0-9_]+=' "${frags[@]}" |
		 awk -F= '{ v[$1] = $0; if (!($1 in o)) o[$1] = n++ }
			  END { for (k in v) print o[k] "\t" v[k] }' |
		 sort -n | cut -f2-)
	if [ ${#missing[@]} -gt 0 ]; then
		printf '  %s\n' "${missing[@]}" >&2
		die "${frags[*]#"$REPO/"}: the options above did not survive olddefconfig (missing dependency?); see $obj/$new"
	fi
	if cmp -s "$obj/$new" "$obj/.config"; then
		rm -f "$obj/$new"
	else
		log "new kernel config in $obj/.config"
		mv "$obj/$new" "$obj/.config"
	fi
}

# Making the config takes ~10 s: skip it when neither its inputs (fragment,
# compiler, every Kconfig of the tree) nor its output changed since.
key=$({ cat "${frags[@]}"; gcc --version | head -n1
	find "$src" -name .git -prune -o -name 'Kconfig*' -type f -print | LC_ALL=C sort | xargs cat; } | sum)
stamp=$obj/.dentrymob-config
if [ ! -f "$obj/.config" ] ||
   [ "$(cat "$stamp" 2>/dev/null)" != "$key $(sum <"$obj/.config")" ]; then
	make_config
	echo "$key $(sum <"$obj/.config")" >"$stamp"
fi

log "building kernel in $obj"
kmake -C "$src" O="$obj" -j"$(nproc)" bzImage
