#!/usr/bin/env bash
# The test part of `make check`: host tests (tests/host/*.sh), then the
# patched kernel booted with job "check" (guest/check.sh runs tests/guest and
# a 1 s run of each bench trigger).  Every test prints TAP, kept in
# build/BASE/check-FLAVOUR.tap; scripts/tap_summary.py then counts it by boot
# and suite, lists the failures with the log each one's output is in, and
# ends with "N passed, N failed, N skipped".  Exit 1 if any failed or none
# ran.
# Environment: VCPUS (2), TCG_THREAD (single, see below), GUEST_TIMEOUT
# (900 s), TEST_TIMEOUT (600 s, the longest one guest test may run);
# CHECK_FLAVOUR (patched: the kernel booted, e.g. patched-debug),
# HOST_TESTS (1; 0 runs the guest only), GUEST_TESTS (the tests of the
# first boot; empty: all of them).
# On a base with GCS_QEMU_SUITE (config/base/BASE.env), the kernel boots a
# second time, under a newer QEMU (scripts/qemu_gcs.sh) whose CPU has what
# the first one's lacks (NEW_CPU_FEATURES: FEAT_GCS, FEAT_CMPBR), for the
# tests that need it (NEW_CPU_TESTS).  Every base also boots once on an
# older CPU model (OLD_CPU, Armv8.2: no FEAT_HBC, LSE2, PAC, BTI or MTE) for
# OLD_CPU_TESTS, where the decoder must refuse what that CPU does not
# define and the differential tests run without those features.
. "$(dirname "$0")/lib.sh"

CHECK_FLAVOUR=${CHECK_FLAVOUR:-patched}
# Every boot runs its vCPUs on one host thread: QEMU's multi-threaded TCG
# runs stale code after one vCPU rewrites code in a page that another
# executes (uprobes' XOL slots share a page), which made uprobe_stress
# fail on Debian's own 6.12 kernel as well; the guest test emu_xmodify
# checks the emulator for it.  It costs nothing measurable
# (the 6.12 guest job: 92 s either way).
export TCG_THREAD=${TCG_THREAD:-single}
HOST_TESTS=${HOST_TESTS:-1}
TEST_TIMEOUT=${TEST_TIMEOUT:-600}
RUNDIR=$BUILD/run/check-$CHECK_FLAVOUR
TAP=$BUILD/check-$CHECK_FLAVOUR.tap
NEW_CPU_TESTS=${NEW_CPU_TESTS:-uprobe_gcs uprobe_sim libc-gcs}
NEW_CPU_FEATURES="gcs cmpbr"
OLD_CPU=${OLD_CPU:-cortex-a76}
OLD_CPU_TESTS=${OLD_CPU_TESTS-kunit uprobe_sim}
OLD_CPU_LACKS="hbc uscat"

host_tests() {
	local t
	for t in "$ROOT"/tests/host/*.sh; do
		echo "# host: ${t##*/}"
		bash "$t" 2>&1 || tap 1 "${t##*/} exited with $?"
	done
}

# boot_header LABEL DIR DESCRIPTION: the TAP comments that start a boot's
# results: what it runs, then its short name LABEL and its logs' folder DIR
# (scripts/tap_summary.py groups the results by them).
boot_header() {
	echo "# guest: $3"
	echo "# boot: $1, logs in ${2#"$ROOT"/}"
}

# guest_tap OUT.txt: the TAP lines and comments of a guest's output, with
# "# suite: NAME" where the guest started test NAME (its TESTBED-STAGE
# line), so that the summary counts each test apart.
guest_tap() {
	grep -a -E '^(not )?ok |^#|^TESTBED-STAGE: ' "$1" 2>/dev/null |
		sed 's/^TESTBED-STAGE: /# suite: /' || true
}

# boot_check LABEL DIR [TEST...]: boot the kernel with job check (all
# tests, or the named ones) under $QEMU, logs in DIR; its TAP, and TAP
# lines for the boot and the job, named LABEL (suite "boot").
boot_check() {
	local label=$1 dir=$2 rc=0 init=0
	shift 2
	rm -rf "$dir"
	"$ROOT/scripts/guest.sh" "$CHECK_FLAVOUR" check "$dir" "$TEST_TIMEOUT" "$@" 2>&1 |
		sed 's/^/# /' || rc=1
	grep -a -q '^TESTBED: init reached' "$dir/out.txt" 2>/dev/null || init=1
	tap $init "$label: boot reaches our init"
	guest_tap "$dir/out.txt"
	echo "# suite: boot"
	tap $rc "$label: job finished, kernel log clean (no panic/BUG/WARNING/Oops)"
}

guest_tests() {
	boot_header guest "$RUNDIR" "$CHECK_FLAVOUR kernel, job check${GUEST_TESTS:+: $GUEST_TESTS}"
	# shellcheck disable=SC2086 # a list of tests
	boot_check guest "$RUNDIR" ${GUEST_TESTS:-}
}

# cpu_features DIR: the features the guest of DIR listed for its CPU
# (guest/check.sh's "# cpu features:" line, without the CR the virtio
# console ends lines with); nothing if it listed none.
cpu_features() {
	awk '/^# cpu features:/ { sub(/\r$/, ""); sub(/^# cpu features: */, ""); print; exit }' \
		"$1/out.txt" 2>/dev/null || true
}

# cpu_check LABEL DIR offers|lacks FEATURE...: a TAP line per FEATURE
# (suite "cpu"), ok if the CPU of the guest of DIR offers (lacks) it; a
# guest that listed no features fails either way.
cpu_check() {
	local label=$1 dir=$2 want=$3 features f ok
	shift 3
	echo "# suite: cpu"
	features=$(cpu_features "$dir")
	for f in "$@"; do
		ok=1
		case " $features " in
		*" $f "*) [ "$want" = lacks ] || ok=0 ;;
		*) [ "$want" = offers ] || [ -z "$features" ] || ok=0 ;;
		esac
		tap $ok "$label: the CPU $want $f"
	done
}

# new_cpu_tests: NEW_CPU_TESTS on the same kernel under the QEMU of
# GCS_QEMU_SUITE; bookworm-backports' QEMU, which runs the rest, has none
# of NEW_CPU_FEATURES.  The guest CPU must offer each, or the run fails
# (the tests alone would only skip).
new_cpu_tests() {
	local qemu
	boot_header "new-CPU guest" "$RUNDIR-gcs" \
		"$CHECK_FLAVOUR kernel under a QEMU with $NEW_CPU_FEATURES: $NEW_CPU_TESTS"
	if ! qemu=$("$ROOT/scripts/qemu_gcs.sh"); then
		tap 1 "new-CPU guest: a QEMU from $GCS_QEMU_SUITE (scripts/qemu_gcs.sh)"
		return
	fi
	# shellcheck disable=SC2086 # a list of tests
	QEMU=$qemu boot_check "new-CPU guest" "$RUNDIR-gcs" $NEW_CPU_TESTS
	# shellcheck disable=SC2086 # a list of features
	cpu_check "new-CPU guest" "$RUNDIR-gcs" offers $NEW_CPU_FEATURES
}

# old_cpu_tests: OLD_CPU_TESTS on the same kernel, on OLD_CPU.  The guest
# CPU must lack each of OLD_CPU_LACKS, or the run fails (what the tests
# check there would not be tested).
old_cpu_tests() {
	boot_header "old-CPU guest" "$RUNDIR-old" \
		"$CHECK_FLAVOUR kernel on $OLD_CPU, without $OLD_CPU_LACKS: $OLD_CPU_TESTS"
	# shellcheck disable=SC2086 # a list of tests
	QEMU_CPU=$OLD_CPU QEMU_MACHINE=virt,gic-version=3 \
		boot_check "old-CPU guest" "$RUNDIR-old" $OLD_CPU_TESTS
	# shellcheck disable=SC2086 # a list of features
	cpu_check "old-CPU guest" "$RUNDIR-old" lacks $OLD_CPU_LACKS
}

main() {
	need_cmd python3
	mkdir -p "$BUILD"
	ksrc_at queue
	{
		[ "$HOST_TESTS" = 0 ] || host_tests
		guest_tests
		[ -z "$OLD_CPU_TESTS" ] || old_cpu_tests
		[ -z "${GCS_QEMU_SUITE:-}" ] || new_cpu_tests
	} 2>&1 | tee "$TAP"
	python3 "$ROOT/scripts/tap_summary.py" "$TAP"
}

main "$@"
