#!/usr/bin/env bash
# arm64 uprobe trampoline slots against the BRK path, on the same (patched,
# BASE=mainline) kernel, in turns (guest/tramp_cost.sh switches
# /sys/kernel/debug/arm64_uprobe_trampoline): bench rates, the time a probe
# adds (guest/tools/probe_cost), and exception entries per call.  A
# measurement, not a test.  With ICOUNT=1, on one vCPU, guest time counts
# guest instructions (scripts/guest.sh): ns are then instructions.
#   scripts/tramp_cost.sh [CALLS [ROUNDS [BENCH_SECONDS]]]   (after make check
#                                                           or make bench)
# Prints the guest's lines, then per bench trigger the ratio slot / BRK of
# the rates, median [min, max] over the rounds.
. "$(dirname "$0")/lib.sh"

calls=${1:-20000}
rounds=${2:-5}
secs=${3:-2}
for v in "$calls" "$rounds" "$secs"; do
	[[ "$v" =~ ^[1-9][0-9]*$ ]] || die "CALLS, ROUNDS and BENCH_SECONDS must be positive numbers, not '$v'"
done
[ "$BASE" = mainline ] || die "the trampoline slots are in the mainline queue: run with BASE=mainline"
if [ "${ICOUNT:-0}" = 1 ]; then
	export VCPUS=1	# guest time counts the instructions of every vCPU
	log "icount: ns are guest instructions"
fi

# ratios OUT.txt: per bench trigger, slot rate / BRK rate of each round,
# median [min, max].
ratios() {
	awk '
		$1 == "brk:" && $2 == "bench" { brk[$3, ++nb[$3]] = $4 }
		$1 == "tramp:" && $2 == "bench" { t = $3; n = ++nt[t]; r[t, n] = $4 / brk[t, n]; trig[t] = 1 }
		END {
			for (t in trig) {
				n = nt[t]
				for (i = 1; i <= n; i++) v[i] = r[t, i]
				for (i = 2; i <= n; i++)
					for (j = i; j > 1 && v[j - 1] > v[j]; j--) { x = v[j]; v[j] = v[j - 1]; v[j - 1] = x }
				med = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
				printf "ratio slot/BRK %s %.2f [%.2f, %.2f] over %d rounds\n", t, med, v[1], v[n], n
			}
		}' "$1" | sort
}

dir=$BUILD/run/tramp-cost$([ "${ICOUNT:-0}" = 1 ] && echo -icount)
GUEST_TIMEOUT=${GUEST_TIMEOUT:-3600} "$ROOT/scripts/guest.sh" patched run "$dir" \
	"/testbed/tramp_cost.sh $calls $rounds $secs" ||
	die "tramp_cost run failed; see $dir"
grep -a -q '^tramp: bench ' "$dir/out.txt" ||
	die "tramp_cost printed no result; see $dir/out.txt"
grep -a -E '^(brk|tramp): ' "$dir/out.txt"
ratios "$dir/out.txt"
