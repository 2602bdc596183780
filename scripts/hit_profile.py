#!/usr/bin/env python3
"""Kernel instructions per uprobe hit, function by function, for
scripts/hit_profile.sh.

  hit_profile.py SYSTEM_MAP COUNTS [--per FUNCTION] [--min-calls X]

COUNTS: lines "VADDR INSNS RUNS" of scripts/tbprof.c (a translation block's
address in hex, its instructions, how many times it ran).  Each block is
charged to the function of System.map that holds its address; a block that
starts at a function's address is a call of it.  FUNCTION (handler_chain:
once per hit of an entry probe) gives the hits; functions with fewer than X
calls per hit (0.5) are left out, which leaves out boot and the rest of the
guest, but for the exception vectors (VECTORS), which are entered at
offsets, never at their symbol: they are always shown.  Blocks outside
the kernel image (_stext to _end: BPF programs, modules) are one row of
their own, counting only the blocks that ran at least X times per hit.  A block that ends early (an
exception) is charged in full.

Prints one line per function, most instructions first: instructions per
hit, calls per hit, name; then their sum.  Errors: unreadable files, no
call of FUNCTION: a message and exit status 1.
"""
import argparse
import bisect
import sys


OUTSIDE = "[outside the image: BPF, modules]"
VECTORS = ("vectors",)


def read_symbols(path):
    """Text symbols of System.map, sorted: (addresses, names), and the
    image as (_stext, _end), init text included."""
    syms, text = [], {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) < 3:
                continue
            if parts[1] in "tTwW":
                syms.append((int(parts[0], 16), parts[2]))
            if parts[2] in ("_stext", "_end"):
                text[parts[2]] = int(parts[0], 16)
    if len(text) != 2:
        raise ValueError(f"{path} has no _stext or _end")
    syms.sort()
    return [a for a, _ in syms], [n for _, n in syms], (text["_stext"], text["_end"])


def charge(counts_path, addrs, names, text):
    """Instructions and calls per function over every block of COUNTS, and
    the blocks outside the image as {vaddr: (instructions, runs)}."""
    insns, calls, outside = {}, {}, {}
    with open(counts_path) as f:
        for line in f:
            vaddr, n, runs = line.split()
            vaddr, n, runs = int(vaddr, 16), int(n), int(runs)
            if not text[0] <= vaddr < text[1]:
                i, r = outside.get(vaddr, (0, 0))
                outside[vaddr] = (i + n * runs, r + runs)
                continue
            i = bisect.bisect_right(addrs, vaddr) - 1
            name = names[i] if i >= 0 else "?"
            insns[name] = insns.get(name, 0) + n * runs
            if i >= 0 and addrs[i] == vaddr:
                calls[name] = calls.get(name, 0) + runs
    return insns, calls, outside


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("system_map")
    ap.add_argument("counts")
    ap.add_argument("--per", default="handler_chain")
    ap.add_argument("--min-calls", type=float, default=0.5)
    a = ap.parse_args()
    try:
        addrs, names, text = read_symbols(a.system_map)
        insns, calls, outside = charge(a.counts, addrs, names, text)
    except (OSError, ValueError) as e:
        sys.exit(f"hit_profile.py: {e}")
    hits = calls.get(a.per, 0)
    if not hits:
        sys.exit(f"hit_profile.py: {a.per} never called: no probe was hit")
    insns[OUTSIDE] = sum(i for i, r in outside.values() if r / hits >= a.min_calls)
    rows = [(v / hits, calls.get(f, 0) / hits, f) for f, v in insns.items()
            if calls.get(f, 0) / hits >= a.min_calls or f == OUTSIDE or f in VECTORS]
    rows.sort(reverse=True)
    print(f"{hits} hits ({a.per} calls); kernel instructions per hit:")
    for per_hit, per_call, f in rows:
        print(f"{per_hit:8.1f} {per_call:6.2f}  {f}")
    print(f"{sum(r[0] for r in rows):8.1f}         total of these functions")


if __name__ == "__main__":
    main()
