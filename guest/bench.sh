#!/bin/bash
# Guest side of `make bench`: run the upstream benchs/run_bench_uprobes.sh,
# passing our arguments through to ./bench (e.g. -w1 -d3 -p2).
set -euo pipefail
cd /testbed/bpf
echo "TESTBED-BENCH-BEGIN"
./benchs/run_bench_uprobes.sh "$@"
echo "TESTBED-BENCH-END"
