#!/usr/bin/env python3
"""Coverage of function entries: which share of the exported functions of
some Debian arm64 packages (bookworm, or trixie with --suite) a uprobe on
the entry handles with one
exception (the kernel simulates the first instruction), on the base kernel
and on the patched one, and which instruction classes are still stepped out
of line (two exceptions) or rejected.

Usage:
  coverage.py [--packages PKG...]   download (apt-get download PKG:arm64,
                                    cached in build/coverage/debs), unpack,
                                    count; report on stdout and in
                                    build/coverage/report.txt
  coverage.py --go [PKG...]         the same for packages of Go programs
                                    (default: esbuild), entries from
                                    .gopclntab; also counts the entries that
                                    start with ldr x16, [x28, #16]; report in
                                    build/coverage/report-go.txt
  coverage.py --classify HEX...     print, per 32-bit instruction word:
                                    insn, base verdict, patched verdict, class

Entries: the defined FUNC symbols of .dynsym of every AArch64 ELF file of
the packages (the cross readelf reads them), one per (file, address); a file
shipped twice with the same bytes (redis-check-aof and redis-check-rdb)
counts once.  The first instruction is read at the symbol's address through
its section header; symbols outside executable sections are skipped.
With --go, the entries are instead the functions of the Go 1.18+ pclntab
(.gopclntab) of each AArch64 ELF file that has one (a Go program exports
next to nothing in .dynsym), one per address; other files are skipped.

Verdicts mirror the uprobe path of the kernel (arch_uprobe_analyze_insn in
arch/arm64/kernel/probes/uprobes.c, which calls arm_probe_decode_insn in
decode-insn.c with the masks of arch/arm64/include/asm/insn.h):
  simulated  INSN_GOOD_NO_SLOT or auprobe->simulate: one exception
  stepped    INSN_GOOD: stepped out of line, two exceptions
  rejected   INSN_REJECTED: the probe cannot be placed
"base" is tag base of build/6.12/linux (Debian 6.12); "patched" is the series:
nop simulated, and for uprobes bti, paciasp/pacibsp, the stp x29,x30 push and the
register-only ADD/SUB (immediate), MOV (register), MOVZ/MOVN, the LR push
STR x30, [sp, #imm]! and LDR (immediate, unsigned offset, Xn not SP).

Environment: BUILD (default: build/ of this repository), CROSS_COMPILE
(default aarch64-linux-gnu-).  Exits 1 with a message on a missing tool, a
failed download, an unreadable pclntab, when no entry is found, or with
--go when no package holds a Go binary.
"""
import argparse
import collections
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("BUILD") or os.path.join(ROOT, "build")
CROSS = os.environ.get("CROSS_COMPILE", "aarch64-linux-gnu-")
WORK = os.path.join(BUILD, "coverage")

# The packages the issue names.  redis-server ships only /usr/bin/redis-server,
# a symlink to redis-check-rdb of redis-tools: the redis binaries are there.
DEFAULT_PACKAGES = ("libc6", "bash", "coreutils", "grep", "redis-tools", "libssl3",
                    "python3.11-minimal", "libstdc++6", "zlib1g")
# The same programs in Debian 13 (trixie), built with
# -mbranch-protection=standard: their names there.
SUITE_PACKAGES = {
    "bookworm": DEFAULT_PACKAGES,
    "trixie": ("libc6", "bash", "coreutils", "grep", "redis-tools", "libssl3t64",
               "python3.13-minimal", "libstdc++6", "zlib1g"),
}

# --go: esbuild is a Go program (Go 1.19 in bookworm), 4.9 MB.
DEFAULT_GO_PACKAGES = ("esbuild",)

KERNELS = ("base", "patched")
VERDICTS = ("simulated", "stepped", "rejected")

# __AARCH64_INSN_FUNCS(abbr, mask, val) of arch/arm64/include/asm/insn.h:
# aarch64_insn_is_<abbr>(insn) is (insn & mask) == val.  Only the ones the
# decoder (and the class names) use.  tests/host/coverage.sh checks them
# against the header of the tree that is built.
INSN = {
    "class_branch_sys": (0x1c000000, 0x14000000),
    "adr": (0x9F000000, 0x10000000),
    "adrp": (0x9F000000, 0x90000000),
    "prfm_lit": (0xFF000000, 0xD8000000),
    "ldr_lit": (0xBF000000, 0x18000000),
    "ldrsw_lit": (0xFF000000, 0x98000000),
    "ldr_lit_simd": (0x3F000000, 0x1C000000),
    "ldr_imm": (0x3FC00000, 0x39400000),
    "store_pre": (0x3FE00C00, 0x38000C00),
    "exclusive": (0x3F800000, 0x08000000),
    "mops": (0x3B200C00, 0x19000400),
    "stp_pre": (0x7FC00000, 0x29800000),
    "mov_reg": (0x7FE0FFE0, 0x2A0003E0),
    "b": (0xFC000000, 0x14000000),
    "bl": (0xFC000000, 0x94000000),
    "cbz": (0x7F000000, 0x34000000),
    "cbnz": (0x7F000000, 0x35000000),
    "tbz": (0x7F000000, 0x36000000),
    "tbnz": (0x7F000000, 0x37000000),
    "bcond": (0xFF000000, 0x54000000),
    "cb_cond": (0x7E000000, 0x74000000),
    "exception": (0xFF000000, 0xD4000000),
    "hint": (0xFFFFF01F, 0xD503201F),
    "br": (0xFFFFFC1F, 0xD61F0000),
    "br_auth": (0xFEFFF800, 0xD61F0800),
    "blr": (0xFFFFFC1F, 0xD63F0000),
    "blr_auth": (0xFEFFF800, 0xD63F0800),
    "ret": (0xFFFFFC1F, 0xD65F0000),
    "ret_auth": (0xFFFFFBFF, 0xD65F0BFF),
    "eret": (0xFFFFFFFF, 0xD69F03E0),
    "eret_auth": (0xFFFFFBFF, 0xD69F0BFF),
    "paci_sppc": (0xFFFFDBFF, 0xDAC183FE),
    "auti_sppc": (0xFFC0001F, 0xF380001F),
    "reta_sppc": (0xFFC0001F, 0x5500001F),
    "reta_sppcr": (0xFFFFFBE0, 0xD65F0BE0),
    "mrs": (0xFFF00000, 0xD5300000),
    "msr_imm": (0xFFF8F01F, 0xD500401F),
    "msr_reg": (0xFFF00000, 0xD5100000),
    "bti": (0xFFFFFF3F, 0xD503241F),
    "nop": (0xFFFFFFFF, 0xD503201F),
}

# enum aarch64_insn_hint_cr_op (insn.h): CRm:op2 << 5, as insn & 0xFE0.
HINT = {"NOP": 0x00, "XPACLRI": 0x07, "PACIA_1716": 0x08, "PACIB_1716": 0x0A,
        "AUTIA_1716": 0x0C, "AUTIB_1716": 0x0E, "PACIAZ": 0x18, "PACIASP": 0x19,
        "PACIBZ": 0x1A, "PACIBSP": 0x1B, "AUTIAZ": 0x1C, "AUTIASP": 0x1D,
        "AUTIBZ": 0x1E, "AUTIBSP": 0x1F, "BTI": 0x20, "BTIC": 0x22, "BTIJ": 0x24,
        "BTIJC": 0x26}
HINT = {k: v << 5 for k, v in HINT.items()}
# The cases of aarch64_insn_is_steppable_hint() (insn.h).
STEPPABLE_HINTS = frozenset(HINT[h] for h in (
    "XPACLRI", "PACIA_1716", "PACIB_1716", "PACIAZ", "PACIASP", "PACIBZ",
    "PACIBSP", "BTI", "BTIC", "BTIJ", "BTIJC", "NOP"))
SPCLREG_DAIF = 0xDA11   # enum aarch64_insn_system_register (insn.h)
REG_FP, REG_LR, REG_SP = 29, 30, 31


def is_(name, insn):
    """aarch64_insn_is_<name>(insn) of insn.h: name is a key of INSN, insn a
    32-bit word; returns a bool.  KeyError for a name not in INSN."""
    mask, val = INSN[name]
    return insn & mask == val


def _steppable_hint(insn):
    # aarch64_insn_is_steppable_hint() (insn.h)
    return is_("hint", insn) and (insn & 0xFE0) in STEPPABLE_HINTS


def _is_branch(insn, patched):
    # aarch64_insn_is_branch() (insn.h); the series adds FEAT_CMPBR's CB<cc>
    return any(is_(n, insn) for n in ("b", "bl", "cbz", "cbnz", "tbz", "tbnz", "ret",
                                      "ret_auth", "br", "br_auth", "blr", "blr_auth",
                                      "bcond")) or (patched and is_("cb_cond", insn))


def _cb_cond_allocated(insn):
    # aarch64_insn_is_cb_cond_allocated() (insn.h of the series): CB<cc> with
    # a register (sz 0b00) or an imm6 (bit 14 clear), CBB<cc> and CBH<cc>
    # (sf 0, sz 0b1x), not conditions 0b100 and 0b101.  The kernel simulates
    # them where the CPU has FEAT_CMPBR, as this models.
    if insn & 0x00C00000 == 0x00800000:
        return False
    return (insn & 0x7F00C000 == 0x74000000 or insn & 0xFF008000 == 0x74008000
            or insn & 0x7F004000 == 0x75000000)


def _uses_literal(insn, patched):
    # aarch64_insn_uses_literal() (insn.h): ldr/ldrsw (literal), adr/adrp,
    # prfm; the series adds ldr (literal, SIMD&FP)
    return any(is_(n, insn) for n in ("ldr_lit", "ldrsw_lit", "adr", "adrp", "prfm_lit")) \
        or (patched and is_("ldr_lit_simd", insn))


def _pauth_lr_pc(insn):
    # aarch64_insn_is_pauth_lr_pc() (insn.h of the series): the FEAT_PAuth_LR
    # forms whose modifier is the PC, and RETAxSPPCR
    return any(is_(n, insn) for n in ("paci_sppc", "auti_sppc", "reta_sppc", "reta_sppcr"))


def _steppable(insn, patched):
    # aarch64_insn_is_steppable() (decode-insn.c)
    if patched and _pauth_lr_pc(insn):
        return False
    if is_("class_branch_sys", insn):
        if _is_branch(insn, patched) or any(is_(n, insn) for n in (
                "msr_imm", "msr_reg", "exception", "eret", "eret_auth")):
            return False
        if is_("mrs", insn):
            # aarch64_insn_extract_system_reg() (arch/arm64/lib/insn.c)
            return (insn & 0x1FFFE0) >> 5 != SPCLREG_DAIF
        if is_("hint", insn):
            return _steppable_hint(insn)
        return True
    return not (_uses_literal(insn, patched) or is_("exclusive", insn) or is_("mops", insn))


def _decode(insn, patched):
    # arm_probe_decode_insn() (decode-insn.c); the series adds the nop case.
    if patched and is_("nop", insn):
        return "simulated"
    if _steppable(insn, patched):
        return "stepped"
    if patched and _cb_cond_allocated(insn):
        return "simulated"
    if any(is_(n, insn) for n in ("bcond", "cbz", "cbnz", "tbz", "tbnz", "adr", "adrp",
                                  "b", "bl", "br", "blr", "ret")):
        return "simulated"
    return "rejected"


def _is_stp_fp_lr_sp_64b(insn):
    # aarch64_insn_is_stp_fp_lr_sp_64b() (insn.h of branch series)
    return (is_("stp_pre", insn) and insn >> 30 == 0x2 and (insn >> 5) & 0x1f == REG_SP
            and insn & 0x1f == REG_FP and (insn >> 10) & 0x1f == REG_LR)


def _is_pac_sp(insn):
    # PACIASP, PACIBSP: simulated for uprobes (uprobes.c of the series)
    return is_("hint", insn) and insn & 0xFE0 in (HINT["PACIASP"], HINT["PACIBSP"])


def _is_added_now(insn):
    # The register-only forms, the LR push and the LDR of the uprobe simulation (insn.h of the series:
    # aarch64_insn_is_add_sub_imm_noflags, _mov_reg, _movz_movn): ADD/SUB
    # (immediate) not setting flags (not ADDG/SUBG: bit 23), MOV (register),
    # MOVZ/MOVN (not the unallocated sf == 0, hw >= 2).
    if insn & 0x1f800000 == 0x11000000 and not insn >> 29 & 1:
        return True
    if is_("mov_reg", insn):
        return True
    # aarch64_insn_is_str_lr_sp_pre(): STR x30, [sp, #imm]! (store_pre, 64-bit)
    if is_("store_pre", insn) and insn >> 30 == 3 and (insn >> 5) & 0x1f == REG_SP \
            and insn & 0x1f == REG_LR:
        return True
    # aarch64_insn_is_ldr_imm_xn(): LDR Wt/Xt (unsigned offset), base not SP
    if is_("ldr_imm", insn) and insn >> 31 and (insn >> 5) & 0x1f != REG_SP:
        return True
    if insn & 0x1f800000 == 0x12800000 and (insn >> 29) & 3 in (0, 2):
        return insn >> 31 == 1 or (insn >> 21) & 3 < 2
    return False


def verdict(insn, kernel):
    """The uprobe verdict for one instruction word.
    insn: int, a 32-bit A64 word; kernel: "base" or "patched".
    Returns "simulated", "stepped" or "rejected".  ValueError on another kernel.
    Follows arch_uprobe_analyze_insn() (uprobes.c) and arm_probe_decode_insn()
    (decode-insn.c): base = tag base, patched = the series (with the
    register-only forms, the LR push and the LDR of _is_added_now())."""
    if kernel == "base":
        return _decode(insn, patched=False)
    if kernel != "patched":
        raise ValueError("kernel must be base or patched, not %r" % (kernel,))
    if is_("bti", insn) or _is_pac_sp(insn) or _is_stp_fp_lr_sp_64b(insn) \
            or _is_added_now(insn):
        return "simulated"
    return _decode(insn, patched=True)


def _class_branch_sys(insn):
    for names, label in ((("b",), "b"), (("bl",), "bl"), (("bcond",), "b.cond"),
                         (("cbz", "cbnz"), "cbz/cbnz"), (("tbz", "tbnz"), "tbz/tbnz"),
                         (("cb_cond",), "cb<cc> (cmpbr)"),
                         (("ret", "br", "blr"), "ret/br/blr"),
                         (("ret_auth", "br_auth", "blr_auth"), "retaa/braa/blraa (pauth)"),
                         (("exception",), "svc/brk/hlt (exception)"),
                         (("nop",), "nop"), (("bti",), "bti"),
                         (("mrs",), "mrs"), (("msr_imm", "msr_reg"), "msr")):
        if any(is_(n, insn) for n in names):
            return label
    if is_("hint", insn):
        h = insn & 0xFE0
        if h in (HINT["PACIASP"], HINT["PACIBSP"]):
            return "paciasp/pacibsp"
        if h in (HINT["AUTIASP"], HINT["AUTIBSP"]):
            return "autiasp/autibsp"
        if h in HINT.values():
            return "pac/aut hint (other)"
        return "hint (other)"
    if insn & 0xFFFFF01F == 0xD503301F:
        return "barrier (dmb/dsb/isb/clrex)"
    if insn & 0xFFC00000 == 0xD5000000:
        return "system (sys/other)"
    return "branch/system (other)"


def _class_dp_imm(insn):
    if is_("adrp", insn):
        return "adrp"
    if is_("adr", insn):
        return "adr"
    op = (insn >> 23) & 7
    sf, rn, rd = insn >> 31, (insn >> 5) & 31, insn & 31
    if op == 0b010:
        if insn >> 29 & 1:
            return "adds/subs imm (cmp/cmn)"
        if sf and insn >> 30 & 1 and rn == REG_SP and rd == REG_SP:
            return "sub sp,sp,#imm"
        return "add/sub imm (other)"
    if op == 0b101:
        opc, hw = (insn >> 29) & 3, (insn >> 21) & 3
        if opc == 3:
            return "movk"
        if opc == 1 or (not sf and hw >= 2):
            return "move wide (unallocated)"
        return "movz/movn"
    return {0b011: "addg/subg (mte)", 0b100: "logical imm",
            0b110: "bitfield (ubfm/sbfm/bfm)", 0b111: "extr"}[op]


def _class_ldst(insn):
    if is_("exclusive", insn):
        return "load/store exclusive"
    if is_("mops", insn):
        return "mops (cpy/set)"
    v, rn = insn >> 26 & 1, (insn >> 5) & 31
    if insn & 0x3B000000 == 0x18000000:
        if v:
            return "ldr (literal, simd/fp)"
        return ("ldr (literal)", "ldr (literal)", "ldrsw (literal)",
                "prfm (literal)")[insn >> 30]
    if insn & 0x3F000000 == 0x08000000:
        return "ldar/stlr/cas"
    if insn & 0x38000000 == 0x28000000:
        if v:
            return "stp/ldp (simd/fp)"
        if insn >> 22 & 1:
            return "ldp"
        if is_("stp_pre", insn) and rn == REG_SP:
            return "stp (other regs),[sp,#imm]!"
        return "stp (other)"
    if insn & 0x38000000 == 0x38000000:
        if v:
            return "ldr/str (simd/fp)"
        size, opc = insn >> 30, (insn >> 22) & 3
        ld = "ldr" if opc else "str"
        if size == 3 and opc == 2:
            return "prfm"
        if insn >> 24 & 1:
            return ld + " (imm)"
        if not insn >> 21 & 1:
            mode = (insn >> 10) & 3
            if mode == 0:
                return ld + " (imm)"
            if mode == 2:
                return "ldtr/sttr"
            if size == 3 and opc == 0 and mode == 3 and rn == REG_SP:
                return "str x30,[sp,#imm]!" if insn & 0x1f == REG_LR else "str xN,[sp,#imm]!"
            return ld + " (pre/post-index)"
        mode = (insn >> 10) & 3
        if mode == 2:
            return "ldr/str (reg)"
        return "atomic (lse)" if mode == 0 else "ldraa/ldrab (pauth)"
    return "other load/store"


def _class_dp_reg(insn):
    if insn >> 28 & 1:
        return "other data-processing (reg)"
    if insn >> 24 & 1:
        return "add/sub reg"
    return "mov reg" if is_("mov_reg", insn) else "logical reg"


def insn_class(insn):
    """A short human name for the instruction class of a 32-bit A64 word
    (insn: int).  Returns a str; no errors.  Follows the A64 encoding index
    of the Arm ARM (op0 = bits 28:25) with the masks of insn.h where it has
    them; only a label: verdicts come from verdict()."""
    if _is_stp_fp_lr_sp_64b(insn):
        return "stp x29,x30,[sp,#imm]!"
    op0 = (insn >> 25) & 0xf
    if op0 >> 1 == 0b101:
        return _class_branch_sys(insn)
    if op0 >> 1 == 0b100:
        return _class_dp_imm(insn)
    if op0 & 0b0101 == 0b0100:
        return _class_ldst(insn)
    if op0 & 0b0111 == 0b0101:
        return _class_dp_reg(insn)
    if op0 & 0b0111 == 0b0111:
        return "simd/fp data-processing"
    if op0 == 0:
        return "udf/unallocated"
    return "sve/sme/unallocated"


# ---------------------------------------------------------------- packages

def die(msg):
    """Print 'coverage: ERROR: msg' on stderr and exit 1 (SystemExit)."""
    sys.stderr.write("coverage: ERROR: %s\n" % msg)
    sys.exit(1)


def log(msg):
    """A progress line on stderr."""
    sys.stderr.write("coverage: %s\n" % msg)
    sys.stderr.flush()


def need_tools(tools):
    """Exit with a message naming the first of tools not on PATH."""
    for t in tools:
        if not shutil.which(t):
            die("missing tool '%s': run 'make deps' (scripts/deps.sh) first" % t)


def fetch(pkg, debs):
    """The path of PKG's arm64 .deb in the folder debs: the cached one, else
    downloaded with 'apt-get download PKG:arm64'.  Exits with a message when
    the download fails (no arm64 lists: scripts/deps.sh, apt-get update)."""
    have = sorted(glob.glob(os.path.join(debs, glob.escape(pkg) + "_*_arm64.deb")))
    if have:
        return have[-1]
    log("downloading %s:arm64" % pkg)
    r = subprocess.run(["apt-get", "download", "-q", pkg + ":arm64"], cwd=debs,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    have = sorted(glob.glob(os.path.join(debs, glob.escape(pkg) + "_*_arm64.deb")))
    if r.returncode != 0 or not have:
        err = " ".join(r.stderr.strip().splitlines()[-2:])
        die("apt-get download %s:arm64 failed (%s): is the name right, and does apt "
            "know arm64 packages? run scripts/deps.sh (dpkg --add-architecture arm64, "
            "apt-get update)" % (pkg, err or "exit %d" % r.returncode))
    return have[-1]


def unpack(deb, dest):
    """dpkg-deb -x DEB into the folder dest, unless dest already holds this
    .deb (a stamp file names it).  Errors: exit on a failing dpkg-deb."""
    stamp = os.path.join(dest, ".deb")
    try:
        with open(stamp) as f:
            if f.read() == os.path.basename(deb):
                return
    except OSError:
        pass
    log("unpacking %s" % os.path.basename(deb))
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    r = subprocess.run(["dpkg-deb", "-x", deb, dest], stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        die("dpkg-deb -x %s failed: %s" % (deb, r.stderr.strip()))
    with open(stamp, "w") as f:
        f.write(os.path.basename(deb))


def aarch64_elfs(tree):
    """The regular files under the folder tree that are AArch64 ELF files
    (e_machine 183), sorted; symlinks are not followed.  No errors (an
    unreadable file is skipped)."""
    out = []
    for d, _, files in os.walk(tree):
        for n in files:
            p = os.path.join(d, n)
            if os.path.islink(p) or not os.path.isfile(p):
                continue
            try:
                with open(p, "rb") as f:
                    h = f.read(20)
            except OSError:
                continue
            # EI_CLASS 2 (64-bit), EI_DATA 1 (little endian), e_machine 183
            if h[:4] == b"\x7fELF" and h[4] == 2 and h[5] == 1 and h[18:20] == b"\xb7\x00":
                out.append(p)
    return sorted(out)


SECTION_RE = re.compile(r"^\s*\[\s*(\d+)\]\s+(?:(\S+)\s+)??(\S+)\s+([0-9a-f]{16})\s+"
                        r"([0-9a-f]+)\s+([0-9a-f]+)\s+[0-9a-f]+\s+([A-Za-z]*)\s+\d+\s+\d+\s+\d+\s*$")
SYMBOL_RE = re.compile(r"^\s*\d+:\s+([0-9a-f]+)\s+\S+\s+(\w+)\s+\w+\s+\w+"
                       r"(?:\s+\[[^\]]*\])?\s+(\S+)\s")


def _sections(text):
    """The sections of '${CROSS_COMPILE}readelf -SW' output (text, a str): a
    list of (index, name, type, sh_addr, sh_offset, sh_size, flags), ints but
    name, type and flags (str; name None for the NULL section).  Lines that
    are not section headers are ignored.  No errors."""
    out = []
    for line in text.splitlines():
        m = SECTION_RE.match(line)
        if m:
            out.append((int(m.group(1)), m.group(2), m.group(3), int(m.group(4), 16),
                        int(m.group(5), 16), int(m.group(6), 16), m.group(7)))
    return out


def _exec_sections(sections):
    """The executable sections with file contents of _sections()'s list: a
    dict index -> (sh_addr, sh_offset, sh_size)."""
    return {i: (addr, off, size) for i, _, typ, addr, off, size, flags in sections
            if "X" in flags and typ != "NOBITS"}


def _word_at(data, sec, addr):
    """The little-endian 32-bit word at virtual address addr (int) of the
    file contents data (bytes), through the section sec = (sh_addr,
    sh_offset, sh_size); None when the word is not inside sec."""
    sh_addr, sh_off, sh_size = sec
    if not sh_addr <= addr <= sh_addr + sh_size - 4:
        return None
    off = addr - sh_addr + sh_off
    return int.from_bytes(data[off:off + 4], "little")


def _readelf(args, path):
    """stdout (str) of '${CROSS_COMPILE}readelf ARGS PATH'; exits when
    readelf fails."""
    r = subprocess.run([CROSS + "readelf"] + args + [path],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        die("%sreadelf failed on %s: %s" % (CROSS, path, r.stderr.strip()))
    return r.stdout


def entries(path):
    """The function entries of one ELF file: a sorted list of (address,
    first instruction word) for the defined FUNC symbols of .dynsym whose
    section is executable, one per address.  Reads the section headers and
    .dynsym with '${CROSS_COMPILE}readelf -SW --dyn-syms', the word (little
    endian) at the section's file offset.  Exits when readelf fails."""
    text = _readelf(["-SW", "--dyn-syms"], path)
    sections, addrs = _exec_sections(_sections(text)), set()
    for line in text.splitlines():
        m = SYMBOL_RE.match(line)
        if m and m.group(2) == "FUNC" and m.group(3).isdigit():
            addrs.add((int(m.group(1), 16), int(m.group(3))))
    with open(path, "rb") as f:
        data = f.read()
    out = {}
    for addr, ndx in addrs:
        if ndx not in sections:
            continue
        word = _word_at(data, sections[ndx], addr)
        if word is not None:
            out[addr] = word
    return sorted(out.items())


# ---------------------------------------------------------------- Go

# Magic numbers of the Go 1.18+ pclntab header (runtime/symtab.go, and
# go118magic in src/debug/gosym/pclntab.go): 1.18 and 1.19; 1.20 and later.
GO_MAGICS = {0xfffffff0: "go1.18-1.19", 0xfffffff1: "go1.20+"}
# ldr x16, [x28, #16]: g.stackguard0 into x16, the first instruction of a Go
# function with the stack-bound check on arm64 (cmd/internal/obj/arm64,
# stacksplit).
GO_STACK_CHECK = 0xf9400b90
# The pclntab's section: .gopclntab, in a position independent executable
# .data.rel.ro.gopclntab (cmd/link/internal/ld/data.go).
GO_PCLNTAB_SECTIONS = (".gopclntab", ".data.rel.ro.gopclntab")

Pclntab = collections.namedtuple("Pclntab", "magic quantum ptrsize text_start entry_offs end_off")


def parse_pclntab(data):
    """Parse a Go 1.18+ .gopclntab (data: bytes, the section's contents,
    little endian).  Returns a Pclntab: magic, quantum (minLC), ptrsize,
    text_start (the header's textStart: 0 where the file leaves it to a
    dynamic relocation), entry_offs (the nfunc entryOff values of the functab,
    in order; an entry's address is textStart + entryOff) and end_off (the
    trailing entryOff: the end of the functions' text).
    Raises ValueError on another magic (Go before 1.18, big endian), a bad
    header, a functab outside data or not in ascending order.
    Follows parsePclnTab() and funcTab.pc() of Go's src/debug/gosym/pclntab.go
    and pcHeader of runtime/symtab.go: magic u32, two zero bytes, minLC u8,
    ptrSize u8, then ptrSize-byte words nfunc, nfiles, textStart,
    funcnameOffset, cuOffset, filetabOffset, pctabOffset, pclnOffset; at
    pclnOffset nfunc (entryOff u32, funcOff u32) pairs and one entryOff u32."""
    if len(data) < 8:
        raise ValueError("pclntab: %d bytes, shorter than its header" % len(data))
    magic = int.from_bytes(data[0:4], "little")
    if magic not in GO_MAGICS:
        raise ValueError("pclntab: magic %#x is not Go 1.18+ (%s)" % (
            magic, ", ".join("%#x" % m for m in GO_MAGICS)))
    quantum, ptrsize = data[6], data[7]
    if data[4] or data[5] or quantum not in (1, 2, 4) or ptrsize not in (4, 8):
        raise ValueError("pclntab: bad header %s" % data[:8].hex())
    if len(data) < 8 + 8 * ptrsize:
        raise ValueError("pclntab: %d bytes, shorter than its header" % len(data))

    def word(i):
        return int.from_bytes(data[8 + i * ptrsize:8 + (i + 1) * ptrsize], "little")

    nfunc, text_start, pcln = word(0), word(2), word(7)
    if pcln + (2 * nfunc + 1) * 4 > len(data):
        raise ValueError("pclntab: functab of %d functions at %#x past the end (%#x)"
                         % (nfunc, pcln, len(data)))
    offs = [int.from_bytes(data[pcln + 8 * i:pcln + 8 * i + 4], "little")
            for i in range(nfunc + 1)]
    if any(a > b for a, b in zip(offs, offs[1:])):
        raise ValueError("pclntab: functab entries not in ascending order")
    return Pclntab(magic, quantum, ptrsize, text_start, offs[:-1], offs[-1])


def go_entries(path):
    """The Go function entries of one ELF file: a sorted list of (address,
    first instruction word) from its .gopclntab (parse_pclntab()), one per
    address, the word read through the executable section that holds the
    address (entries outside one are skipped).  None when the file has no
    .gopclntab (or, PIE, .data.rel.ro.gopclntab) section, with a warning
    where it is a Go binary all the same (a .note.go.buildid or .go.buildinfo
    section: GNU ld merges the pclntab of an externally linked PIE into
    .data.rel.ro), and when textStart is 0 in the file (left to a dynamic
    relocation; Go's linker writes it).  Exits when readelf fails or
    parse_pclntab() raises ValueError."""
    sections = _sections(_readelf(["-SW"], path))
    names = {s[1] for s in sections}
    pcln = [s for s in sections if s[1] in GO_PCLNTAB_SECTIONS and s[2] != "NOBITS"]
    if not pcln:
        if names & {".note.go.buildid", ".go.buildinfo"}:
            log("warning: %s: a Go binary without a .gopclntab section: skipped" % path)
        return None
    _, name, _, _, sh_off, sh_size, _ = pcln[0]
    with open(path, "rb") as f:
        data = f.read()
    try:
        tab = parse_pclntab(data[sh_off:sh_off + sh_size])
    except ValueError as e:
        die("%s: %s: %s" % (path, name, e))
    if not tab.text_start:
        log("warning: %s: textStart of %s is 0 (relocated): skipped" % (path, name))
        return None
    execs = list(_exec_sections(sections).values())
    out = {}
    for off in tab.entry_offs:
        addr = tab.text_start + off
        for sec in execs:
            word = _word_at(data, sec, addr)
            if word is not None:
                out[addr] = word
                break
    return sorted(out.items())


def scan(pkgs, read=entries):
    """Fetch, unpack and read the packages pkgs (names).  read(path) gives
    the entries of one AArch64 ELF file, a list of (address, word), or None
    when the file does not count (go_entries() on a file that is not Go);
    default entries().  Returns (per, files, words): per maps each package
    to a Counter of (base verdict, patched verdict, class) -> entries; files
    maps each package to its number of ELF files counted; words maps each
    package to a Counter of first instruction words.  A file whose bytes an
    earlier file had counts once."""
    debs, roots = os.path.join(WORK, "debs"), os.path.join(WORK, "root")
    os.makedirs(debs, exist_ok=True)
    per, files, words, seen = {}, {}, {}, set()
    for pkg in pkgs:
        dest = os.path.join(roots, pkg)
        unpack(fetch(pkg, debs), dest)
        per[pkg], files[pkg], words[pkg] = collections.Counter(), 0, collections.Counter()
        for path in aarch64_elfs(dest):
            with open(path, "rb") as f:
                digest = hashlib.sha256(f.read()).digest()
            if digest in seen:
                continue
            found = read(path)
            if found is None:
                continue
            seen.add(digest)
            files[pkg] += 1
            for _, insn in found:
                per[pkg][(verdict(insn, "base"), verdict(insn, "patched"),
                          insn_class(insn))] += 1
                words[pkg][insn] += 1
        log("%s: %d ELF files, %d entries" % (pkg, files[pkg], sum(per[pkg].values())))
    return per, files, words


def pct(n, total):
    """n/total as '12.3%' (a str); '-' when total is 0."""
    return "%.1f%%" % (100.0 * n / total) if total else "-"


def report(per, files, top=15, source="defined FUNC symbols of .dynsym"):
    """The report text (str) of scan()'s result: per package and total, the
    entries and the share simulated, stepped and rejected on each kernel;
    then the top classes of the entries simulated on patched, and of those
    not simulated on patched.  source (str) names the entries in the title."""
    total = collections.Counter()
    for c in per.values():
        total.update(c)
    lines = ["Function entries (%s), uprobe on the entry:" % source,
             "share simulated (one exception), stepped (two), rejected; base vs patched",
             "",
             "%-20s %5s %7s  %9s %9s %9s  %9s %9s %9s" % (
                 "package", "files", "entries", "base sim", "step", "rej",
                 "patch sim", "step", "rej"),
             "-" * 95]

    def row(name, nfiles, c):
        n = sum(c.values())
        cols = []
        for i in range(len(KERNELS)):
            for v in VERDICTS:
                cols.append(pct(sum(k for key, k in c.items() if key[i] == v), n))
        return "%-20s %5d %7d  %9s %9s %9s  %9s %9s %9s" % (name, nfiles, n, *cols)

    for pkg, c in per.items():
        lines.append(row(pkg, files[pkg], c))
    lines.append("-" * 95)
    lines.append(row("total", sum(files.values()), total))
    n = sum(total.values())
    for title, simulated, col in (
            ("Simulated on patched", True, "base verdict"),
            ("Not simulated on patched", False, "patched verdict")):
        classes = collections.Counter()
        how = collections.defaultdict(set)
        for (vb, vp, cls), k in total.items():
            if (vp == "simulated") == simulated:
                classes[cls] += k
                how[cls].add(vb if simulated else vp)
        lines += ["", "%s: top %d classes of %d entries (%s of all)"
                  % (title, top, sum(classes.values()), pct(sum(classes.values()), n)),
                  "%-32s %7s %7s  %s" % ("class", "entries", "of all", col),
                  "-" * 60]
        for cls, k in classes.most_common(top):
            lines.append("%-32s %7d %7s  %s" % (cls, k, pct(k, n),
                                                 "/".join(sorted(how[cls]))))
    return "\n".join(lines) + "\n"


def go_stack_check_lines(per, words):
    """Report lines (list of str) for --go: per package and in total, the
    entries that start with exactly GO_STACK_CHECK (ldr x16, [x28, #16]) and
    their share of the entries; per and words as scan() returns them."""
    lines = ["", "Entries starting with ldr x16, [x28, #16] (%#010x, Go's stack-bound check):"
             % GO_STACK_CHECK,
             "%-20s %7s %7s %7s" % ("package", "entries", "ldr x16", "share"), "-" * 44]
    total_n = total_k = 0
    for pkg, c in per.items():
        n, k = sum(c.values()), words[pkg][GO_STACK_CHECK]
        total_n, total_k = total_n + n, total_k + k
        lines.append("%-20s %7d %7d %7s" % (pkg, n, k, pct(k, n)))
    lines += ["-" * 44, "%-20s %7d %7d %7s" % ("total", total_n, total_k, pct(total_k, total_n))]
    return lines


def main(argv):
    """Parse argv (without the program name), run; returns the exit code."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    which = ap.add_mutually_exclusive_group()
    which.add_argument("--packages", nargs="+", metavar="PKG",
                       help="Debian arm64 packages (default: the suite's, %s for bookworm)"
                       % " ".join(DEFAULT_PACKAGES))
    which.add_argument("--go", nargs="*", metavar="PKG",
                       help="Debian arm64 packages of Go programs: entries from .gopclntab "
                       "(default: %s)" % " ".join(DEFAULT_GO_PACKAGES))
    ap.add_argument("--suite", choices=sorted(SUITE_PACKAGES), default="bookworm",
                    help="the Debian suite, for the default packages and the cache folder; "
                    "one other than the machine's own needs APT_CONFIG naming a private "
                    "apt configuration for it (scripts/coverage.sh makes one)")
    ap.add_argument("--classify", nargs="+", metavar="HEX",
                    help="print insn, base verdict, patched verdict, class; download nothing")
    args = ap.parse_args(argv)
    if args.classify:
        for word in args.classify:
            try:
                insn = int(word, 16)
            except ValueError:
                die("not a hex instruction word: %r" % word)
            if not 0 <= insn <= 0xffffffff:
                die("not a 32-bit instruction word: %r" % word)
            print("%#010x\t%s\t%s\t%s" % (insn, verdict(insn, "base"),
                                          verdict(insn, "patched"), insn_class(insn)))
        return 0
    need_tools(("apt-get", "dpkg-deb", CROSS + "readelf"))
    global WORK
    if args.suite != "bookworm":
        if not os.environ.get("APT_CONFIG"):
            die("--suite %s needs APT_CONFIG naming a private apt configuration for it: "
                "run scripts/coverage.sh (make coverage)" % args.suite)
        WORK = os.path.join(WORK, args.suite)
    go = args.go is not None
    pkgs = (args.go or list(DEFAULT_GO_PACKAGES)) if go else \
        (args.packages or list(SUITE_PACKAGES[args.suite]))
    per, files, words = scan(pkgs, go_entries if go else entries)
    if go and not sum(files.values()):
        die("no Go binary (AArch64 ELF file with a .gopclntab section) in %s" % " ".join(pkgs))
    if not sum(sum(c.values()) for c in per.values()):
        die("no function entries found in %s" % " ".join(pkgs))
    for pkg, c in per.items():
        if not c:
            log("warning: %s has no AArch64 %sfunction entries" % (pkg, "Go " if go else ""))
    if go:
        text = report(per, files, source="Go functions of .gopclntab")
        text += "\n".join(go_stack_check_lines(per, words)) + "\n"
    else:
        text = report(per, files)
    sys.stdout.write(text)
    with open(os.path.join(WORK, "report-go.txt" if go else "report.txt"), "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
