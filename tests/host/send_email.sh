#!/usr/bin/env bash
# TAP: a dry run of sending the exported series (git send-email --dry-run,
# offline) goes through for the cover letter and every patch, threads them
# to the cover letter, and addresses every mail to the recipients that the
# export step took from scripts/get_maintainer.pl (To:/Cc: of the cover).
. "$(dirname "$0")/../../scripts/lib.sh"

cover=$PATCHES/0000-cover-letter.patch
load_series
files=("$cover" "${SERIES[@]}")
out=$(cd "$BUILD" && GIT_SEND_EMAIL_NOTTY=1 git send-email --dry-run --confirm=never \
	--to-cover --cc-cover --in-reply-to= \
	--from "$SERIES_AUTHOR_NAME <$SERIES_AUTHOR_EMAIL>" "${files[@]}" 2>&1 </dev/null) || true
want=${#files[@]}
first_to=$(sed -n 's/^To: \([^,]*\).*/\1/p' "$cover" | head -n1)
ok=$(grep -c '^Dry-OK' <<<"$out" || true)
[ "$ok" = "$want" ] && echo "ok 1 - send-email dry run: $ok of $want mails" ||
	{ echo "not ok 1 - send-email dry run: $ok of $want mails"; tail -n 5 <<<"$out" | sed 's/^/# /'; }
to=$(grep -c "^To: ${first_to//[/\\[}" <<<"$out" || true)
[ -n "$first_to" ] && [ "$to" = "$want" ] &&
	echo "ok 2 - send-email dry run: every mail to the maintainers ($first_to, ...)" ||
	echo "not ok 2 - send-email dry run: $to of $want mails to '${first_to:-nobody}'"
replies=$(grep -c '^In-Reply-To: ' <<<"$out" || true)
[ "$replies" = $((want - 1)) ] && echo "ok 3 - send-email dry run: patches thread to the cover letter" ||
	echo "not ok 3 - send-email dry run: $replies of $((want - 1)) patches reply to the cover letter"
