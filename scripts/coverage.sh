#!/usr/bin/env bash
# Coverage of function entries (scripts/coverage.py), base against patched,
# for Debian 12 (bookworm, the machine's own apt sources) and Debian 13
# (trixie, whose packages are built with -mbranch-protection=standard,
# through a private apt configuration: the machine's sources are not
# changed).  Reports: build/coverage/report.txt, build/coverage/trixie/.
. "$(dirname "$0")/lib.sh"

# apt_config_file NAME: write the private configuration NAME that apt_conf
# made (APT_OPTS) as an apt.conf file, for APT_CONFIG; print its path.
apt_config_file() {
	local conf=$APT_TOP/$1/apt.conf i
	for ((i = 1; i < ${#APT_OPTS[@]}; i += 2)); do
		printf '%s "%s";\n' "${APT_OPTS[i]%%=*}" "${APT_OPTS[i]#*=}"
	done > "$conf"
	printf '%s\n' "$conf"
}

main() {
	need_cmd python3
	log "Debian 12 (bookworm)"
	"$ROOT/scripts/coverage.py" --suite bookworm
	apt_conf trixie 0 trixie
	log "Debian 13 (trixie)"
	APT_CONFIG=$(apt_config_file trixie) "$ROOT/scripts/coverage.py" --suite trixie
}

main "$@"
