#!/usr/bin/env bash
# TAP: the queue in patches/ applies with `git am`, in series order, on a
# fresh checkout of the base (independent of build/BASE/src and its stamps);
# and each series that patches/BASE/sets marks "base" applies on the base
# alone, and each marked "on:FOLDER,..." on the base and those series
# alone.
. "$(dirname "$0")/../../scripts/lib.sh"

wt=$BUILD/check-am
git -C "$KREPO" worktree remove -f "$wt" >/dev/null 2>&1 || rm -rf "$wt"
git -C "$KREPO" worktree prune
git -C "$KREPO" worktree add -q --detach "$wt" base
load_series
n=0 bad=0
for p in "${SERIES[@]}"; do
	n=$((n + 1))
	if git -C "$wt" am -q --keep-cr "$p" >/dev/null 2>&1; then
		echo "ok $n - series: ${p##*/} applies"
	else
		echo "not ok $n - series: ${p##*/} does not apply"
		bad=1
		git -C "$wt" am --abort >/dev/null 2>&1 || true
		break
	fi
done
n=$((n + 1))
if [ "$bad" = 0 ] && [ "$(git -C "$wt" rev-parse 'HEAD^{tree}')" = "$(git -C "$KREPO" rev-parse 'queue^{tree}')" ]; then
	echo "ok $n - series: applied queue equals the tree that is built (branch queue)"
else
	echo "not ok $n - series: applied queue differs from branch queue (run make tree)"
fi
load_sets
for i in "${!SET_DIR[@]}"; do
	[ "${SET_NEEDS[i]}" = stack ] && continue
	n=$((n + 1))
	git -C "$wt" am --abort >/dev/null 2>&1 || true
	git -C "$wt" checkout -q --detach -f base
	files=() on=""
	while read -r d; do
		mapfile -t -O "${#files[@]}" files < <(set_patches "$PATCHES/$d")
		on="$on and $d"
	done < <(set_deps "${SET_NEEDS[i]}")
	mapfile -t -O "${#files[@]}" files < <(set_patches "$PATCHES/${SET_DIR[i]}")
	if git -C "$wt" am -q --keep-cr "${files[@]}" >/dev/null 2>&1; then
		echo "ok $n - series: ${SET_DIR[i]} applies on the base${on} alone"
	else
		echo "not ok $n - series: ${SET_DIR[i]} does not apply on the base${on} alone"
		git -C "$wt" am --abort >/dev/null 2>&1 || true
	fi
done
git -C "$KREPO" worktree remove -f "$wt"
