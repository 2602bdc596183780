#!/usr/bin/env bash
# Export branch "series" of build/linux (base..series) to patches/ with
# git format-patch, and rewrite patches/series.  The cover letter
# (0000-cover-letter.patch) takes its subject and text from
# patches/cover-letter.txt.  Output is stable: no commit ids, no version
# signature, and the cover letter dated like the last patch, so nothing
# changes in patches/ when the series did not.
. "$(dirname "$0")/lib.sh"

# recipients DIR: add To: (maintainers) and Cc: (reviewers, supporters,
# lists) headers, from the tree's scripts/get_maintainer.pl over the
# patches, to the cover letter in DIR, before its blank line ending the
# headers.  Addresses come from MAINTAINERS only.
recipients() {
	local dir=$1 hdr
	hdr=$(cd "$KREPO" && perl scripts/get_maintainer.pl --no-git --no-git-fallback \
		2>/dev/null "$dir"/0*-*.patch < /dev/null |
	      grep -v '^$' | awk '
		{ addr = $0; sub(/ \(.*$/, "", addr) }
		/\(maintainer:/ { to = to (to ? ",\n " : "") addr; next }
		{ cc = cc (cc ? ",\n " : "") addr }
		END { if (to) print "To: " to; if (cc) print "Cc: " cc }')
	[ -n "$hdr" ] || die "get_maintainer.pl named nobody for the series"
	printf '%s\n' "$hdr" > "$dir/recipients.tmp"
	awk -v f="$dir/recipients.tmp" '!done && /^$/ { while ((getline l < f) > 0) print l; done = 1 } { print }' \
		"$dir/0000-cover-letter.patch" > "$dir/cover.tmp"
	rm "$dir/recipients.tmp"
	mv "$dir/cover.tmp" "$dir/0000-cover-letter.patch"
}

main() {
	need_cmd git
	[ -d "$KREPO/.git" ] || die "no build/linux: run 'make tree' first"
	git -C "$KREPO" diff --quiet HEAD -- && git -C "$KREPO" diff --cached --quiet ||
		die "build/linux has uncommitted changes: commit them to branch series first"
	[ "$(git -C "$KREPO" symbolic-ref -q --short HEAD)" = series ] ||
		log "note: build/linux is not on branch series; exporting series anyway"
	local n tmp=$BUILD/export.tmp last_date
	n=$(git -C "$KREPO" rev-list --count base..series)
	[ "$n" -gt 0 ] || die "branch series has no commits on top of base"
	git -C "$KREPO" config branch.series.description "$(cat "$ROOT/patches/cover-letter.txt")"
	rm -rf "$tmp" && mkdir -p "$tmp"
	git -C "$KREPO" format-patch -q --zero-commit --no-signature --no-numbered-files \
		--cover-letter --cover-from-description=subject \
		-o "$tmp" base..series
	last_date=$(grep -m1 '^Date: ' "$(ls "$tmp"/0*.patch | tail -n1)")
	sed -i "s/^Date: .*/$last_date/" "$tmp/0000-cover-letter.patch"
	recipients "$tmp"
	rm -f "$ROOT"/patches/*.patch
	mv "$tmp"/*.patch "$ROOT/patches/"
	{
		echo "# The series, applied in this order by scripts/tree.sh (git am)."
		(cd "$ROOT/patches" && ls [0-9][0-9][0-9][0-9]-*.patch | grep -v '^0000-cover-letter')
	} > "$ROOT/patches/series"
	rmdir "$tmp"
	log "exported $n patches to patches/ (and the cover letter)"
}

main "$@"
