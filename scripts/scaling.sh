#!/usr/bin/env bash
# Stepped-uprobe scaling, baseline against patched: bench trig-uprobe-xol with
# 1..P producers (-p), RUNS boots per kernel and producer count, kernels
# booted alternately (lib.sh abab; logs in build/BASE/run/scaling/pP/).  A
# measurement, not a test: prints a table, after "# key: value" lines that
# say what it ran on (scripts/lib.sh provenance).
#   scripts/scaling.sh [PRODUCERS...]      (default: 1 2; VCPUS=2, RUNS=3)
. "$(dirname "$0")/lib.sh"

RUNS=${RUNS:-3}
TRIGGER=${TRIGGER:-uprobe-xol}
GUEST_TIMEOUT=${GUEST_TIMEOUT:-900}
prods=("$@")
[ $# -gt 0 ] || prods=(1 2)

# parse OUT.txt RUN KERNEL: "KERNEL RATE", the bench's Summary hits rate (M/s).
parse() {
	awk -v k="$3" '/^Summary/ { print k, $3; exit }' "$1"
}

provenance runs="$RUNS" trigger="$TRIGGER" producers="${prods[*]}" vcpus="${VCPUS:-2}"
printf '%-4s %-28s %-28s %s\n' "-p" "baseline M/s med [min,max]" "patched M/s med [min,max]" "ratio med [min,max]"
for p in "${prods[@]}"; do
	rows=$(ABAB_NAME=scaling/p$p abab run parse "cd /testbed/bpf && ./bench -w1 -d3 -p $p -a trig-$TRIGGER")
	python3 - "$p" "$(awk '$1 == "baseline" { print $2 }' <<<"$rows" | xargs)" \
		"$(awk '$1 == "patched" { print $2 }' <<<"$rows" | xargs)" <<'PY'
import statistics as st, sys
p, b, q = sys.argv[1], list(map(float, sys.argv[2].split())), list(map(float, sys.argv[3].split()))
r = [y / x for x, y in zip(b, q)]
f = lambda v: "%.4g [%.4g, %.4g]" % (st.median(v), min(v), max(v))
print("%-4s %-28s %-28s %s" % (p, f(b), f(q), "%.3f [%.3f, %.3f]" % (st.median(r), min(r), max(r))))
PY
done
