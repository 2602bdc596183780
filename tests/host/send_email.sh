#!/usr/bin/env bash
# TAP: a dry run of sending each series of the queue (patches/BASE/sets, or
# the whole queue) with git send-email --dry-run (offline), as a sender
# would: the mails scripts/outgoing.sh stamps with the sender's identity
# (here a test one, SENDER).  It goes through for the cover letter and
# every patch, every mail is from the sender and every patch signed off by
# the sender (the committed placeholder is gone), the patches thread to
# the cover letter, and every mail goes to the recipients that the export
# step took from scripts/get_maintainer.pl (To:/Cc: of the cover letter).
# Each cover letter names the base (base-commit:, the id of tag base).
# outgoing.sh refuses the placeholder identity and a malformed AUTHOR, and
# a queue that is not mailed (QUEUE_MAIL, config/base/BASE.env), writing
# nothing.
. "$(dirname "$0")/../../scripts/lib.sh"

SENDER="Ada Tester <ada.tester@example.net>"
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

# dry_run DIR: the checks of one series, in patches/BASE/DIR.
dry_run() {
	local dir=$1 cover files out want first_to got base
	cover=$OUT/$dir/0000-cover-letter.patch
	[ -f "$cover" ] || { tap 1 "send-email $dir: no cover letter ${cover#"$ROOT"/}"; return; }
	mapfile -t files < <(echo "$cover"; set_patches "$OUT/$dir")
	out=$(cd "$BUILD" && GIT_SEND_EMAIL_NOTTY=1 git send-email --dry-run --confirm=never \
		--to-cover --cc-cover --in-reply-to= \
		--from "$SENDER" "${files[@]}" 2>&1 </dev/null) || true
	want=${#files[@]}
	got=$(grep -c '^Dry-OK' <<<"$out" || true)
	tap "$([ "$got" = "$want" ] && echo 0 || echo 1)" "send-email $dir: dry run, $got of $want mails"
	[ "$got" = "$want" ] || tail -n 5 <<<"$out" | sed 's/^/# /'
	first_to=$(sed -n 's/^To: \([^,]*\).*/\1/p' "$cover" | head -n1)
	got=$(grep -c "^To: ${first_to//[/\\[}" <<<"$out" || true)
	tap "$([ -n "$first_to" ] && [ "$got" = "$want" ] && echo 0 || echo 1)" \
		"send-email $dir: $got of $want mails to the maintainers (${first_to:-nobody}, ...)"
	got=$(grep -c -xF "From: $SENDER" <<<"$out" || true)
	tap "$([ "$got" = "$want" ] && echo 0 || echo 1)" "send-email $dir: $got of $want mails from the sender, $SENDER"
	got=$(cat "${files[@]:1}" | grep -c -xF "Signed-off-by: $SENDER" || true)
	tap "$([ "$got" -ge $((want - 1)) ] && ! grep -q -F "$PLACEHOLDER_EMAIL" "${files[@]}" && echo 0 || echo 1)" \
		"send-email $dir: every patch signed off by the sender ($got), no placeholder left"
	got=$(grep -c '^In-Reply-To: ' <<<"$out" || true)
	tap "$([ "$got" = $((want - 1)) ] && echo 0 || echo 1)" "send-email $dir: $got of $((want - 1)) patches thread to the cover letter"
	base=$(git -C "$KREPO" rev-parse base)
	tap "$(grep -qx "base-commit: $base" "$cover" && echo 0 || echo 1)" "send-email $dir: the cover letter names base-commit: $base"
}

# refused AUTHOR WHY: outgoing.sh stops, writing nothing, for AUTHOR.
refused() {
	if AUTHOR=$1 OUTGOING=$OUT/no "$ROOT/scripts/outgoing.sh" 2>/dev/null || [ -e "$OUT/no" ]; then
		tap 1 "outgoing.sh: refuses $2"
	else
		tap 0 "outgoing.sh: refuses $2"
	fi
}

if [ "$QUEUE_MAIL" != 1 ]; then
	refused "$SENDER" "patches/$BASE, which is not mailed ($QUEUE_MAIL)"
	exit 0
fi
if AUTHOR=$SENDER OUTGOING=$OUT "$ROOT/scripts/outgoing.sh" 2>/dev/null; then
	tap 0 "outgoing.sh: the queue stamped with AUTHOR='$SENDER'"
else
	tap 1 "outgoing.sh: the queue stamped with AUTHOR='$SENDER'"
fi
refused "$SERIES_AUTHOR_NAME <$PLACEHOLDER_EMAIL>" "the placeholder identity"
refused nobody "an AUTHOR without an address"
load_sets
for d in "${SET_DIR[@]}"; do
	dry_run "$d"
done
