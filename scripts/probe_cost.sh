#!/usr/bin/env bash
# What a uprobe hit costs on each arm64 bench target, split into the target's
# own user-mode time and the time the probe adds (guest/tools/probe_cost.c),
# on the baseline and the patched kernel.  A measurement, not a test: it
# prints ns per call, median [min, max] over the rounds.  With ICOUNT=1 the
# guest's clock counts its instructions (scripts/guest.sh), 1 ns each, on
# one vCPU: the numbers are then instructions per call, and repeatable.
# The output starts with "# key: value" lines that say what it ran on
# (scripts/lib.sh provenance).
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
provenance calls="$calls" rounds="$rounds" icount="${ICOUNT:-0}" vcpus="${VCPUS:-2}"
for k in baseline patched; do
	dir=$BUILD/run/probe-cost/$k
	"$ROOT/scripts/guest.sh" "$k" run "$dir" "/testbed/tools/probe_cost $calls $rounds" ||
		die "probe_cost run on $k failed; see $dir"
	grep -a -q '^probe_cost ' "$dir/out.txt" ||
		die "probe_cost printed no result on $k; see $dir/out.txt"
	grep -a -E '^(# ns|probe_cost )' "$dir/out.txt" | sed "s/^/$k: /"
done
