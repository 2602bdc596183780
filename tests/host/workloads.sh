#!/usr/bin/env bash
# TAP: the host side of `make workloads`.
#  - scripts/probe_candidates.py lists exactly the BL targets that start
#    with stp x29, x30, [sp, #imm]! (with --entry pac: paciasp or pacibsp),
#    with the file offset of that word, in a small AArch64 program
#    assembled here;
#  - scripts/workloads_report.py computes overheads and the patched/baseline
#    overhead ratio from a raw CSV whose answers are worked out by hand, and
#    refuses a workload without an unprobed run;
#  - scripts/workloads.sh parses guest output with CR LF line ends into CSV
#    rows, and stops when the runs probed different functions, and sums the
#    slot counts of a kernel with trampoline slots into a share of hits.
. "$(dirname "$0")/../../scripts/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
TAP_PREFIX="workloads: "

# f: the candidate; g: called, no stp; h: stp, never called; k: called,
# stp without writeback; m: called, stp of another pair.  With --entry pac:
# p and q (paciasp, pacibsp, called) only; r: paciasp, never called; u:
# called, pacia1716; v: called, bti c then paciasp (its entry is the bti).
cat > "$tmp/t.S" <<'ASM'
	.text
	.globl	_start
_start:	bl	f
	bl	g
	bl	k
	bl	m
	bl	p
	bl	q
	bl	u
	bl	v
	b	.
	.type	p, %function
p:	paciasp
	ret
	.type	q, %function
q:	pacibsp
	ret
	.type	r, %function
r:	paciasp
	ret
	.type	u, %function
u:	pacia1716
	ret
	.type	v, %function
v:	bti	c
	paciasp
	ret
	.type	f, %function
f:	stp	x29, x30, [sp, #-32]!
	ldp	x29, x30, [sp], #32
	ret
	.type	g, %function
g:	ret
	.type	h, %function
h:	stp	x29, x30, [sp, #-16]!
	ret
	.type	k, %function
k:	stp	x29, x30, [sp, #-16]
	ret
	.type	m, %function
m:	stp	x19, x20, [sp, #-16]!
	ret
ASM
"${CROSS_COMPILE}as" -march=armv8.5-a -o "$tmp/t.o" "$tmp/t.S"
"${CROSS_COMPILE}ld" -o "$tmp/t" "$tmp/t.o"
out=$("$ROOT/scripts/probe_candidates.py" "$tmp/t" 2>&1) || true
read -r off word name _ <<<"$out"
tap "$([ "$(wc -l <<<"$out")" = 1 ] && [ "$name" = f ] && [ "$word" = 0xa9be7bfd ] && echo 0 || echo 1)" \
	"probe_candidates: only f (BL target, stp x29, x30, [sp, #-32]!)" "$out"
fileword=$(od -An -tx4 -j "$((off))" -N4 "$tmp/t" 2>/dev/null | tr -d ' ')
tap "$([ "0x$fileword" = "$word" ] && echo 0 || echo 1)" \
	"probe_candidates: the offset points at that word in the file" "at $off: $fileword"
out=$("$ROOT/scripts/probe_candidates.py" --entry pac "$tmp/t" 2>&1) || true
tap "$([ "$(awk '{ print $2, $3 }' <<<"$out" | xargs)" = "0xd503233f p 0xd503237f q" ] && echo 0 || echo 1)" \
	"probe_candidates --entry pac: only p and q (BL targets, paciasp and pacibsp)" "$out"
"$ROOT/scripts/probe_candidates.py" --entry bti "$tmp/t" >/dev/null 2>"$tmp/err" && ok=1 || ok=0
tap "$([ "$ok" = 0 ] && grep -q -- '--entry takes one of: stp, pac' "$tmp/err" && echo 0 || echo 1)" \
	"probe_candidates: refuses an unknown --entry" "$(cat "$tmp/err")"
"$ROOT/scripts/probe_candidates.py" "$tmp/t.S" >/dev/null 2>"$tmp/err" && ok=1 || ok=0
tap "$([ "$ok" = 0 ] && grep -q 'not an AArch64 ELF' "$tmp/err" && echo 0 || echo 1)" \
	"probe_candidates: refuses a file that is not AArch64 ELF" "$(cat "$tmp/err")"

# grep (seconds): baseline overheads 10, 10, 20; patched 1, 1, 2 -> 0.1 each.
# redis-get (requests/s -> us/request): baseline 100 -> 200, patched
# 100 -> 125: overheads 100 and 25 -> 0.25.
cat > "$tmp/raw.csv" <<'CSV'
# base: 6.12, linux-source-6.12 6.12.117-1~deb12u1
# runs: 3
run,kernel,workload,case,value,hits
1,baseline,grep,none,10,0
1,baseline,grep,probe,20,500
1,patched,grep,none,10,0
1,patched,grep,probe,11,500
2,baseline,grep,none,12,0
2,baseline,grep,probe,22,500
2,patched,grep,none,12,0
2,patched,grep,probe,13,501
3,baseline,grep,none,11,0
3,baseline,grep,probe,31,500
3,patched,grep,none,11,0
3,patched,grep,probe,13,502
1,baseline,redis-get,none,10000,0
1,baseline,redis-get,probe,5000,7
1,patched,redis-get,none,10000,0
1,patched,redis-get,probe,8000,7
1,baseline,grep-13,none,10,0
1,baseline,grep-13,probe,14,300
1,patched,grep-13,none,10,0
1,patched,grep-13,probe,11,300
CSV
python3 "$ROOT/scripts/workloads_report.py" "$tmp/raw.csv" "$tmp/sum.csv" "$tmp/c.png" > "$tmp/table" 2>&1 || true
line=$(grep '^grep,s,baseline,' "$tmp/sum.csv" 2>/dev/null || true)
tap "$([ "$line" = "grep,s,baseline,11,10,12,22,20,31,10,10,20,2,1.83333,2.81818,500" ] && echo 0 || echo 1)" \
	"report: grep medians, paired overheads and ratios" "got: $line"
line=$(grep '^grep patched/baseline overhead,' "$tmp/sum.csv" 2>/dev/null | cut -d, -f13-15 || true)
tap "$([ "$line" = "0.1,0.1,0.1" ] && echo 0 || echo 1)" "report: grep patched/baseline overhead" "got: $line"
line=$(grep '^redis-get,us/req,patched,' "$tmp/sum.csv" 2>/dev/null | cut -d, -f4,7,10 || true)
tap "$([ "$line" = "100,125,25" ] && echo 0 || echo 1)" "report: redis requests/s as us/request" "got: $line"
line=$(grep '^redis-get patched/baseline overhead,' "$tmp/sum.csv" 2>/dev/null | cut -d, -f13 || true)
tap "$([ "$line" = "0.25" ] && grep -q 'redis-get .*target <= 0.5: met' "$tmp/table" && echo 0 || echo 1)" \
	"report: redis-get overhead ratio 0.25, target met" "got: $line"
line=$(grep '^grep-13,' "$tmp/sum.csv" 2>/dev/null | cut -d, -f2,3,10 | xargs || true)
tap "$([ "$line" = "s,baseline,4 s,patched,1" ] && echo 0 || echo 1)" \
	"report: Debian 13's grep in seconds" "got: $line"
tap "$([ -s "$tmp/c.png" ] && echo 0 || echo 1)" "report: chart written"
out=$(python3 "$ROOT/tests/host/png_ink.py" "$tmp/c.png" 2>&1) && rc=0 || rc=1
tap "$rc" "report: the chart: no label cut" "$out"
tap_is "report: the raw file's # lines start the summary" "$(grep '^#' "$tmp/raw.csv")" \
	"$(sed -n '/^#/!q; p' "$tmp/sum.csv")"
grep -v '^[0-9],patched,redis-get,none' "$tmp/raw.csv" > "$tmp/bad.csv"
python3 "$ROOT/scripts/workloads_report.py" "$tmp/bad.csv" "$tmp/s2" "$tmp/c2.png" >/dev/null 2>"$tmp/err" && ok=1 || ok=0
tap "$([ "$ok" = 0 ] && grep -q 'redis-get has no unprobed run on the patched kernel' "$tmp/err" && echo 0 || echo 1)" \
	"report: refuses a workload without an unprobed run" "$(cat "$tmp/err")"

# parse and probes of scripts/workloads.sh, on guest output as the console
# writes it (CR LF).
. "$ROOT/scripts/workloads.sh"
printf '%s\r\n' "TESTBED-WL probe grep /bin/grep 0xbaa0 0xa9b87bfd - 14869" \
	"TESTBED-WL result grep none 5.730 0" "TESTBED-WL result grep probe 6.564 89199" \
	"TESTBED-WL result redis-set none 6882.31 0" > "$tmp/a.txt"
got=$(parse "$tmp/a.txt" 2 patched | od -c | grep -c '\\r' || true)
line=$(parse "$tmp/a.txt" 2 patched | sed -n 2p)
tap "$([ "$got" = 0 ] && [ "$line" = "2,patched,grep,probe,6.564,89199" ] && echo 0 || echo 1)" \
	"parse: CSV rows without the CR" "got: $line ($got lines with a CR)"
printf '%s\r\n' "TESTBED-WL probe grep /bin/grep 0xbaa0 0xa9b87bfd - 14869" > "$tmp/b.txt"
out=$(probes "$tmp/a.txt" "$tmp/b.txt" 2>&1) && ok=0 || ok=1
tap "$([ "$ok" = 0 ] && [ "$out" = "probed in grep: /bin/grep+0xbaa0 (-), first word 0xa9b87bfd, in 2 runs" ] &&
	echo 0 || echo 1)" "probes: one line per program when the runs agree" "$out"
printf '%s\r\n' "TESTBED-WL probe grep /bin/grep 0x63d0 0xa9ad7bfd - 14000" > "$tmp/c.txt"
out=$( (probes "$tmp/a.txt" "$tmp/c.txt") 2>&1) && ok=0 || ok=1
tap "$([ "$ok" = 1 ] && grep -q 'probed different functions' <<<"$out" && echo 0 || echo 1)" \
	"probes: stops when the runs probed different functions" "$out"
printf '%s\r\n' "TESTBED-WL slots grep-13 100 97 3" "TESTBED-WL slots redis-13-get 60 0 60" > "$tmp/d.txt"
printf '%s\r\n' "TESTBED-WL slots grep-13 100 96 4" > "$tmp/e.txt"
out=$(slots "$tmp/d.txt" "$tmp/e.txt" "$tmp/a.txt")
want="grep-13: 193 of 200 hits through the slot (96.5%), 7 branch-target exceptions on the B
redis-13-get: 0 of 60 hits through the slot (0.0%), 60 branch-target exceptions on the B"
tap "$([ "$out" = "$want" ] && echo 0 || echo 1)" "slots: the share of hits through a slot, summed over runs" "$out"
