#!/usr/bin/env bash
# TAP: the selftests' bench, with the series' changes to it, also builds for
# x86_64 (host compiler; build only, nothing boots).  The BPF objects are
# compiled against the arm64 kernel's BTF, which has every type 6.12's use;
# on mainline they need x86's struct pt_regs, so the test is skipped there.
. "$(dirname "$0")/../../scripts/lib.sh"

if [ "$BASE" = mainline ]; then
	# 7.3's BPF objects for x86 read x86's struct pt_regs (usdt.bpf.h,
	# test_overhead.c) from vmlinux.h, which the arm64 BTF cannot give.
	echo "ok 1 - bench builds for x86_64 # SKIP needs an x86_64 kernel's BTF on $BASE"
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
	echo "not ok 1 - bench builds for x86_64 (log: build/logs/bench-x86_64.log)"
	tail -n 15 "$log" | sed 's/^/# /'
fi
