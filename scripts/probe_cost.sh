#!/usr/bin/env bash
# What a uprobe hit costs on each arm64 bench target, split into the target's
# own user-mode time and the time the probe adds (guest/tools/probe_cost.c),
# on the baseline and the patched kernel.  A measurement, not a test: it
# prints ns per call, median [min, max] over the rounds.  With ICOUNT=1 the
# guest's clock counts its instructions (scripts/guest.sh), 1 ns each, on
# one vCPU: the numbers are then instructions per call, and repeatable.
# The output starts with "# key: value" lines that say what it ran on
# (scripts/lib.sh provenance).  RUNS (1) boots per kernel, booted
# alternately (lib.sh abab; logs in build/BASE/run/probe-cost/); with more
# than one, each line names its run ("baseline run 2: ...").
#   scripts/probe_cost.sh [CALLS [ROUNDS]]   (after make bench, or make
#                                             kernels rootfs; ROUNDS <= 32)
. "$(dirname "$0")/lib.sh"

calls=${1:-200000}
rounds=${2:-5}
if ! [[ "$calls" =~ ^[1-9][0-9]*$ && "$rounds" =~ ^[1-9][0-9]*$ ]] || [ "$rounds" -gt 32 ]; then
	die "CALLS and ROUNDS must be positive numbers, ROUNDS at most 32, not '$calls' '$rounds'"
fi
if [ "${ICOUNT:-0}" = 1 ]; then
	export VCPUS=1	# guest time counts the instructions of every vCPU
	log "icount: ns are guest instructions"
fi
RUNS=${RUNS:-1}
GUEST_TIMEOUT=${GUEST_TIMEOUT:-900}

# parse OUT.txt RUN KERNEL: the guest's result lines, each after "KERNEL: "
# ("KERNEL run RUN: " when RUNS > 1); nothing when it printed no result.
parse() {
	local tag=$3
	[ "$RUNS" = 1 ] || tag+=" run $2"
	awk -v k="$tag" '/^(# ns|probe_cost )/ { out = out k ": " $0 "\n" }
		/^probe_cost / { ok = 1 } END { if (ok) printf "%s", out }' "$1"
}

provenance calls="$calls" rounds="$rounds" icount="${ICOUNT:-0}" vcpus="${VCPUS:-2}" runs="$RUNS"
ABAB_NAME=probe-cost abab run parse "/testbed/tools/probe_cost $calls $rounds"
