#!/usr/bin/env bash
# TAP: bpf_bench remakes the selftests' vmlinux.h when it is given another
# kernel, also one older than the vmlinux.h it has (an image link switched
# back), and keeps it for the same kernel.  make is stubbed: this tests the
# test bed, not selftests/bpf.
. "$(dirname "$0")/../../scripts/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make() { :; }

# bench_with LINK_TARGET: point the image link at LINK_TARGET and run
# bpf_bench; prints whether vmlinux.h survived.
bench_with() {
	ln -sfn "$1" "$tmp/patched"
	bpf_bench "$tmp/src" arm64 x- "$tmp/patched/vmlinux" "$tmp/h" "$tmp/o" "$tmp/out"
	if [ -e "$tmp/out/tools/include/vmlinux.h" ]; then echo kept; else echo removed; fi
}

mkdir -p "$tmp/old" "$tmp/new" "$tmp/out/tools/include"
echo old > "$tmp/old/vmlinux"
echo new > "$tmp/new/vmlinux"
touch -d '2 hours ago' "$tmp/old/vmlinux"
touch -d '1 hour ago' "$tmp/new/vmlinux"

bench_with new >/dev/null
touch "$tmp/out/tools/include/vmlinux.h"
tap_is "vmlinux.h kept for the same kernel" kept "$(bench_with new)"
tap_is "vmlinux.h remade for an older kernel" removed "$(bench_with old)"
touch "$tmp/out/tools/include/vmlinux.h"
tap_is "vmlinux.h kept again for that kernel" kept "$(bench_with old)"
tap_is "vmlinux.h remade when switched forward" removed "$(bench_with new)"
echo "1..$TAP_N"
