#!/usr/bin/env bash
# Install what the test bed needs on Debian 12 (bookworm), x86-64 host:
# cross toolchain, QEMU (10.0, from bookworm-backports through a private apt
# configuration: bookworm's 7.2 is a weaker oracle, e.g. it hangs natively on
# an MTE tag-check fault of an SP-based store), kernel build tools,
# clang/llvm for BPF (clang-19 too: mainline's selftests/bpf need
# bpf_addr_space_cast, which clang 14 lacks), Go for the
# guest's Go program (scripts/gowork.sh), shellcheck and pyflakes3 for make
# lint, glib's headers for make hit-profile's QEMU plugin, and the arm64
# architecture in dpkg for the guest's and bench's libraries.  Idempotent:
# does nothing when everything is there (no apt-get update either), and
# names what it will install before it does.  Needs root (or sudo).
. "$(dirname "$0")/lib.sh"

HOST_PKGS=(make gcc git bc bison flex libssl-dev libelf-dev dwarves cpio gzip xz-utils
	   rsync ccache python3 python3-ply python3-git gnuplot-nox perl kmod
	   gcc-aarch64-linux-gnu libc6-dev-arm64-cross binutils-aarch64-linux-gnu
	   clang llvm lld clang-19 llvm-19 pkg-config file git-email libmailtools-perl
	   golang-go mmdebstrap shellcheck pyflakes3
	   # make hit-profile: glib.h, which qemu-plugin.h includes (scripts/tbprof.c)
	   libglib2.0-dev)
ARM64_PKGS=(libelf-dev:arm64 zlib1g-dev:arm64)
QEMU_MIN=10.0

# missing PKG...: print the packages dpkg does not have installed.
missing() {
	local p
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' ||
			printf '%s\n' "$p"
	done
}

# qemu_version: print the installed qemu-system-aarch64's version, or 0.
qemu_version() {
	dpkg-query -W -f='${Version}' qemu-system-arm 2>/dev/null | sed 's/^[0-9]*://' || echo 0
}

# qemu_from_backports: install qemu-system-arm from bookworm-backports (a
# private apt configuration: the machine's sources plus backports) unless a
# QEMU of at least QEMU_MIN is there.
qemu_from_backports() {
	local have
	have=$(qemu_version)
	dpkg --compare-versions "${have:-0}" ge "$QEMU_MIN" && return
	apt_conf backports 1 bookworm-backports
	log "installing qemu-system-arm from bookworm-backports (have: ${have:-none})"
	as_root env DEBIAN_FRONTEND=noninteractive apt-get "${APT_OPTS[@]}" install -y -q \
		--no-install-recommends -t bookworm-backports qemu-system-arm >"$BUILD/apt-qemu.log" 2>&1 ||
		{ tail -n 20 "$BUILD/apt-qemu.log" >&2; die "installing QEMU from bookworm-backports failed (log: ${BUILD#"$ROOT"/}/apt-qemu.log)"; }
	have=$(qemu_version)
	dpkg --compare-versions "$have" ge "$QEMU_MIN" ||
		die "bookworm-backports gave QEMU $have, older than $QEMU_MIN"
}

# arm64_lists: whether the machine's apt lists hold arm64 package indexes,
# i.e. apt-get update ran since dpkg took arm64 (scripts/rootfs.sh downloads
# the guest's arm64 packages, and 6.12's scripts/tree.sh its source
# package, through the machine's own sources).
arm64_lists() {
	local f
	# shellcheck disable=SC2016 # $(FILENAME) is apt's, not the shell's
	while read -r f; do
		[ ! -e "$f" ] || return 0
	done < <(apt-get indextargets --format '$(FILENAME)' 'Identifier: Packages' 'Architecture: arm64' 2>/dev/null)
	return 1
}

main() {
	command -v apt-get >/dev/null || die "this needs Debian's apt-get (Debian 12 bookworm)"
	local todo ilog=$BUILD/apt-install.log
	mkdir -p "$BUILD"
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		log "adding dpkg architecture arm64"
		as_root dpkg --add-architecture arm64
	fi
	todo=$(missing "${HOST_PKGS[@]}" "${ARM64_PKGS[@]}")
	if [ -n "$todo" ]; then
		log "will install (apt-get update, then apt-get install): ${todo//$'\n'/ }"
	elif arm64_lists; then
		qemu_from_backports
		return
	else
		log "every package is installed, but apt has no arm64 package lists yet"
	fi
	log "apt-get update"
	as_root apt-get update -q >/dev/null || die "apt-get update failed"
	if [ -n "$todo" ]; then
		log "installing: ${todo//$'\n'/ }"
		# shellcheck disable=SC2086 # a list of package names
		as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends $todo >"$ilog" 2>&1 ||
			{ tail -n 20 "$ilog" >&2; die "apt-get install failed (log: ${ilog#"$ROOT"/})"; }
	fi
	qemu_from_backports
}

main "$@"
