#!/usr/bin/env bash
# Materialize the kernel tree: Debian's linux-source package (config/base/BASE.env)
# as a git repository with one base commit (tag "base"), and the queue in
# patches/BASE applied on top with `git am` in series order (branch "queue",
# checked out in build/BASE/src, which is what every build uses).
# A patch that does not apply stops the run and names the patch.
# The developers' branch "series" is created once, at the queue, and never
# touched again here: edit there, then `make export`.
. "$(dirname "$0")/lib.sh"

# pick_version: print the version to download; fall back to the newest
# (with a warning) when the pinned one is gone from the archive.
pick_version() {
	local have newest
	have=$(apt_extra apt-cache madison "$LINUX_SOURCE_PKG" | awk -F'|' '{gsub(/ /,"",$2); print $2}')
	[ -n "$have" ] || die "apt knows no $LINUX_SOURCE_PKG: run 'make deps' (apt-get update) first"
	newest=$(printf '%s\n' "$have" | sort -V | tail -n1)
	if printf '%s\n' "$have" | grep -qxF "$LINUX_SOURCE_VERSION"; then
		printf '%s\n' "$LINUX_SOURCE_VERSION"
	else
		log "WARNING: $LINUX_SOURCE_PKG $LINUX_SOURCE_VERSION is gone from the archive;" \
		    "using the newest, $newest (update config/base/$BASE.env)"
		printf '%s\n' "$newest"
	fi
}

# unpack_base VERSION: download the package and create the repo with tag base.
unpack_base() {
	local ver=$1 dl=$BUILD/dl deb tarball
	mkdir -p "$dl"
	deb=$(first_file "$dl"/"${LINUX_SOURCE_PKG}"_"${ver//:/%3a}"_*.deb || true)
	if [ -z "$deb" ]; then
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
	local ver
	ver=$(pick_version)
	if [ -d "$KREPO/.git" ]; then
		local had
		had=$(cat "$KREPO/.git/testbed-base-version")
		[ "$had" = "$ver" ] || die "build/$BASE/linux holds base $had, not $ver: move it away (it may hold unexported work) and rerun"
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

main "$@"
