#!/usr/bin/env bash
# Build check after each patch of the queue (bisectability), cheap version:
# in a worktree at each commit of base..queue, compile the kernel objects of
# the C files that the patch touches, for arm64 (our config) and, for files
# outside arch/, also for x86_64 (x86_64 tinyconfig + the same fragment);
# and build the kselftest or bench that the patch touches (arm64).
# The full arm64 kernel of the whole series is what `make check` builds.
# TAP output, one line per patch and arch.
. "$(dirname "$0")/lib.sh"

WT=$BUILD/bisect

# configure_obj ARCH CROSS OBJ: tinyconfig + our fragment, once.
configure_obj() {
	local arch=$1 cross=$2 obj=$3 want
	want=$(sha256sum < "$ROOT/config/uprobes.config")
	[ -f "$obj/.config" ] && [ "$(cat "$obj/.testbed-fragments" 2>/dev/null)" = "$want" ] && return
	kconfig_merge "$WT" "$obj" "$arch" "$cross" "$ROOT/config/uprobes.config"
	echo "$want" > "$obj/.testbed-fragments"
}

# objs ARCH CROSS OBJ FILE.c...: compile the objects, quietly; 0 if all built.
objs() {
	local arch=$1 cross=$2 obj=$3
	shift 3
	configure_obj "$arch" "$cross" "$obj"
	make -s -C "$WT" O="$obj" ARCH="$arch" CROSS_COMPILE="$cross" \
		CC="ccache ${cross}gcc" -j"$JOBS" olddefconfig "${@/%.c/.o}"
}

main() {
	local n=0 c subj files kfiles generic rc
	need_cmd gcc "${CROSS_COMPILE}gcc" ccache
	git -C "$KREPO" worktree remove -f "$WT" >/dev/null 2>&1 || rm -rf "$WT"
	git -C "$KREPO" worktree prune
	git -C "$KREPO" worktree add -q --detach "$WT" base
	for c in $(git -C "$KREPO" rev-list --reverse base..queue); do
		n=$((n + 1))
		git -C "$WT" checkout -q --detach "$c"
		subj=$(git -C "$WT" log -1 --format=%s)
		files=$(git -C "$WT" diff-tree --no-commit-id --name-only --diff-filter=d -r "$c")
		kfiles=$(printf '%s\n' $files | grep -E '\.c$' | grep -v '^tools/' || true)
		generic=$(printf '%s\n' $kfiles | grep -v '^arch/' || true)
		rc=0
		if [ -n "$kfiles" ]; then
			objs arm64 "$CROSS_COMPILE" "$BUILD/bisect-obj-arm64" $kfiles \
				>"$BUILD/logs/bisect-$n-arm64.log" 2>&1 || rc=1
			echo "$( [ $rc = 0 ] && echo ok || echo not ok ) - bisect: patch $n builds (arm64 objects): $subj"
		fi
		if [ -n "$generic" ]; then
			rc=0
			objs x86_64 "" "$BUILD/bisect-obj-x86_64" $generic \
				>"$BUILD/logs/bisect-$n-x86_64.log" 2>&1 || rc=1
			echo "$( [ $rc = 0 ] && echo ok || echo not ok ) - bisect: patch $n builds (x86_64 objects): $subj"
		fi
		if printf '%s\n' $files | grep -q '^tools/testing/selftests/arm64/uprobes/'; then
			rc=0
			make -s -C "$WT/tools/testing/selftests/arm64" ARCH=arm64 CROSS_COMPILE="$CROSS_COMPILE" \
				ARM64_SUBTARGETS=uprobes OUTPUT="$BUILD/bisect-selftests" \
				KHDR_INCLUDES="-isystem $BUILD/uapi-headers/include" \
				>"$BUILD/logs/bisect-$n-selftest.log" 2>&1 || rc=1
			echo "$( [ $rc = 0 ] && echo ok || echo not ok ) - bisect: patch $n builds (arm64 uprobes kselftest): $subj"
		fi
	done
	git -C "$KREPO" worktree remove -f "$WT"
}

main "$@"
