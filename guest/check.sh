#!/bin/bash
# Guest side of `make check`: run every guest test; each prints TAP
# (kselftest format).  The host counts the "ok"/"not ok" lines and scans the
# kernel log.  Arguments: [SECONDS [TEST...]]: the longest one test may run
# (600; more on a debug kernel), and the tests of /testbed/tests to run
# (all, and then the Go, KUnit and bench checks, when none is named;
# "kunit" names the KUnit results).
set -uo pipefail
cd /testbed || exit 1
test_timeout=${1:-600}
[ $# -eq 0 ] || shift

# stage NAME: mark progress so a host timeout can say where the guest hung.
stage() { echo "TESTBED-STAGE: $1"; }

# What the emulated CPU offers decides which cases can run (e.g. gcs,
# poe, mte3); the log says so.
echo "# cpu features: $(awk -F': ' '/^Features/ { print $2; exit }' /proc/cpuinfo)"

# run_test PATH: run one test; one that crashes or hangs fails, and
# kselftest's exit code 4 is a skip.
run_test() {
	local t=$1 rc=0
	stage "${t##*/}"
	timeout "$test_timeout" "$t" || rc=$?
	case $rc in
	0) ;;
	4) echo "ok - ${t##*/} # SKIP (exit 4)" ;;
	124 | 143) echo "not ok - ${t##*/} timed out after ${test_timeout}s (exit $rc)" ;;
	*) echo "not ok - ${t##*/} exited with $rc" ;;
	esac
}

# kunit_results: the results of the KUnit suites built into the kernel,
# which ran at boot, from debugfs.  The suites the series adds must be
# there.
kunit_results() {
	local suite r
	# shellcheck disable=SC2043 # a list of one suite so far
	for suite in arm64_probes; do
		[ -r "/sys/kernel/debug/kunit/$suite/results" ] ||
			echo "not ok - kunit: suite $suite did not run"
	done
	for r in /sys/kernel/debug/kunit/*/results; do
		[ -r "$r" ] || continue
		# per-case lines, and a failed suite (e.g. one whose init failed)
		sed -n -e 's/^ \{1,\}\(\(not \)\{0,1\}ok [0-9]\{1,\} \)/\1kunit: /p' \
		       -e 's/^\(not ok [0-9]\{1,\} \)/\1kunit suite: /p' "$r"
	done
}

if [ $# -gt 0 ]; then
	for t in "$@"; do
		if [ "$t" = kunit ]; then
			stage kunit
			kunit_results
		elif [ -x "tests/$t" ]; then
			run_test "tests/$t"
		else
			echo "not ok - $t: no such guest test in /testbed/tests"
		fi
	done
	exit 0
fi

ntests=0
for t in tests/*; do
	[ -x "$t" ] || continue
	ntests=$((ntests + 1))
	run_test "$t"
done
[ "$ntests" -gt 0 ] || echo "not ok - no guest tests found in /testbed/tests"

# A Go program, probed on a function entry (ldr x16, [x28, #16]).
stage gowork
/testbed/gowork.sh check 20000 || echo "not ok - gowork.sh exited with $?"

# KUnit suites built into the kernel ran at boot.
stage kunit
kunit_results

# bench refuses to measure a target that does not start with the
# instruction its benchmark is named for (bench-wrong-target: uprobe-nop's
# target starts with "yield"; scripts/userland.sh).
stage bench-refuses
cd /testbed/bpf || exit 1
if out=$(./bench-wrong-target -w1 -d1 -a trig-uprobe-nop 2>&1); then
	echo "not ok - bench measured a uprobe-nop target that starts with yield"
elif echo "$out" | grep -q "not what the benchmark is named for"; then
	echo "ok - bench refuses a uprobe-nop target that starts with yield"
else
	echo "not ok - bench-wrong-target failed for another reason: $(echo "$out" | tail -n1)"
fi
cd /testbed || exit 1

# Each bench trigger runs for 1 s with a non-zero rate.
stage bench-smoke
cd /testbed/bpf || exit 1
n=0
for trig in usermode-count syscall-count {uprobe,uretprobe}-{nop,push,ret,xol} uprobe-sub; do
	n=$((n + 1))
	out=$(./bench -w1 -d1 -a "trig-$trig" 2>&1 || true)
	line=$(echo "$out" | grep '^Summary' || true)
	rate=$(echo "$line" | awk '{print $3}')
	if [ -n "$rate" ] && awk -v r="$rate" 'BEGIN { exit !(r > 0) }'; then
		echo "ok $n bench trig-$trig: $rate M/s"
	else
		echo "not ok $n bench trig-$trig: no rate (${line:-no summary})"
		echo "$out" | tail -n 5 | sed 's/^/# /'
	fi
done
