#!/usr/bin/env bash
# TAP: lib.sh's abab, the loop of every baseline-against-patched
# measurement, with a stub scripts/guest.sh: the kernels in turn, RUNS
# times each, a folder per boot, the rows of each run; and it stops,
# naming the run, when a guest fails (also inside a command substitution,
# where set -e does not reach) or a run gives no row.
. "$(dirname "$0")/../../scripts/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
TAP_PREFIX="abab: "
ROOT=$tmp/root BUILD=$tmp/build
mkdir -p "$ROOT/scripts" "$BUILD"
# The stub boots nothing: it logs its arguments and writes "rate K" (K the
# kernel); it fails after that when FAIL names the folder's last part, as
# guest.sh does when the kernel log of a run that printed has a WARNING.
cat > "$ROOT/scripts/guest.sh" <<'EOF'
#!/bin/sh
echo "$1 $2 ${3#"$BUILD"/} $4" >> "$BUILD/guest.log"
mkdir -p "$3" && echo "rate $1" > "$3/out.txt"
[ "${3##*/}" != "${FAIL:-}" ]
EOF
chmod +x "$ROOT/scripts/guest.sh"
export BUILD

# parse OUT.txt RUN KERNEL: "RUN,KERNEL,<the word after rate>".
parse() { awk -v r="$2" -v k="$3" '$1 == "rate" { print r "," k "," $2 }' "$1"; }
# none OUT.txt RUN KERNEL: no row.
none() { :; }

rows=$(RUNS=2 ABAB_NAME=m/p1 abab run parse "cmd x" 2>/dev/null)
tap_is "the rows of each run, baseline first" "1,baseline,baseline 1,patched,patched 2,baseline,baseline 2,patched,patched" \
	"$(xargs <<<"$rows")"
tap_is "the guest calls: kernels in turn, a folder each, the arguments" \
	"baseline run run/m/p1/baseline-1 cmd x|patched run run/m/p1/patched-1 cmd x|baseline run run/m/p1/baseline-2 cmd x|patched run run/m/p1/patched-2 cmd x" \
	"$(paste -sd'|' "$BUILD/guest.log")"
rm -f "$BUILD/guest.log"
RUNS=1 abab bench parse >/dev/null 2>&1
tap_is "without ABAB_NAME, the folder is the job's" "run/bench/baseline-1 run/bench/patched-1" \
	"$(awk '{ print $3 }' "$BUILD/guest.log" | xargs)"
rc=0
rm -f "$BUILD/guest.log"
rows=$(RUNS=2 FAIL=patched-1 abab run parse 2>"$tmp/err") || rc=$?
tap_is "a failed guest stops it, in a command substitution too" "1 2" "$rc $(wc -l < "$BUILD/guest.log")"
grep -q "run on the patched kernel (run 1): the guest failed" "$tmp/err"
tap $? "the stop names the kernel and the run" "$(cat "$tmp/err")"
rc=0
(RUNS=1 abab run none >/dev/null 2>"$tmp/err") || rc=$?
tap_is "a run without rows stops it, named" "1 1" \
	"$rc $(grep -c 'run on the baseline kernel (run 1) printed no results' "$tmp/err")"
rc=0
(RUNS=x abab run parse >/dev/null 2>"$tmp/err") || rc=$?
tap_is "RUNS must be a number" "1 1" "$rc $(grep -c "RUNS must be a positive number, not 'x'" "$tmp/err")"
echo "1..$TAP_N"
