#!/usr/bin/env bash
# A QEMU that emulates FEAT_GCS, for the GCS tests of `make check` on the
# bases with GCS (GCS_QEMU_SUITE in config/base/BASE.env).
#   scripts/qemu_gcs.sh
# bookworm-backports' QEMU 10.0 does not emulate GCS; trixie-backports' 11.1
# does, but needs trixie's libraries.  So it goes, with them, into a private
# root made by mmdebstrap (build/qemu-gcs/root, shared by the bases), and
# build/qemu-gcs/qemu-system-aarch64 runs it with that root's loader and
# libraries.  Nothing of the machine's own changes.  Remade when the suite
# changes; prints the wrapper's path on stdout.
# Errors: no mmdebstrap (deps.sh installs it), no network, a QEMU that does
# not run: a message naming the cause, exit 1.  Whether the guest CPU has
# GCS is checked in the guest (scripts/check.sh).
. "$(dirname "$0")/lib.sh"

DIR=$ROOT/build/qemu-gcs
WRAPPER=$DIR/qemu-system-aarch64

# make_root: the private root, with qemu-system-arm from the suite.
make_root() {
	local mirror=$1 suite=${GCS_QEMU_SUITE%%-*}
	rm -rf "$DIR/root"
	mkdir -p "$DIR"
	log "installing qemu-system-arm from $GCS_QEMU_SUITE into ${DIR#"$ROOT"/}/root (mmdebstrap) ..."
	mmdebstrap --variant=essential \
		--aptopt='APT::Install-Recommends "false"' \
		--include="qemu-system-arm/$GCS_QEMU_SUITE,qemu-system-common/$GCS_QEMU_SUITE,qemu-system-data/$GCS_QEMU_SUITE" \
		"$suite" "$DIR/root" "deb $mirror $suite main" "deb $mirror $GCS_QEMU_SUITE main" \
		>"$DIR/mmdebstrap.log" 2>&1 ||
		{ tail -n 20 "$DIR/mmdebstrap.log" >&2; die "mmdebstrap of $GCS_QEMU_SUITE's QEMU failed (log: ${DIR#"$ROOT"/}/mmdebstrap.log)"; }
	echo "$GCS_QEMU_SUITE" >"$DIR/suite"
}

# write_wrapper: run the root's QEMU with the root's loader and libraries.
write_wrapper() {
	cat >"$WRAPPER" <<'EOF'
#!/bin/sh
# qemu-system-aarch64 of build/qemu-gcs/root (scripts/qemu_gcs.sh).
r=$(dirname "$0")/root
exec "$r/lib64/ld-linux-x86-64.so.2" \
	--library-path "$r/usr/lib/x86_64-linux-gnu:$r/lib/x86_64-linux-gnu" \
	"$r/usr/bin/qemu-system-aarch64" -L "$r/usr/share/qemu" "$@"
EOF
	chmod +x "$WRAPPER"
}

main() {
	[ -n "${GCS_QEMU_SUITE:-}" ] || die "BASE=$BASE has no GCS_QEMU_SUITE (config/base/$BASE.env): no GCS tests for it"
	need_cmd mmdebstrap
	if [ ! -x "$DIR/root/usr/bin/qemu-system-aarch64" ] ||
	   [ "$(cat "$DIR/suite" 2>/dev/null)" != "$GCS_QEMU_SUITE" ]; then
		make_root "$(debian_mirror)"
	fi
	write_wrapper
	"$WRAPPER" -cpu help >/dev/null 2>&1 ||
		die "the QEMU in ${DIR#"$ROOT"/}/root does not run (see: $WRAPPER -version)"
	log "$("$WRAPPER" -version | head -n1)"
	echo "$WRAPPER"
}

main "$@"
