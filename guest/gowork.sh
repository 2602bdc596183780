#!/bin/bash
# Guest side: the Go program /testbed/tools/gowork (tests/guest/go, built by
# scripts/gowork.sh) with a uprobe (tracefs uprobe_events) on main.work,
# whose first instruction is Go's stack-bound check "ldr x16, [x28, #16]".
#   gowork.sh check N   TAP: the output with the probe equals the output
#                       without it, and the probe hit at least N times
#   gowork.sh bench N   "uprobe-go-ldr : RATE M/s" (calls of main.work per
#                       second with the probe), in run_bench_uprobes.sh's
#                       format, for scripts/bench.sh
set -euo pipefail
T=/sys/kernel/tracing
BIN=/testbed/tools/gowork
EVENT=gowork_entry

probe_on() {
	echo "p:uprobes/$EVENT $BIN:$(cat "$BIN.offset")" >> "$T/uprobe_events"
	echo 1 > "$T/events/uprobes/$EVENT/enable"
}

probe_off() {
	echo 0 > "$T/events/uprobes/$EVENT/enable"
	echo "-:uprobes/$EVENT" >> "$T/uprobe_events"
}

# hits: the probe's hit count (uprobe_profile: "path event hits").
hits() {
	awk -v e="$EVENT" '$2 == e { print $3 }' "$T/uprobe_profile"
}

check() {
	local n=$1 native probed h
	native=$("$BIN" "$n")
	probe_on
	probed=$("$BIN" "$n")
	h=$(hits)
	probe_off
	# A Go function runs its entry again after runtime.morestack (stack
	# growth, or a preemption request from sysmon): at least n hits.
	echo "# gowork $n: output $native unprobed, $probed probed; $h hits ($((h - n)) re-entries)"
	if [ "$native" = "$probed" ] && [ "$h" -ge "$n" ]; then
		echo "ok - gowork: uprobe on main.work (ldr x16, [x28, #16]) leaves the output unchanged, >= $n hits"
	else
		echo "not ok - gowork: uprobe on main.work (ldr x16, [x28, #16]) leaves the output unchanged, >= $n hits"
	fi
}

bench() {
	local n=$1 t0 t1
	probe_on
	t0=${EPOCHREALTIME/./}
	"$BIN" "$n" > /dev/null
	t1=${EPOCHREALTIME/./}
	probe_off
	# calls per microsecond = M calls/s
	awk -v n="$n" -v us=$((t1 - t0)) \
		'BEGIN { printf "%-15s: %.4g ± 0.000M/s\n", "uprobe-go-ldr", n / us }'
}

case ${1:-} in
check) check "${2:-20000}" ;;
bench) bench "${2:-20000}" ;;
*) echo "usage: $0 check|bench [N]" >&2; exit 2 ;;
esac
