#!/usr/bin/env bash
# TAP: the arm64 probe objects of the queue build in a kernel with kprobes
# and without uprobes (config/kprobes-only.config): the code in
# arch/arm64/kernel/probes/ is shared, and a header that only uprobes pull
# in breaks that build.  Incremental, in build/BASE/obj-kprobes-only.
. "$(dirname "$0")/../../scripts/lib.sh"

OBJ=$BUILD/obj-kprobes-only
FRAG=$ROOT/config/kprobes-only.config
LOG=$BUILD/logs/kprobes-only.log
OBJS=(arch/arm64/kernel/probes/decode-insn.o arch/arm64/kernel/probes/simulate-insn.o
      arch/arm64/kernel/probes/kprobes.o)

ksrc_at queue
mkdir -p "$(dirname "$LOG")"
if ! kconfig_merge "$KSRC" "$OBJ" arm64 "$CROSS_COMPILE" "$FRAG" >"$LOG" 2>&1; then
	echo "not ok 1 - kprobes-only: configure (log: build/$BASE/logs/kprobes-only.log)"
	exit 0
fi
if grep -qx 'CONFIG_KPROBES=y' "$OBJ/.config" && ! grep -q '^CONFIG_UPROBES=' "$OBJ/.config"; then
	echo "ok 1 - kprobes-only: config has KPROBES and not UPROBES"
else
	echo "not ok 1 - kprobes-only: config has KPROBES and not UPROBES"
	exit 0
fi
if make -C "$KSRC" O="$OBJ" ARCH=arm64 CROSS_COMPILE="$CROSS_COMPILE" \
	CC="ccache ${CROSS_COMPILE}gcc" -j"$JOBS" "${OBJS[@]}" >>"$LOG" 2>&1; then
	echo "ok 2 - kprobes-only: arch/arm64/kernel/probes objects build without uprobes"
else
	echo "not ok 2 - kprobes-only: arch/arm64/kernel/probes objects build without uprobes"
	grep -E 'error' "$LOG" | head -n 5 | sed 's/^/# /'
fi
