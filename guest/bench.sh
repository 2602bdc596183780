#!/bin/bash
# Guest side of `make bench`: run the upstream benchs/run_bench_uprobes.sh,
# passing our arguments through to ./bench (e.g. -w1 -d3 -p2).
set -euo pipefail
cd /testbed/bpf
echo "TESTBED-BENCH-BEGIN"
./benchs/run_bench_uprobes.sh "$@"
# a uprobe on a Go function entry (ldr x16, [x28, #16]), same format
/testbed/gowork.sh bench 50000
echo "TESTBED-BENCH-END"
