#!/usr/bin/env bash
# TAP: the instruction classifier of scripts/coverage.py (no network, no
# download).  It gives the known verdicts for a handful of encodings on the
# base and patched kernels; its masks equal the __AARCH64_INSN_FUNCS() and
# hint values of the tree that is built ($KSRC, at the queue); and for each
# line of the KUnit decoder table in probes_kunit.c,
#	{ 0xd503201f, SIMULATED, SIMULATED },	/* nop */
# (insn, kprobe verdict, uprobe verdict, then any further fields, such as
# a handler) its patched verdict equals the uprobe column.  A table without
# entries fails.
. "$(dirname "$0")/../../scripts/lib.sh"

COVERAGE=$ROOT/scripts/coverage.py
KUNIT=$KSRC/arch/arm64/kernel/probes/probes_kunit.c
INSN_H=$KSRC/arch/arm64/include/asm/insn.h
n=0
declare -A VERDICT

# Encodings whose verdicts are worked out by hand from decode-insn.c and
# uprobes.c (base: tag base; patched: the series plus ADD/SUB imm, MOV reg,
# MOVZ/MOVN): insn, base verdict, patched verdict, what it is.
KNOWN=$(cat <<'EOF'
0xd503201f stepped simulated nop
0xa9bf7bfd stepped simulated stp x29, x30, [sp, #-16]!
0xd10043ff stepped simulated sub sp, sp, #16
0x58000040 rejected rejected ldr x0, literal
0x91000400 stepped simulated add x0, x0, #1
0x910003fd stepped simulated mov x29, sp
0xaa0103e0 stepped simulated mov x0, x1
0xd2800020 stepped simulated movz x0, #1
0x92800000 stepped simulated movn x0, #0
0xf2800000 stepped stepped movk x0, #0
0x91800000 stepped stepped addg (bit 23 set)
0xb1000400 stepped stepped adds x0, x0, #1
0x12c00000 stepped stepped movn w0, #0, lsl #32 (unallocated)
0xd503241f stepped simulated bti
0xd503233f stepped stepped paciasp
0xa93f7bfd stepped stepped stp x29, x30, [sp, #-16] (no writeback)
0xd65f03c0 simulated simulated ret
0xd53b4220 rejected rejected mrs x0, daif
EOF
)

# tap OK DESC [DETAIL...]: one numbered TAP line (OK is an exit status);
# the DETAIL lines follow as comments when it failed.  (Callers pass the
# status of a test: a failing test would end the script under set -e.)
tap() {
	local ok=$1 desc=$2
	shift 2
	n=$((n + 1))
	if [ "$ok" = 0 ]; then
		echo "ok $n - coverage: $desc"
	else
		echo "not ok $n - coverage: $desc"
		[ "$#" -eq 0 ] || printf '%s\n' "$@" | sed 's/^/# /'
	fi
}

# same A B: print 0 when the strings A and B are equal, else 1.
same() { if [ "$1" = "$2" ]; then echo 0; else echo 1; fi; }

# verdicts ROWS: set VERDICT[insn] to "base patched" (one coverage.py
# --classify call; insn as it prints it, 0x and 8 digits) for the first word
# of each line of ROWS.  VERDICT stays empty where coverage.py fails.
verdicts() {
	local insn base patched _
	VERDICT=()
	# shellcheck disable=SC2046 # one word per row
	while IFS=$'\t' read -r insn base patched _; do
		VERDICT[$insn]="$base $patched"
	done < <(python3 "$COVERAGE" --classify $(cut -d' ' -f1 <<<"$1") || true)
}

# known_verdicts: coverage.py's verdicts for the KNOWN encodings.
known_verdicts() {
	local insn base patched note got
	verdicts "$KNOWN"
	while read -r insn base patched note; do
		got=${VERDICT[$insn]:-none}
		tap "$(same "$got" "$base $patched")" "classify $insn ($note): $base on base, $patched on patched" "got: $got"
	done <<<"$KNOWN"
}

# masks_match: every mask, hint value and steppable hint of coverage.py is
# the one of insn.h.
masks_match() {
	local out rc=0
	out=$(python3 - "$ROOT/scripts" "$INSN_H" <<'PY' 2>&1
import re, sys
sys.path.insert(0, sys.argv[1])
import coverage as c
src = open(sys.argv[2]).read()
funcs = {m[0]: (int(m[1], 16), int(m[2], 16)) for m in re.findall(
    r"__AARCH64_INSN_FUNCS\((\w+),\s*(0[xX][0-9a-fA-F]+),\s*(0[xX][0-9a-fA-F]+)\)", src)}
hints = {m[0]: int(m[1], 16) << 5 for m in re.findall(
    r"AARCH64_INSN_HINT_(\w+)\s*=\s*(0[xX][0-9a-fA-F]+)\s*<<\s*5", src)}
body = re.search(r"aarch64_insn_is_steppable_hint\(u32 insn\)\n\{(.*?)\n\}", src, re.S)
steppable = {hints.get(h) for h in re.findall(r"case AARCH64_INSN_HINT_(\w+):",
                                               body.group(1) if body else "")}
def hexes(mv):
    return "(%#x, %#x)" % mv if mv else "none"
bad = ["%s: coverage.py %s, insn.h %s" % (k, hexes(v), hexes(funcs.get(k)))
       for k, v in c.INSN.items() if funcs.get(k) != v]
bad += ["hint %s: coverage.py %#x, insn.h %s" % (k, v, hex(hints[k]) if k in hints else "none")
        for k, v in c.HINT.items() if hints.get(k) != v]
if steppable != set(c.STEPPABLE_HINTS):
    bad.append("steppable hints differ: insn.h %s" % sorted(hex(h or 0) for h in steppable))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
	) || rc=$?
	tap "$rc" "masks and hints equal those of insn.h" "${out:-no output}"
}

# kunit_table: the patched verdict of each entry of the KUnit decoder table
# equals its uprobe column.
kunit_table() {
	local rows insn uprobe comment got
	rows=$(sed -n -E 's@^[[:space:]]*\{[[:space:]]*(0[xX][0-9a-fA-F]+)[[:space:]]*,[[:space:]]*(REJECTED|STEPPED|SIMULATED)[[:space:]]*,[[:space:]]*(REJECTED|STEPPED|SIMULATED)[[:space:]]*(,[^}]*)?\}[[:space:]]*,?[[:space:]]*(/\*[[:space:]]*(.*[^[:space:]])[[:space:]]*\*/)?.*$@\1 \3 \6@p' \
		"$KUNIT" 2>/dev/null) || true
	if [ -z "$rows" ]; then
		tap 1 "KUnit decoder table has entries" \
			"no '{ insn, KPROBE, UPROBE[, ...] },' line in ${KUNIT#"$ROOT"/}"
		return
	fi
	verdicts "$rows"
	while read -r insn uprobe comment; do
		uprobe=${uprobe,,}
		got=${VERDICT[$(printf '%#010x' "$insn")]:-none none}
		got=${got#* }
		tap "$(same "$got" "$uprobe")" "KUnit table $insn ${comment:+($comment) }uprobe $uprobe" "coverage.py says: $got"
	done <<<"$rows"
}

known_verdicts
masks_match
kunit_table
