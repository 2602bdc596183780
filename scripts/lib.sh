# shellcheck shell=bash
# Common helpers for the scripts in this folder.  Source it; do not run it.
# Every script that sources this runs under `set -euo pipefail`.

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# The base kernel: 6.12 (Debian 13's kernel; the default, see README.md) or
# mainline.  Each has its own queue (patches/BASE), build folder
# (build/BASE) and results (results/BASE).
BASE=${BASE:-6.12}
[ -f "$ROOT/config/base/$BASE.env" ] ||
	{ echo "BASE must be one of: $(cd "$ROOT/config/base" && printf '%s\n' *.env | sed 's|\.env$||' | xargs), not '$BASE'" >&2; exit 1; }
export BASE
BUILD=${BUILD:-$ROOT/build/$BASE}
PATCHES=$ROOT/patches/$BASE
RESULTS=${RESULTS:-$ROOT/results/$BASE}
# Private apt configurations (scripts/lib.sh apt_conf), shared by the bases.
APT_TOP=$ROOT/build/apt
# The kernel repository (base commit + one commit per patch, branch "series"
# for editing) and the worktree that builds use (the queue in patches/;
# KSRC= another worktree of build/BASE/linux, to build beside a running build).
KREPO=$BUILD/linux
KSRC=${KSRC:-$BUILD/src}
KOBJ=$BUILD/obj
# shellcheck disable=SC2034 # for the scripts that source this
IMAGES=$BUILD/images
CROSS_COMPILE=${CROSS_COMPILE:-aarch64-linux-gnu-}
JOBS=${JOBS:-$(( $(nproc) + 1 ))}
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/uprobes-arm64-ccache}
export CCACHE_BASEDIR=$BUILD
export CCACHE_NOHASHDIR=1
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-12G}
# shellcheck source=../config/base/6.12.env
. "$ROOT/config/base/$BASE.env"
# shellcheck source=../config/author.env
. "$ROOT/config/author.env"
export GIT_AUTHOR_NAME=$SERIES_AUTHOR_NAME GIT_AUTHOR_EMAIL=$SERIES_AUTHOR_EMAIL
export GIT_COMMITTER_NAME=$SERIES_AUTHOR_NAME GIT_COMMITTER_EMAIL=$SERIES_AUTHOR_EMAIL
# The identity of the base commit (scripts/tree.sh), whatever the author's.
# shellcheck disable=SC2034 # for scripts/tree.sh
BASE_IMPORT_NAME="Arm64 Uprobes Team"
# shellcheck disable=SC2034 # for scripts/tree.sh
BASE_IMPORT_EMAIL=arm64-uprobes@example.org

# log MSG...: progress line on stderr, prefixed with the script name and time.
log() { printf '[%s %s] %s\n' "$(date +%H:%M:%S)" "${0##*/}" "$*" >&2; }

# die MSG...: print the cause and stop the run (exit 1).
die() { printf '[%s] ERROR: %s\n' "${0##*/}" "$*" >&2; exit 1; }

# as_root CMD...: run CMD as root (through sudo unless we are root).
as_root() {
	if [ "$(id -u)" = 0 ]; then
		"$@"
	else
		sudo "$@"
	fi
}

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

# abab JOB PARSE [ARGS...]: boot the baseline and the patched kernel in
# turn (baseline, patched, baseline, ..., so that noise on this machine hits
# both alike), RUNS times each (default 3), run guest job JOB with ARGS
# (scripts/guest.sh, output in build/BASE/run/NAME/KERNEL-RUN/), and print
# the rows that "PARSE OUT.txt RUN KERNEL" prints for each run.  Stops the
# run, naming it, when a guest fails or a run gives no row.  The helper of
# every baseline-against-patched measurement: bench.sh, workloads.sh,
# scaling.sh, siglock.sh, probe_cost.sh.
# Environment: RUNS, GUEST_TIMEOUT (default 1800 s), ABAB_NAME (NAME,
# default JOB: what the run is called, e.g. job "run" with a command).
abab() {
	local job=$1 parse=$2 runs=${RUNS:-3} name=${ABAB_NAME:-$1} run k dir rows
	shift 2
	[[ "$runs" =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive number, not '$runs'"
	for run in $(seq 1 "$runs"); do
		for k in baseline patched; do
			dir=$BUILD/run/$name/$k-$run
			# (|| die: set -e does not reach into a command substitution)
			GUEST_TIMEOUT=${GUEST_TIMEOUT:-1800} "$ROOT/scripts/guest.sh" "$k" "$job" "$dir" "$@" >&2 ||
				die "$name on the $k kernel (run $run): the guest failed; see $dir"
			rows=$("$parse" "$dir/out.txt" "$run" "$k")
			[ -n "$rows" ] || die "$name on the $k kernel (run $run) printed no results; see $dir/out.txt"
			printf '%s\n' "$rows"
			log "run $run/$runs $k: $(printf '%s\n' "$rows" | wc -l) results"
		done
	done
}

# provenance [KEY=VALUE...]: what a measurement ran on, as "# key: value"
# lines for the top of its output and of its CSV files (scripts/report.py
# carries them into its summary and its chart's title): the test bed's
# commit (git describe, "-dirty" with uncommitted changes; and the full
# hash), the queue (the git tree of patches/BASE, "-dirty" likewise), the
# base package and the version build/BASE/linux was made from, the kernel
# builds (build/BASE/images/<key> each flavour links to), the QEMU, the
# date (UTC); then one line per KEY=VALUE (e.g. runs=3).
provenance() {
	local g=(git -C "$ROOT") describe head queue kernels="" k kv
	describe=$("${g[@]}" describe --always --dirty --abbrev=12 2>/dev/null) || describe=unknown
	head=$("${g[@]}" rev-parse -q --verify HEAD 2>/dev/null) || head=unknown
	queue=$("${g[@]}" rev-parse -q --verify "HEAD:patches/$BASE" 2>/dev/null) || queue=unknown
	[ -z "$("${g[@]}" status --porcelain -- "patches/$BASE" 2>/dev/null)" ] || queue+=-dirty
	for k in baseline patched; do
		[ ! -L "$IMAGES/$k" ] || kernels+="${kernels:+, }$k $(readlink "$IMAGES/$k")"
	done
	echo "# testbed: $describe ($head)"
	echo "# queue: patches/$BASE tree $queue"
	echo "# base: $BASE, $LINUX_SOURCE_PKG $(cat "$KREPO/.git/testbed-base-version" 2>/dev/null ||
		echo "$LINUX_SOURCE_VERSION (pinned; no build/$BASE/linux)")"
	echo "# kernels: ${kernels:-none built}"
	echo "# qemu: $("${QEMU:-qemu-system-aarch64}" --version 2>/dev/null | head -n 1 | sed 's/^QEMU emulator version //')"
	echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	for kv in "$@"; do
		echo "# ${kv%%=*}: ${kv#*=}"
	done
}

# debian_mirror: print the Debian archive URI the machine's own apt sources
# use (so that no host name is written here); stop when there is none.
debian_mirror() {
	local uri
	# shellcheck disable=SC2016 # $(REPO_URI) is apt's, not the shell's
	uri=$(apt-get indextargets --format '$(REPO_URI)' 'Identifier: Packages' 2>/dev/null |
		grep -m1 -E '/debian/?$' || true)
	[ -n "$uri" ] || die "the machine's apt sources name no Debian archive (…/debian/)"
	printf '%s\n' "${uri%/}"
}

# apt_conf NAME SYSTEM SUITE...: make a private apt configuration in
# build/apt/NAME whose sources are SUITE... (main) of the machine's Debian
# mirror (their source packages too when APT_DEB_SRC is 1), plus the
# machine's own sources when SYSTEM is 1; its package lists
# and downloads stay in that folder, and the machine's sources are never
# changed.  Refreshed (apt-get update) when made or older than a day.  Sets
# APT_OPTS to the options that select it.  Stops when the update fails.
apt_conf() {
	local name=$1 system=$2 dir=$APT_TOP/$1 mirror s f
	shift 2
	mirror=$(debian_mirror)
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/parts"
	rm -f "$dir"/parts/*
	if [ "$system" = 1 ]; then
		[ ! -f /etc/apt/sources.list ] || ln -s /etc/apt/sources.list "$dir/parts/system.list"
		for f in /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
			[ -f "$f" ] && ln -s "$f" "$dir/parts/"
		done
	fi
	for s in "$@"; do
		echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $s main"
		[ "${APT_DEB_SRC:-0}" != 1 ] ||
			echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $s main"
	done > "$dir/testbed.list"
	APT_OPTS=(-o "Dir::Etc::SourceList=$dir/testbed.list" -o "Dir::Etc::SourceParts=$dir/parts"
		  -o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir/cache"
		  -o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache=")
	if [ -z "$(find "$dir/stamp" -mmin -1440 2>/dev/null)" ] ||
	   ! cmp -s "$dir/testbed.list" "$dir/stamp"; then
		log "apt-get update for $name ($*)"
		as_root apt-get "${APT_OPTS[@]}" update -q >"$dir/update.log" 2>&1 ||
			{ tail -n 20 "$dir/update.log" >&2; die "apt-get update for $name failed (log: ${dir#"$ROOT"/}/update.log)"; }
		cp "$dir/testbed.list" "$dir/stamp"
	fi
}

# apt_extra CMD ARGS...: run apt-get/apt-cache CMD ARGS with the base's
# APT_SUITES (config/base/BASE.env) in a private configuration, or with the
# machine's own sources when APT_SUITES is empty.
apt_extra() {
	local tool=$1
	shift
	if [ -z "$APT_SUITES" ]; then
		"$tool" "$@"
		return
	fi
	# shellcheck disable=SC2086 # a list of suites
	apt_conf "base-$BASE" 0 $APT_SUITES >&2
	"$tool" "${APT_OPTS[@]}" "$@"
}

# load_series: set SERIES to the patch files of the queue, in series order
# (absolute paths); stop when PATCHES/series names a file that is missing.
# (Runs in the caller's shell, so that the stop stops the caller.)
load_series() {
	local p
	SERIES=()
	while read -r p; do
		p=${p%%#*}
		p=${p//[[:space:]]/}
		[ -n "$p" ] || continue
		[ -f "$PATCHES/$p" ] || die "patches/$BASE/series names '$p', which does not exist"
		SERIES+=("$PATCHES/$p")
	done < "$PATCHES/series"
}

# load_sets: the series the queue is sent as, from PATCHES/sets (one line
# each, in queue order: folder, number of patches, what it applies on,
# subject prefix).  What it applies on: "stack", the series before it (and
# theirs); "base", the base alone; or "on:FOLDER[,FOLDER...]", the base
# with those earlier series only (their patches are its prerequisites).
# Without that file the whole queue is one series in PATCHES itself.
# Sets SET_DIR, SET_COUNT, SET_NEEDS and SET_PREFIX (arrays, one entry a
# series).
load_sets() {
	local dir count needs prefix d
	SET_DIR=() SET_COUNT=() SET_NEEDS=() SET_PREFIX=()
	if [ ! -f "$PATCHES/sets" ]; then
		SET_DIR=(.) SET_COUNT=(0) SET_NEEDS=(stack) SET_PREFIX=(PATCH)
		return
	fi
	while read -r dir count needs prefix; do
		case $dir in '' | '#'*) continue ;; esac
		if ! [[ $count =~ ^[1-9][0-9]*$ && $needs =~ ^(stack|base|on:[^,]+(,[^,]+)*)$ && -n "$prefix" ]]; then
			die "patches/$BASE/sets: bad line '$dir $count $needs $prefix' (want: folder count stack|base|on:FOLDER,... prefix)"
		fi
		while read -r d; do
			set_index "$d" >/dev/null ||
				die "patches/$BASE/sets: $dir is on '$d', which is not a series before it"
		done < <(set_deps "$needs")
		SET_DIR+=("$dir") SET_COUNT+=("$count") SET_NEEDS+=("$needs") SET_PREFIX+=("$prefix")
	done < "$PATCHES/sets"
	[ "${#SET_DIR[@]}" -gt 0 ] || die "patches/$BASE/sets names no series"
}

# set_index FOLDER: the index in SET_DIR of series FOLDER (loaded so far);
# fails if there is none.
set_index() {
	local i
	for i in "${!SET_DIR[@]}"; do
		if [ "${SET_DIR[i]}" = "$1" ]; then
			echo "$i"
			return 0
		fi
	done
	return 1
}

# set_deps NEEDS: the folders a series whose sets line says NEEDS (an entry
# of SET_NEEDS) is on, one a line: those of "on:"; none for "stack" and
# "base".
set_deps() {
	[[ $1 == on:* ]] || return 0
	tr , '\n' <<<"${1#on:}"
}

# set_patches FOLDER: the patch files in FOLDER, in order, without the
# cover letter (one path a line).
set_patches() {
	local f
	for f in "$1"/[0-9][0-9][0-9][0-9]-*.patch; do
		if [ -e "$f" ] && [ "${f##*/}" != 0000-cover-letter.patch ]; then
			printf '%s\n' "$f"
		fi
	done
}

# first_file PATH...: print the first PATH (a glob's first match: globs
# sort) if it exists; print nothing and fail if not (no match).
first_file() {
	[ -e "$1" ] || return 1
	printf '%s\n' "$1"
}

# ksrc_at REF: make the build worktree hold REF (a commit of build/BASE/linux),
# touching only the files that differ, so incremental builds stay small.
ksrc_at() {
	local ref=$1
	[ -e "$KSRC/.git" ] || die "no kernel tree: run 'make tree' first"
	[ "$(git -C "$KSRC" rev-parse 'HEAD^{tree}')" = "$(git -C "$KREPO" rev-parse "$ref^{tree}")" ] ||
		log "build tree: checking out $ref"
	# -f also undoes local edits, which would otherwise be built and cached
	git -C "$KSRC" checkout -q --detach -f "$ref"
}

# kmake ARGS...: make in the kernel tree for arm64, objects in build/BASE/obj.
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

# TAP lines for the host tests and scripts (check.sh, bisect.sh), numbered
# by TAP_N; TAP_PREFIX, if set, starts every description.  What reads them
# is scripts/tap_summary.py.
# tap STATUS DESC [DETAIL...]: "ok" when STATUS is 0, else "not ok" and the
# DETAIL lines as comments (a detail "log: PATH" names the log of the
# failure, which the summary of make check shows).  tap_is DESC WANT GOT:
# ok when GOT is WANT.  tap_skip DESC WHY: a skipped check.
TAP_N=${TAP_N:-0}	# kept when sourced again (a test that sources a script)
tap() {
	local status=$1 desc=$2
	shift 2
	TAP_N=$((TAP_N + 1))
	if [ "$status" = 0 ]; then
		echo "ok $TAP_N - ${TAP_PREFIX:-}$desc"
	else
		echo "not ok $TAP_N - ${TAP_PREFIX:-}$desc"
		[ "$#" -eq 0 ] || printf '%s\n' "$@" | sed 's/^/# /'
	fi
}
tap_is() {
	tap "$([ "$2" = "$3" ] && echo 0 || echo 1)" "$1" "want: $2, got: $3"
}
tap_skip() {
	TAP_N=$((TAP_N + 1))
	echo "ok $TAP_N - ${TAP_PREFIX:-}$1 # SKIP $2"
}

# kernel_fragments ARRAY: set the array named ARRAY to the config fragments
# every kernel of BASE is built with: config/uprobes.config, then the
# KERNEL_FRAGMENTS of config/base/BASE.env (paths from the repository
# root).  Stops the run if one of those is missing.
kernel_fragments() {
	local -n _frags=$1
	local f
	_frags=("$ROOT/config/uprobes.config")
	for f in ${KERNEL_FRAGMENTS:-}; do
		[ -f "$ROOT/$f" ] || die "config/base/$BASE.env: no config fragment '$f'"
		_frags+=("$ROOT/$f")
	done
}

# kconfig_merge SRC OBJ ARCH CROSS FRAGMENT...: configure the git worktree
# SRC into OBJ as tinyconfig plus the fragments
# (scripts/kconfig/merge_config.sh), then olddefconfig.  When OBJ/.config
# is the one made from the same Kconfig files, ARCH and fragments (a hash
# of those and of the .config made, kept in OBJ/.testbed-kconfig), only
# olddefconfig runs; olddefconfig alone after a Kconfig change would drop
# the options that only some trees know, e.g. those the series adds, and a
# .config changed since (by hand, or by another tree's olddefconfig) may
# have lost them already.
kconfig_merge() {
	local src=$1 obj=$2 arch=$3 cross=$4 stamp=$2/.testbed-kconfig key
	shift 4
	key=$( { git -C "$src" ls-files -s -- '*Kconfig*'; echo "$arch"; cat "$@"; } | sha256sum)
	if [ -f "$obj/.config" ] &&
	   [ "$(cat "$stamp" 2>/dev/null)" = "$key $(sha256sum < "$obj/.config")" ]; then
		make -s -C "$src" O="$obj" ARCH="$arch" CROSS_COMPILE="$cross" olddefconfig
		return
	fi
	mkdir -p "$obj"
	rm -f "$stamp"
	make -s -C "$src" O="$obj" ARCH="$arch" CROSS_COMPILE="$cross" tinyconfig
	(cd "$obj" && ARCH=$arch CROSS_COMPILE=$cross \
		"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" .config "$@" >/dev/null)
	make -s -C "$src" O="$obj" ARCH="$arch" CROSS_COMPILE="$cross" olddefconfig
	echo "$key $(sha256sum < "$obj/.config")" > "$stamp"
}

# bpf_bench SRC ARCH CROSS VMLINUX HDRS UAPI_OBJ OUT: build the bench of the
# tree SRC's tools/testing/selftests/bpf for ARCH (arm64 or x86_64; CROSS
# the cross-compiler prefix, empty for the host) into OUT/bench, with SRC's
# UAPI headers installed into HDRS (kbuild objects in UAPI_OBJ) and the BTF
# of VMLINUX; BPF objects with clang$BPF_LLVM, and BPF_MAKE_ARGS (split
# into words) passed on (config/base/BASE.env).
# selftests/bpf remakes vmlinux.h only when VMLINUX is newer than it, so
# OUT/.vmlinux names the kernel it was made from, and vmlinux.h is removed
# when VMLINUX is another (an older image, a link switched back).
# Output on stdout and stderr; returns make's status.
bpf_bench() {
	local src=$1 arch=$2 cross=$3 vmlinux=$4 hdrs=$5 uobj=$6 out=$7 id
	mkdir -p "$out"
	id=$(stat -L -c '%n %s %Y' "$(readlink -f "$vmlinux")") || return
	if [ "$(cat "$out/.vmlinux" 2>/dev/null)" != "$id" ]; then
		rm -f "$out/tools/include/vmlinux.h"
		echo "$id" > "$out/.vmlinux"
	fi
	# shellcheck disable=SC2086 # BPF_MAKE_ARGS is a list of arguments
	make -s -C "$src" ARCH="${arch/x86_64/x86}" O="$uobj" INSTALL_HDR_PATH="$hdrs" \
		headers_install &&
	make -C "$src/tools/testing/selftests/bpf" -j"$JOBS" ARCH="$arch" CROSS_COMPILE="$cross" \
		CLANG="clang$BPF_LLVM" LLC="llc$BPF_LLVM" LLVM_STRIP="llvm-strip$BPF_LLVM" \
		$BPF_MAKE_ARGS \
		OUTPUT="$out" VMLINUX_BTF="$vmlinux" KHDR_INCLUDES="-isystem $hdrs/include" "$out/bench"
}
