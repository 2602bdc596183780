#!/bin/bash
# Guest side of scripts/siglock.sh: how often a stepped uprobe hit takes
# sighand->siglock.  On the base kernel handle_singlestep() calls
# recalc_sigpending() under siglock on every stepped hit, and
# uprobe_deny_signal() takes it when a signal is pending.  Count the calls
# of both (kprobe events, kprobe_profile) while xol_loop hits a stepped
# probe N times, minus a run with no hits (process start and exit).
# Arguments: N (stepped hits).
set -euo pipefail
n=${1:-20000}
T=/sys/kernel/tracing
fns="recalc_sigpending uprobe_deny_signal"

for f in $fns; do
	echo "p:testbed/$f $f" >> "$T/kprobe_events"
	echo 1 > "$T/events/testbed/$f/enable"
done

# calls: the current hit count of each kprobe, in $fns order.
calls() {
	for f in $fns; do
		awk -v f="$f" '$1 == f { printf "%s ", $2 }' "$T/kprobe_profile"
	done
}

c0=$(calls)
/testbed/tools/xol_loop 0 >/dev/null
c1=$(calls)
hits=$(/testbed/tools/xol_loop "$n" | awk '{ print $2 }')
c2=$(calls)
read -r a0 b0 <<<"$c0"
read -r a1 b1 <<<"$c1"
read -r a2 b2 <<<"$c2"
echo "SIGLOCK recalc_sigpending calls $(( (a2 - a1) - (a1 - a0) )) hits $hits"
echo "SIGLOCK uprobe_deny_signal calls $(( (b2 - b1) - (b1 - b0) )) hits $hits"
