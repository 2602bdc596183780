#!/usr/bin/env bash
# Assemble the guest initramfs (build/BASE/initramfs.cpio.gz):
#   - Debian 12 arm64 packages from config/guest-packages (the machine's
#     own apt sources; apt-get download, dpkg-deb -x; cached in
#     build/BASE/rootfs-base), the guest's userland;
#   - Debian 13 arm64 packages from config/guest-packages.trixie (the
#     private apt configuration build/apt/trixie, shared with
#     scripts/coverage.sh; cached in build/BASE/dl/trixie-arm64 and
#     build/BASE/rootfs-trixie), in /trixie:
#     the branch-protected programs of `make workloads`, with their own
#     libraries, run with chroot;
#   - guest/ (init, sudo, check.sh, bench.sh, siglock.sh, gowork.sh,
#     workloads.sh, tramp_cost.sh) into /
#     and /testbed, with the probe candidates of workloads.sh;
#   - build/BASE/guest-bin/ (bench and tests, from scripts/userland.sh) into /testbed.
# Every ELF file added must find its shared libraries in the image.
. "$(dirname "$0")/lib.sh"

DEB12=$BUILD/rootfs-base
TRIXIE=$BUILD/rootfs-trixie
STAGE=$BUILD/rootfs
OUTIMG=$BUILD/initramfs.cpio.gz

# packages LIST: the package names in config file LIST, without comments.
packages() { sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$1"; }

# userland LIST DEST DL [APT_NAME SUITE]: download the arm64 packages of
# config file LIST into DL (kept) and unpack them into DEST, when the list
# (or APT_NAME and SUITE) changed; with APT_NAME and SUITE through that
# private apt configuration (lib.sh apt_conf), else through the machine's
# own sources.  Stops with the package's name when a download fails.
userland() {
	local list=$1 dest=$2 dl=$3 want p deb hint="apt-get update?"
	want=$( (packages "$list"; [ $# -lt 5 ] || echo "apt: $4 $5") | sha256sum | cut -d' ' -f1)
	[ "$(cat "$dest/.stamp" 2>/dev/null)" = "$want" ] && return
	dpkg --print-foreign-architectures | grep -qx arm64 ||
		die "dpkg has no arm64 architecture: run 'make deps'"
	APT_OPTS=()
	if [ $# -ge 5 ]; then
		apt_conf "$4" 0 "$5"
		hint="log: build/apt/$4/update.log?"
	fi
	mkdir -p "$dl"
	rm -rf "$dest" && mkdir -p "$dest"
	for p in $(packages "$list"); do
		deb=$(first_file "$dl/${p}"_*_arm64.deb || true)
		if [ -z "$deb" ]; then
			(cd "$dl" && apt-get "${APT_OPTS[@]}" download -q "$p:arm64" >/dev/null 2>&1) ||
				die "apt-get download $p:arm64 failed ($hint package name in ${list#"$ROOT"/}?)"
			deb=$(first_file "$dl/${p}"_*_arm64.deb) || die "apt-get download $p:arm64 left no .deb in $dl"
		fi
		dpkg-deb -x "$deb" "$dest"
		log "unpacked ${deb##*/}"
	done
	echo "$want" > "$dest/.stamp"
}

# check_libs ROOT DIR LIST: every NEEDED library of every executable and
# shared library under ROOT/DIR (not glibc's gconv modules, which find
# theirs by RUNPATH) exists in the library folders of ROOT, and its
# interpreter in ROOT; else stop, naming the package list LIST.
check_libs() {
	local root=$1 list=$3 f lib missing=()
	while IFS= read -r f; do
		while read -r lib; do
			[ -e "$root/lib/aarch64-linux-gnu/$lib" ] ||
			[ -e "$root/usr/lib/aarch64-linux-gnu/$lib" ] ||
			[ -e "$root/lib/$lib" ] || missing+=("${f#"$STAGE"}: $lib")
		done < <("${CROSS_COMPILE}readelf" -d "$f" 2>/dev/null |
			 sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
		lib=$("${CROSS_COMPILE}readelf" -lW "$f" 2>/dev/null |
			sed -n 's/.*Requesting program interpreter: \(.*\)\]/\1/p' || true)
		[ -z "$lib" ] || [ -e "$root$lib" ] || missing+=("${f#"$STAGE"}: $lib")
	done < <(find "$root/$2" -name gconv -prune -o -type f \( -perm -u+x -o -name '*.so*' \) -print)
	[ "${#missing[@]}" -eq 0 ] ||
		die "libraries missing from the guest (add their package to $list): ${missing[*]}"
}

# check_root ROOT LIST: check_libs on the program and library folders of
# ROOT (not twice through merged /usr's links).
check_root() {
	local d
	for d in bin usr/bin lib/aarch64-linux-gnu usr/lib/aarch64-linux-gnu; do
		[ ! -L "$1/${d%%/*}" ] || continue
		[ ! -d "$1/$d" ] || check_libs "$1" "$d" "$2"
	done
}

# workload_candidates: for guest/workloads.sh, the functions of grep and
# redis-server that a uprobe at their entry would hit (found by
# disassembly, scripts/probe_candidates.py): those that start with
# stp x29, x30, [sp, #imm]! in Debian 12's, and with paciasp or pacibsp in
# Debian 13's (built with branch protection).
workload_candidates() {
	local c=$STAGE/testbed/workloads
	mkdir -p "$c"
	"$ROOT/scripts/probe_candidates.py" "$STAGE/bin/grep" > "$c/grep.cand"
	"$ROOT/scripts/probe_candidates.py" "$STAGE/usr/bin/redis-check-rdb" > "$c/redis.cand"
	"$ROOT/scripts/probe_candidates.py" --entry pac "$STAGE/trixie/usr/bin/grep" > "$c/grep-13.cand"
	"$ROOT/scripts/probe_candidates.py" --entry pac "$STAGE/trixie/usr/bin/redis-check-rdb" \
		> "$c/redis-13.cand"
}

# trixie_root DIR: Debian 13's packages in DIR, a root to chroot into:
# merged /usr (Debian 13's base-files links /lib and /bin into /usr; the
# programs' PT_INTERP is /lib/ld-linux-aarch64.so.1), and the mount points
# that guest/workloads.sh binds.
# glibc's gconv modules (20 MB) are left out: neither program converts
# character sets.
trixie_root() {
	local d
	mkdir -p "$1"
	rsync -a --exclude=/usr/share --exclude=/usr/lib/aarch64-linux-gnu/gconv \
		--exclude=/.stamp "$TRIXIE/" "$1/"
	for d in lib bin; do
		[ ! -e "$1/$d" ] || [ -L "$1/$d" ] ||
			die "Debian 13's packages now ship a /$d folder; /$d -> usr/$d cannot be made (${TRIXIE#"$ROOT"/})"
		ln -sfn "usr/$d" "$1/$d"
	done
	mkdir -p "$1/dev" "$1/proc" "$1/tmp"
}

main() {
	need_cmd apt-get dpkg-deb cpio gzip rsync "${CROSS_COMPILE}readelf"
	[ -d "$BUILD/guest-bin" ] || die "no guest binaries: run scripts/userland.sh first"
	userland "$ROOT/config/guest-packages" "$DEB12" "$BUILD/dl/arm64"
	userland "$ROOT/config/guest-packages.trixie" "$TRIXIE" "$BUILD/dl/trixie-arm64" \
		trixie trixie
	rm -rf "$STAGE" && mkdir -p "$STAGE"
	rsync -a --exclude=/usr/share/doc --exclude=/usr/share/man --exclude=/usr/share/locale \
		--exclude=/.stamp "$DEB12/" "$STAGE/"
	ln -sf busybox "$STAGE/bin/sh"
	install -m 0755 "$ROOT/guest/init" "$STAGE/init"
	install -m 0755 "$ROOT/guest/sudo" "$STAGE/bin/sudo"
	mkdir -p "$STAGE/testbed" "$STAGE/etc"
	install -m 0755 "$ROOT/guest/check.sh" "$ROOT/guest/bench.sh" "$ROOT/guest/siglock.sh" \
		"$ROOT/guest/gowork.sh" "$ROOT/guest/workloads.sh" "$ROOT/guest/tramp_cost.sh" \
		"$STAGE/testbed/"
	rsync -a "$BUILD/guest-bin/" "$STAGE/testbed/"
	trixie_root "$STAGE/trixie"
	workload_candidates
	: > "$STAGE/etc/ld.so.conf"
	check_libs "$STAGE" testbed config/guest-packages
	check_root "$STAGE" config/guest-packages
	check_root "$STAGE/trixie" config/guest-packages.trixie
	(cd "$STAGE" && find . -mindepth 1 | LC_ALL=C sort |
		cpio -o -H newc -R 0:0 --quiet) | gzip -1 > "$OUTIMG.tmp"
	mv "$OUTIMG.tmp" "$OUTIMG"
	log "initramfs: ${OUTIMG#"$ROOT"/} ($(du -h "$OUTIMG" | cut -f1))"
}

main "$@"
