#!/usr/bin/env bash
# Cross-build the guest's Go program tests/guest/go/gowork (standard library
# only, no cgo, no network) into build/BASE/guest-bin/tools/gowork, check that
# its function main.work starts with Go's stack-bound check
# "ldr x16, [x28, #16]" (0xf9400b90), and write that function's file offset
# (hex, "0x..."; for a uprobe: /testbed/tools/gowork:<offset>) to
# build/BASE/guest-bin/tools/gowork.offset.  Idempotent: a second run rebuilds
# from Go's cache (build/BASE/go) and writes the same files.
# Environment: JOBS (go build -p), CROSS_COMPILE (objdump, nm, readelf).
. "$(dirname "$0")/lib.sh"

SRC=$ROOT/tests/guest/go
OUT=$BUILD/guest-bin/tools
BIN=$OUT/gowork
SYM=main.work
# ldr x16, [x28, #16]: g.stackguard0 into x16, the first instruction of a
# Go function with the stack-bound check on arm64.
STACK_CHECK=f9400b90

# build: go build for linux/arm64 into $BIN, with Go's cache, GOPATH and
# module cache under build/BASE/go (nothing in $HOME) and no network (GOPROXY=off;
# the program needs only the standard library).  Follows the Go command's
# documented environment (go help environment).  Stops when the build fails.
build() {
	local gohome=$BUILD/go
	mkdir -p "$OUT" "$gohome/cache" "$gohome/path"
	log "go build ${BIN#"$ROOT"/} ($(go version | cut -d' ' -f3))"
	(cd "$SRC" &&
		env CGO_ENABLED=0 GOARCH=arm64 GOOS=linux \
			GOCACHE="$gohome/cache" GOPATH="$gohome/path" GOENV=off \
			GOPROXY=off GOSUMDB=off GOFLAGS=-mod=mod GOTOOLCHAIN=local \
			go build -p "$JOBS" -trimpath -buildvcs=false -o "$BIN" ./gowork) ||
		die "go build of tests/guest/go/gowork failed"
}

# sym_addr: print the address (hex, no 0x) of $SYM in $BIN, from nm.  Stops
# when the symbol is missing (inlined away or renamed).
sym_addr() {
	local addr
	addr=$("${CROSS_COMPILE}nm" "$BIN" | awk -v s="$SYM" '$3 == s && ($2 == "T" || $2 == "t") { print $1; exit }')
	[ -n "$addr" ] || die "no text symbol $SYM in ${BIN#"$ROOT"/} (nm)"
	echo "$addr"
}

# file_offset ADDR: print the file offset (decimal) of the virtual address
# ADDR (hex, no 0x) of $BIN: ADDR - p_vaddr + p_offset of the PT_LOAD
# segment whose file image holds it (readelf -lW).  Stops when none does.
file_offset() {
	local addr=$((16#$1)) type off vaddr _ filesz
	while read -r type off vaddr _ filesz _; do
		[ "$type" = LOAD ] || continue
		if ((addr >= vaddr && addr + 4 <= vaddr + filesz)); then
			echo $((addr - vaddr + off))
			return
		fi
	done < <("${CROSS_COMPILE}readelf" -lW "$BIN")
	die "address 0x$1 of $SYM is in no PT_LOAD segment of ${BIN#"$ROOT"/}"
}

# check_first_insn ADDR OFF: log objdump's first 3 instructions of $SYM at
# ADDR (hex, no 0x) and stop unless the little-endian word at file offset
# OFF (decimal) is $STACK_CHECK, which also checks OFF.
check_first_insn() {
	local addr=$1 off=$2 word
	"${CROSS_COMPILE}objdump" -d --start-address=$((16#$addr)) \
		--stop-address=$((16#$addr + 12)) "$BIN" |
		sed -n '/^ *[0-9a-f]*:/p' | while read -r line; do log "  $line"; done
	word=$(od -An -tx4 -j "$off" -N4 --endian=little "$BIN" | tr -d ' ')
	[ "$word" = "$STACK_CHECK" ] ||
		die "$SYM starts with 0x$word, not 0x$STACK_CHECK (ldr x16, [x28, #16]): the Go compiler did not give it the stack-bound check prologue"
}

main() {
	need_cmd go "${CROSS_COMPILE}objdump" "${CROSS_COMPILE}nm" "${CROSS_COMPILE}readelf" od
	build
	local addr off
	addr=$(sym_addr)
	off=$(file_offset "$addr")
	log "$SYM at $(printf '%#x' $((16#$addr))), file offset $(printf '%#x' "$off"):"
	check_first_insn "$addr" "$off"
	printf '%#x\n' "$off" > "$BIN.offset.tmp"
	mv "$BIN.offset.tmp" "$BIN.offset"
	log "wrote ${BIN#"$ROOT"/} and ${BIN#"$ROOT"/}.offset ($(cat "$BIN.offset"))"
}

main "$@"
