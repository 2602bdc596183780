#!/usr/bin/env bash
# TAP: scripts/tree.sh takes exactly the base version config/base/BASE.env
# pins: pinned_version on made-up `apt-cache madison` output (no network)
# finds it among others, and when the archive no longer has it, stops,
# naming it and how to move the base, and prints no other version; main
# stops before any download then, and before asking the archive at all
# when build/BASE/linux holds another base.
. "$(dirname "$0")/../../scripts/tree.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2034 # read by tap (scripts/lib.sh)
TAP_PREFIX="tree: "
pkg=$LINUX_SOURCE_PKG want=$LINUX_SOURCE_VERSION

# madison VERSION...: apt-cache madison's lines for pkg at each VERSION.
madison() {
	local v
	for v in "$@"; do
		printf ' %s | %s | http://mirror/debian suite/main amd64 Packages\n' "$pkg" "$v"
	done
}

# pick VERSION...: run pinned_version on madison VERSION...; prints its
# exit status and stdout, its stderr in $tmp/err.
pick() {
	local out rc=0
	out=$(madison "$@" | pinned_version "$pkg" "$want" 2>"$tmp/err") || rc=$?
	echo "$rc $out"
}

tap_is "the pinned version, among others" "0 $want" "$(pick 1.0-1 "$want" 99.0-1)"
tap_is "the pinned version, alone" "0 $want" "$(pick "$want")"
tap_is "gone: stops and takes no other version" "1 " "$(pick 1.0-1 99.0-1)"
grep -q -F "$pkg $want is no longer in the archive" "$tmp/err"
tap $? "gone: the message names the version the queue was made for" "$(cat "$tmp/err")"
grep -q -F "LINUX_SOURCE_VERSION in config/base/$BASE.env" "$tmp/err" &&
	grep -q -F "The archive has: 1.0-1 99.0-1." "$tmp/err" && grep -q -F "(the newest: 99.0-1)" "$tmp/err" &&
	grep -q -F "make tree BASE=$BASE" "$tmp/err"
tap $? "gone: the message says what the archive has and how to move the base" "$(cat "$tmp/err")"
tap_is "a longer version that starts with the pinned one is another" "1 " "$(pick "$want+1")"
out=$( { madison 1.0-1; printf ' %s-dbg | %s | http://mirror/debian suite/main amd64 Packages\n' "$pkg" "$want"; } |
	pinned_version "$pkg" "$want" 2>/dev/null) && rc=0 || rc=1
tap_is "another package at the pinned version is not it" "1 " "$rc $out"
tap_is "apt knows no such package: stops" "1 " "$(pick)"
grep -q "apt knows no $pkg" "$tmp/err"
tap $? "apt knows no such package: says so" "$(cat "$tmp/err")"

# main, with apt stubbed: the archive lacks the pinned version.
apt_extra() {
	echo "$*" >> "$tmp/apt.log"
	if [ "$1 $2" = "apt-cache madison" ]; then madison 1.0-1 99.0-1; fi
}
rc=0
(BUILD=$tmp/build KREPO=$tmp/build/linux main) > /dev/null 2>"$tmp/err" || rc=$?
tap_is "main: stops when the archive lacks the pinned version" 1 "$rc"
tap_is "main: asked the archive, downloaded nothing" "apt-cache madison $pkg" "$(cat "$tmp/apt.log")"
mkdir -p "$tmp/build/linux/.git"
echo "1.0-1" > "$tmp/build/linux/.git/testbed-base-version"
rm -f "$tmp/apt.log"
rc=0
(BUILD=$tmp/build KREPO=$tmp/build/linux main) > /dev/null 2>"$tmp/err" || rc=$?
tap_is "main: stops when build/BASE/linux holds another base, named" "1 1" \
	"$rc $(grep -c -F "holds base 1.0-1, not $want" "$tmp/err")"
tap_is "main: asked no archive for it" "" "$(cat "$tmp/apt.log" 2>/dev/null)"
echo "1..$TAP_N"
