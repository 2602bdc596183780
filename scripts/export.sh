#!/usr/bin/env bash
# Export branch "series" of build/BASE/linux (base..series) to patches/BASE
# with git format-patch, and rewrite patches/BASE/series.  The cover letter
# (0000-cover-letter.patch) takes its subject and text from
# patches/BASE/cover-letter.txt.  With SEND=1 (an export meant for
# sending), the placeholder identity of config/author.env is refused.
# Output is stable: no commit ids, no version signature, and the cover
# letter dated like the last patch, so nothing changes in patches/BASE when
# the series did not.
. "$(dirname "$0")/lib.sh"

# recipients DIR: add To: (the M: entries of every MAINTAINERS section the
# patches touch) and Cc: (reviewers, lists) headers, from the tree's
# scripts/get_maintainer.pl, to the cover letter in DIR, before the blank
# line that ends its headers.  Addresses come from MAINTAINERS only.
# get_maintainer.pl's role per address depends on Perl's hash order, so
# roles are not used, and the seed is fixed for a stable order.
recipients() {
	local dir=$1 to all
	to=$(maintainers "$dir" --nor --nol)
	all=$(maintainers "$dir")
	[ -n "$to" ] || die "get_maintainer.pl named no maintainer for the series"
	{
		header To "$to"
		header Cc "$(grep -vxF -f <(printf '%s\n' "$to") <<<"$all" || true)"
	} > "$dir/recipients.tmp"
	awk -v f="$dir/recipients.tmp" '!done && /^$/ { while ((getline l < f) > 0) print l; done = 1 } { print }' \
		"$dir/0000-cover-letter.patch" > "$dir/cover.tmp"
	mv "$dir/cover.tmp" "$dir/0000-cover-letter.patch"
	rm "$dir/recipients.tmp"
}

# maintainers DIR [OPTION...]: get_maintainer.pl's addresses for the patches.
maintainers() {
	local dir=$1
	shift
	(cd "$KREPO" && PERL_HASH_SEED=0 PERL_PERTURB_KEYS=0 perl scripts/get_maintainer.pl \
		--no-git --no-git-fallback --no-rolestats "$@" "$dir"/0*-*.patch </dev/null 2>/dev/null)
}

# header NAME LINES: an RFC 5322 header with one address a line; nothing
# for no addresses.
header() {
	[ -n "$2" ] || return 0
	awk -v h="$1" 'NR == 1 { printf "%s: %s", h, $0; next } { printf ",\n %s", $0 } END { print "" }' <<<"$2"
}

main() {
	need_cmd git
	if [ "${SEND:-0}" = 1 ] && [ "$SERIES_AUTHOR_EMAIL" = "$PLACEHOLDER_EMAIL" ]; then
		die "SEND=1: the author is the placeholder $PLACEHOLDER_EMAIL; set SERIES_AUTHOR_NAME and SERIES_AUTHOR_EMAIL (config/author.env) to your own"
	fi
	[ -d "$KREPO/.git" ] || die "no build/linux: run 'make tree' first"
	git -C "$KREPO" diff --quiet HEAD -- && git -C "$KREPO" diff --cached --quiet ||
		die "build/linux has uncommitted changes: commit them to branch series first"
	[ "$(git -C "$KREPO" symbolic-ref -q --short HEAD)" = series ] ||
		log "note: build/linux is not on branch series; exporting series anyway"
	local n tmp=$BUILD/export.tmp last_date
	n=$(git -C "$KREPO" rev-list --count base..series)
	[ "$n" -gt 0 ] || die "branch series has no commits on top of base"
	git -C "$KREPO" config branch.series.description "$(cat "$PATCHES/cover-letter.txt")"
	rm -rf "$tmp" && mkdir -p "$tmp"
	# blank context lines as empty lines, not " ": checkpatch run on a
	# git-tracked patch file checks it as a source file and flags " "
	git -C "$KREPO" -c diff.suppressBlankEmpty=true format-patch -q --zero-commit --no-signature --no-numbered-files \
		--cover-letter --cover-from-description=subject \
		-o "$tmp" base..series
	last_date=$(grep -m1 '^Date: ' "$(ls "$tmp"/0*.patch | tail -n1)")
	sed -i "s/^Date: .*/$last_date/" "$tmp/0000-cover-letter.patch"
	recipients "$tmp"
	rm -f "$PATCHES"/*.patch
	mv "$tmp"/*.patch "$PATCHES/"
	{
		echo "# The series, applied in this order by scripts/tree.sh (git am)."
		(cd "$PATCHES" && ls [0-9][0-9][0-9][0-9]-*.patch | grep -v '^0000-cover-letter')
	} > "$PATCHES/series"
	rmdir "$tmp"
	log "exported $n patches to patches/$BASE (and the cover letter)"
}

main "$@"
