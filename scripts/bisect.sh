#!/usr/bin/env bash
# Bisectability: build the tree at the base and after each patch of the
# queue in turn, incrementally, so that only what a patch changes is rebuilt
# (the build worktree build/BASE/src, one object folder per arch beside
# build/BASE/obj, so that ccache serves what the kernel builds of make check
# compiled):
#   arm64   Image (tinyconfig + config/uprobes.config), always;
#   x86_64  bzImage (the same fragments without debug info), at the base and
#           after each patch that touches generic code (outside arch/ and
#           Documentation/) or tools/;
#   the arm64 uprobes kselftest, when a patch touches it;
#   selftests/bpf bench for arm64 and x86_64, when a patch touches
#           selftests/bpf (BPF objects against the BTF of that commit's arm64
#           vmlinux).
# TAP output (scripts/lib.sh tap), one line per build; build logs in
# build/BASE/logs/bisect-*.log.
# Environment: BISECT_X86 (1; 0 skips the x86_64 builds, and says so);
# BISECT=objects builds only the objects of the C files each patch touches
# (no base, no Image, no bench: minutes instead of most of an hour when
# patches touch widely included headers; what make check runs).
. "$(dirname "$0")/lib.sh"

WT=$KSRC
OBJ_ARM64=$BUILD/bisect-obj-arm64
OBJ_X86=$BUILD/bisect-obj-x86_64
BISECT_X86=${BISECT_X86:-1}
BISECT=${BISECT:-full}
n=0

# configure ARCH CROSS OBJ: tinyconfig + fragments, again only when the
# commit changed a Kconfig file (olddefconfig alone would drop the options
# a later patch adds).
configure() {
	local arch=$1 cross=$2 obj=$3 frags
	kernel_fragments frags
	[ "$arch" = arm64 ] || frags+=("$ROOT/config/no-debug-info.config")
	kconfig_merge "$WT" "$obj" "$arch" "$cross" "${frags[@]}"
}

# kbuild ARCH CROSS OBJ TARGETS LOG: configure and build TARGETS (one or
# more make targets, whitespace-separated); 0 if they built.
kbuild() {
	local arch=$1 cross=$2 obj=$3 targets=$4 logf=$5
	# shellcheck disable=SC2086 # TARGETS is a list
	{
		configure "$arch" "$cross" "$obj" &&
		make -C "$WT" O="$obj" ARCH="$arch" CROSS_COMPILE="$cross" \
			CC="ccache ${cross}gcc" -j"$JOBS" $targets
	} >"$logf" 2>&1
}

# objects FILES: the .o targets of the C files among FILES (not tools/).
objects() {
	printf '%s\n' "$@" | grep -E '\.c$' | grep -v '^tools/' | sed 's/\.c$/.o/' || true
}

# bench ARCH CROSS VMLINUX LOG: selftests/bpf bench (and UAPI headers).
bench() {
	local arch=$1 cross=$2 vmlinux=$3 logf=$4
	bpf_bench "$WT" "$arch" "$cross" "$vmlinux" "$BUILD/bisect-hdrs-$arch" \
		"$BUILD/bisect-uapi-$arch" "$BUILD/bisect-bpf-$arch" >"$logf" 2>&1
}

# needs_x86 FILES: 0 if a file is generic code or tools (outside arch/ and
# Documentation/).
needs_x86() {
	printf '%s\n' "$@" | grep -q -v -E '^(arch|Documentation)/|^$'
}

# step COMMIT: check out COMMIT and build what it touches; TAP lines.
# The base builds x86_64 too when any patch will (so later builds are
# incremental, and a failure is the patch's).
step() {
	local c=$1 what subj rc t0 x86=0 files=() changed
	ksrc_at "$c"
	if [ "$n" = 0 ]; then
		what="base"
		mapfile -t changed < <(git -C "$WT" diff --name-only base queue)
		needs_x86 "${changed[@]}" && x86=1
	else
		what="patch $n"
		mapfile -t files < <(git -C "$WT" diff-tree --no-commit-id --name-only -r "$c")
		needs_x86 "${files[@]}" && x86=1
	fi
	subj=$(git -C "$WT" log -1 --format=%s)
	log "$what: $subj"

	local arm_t=Image x86_t=bzImage generic
	if [ "$BISECT" = objects ]; then
		arm_t=$(objects "${files[@]}")
		mapfile -t generic < <(printf '%s\n' "${files[@]}" | grep -v '^arch/' || true)
		x86_t=$(objects "${generic[@]}")
	fi
	if [ -n "$arm_t" ]; then
		t0=$SECONDS rc=0
		kbuild arm64 "$CROSS_COMPILE" "$OBJ_ARM64" "$arm_t" "$BUILD/logs/bisect-$n-arm64.log" || rc=1
		tap $rc "bisect: $what builds (arm64 ${arm_t//$'\n'/ }, $((SECONDS - t0))s): $subj" \
			"log: ${BUILD#"$ROOT"/}/logs/bisect-$n-arm64.log"
	fi
	if [ "$x86" = 1 ] && [ -n "$x86_t" ] && [ "$BISECT_X86" = 1 ]; then
		t0=$SECONDS rc=0
		kbuild x86_64 "" "$OBJ_X86" "$x86_t" "$BUILD/logs/bisect-$n-x86_64.log" || rc=1
		tap $rc "bisect: $what builds (x86_64 ${x86_t//$'\n'/ }, $((SECONDS - t0))s): $subj" \
			"log: ${BUILD#"$ROOT"/}/logs/bisect-$n-x86_64.log"
	elif [ "$x86" = 1 ] && [ -n "$x86_t" ]; then
		tap_skip "bisect: $what x86_64 build" "BISECT_X86=0"
	fi
	if printf '%s\n' "${files[@]}" | grep -q '^tools/testing/selftests/arm64/uprobes/'; then
		t0=$SECONDS rc=0
		make -C "$WT/tools/testing/selftests/arm64" ARCH=arm64 CROSS_COMPILE="$CROSS_COMPILE" \
			ARM64_SUBTARGETS=uprobes OUTPUT="$BUILD/bisect-selftests" \
			KHDR_INCLUDES="-isystem $BUILD/uapi-headers/include" \
			>"$BUILD/logs/bisect-$n-kselftest.log" 2>&1 || rc=1
		tap $rc "bisect: $what builds (arm64 uprobes kselftest, $((SECONDS - t0))s): $subj" \
			"log: ${BUILD#"$ROOT"/}/logs/bisect-$n-kselftest.log"
	fi
	if [ "$BISECT" = full ] && printf '%s\n' "${files[@]}" | grep -q '^tools/testing/selftests/bpf/'; then
		t0=$SECONDS rc=0
		bench arm64 "$CROSS_COMPILE" "$OBJ_ARM64/vmlinux" "$BUILD/logs/bisect-$n-bench-arm64.log" || rc=1
		tap $rc "bisect: $what builds (selftests/bpf bench, arm64, $((SECONDS - t0))s): $subj" \
			"log: ${BUILD#"$ROOT"/}/logs/bisect-$n-bench-arm64.log"
		if [ "$BISECT_X86" = 1 ]; then
			t0=$SECONDS rc=0
			bench x86_64 "" "$OBJ_ARM64/vmlinux" "$BUILD/logs/bisect-$n-bench-x86_64.log" || rc=1
			tap $rc "bisect: $what builds (selftests/bpf bench, x86_64, $((SECONDS - t0))s): $subj" \
				"log: ${BUILD#"$ROOT"/}/logs/bisect-$n-bench-x86_64.log"
		fi
	fi
}

main() {
	local c t0=$SECONDS
	need_cmd gcc "${CROSS_COMPILE}gcc" ccache pahole clang
	mkdir -p "$BUILD/logs"
	git -C "$KREPO" worktree remove -f "$BUILD/bisect" >/dev/null 2>&1 || true
	trap 'ksrc_at queue' EXIT
	case $BISECT in
	full) step "$(git -C "$KREPO" rev-parse base)" ;;
	objects) ;;
	*) die "BISECT must be full or objects, not '$BISECT'" ;;
	esac
	for c in $(git -C "$KREPO" rev-list --reverse base..queue); do
		n=$((n + 1))
		step "$c"
	done
	echo "# bisect: base + $n patches built in $((SECONDS - t0))s"
}

main "$@"
