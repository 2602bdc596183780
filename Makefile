# arm64 uprobes: the series (patches/) and its test bed.  See README.md.
#   make bench   build baseline + patched kernels, boot both, compare the bench
#   make check   build the patched kernel, boot it, run every test
#   make workloads  grep and Redis with a uprobe, baseline vs patched
# BASE=6.12 (default: Debian 13's kernel, the backport queue patches/6.12)
# or BASE=mainline (the queue for LKML, patches/mainline).
# Everything is built under build/BASE (ignored); each step reuses what is there.
SHELL := /bin/bash
S := scripts
BASE ?= 6.12
export BASE
B := build/$(BASE)

# The steps share build/BASE/src and build/BASE/obj: never run them in parallel.
.NOTPARALLEL:

.PHONY: all bench workloads check check-debug deps tree kernels userland rootfs export outgoing bisect coverage clean distclean

all: check

deps:
	@$(S)/deps.sh

tree: deps
	@$(S)/tree.sh

kernels: tree
	@$(S)/kernel.sh baseline
	@$(S)/kernel.sh patched

userland: tree
	@$(S)/kernel.sh patched
	@$(S)/userland.sh

rootfs: userland
	@$(S)/rootfs.sh

bench: kernels rootfs
	@$(S)/bench.sh

# Beside the main job: Debian's grep and redis-server/redis-benchmark in the
# guest, without a probe and with a uprobe on a hot stp-entry function,
# baseline vs patched (scripts/workloads.sh).
workloads: kernels rootfs
	@$(S)/workloads.sh

check: rootfs
	@$(S)/check.sh

# The in-guest suite on the patched kernel with lockdep, KASAN, UBSAN,
# DEBUG_ATOMIC_SLEEP, DEBUG_LIST and PROVE_RCU (config/debug.config); any
# report in the kernel log fails it.  A test may run three times as long
# (mainline's uprobe_sim, which hits every case twice, takes over 600 s).
check-debug: rootfs
	@$(S)/kernel.sh patched config/debug.config
	@CHECK_FLAVOUR=patched-debug HOST_TESTS=0 GUEST_TIMEOUT=$${GUEST_TIMEOUT:-3600} \
		TEST_TIMEOUT=$${TEST_TIMEOUT:-1800} $(S)/check.sh

# Each patch builds on its own: an arm64 Image after every patch, x86_64 too
# for generic code and tools (make check runs the cheap objects-only check).
# Run it before each export.
bisect: rootfs
	@$(S)/bisect.sh

# Share of the function entries of some Debian arm64 packages that a uprobe
# handles with one exception, base vs patched (scripts/coverage.py).
coverage: deps
	@$(S)/coverage.sh

# Export branch "series" of build/BASE/linux to patches/BASE (git format-patch).
export:
	@$(S)/export.sh

# The queue as its sender mails it, in build/BASE/outgoing: From: and
# Signed-off-by: are AUTHOR="Name <mail>" (else git config user.name and
# user.email), not the committed placeholder.
outgoing:
	@$(S)/outgoing.sh

clean:
	rm -rf $(B)/obj $(B)/obj-* $(B)/bisect-obj-* $(B)/images $(B)/run $(B)/rootfs $(B)/guest-bin $(B)/selftests-bpf $(B)/outgoing

# Also drops the kernel repository (build/BASE/linux), which may hold
# unexported work.
distclean:
	@if [ -d $(B)/linux/.git ] && ! git -C $(B)/linux diff --quiet HEAD; then \
		echo "$(B)/linux has uncommitted work: commit and export it first"; exit 1; fi
	rm -rf $(B)
