#!/usr/bin/env bash
# The queue as its sender mails it: each series of patches/BASE (the sets
# file, or the whole queue) copied to build/BASE/outgoing/DIR with the
# committed placeholder identity (config/author.env) replaced, in From:
# and Signed-off-by:, by the sender's.  The sender is AUTHOR="Name <mail>"
# if set, else `git config user.name` and `user.email` of this checkout.
# patches/ keeps the placeholder, so that the committed queue does not
# change with who exports it.  The placeholder itself, or no identity, is
# refused, and so is a queue that is not mailed (QUEUE_MAIL of
# config/base/BASE.env: the 6.12 backport).  OUTGOING names another
# folder (the host test's).  Send with:
#   git send-email --to-cover --cc-cover build/BASE/outgoing/DIR/*.patch
. "$(dirname "$0")/lib.sh"

# sender: "Name <mail>" of the person sending, or die.
sender() {
	local name mail
	if [ -n "${AUTHOR:-}" ]; then
		[[ $AUTHOR =~ ^([^<>@]*[^<>@[:space:]])[[:space:]]+\<([^<>@[:space:]]+@[^<>@[:space:]]+)\>$ ]] ||
			die "AUTHOR='$AUTHOR': want AUTHOR='Your Name <you@example.org>'"
		name=${BASH_REMATCH[1]} mail=${BASH_REMATCH[2]}
	else
		name=$(git -C "$ROOT" config user.name || true)
		mail=$(git -C "$ROOT" config user.email || true)
		if [ -z "$name" ] || [ -z "$mail" ]; then
			die "no sender: set AUTHOR='Your Name <you@example.org>', or git config user.name and user.email"
		fi
	fi
	[ "$mail" != "$PLACEHOLDER_EMAIL" ] ||
		die "the sender is the placeholder $PLACEHOLDER_EMAIL of config/author.env: set AUTHOR to your own identity"
	printf '%s <%s>\n' "$name" "$mail"
}

# stamp FILE OUT WHO: FILE with the placeholder's From: and Signed-off-by:
# lines made WHO's, written to OUT.  Literal comparison: a name may hold
# any character.
stamp() {
	awk -v old="$SERIES_AUTHOR_NAME <$SERIES_AUTHOR_EMAIL>" -v who="$3" '
		$0 == "From: " old { print "From: " who; next }
		$0 == "Signed-off-by: " old { print "Signed-off-by: " who; next }
		{ print }' "$1" > "$2"
}

main() {
	local who dir out f n=0 top=${OUTGOING:-$BUILD/outgoing} files
	[ "$QUEUE_MAIL" = 1 ] ||
		die "patches/$BASE is not for mailing: $QUEUE_MAIL (config/base/$BASE.env); mail patches/mainline"
	who=$(sender) || exit 1
	load_sets
	rm -rf "$top"
	for dir in "${SET_DIR[@]}"; do
		out=$top/$dir
		mkdir -p "$out"
		[ -f "$PATCHES/$dir/0000-cover-letter.patch" ] ||
			die "patches/$BASE/$dir has no cover letter: run 'make export' first"
		mapfile -t files < <(echo "$PATCHES/$dir/0000-cover-letter.patch"; set_patches "$PATCHES/$dir")
		for f in "${files[@]}"; do
			stamp "$f" "$out/${f##*/}" "$who"
			n=$((n + 1))
		done
	done
	log "$n mails from $who in ${top#"$ROOT"/} (${#SET_DIR[@]} series)"
}

main "$@"
