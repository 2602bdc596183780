#!/bin/bash
# Guest side of `make workloads` (scripts/workloads.sh): Debian's grep, and
# redis-benchmark GET/SET against redis-server on loopback, each without a
# probe and with a uprobe (tracefs uprobe_events) on a hot function whose
# first instruction is stp x29, x30, [sp, #imm]!.
#   workloads.sh GREP_LINES REDIS_REQUESTS
# The function: of the BL targets that start with that stp (found by
# disassembly on the host, /testbed/workloads/<prog>.cand: "offset word
# name"), the one with the most hits in a short profiling run.
# Output (parsed by scripts/workloads.sh):
#   TESTBED-WL probe PROG FILE OFFSET WORD NAME PROFILE-HITS
#   TESTBED-WL result WORKLOAD CASE VALUE HITS
# VALUE: seconds (grep) or requests/s (redis-get, redis-set); CASE: none or
# probe; HITS: probe hits during the run (0 for none).
# Any failure (a tool missing, a probe not accepted, a result missing or a
# grep whose output changed under the probe) ends the job with a message.
set -euo pipefail

TRACING=/sys/kernel/tracing
CAND=/testbed/workloads
GREP=/bin/grep
REDIS=/usr/bin/redis-check-rdb		# /usr/bin/redis-server links to it
TEXT=/tmp/words.txt
PORT=6379

die() { echo "TESTBED-WL error: $*"; exit 1; }

# require FILE: FILE is an ELF executable of its Debian package, not BusyBox.
require() {
	[ -f "$1" ] && [ ! -L "$1" ] || die "$1 missing from the guest (config/guest-packages)"
	[ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '177ELF' ] || die "$1 is not an ELF file"
}

# uprobe_add NAME FILE OFFSET / uprobe_del NAME: event wl/NAME.
uprobe_add() { echo "p:wl/$1 $2:$3" >> "$TRACING/uprobe_events"; }
uprobe_del() { echo "-:wl/$1" >> "$TRACING/uprobe_events"; }
group_enable() { echo "$1" > "$TRACING/events/wl/enable"; }

# hits NAME: probe hits of event NAME (uprobe_profile: file, event, hits).
hits() { awk -v e="$1" '$2 == e { print $3 }' "$TRACING/uprobe_profile"; }

# profile PROG FILE CMD...: print "OFFSET WORD NAME HITS" of the candidate
# of PROG that CMD hits most (ties: the lowest offset).  HITS counts the
# hits while CMD runs less those in an idle period as long, so that timer
# work (a server's cron) does not win.  The top five go to stderr as
# "TESTBED-WL profile PROG HITS OFFSET WORD NAME".
profile() {
	local prog=$1 file=$2 off word name t0 t1 best
	shift 2
	[ -s "$CAND/$prog.cand" ] || die "no candidates for $prog ($CAND/$prog.cand)"
	while read -r off word name; do
		uprobe_add "c$off" "$file" "$off"
	done < "$CAND/$prog.cand"
	group_enable 1
	t0=$(now)
	# not to /dev/null: GNU grep stops at the first match when it writes there
	"$@" > /tmp/profile.out
	t1=$(now)
	all_hits "$prog" > /tmp/profile.load
	sleep "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')"
	all_hits "$prog" > /tmp/profile.idle
	group_enable 0
	while read -r off word name; do
		uprobe_del "c$off"
	done < "$CAND/$prog.cand"
	# load hits - (idle hits - load hits), per candidate
	paste -d' ' /tmp/profile.load /tmp/profile.idle "$CAND/$prog.cand" |
		awk '{ print 2 * $1 - $2, $3, $4, $5 }' | sort -k1,1nr -k2,2 | head -n5 > /tmp/profile.top
	sed "s|^|TESTBED-WL profile $prog |" /tmp/profile.top >&2
	best=$(head -n1 /tmp/profile.top)
	set -- $best
	[ "${1:-0}" -gt 0 ] || die "no candidate of $prog was hit"
	echo "$2 $3 $4 $1"
}

# all_hits PROG: the hits of each candidate of PROG, one a line, in order.
all_hits() {
	local off word name
	while read -r off word name; do
		hits "c$off"
	done < "$CAND/$1.cand"
}

# now: seconds since the epoch, microsecond resolution.
now() { echo "$EPOCHREALTIME"; }

# grep_count FILE: the measured grep, a case-insensitive regex with a
# back-reference (so grep runs its regex matcher, not only its DFA, on the
# lines that may match: about 50 us a line under TCG); prints the count of
# matching lines.
grep_count() { "$GREP" -c -i -E '(th|qu)[a-z]*e\s.*\1' "$1"; }

# make_text LINES: a deterministic text of LINES lines (rounded up to a
# multiple of 10000) of 10 words each: a block of 10000 pseudo-random
# lines, repeated.
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

# measure_grep OFFSET: grep unprobed, then with the probe at OFFSET.
measure_grep() {
	local t0 t1 out ref case
	for case in none probe; do
		[ "$case" = none ] || { uprobe_add hot "$GREP" "$1"; group_enable 1; }
		t0=$(now)
		out=$(grep_count "$TEXT")
		t1=$(now)
		ref=${ref:-$out}
		[ "$out" = "$ref" ] || die "grep printed $out with the probe, $ref without"
		echo "TESTBED-WL result grep $case $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') \
$([ "$case" = none ] && echo 0 || hits hot)"
		[ "$case" = none ] || { group_enable 0; uprobe_del hot; }
	done
}

# bench_redis OP N: redis-benchmark of OP (set or get), N requests; prints
# its requests/s.
bench_redis() {
	redis-benchmark -h 127.0.0.1 -p "$PORT" -t "$1" -n "$2" -q 2>&1 | tr '\r' '\n' |
		awk '/requests per second/ { print $2 }'
}

# bench_both N: SET then GET, N requests each (the profiling workload).
bench_both() { bench_redis set "$1"; bench_redis get "$1"; }

# measure_redis N OFFSET: SET and GET, unprobed, then with the probe at OFFSET.
measure_redis() {
	local op case rps h
	for op in set get; do
		for case in none probe; do
			[ "$case" = none ] || { uprobe_add hot "$REDIS" "$2"; group_enable 1; }
			rps=$(bench_redis "$op" "$1")
			h=0
			[ "$case" = none ] || { h=$(hits hot); group_enable 0; uprobe_del hot; }
			[ -n "$rps" ] || die "redis-benchmark printed no $op rate"
			echo "TESTBED-WL result redis-$op $case $rps $h"
		done
	done
}

start_redis() {
	ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
	redis-server --bind 127.0.0.1 --port "$PORT" --save '' --appendonly no \
		--daemonize yes --dir /tmp --logfile /tmp/redis.log \
		--ignore-warnings ARM64-COW-BUG
	for _ in $(seq 50); do
		redis-cli -p "$PORT" ping 2>/dev/null | grep -q PONG && return
		sleep 0.2
	done
	cat /tmp/redis.log
	die "redis-server did not answer on port $PORT"
}

main() {
	local lines=${1:?GREP_LINES} requests=${2:?REDIS_REQUESTS} p
	require "$GREP"
	require "$REDIS"
	[ -w "$TRACING/uprobe_events" ] || die "no tracefs uprobe_events (CONFIG_UPROBE_EVENTS)"
	echo "TESTBED-WL-BEGIN"

	make_text "$lines"
	head -n 20000 "$TEXT" > /tmp/profile.txt
	p=$(profile grep "$GREP" grep_count /tmp/profile.txt)
	echo "TESTBED-WL probe grep $GREP $p"
	measure_grep "${p%% *}"
	rm -f "$TEXT" /tmp/profile.txt

	start_redis
	p=$(profile redis "$REDIS" bench_both 2000)
	echo "TESTBED-WL probe redis $REDIS $p"
	measure_redis "$requests" "${p%% *}"
	redis-cli -p "$PORT" shutdown nosave >/dev/null 2>&1 || true
	echo "TESTBED-WL-END"
}

# (sourced by hand for experiments: functions only)
[ "${BASH_SOURCE[0]}" != "$0" ] || main "$@"
