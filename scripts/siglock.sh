#!/usr/bin/env bash
# Measure how often a single-stepped uprobe hit takes sighand->siglock, on the
# baseline and the patched kernel: guest/siglock.sh counts the calls of
# recalc_sigpending() (under siglock in the base's handle_singlestep()) and
# uprobe_deny_signal() while a task hits a stepped probe N times, minus a run
# without hits.  A measurement, not a test: it prints, after "# key: value"
# lines that say what it ran on (scripts/lib.sh provenance).
#   scripts/siglock.sh [N]      (after make bench or make kernels rootfs)
. "$(dirname "$0")/lib.sh"

n=${1:-20000}
[[ "$n" =~ ^[1-9][0-9]*$ ]] || die "N must be a positive number, not '$n'"
provenance n="$n"
printf '%-9s %-20s %10s %10s %10s\n' kernel function calls hits per-hit
for k in baseline patched; do
	dir=$BUILD/run/siglock/$k
	"$ROOT/scripts/guest.sh" "$k" run "$dir" "/testbed/siglock.sh $n" ||
		die "siglock run on $k failed; see $dir"
	grep -a '^SIGLOCK' "$dir/out.txt" | awk -v k="$k" '{
		printf "%-9s %-20s %10d %10d %10.3f\n", k, $2, $4, $6, ($6 ? $4 / $6 : 0) }'
done
