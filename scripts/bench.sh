#!/usr/bin/env bash
# The main job's measuring part: boot the baseline and the patched kernel in
# turn (ABAB..., so that machine noise hits both alike), run the upstream
# benchs/run_bench_uprobes.sh in each, and summarize.
# Needs: both kernels, the initramfs (make bench builds them first).
# Environment: RUNS (3) guest runs per kernel; BENCH_ARGS ("-w2 -d5", passed
# through run_bench_uprobes.sh to bench); VCPUS (2); NOISE_BOUND (0.10: a
# control row's median patched/baseline ratio beyond 1 +- 0.10 flags the
# run NOISY, scripts/report.py).
# Output: results/BASE/bench-raw.csv, bench.csv, bench.png, and
# the table on stdout.  Both CSV files start with "# key: value" lines that
# say what the runs ran on (scripts/lib.sh provenance); bench.csv's last
# one is report.py's verdict on the noise ("# noisy: no (...)", "YES (...)").
. "$(dirname "$0")/lib.sh"

BENCH_ARGS=${BENCH_ARGS:--w2 -d5}

# parse OUT.txt RUN KERNEL: print CSV rows "run,kernel,trigger,rate".
parse() {
	awk -v run="$2" -v k="$3" '
		/^TESTBED-BENCH-BEGIN/ { on = 1; next }
		/^TESTBED-BENCH-END/ { on = 0 }
		# "uprobe-nop     :  0.03558 ± 0.00081M/s" (run_bench_uprobes.sh)
		on && /^[a-z0-9-]+ *: +[0-9.]+ / {
			split($0, f, ":")
			split(f[2], v, " ")
			print run "," k "," $1 "," v[1]
		}' "$1"
}

main() {
	need_cmd python3 gnuplot
	local raw=$BUILD/bench-raw.csv.tmp
	mkdir -p "$RESULTS"
	{
		provenance runs="${RUNS:-3}" bench_args="$BENCH_ARGS" vcpus="${VCPUS:-2}"
		echo "run,kernel,trigger,rate"
	} > "$raw"
	# shellcheck disable=SC2086 # BENCH_ARGS is a list of words
	abab bench parse $BENCH_ARGS >> "$raw"
	mv "$raw" "$RESULTS/bench-raw.csv"
	python3 "$ROOT/scripts/report.py" "$RESULTS/bench-raw.csv" "$RESULTS/bench.csv" "$RESULTS/bench.png"
	log "results in results/$BASE/: bench.csv, bench-raw.csv, bench.png"
}

main "$@"
