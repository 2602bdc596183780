#!/usr/bin/env bash
# Export branch "series" of build/BASE/linux (base..series) to patches/BASE
# with git format-patch, and rewrite patches/BASE/series.  The queue is sent
# as the series patches/BASE/sets names (scripts/lib.sh load_sets), each in
# its own folder with its own numbering, subject prefix, cover letter
# (0000-cover-letter.patch, from the folder's cover-letter.txt: subject,
# blank line, text), recipients and base-commit:; without a sets file the
# whole queue is one series in patches/BASE.  The placeholder identity of
# config/author.env stays; scripts/outgoing.sh stamps the sender's.
# Output is stable: no commit ids, no version signature, and the cover
# letter dated like the last patch, so nothing changes in patches/BASE when
# the series did not.
. "$(dirname "$0")/lib.sh"

# recipients DIR EXTRA: add To: (the M: entries of every MAINTAINERS
# section the patches touch) and Cc: (reviewers, lists) headers, from the
# tree's scripts/get_maintainer.pl, to the cover letter in DIR, before the
# blank line that ends its headers; and Cc: the addresses in file EXTRA
# (the series folder's extra-cc, if any: one a line, with '#' comments
# saying why) that get_maintainer.pl did not name.
# get_maintainer.pl's role per address depends on Perl's hash order, so
# roles are not used, and the seed is fixed for a stable order.
recipients() {
	local dir=$1 list=$2 to all extra='' bad
	to=$(maintainers "$dir" --nor --nol)
	all=$(maintainers "$dir")
	[ -n "$to" ] || die "get_maintainer.pl named no maintainer for the series"
	if [ -f "$list" ]; then
		extra=$(sed -e 's/#.*//' -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$list" |
			grep -vxF -f <(printf '%s\n' "$all") || true)
		bad=$(grep -vE '^([^<>@]+ <[^<>@ ]+@[^<>@ ]+>|[^<>@ ]+@[^<>@ ]+)$' <<<"$extra" || true)
		[ -z "$bad" ] ||
			die "${list#"$ROOT"/}: not 'Name <address>' or an address: $(head -n1 <<<"$bad")"
	fi
	{
		header To "$to"
		header Cc "$(grep -vxF -f <(printf '%s\n' "$to") <<<"$all" || true; [ -z "$extra" ] || printf '%s\n' "$extra")"
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

# export_set I FIRST LAST OUT: format-patch the commits FIRST..LAST (ids;
# FIRST included) of series I of load_sets into folder OUT, with its cover
# letter, subject prefix and base-commit: (plus prerequisite-patch-id: for
# the series it stacks on).  A series that needs only the base, or the base
# and some earlier series ("on:"), is formatted from a copy of its commits
# on those (SET_FIRST and SET_LAST of the earlier ones), and only their
# patches are its prerequisites.
export_set() {
	local i=$1 first=$2 last=$3 out=$4 txt from tip wt=$BUILD/export-wt last_date patches d j
	txt=$PATCHES/${SET_DIR[i]}/cover-letter.txt
	[ -f "$txt" ] || die "no ${txt#"$ROOT"/}: the cover letter of series ${SET_DIR[i]}"
	from=$first^ tip=$last
	if [[ ${SET_NEEDS[i]} == on:* ]] ||
	   { [ "${SET_NEEDS[i]}" = base ] && [ "$(git -C "$KREPO" rev-parse "$first^")" != "$(git -C "$KREPO" rev-parse base)" ]; }; then
		git -C "$KREPO" worktree remove -f "$wt" >/dev/null 2>&1 || rm -rf "$wt"
		git -C "$KREPO" worktree prune
		git -C "$KREPO" worktree add -q --detach "$wt" base
		while read -r d; do
			j=$(set_index "$d")
			git -C "$wt" cherry-pick "${SET_FIRST[j]}^..${SET_LAST[j]}" >/dev/null 2>&1 ||
				die "series $d does not apply on the base alone, under series ${SET_DIR[i]}"
		done < <(set_deps "${SET_NEEDS[i]}")
		from=$(git -C "$wt" rev-parse HEAD)
		git -C "$wt" cherry-pick "$first^..$last" >/dev/null 2>&1 ||
			die "series ${SET_DIR[i]} is marked '${SET_NEEDS[i]}' in patches/$BASE/sets but does not apply on that alone"
		[ "${SET_NEEDS[i]}" = base ] && from=base
		tip=$(git -C "$wt" rev-parse HEAD)
		git -C "$KREPO" worktree remove -f "$wt"
	fi
	# format-patch takes the cover letter from the description of the
	# branch it formats
	git -C "$KREPO" branch -f export-set "$tip"
	git -C "$KREPO" config branch.export-set.description "$(cat "$txt")"
	mkdir -p "$out"
	# blank context lines as empty lines, not " ": checkpatch run on a
	# git-tracked patch file checks it as a source file and flags " "
	git -C "$KREPO" -c diff.suppressBlankEmpty=true format-patch -q --zero-commit --no-signature --no-numbered-files \
		--cover-letter --cover-from-description=subject --base=base \
		--subject-prefix="${SET_PREFIX[i]}" -o "$out" "$from..export-set"
	git -C "$KREPO" branch -D -q export-set
	patches=("$out"/0*.patch)
	last_date=$(grep -m1 '^Date: ' "${patches[-1]}")
	sed -i "s/^Date: .*/$last_date/" "$out/0000-cover-letter.patch"
	recipients "$out" "$PATCHES/${SET_DIR[i]}/extra-cc"
}

main() {
	need_cmd git
	[ -d "$KREPO/.git" ] || die "no build/$BASE/linux: run 'make tree' first"
	if ! git -C "$KREPO" diff --quiet HEAD -- || ! git -C "$KREPO" diff --cached --quiet; then
		die "build/$BASE/linux has uncommitted changes: commit them to branch series first"
	fi
	[ "$(git -C "$KREPO" symbolic-ref -q --short HEAD)" = series ] ||
		log "note: build/$BASE/linux is not on branch series; exporting series anyway"
	local n i at=0 sum=0 tmp=$BUILD/export.tmp commits
	mapfile -t commits < <(git -C "$KREPO" rev-list --reverse base..series)
	n=${#commits[@]}
	[ "$n" -gt 0 ] || die "branch series has no commits on top of base"
	load_sets
	[ -f "$PATCHES/sets" ] || SET_COUNT=("$n")
	for i in "${!SET_COUNT[@]}"; do sum=$((sum + SET_COUNT[i])); done
	[ "$sum" = "$n" ] || die "patches/$BASE/sets counts $sum patches, branch series has $n"
	rm -rf "$tmp" && mkdir -p "$tmp"
	SET_FIRST=() SET_LAST=()
	for i in "${!SET_DIR[@]}"; do
		SET_FIRST[i]=${commits[at]} SET_LAST[i]=${commits[at + SET_COUNT[i] - 1]}
		export_set "$i" "${SET_FIRST[i]}" "${SET_LAST[i]}" "$tmp/${SET_DIR[i]}"
		at=$((at + SET_COUNT[i]))
	done
	{
		echo "# The series, applied in this order by scripts/tree.sh (git am)."
		for i in "${!SET_DIR[@]}"; do
			set_patches "$tmp/${SET_DIR[i]}" | sed "s|^$tmp/||; s|^\./||"
		done
	} > "$tmp/series"
	for i in "${!SET_DIR[@]}"; do
		rm -f "$PATCHES/${SET_DIR[i]}"/*.patch
		mv "$tmp/${SET_DIR[i]}"/*.patch "$PATCHES/${SET_DIR[i]}/"
	done
	mv "$tmp/series" "$PATCHES/series"
	rm -rf "$tmp"
	log "exported $n patches to patches/$BASE as ${#SET_DIR[@]} series (each with its cover letter)"
}

main "$@"
