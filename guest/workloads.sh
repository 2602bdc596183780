#!/bin/bash
# Guest side of `make workloads` (scripts/workloads.sh): Debian's grep, and
# redis-benchmark GET/SET against redis-server on loopback, each without a
# probe and with a uprobe (tracefs uprobe_events) on a hot function entry.
#   workloads.sh GREP_LINES REDIS_REQUESTS [RELEASE...]
# RELEASE (default: 12 13): whose grep and redis-server run.
#   12: Debian 12's, from the guest's own userland; the function starts with
#       stp x29, x30, [sp, #imm]!;
#   13: Debian 13's, built with branch protection, in /trixie with their own
#       libraries (chroot); the function starts with paciasp or pacibsp.
# The function: of the BL targets that start that way (found by disassembly
# on the host, /testbed/workloads/<prog>.cand: "offset word name"), the one
# with the most hits in a short profiling run.
# Output (parsed by scripts/workloads.sh):
#   TESTBED-WL probe PROG FILE OFFSET WORD NAME PROFILE-HITS
#   TESTBED-WL result WORKLOAD CASE VALUE HITS
# PROG: grep, redis (12), grep-13, redis-13 (13); WORKLOAD: grep,
# redis-set, redis-get, grep-13, redis-13-set, redis-13-get.  VALUE: seconds
# (grep) or requests/s (redis); CASE: none or probe; HITS: probe hits during
# the run (0 for none).
# Any failure (a tool missing, a probe not accepted, a result missing or a
# grep whose output changed under the probe) ends the job with a message.
set -euo pipefail
# errors inside $(...) stop the job too
shopt -s inherit_errexit

TRACING=/sys/kernel/tracing
CAND=/testbed/workloads
TEXT=/tmp/words.txt
PORT=6379
# Set by use_release: the release's root ('' or /trixie), program name
# suffix, package list, and its grep and redis-server (paths in that root;
# redis-server links to redis-check-rdb).
ROOTDIR='' SUFFIX='' LIST='' GREP='' REDIS=''

# die MSG: the cause, on stderr (also inside $(...)), and stop.
die() { echo "TESTBED-WL error: $*" >&2; exit 1; }

# use_release N: the programs of Debian N (12 or 13), see the header.  13's
# root gets /dev, /proc and /tmp (the grep text, redis' log) bound in.
use_release() {
	case $1 in
	12) ROOTDIR='' SUFFIX='' LIST=config/guest-packages GREP=/bin/grep ;;
	13)
		ROOTDIR=/trixie SUFFIX=-13 LIST=config/guest-packages.trixie GREP=/usr/bin/grep
		[ -d "$ROOTDIR/usr/bin" ] ||
			die "no Debian 13 root $ROOTDIR in the guest (scripts/rootfs.sh, $LIST)"
		local d
		for d in dev proc tmp; do
			# (BusyBox has no mountpoint)
			awk -v m="$ROOTDIR/$d" '$2 == m { f = 1 } END { exit !f }' /proc/mounts ||
				mount -o bind "/$d" "$ROOTDIR/$d" ||
				die "cannot bind /$d into $ROOTDIR"
		done
		;;
	*) die "no release '$1' (12 or 13)" ;;
	esac
	REDIS=/usr/bin/redis-check-rdb
	require "$ROOTDIR$GREP"
	require "$ROOTDIR$REDIS"
	[ -e "$ROOTDIR/usr/bin/redis-server" ] || die "$ROOTDIR/usr/bin/redis-server missing from the guest ($LIST)"
}

# run_in CMD...: CMD, a path in the release's root, run there.
run_in() {
	if [ -n "$ROOTDIR" ]; then
		chroot "$ROOTDIR" "$@"
	else
		"$@"
	fi
}

# require FILE: FILE is an ELF executable of its Debian package, not BusyBox.
require() {
	if [ ! -f "$1" ] || [ -L "$1" ]; then
		die "$1 missing from the guest ($LIST)"
	fi
	[ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '177ELF' ] || die "$1 is not an ELF file"
}

# uprobe_add NAME FILE OFFSET / uprobe_del NAME: tracefs event wl/NAME, a
# uprobe at file offset OFFSET (hex) of FILE.  group_enable 0|1: all of wl.
uprobe_add() { echo "p:wl/$1 $2:$3" >> "$TRACING/uprobe_events"; }
uprobe_del() { echo "-:wl/$1" >> "$TRACING/uprobe_events"; }
group_enable() { echo "$1" > "$TRACING/events/wl/enable"; }

# probe_on FILE OFFSET / probe_off: the measured probe, event wl/hot;
# probe_off prints its hits.
probe_on() { uprobe_add hot "$1" "$2"; group_enable 1; }
probe_off() { hits hot; group_enable 0; uprobe_del hot; }

# slot_share WORKLOAD FILE OFFSET CMD...: on a kernel with trampoline
# slots (mainline's series 8; SLOTS=1), an untimed run of CMD with the
# probe at OFFSET (hex) of FILE, in which kprobes count the hits that ran
# a slot's SVC (uprobe_tramp_svc()) and the branch-target exceptions that
# a slot's B sent the BRK way (uprobe_tramp_bti(): a landing pad entered
# indirectly in a guarded page); prints "TESTBED-WL slots WORKLOAD HITS
# SVC BTI".  Never around a timed run: a kprobe is a BRK and a step on
# arm64.
SLOTS=0
slot_share() {
	local w=$1 f=$2 o=$3 h
	[ "$SLOTS" = 1 ] || return 0
	shift 3
	echo "p:wlk/svc uprobe_tramp_svc" >> "$TRACING/kprobe_events"
	echo "p:wlk/bti uprobe_tramp_bti" >> "$TRACING/kprobe_events"
	echo 1 > "$TRACING/events/wlk/enable"
	probe_on "$f" "$o"
	# not to /dev/null: GNU grep stops at the first match when it writes there
	"$@" > /tmp/slots.out
	h=$(probe_off)
	echo 0 > "$TRACING/events/wlk/enable"
	echo "TESTBED-WL slots $w $h $(awk '$1 == "svc" { s = $2 } $1 == "bti" { b = $2 }
		END { print s + 0, b + 0 }' "$TRACING/kprobe_profile")"
	echo "-:wlk/svc" >> "$TRACING/kprobe_events"
	echo "-:wlk/bti" >> "$TRACING/kprobe_events"
}

# hits NAME: the hits of event NAME (uprobe_profile: file, event, hits).
hits() { awk -v e="$1" '$2 == e { print $3 }' "$TRACING/uprobe_profile"; }

# now: seconds since the epoch, microsecond resolution; elapsed T0 T1: the
# seconds from T0 to T1, 3 decimals.
now() { echo "$EPOCHREALTIME"; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

# profile PROG FILE CMD...: print "OFFSET WORD NAME HITS" of the candidate
# of PROG that CMD hits most (ties: the lowest offset).  HITS counts the
# hits while CMD runs less those in an idle period as long, so that timer
# work (a server's cron) does not win.  The top five go to stderr as
# "TESTBED-WL profile PROG HITS OFFSET WORD NAME".  Stops when a candidate
# is missing from uprobe_profile or none was hit.
profile() {
	local prog=$1 file=$2 off t0 t1 best
	shift 2
	[ -s "$CAND/$prog.cand" ] || die "no candidates for $prog ($CAND/$prog.cand)"
	while read -r off _; do
		uprobe_add "c$off" "$file" "$off"
	done < "$CAND/$prog.cand"
	group_enable 1
	t0=$(now)
	# not to /dev/null: GNU grep stops at the first match when it writes there
	"$@" > /tmp/profile.out
	t1=$(now)
	cp "$TRACING/uprobe_profile" /tmp/profile.load
	sleep "$(elapsed "$t0" "$t1")"
	cp "$TRACING/uprobe_profile" /tmp/profile.idle
	group_enable 0
	while read -r off _; do
		uprobe_del "c$off"
	done < "$CAND/$prog.cand"
	# per candidate, by event name: load hits - (idle hits - load hits)
	awk -v load=/tmp/profile.load -v idle=/tmp/profile.idle '
		BEGIN {
			while ((getline l < load) > 0) { split(l, f, " "); L[f[2]] = f[3] }
			while ((getline l < idle) > 0) { split(l, f, " "); I[f[2]] = f[3] }
		}
		{
			e = "c" $1
			if (!(e in L) || !(e in I)) {
				print "TESTBED-WL error: event " e " missing from uprobe_profile" > "/dev/stderr"
				exit 1
			}
			print 2 * L[e] - I[e], $1, $2, $3
		}' "$CAND/$prog.cand" > /tmp/profile.all
	# stable: the candidates are in address order
	sort -s -k1,1nr /tmp/profile.all > /tmp/profile.sorted
	head -n5 /tmp/profile.sorted > /tmp/profile.top
	sed "s|^|TESTBED-WL profile $prog |" /tmp/profile.top >&2
	best=$(head -n1 /tmp/profile.top)
	# shellcheck disable=SC2086 # split the line into its fields
	set -- $best
	[ "${1:-0}" -gt 0 ] || die "no candidate of $prog was hit"
	echo "$2 $3 $4 $1"
}

# grep_count FILE: the measured grep, a case-insensitive regex with a
# back-reference (so grep runs its regex matcher, not only its DFA, on the
# lines that may match: about 50 us a line under TCG); prints the count of
# matching lines.
grep_count() { run_in "$GREP" -c -i -E '(th|qu)[a-z]*e\s.*\1' "$1"; }

# make_text LINES: a deterministic text of LINES lines (rounded up to a
# multiple of 10000) of 10 words each: a block of 10000 lines made by a
# linear congruential generator (in awk's doubles, so it repeats after
# 10466 steps: 5827 distinct lines), repeated.
make_text() {
	awk 'BEGIN {
		split("the quick brown fox jumps over lazy dog alpha beta gamma delta " \
		      "uprobe kernel trace stack frame queue axe exe value", w, " ")
		s = 12345
		for (i = 0; i < 10000; i++) {
			line = ""
			for (j = 0; j < 10; j++) {
				s = (s * 1103515245 + 12345) % 2147483648
				line = line w[int(s / 65536) % 21 + 1] " "
			}
			print line
		}
	}' > /tmp/block.txt
	: > "$TEXT"
	for _ in $(seq $(( ($1 + 9999) / 10000 ))); do
		cat /tmp/block.txt >> "$TEXT"
	done
	rm /tmp/block.txt
}

# measure_grep OFFSET: grep unprobed, then with the probe at OFFSET (hex);
# the count must not change.
measure_grep() {
	local t0 t1 out ref case h
	for case in none probe; do
		[ "$case" = none ] || probe_on "$ROOTDIR$GREP" "$1"
		t0=$(now)
		out=$(grep_count "$TEXT")
		t1=$(now)
		h=0
		[ "$case" = none ] || h=$(probe_off)
		ref=${ref:-$out}
		[ "$out" = "$ref" ] || die "grep printed $out with the probe, $ref without"
		echo "TESTBED-WL result grep$SUFFIX $case $(elapsed "$t0" "$t1") $h"
	done
}

# bench_redis OP N: redis-benchmark of OP (set or get), N requests (two
# separate runs for SET and GET); prints its requests/s.  Stops with its
# output when it fails or prints no rate.
bench_redis() {
	local out
	out=$(redis-benchmark -h 127.0.0.1 -p "$PORT" -t "$1" -n "$2" -q 2>&1 | tr '\r' '\n') ||
		die "redis-benchmark -t $1 failed: $out"
	awk '/requests per second/ { print $2; found = 1 } END { exit !found }' <<<"$out" ||
		die "redis-benchmark -t $1 printed no rate: $out"
}

# bench_both N: SET then GET, N requests each (the profiling workload).
bench_both() { bench_redis set "$1"; bench_redis get "$1"; }

# measure_redis N OFFSET: SET and GET, N requests each, unprobed, then with
# the probe at OFFSET (hex).
measure_redis() {
	local op case rps h
	for op in set get; do
		for case in none probe; do
			[ "$case" = none ] || probe_on "$ROOTDIR$REDIS" "$2"
			rps=$(bench_redis "$op" "$1")
			h=0
			[ "$case" = none ] || h=$(probe_off)
			echo "TESTBED-WL result redis$SUFFIX-$op $case $rps $h"
		done
	done
}

# answers: redis-server answers PING on PORT.
answers() { redis-cli -p "$PORT" ping 2>/dev/null | grep -q PONG; }

# start_redis: the release's redis-server on 127.0.0.1:PORT, no
# persistence, its log in /tmp/redis$SUFFIX.log; stops with that log when
# it does not start or does not answer within 10 s.
# stop_redis: shuts it down and waits until it no longer answers.
start_redis() {
	local log=/tmp/redis$SUFFIX.log
	ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
	run_in /usr/bin/redis-server --bind 127.0.0.1 --port "$PORT" --save '' --appendonly no \
		--daemonize yes --dir /tmp --logfile "$log" \
		--ignore-warnings ARM64-COW-BUG ||
		{ cat "$log" >&2 || true; die "$ROOTDIR/usr/bin/redis-server did not start"; }
	for _ in $(seq 50); do
		answers && return
		sleep 0.2
	done
	cat "$log" >&2
	die "$ROOTDIR/usr/bin/redis-server did not answer on port $PORT"
}

stop_redis() {
	redis-cli -p "$PORT" shutdown nosave >/dev/null 2>&1 || true
	for _ in $(seq 50); do
		answers || return 0
		sleep 0.2
	done
	die "redis-server still answers on port $PORT after shutdown"
}

# workloads LINES REQUESTS: grep, then Redis, of the release use_release
# chose.
workloads() {
	local p
	make_text "$1"
	head -n 20000 "$TEXT" > /tmp/profile.txt
	p=$(profile "grep$SUFFIX" "$ROOTDIR$GREP" grep_count /tmp/profile.txt)
	echo "TESTBED-WL probe grep$SUFFIX $ROOTDIR$GREP $p"
	measure_grep "${p%% *}"
	slot_share "grep$SUFFIX" "$ROOTDIR$GREP" "${p%% *}" grep_count /tmp/profile.txt
	rm -f "$TEXT" /tmp/profile.txt

	start_redis
	p=$(profile "redis$SUFFIX" "$ROOTDIR$REDIS" bench_both 2000)
	echo "TESTBED-WL probe redis$SUFFIX $ROOTDIR$REDIS $p"
	measure_redis "$2" "${p%% *}"
	slot_share "redis$SUFFIX" "$ROOTDIR$REDIS" "${p%% *}" bench_both 2000
	stop_redis
}

main() {
	local lines=${1:-} requests=${2:-} t r
	shift 2 || true
	[[ "$lines" =~ ^[1-9][0-9]*$ ]] || die "GREP_LINES must be a positive number, not '$lines'"
	[[ "$requests" =~ ^[1-9][0-9]*$ ]] || die "REDIS_REQUESTS must be a positive number, not '$requests'"
	[ $# -gt 0 ] || set -- 12 13
	for t in redis-benchmark redis-cli; do
		command -v "$t" >/dev/null || die "$t missing from the guest (config/guest-packages)"
	done
	[ -w "$TRACING/uprobe_events" ] || die "no tracefs uprobe_events (CONFIG_UPROBE_EVENTS)"
	if grep -qw uprobe_tramp_svc /proc/kallsyms; then
		[ -w "$TRACING/kprobe_events" ] || die "no tracefs kprobe_events (CONFIG_KPROBE_EVENTS)"
		SLOTS=1
	fi
	# every release's programs first, so that a missing one stops the job
	# before the first measurement
	for r in "$@"; do
		use_release "$r"
	done
	echo "TESTBED-WL-BEGIN"
	for r in "$@"; do
		use_release "$r"
		workloads "$lines" "$requests"
	done
	echo "TESTBED-WL-END"
}

# (sourced by hand for experiments: functions only)
[ "${BASH_SOURCE[0]}" != "$0" ] || main "$@"
