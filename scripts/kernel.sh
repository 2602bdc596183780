#!/usr/bin/env bash
# Build an arm64 kernel for QEMU virt.
#   scripts/kernel.sh baseline|patched|upto-SERIES [extra.config...]
# baseline = tag base, patched = branch queue (patches/ applied, make tree),
# upto-SERIES = the queue up to and including SERIES of patches/BASE/sets
# (upto-1-fixes: the fixes as stable would take them, without the series
# after them).
# Config: tinyconfig + config/uprobes.config + the base's KERNEL_FRAGMENTS
# (config/base/BASE.env) (+ extra fragments), merged with
# scripts/kconfig/merge_config.sh.  Objects in build/BASE/obj (ccache'd); the result
# (Image, vmlinux, System.map, .config) is kept in build/BASE/images/<key> where key
# hashes the source tree, the fragments and the compiler, and a build whose key
# is already there is skipped.  build/BASE/images/<flavour> links to it.
. "$(dirname "$0")/lib.sh"

flavour=${1:?usage: kernel.sh baseline|patched|upto-SERIES [extra.config...]}
shift

# upto_ref SERIES: the commit of branch queue where SERIES ends (the tree
# applies the series in sets order).
upto_ref() {
	local i j after=0
	load_sets
	j=$(set_index "$1") || die "no series '$1' in patches/$BASE/sets"
	for ((i = j + 1; i < ${#SET_DIR[@]}; i++)); do
		after=$((after + SET_COUNT[i]))
	done
	echo "queue~$after"
}

case $flavour in
baseline) ref=base ;;
patched) ref=queue ;;
upto-*) ref=$(upto_ref "${flavour#upto-}") ;;
*) die "unknown flavour '$flavour' (baseline, patched or upto-SERIES)" ;;
esac
kernel_fragments fragments
suffix=""
for f in "$@"; do
	[ -f "$f" ] || die "no config fragment '$f'"
	fragments+=("$(realpath "$f")")
	suffix+="-$(basename "$f" .config)"
done
# Each set of extra fragments builds in its own object folder, so that
# switching between them stays incremental.
KOBJ=$KOBJ$suffix

# configure: tinyconfig + fragments (kconfig_merge), then check them.
configure() {
	kconfig_merge "$KSRC" "$KOBJ" arm64 "$CROSS_COMPILE" "${fragments[@]}"
	check_config
}

# in_tree SYM: the tree being built defines config SYM (the baseline lacks
# the options that the series adds).
in_tree() {
	grep -rqxE --include='Kconfig*' "(menu)?config ${1#CONFIG_}" "$KSRC"
}

# check_config: every option the fragments set, and the tree defines, must
# be in the final .config.
check_config() {
	local line sym missing=()
	while read -r line; do
		case $line in
		CONFIG_*=*)
			sym=${line%%=*}
			grep -qxF "$line" "$KOBJ/.config" || ! in_tree "$sym" || missing+=("$line") ;;
		"# CONFIG_"*" is not set")
			sym=${line#\# }; sym=${sym%% *}
			grep -q "^$sym=" "$KOBJ/.config" && missing+=("$line") ;;
		esac
	done < <(cat "${fragments[@]}")
	[ "${#missing[@]}" -eq 0 ] || die "config options not taken (missing dependency?): ${missing[*]}"
}

main() {
	need_cmd "${CROSS_COMPILE}gcc" ccache pahole make bc flex bison
	ksrc_at "$ref"
	local key dst
	# tools/testing/ and Documentation/ do not go into the kernel image
	key=$( { git -C "$KREPO" ls-tree "$ref" | grep -v -P '\t(tools|Documentation)$'; \
		 git -C "$KREPO" ls-tree "$ref:tools" | grep -v -P '\ttesting$'; cat "${fragments[@]}"; \
		 "${CROSS_COMPILE}gcc" --version | head -n1; pahole --version; } | sha256sum | cut -c1-16)
	dst=$IMAGES/$key
	if [ -f "$dst/Image" ]; then
		log "$flavour$suffix kernel up to date ($key)"
	else
		timed "configuring $flavour$suffix kernel" configure
		timed "building $flavour$suffix kernel ($ref, -j$JOBS)" \
			with_progress "$BUILD/logs/kernel-$flavour$suffix.log" kmake Image
		mkdir -p "$dst.tmp"
		cp "$KOBJ/arch/arm64/boot/Image" "$KOBJ/vmlinux" "$KOBJ/System.map" "$KOBJ/.config" "$dst.tmp/"
		git -C "$KREPO" rev-parse "$ref" > "$dst.tmp/commit"
		rm -rf "$dst" && mv "$dst.tmp" "$dst"
	fi
	ln -sfn "$key" "$IMAGES/$flavour$suffix"
	log "$flavour$suffix kernel: build/$BASE/images/$key/Image"
}

main
