#!/usr/bin/env bash
# `make workloads`: real programs from Debian's packages in the guest
# (guest/workloads.sh): grep over a generated text, and redis-benchmark GET
# and SET against redis-server on loopback, each without a probe and with a
# uprobe on a hot function entry, on the baseline and the patched kernel
# booted in turn (ABAB...).  Debian 12's programs (the entry is
# stp x29, x30, [sp, #imm]!) and Debian 13's, built with branch protection
# (the entry is paciasp or pacibsp).
# Needs: both kernels and the initramfs (make workloads builds them first).
# Environment: RUNS (3) guest runs per kernel; GREP_LINES (120000: about
# 6 s of Debian 12's grep under TCG, 11 s of Debian 13's), REDIS_REQUESTS
# (20000 per GET and SET); RELEASES ("12 13": whose programs, each once);
# GUEST_MEM (1024 MiB).
# Output: results/BASE/workloads-raw.csv, workloads.csv,
# workloads.png, the probed functions and the table on stdout.  Both CSV
# files start with "# key: value" lines that say what the runs ran on
# (scripts/lib.sh provenance).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

GREP_LINES=${GREP_LINES:-120000}
REDIS_REQUESTS=${REDIS_REQUESTS:-20000}
RELEASES=${RELEASES:-12 13}

# parse OUT.txt RUN KERNEL: print CSV rows "run,kernel,workload,case,value,hits"
# from the "TESTBED-WL result WORKLOAD CASE VALUE HITS" lines (the guest's
# console ends lines with CR LF).
parse() {
	awk -v run="$2" -v k="$3" '{ sub(/\r$/, "") }
		$1 == "TESTBED-WL" && $2 == "result" { print run "," k "," $3 "," $4 "," $5 "," $6 }' "$1"
}

# probes OUT.txt...: the function each run probed ("TESTBED-WL probe PROG
# FILE OFFSET WORD NAME HITS"), one line per program; stops when the runs
# did not all probe the same function of a program (the comparison of the
# kernels would then mean nothing).
probes() {
	local lines
	lines=$(awk '{ sub(/\r$/, "") } $1 == "TESTBED-WL" && $2 == "probe" { print $3, $4, $5, $6, $7 }' "$@" |
		sort | uniq -c)
	[ -n "$lines" ] || die "no run named the function it probed (see $*)"
	if [ "$(awk '{ print $2 }' <<<"$lines" | uniq -d)" ]; then
		die "the runs probed different functions: $(tr '\n' ';' <<<"$lines")"
	fi
	awk '{ printf "probed in %s: %s+%s (%s), first word %s, in %d runs\n", $2, $3, $4, $6, $5, $1 }' <<<"$lines"
}

# slots OUT.txt...: on a kernel with trampoline slots, the share of the
# probe's hits that ran its slot, and the branch-target exceptions that sent
# a hit the BRK way instead ("TESTBED-WL slots WORKLOAD HITS SVC BTI"),
# summed over the runs, one line per workload.
slots() {
	awk '{ sub(/\r$/, "") } $1 == "TESTBED-WL" && $2 == "slots" { h[$3] += $4; s[$3] += $5; b[$3] += $6 }
		END { for (w in h) printf "%s: %d of %d hits through the slot (%.1f%%), %d branch-target exceptions on the B\n",
			w, s[w], h[w], h[w] ? 100 * s[w] / h[w] : 0, b[w] }' "$@" | sort
}

main() {
	need_cmd python3 gnuplot
	local raw=$BUILD/workloads-raw.csv.tmp
	[[ "$GREP_LINES" =~ ^[1-9][0-9]*$ ]] || die "GREP_LINES must be a positive number, not '$GREP_LINES'"
	[[ "$REDIS_REQUESTS" =~ ^[1-9][0-9]*$ ]] ||
		die "REDIS_REQUESTS must be a positive number, not '$REDIS_REQUESTS'"
	[[ "$RELEASES" =~ ^(12|13|12\ 13|13\ 12)$ ]] ||
		die "RELEASES must list 12 and/or 13, each once, not '$RELEASES'"
	mkdir -p "$RESULTS"
	rm -rf "$BUILD/run/workloads"
	{
		provenance runs="${RUNS:-3}" grep_lines="$GREP_LINES" redis_requests="$REDIS_REQUESTS" \
			releases="$RELEASES" vcpus="${VCPUS:-2}"
		echo "run,kernel,workload,case,value,hits"
	} > "$raw"
	# shellcheck disable=SC2086 # a list of releases
	abab workloads parse "$GREP_LINES" "$REDIS_REQUESTS" $RELEASES >> "$raw"
	mv "$raw" "$RESULTS/workloads-raw.csv"
	probes "$BUILD"/run/workloads/*/out.txt
	slots "$BUILD"/run/workloads/*/out.txt
	python3 "$ROOT/scripts/workloads_report.py" "$RESULTS/workloads-raw.csv" \
		"$RESULTS/workloads.csv" "$RESULTS/workloads.png"
	log "results in results/$BASE/: workloads.csv, workloads-raw.csv, workloads.png"
}

# (tests/host/workloads.sh sources it for parse and probes)
[ "${BASH_SOURCE[0]}" != "$0" ] || main "$@"
