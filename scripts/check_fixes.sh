#!/usr/bin/env bash
# The fixes as stable would take them (`make check-fixes`, BASE=mainline):
# the kernel of the queue up to a fixes series (scripts/kernel.sh
# upto-SERIES: v7.3-rc7 and the series before it in patches/mainline/sets,
# nothing after), booted with the queue's guest programs, runs the
# kselftests of that series (scripts/check.sh, without the host tests):
#   upto-0-gcs-fault  libc-gcs, under a QEMU with FEAT_GCS;
#   upto-1-fixes      uprobe_bti, uprobe_landing, uprobe_ptrace,
#                     uprobe_signal and the differential uprobe_sim (of the
#                     later series: the fixes must keep its cases exact
#                     where they step; under QEMU 10 it expects CB<cc>
#                     refused, as 1-fixes does), then uprobe_gcs,
#                     uprobe_landing and libc-gcs under a QEMU with FEAT_GCS
#                     and FEAT_CMPBR (not uprobe_sim: with FEAT_CMPBR it
#                     expects CB<cc> simulated, which series 2 adds).
# Each boot's TAP is in build/BASE/check-upto-SERIES.tap, with its summary;
# exit 1 if any failed.
. "$(dirname "$0")/lib.sh"

[ "$BASE" = mainline ] || die "check-fixes runs on BASE=mainline (the fixes series of patches/mainline/sets)"

# fixes SERIES GUEST_TESTS NEW_CPU_TESTS: build upto-SERIES and run them.
fixes() {
	"$ROOT/scripts/kernel.sh" "upto-$1" || return 1
	CHECK_FLAVOUR="upto-$1" HOST_TESTS=0 GUEST_TESTS="$2" OLD_CPU_TESTS="" \
		NEW_CPU_TESTS="$3" "$ROOT/scripts/check.sh"
}

rc=0
fixes 0-gcs-fault "libc-gcs" "libc-gcs" || rc=1
fixes 1-fixes "uprobe_bti uprobe_landing uprobe_ptrace uprobe_signal uprobe_sim" \
	"uprobe_gcs uprobe_landing libc-gcs" || rc=1
exit $rc
