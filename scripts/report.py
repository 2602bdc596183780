#!/usr/bin/env python3
"""Summarize `make bench` runs: baseline vs patched, per trigger.

Input: a CSV with columns run,kernel,trigger,rate (rate in M hits/s, one row
per trigger per guest run).  Output: a summary CSV (median, min, max of each
kernel's rates; median, min, max of the per-run patched/baseline ratios),
a table on stdout, and a gnuplot bar chart (PNG) of the ratios.
"# key: value" lines at the top of the input (what the runs ran on:
scripts/lib.sh provenance) start the summary too, and the chart's title
names the base, the date and the test bed's commit.  A reader of these CSV
files skips the lines that start with "#" (read_csv here; pandas:
comment="#").

The control rows (CONTROLS: no probe, the same code on both kernels) must
have a patched/baseline ratio of 1 but for the machine's noise: when the
median ratio of one lies beyond 1 +- NOISE_BOUND (environment, default
0.10), the noise did not hit both kernels alike and every ratio of the run
is suspect.  The report then prints a NOISY warning, and the summary's
"# noisy:" line (also written when all is well) and the chart's title say
so.

Usage: report.py RAW.csv SUMMARY.csv CHART.png
Raises SystemExit with a message when a trigger has no rate for a kernel,
or NOISE_BOUND is not a number between 0 and 1.
"""
import csv
import os
import statistics
import subprocess
import sys
from collections import defaultdict

KERNELS = ("baseline", "patched")
# Ratios within the patched kernel: what a simulated nop/stp costs next to
# ret, which the base kernel already simulates.
INNER = (("uprobe-nop", "uprobe-ret"), ("uprobe-push", "uprobe-ret"))
# The bench's triggers that run no probe: the same code on both kernels.
CONTROLS = ("usermode-count", "kernel-count", "syscall-count")
NOISE_BOUND = 0.10


def read_csv(path):
    """The CSV file PATH: its "# key: value" lines at the top, as a list of
    (key, value), and its rows (dicts, by the header line after them)."""
    with open(path, newline="") as f:
        text = f.read().splitlines()
    meta = []
    while text and text[0].startswith("#"):
        key, _, value = text.pop(0)[1:].partition(":")
        meta.append((key.strip(), value.strip()))
    return meta, list(csv.DictReader(text))


def write_meta(f, meta):
    """The "# key: value" lines of META at the top of the open file F."""
    for key, value in meta:
        f.write("# %s: %s\n" % (key, value))


def chart_title(what, meta):
    """WHAT, and a second line naming the base, the date and the test
    bed's commit of META (those it has), and NOISY when its "noisy" says
    so."""
    m = dict(meta)
    parts = [m["base"]] if "base" in m else []
    if "date" in m:
        parts.append(m["date"].split("T")[0])
    if "testbed" in m:
        parts.append("test bed " + m["testbed"].split()[0])
    if m.get("noisy", "").startswith("YES"):
        parts.append("NOISY")
    return what + ("\n" + ", ".join(parts) if parts else "")


def noise_bound():
    """NOISE_BOUND from the environment, or its default."""
    text = os.environ.get("NOISE_BOUND", "") or str(NOISE_BOUND)
    try:
        bound = float(text)
    except ValueError:
        bound = -1
    if not 0 < bound < 1:
        sys.exit("report: NOISE_BOUND must be a number between 0 and 1 (0.10: 10%%), not %r" % text)
    return bound


def noise(rows, bound):
    """The verdict on the control rows among ROWS (trigger, baseline,
    patched, ratio stats, runs): (noisy, rows, verdict): noisy None when
    there is no control row, else whether the median ratio of one lies
    beyond 1 +- BOUND; rows those (else all the controls) with their
    ratios; verdict the summary's "noisy" value."""
    controls = [(t, r) for t, _, _, r, _ in rows if t in CONTROLS]
    if not controls:
        return None, "", "unknown (no control row: %s)" % ", ".join(CONTROLS)
    beyond = [(t, r) for t, r in controls if abs(r[0] - 1) > bound]
    shown = ", ".join("%s %s" % (t, fmt(r, 3)) for t, r in beyond or controls)
    if beyond:
        return True, shown, "YES (control medians beyond 1 +- %g: %s)" % (bound, shown)
    return False, shown, "no (control medians within 1 +- %g: %s)" % (bound, shown)


def load(path):
    rates = defaultdict(dict)   # (kernel, trigger) -> {run: rate}
    order = []
    meta, rows = read_csv(path)
    for row in rows:
        key = (row["kernel"], row["trigger"])
        rates[key][int(row["run"])] = float(row["rate"])
        if row["trigger"] not in order:
            order.append(row["trigger"])
    return rates, order, meta


def stats(values):
    return statistics.median(values), min(values), max(values)


def ratios(a, b):
    """Per-run a/b for the runs both have."""
    runs = sorted(set(a) & set(b))
    return [a[r] / b[r] for r in runs if b[r] > 0]


def fmt(s, prec=4):
    return "%.*g [%.*g, %.*g]" % (prec, s[0], prec, s[1], prec, s[2])


def main(raw, summary, chart):
    bound = noise_bound()
    rates, order, meta = load(raw)
    rows = []
    for trig in order:
        per = {k: rates.get((k, trig), {}) for k in KERNELS}
        for k in KERNELS:
            if not per[k] or max(per[k].values()) <= 0:
                sys.exit("report: trigger %s has no rate on the %s kernel" % (trig, k))
        r = ratios(per["patched"], per["baseline"])
        rows.append((trig, stats(list(per["baseline"].values())),
                     stats(list(per["patched"].values())), stats(r), len(r)))
    noisy, shown, verdict = noise(rows, bound)
    meta = [(k, v) for k, v in meta if k != "noisy"] + [("noisy", verdict)]

    with open(summary, "w", newline="") as f:
        write_meta(f, meta)
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["trigger", "baseline_median", "baseline_min", "baseline_max",
                    "patched_median", "patched_min", "patched_max",
                    "ratio_median", "ratio_min", "ratio_max", "runs"])
        for trig, b, p, r, n in rows:
            w.writerow([trig, *("%.6g" % v for v in (*b, *p, *r)), n])
        for num, den in INNER:
            if ("patched", num) in rates and ("patched", den) in rates:
                r = stats(ratios(rates[("patched", num)], rates[("patched", den)]))
                w.writerow(["patched %s/%s" % (num, den), "", "", "", "", "", "",
                            *("%.6g" % v for v in r), ""])

    hdr = "%-16s %-30s %-30s %-24s" % ("trigger", "baseline M/s med [min, max]",
                                      "patched M/s med [min, max]", "patched/baseline")
    print(hdr)
    print("-" * len(hdr))
    for trig, b, p, r, n in rows:
        print("%-16s %-30s %-30s %-24s" % (trig, fmt(b), fmt(p), fmt(r, 3)))
    for num, den in INNER:
        if ("patched", num) in rates and ("patched", den) in rates:
            r = stats(ratios(rates[("patched", num)], rates[("patched", den)]))
            print("patched %s / %s: %s" % (num, den, fmt(r, 3)))
    print("(%d runs per kernel; ratios are per-run patched/baseline, paired by run)"
          % max(n for *_, n in rows))
    if noisy:
        print("NOISY: the median patched/baseline of a control (the same code on both kernels)"
              " is beyond 1 +- %g (NOISE_BOUND): %s.\nThe machine's noise hit the kernels"
              " unequally, and every ratio above is suspect: rerun, with more RUNS or on a"
              " quieter machine." % (bound, shown))
    elif noisy is not None:
        print("controls (the same code on both kernels) within 1 +- %g (NOISE_BOUND): %s"
              % (bound, shown))
    plot(rows, chart, meta)


def gnuplot_string(text):
    """TEXT as a gnuplot string constant ("\\n" in it a line break)."""
    return '"%s"' % text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def gnuplot(chart, title, ylabel, style, plot, data):
    """Write the bar chart CHART (PNG) with gnuplot: TITLE (one or two
    lines, printed as it is: no enhanced-text markup), YLABEL, STYLE
    (gnuplot set commands), PLOT (a plot command whose data are two inline
    '-' blocks) and DATA (the rows of each block).  Raises
    CalledProcessError when gnuplot fails."""
    script = f"""
set terminal pngcairo size 900,480
set output '{chart}'
set title {gnuplot_string(title)} noenhanced
set ylabel '{ylabel}'
set style fill solid 0.6
set yrange [0:*]
set grid ytics
{style}
{plot}
{data}
e
{data}
e
"""
    subprocess.run(["gnuplot"], input=script, text=True, check=True)


def plot(rows, chart, meta):
    # rmargin: room for the last label, which the rotation draws to the
    # right of its bar (tests/host/report.sh checks that none is cut).
    data = "\n".join("%s %g %g %g" % (t, r[0], r[1], r[2]) for t, _, _, r, _ in rows)
    gnuplot(chart, chart_title("arm64 uprobes bench: patched / baseline (median, min-max of runs)", meta),
            "patched / baseline", "set boxwidth 0.6\nset xtics rotate by -30\nset rmargin 10",
            "plot '-' using 0:2:xtic(1) with boxes notitle, "
            "'' using 0:2:3:4 with yerrorbars lc black pt 0 notitle, 1 lc rgb 'gray' dt 2 notitle",
            data)

if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
