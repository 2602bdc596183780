#!/usr/bin/env bash
# TAP: scripts/report.py computes medians, min/max and per-run paired ratios
# from a raw CSV whose answers are worked out by hand here, and refuses a
# trigger that has no rate on one kernel.
. "$(dirname "$0")/../../scripts/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/raw.csv" <<'CSV'
run,kernel,trigger,rate
1,baseline,uprobe-nop,0.010
1,patched,uprobe-nop,0.030
2,baseline,uprobe-nop,0.020
2,patched,uprobe-nop,0.030
3,baseline,uprobe-nop,0.015
3,patched,uprobe-nop,0.060
1,baseline,uprobe-ret,0.040
1,patched,uprobe-ret,0.040
2,baseline,uprobe-ret,0.040
2,patched,uprobe-ret,0.040
3,baseline,uprobe-ret,0.040
3,patched,uprobe-ret,0.040
CSV
python3 "$ROOT/scripts/report.py" "$tmp/raw.csv" "$tmp/sum.csv" "$tmp/c.png" > "$tmp/table"
# nop: baseline median 0.015 [0.010, 0.020]; ratios 3, 1.5, 4 -> median 3, min 1.5, max 4
line=$(grep '^uprobe-nop,' "$tmp/sum.csv")
if [ "$line" = "uprobe-nop,0.015,0.01,0.02,0.03,0.03,0.06,3,1.5,4,3" ]; then
	echo "ok 1 - report: medians and paired ratios"
else
	echo "not ok 1 - report: medians and paired ratios"; echo "# got: $line"
fi
# patched nop/ret per run: 0.75, 0.75, 1.5 -> median 0.75
line=$(grep '^patched uprobe-nop/uprobe-ret,' "$tmp/sum.csv" | cut -d, -f8-10)
if [ "$line" = "0.75,0.75,1.5" ]; then
	echo "ok 2 - report: patched nop/ret ratio"
else
	echo "not ok 2 - report: patched nop/ret ratio"; echo "# got: $line"
fi
[ -s "$tmp/c.png" ] && echo "ok 3 - report: chart written" || echo "not ok 3 - report: chart written"
grep -v '^3,patched,uprobe-ret\|^[12],patched,uprobe-ret' "$tmp/raw.csv" > "$tmp/bad.csv"
if python3 "$ROOT/scripts/report.py" "$tmp/bad.csv" "$tmp/s2" "$tmp/c2.png" >/dev/null 2>"$tmp/err"; then
	echo "not ok 4 - report: refuses a trigger without rates"
else
	if grep -q 'uprobe-ret has no rate on the patched' "$tmp/err"; then
		echo "ok 4 - report: refuses a trigger without rates"
	else
		echo "not ok 4 - report: refuses a trigger without rates"; sed 's/^/# /' "$tmp/err"
	fi
fi

# What the runs ran on: scripts/lib.sh provenance's "# key: value" lines,
# at the top of the raw CSV, start the summary too; the chart's title
# names the base, the date and the test bed's commit.
TAP_N=4
TAP_PREFIX="report: "
provenance runs=3 > "$tmp/prov"
tap_is "provenance: the keys" "testbed queue base kernels qemu date runs" \
	"$(sed 's/^# \([a-z_]*\): .*/\1/' "$tmp/prov" | xargs)"
tap_is "provenance: the base and its package" "# base: $BASE, $LINUX_SOURCE_PKG" \
	"$(grep '^# base:' "$tmp/prov" | cut -d' ' -f1-4)"
tap_is "provenance: the test bed's commit" "$(git -C "$ROOT" rev-parse HEAD)" \
	"$(sed -n 's/^# testbed: .*(\(.*\))$/\1/p' "$tmp/prov")"
# Every bench trigger (the longest names last, where a label is cut first).
printf '%s\n' "# base: 6.12, linux-source-6.12 6.12.117-1~deb12u1" "# date: 2026-12-05T10:00:00Z" \
	"# testbed: v1-2-gabcdef123456 (abcdef1234567890)" "run,kernel,trigger,rate" > "$tmp/all.csv"
for t in usermode-count syscall-count {uprobe,uretprobe}-{nop,push,ret,xol} uprobe-sub uprobe-pac uprobe-go-ldr; do
	printf '1,baseline,%s,0.1\n1,patched,%s,0.2\n' "$t" "$t" >> "$tmp/all.csv"
done
python3 "$ROOT/scripts/report.py" "$tmp/all.csv" "$tmp/all-sum.csv" "$tmp/all.png" > /dev/null
tap_is "the summary starts with the raw file's # lines" "$(grep '^#' "$tmp/all.csv")" \
	"$(head -n 3 "$tmp/all-sum.csv")"
tap_is "then the noise verdict (the controls at 2 here)" "# noisy: YES" \
	"$(sed -n 4p "$tmp/all-sum.csv" | cut -d' ' -f1-3)"
tap_is "the summary's rows after them" "trigger usermode-count" \
	"$(grep -v '^#' "$tmp/all-sum.csv" | sed -n '1p; 2p' | cut -d, -f1 | xargs)"
tap_is "the chart's title: base, date, commit" \
	"x|6.12, linux-source-6.12 6.12.117-1~deb12u1, 2026-12-05, test bed v1-2-gabcdef123456" \
	"$(cd "$ROOT/scripts" && python3 -c 'import report; print(report.chart_title("x", report.read_csv(
		__import__("sys").argv[1])[0]).replace("\n", "|"))' "$tmp/all.csv")"
out=$(python3 "$ROOT/tests/host/png_ink.py" "$tmp/all.png" 2>&1) && rc=0 || rc=1
tap "$rc" "the chart: no label cut (something drawn, background left on every side)" "$out"

# The noise check: a control row (the same code on both kernels) whose
# median patched/baseline ratio is 1.5 flags the run NOISY; one at 1.02
# does not; NOISE_BOUND moves the bound.
# control RATIO: a raw CSV whose usermode-count has patched/baseline RATIO
# in each of three runs (and a probed trigger at 3).
control() {
	echo "run,kernel,trigger,rate"
	for run in 1 2 3; do
		printf '%s,baseline,usermode-count,20\n%s,patched,usermode-count,%s\n' "$run" "$run" \
			"$(awk -v r="$1" 'BEGIN { print 20 * r }')"
		printf '%s,baseline,uprobe-nop,0.1\n%s,patched,uprobe-nop,0.3\n' "$run" "$run"
	done
}
# noisy RATIO [NOISE_BOUND]: "NOISY" if the report printed the warning,
# then the summary's "# noisy:" value's first word.
noisy() {
	control "$1" > "$tmp/n.csv"
	NOISE_BOUND=${2:-} python3 "$ROOT/scripts/report.py" "$tmp/n.csv" "$tmp/n-sum.csv" "$tmp/n.png" \
		> "$tmp/n.out" 2>&1 || { sed 's/^/# /' "$tmp/n.out" >&2; return; }
	grep -o '^NOISY' "$tmp/n.out"
	sed -n 's/^# noisy: \([^ ]*\).*/\1/p' "$tmp/n-sum.csv"
}
tap_is "noise: a control at 1.5 flags the run" "NOISY YES" "$(noisy 1.5 | xargs)"
tap_is "noise: the warning names the control and the bound" 1 \
	"$(grep -c 'beyond 1 +- 0.1 (NOISE_BOUND): usermode-count 1.5 \[1.5, 1.5\]' "$tmp/n.out")"
tap_is "noise: a control at 1.02 does not" "no" "$(noisy 1.02 | xargs)"
tap_is "noise: a control at 0.85 does" "NOISY YES" "$(noisy 0.85 | xargs)"
tap_is "noise: NOISE_BOUND=0.6 lets 1.5 pass" "no" "$(noisy 1.5 0.6 | xargs)"
tap_is "noise: no control row, no verdict" "unknown" "$(sed -n 's/^# noisy: \([^ ]*\).*/\1/p' "$tmp/sum.csv")"
NOISE_BOUND=ten python3 "$ROOT/scripts/report.py" "$tmp/n.csv" "$tmp/x.csv" "$tmp/x.png" > "$tmp/n.out" 2>&1 &&
	rc=0 || rc=1
tap_is "noise: refuses a NOISE_BOUND that is not a number" "1 1" \
	"$rc $(grep -c "NOISE_BOUND must be a number between 0 and 1" "$tmp/n.out")"
echo "1..$TAP_N"
