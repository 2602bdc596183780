#!/usr/bin/env bash
# Assemble the guest initramfs (build/initramfs.cpio.gz):
#   - Debian arm64 packages from config/guest-packages (apt-get download,
#     dpkg-deb -x; cached in build/rootfs-base);
#   - guest/ (init, sudo, check.sh, bench.sh, gowork.sh, workloads.sh) into /
#     and /testbed, with the probe candidates of workloads.sh;
#   - build/guest-bin/ (bench and tests, from scripts/userland.sh) into /testbed.
# Every ELF file added must find its shared libraries in the image.
. "$(dirname "$0")/lib.sh"

BASE=$BUILD/rootfs-base
STAGE=$BUILD/rootfs
OUTIMG=$BUILD/initramfs.cpio.gz

packages() { sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$ROOT/config/guest-packages"; }

# base_userland: download and unpack the packages, when the list changed.
base_userland() {
	local want dl=$BUILD/dl/arm64 p deb
	want=$(packages | sha256sum | cut -d' ' -f1)
	[ "$(cat "$BASE/.stamp" 2>/dev/null)" = "$want" ] && return
	dpkg --print-foreign-architectures | grep -qx arm64 ||
		die "dpkg has no arm64 architecture: run 'make deps'"
	mkdir -p "$dl"
	rm -rf "$BASE" && mkdir -p "$BASE"
	for p in $(packages); do
		deb=$(ls "$dl/${p}"_*_arm64.deb 2>/dev/null | head -n1 || true)
		if [ -z "$deb" ]; then
			(cd "$dl" && apt-get download -q "$p:arm64" >/dev/null 2>&1) ||
				die "apt-get download $p:arm64 failed (apt-get update? package name?)"
			deb=$(ls "$dl/${p}"_*_arm64.deb | head -n1)
		fi
		dpkg-deb -x "$deb" "$BASE"
		log "unpacked ${deb##*/}"
	done
	echo "$want" > "$BASE/.stamp"
}

# check_libs DIR: every NEEDED library of every executable and shared
# library under DIR (not glibc's gconv modules, which find theirs by
# RUNPATH) exists in the image's library folders.
check_libs() {
	local f lib missing=()
	while IFS= read -r f; do
		while read -r lib; do
			[ -e "$STAGE/lib/aarch64-linux-gnu/$lib" ] ||
			[ -e "$STAGE/usr/lib/aarch64-linux-gnu/$lib" ] ||
			[ -e "$STAGE/lib/$lib" ] || missing+=("${f#"$STAGE"}: $lib")
		done < <("${CROSS_COMPILE}readelf" -d "$f" 2>/dev/null |
			 sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
	done < <(find "$1" -name gconv -prune -o -type f \( -perm -u+x -o -name '*.so*' \) -print)
	[ "${#missing[@]}" -eq 0 ] ||
		die "libraries missing from the guest (add their package to config/guest-packages): ${missing[*]}"
}

# workload_candidates: for guest/workloads.sh, the functions of grep and
# redis-server that start with stp x29, x30, [sp, #imm]! (found by
# disassembly, scripts/probe_candidates.py).
workload_candidates() {
	mkdir -p "$STAGE/testbed/workloads"
	"$ROOT/scripts/probe_candidates.py" "$STAGE/bin/grep" > "$STAGE/testbed/workloads/grep.cand"
	"$ROOT/scripts/probe_candidates.py" "$STAGE/usr/bin/redis-check-rdb" \
		> "$STAGE/testbed/workloads/redis.cand"
}

main() {
	local d
	need_cmd apt-get dpkg-deb cpio gzip rsync "${CROSS_COMPILE}readelf"
	[ -d "$BUILD/guest-bin" ] || die "no guest binaries: run scripts/userland.sh first"
	base_userland
	rm -rf "$STAGE" && mkdir -p "$STAGE"
	rsync -a --exclude=/usr/share/doc --exclude=/usr/share/man --exclude=/usr/share/locale \
		--exclude=/.stamp "$BASE/" "$STAGE/"
	ln -sf busybox "$STAGE/bin/sh"
	install -m 0755 "$ROOT/guest/init" "$STAGE/init"
	install -m 0755 "$ROOT/guest/sudo" "$STAGE/bin/sudo"
	mkdir -p "$STAGE/testbed" "$STAGE/etc"
	install -m 0755 "$ROOT/guest/check.sh" "$ROOT/guest/bench.sh" "$ROOT/guest/siglock.sh" \
		"$ROOT/guest/gowork.sh" "$ROOT/guest/workloads.sh" "$STAGE/testbed/"
	rsync -a "$BUILD/guest-bin/" "$STAGE/testbed/"
	workload_candidates
	: > "$STAGE/etc/ld.so.conf"
	for d in testbed bin usr/bin lib/aarch64-linux-gnu usr/lib/aarch64-linux-gnu; do
		[ ! -d "$STAGE/$d" ] || check_libs "$STAGE/$d"
	done
	(cd "$STAGE" && find . -mindepth 1 | LC_ALL=C sort |
		cpio -o -H newc -R 0:0 --quiet) | gzip -1 > "$OUTIMG.tmp"
	mv "$OUTIMG.tmp" "$OUTIMG"
	log "initramfs: ${OUTIMG#"$ROOT"/} ($(du -h "$OUTIMG" | cut -f1))"
}

main "$@"
