#!/usr/bin/env python3
"""The one reader of the test bed's TAP: count a `make check` run's results,
by boot and by suite, list the failures with where their output is, and end
with the line CI reads, "N passed, N failed, N skipped".

Usage: tap_summary.py [--root DIR] TAP
  TAP: build/BASE/check-FLAVOUR.tap, as scripts/check.sh writes it;
  DIR: what the paths in TAP are relative to (default: the repository).
Exit: 0 when no test failed and at least one passed, else 1.

What counts (as check.sh always counted): a line starting "not ok " fails,
one starting "ok " passes, or is skipped when "# SKIP" (or "# skip")
follows.  Every other line is a comment or output.  The TAP comments that
scripts/check.sh writes name the groups:
  "# host: NAME"                   a host test, tests/host/NAME (suite NAME
                                   of the boot "host"), before any guest;
  "# guest: DESCRIPTION"           a boot of the kernel starts;
  "# boot: LABEL, logs in DIR"     its short name, and where its logs are
                                   (DIR/out.txt, DIR/console.log);
  "# suite: NAME"                  a guest test starts (the guest's
                                   TESTBED-STAGE), until the next one.
Results before any suite line of a boot (check.sh's own checks of the
boot) are the suite "boot".  A suite that runs in several boots is
counted in each.  A "# log: PATH" comment right after a failure (among
its detail lines, scripts/lib.sh tap) names the log of its output.
"""
import os
import re
import sys

FAIL = re.compile(r"not ok ")
OK = re.compile(r"ok ")
SKIP = re.compile(r"ok .*# (SKIP|skip)")
HOST = re.compile(r"# host: (.+)")
GUEST = re.compile(r"# guest: (.*)")
BOOT = re.compile(r"# boot: (.+), logs in (.+)")
SUITE = re.compile(r"# suite: (.+)")
LOG = re.compile(r"# log: (.+)")


class Boot:
    def __init__(self, label, logs=None):
        self.label = label
        self.logs = logs
        self.suites = {}        # name -> [passed, failed, skipped], in order

    def count(self, suite, kind):
        self.suites.setdefault(suite, [0, 0, 0])[kind] += 1

    def totals(self):
        return [sum(c[i] for c in self.suites.values()) for i in range(3)]


def lines(path):
    """The lines of PATH split at "\\n" only (as grep does), without the
    CR the guest's virtio console ends them with; undecodable bytes are
    replaced."""
    with open(path, "rb") as f:
        for raw in f:
            yield raw.rstrip(b"\n").rstrip(b"\r").decode("utf-8", "replace")


def parse(path):
    """Read the TAP file PATH: the boots, in order, and the failures, each
    (boot, suite, line number, line, [logs its detail lines name])."""
    boots, failures = [], []
    boot, suite, guests, last = None, None, False, None
    for n, line in enumerate(lines(path), 1):
        m = LOG.match(line)
        if m and last is not None:
            last[4].append(m.group(1).strip())
            continue
        if not line.startswith("#") or any(r.match(line) for r in (HOST, GUEST, BOOT, SUITE)):
            last = None
        m = HOST.match(line)
        if m and not guests:
            if boot is None or boot.label != "host":
                boot = Boot("host")
                boots.append(boot)
            suite = m.group(1).strip()
            continue
        m = GUEST.match(line)
        if m:
            guests = True
            boot, suite = Boot(m.group(1).strip()), "boot"
            boots.append(boot)
            continue
        m = BOOT.match(line)
        if m:
            if boot is None or boot.logs is not None or boot.label == "host":
                boot = Boot("")
                boots.append(boot)
            boot.label, boot.logs, suite = m.group(1).strip(), m.group(2).strip(), "boot"
            guests = True
            continue
        m = SUITE.match(line)
        if m and guests:
            suite = m.group(1).strip()
            continue
        if FAIL.match(line):
            kind = 1
        elif OK.match(line):
            kind = 2 if SKIP.match(line) else 0
        else:
            continue
        if boot is None:
            boot, suite = Boot("(no group)"), "(no suite)"
            boots.append(boot)
        boot.count(suite, kind)
        if kind == 1:
            last = (boot, suite, n, line, [])
            failures.append(last)
    return boots, failures


def rel(path, root):
    """PATH as it is printed: relative to ROOT when it is inside."""
    path = os.path.join(root, path)
    r = os.path.relpath(path, root)
    return path if r.startswith("..") else r


class Finder:
    """Where a guest failure's line is in its boot's out.txt: the next
    occurrence after the last one found (the TAP keeps out.txt's order)."""

    def __init__(self):
        self.files = {}         # out.txt path -> (lines, next index)

    def find(self, path, text):
        if path not in self.files:
            try:
                self.files[path] = (list(lines(path)), 0)
            except OSError:
                self.files[path] = ([], 0)
        got, start = self.files[path]
        for i in list(range(start, len(got))) + list(range(0, start)):
            if got[i] == text:
                self.files[path] = (got, i + 1)
                return i + 1
        return None


def where(boot, n, line, logs, tap, root, finder):
    """Where the output of the failure LINE (line N of TAP) is: the LOGS
    its detail lines name, else a host test's in the TAP itself; a guest
    test's in its boot's out.txt; check.sh's own checks of a boot in the
    TAP (the messages of scripts/guest.sh) and the boot's kernel log."""
    at = "%s:%d" % (rel(tap, root), n)
    if logs:
        return ", ".join([rel(p, root) for p in logs] + [at])
    if boot.logs is None:
        return at
    out = os.path.join(root, boot.logs, "out.txt")
    k = finder.find(out, line)
    if k is not None:
        return "%s:%d" % (rel(out, root), k)
    console = os.path.join(root, boot.logs, "console.log")
    return at + (", " + rel(console, root) if os.path.exists(console) else "")


def report(boots, failures, tap, root, out=sys.stdout):
    """Print the table of boots and suites, then the failures, then the
    totals line; return (passed, failed, skipped)."""
    rows = []
    for b in boots:
        name = b.label + (" (%s)" % rel(b.logs, root) if b.logs else "")
        rows.append((name, b.totals(), False))
        rows.extend(("  " + s, c, True) for s, c in b.suites.items())
    width = max([len(r[0]) for r in rows] + [len("boot / suite")])
    print("Results by boot and suite (TAP: %s):" % rel(tap, root), file=out)
    print("%-*s %7s %7s %7s" % (width, "boot / suite", "pass", "fail", "skip"), file=out)
    for name, (p, f, s), is_suite in rows:
        mark = ""
        if is_suite:
            mark = "  FAILED" if f else ("  skipped" if p == 0 and s else "")
        print("%-*s %7d %7d %7d%s" % (width, name, p, f, s, mark), file=out)
    if failures:
        finder = Finder()
        print("Failures (%d), each with where its output is:" % len(failures), file=out)
        for boot, suite, n, line, logs in failures:
            print("  %s / %s: %s" % (boot.label, suite, line), file=out)
            print("      %s" % where(boot, n, line, logs, tap, root, finder), file=out)
    else:
        print("Failures: none", file=out)
    total = [sum(b.totals()[i] for b in boots) for i in range(3)]
    print("%d passed, %d failed, %d skipped" % tuple(total), file=out)
    return total


def main(argv):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if len(argv) == 3 and argv[0] == "--root":
        root, argv = os.path.abspath(argv[1]), argv[2:]
    if len(argv) != 1 or argv[0].startswith("-"):
        sys.exit(__doc__)
    tap = os.path.abspath(argv[0])
    boots, failures = parse(tap)
    passed, failed, _ = report(boots, failures, tap, root)
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
