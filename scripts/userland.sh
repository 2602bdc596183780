#!/usr/bin/env bash
# Cross-build what runs in the guest, from the queue tree (build/BASE/src at
# branch queue), into build/BASE/guest-bin:
#   bpf/bench, bpf/benchs/run_bench_uprobes.sh  (tools/testing/selftests/bpf,
#       clang for the BPF objects, the tree's libbpf and bpftool; vmlinux BTF
#       of the patched kernel)
#   tests/*  (tests/guest, kselftest.h from the tree)
#   tools/gowork  (tests/guest/go, Debian's Go; scripts/gowork.sh)
# The same bench binary is used on both kernels: the kernel is the variable.
. "$(dirname "$0")/lib.sh"

OUTB=$BUILD/guest-bin
SELFTESTS_OUT=$BUILD/selftests-bpf

build_bench() {
	local vmlinux=$IMAGES/patched/vmlinux
	[ -f "$vmlinux" ] || die "no patched kernel: run scripts/kernel.sh patched first"
	with_progress "$BUILD/logs/bench.log" bpf_bench "$KSRC" arm64 "$CROSS_COMPILE" "$vmlinux" \
		"$BUILD/uapi-headers" "$BUILD/uapi-obj" "$SELFTESTS_OUT"
	mkdir -p "$OUTB/bpf/benchs"
	install -m 0755 "$SELFTESTS_OUT/bench" "$OUTB/bpf/"
	install -m 0755 "$KSRC/tools/testing/selftests/bpf/benchs/run_bench_uprobes.sh" "$OUTB/bpf/benchs/"
}

# The in-tree kselftests that the series adds or that test it, and the
# base's EXTRA_KSELFTESTS (config/base/BASE.env): a folder of
# tools/testing/selftests, all of whose programs are installed, or
# FOLDER:PROGRAM,... for some of them only (arm64/gcs: its assembly-only
# programs run GCS instructions with no check for the CPU's support).
# shellcheck disable=SC2206 # a list
KSELFTESTS=(arm64/uprobes ${EXTRA_KSELFTESTS:-})

# wrong_target_bench: a copy of bench whose uprobe_target_nop starts with
# "yield" instead of "nop", for the test that bench refuses to measure a
# target that does not start with the instruction its benchmark names.
wrong_target_bench() {
	local in=$OUTB/bpf/bench out=$OUTB/bpf/bench-wrong-target addr text off
	addr=$("${CROSS_COMPILE}nm" "$in" | awk '$3 == "uprobe_target_nop" { print $1 }')
	text=$("${CROSS_COMPILE}readelf" -SW "$in" |
	       awk '{ for (i = 1; i < NF; i++) if ($i == ".text") print $(i + 2), $(i + 3) }')
	if [ -z "$addr" ] || [ -z "$text" ]; then
		die "bench has no uprobe_target_nop or .text"
	fi
	off=$(( 0x$addr - 0x${text% *} + 0x${text#* } ))
	[ "$(od -An -tx4 -j "$off" -N4 "$in" | tr -d ' ')" = d503201f ] ||
		die "bench: uprobe_target_nop does not start with nop"
	cp "$in" "$out"
	printf '\x3f\x20\x03\xd5' | dd of="$out" bs=1 seek="$off" conv=notrunc status=none
}

build_tests() {
	local entry t p progs
	rm -rf "$OUTB/tests" "$BUILD/selftests"
	make -s -C "$ROOT/tests/guest" KSRC="$KSRC" CROSS_COMPILE="$CROSS_COMPILE" OUT="$OUTB/tests"
	for entry in "${KSELFTESTS[@]}"; do
		t=${entry%%:*} progs=
		[ "$t" = "$entry" ] || progs=${entry#*:}
		[ -d "$KSRC/tools/testing/selftests/$t" ] || die "the queue has no tools/testing/selftests/$t"
		make -s -C "$KSRC/tools/testing/selftests/${t%%/*}" ARCH=arm64 \
			CROSS_COMPILE="$CROSS_COMPILE" ARM64_SUBTARGETS="${t#*/}" \
			KHDR_INCLUDES="-isystem $BUILD/uapi-headers/include" \
			OUTPUT="$BUILD/selftests/${t%%/*}"
		if [ -z "$progs" ]; then
			find "$BUILD/selftests/$t" -maxdepth 1 -type f -perm -u+x \
				-exec install -m 0755 -t "$OUTB/tests/" {} +
		else
			for p in ${progs//,/ }; do
				install -m 0755 "$BUILD/selftests/$t/$p" "$OUTB/tests/" ||
					die "tools/testing/selftests/$t built no $p"
			done
		fi
	done
}

# Measurement helpers (guest/tools/*.c), not tests: into /testbed/tools.
build_tools() {
	local c
	mkdir -p "$OUTB/tools"
	for c in "$ROOT"/guest/tools/*.c; do
		"${CROSS_COMPILE}gcc" -O2 -Wall -I"$ROOT/tests/guest" -o "$OUTB/tools/$(basename "$c" .c)" \
			"$c" "$ROOT/tests/guest/uprobe_util.c"
	done
}

main() {
	need_cmd "clang$BPF_LLVM" "llvm-strip$BPF_LLVM" "${CROSS_COMPILE}gcc" make
	ksrc_at queue
	timed "building bench (selftests/bpf, arm64)" build_bench
	wrong_target_bench
	timed "building guest tests" build_tests
	build_tools
	timed "building the Go program (tests/guest/go)" "$ROOT/scripts/gowork.sh"
}

main "$@"
