#!/usr/bin/env python3
"""Summarize `make workloads` runs: the cost of a uprobe on a hot function
entry in real programs, on the baseline and the patched kernel.

Input: a CSV with columns run,kernel,workload,case,value,hits: one row per
guest run, workload (grep, redis-get, redis-set: Debian 12's programs;
grep-13, redis-13-get, redis-13-set: Debian 13's) and case (none: no probe,
probe: the uprobe enabled).  value is seconds for grep and requests/s for
redis; the report turns requests/s into microseconds per request, so that
for every workload a larger number is slower.

Per workload and kernel: median [min, max] over runs of the unprobed and
probed time, of the overhead (probed - unprobed, paired by run) and of the
ratio probed/unprobed; then, per workload, patched overhead / baseline
overhead, paired by run (target: at most 0.5; runs whose baseline
overhead is not above 0 give no ratio).
Output: SUMMARY.csv, a table on stdout, a gnuplot bar chart CHART.png of the
probed/unprobed ratios.  The "# key: value" lines at the top of RAW.csv
(what the runs ran on) start SUMMARY.csv too and give the chart's title
its second line, as in report.py.

Usage: workloads_report.py RAW.csv SUMMARY.csv CHART.png
Raises SystemExit with a message when a workload lacks a case on a kernel,
has no run with both cases, or a row has an unknown case.
"""
import csv
import sys
from collections import defaultdict

from report import KERNELS, chart_title, fmt, gnuplot, read_csv, stats, write_meta

SECONDS = ("grep", "grep-13")   # others: requests/s, reported as us/request
CASES = ("none", "probe")


def load(path):
    """{(workload, kernel, case): {run: time}}, {(workload, kernel): [hits]}, order,
    and the "# key: value" lines at the top (report.read_csv)."""
    times, hits, order = defaultdict(dict), defaultdict(list), []
    meta, rows = read_csv(path)
    for row in rows:
        wl, value = row["workload"], float(row["value"])
        if row["case"] not in CASES:
            sys.exit("workloads_report: unknown case %r (not none or probe) in %s"
                     % (row["case"], path))
        if wl not in SECONDS:
            if value <= 0:
                sys.exit("workloads_report: %s on %s run %s: %g requests/s"
                         % (wl, row["kernel"], row["run"], value))
            value = 1e6 / value
        times[(wl, row["kernel"], row["case"])][int(row["run"])] = value
        if row["case"] == "probe":
            hits[(wl, row["kernel"])].append(int(row["hits"]))
        if wl not in order:
            order.append(wl)
    return times, hits, order, meta


def paired(a, b, op):
    """op(a[run], b[run]) for the runs both have."""
    return [op(a[r], b[r]) for r in sorted(set(a) & set(b))]


def unit(wl):
    return "s" if wl in SECONDS else "us/req"


def main(raw, summary, chart):
    times, hits, order, meta = load(raw)
    rows, verdicts = [], []
    for wl in order:
        over = {}
        for k in KERNELS:
            none, probe = (times.get((wl, k, c), {}) for c in CASES)
            if not none or not probe:
                sys.exit("workloads_report: %s has no %s run on the %s kernel"
                         % (wl, "unprobed" if not none else "probed", k))
            over[k] = dict(zip(sorted(set(none) & set(probe)),
                               paired(probe, none, lambda p, n: p - n)))
            if not over[k]:
                sys.exit("workloads_report: %s on the %s kernel has no run with both cases"
                         % (wl, k))
            rows.append((wl, k, stats(list(none.values())), stats(list(probe.values())),
                         stats(list(over[k].values())),
                         stats(paired(probe, none, lambda p, n: p / n)),
                         sorted(hits[(wl, k)])[len(hits[(wl, k)]) // 2]))
        # a run whose baseline overhead is not positive gives no ratio
        base = {r: b for r, b in over["baseline"].items() if b > 0}
        rel = paired(over["patched"], base, lambda p, b: p / b)
        verdicts.append((wl, stats(rel) if rel else None, len(rel)))

    with open(summary, "w", newline="") as f:
        write_meta(f, meta)
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["workload", "unit", "kernel", "unprobed_median", "unprobed_min", "unprobed_max",
                    "probed_median", "probed_min", "probed_max", "overhead_median",
                    "overhead_min", "overhead_max", "ratio_median", "ratio_min", "ratio_max",
                    "hits_median"])
        for wl, k, n, p, o, r, h in rows:
            w.writerow([wl, unit(wl), k, *("%.6g" % v for v in (*n, *p, *o, *r)), h])
        for wl, rel, _ in verdicts:
            w.writerow(["%s patched/baseline overhead" % wl, "", "", "", "", "", "", "", "",
                        "", "", "", *(("%.6g" % v for v in rel) if rel else ("", "", "")), ""])

    hdr = "%-12s %-7s %-8s %-26s %-26s %-26s %-22s %s" % (
        "workload", "unit", "kernel", "unprobed med [min, max]", "probed", "overhead (probed-unprobed)",
        "probed/unprobed", "hits")
    print(hdr)
    print("-" * len(hdr))
    for wl, k, n, p, o, r, h in rows:
        print("%-12s %-7s %-8s %-26s %-26s %-26s %-22s %d" % (
            wl, unit(wl), k, fmt(n), fmt(p), fmt(o), fmt(r, 3), h))
    print()
    for wl, rel, nrun in verdicts:
        if rel is None:
            print("%-12s patched overhead / baseline overhead: n/a (no run with a baseline "
                  "overhead above 0)" % wl)
            continue
        print("%-12s patched overhead / baseline overhead: %s (target <= 0.5: %s; %d paired runs)"
              % (wl, fmt(rel, 3), "met" if rel[0] <= 0.5 else "missed", nrun))
    plot(rows, chart, meta)


def plot(rows, chart, meta):
    by = defaultdict(dict)
    for wl, k, _, _, _, r, _ in rows:
        by[wl][k] = r
    data = "\n".join("%s %g %g %g %g %g %g" % (wl, *by[wl]["baseline"], *by[wl]["patched"])
                     for wl in by)
    gnuplot(chart, chart_title("uprobe on a hot function entry: probed / unprobed time (median, min-max)",
                               meta),
            "probed / unprobed", "set style data histogram\nset style histogram errorbars gap 2 lw 1",
            "plot '-' using 2:3:4:xtic(1) title 'baseline', '' using 5:6:7 title 'patched', "
            "1 lc rgb 'gray' dt 2 notitle", data)

if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
