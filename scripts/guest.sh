#!/usr/bin/env bash
# Boot a built kernel with the test initramfs under qemu-system-aarch64 (TCG)
# and run one guest job.
#   scripts/guest.sh FLAVOUR JOB OUTDIR [JOB-ARGS...]
# FLAVOUR: a kernel in build/BASE/images (baseline, patched, ...); JOB: check or
# bench (guest/init).  Writes OUTDIR/console.log (serial: kernel log) and
# OUTDIR/out.txt (virtio console: the job's output).
# Environment: VCPUS (2), GUEST_MEM (1024, MiB), GUEST_TIMEOUT (900, s),
# QEMU_CPU (max,pauth-impdef=on), QEMU_MACHINE (virt,mte=on,gic-version=3;
# a CPU without MTE needs it without mte=on), ICOUNT (0; 1: guest time
# counts guest instructions, 1 ns each, of all vCPUs: -icount shift=0,
# single-threaded TCG; use it with VCPUS=1 to time one task), QEMU
# (qemu-system-aarch64: the emulator to run, e.g. scripts/qemu_gcs.sh's),
# GUEST_CMDLINE (more kernel parameters, e.g. arm64.nobti), TCG_THREAD
# (multi: one host thread per vCPU; single: the vCPUs take turns on one
# thread, which `make check` uses, see docs/tests.md: QEMU's multi-threaded
# TCG runs stale code after one vCPU rewrites code in a page that another
# executes, as uprobes' XOL slots do).
# Exit: 0 when the job ran and the kernel log is clean; otherwise a message
# naming the cause (timeout and stage, no init, panic/BUG/WARNING/Oops) and 1.
. "$(dirname "$0")/lib.sh"

flavour=${1:?usage: guest.sh FLAVOUR JOB OUTDIR [ARGS...]}
job=${2:?job}
outdir=${3:?outdir}
shift 3
VCPUS=${VCPUS:-2}
GUEST_MEM=${GUEST_MEM:-1024}
GUEST_TIMEOUT=${GUEST_TIMEOUT:-900}
QEMU_CPU=${QEMU_CPU:-max,pauth-impdef=on}
QEMU_MACHINE=${QEMU_MACHINE:-virt,mte=on,gic-version=3}
ICOUNT=${ICOUNT:-0}
TCG_THREAD=${TCG_THREAD:-multi}
QEMU=${QEMU:-qemu-system-aarch64}

# Kernel log lines that fail any run.
SPLAT_RE='Kernel panic|BUG:|WARNING:|Oops|Unable to handle kernel|Internal error:|Call trace:|KASAN:|UBSAN:|possible circular locking|inconsistent lock state'

# last_stage: the last stage the guest announced, for timeout messages.
last_stage() {
	grep -a -E '^TESTBED(-STAGE)?:' "$outdir/out.txt" 2>/dev/null | tail -n1 || true
}

main() {
	need_cmd "$QEMU" timeout
	local image=$IMAGES/$flavour/Image initrd=$BUILD/initramfs.cpio.gz rc=0 args
	local accel=(-accel "tcg,thread=$TCG_THREAD") mode=""
	case $TCG_THREAD in
	multi) ;;
	single) mode=", single-threaded TCG" ;;
	*) die "TCG_THREAD must be multi or single, not '$TCG_THREAD'" ;;
	esac
	if [ "$ICOUNT" = 1 ]; then
		accel=(-accel tcg -icount "shift=0,sleep=off")
		mode=", icount"
	fi
	[ -f "$image" ] || die "no $flavour kernel (build/$BASE/images/$flavour/Image): run scripts/kernel.sh $flavour"
	[ -f "$initrd" ] || die "no initramfs: run scripts/rootfs.sh"
	mkdir -p "$outdir"
	rm -f "$outdir/console.log" "$outdir/out.txt"
	args=$(IFS=,; echo "$*")
	args=${args// /,}
	log "booting $flavour ($VCPUS vCPUs, $QEMU_CPU$mode${GUEST_CMDLINE:+, $GUEST_CMDLINE}), job $job${args:+ ($*)}, timeout ${GUEST_TIMEOUT}s"
	timeout --foreground --kill-after=10 "$GUEST_TIMEOUT" "$QEMU" \
		-M "$QEMU_MACHINE" -cpu "$QEMU_CPU" -smp "$VCPUS" -m "$GUEST_MEM" \
		"${accel[@]}" \
		-kernel "$image" -initrd "$initrd" \
		-append "console=ttyAMA0 panic=-1 oops=panic loglevel=6 testbed.job=$job testbed.args=$args${GUEST_CMDLINE:+ $GUEST_CMDLINE}" \
		-display none -monitor none -no-reboot -nic none \
		-serial "file:$outdir/console.log" \
		-device virtio-serial-device \
		-chardev "file,id=out,path=$outdir/out.txt" -device virtconsole,chardev=out \
		</dev/null || rc=$?
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		die "$flavour guest timed out after ${GUEST_TIMEOUT}s and was killed; last stage: '$(last_stage)' (logs in $outdir)"
	fi
	[ "$rc" -eq 0 ] || die "${QEMU##*/} failed (exit $rc); see $outdir/console.log"
	if grep -a -q -E "$SPLAT_RE" "$outdir/console.log"; then
		grep -a -E "$SPLAT_RE" "$outdir/console.log" | head -n 5 >&2
		die "$flavour kernel log has a panic/BUG/WARNING/Oops (see $outdir/console.log)"
	fi
	grep -a -q '^TESTBED: init reached' "$outdir/out.txt" 2>/dev/null ||
		die "$flavour guest never reached init (see $outdir/console.log)"
	grep -a -q '^TESTBED: job done' "$outdir/out.txt" ||
		die "$flavour guest stopped before the job finished; last stage: '$(last_stage)' (see $outdir/console.log)"
	grep -a -q '^TESTBED: job done rc=0' "$outdir/out.txt" ||
		die "$flavour guest job $job failed ($(grep -a '^TESTBED: job done' "$outdir/out.txt")); see $outdir/out.txt"
	log "$flavour guest: job $job finished ($(grep -a '^TESTBED: job done' "$outdir/out.txt"))"
}

main "$@"
