#!/usr/bin/env bash
# TAP: the selftests' bench, with the series' changes to it, also builds for
# x86_64 (host compiler; build only, nothing boots).  The BPF objects are
# compiled against the arm64 kernel's BTF; where that lacks a type they
# use, BENCH_X86_64 (config/base/BASE.env) says why, and the test skips.
. "$(dirname "$0")/../../scripts/lib.sh"

if [ "$BENCH_X86_64" != 1 ]; then
	echo "ok 1 - bench builds for x86_64 # SKIP on $BASE: $BENCH_X86_64"
	exit 0
fi
ksrc_at queue
out=$BUILD/selftests-bpf-x86_64
hdrs=$BUILD/uapi-headers-x86_64
log=$BUILD/logs/bench-x86_64.log
mkdir -p "$out" "$(dirname "$log")"
if bpf_bench "$KSRC" x86_64 "" "$IMAGES/patched/vmlinux" "$hdrs" "$BUILD/uapi-obj-x86_64" \
	"$out" >"$log" 2>&1 && file "$out/bench" | grep -q 'x86-64'; then
	echo "ok 1 - bench builds for x86_64"
else
	echo "not ok 1 - bench builds for x86_64 (log: build/$BASE/logs/bench-x86_64.log)"
	tail -n 15 "$log" | sed 's/^/# /'
fi
