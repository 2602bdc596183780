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

Verdicts (simulated, stepped, rejected) come from a64_uprobe.py, packages
from debs.py, entries from elf_entries.py; this file scans and reports.

Environment: BUILD (default: build/ of this repository), CROSS_COMPILE
(default aarch64-linux-gnu-).  Exits 1 with a message on a missing tool, a
failed download, an unreadable pclntab, when no entry is found, or with
--go when no package holds a Go binary.
"""
import argparse
import collections
import hashlib
import os
import sys

from a64_uprobe import KERNELS, VERDICTS, insn_class, verdict
from debs import fetch, unpack
from elf_entries import CROSS, aarch64_elfs, entries, go_entries, GO_STACK_CHECK
from pyutil import die, log, need_tools

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("BUILD") or os.path.join(ROOT, "build")
WORK = os.path.join(BUILD, "coverage")

# Common programs and libraries of a Debian system.  redis-server ships only /usr/bin/redis-server,
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
