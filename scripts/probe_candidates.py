#!/usr/bin/env python3
"""List the functions of an AArch64 ELF file that a uprobe at their entry
would hit, by their first instruction: the targets of BL instructions that
start with
  - stp: stp x29, x30, [sp, #imm]! (64-bit, pre-index, base SP; the
    encoding aarch64_insn_is_stp_fp_lr_sp_64b() of the series accepts), the
    entry of code built without branch protection;
  - pac: paciasp or pacibsp, the entry of every function that saves LR in
    code built with -mbranch-protection=standard (Debian 13).

Usage: probe_candidates.py [--entry stp|pac] ELF    (default: stp)
Output, one line per function, sorted by address:
    0xOFFSET 0xWORD NAME
OFFSET is the file offset (what a tracefs uprobe_events line takes), WORD
the instruction word, NAME the symbol at that address (.symtab or .dynsym),
or "-" in a stripped file.
Follows: the disassembly of binutils' objdump (CROSS_COMPILE, default
aarch64-linux-gnu-), and the ELF program headers for offsets (readelf -l).
Exits 1 with a message when a tool is missing, the file is not AArch64, or
no function qualifies.
"""
import os
import re
import subprocess
import sys

CROSS = os.environ.get("CROSS_COMPILE", "aarch64-linux-gnu-")
# entry kind: (what it is called in messages, [(mask, value)] of the words)
ENTRIES = {
    # stp x29, x30, [sp, #imm]!: any imm7 (bits 21:15)
    "stp": ("stp x29, x30, [sp, #imm]!", [(0xFFC07FFF, 0xA9807BFD)]),
    # HINT #25 and HINT #27
    "pac": ("paciasp or pacibsp", [(0xFFFFFFFF, 0xD503233F), (0xFFFFFFFF, 0xD503237F)]),
}
INSN_RE = re.compile(r"^\s*([0-9a-f]+):\s+([0-9a-f]{8})\s+(\S+)\s*([0-9a-f]*)")


def die(msg):
    sys.exit("probe_candidates.py: " + msg)


def run(*args):
    try:
        return subprocess.run(args, check=True, capture_output=True, text=True).stdout
    except FileNotFoundError:
        die("%s not found (install binutils-aarch64-linux-gnu)" % args[0])
    except subprocess.CalledProcessError as e:
        die("%s failed: %s" % (" ".join(args), e.stderr.strip()))


def loads(path):
    """(vaddr, offset, filesz) of each PT_LOAD segment."""
    segs = []
    for line in run(CROSS + "readelf", "-lW", path).splitlines():
        f = line.split()
        if f and f[0] == "LOAD":
            segs.append((int(f[2], 16), int(f[1], 16), int(f[4], 16)))
    return segs


def file_offset(segs, addr):
    for vaddr, off, size in segs:
        if vaddr <= addr < vaddr + size:
            return addr - vaddr + off
    die("address %#x is in no LOAD segment" % addr)


def names(path):
    """Symbol name by address, for functions."""
    out = {}
    for opt in ("--dyn-syms", "--syms"):
        for line in run(CROSS + "readelf", opt, "-W", path).splitlines():
            f = line.split()
            if len(f) >= 8 and f[3] == "FUNC" and f[6] != "UND":
                out.setdefault(int(f[1], 16), f[7].split("@")[0])
    return out


def main(argv):
    args = argv[1:]
    kind = "stp"
    if args[:1] == ["--entry"]:
        if len(args) < 2 or args[1] not in ENTRIES:
            die("--entry takes one of: %s" % ", ".join(ENTRIES))
        kind, args = args[1], args[2:]
    if len(args) != 1:
        die("usage: probe_candidates.py [--entry stp|pac] ELF")
    path = args[0]
    what, patterns = ENTRIES[kind]
    try:
        with open(path, "rb") as f:
            magic = f.read(4)
    except OSError as e:
        die("cannot read %s: %s" % (path, e.strerror))
    if magic != b"\x7fELF" or "AArch64" not in run(CROSS + "readelf", "-hW", path):
        die("%s is not an AArch64 ELF file" % path)
    words, targets = {}, set()
    for line in run(CROSS + "objdump", "-d", "-z", path).splitlines():
        m = INSN_RE.match(line)
        if not m:
            continue
        addr = int(m.group(1), 16)
        words[addr] = int(m.group(2), 16)
        if m.group(3) == "bl" and m.group(4):
            targets.add(int(m.group(4), 16))
    segs, syms = loads(path), names(path)
    found = [a for a in sorted(targets)
             if any(words.get(a, 0) & m == v for m, v in patterns)]
    if not found:
        die("no BL target of %s starts with %s" % (path, what))
    for a in found:
        print("%#x %#010x %s" % (file_offset(segs, a), words[a], syms.get(a, "-")))


if __name__ == "__main__":
    main(sys.argv)
