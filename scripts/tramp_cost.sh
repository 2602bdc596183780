#!/usr/bin/env bash
# arm64 uprobe trampoline slots against the BRK path, on the same (patched,
# BASE=mainline) kernel, in turns (guest/tramp_cost.sh switches
# the sysctl debug.uprobes-optimization): bench rates, the time a probe
# adds (guest/tools/probe_cost), exception entries per call, and the rate of
# a getpgid() syscall with no probe ("floor": one kernel entry and exit,
# which bounds any hit that takes an exception).  A measurement, not a
# test.  With ICOUNT=1, on one vCPU, guest time counts guest instructions
# (scripts/guest.sh): ns are then instructions.
#   scripts/tramp_cost.sh [CALLS [ROUNDS [BENCH_SECONDS]]]   (after make check
#                                                           or make bench)
# Prints "# key: value" lines that say what it ran on (scripts/lib.sh
# provenance), the guest's lines, then scripts/report.py's summary of the bench
# rates (BRK path as "baseline", slots as "patched"): the ratio slot / BRK,
# median [min, max] over the rounds.
. "$(dirname "$0")/lib.sh"

calls=${1:-20000}
rounds=${2:-5}
secs=${3:-2}
for v in "$calls" "$rounds" "$secs"; do
	[[ "$v" =~ ^[1-9][0-9]*$ ]] || die "CALLS, ROUNDS and BENCH_SECONDS must be positive numbers, not '$v'"
done
[ "$BASE" = mainline ] || die "the trampoline slots are for mainline (patches/mainline/8-uprobe-trampoline): run with BASE=mainline"
if [ "${ICOUNT:-0}" = 1 ]; then
	export VCPUS=1	# guest time counts the instructions of every vCPU
	log "icount: ns are guest instructions"
fi

# csv OUT.txt: the bench rates as scripts/report.py reads them (run,kernel,
# trigger,rate), the BRK path as "baseline" and the slots as "patched",
# after the provenance lines.
csv() {
	echo "$prov"
	echo "run,kernel,trigger,rate"
	awk '$2 == "bench" && ($1 == "brk:" || $1 == "tramp:") {
		k = $1 == "brk:" ? "baseline" : "patched"; t = $3; sub(/:$/, "", t)
		print ++n[k, t] "," k "," t "," $4 }' "$1"
}

prov=$(provenance calls="$calls" rounds="$rounds" bench_seconds="$secs" icount="${ICOUNT:-0}" \
	vcpus="${VCPUS:-2}")
echo "$prov"
dir=$BUILD/run/tramp-cost
[ "${ICOUNT:-0}" != 1 ] || dir+=-icount
GUEST_TIMEOUT=${GUEST_TIMEOUT:-3600} "$ROOT/scripts/guest.sh" patched run "$dir" \
	"/testbed/tramp_cost.sh $calls $rounds $secs" ||
	die "tramp_cost run failed; see $dir"
grep -a -q '^tramp: bench ' "$dir/out.txt" ||
	die "tramp_cost printed no result; see $dir/out.txt"
grep -a -E '^(brk|tramp|floor): ' "$dir/out.txt"
csv "$dir/out.txt" > "$dir/bench-raw.csv"
python3 "$ROOT/scripts/report.py" "$dir/bench-raw.csv" "$dir/bench.csv" "$dir/bench.png" ||
	die "no bench summary; see $dir/bench-raw.csv"
log "slot (patched) / BRK (baseline) rates, median [min, max] of the rounds: $dir/bench.csv"
grep -v "^#" "$dir/bench.csv"
