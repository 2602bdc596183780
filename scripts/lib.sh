# shellcheck shell=bash
# Common helpers for the scripts in this folder.  Source it; do not run it.
# Every script that sources this runs under `set -euo pipefail`.

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
# The kernel repository (base commit + one commit per patch, branch "series"
# for editing) and the worktree that builds use (the queue in patches/;
# KSRC= another worktree of build/linux, to build beside a running build).
KREPO=$BUILD/linux
KSRC=${KSRC:-$BUILD/src}
KOBJ=$BUILD/obj
IMAGES=$BUILD/images
CROSS_COMPILE=${CROSS_COMPILE:-aarch64-linux-gnu-}
JOBS=${JOBS:-$(( $(nproc) + 1 ))}
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/uprobes-arm64-ccache}
export CCACHE_BASEDIR=$BUILD
export CCACHE_NOHASHDIR=1
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
# shellcheck source=../config/base.env
. "$ROOT/config/base.env"
export GIT_AUTHOR_NAME=$SERIES_AUTHOR_NAME GIT_AUTHOR_EMAIL=$SERIES_AUTHOR_EMAIL
export GIT_COMMITTER_NAME=$SERIES_AUTHOR_NAME GIT_COMMITTER_EMAIL=$SERIES_AUTHOR_EMAIL

# log MSG...: progress line on stderr, prefixed with the script name and time.
log() { printf '[%s %s] %s\n' "$(date +%H:%M:%S)" "${0##*/}" "$*" >&2; }

# die MSG...: print the cause and stop the run (exit 1).
die() { printf '[%s] ERROR: %s\n' "${0##*/}" "$*" >&2; exit 1; }

# need_cmd CMD...: stop with a message naming the first missing command.
need_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 ||
			die "missing tool '$c': run 'make deps' (scripts/deps.sh) first"
	done
}

# timed LABEL CMD...: run CMD, then log how long LABEL took (seconds).
timed() {
	local label=$1 t0=$SECONDS
	shift
	log "$label ..."
	"$@"
	log "$label done in $(( SECONDS - t0 ))s"
}

# load_series: set SERIES to the patch files of the queue, in series order
# (absolute paths); stop when patches/series names a file that is missing.
# (Runs in the caller's shell, so that the stop stops the caller.)
load_series() {
	local p
	SERIES=()
	while read -r p; do
		p=${p%%#*}
		p=${p//[[:space:]]/}
		[ -n "$p" ] || continue
		[ -f "$ROOT/patches/$p" ] || die "patches/series names '$p', which does not exist"
		SERIES+=("$ROOT/patches/$p")
	done < "$ROOT/patches/series"
}

# ksrc_at REF: make the build worktree hold REF (a commit of build/linux),
# touching only the files that differ, so incremental builds stay small.
ksrc_at() {
	local ref=$1
	[ -e "$KSRC/.git" ] || die "no kernel tree: run 'make tree' first"
	[ "$(git -C "$KSRC" rev-parse 'HEAD^{tree}')" = "$(git -C "$KREPO" rev-parse "$ref^{tree}")" ] ||
		log "build tree: checking out $ref"
	# -f also undoes local edits, which would otherwise be built and cached
	git -C "$KSRC" checkout -q --detach -f "$ref"
}

# kmake ARGS...: make in the kernel tree for arm64, objects in build/obj.
kmake() {
	make -C "$KSRC" O="$KOBJ" ARCH=arm64 CROSS_COMPILE="$CROSS_COMPILE" \
		CC="ccache ${CROSS_COMPILE}gcc" -j"$JOBS" "$@"
}

# with_progress LOGFILE CMD...: run CMD with its output in LOGFILE, printing
# its latest line every 30 s; on failure show the log's tail and stop.
with_progress() {
	local logf=$1 pid rc=0
	shift
	mkdir -p "$(dirname "$logf")"
	"$@" >"$logf" 2>&1 &
	pid=$!
	# shellcheck disable=SC2064 # pid is fixed now
	trap "kill -- $pid 2>/dev/null; pkill -P $pid 2>/dev/null" INT TERM HUP
	while kill -0 "$pid" 2>/dev/null; do
		sleep 30 & wait $! || true
		kill -0 "$pid" 2>/dev/null && log "  ... $(tail -n1 "$logf" | cut -c1-100)"
	done
	wait "$pid" || rc=$?
	trap - INT TERM HUP
	if [ "$rc" -ne 0 ]; then
		tail -n 40 "$logf" >&2
		die "'$*' failed (exit $rc); full log: ${logf#"$ROOT"/}"
	fi
}

# kconfig_merge SRC OBJ ARCH CROSS FRAGMENT...: configure the tree SRC into
# OBJ as tinyconfig plus the fragments (scripts/kconfig/merge_config.sh),
# then olddefconfig.
kconfig_merge() {
	local src=$1 obj=$2 arch=$3 cross=$4
	shift 4
	mkdir -p "$obj"
	make -s -C "$src" O="$obj" ARCH="$arch" CROSS_COMPILE="$cross" tinyconfig
	(cd "$obj" && ARCH=$arch CROSS_COMPILE=$cross \
		"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" .config "$@" >/dev/null)
	make -s -C "$src" O="$obj" ARCH="$arch" CROSS_COMPILE="$cross" olddefconfig
}
