#!/usr/bin/env bash
# Materialize the kernel tree: Debian's linux-source package (config/base/BASE.env)
# as a git repository with one base commit (tag "base"), and the queue in
# patches/BASE applied on top with `git am` in series order (branch "queue",
# checked out in build/BASE/src, which is what every build uses).
# A patch that does not apply stops the run and names the patch.
# The developers' branch "series" is created once, at the queue, and never
# touched again here: edit there, then `make export`.
# The base is exactly the version config/base/BASE.env pins, the one the
# queue was made and tested on: when the archive no longer has it, the run
# stops and says how to move the base (pinned_version); it never takes
# another version by itself.  A .deb of that version in build/BASE/dl is
# used without asking the archive.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# pinned_version PKG VERSION: read `apt-cache madison PKG` on stdin and
# print VERSION when the archive has it.  Otherwise stop, naming the
# version the queue was made for, the versions the archive has, and how to
# move the base.  (No network here: tests/host/tree_version.sh feeds it.)
pinned_version() {
	local pkg=$1 want=$2 have dl=${BUILD#"$ROOT"/}/dl
	have=$(awk -F'|' -v p="$pkg" 'NF >= 3 { gsub(/ /, "", $1); gsub(/ /, "", $2); if ($1 == p) print $2 }' |
		sort -u -V)
	[ -n "$have" ] || die "apt knows no $pkg: run 'make deps' (apt-get update) first"
	if grep -qxF -- "$want" <<<"$have"; then
		printf '%s\n' "$want"
		return
	fi
	die "$pkg $want is no longer in the archive.
  The queue in patches/$BASE was made and tested on $want (LINUX_SOURCE_VERSION in
  config/base/$BASE.env), and the test bed takes no other version by itself.
  The archive has: $(xargs <<<"$have").
  Either put the .deb of $want (${pkg}_${want//:/%3a}_all.deb, e.g. from Debian's
  snapshot archive) in $dl/, or move the base to one the archive has:
    1. set LINUX_SOURCE_VERSION in config/base/$BASE.env to it (the newest: $(tail -n 1 <<<"$have"));
    2. make export BASE=$BASE if build/$BASE/linux holds unexported work, then move
       build/$BASE/linux away;
    3. make tree BASE=$BASE; where a patch no longer applies, apply the queue by hand
       in build/$BASE/linux (git checkout -B series base; git am -3 each patch, in
       patches/$BASE/series order), then make export BASE=$BASE and make tree again;
    4. make check BASE=$BASE and make bench BASE=$BASE, and commit the .env, the queue
       and results/$BASE together (docs/queue.md, \"Moving the base\")."
}

# unpack_base VERSION: download the package (the archive must have exactly
# VERSION) and create the repo with tag base.
unpack_base() {
	local ver=$1 dl=$BUILD/dl deb tarball madison
	mkdir -p "$dl"
	deb=$(first_file "$dl"/"${LINUX_SOURCE_PKG}"_"${ver//:/%3a}"_*.deb || true)
	if [ -z "$deb" ]; then
		madison=$(apt_extra apt-cache madison "$LINUX_SOURCE_PKG")
		pinned_version "$LINUX_SOURCE_PKG" "$ver" <<<"$madison" >/dev/null
		(cd "$dl" && apt_extra apt-get download "$LINUX_SOURCE_PKG=$ver") ||
			die "apt-get download $LINUX_SOURCE_PKG=$ver failed"
		deb=$(first_file "$dl"/"${LINUX_SOURCE_PKG}"_"${ver//:/%3a}"_*.deb) ||
			die "apt-get download $LINUX_SOURCE_PKG=$ver left no .deb in $dl"
	fi
	rm -rf "$KREPO.tmp" && mkdir -p "$KREPO.tmp"
	tarball=$(dpkg-deb -c "$deb" | awk '{print $NF}' | grep -m1 'linux-source-.*\.tar\.xz$')
	[ -n "$tarball" ] || die "$deb holds no linux-source tarball"
	log "unpacking ${tarball##*/} from ${deb##*/}"
	dpkg-deb --fsys-tarfile "$deb" | tar -xO "$tarball" | tar -xJ -C "$KREPO.tmp" --strip-components=1
	git -C "$KREPO.tmp" init -q -b base-import
	git -C "$KREPO.tmp" config core.autocrlf false
	git -C "$KREPO.tmp" add -A -f
	# Fixed identity and dates: the same source gives the same commit id on
	# every machine, whoever the series' author is, so that a cover
	# letter's base-commit: names it.
	GIT_AUTHOR_NAME="$BASE_IMPORT_NAME" GIT_AUTHOR_EMAIL="$BASE_IMPORT_EMAIL" \
	GIT_COMMITTER_NAME="$BASE_IMPORT_NAME" GIT_COMMITTER_EMAIL="$BASE_IMPORT_EMAIL" \
	GIT_AUTHOR_DATE='2000-01-01T00:00:00Z' GIT_COMMITTER_DATE='2000-01-01T00:00:00Z' \
		git -C "$KREPO.tmp" commit -q -m "Linux $(make -s -C "$KREPO.tmp" kernelversion) from Debian $LINUX_SOURCE_PKG $ver"
	git -C "$KREPO.tmp" tag base
	echo "$ver" > "$KREPO.tmp/.git/testbed-base-version"
	mv "$KREPO.tmp" "$KREPO"
}

# apply_queue: check out base in build/BASE/src and `git am` the series onto it.
apply_queue() {
	local p stamp want
	load_series
	want=$( { cat "$KREPO/.git/testbed-base-version"; cat "$PATCHES/series"; \
		  cat /dev/null "${SERIES[@]}"; } | sha256sum | cut -d' ' -f1)
	stamp=$KSRC/.testbed-queue
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] &&
	   git -C "$KREPO" rev-parse -q --verify refs/heads/queue >/dev/null; then
		log "queue unchanged (${#SERIES[@]} patches)"
		return
	fi
	if [ ! -e "$KSRC/.git" ]; then
		git -C "$KREPO" worktree add -q --detach "$KSRC" base
	fi
	git -C "$KSRC" am --abort >/dev/null 2>&1 || true
	git -C "$KSRC" checkout -q --detach -f base
	for p in "${SERIES[@]}"; do
		if ! git -C "$KSRC" am -q --keep-cr "$p" >"$BUILD/am.log" 2>&1; then
			cat "$BUILD/am.log" >&2
			git -C "$KSRC" am --abort >/dev/null 2>&1 || true
			die "patch ${p#"$ROOT"/} does not apply on $(cat "$KREPO/.git/testbed-base-version")"
		fi
		log "applied ${p##*/}"
	done
	git -C "$KREPO" branch -f queue "$(git -C "$KSRC" rev-parse HEAD)"
	git -C "$KSRC" checkout -q --detach queue
	echo "$want" > "$stamp"
}

main() {
	need_cmd apt-get apt-cache dpkg-deb git xz make
	mkdir -p "$BUILD"
	local ver=$LINUX_SOURCE_VERSION had
	if [ -d "$KREPO/.git" ]; then
		had=$(cat "$KREPO/.git/testbed-base-version")
		[ "$had" = "$ver" ] ||
			die "build/$BASE/linux holds base $had, not $ver (config/base/$BASE.env): make export if it holds unexported work, move it away and rerun"
	else
		timed "fetching base $LINUX_SOURCE_PKG $ver" unpack_base "$ver"
	fi
	git -C "$KREPO" config user.name "$SERIES_AUTHOR_NAME"
	git -C "$KREPO" config user.email "$SERIES_AUTHOR_EMAIL"
	apply_queue
	git -C "$KREPO" rev-parse -q --verify refs/heads/series >/dev/null ||
		git -C "$KREPO" branch series queue
	log "tree ready: base $ver, queue at $(git -C "$KREPO" rev-parse --short queue)"
}

# (tests/host/tree_version.sh sources it for pinned_version)
[ "${BASH_SOURCE[0]}" != "$0" ] || main "$@"
