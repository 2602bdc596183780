#!/usr/bin/env bash
# The test part of `make check`: host tests (tests/host/*.sh), then the
# patched kernel booted with job "check" (guest/check.sh runs tests/guest and
# a 1 s run of each bench trigger).  Every test prints TAP; this counts the
# results and ends with "N passed, N failed, N skipped".  Exit 1 if any failed
# or none ran.
# Environment: VCPUS (2), GUEST_TIMEOUT (900 s), TEST_TIMEOUT (600 s, the
# longest one guest test may run); CHECK_FLAVOUR (patched: the kernel
# booted, e.g. patched-debug), HOST_TESTS (1; 0 runs the guest only).
. "$(dirname "$0")/lib.sh"

CHECK_FLAVOUR=${CHECK_FLAVOUR:-patched}
HOST_TESTS=${HOST_TESTS:-1}
TEST_TIMEOUT=${TEST_TIMEOUT:-600}
RUNDIR=$BUILD/run/check-$CHECK_FLAVOUR
TAP=$BUILD/check-$CHECK_FLAVOUR.tap

# count TAPFILE: add the file's results to the totals.
count() {
	skip=$(grep -a -c -E '^ok .*# (SKIP|skip)' "$1" || true)
	fail=$(grep -a -c -E '^not ok ' "$1" || true)
	pass=$(( $(grep -a -c -E '^ok ' "$1" || true) - skip ))
}

# result OK DESC: one TAP line for a check made here.
result() {
	if [ "$1" = 0 ]; then echo "ok - $2"; else echo "not ok - $2"; fi
}

host_tests() {
	local t
	for t in "$ROOT"/tests/host/*.sh; do
		echo "# host: ${t##*/}"
		bash "$t" 2>&1 || echo "not ok - ${t##*/} exited with $?"
	done
}

guest_tests() {
	local rc=0
	echo "# guest: $CHECK_FLAVOUR kernel, job check"
	local init=0
	rm -rf "$RUNDIR"
	"$ROOT/scripts/guest.sh" "$CHECK_FLAVOUR" check "$RUNDIR" "$TEST_TIMEOUT" 2>&1 |
		sed 's/^/# /' || rc=1
	grep -a -q '^TESTBED: init reached' "$RUNDIR/out.txt" 2>/dev/null || init=1
	result $init "guest: boot reaches our init"
	grep -a -E '^(not )?ok |^#' "$RUNDIR/out.txt" 2>/dev/null || true
	result $rc "guest: job finished, kernel log clean (no panic/BUG/WARNING/Oops)"
}

main() {
	mkdir -p "$BUILD"
	ksrc_at queue
	{ [ "$HOST_TESTS" = 0 ] || host_tests; guest_tests; } 2>&1 | tee "$TAP"
	count "$TAP"
	echo "$pass passed, $fail failed, $skip skipped"
	[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
}

main "$@"
