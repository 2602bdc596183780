#!/usr/bin/env bash
# TAP: every kernel object the queue touches builds, without a warning,
# with the distribution's own arm64 kernel configuration, not ours: the
# /boot/config-* of the linux-image package that Debian's linux-image-arm64
# depends on, from the base's DISTRO_SUITES (config/base/BASE.env: trixie,
# Debian 13, for 6.12; sid for mainline), fetched through a private apt
# configuration.  The configuration is brought to the tree with
# olddefconfig.  Incremental, in build/BASE/obj-distro.
. "$(dirname "$0")/../../scripts/lib.sh"

OBJ=$BUILD/obj-distro
LOG=$BUILD/logs/distro-config.log
META=linux-image-arm64:arm64

# config_from PKG DIR: download PKG (arm64) into DIR and write the kernel
# configuration it holds (/boot/config-* up to Debian 13, or
# /usr/lib/modules/*/config, as sid's linux-base-* has it) to DIR/OUT.config;
# return 1 if it holds none.
config_from() {
	local pkg=$1 dir=$2 deb member
	(cd "$dir" && apt-get "${APT_OPTS[@]}" download "$pkg:arm64" >/dev/null 2>&1) ||
		die "apt-get download $pkg:arm64 from $DISTRO_SUITES failed"
	deb=$(first_file "$dir/${pkg}"_*_arm64.deb)
	member=$(dpkg-deb -c "$deb" 2>/dev/null | awk '{ print $NF }' |
		grep -m1 -E '^\./(boot/config-.*|usr/lib/modules/[^/]+/config)$' || true)
	[ -z "$member" ] || dpkg-deb --fsys-tarfile "$deb" | tar -xO "$member" > "$dir/OUT.config"
	rm -f "$deb"
	[ -n "$member" ]
}

# distro_config: print the path of the distribution's kernel configuration,
# downloading the image package (and, where the configuration moved there,
# its linux-base-* dependency) once; stop with a message on failure.
distro_config() {
	local pkg dep dir=$BUILD/distro-config
	# shellcheck disable=SC2086 # a list of suites
	apt_conf "distro-$BASE" 0 $DISTRO_SUITES >&2
	pkg=$(apt-cache "${APT_OPTS[@]}" depends "$META" 2>/dev/null |
		awk '/Depends: linux-image-[0-9]/ { sub(/:arm64$/, "", $2); print $2; exit }')
	[ -n "$pkg" ] || die "$DISTRO_SUITES has no $META depending on a linux-image package"
	mkdir -p "$dir"
	if [ ! -s "$dir/$pkg.config" ]; then
		if ! config_from "$pkg" "$dir"; then
			dep=$(apt-cache "${APT_OPTS[@]}" depends "$pkg:arm64" 2>/dev/null |
				awk '/Depends: linux-base-[0-9]/ { sub(/:arm64$/, "", $2); print $2; exit }')
			if [ -z "$dep" ] || ! config_from "$dep" "$dir"; then
				die "neither $pkg nor its linux-base package holds a kernel configuration"
			fi
		fi
		mv "$dir/OUT.config" "$dir/$pkg.config"
	fi
	printf '%s\n' "$dir/$pkg.config"
}

# touched SUFFIXES: the kernel source files (not tools/) the queue adds or
# changes, whose name ends in one of SUFFIXES (a glob class, e.g. "[ch]").
touched() {
	git -C "$KSRC" diff --name-only --diff-filter=AM base queue -- "*.$1" \
		':!tools' ':!samples' ':!Documentation'
}

main() {
	local cfg objs o n=1 ours
	mkdir -p "$(dirname "$LOG")" "$OBJ"
	ksrc_at queue
	cfg=$(distro_config)
	echo "ok $n - distro config: ${cfg##*/} ($DISTRO_SUITES)"
	mapfile -t objs < <(touched c | sed 's/\.c$/.o/')
	# a warning in any file the queue touches, .c or header, fails
	ours=$(touched '[ch]' | sed 's/[.]/[.]/g' | paste -sd'|')
	cp "$cfg" "$OBJ/.config"
	if ! make -C "$KSRC" O="$OBJ" ARCH=arm64 CROSS_COMPILE="$CROSS_COMPILE" olddefconfig >"$LOG" 2>&1; then
		echo "not ok $((n + 1)) - distro config: olddefconfig (log: ${LOG#"$ROOT"/})"
		return
	fi
	for o in "${objs[@]}"; do
		n=$((n + 1))
		rm -f "$OBJ/$o"
		if make -C "$KSRC" O="$OBJ" ARCH=arm64 CROSS_COMPILE="$CROSS_COMPILE" \
			CC="ccache ${CROSS_COMPILE}gcc" -j"$JOBS" "$o" >"$LOG.obj" 2>&1 &&
		   ! grep -Eq "($ours):[0-9]+:[0-9]+: warning:" "$LOG.obj"; then
			echo "ok $n - distro config: $o builds without a warning"
		else
			echo "not ok $n - distro config: $o builds without a warning"
			grep -E 'error|warning' "$LOG.obj" | head -n 5 | sed 's/^/# /'
		fi
		cat "$LOG.obj" >> "$LOG"
	done
}

main "$@"
