#!/usr/bin/env bash
# Install what the test bed needs on Debian 12 (bookworm), x86-64 host:
# cross toolchain, QEMU, kernel build tools, clang/llvm for BPF, Go for the
# guest's Go program (scripts/gowork.sh), and the arm64 architecture in dpkg
# for the guest's and bench's libraries.  Idempotent: does nothing when
# everything is there.  Needs root (or sudo).
. "$(dirname "$0")/lib.sh"

HOST_PKGS=(make gcc git bc bison flex libssl-dev libelf-dev dwarves cpio gzip xz-utils
	   rsync ccache python3 python3-ply python3-git gnuplot-nox perl kmod
	   gcc-aarch64-linux-gnu libc6-dev-arm64-cross binutils-aarch64-linux-gnu
	   qemu-system-arm clang llvm lld pkg-config file git-email libmailtools-perl
	   golang-go)
ARM64_PKGS=(libelf-dev:arm64 zlib1g-dev:arm64)

# missing PKG...: print the packages dpkg does not have installed.
missing() {
	local p
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' ||
			printf '%s\n' "$p"
	done
}

main() {
	command -v apt-get >/dev/null || die "this needs Debian's apt-get (Debian 12 bookworm)"
	local sudo=() todo
	[ "$(id -u)" = 0 ] || sudo=(sudo)
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		log "adding dpkg architecture arm64"
		"${sudo[@]}" dpkg --add-architecture arm64
		rm -f "$BUILD/.apt-updated"
	fi
	todo=$(missing "${HOST_PKGS[@]}" "${ARM64_PKGS[@]}")
	if [ -z "$todo" ] && [ -f "$BUILD/.apt-updated" ]; then
		return
	fi
	log "apt-get update"
	"${sudo[@]}" apt-get update -q >/dev/null || die "apt-get update failed"
	mkdir -p "$BUILD" && touch "$BUILD/.apt-updated"
	if [ -n "$todo" ]; then
		log "installing: $(echo $todo)"
		# shellcheck disable=SC2086 # a list of package names
		"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
			--no-install-recommends $todo >"$BUILD/apt-install.log" 2>&1 ||
			{ tail -n 20 "$BUILD/apt-install.log" >&2; die "apt-get install failed (log: build/apt-install.log)"; }
	fi
}

main "$@"
