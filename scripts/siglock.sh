#!/usr/bin/env bash
# Measure how often a single-stepped uprobe hit takes sighand->siglock, on the
# baseline and the patched kernel: guest/siglock.sh counts the calls of
# recalc_sigpending() (under siglock in the base's handle_singlestep()) and
# uprobe_deny_signal() while a task hits a stepped probe N times, minus a run
# without hits.  A measurement, not a test: it prints, after "# key: value"
# lines that say what it ran on (scripts/lib.sh provenance).  RUNS (1)
# boots per kernel, booted alternately (lib.sh abab; logs in
# build/BASE/run/siglock/); with more than one, the kernel column names
# the run too (baseline/2).
#   scripts/siglock.sh [N]      (after make bench or make kernels rootfs)
. "$(dirname "$0")/lib.sh"

n=${1:-20000}
[[ "$n" =~ ^[1-9][0-9]*$ ]] || die "N must be a positive number, not '$n'"
RUNS=${RUNS:-1}
GUEST_TIMEOUT=${GUEST_TIMEOUT:-900}

w=9	# the kernel column, "baseline/RUN" when RUNS > 1
[ "$RUNS" = 1 ] || w=$((9 + ${#RUNS} + 1))

# parse OUT.txt RUN KERNEL: a table row per SIGLOCK line of the guest.
parse() {
	local tag=$3
	[ "$RUNS" = 1 ] || tag+=/$2
	awk -v k="$tag" -v w="$w" '/^SIGLOCK/ {
		printf "%-*s %-20s %10d %10d %10.3f\n", w, k, $2, $4, $6, ($6 ? $4 / $6 : 0) }' "$1"
}

provenance n="$n" runs="$RUNS"
printf '%-*s %-20s %10s %10s %10s\n' "$w" kernel function calls hits per-hit
ABAB_NAME=siglock abab run parse "/testbed/siglock.sh $n"
