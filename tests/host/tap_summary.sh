#!/usr/bin/env bash
# TAP: scripts/tap_summary.py, the summary at the end of `make check`, on a
# small TAP file made here: the totals line CI reads, the counts of each
# boot and suite, and every failure listed with where its output is (none
# dropped, none made up); then scripts/check.sh itself, with a stub guest
# that replays a made-up guest output, so that the TAP comments it writes
# are the ones the summary reads.
. "$(dirname "$0")/../../scripts/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
TAP_PREFIX="tap_summary: "

# A run as check.sh writes it: two host tests, one boot whose guest ends
# its lines with CR, as the virtio console does.
mkdir -p "$tmp/run/g"
guest=("TESTBED: init reached" "# cpu features: fp asimd" "TESTBED-STAGE: t1" "TAP version 13" "1..3"
       "ok 1 a" "# about b" "not ok 2 b" "ok 3 c # SKIP no c" "TESTBED-STAGE: t2" "ok 1 d" "not ok 2 e")
printf '%s\r\n' "${guest[@]}" > "$tmp/run/g/out.txt"
: > "$tmp/run/g/console.log"
{
	printf '%s\n' "# host: one.sh" "ok 1 - one" "not ok 2 - two" "# log: build/x/logs/two.log" \
		"# host: three.sh" "ok 1 - three # skip not here" \
		"# guest: patched kernel, job check" "# boot: guest, logs in run/g" \
		"ok 1 - guest: boot reaches our init"
	printf '%s\r\n' "# cpu features: fp asimd" "# suite: t1" "ok 1 a" "# about b" "not ok 2 b" \
		"ok 3 c # SKIP no c" "# suite: t2" "ok 1 d" "not ok 2 e"
	printf '%s\n' "# suite: boot" \
		"not ok 2 - guest: job finished, kernel log clean (no panic/BUG/WARNING/Oops)"
} > "$tmp/check.tap"

rc=0
python3 "$ROOT/scripts/tap_summary.py" --root "$tmp" "$tmp/check.tap" > "$tmp/out" 2>&1 || rc=$?
tap_is "the last line, as CI reads it" "4 passed, 4 failed, 2 skipped" "$(tail -n 1 "$tmp/out")"
tap_is "exit 1 when a test failed" 1 "$rc"

# row NAME: the counts of the table row NAME (a boot, or a suite indented).
row() {
	awk -v n="$1" '{ name = $0; sub(/ +[0-9]+ +[0-9]+ +[0-9]+( +[a-zA-Z]+)?$/, "", name) }
		name == n { k = $NF ~ /^[0-9]+$/ ? 2 : 3
			    for (i = NF - k; i <= NF; i++) printf "%s ", $i; print ""; exit }' "$tmp/out"
}
tap_is "the host: pass fail skip" "1 1 1" "$(row host | xargs)"
tap_is "host suite one.sh" "1 1 0 FAILED" "$(row "  one.sh" | xargs)"
tap_is "host suite three.sh, skipped" "0 0 1 skipped" "$(row "  three.sh" | xargs)"
tap_is "the guest boot, with its logs" "3 3 1" "$(row "guest (run/g)" | xargs)"
tap_is "guest suite t1" "1 1 1 FAILED" "$(row "  t1" | xargs)"
tap_is "guest suite t2" "1 1 0 FAILED" "$(row "  t2" | xargs)"
tap_is "check.sh's checks of the boot: suite boot" "1 1 0 FAILED" "$(row "  boot" | xargs)"

# Every "not ok" of the input, and nothing else, in the failures list,
# in order, each with where its output is.
grep '^not ok' "$tmp/check.tap" | tr -d '\r' > "$tmp/want"
sed -n '/^Failures (/,$p' "$tmp/out" | sed -n 's/^  [^ ].* \/ [^:]*: //p' > "$tmp/got"
tap "$(cmp -s "$tmp/want" "$tmp/got" && echo 0 || echo 1)" "every failure listed, once, in order" \
	"want:" "$(cat "$tmp/want")" "got:" "$(cat "$tmp/got")"
tap_is "the failures' count" "Failures (4), each with where its output is:" "$(grep '^Failures' "$tmp/out")"
tap_is "a host failure: the log it names, and its line in the TAP" \
	"build/x/logs/two.log, check.tap:3" "$(grep -A1 -F 'one.sh: not ok 2 - two' "$tmp/out" | tail -n1 | xargs)"
tap_is "a guest failure: its line in the boot's out.txt" \
	"run/g/out.txt:8 run/g/out.txt:12" \
	"$(grep -A1 -E 'guest / t[12]: not ok' "$tmp/out" | grep -v 'not ok' | xargs)"
tap_is "check.sh's failed boot check: the TAP line and the kernel log" \
	"check.tap:20, run/g/console.log" "$(grep -A1 -F 'guest / boot: not ok' "$tmp/out" | tail -n1 | xargs)"

grep -v '^not ok' "$tmp/check.tap" > "$tmp/pass.tap"
rc=0
python3 "$ROOT/scripts/tap_summary.py" --root "$tmp" "$tmp/pass.tap" > "$tmp/out" 2>&1 || rc=$?
tap_is "no failure: exit 0, said so" "0 Failures: none" "$rc $(grep '^Failures' "$tmp/out")"
grep -v '^ok' "$tmp/pass.tap" > "$tmp/none.tap"
rc=0
python3 "$ROOT/scripts/tap_summary.py" --root "$tmp" "$tmp/none.tap" > "$tmp/out" 2>&1 || rc=$?
tap_is "nothing passed: exit 1" "1 0 passed, 0 failed, 0 skipped" "$rc $(tail -n 1 "$tmp/out")"

# check.sh in a copy of the test bed whose guest.sh replays the output
# above (no kernel, no QEMU): its TAP comments name the boots and suites.
sb=$tmp/sb
mkdir -p "$sb/root/tests/host" "$sb/build"
cp -r "$ROOT/scripts" "$ROOT/config" "$sb/root/"
# shellcheck disable=SC2016 # $3: the stub's own argument, OUTDIR
printf '#!/bin/sh\nmkdir -p "$3" && cp %q %q "$3/"\n' "$tmp/run/g/out.txt" "$tmp/run/g/console.log" \
	> "$sb/root/scripts/guest.sh"
printf '#!/bin/sh\necho qemu-system-aarch64\n' > "$sb/root/scripts/qemu_gcs.sh"
git init -q "$sb/build/linux"
git -C "$sb/build/linux" commit -q --allow-empty -m base
git -C "$sb/build/linux" branch queue
git -C "$sb/build/linux" worktree add -q --detach "$sb/build/src" queue
chmod +x "$sb/root/scripts/guest.sh" "$sb/root/scripts/qemu_gcs.sh"
rc=0
BASE=6.12 BUILD=$sb/build KSRC=$sb/build/src HOST_TESTS=0 OLD_CPU_TESTS="t1" CHECK_FLAVOUR=patched \
	bash "$sb/root/scripts/check.sh" > "$tmp/out" 2>&1 || rc=$?
# The old-CPU boot checks that its CPU lacks each of OLD_CPU_LACKS (the
# replayed guest lists "fp asimd", so each passes): one line each.
lacks=$(sed -n 's/^OLD_CPU_LACKS="\(.*\)"$/\1/p' "$ROOT/scripts/check.sh" | wc -w)
tap_is "check.sh: exit 1, the totals line" "1 $((8 + lacks)) passed, 4 failed, 2 skipped" \
	"$rc $(tail -n 1 "$tmp/out")"
tap_is "check.sh: the guest's suites" "1 1 1 FAILED" "$(row "  t1" | xargs)"
tap_is "check.sh: the old-CPU boot, named, with its logs" "$((4 + lacks)) 2 1" \
	"$(row "old-CPU guest ($sb/build/run/check-patched-old)" | xargs)"
tap_is "check.sh: a guest failure located in its out.txt" \
	"$sb/build/run/check-patched/out.txt:8" "$(grep -A1 -F 'guest / t1: not ok 2 b' "$tmp/out" | sed -n 2p | xargs)"
echo "1..$TAP_N"
