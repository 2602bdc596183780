"""What the arm64 kernel's uprobe decoder does with one A64 instruction
word, mirrored in Python for scripts/coverage.py (no kernel needed).

Verdicts mirror the uprobe path of the kernel (arch_uprobe_analyze_insn in
arch/arm64/kernel/probes/uprobes.c, which calls arm_probe_decode_insn in
decode-insn.c with the masks of arch/arm64/include/asm/insn.h):
  simulated  INSN_GOOD_NO_SLOT or auprobe->simulate: one exception
  stepped    INSN_GOOD: stepped out of line, two exceptions
  rejected   INSN_REJECTED: the probe cannot be placed
"base" is the unpatched kernel (tag base of build/BASE/linux); "patched" is
the queue: nop simulated, and for uprobes bti, paciasp/pacibsp, the stp
x29,x30 push and the register-only ADD/SUB (immediate), MOV (register),
MOVZ/MOVN, the LR push STR x30, [sp, #imm]! and LDR (immediate, unsigned
offset, Xn not SP).  tests/host/coverage.sh checks the masks against the
insn.h of the tree and the verdicts against the KUnit decoder table.
"""

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
    # aarch64_insn_is_stp_fp_lr_sp_64b() (decode-insn.h of the memory series)
    return (is_("stp_pre", insn) and insn >> 30 == 0x2 and (insn >> 5) & 0x1f == REG_SP
            and insn & 0x1f == REG_FP and (insn >> 10) & 0x1f == REG_LR)


def _is_pac_sp(insn):
    # PACIASP, PACIBSP: simulated for uprobes (uprobes.c of the series)
    return is_("hint", insn) and insn & 0xFE0 in (HINT["PACIASP"], HINT["PACIBSP"])


def _is_added_now(insn):
    # The register-only forms (insn.h of the series:
    # aarch64_insn_is_add_sub_imm_noflags, _mov_reg, _movz_movn), the LR
    # push and the LDR (decode-insn.h of the memory series): ADD/SUB
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
