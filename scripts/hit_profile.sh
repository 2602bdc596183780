#!/usr/bin/env bash
# Kernel instructions per uprobe hit, function by function: boot a kernel
# under QEMU TCG with scripts/tbprof.c (a TCG plugin that counts the runs
# of every translation block at a kernel address), run one bench trigger,
# and charge the blocks to System.map's functions, per hit
# (scripts/hit_profile.py).  Instruction counts transfer to hardware
# better than TCG rates.  A measurement, not a test.
#   scripts/hit_profile.sh TRIGGER [FLAVOUR]     (after make check or bench)
# TRIGGER: a bench trigger without "trig-" (uprobe-nop, uretprobe-nop,
# uprobe-xol, ...); FLAVOUR: a built kernel (patched, the default, or
# baseline).  TRAMP=0 switches the arm64 trampoline slots off (the BRK
# path; BASE=mainline, patched only).  SECONDS_RUN: the bench's duration
# (3).  Hits are counted by calls of handler_chain, or of
# uprobe_dispatcher (once a hit of the bench's one consumer) where the
# kernel inlines handler_chain (6.12); HIT_PER names another.  The plugin
# is built against qemu-plugin.h of Debian's qemu source
# package (trixie's, through a private apt configuration), into
# build/tools.  Prints "# key: value" lines that say what it ran on
# (scripts/lib.sh provenance), then hit_profile.py's table; the counts, and the
# kernel's System.map and name, stay in build/BASE/run/hit-profile-*/.
. "$(dirname "$0")/lib.sh"

TOOLS=$ROOT/build/tools
PLUGIN=$TOOLS/tbprof.so
QEMU_SRC_SUITE=${QEMU_SRC_SUITE:-trixie}

# plugin_header: build/tools/qemu-plugin.h, from the qemu source package.
plugin_header() {
	local dir=$TOOLS/qemu-src tarball
	[ -f "$TOOLS/qemu-plugin.h" ] && return
	mkdir -p "$dir"
	APT_DEB_SRC=1 apt_conf qemu-src 0 "$QEMU_SRC_SUITE"
	log "downloading the qemu source package of $QEMU_SRC_SUITE (for qemu-plugin.h) ..."
	(cd "$dir" && apt-get "${APT_OPTS[@]}" source --download-only -q qemu >"$dir/source.log" 2>&1) ||
		{ tail -n 5 "$dir/source.log" >&2; die "apt-get source qemu failed (log: ${dir#"$ROOT"/}/source.log)"; }
	tarball=("$dir"/qemu_*.orig.tar.*)
	[ -f "${tarball[0]}" ] || die "the qemu source package has no .orig tarball (in ${dir#"$ROOT"/})"
	tar -xf "${tarball[0]}" -O --wildcards '*/include/qemu/qemu-plugin.h' >"$TOOLS/qemu-plugin.h.tmp" ||
		die "no include/qemu/qemu-plugin.h in ${tarball[0]}"
	mv "$TOOLS/qemu-plugin.h.tmp" "$TOOLS/qemu-plugin.h"
}

# build_plugin: build/tools/tbprof.so, when missing or older than its source.
build_plugin() {
	[ "$PLUGIN" -nt "$ROOT/scripts/tbprof.c" ] && return
	need_cmd gcc pkg-config
	pkg-config --exists glib-2.0 ||
		die "no glib-2.0 for pkg-config (qemu-plugin.h needs glib.h): run 'make deps' (scripts/deps.sh), which installs libglib2.0-dev"
	plugin_header
	# shellcheck disable=SC2046 # pkg-config prints several flags
	gcc -O2 -Wall -shared -fPIC -I "$TOOLS" $(pkg-config --cflags glib-2.0) \
		"$ROOT/scripts/tbprof.c" -o "$PLUGIN" || die "cannot build scripts/tbprof.c"
}

# qemu_wrapper DIR OUT: $QEMU (qemu-system-aarch64) loading the plugin,
# which writes its counts to OUT; prints its path.  (QEMU refuses a
# plugin built against a newer qemu-plugin.h, with a message.)
qemu_wrapper() {
	local w=$1/qemu-system-aarch64
	case $PLUGIN$2 in *,*) die "a comma in '$PLUGIN' or '$2' would split QEMU's -plugin option" ;; esac
	printf '#!/bin/sh\nexec %q -plugin %q,out=%q "$@"\n' "${QEMU:-qemu-system-aarch64}" "$PLUGIN" "$2" >"$w"
	chmod +x "$w"
	echo "$w"
}

main() {
	local trigger=${1:?usage: hit_profile.sh TRIGGER [FLAVOUR]} flavour=${2:-patched}
	local secs=${SECONDS_RUN:-3} tramp=${TRAMP:-1} dir setup="" qemu image per
	[[ "$secs" =~ ^[1-9][0-9]*$ ]] || die "SECONDS_RUN must be a positive number, not '$secs'"
	[ -f "$IMAGES/$flavour/System.map" ] || die "no $flavour kernel (build/$BASE/images/$flavour/System.map): run scripts/kernel.sh $flavour"
	if [ "$tramp" = 0 ]; then
		if [ "$BASE" != mainline ] || [ "$flavour" != patched ]; then
			die "TRAMP=0 is for the trampoline slots of the patched mainline kernel"
		fi
		setup="echo 0 > /proc/sys/debug/uprobes-optimization && "
	fi
	build_plugin
	provenance trigger="$trigger" flavour="$flavour" tramp="$tramp" seconds="$secs"
	dir=$BUILD/run/hit-profile-$flavour-$trigger
	[ "$tramp" = 1 ] || dir+=-brk
	mkdir -p "$dir"
	rm -f "$dir/counts.txt"
	# The kernel, once: a build may move the flavour's link meanwhile.
	image=$(basename "$(readlink -f "$IMAGES/$flavour")")
	cp "$IMAGES/$image/System.map" "$dir/System.map"
	echo "$image" >"$dir/image"
	qemu=$(qemu_wrapper "$dir" "$dir/counts.txt")
	VCPUS=1 QEMU=$qemu GUEST_TIMEOUT=${GUEST_TIMEOUT:-900} "$ROOT/scripts/guest.sh" "$image" run "$dir" \
		"${setup}cd /testbed/bpf && ./bench -w1 -d$secs -a trig-$trigger" ||
		die "the profiled guest failed; see $dir"
	grep -a '^Summary' "$dir/out.txt" >&2 || die "the bench printed no summary; see $dir/out.txt"
	[ -s "$dir/counts.txt" ] || die "the plugin wrote no counts ($dir/counts.txt)"
	log "kernel $image; counts and System.map in ${dir#"$ROOT"/}"
	per=${HIT_PER:-}
	if [ -z "$per" ]; then
		per=uprobe_dispatcher
		grep -q " handler_chain$" "$dir/System.map" && per=handler_chain
	fi
	python3 "$ROOT/scripts/hit_profile.py" "$dir/System.map" "$dir/counts.txt" --per "$per"
}

main "$@"
