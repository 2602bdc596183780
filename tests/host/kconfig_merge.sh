#!/usr/bin/env bash
# TAP: kconfig_merge configures from scratch (tinyconfig + fragments) unless
# the object folder holds the .config it made itself from the same Kconfig
# files and fragments; then olddefconfig alone.  make and merge_config.sh
# are stubbed: this tests the test bed's decision, not kconfig.  Also
# kernel_fragments, the fragments a base's kernels are built with, and that
# every config/base/*.env sets the same variables.
. "$(dirname "$0")/../../scripts/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src=$tmp/src obj=$tmp/obj frag=$tmp/frag.config

# make stub: log the target; tinyconfig writes a .config.
make() {
	local target=${*: -1}
	echo "$target" >> "$tmp/log"
	[ "$target" != tinyconfig ] || echo "CONFIG_X=y" > "$obj/.config"
}

# configured: run kconfig_merge; prints "scratch" or "olddefconfig".
configured() {
	: > "$tmp/log"
	kconfig_merge "$src" "$obj" arm64 x- "$frag" >/dev/null
	if grep -qx tinyconfig "$tmp/log"; then echo scratch; else echo olddefconfig; fi
}

mkdir -p "$src/scripts/kconfig" "$obj"
printf '#!/bin/sh\n' > "$src/scripts/kconfig/merge_config.sh"
chmod +x "$src/scripts/kconfig/merge_config.sh"
echo 'config X' > "$src/Kconfig"
git -C "$src" init -q && git -C "$src" add Kconfig
echo CONFIG_X=y > "$frag"

tap_is "first configuration: from scratch" scratch "$(configured)"
tap_is "same tree and fragments: olddefconfig alone" olddefconfig "$(configured)"
echo "# CONFIG_X is not set" > "$obj/.config"
tap_is ".config changed since: from scratch" scratch "$(configured)"
echo CONFIG_Y=y >> "$frag"
tap_is "fragment changed: from scratch" scratch "$(configured)"
echo 'config Y' >> "$src/Kconfig" && git -C "$src" add Kconfig
tap_is "Kconfig changed: from scratch" scratch "$(configured)"

# kernel_fragments: config/uprobes.config, then the base's KERNEL_FRAGMENTS;
# a missing one stops the run with its name.
frags_of() {
	local KERNEL_FRAGMENTS=$1 frags
	kernel_fragments frags
	echo "${frags[*]#"$ROOT"/}"
}
tap_is "kernel_fragments: uprobes.config alone" "config/uprobes.config" "$(frags_of "")"
tap_is "kernel_fragments: then the base's own" "config/uprobes.config config/sme.config" \
	"$(frags_of config/sme.config)"
out=$( (frags_of config/no-such.config) 2>&1) && st=0 || st=$?
tap_is "kernel_fragments: a missing fragment stops the run, named" "1 1" \
	"$st $(grep -c "no config fragment 'config/no-such.config'" <<<"$out")"

# Every config/base/*.env sets the same variables: one that a file left out
# (KERNEL_FRAGMENTS, say) would come from the environment on that base only.
env_vars() { sed -n 's/^\([A-Za-z_][A-Za-z0-9_]*\)=.*/\1/p' "$1" | sort; }
differ=""
for f in "$ROOT"/config/base/*.env; do
	[ "$(env_vars "$f")" = "$(env_vars "$ROOT/config/base/$BASE.env")" ] || differ+=" ${f##*/}"
done
tap_is "config/base: every BASE.env sets the variables $BASE.env sets" "" "$differ"
echo "1..$TAP_N"
