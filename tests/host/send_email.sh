#!/usr/bin/env bash
# TAP: a dry run of sending each series of the queue (patches/BASE/sets, or
# the whole queue) with git send-email --dry-run (offline): it goes through
# for the cover letter and every patch, threads the patches to the cover
# letter, and addresses every mail to the recipients that the export step
# took from scripts/get_maintainer.pl (To:/Cc: of the cover letter).  Each
# cover letter names the base (base-commit:, the id of tag base).
. "$(dirname "$0")/../../scripts/lib.sh"

# dry_run DIR: the checks of one series, in patches/BASE/DIR.
dry_run() {
	local dir=$1 cover files out want first_to got base
	cover=$PATCHES/$dir/0000-cover-letter.patch
	[ -f "$cover" ] || { tap 1 "send-email $dir: no cover letter ${cover#"$ROOT"/}"; return; }
	mapfile -t files < <(echo "$cover"; set_patches "$PATCHES/$dir")
	out=$(cd "$BUILD" && GIT_SEND_EMAIL_NOTTY=1 git send-email --dry-run --confirm=never \
		--to-cover --cc-cover --in-reply-to= \
		--from "$SERIES_AUTHOR_NAME <$SERIES_AUTHOR_EMAIL>" "${files[@]}" 2>&1 </dev/null) || true
	want=${#files[@]}
	got=$(grep -c '^Dry-OK' <<<"$out" || true)
	tap "$([ "$got" = "$want" ] && echo 0 || echo 1)" "send-email $dir: dry run, $got of $want mails"
	[ "$got" = "$want" ] || tail -n 5 <<<"$out" | sed 's/^/# /'
	first_to=$(sed -n 's/^To: \([^,]*\).*/\1/p' "$cover" | head -n1)
	got=$(grep -c "^To: ${first_to//[/\\[}" <<<"$out" || true)
	tap "$([ -n "$first_to" ] && [ "$got" = "$want" ] && echo 0 || echo 1)" \
		"send-email $dir: $got of $want mails to the maintainers (${first_to:-nobody}, ...)"
	got=$(grep -c '^In-Reply-To: ' <<<"$out" || true)
	tap "$([ "$got" = $((want - 1)) ] && echo 0 || echo 1)" "send-email $dir: $got of $((want - 1)) patches thread to the cover letter"
	base=$(git -C "$KREPO" rev-parse base)
	tap "$(grep -qx "base-commit: $base" "$cover" && echo 0 || echo 1)" "send-email $dir: the cover letter names base-commit: $base"
}

load_sets
for d in "${SET_DIR[@]}"; do
	dry_run "$d"
done
