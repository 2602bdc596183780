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

Usage: report.py RAW.csv SUMMARY.csv CHART.png
Raises SystemExit with a message when a trigger has no rate for a kernel.
"""
import csv
import statistics
import subprocess
import sys
from collections import defaultdict

KERNELS = ("baseline", "patched")
# Ratios within the patched kernel: what a simulated nop/stp costs next to
# ret, which the base kernel already simulates.
INNER = (("uprobe-nop", "uprobe-ret"), ("uprobe-push", "uprobe-ret"))


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
    bed's commit of META (those it has)."""
    m = dict(meta)
    parts = [m["base"]] if "base" in m else []
    if "date" in m:
        parts.append(m["date"].split("T")[0])
    if "testbed" in m:
        parts.append("test bed " + m["testbed"].split()[0])
    return what + ("\n" + ", ".join(parts) if parts else "")


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
