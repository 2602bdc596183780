#!/usr/bin/env bash
# TAP: scripts/checkpatch.pl --strict (the tree's own) reports nothing for
# each patch of the series, except the message types that
# patches/checkpatch.ignore allows for that patch, with a reason.
# FILE_PATH_CHANGES ("does MAINTAINERS need updating?") is raised for every
# added file whatever MAINTAINERS says; whether an entry covers the added
# files is for scripts/get_maintainer.pl, not this check.
. "$(dirname "$0")/../../scripts/lib.sh"

# ignores PATCH: the --ignore list for PATCH.
ignores() {
	local name=${1##*/} glob types list=FILE_PATH_CHANGES
	while read -r glob types _; do
		case $glob in ""|"#"*) continue ;; esac
		# shellcheck disable=SC2053 # glob match on purpose
		[[ $name == $glob ]] && list+=",$types"
	done < "$ROOT/patches/checkpatch.ignore"
	printf '%s\n' "$list"
}

load_series
ksrc_at queue
n=0
for p in "${SERIES[@]}"; do
	n=$((n + 1))
	# spdxcheck.py needs Debian's python3 (python3-ply), first on PATH
	out=$(cd "$KSRC" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict --quiet \
		--no-summary --ignore "$(ignores "$p")" "$p" 2>&1) && [ -z "$out" ] &&
		echo "ok $n - checkpatch --strict: ${p##*/}" && continue
	echo "not ok $n - checkpatch --strict: ${p##*/}"
	printf '%s\n' "$out" | sed 's/^/# /' | head -n 30
done
