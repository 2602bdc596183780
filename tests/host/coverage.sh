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
TAP_PREFIX="coverage: "
declare -A VERDICT

# Encodings whose verdicts are worked out by hand from decode-insn.c and
# uprobes.c (base: tag base; patched: the series plus ADD/SUB imm, MOV reg,
# MOVZ/MOVN, the LR push): insn, base verdict, patched verdict, what it is.
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
0xd503233f stepped simulated paciasp
0xd503237f stepped simulated pacibsp
0xa93f7bfd stepped stepped stp x29, x30, [sp, #-16] (no writeback)
0xf81f0ffe stepped simulated str x30, [sp, #-16]!
0xf81f07fe stepped stepped str x30, [sp], #-16 (post-index)
0xd65f03c0 simulated simulated ret
0xd53b4220 rejected rejected mrs x0, daif
0xdac1a3fe stepped rejected paciasppc
0xd65f0be2 stepped rejected retaasppcr x2
0xdac1905e stepped stepped autiasppcr x2
0xf4c30042 stepped simulated cbeq x2, x3, .+8 (FEAT_CMPBR)
0x74e3c042 stepped simulated cbhne w2, w3, .+8
0x75a08042 stepped rejected cb<cc 0b101> w2, #1 (unallocated)
EOF
)

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

# masks_match: every mask, hint value and steppable hint of a64_uprobe.py
# (coverage.py's decoder) is the one of insn.h.
masks_match() {
	local out rc=0
	out=$(python3 - "$ROOT/scripts" "$INSN_H" <<'PY' 2>&1
import re, sys
sys.path.insert(0, sys.argv[1])
import a64_uprobe as c
src = open(sys.argv[2]).read()
funcs = {m[0]: (int(m[1], 16), int(m[2], 16)) for m in re.findall(
    r"__AARCH64_INSN_FUNCS\((\w+),\s*(0[xX][0-9a-fA-F]+),\s*(0[xX][0-9a-fA-F]+)\)", src)}
# mainline has no __AARCH64_INSN_FUNCS(nop): an exact compare with
# aarch64_insn_gen_nop(), the encoding of HINT #0
if "nop" not in funcs and re.search(
        r"aarch64_insn_is_nop\(u32 insn\)\n\{\n\treturn insn == aarch64_insn_gen_nop\(\);", src):
    funcs["nop"] = (0xffffffff, 0xd503201f)
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

# go_pclntab: parse_pclntab() and go_entries() of elf_entries.py on synthetic
# tables and ELF files, and on the gowork binary where it is built; one TAP
# line per case (a skipped case as "# SKIP").  The Python part prints
# "ok|fail|skip<TAB>description<TAB>detail" lines.
go_pclntab() {
	local out status desc detail
	out=$(python3 - "$ROOT/scripts" "$BUILD/guest-bin/tools/gowork" <<'PY' 2>&1
import os, struct, subprocess, sys, tempfile
sys.path.insert(0, sys.argv[1])
import elf_entries as c
gowork = sys.argv[2]

def say(ok, desc, detail=""):
    print("%s\t%s\t%s" % ("ok" if ok else "fail", desc, str(detail).replace("\n", " ")))

def pclntab(magic, text_start, offs, end, ptrsize=8):
    # header: magic, 0, 0, minLC 4, ptrSize; 8 words (nfunc, nfiles,
    # textStart, 4 table offsets, pclnOffset); then the functab
    pcln = 8 + 8 * ptrsize
    words = [len(offs), 1, text_start, pcln, pcln, pcln, pcln, pcln]
    hdr = struct.pack("<IBBBB", magic, 0, 0, 4, ptrsize)
    hdr += b"".join(w.to_bytes(ptrsize, "little") for w in words)
    tab = b"".join(struct.pack("<II", o, 0x1000 + i) for i, o in enumerate(offs))
    return hdr + tab + struct.pack("<I", end)

def raises(data):
    try:
        c.parse_pclntab(data)
    except ValueError:
        return True
    return False

for magic in (0xfffffff0, 0xfffffff1):
    for ptrsize in (8, 4):
        t = c.parse_pclntab(pclntab(magic, 0x10100, [0, 8, 0x20], 0x40, ptrsize))
        got = (t.magic, t.quantum, t.ptrsize, t.text_start, t.entry_offs, t.end_off)
        want = (magic, 4, ptrsize, 0x10100, [0, 8, 0x20], 0x40)
        say(got == want, "pclntab magic %#x ptrSize %d parsed" % (magic, ptrsize), "got %s" % (got,))
good = pclntab(0xfffffff1, 0x10100, [0, 8, 0x20], 0x40)
for desc, data in (("Go 1.16 magic 0xfffffffa", pclntab(0xfffffffa, 0x10100, [0], 4)),
                   ("big-endian magic", b"\xff\xff\xff\xf1" + good[4:]),
                   ("ptrSize 2", good[:7] + b"\x02" + good[8:]),
                   ("truncated functab", good[:-4]),
                   ("descending functab", pclntab(0xfffffff0, 0x10100, [8, 0], 0x40)),
                   ("short header", good[:20])):
    say(raises(data), "pclntab refused: " + desc)

SHT_PROGBITS, SHT_STRTAB, SHF_ALLOC, SHF_EXECINSTR = 1, 3, 2, 4

def elf(sections):
    # An ELF64 little-endian AArch64 EXEC file with only section headers:
    # sections = [(name, addr, flags, bytes)], placed from file offset 0x100.
    names = b"\0" + b"".join(n.encode() + b"\0" for n, _, _, _ in sections) + b".shstrtab\0"
    body, heads, off, name_off = b"", [bytes(64)], 0x100, 1
    for n, addr, flags, data in sections + [(".shstrtab", 0, 0, names)]:
        body += data + bytes(-len(data) % 16)
        typ = SHT_STRTAB if n == ".shstrtab" else SHT_PROGBITS
        heads.append(struct.pack("<IIQQQQIIQQ", name_off, typ, flags, addr, off, len(data),
                                 0, 0, 4, 0))
        off += len(data) + (-len(data) % 16)
        name_off += len(n) + 1
    shoff = 0x100 + len(body)
    ehdr = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9)
    ehdr += struct.pack("<HHIQQQIHHHHHH", 2, 183, 1, 0, 0, shoff, 0, 64, 0, 0, 64,
                        len(heads), len(heads) - 1)
    return ehdr + bytes(0x100 - len(ehdr)) + body + b"".join(heads)

words = {0: 0xf9400b90, 8: 0xa9bf7bfd, 0x20: 0xd503201f}
text = b"".join(struct.pack("<I", words.get(i, 0xd4200000)) for i in range(0, 0x40, 4))
# entries: a duplicate address (8) counts once, one past .text (0x100) is skipped
tab = pclntab(0xfffffff1, 0x10100, [0, 8, 8, 0x20, 0x100], 0x104)
want = [(0x10100 + o, w) for o, w in sorted(words.items())]
with tempfile.TemporaryDirectory() as d:
    def entries_of(sections):
        path = os.path.join(d, "f%d" % len(os.listdir(d)))
        with open(path, "wb") as f:
            f.write(elf(sections))
        return c.go_entries(path)
    got = entries_of([(".text", 0x10100, SHF_ALLOC | SHF_EXECINSTR, text),
                      (".gopclntab", 0x20000, SHF_ALLOC, tab)])
    say(got == want, "go_entries of a synthetic ELF file (dedupe, outside .text skipped)",
        "got %s" % [(hex(a), hex(w)) for a, w in got or []])
    got = entries_of([(".text", 0x10100, SHF_ALLOC | SHF_EXECINSTR, text),
                      (".data.rel.ro.gopclntab", 0x20000, SHF_ALLOC, tab)])
    say(got == want, "go_entries reads .data.rel.ro.gopclntab (PIE)", "got %s" % got)
    got = entries_of([(".text", 0x10100, SHF_ALLOC | SHF_EXECINSTR, text),
                      (".rodata", 0x20000, SHF_ALLOC, tab)])
    say(got is None, "go_entries: no .gopclntab, not a Go binary (None)", "got %s" % got)

desc = "go_entries of gowork equal its .symtab functions; main.work starts with ldr x16"
if not os.path.exists(gowork):
    print("skip\t%s\tno %s (scripts/gowork.sh)" % (desc, os.path.basename(gowork)))
else:
    got = dict(c.go_entries(gowork))
    out = subprocess.run([c.CROSS + "readelf", "-sW", gowork], stdout=subprocess.PIPE,
                         text=True, check=True).stdout
    syms = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 8 and f[3] == "FUNC" and f[7] != "runtime.etext":
            syms[f[7]] = int(f[1], 16)
    work = syms.get("main.work")
    say(set(got) == set(syms.values()) and got.get(work) == c.GO_STACK_CHECK, desc,
        "%d entries, %d symbols, main.work %s" % (len(got), len(syms),
                                                  hex(got.get(work) or 0)))
PY
	) || { tap 1 "Go pclntab reader runs" "$out"; return; }
	while IFS=$'\t' read -r status desc detail; do
		case $status in
		ok) tap 0 "$desc" ;;
		skip) tap_skip "$desc" "$detail" ;;
		*) tap 1 "$desc" "${detail:-$status}" ;;
		esac
	done <<<"$out"
}

known_verdicts
masks_match
kunit_table
go_pclntab
