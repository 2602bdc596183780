#!/usr/bin/env bash
# Stepped-uprobe scaling, baseline against patched: bench trig-uprobe-xol with
# 1..P producers (-p), RUNS boots per kernel and producer count, kernels
# booted alternately.  A measurement, not a test: prints a table, after
# "# key: value" lines that say what it ran on (scripts/lib.sh provenance).
#   scripts/scaling.sh [PRODUCERS...]      (default: 1 2; VCPUS=2, RUNS=3)
. "$(dirname "$0")/lib.sh"

RUNS=${RUNS:-3}
TRIGGER=${TRIGGER:-uprobe-xol}
prods=("${@:-1}")
[ $# -gt 0 ] || prods=(1 2)

# rate KERNEL P RUN: the Summary hits rate (M/s) of one guest run.
rate() {
	local dir=$BUILD/run/scaling/$1-p$2-$3 r
	"$ROOT/scripts/guest.sh" "$1" run "$dir" "cd /testbed/bpf && ./bench -w1 -d3 -p $2 -a trig-$TRIGGER" >/dev/null 2>&1 ||
		die "guest run failed: $1 -p $2 (see $dir)"
	r=$(grep -a '^Summary' "$dir/out.txt" | awk '{ print $3 }')
	[ -n "$r" ] || die "bench printed no rate: $1 -p $2 (see $dir/out.txt)"
	echo "$r"
}

provenance runs="$RUNS" trigger="$TRIGGER" producers="${prods[*]}" vcpus="${VCPUS:-2}"
printf '%-4s %-28s %-28s %s\n' "-p" "baseline M/s med [min,max]" "patched M/s med [min,max]" "ratio med [min,max]"
for p in "${prods[@]}"; do
	b=() q=()
	for run in $(seq 1 "$RUNS"); do
		b+=("$(rate baseline "$p" "$run")")
		q+=("$(rate patched "$p" "$run")")
	done
	python3 - "$p" "${b[*]}" "${q[*]}" <<'PY'
import statistics as st, sys
p, b, q = sys.argv[1], list(map(float, sys.argv[2].split())), list(map(float, sys.argv[3].split()))
r = [y / x for x, y in zip(b, q)]
f = lambda v: "%.4g [%.4g, %.4g]" % (st.median(v), min(v), max(v))
print("%-4s %-28s %-28s %s" % (p, f(b), f(q), "%.3f [%.3f, %.3f]" % (st.median(r), min(r), max(r))))
PY
done
