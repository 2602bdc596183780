#!/usr/bin/env bash
# TAP, per patch of the queue (patches/BASE):
#  - scripts/checkpatch.pl --strict (the tree's own) reports nothing.  No
#    ignore list; only two message types are off, because they do not apply
#    to a tree unpacked from Debian's source package:
#    FILE_PATH_CHANGES ("does MAINTAINERS need updating?") is raised for every
#    added file whatever MAINTAINERS says (scripts/get_maintainer.pl is what
#    tells whether an entry covers it), and UNKNOWN_COMMIT_ID needs the
#    upstream history, which the tree does not have (the ids in Fixes: tags
#    are mainline's, checked by hand against it).
#    A stable-style backport (its message starts "commit <40 hex> upstream.")
#    carries upstream's message verbatim, so only its code is checked there:
#    COMMIT_LOG_LONG_LINE is off for it.
#  - a fix is marked the way stable takes it: a patch with a Fixes: tag in
#    the form "Fixes: <12+ hex> ("subject")" also has "Cc: stable@vger.kernel.org".
. "$(dirname "$0")/../../scripts/lib.sh"

# fixes_form PATCH: print what is wrong with PATCH's Fixes:/Cc: stable tags.
fixes_form() {
	local p=$1 fixes
	fixes=$(sed -n '/^---$/q; /^Fixes:/p' "$p")
	[ -n "$fixes" ] || return 0
	grep -vE '^Fixes: [0-9a-f]{12,40} \(".+"\)$' <<<"$fixes" | sed 's/^/malformed: /' || true
	grep -q '^Cc: stable@vger.kernel.org' "$p" || echo "Fixes: without Cc: stable@vger.kernel.org"
}

load_series
ksrc_at queue
n=0
for p in "${SERIES[@]}"; do
	n=$((n + 1))
	ignore=FILE_PATH_CHANGES,UNKNOWN_COMMIT_ID
	if sed -n '/^---$/q; p' "$p" | grep -qE '^commit [0-9a-f]{40} upstream\.$'; then
		ignore+=,COMMIT_LOG_LONG_LINE
	fi
	# spdxcheck.py needs Debian's python3 (python3-ply), first on PATH
	out=$(cd "$KSRC" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict --quiet \
		--no-summary --ignore "$ignore" "$p" 2>&1) || true
	out+=$(fixes_form "$p")
	if [ -z "$out" ]; then
		echo "ok $n - checkpatch --strict: ${p##*/}"
		continue
	fi
	echo "not ok $n - checkpatch --strict: ${p##*/}"
	printf '%s\n' "$out" | sed 's/^/# /' | head -n 30
done
