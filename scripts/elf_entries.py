"""Function entries of AArch64 ELF files for scripts/coverage.py: the
defined FUNC symbols of .dynsym, or the functions of a Go 1.18+ pclntab,
each with its first instruction word, read with the cross readelf."""
import collections
import os
import re
import subprocess

from pyutil import die, log

CROSS = os.environ.get("CROSS_COMPILE", "aarch64-linux-gnu-")


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
