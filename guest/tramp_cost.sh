#!/bin/sh
# Guest side of scripts/tramp_cost.sh: the arm64 uprobe trampolines off (the
# BRK path) and on, in turns, on the same kernel.  A measurement, not a test.
#   tramp_cost.sh CALLS ROUNDS BENCH_SECONDS
# Prints, per round and mode ("brk", "tramp"):
#   MODE: probe_cost TARGET: ...          (guest/tools/probe_cost, 1 round)
#   MODE: bench TRIGGER: RATE             (bpf bench, M/s)
#   floor: bench syscall-count: RATE      (a getpgid() round trip, no probe:
#                                          what one kernel entry costs)
# and once per mode and trigger, counted with kprobes over a bench run:
#   MODE: exceptions TRIGGER: E per call (brk B, step S, svc V, calls N)
set -eu
knob=/proc/sys/debug/uprobes-optimization
tracing=/sys/kernel/tracing
calls=$1 rounds=$2 secs=$3
triggers="uprobe-nop uprobe-push uprobe-pac uprobe-xol uretprobe-nop"

[ -w "$knob" ] || { echo "no $knob: this kernel cannot switch uprobe trampolines off"; exit 1; }

# mode brk|tramp: switch the trampolines off or on for probes hit from now.
mode() {
	case $1 in
	brk) echo 0 > "$knob" ;;
	tramp) echo 1 > "$knob" ;;
	esac
}

# rate TRIGGER: the bench's mean rate for TRIGGER, M/s.
rate() {
	(cd /testbed/bpf && ./bench -w1 -d"$secs" -a "trig-$1") |
		awk '/^Summary/ { print $3 }'
}

# Kprobes that count exception entries of the uprobe paths, and the calls:
# a BRK hit, a single-step completed, an SVC of a slot or of the return
# trampoline (uprobe_svc), and the consumer runs of entry probes
# (handler_chain).
counters="uprobe_pre_sstep_notifier uprobe_post_sstep_notifier uprobe_svc handler_chain"
add_counters() {
	for f in $counters; do
		echo "p:tc_$f $f" >> "$tracing/kprobe_events"
	done
	echo 1 > "$tracing/events/kprobes/enable"
}

# count FUNCTION: hits of its kprobe so far.
count() {
	awk -v e="tc_$1" '$1 == e { print $2 }' "$tracing/kprobe_profile"
}

# exceptions MODE TRIGGER: exception entries per probed call over a bench run.
exceptions() {
	# (BusyBox sh: no "local"; these are the only users)
	before=$(for f in $counters; do count "$f"; done | tr '\n' ' ')
	(cd /testbed/bpf && ./bench -w1 -d1 -a "trig-$2" >/dev/null)
	after=$(for f in $counters; do count "$f"; done | tr '\n' ' ')
	# shellcheck disable=SC2086 # the counts, one a word (no arrays in BusyBox sh)
	set -- "$1" "$2" $before $after
	b=$(( $7 - $3 )) s=$(( $8 - $4 )) v=$(( $9 - $5 )) n=$(( ${10} - $6 ))
	awk -v m="$1" -v t="$2" -v b="$b" -v s="$s" -v v="$v" -v n="$n" 'BEGIN {
		printf "%s: exceptions %s: %.3f per call (brk %d, step %d, svc %d, calls %d)\n",
		       m, t, n ? (b + s + v) / n : -1, b, s, v, n }'
}

for _ in $(seq "$rounds"); do
	for m in brk tramp; do
		mode "$m"
		/testbed/tools/probe_cost "$calls" 1 | sed -n "s/^probe_cost /$m: probe_cost /p"
		for t in $triggers; do
			echo "$m: bench $t: $(rate "$t")"
		done
	done
	echo "floor: bench syscall-count: $(rate syscall-count)"
done
add_counters
for m in brk tramp; do
	mode "$m"
	for t in $triggers; do
		exceptions "$m" "$t"
	done
done
mode tramp
