# arm64 uprobes: the patch queue (patches/) and its test bed.  See README.md.
# `make` alone prints the help below, generated from this file: a target
# line's "## text" describes it, a "### text" line starts a group of
# targets, and a line "## NAME=VALUE text" describes a variable.
# Everything is built under build/BASE (ignored; BUILD= another folder, for
# the scripts and for clean and distclean alike); each step reuses what is
# there.
SHELL := /bin/bash
S := scripts
BASE ?= 6.12
export BASE
# The scripts take BUILD the same way (scripts/lib.sh).
B := $(or $(BUILD),build/$(BASE))

# The steps share build/BASE/src and build/BASE/obj: never run them in parallel.
.NOTPARALLEL:
.DEFAULT_GOAL := help

.PHONY: all help bench workloads check check-debug check-fixes deps tree kernels userland rootfs \
	probe-cost tramp-cost siglock scaling hit-profile \
	export outgoing bisect coverage lint clean distclean

## BASE=6.12          base kernel and queue: 6.12 (the backport) or mainline (for LKML)
## RUNS=3             guest boots per kernel (bench, workloads, scaling; probe-cost, siglock: 1)
## NOISE_BOUND=0.10   bench: a control's patched/baseline beyond 1 +- this: NOISY
## BENCH_ARGS="-w2 -d5" bench's options, through run_bench_uprobes.sh
## VCPUS=2            guest vCPUs (and GUEST_MEM=1024, MiB)
## GUEST_TIMEOUT      s to kill a hung guest: 900; bench, workloads 1800; check-debug, tramp-cost 3600
## TEST_TIMEOUT       s one guest test may run (600; check-debug 1800)
## ICOUNT=1           probe-cost, tramp-cost: count guest instructions, not time
## ARGS               a measurement's arguments (see its target above)
## AUTHOR="N <mail>"  outgoing: the sender (default: git config user.name/email)
## JOBS               make -j of the kernel builds (cores + 1)
## (README.md lists every variable the scripts read.)

all: help ## the same as help

help: ## this text
	@echo "arm64 uprobes test bed (README.md): make TARGET [VARIABLE=value ...]"
	@echo "Start with: make check BASE=mainline; make bench BASE=mainline"
	@awk 'BEGIN { FS = ":.*## " } \
		/^### / { sub(/^### /, ""); printf "\n%s:\n", $$0; next } \
		/^[a-z][a-z0-9-]*:.*## / { printf "  %-12s %s\n", $$1, $$2 }' $(firstword $(MAKEFILE_LIST))
	@printf '\nVariables (on the command line or in the environment):\n'
	@sed -n 's/^## \([A-Z(]\)/  \1/p' $(firstword $(MAKEFILE_LIST))

### The two main jobs
bench: kernels rootfs ## baseline vs patched kernel: run_bench_uprobes.sh; table, plot in results/BASE
	@$(S)/bench.sh

check: rootfs ## build, boot the patched kernel, run every test: "N passed, N failed, ..."
	@$(S)/check.sh

### More tests and measurements
# The in-guest suite on the patched kernel with lockdep, KASAN, UBSAN,
# DEBUG_ATOMIC_SLEEP, DEBUG_LIST and PROVE_RCU (config/debug.config); any
# report in the kernel log fails it.  A test may run three times as long
# (mainline's uprobe_sim, which hits every case twice, takes over 600 s).
check-debug: rootfs ## the guest tests on a lockdep + KASAN + UBSAN patched kernel
	@$(S)/kernel.sh patched config/debug.config
	@CHECK_FLAVOUR=patched-debug HOST_TESTS=0 GUEST_TIMEOUT=$${GUEST_TIMEOUT:-3600} \
		TEST_TIMEOUT=$${TEST_TIMEOUT:-1800} $(S)/check.sh

check-fixes: rootfs ## mainline: the fixes series' kselftests on the queue up to each of them (as stable takes them)
	@$(S)/check_fixes.sh

# Beside the main job: Debian's grep and redis-server/redis-benchmark in the
# guest, without a probe and with a uprobe on a hot stp-entry function,
# baseline vs patched (scripts/workloads.sh).
workloads: kernels rootfs ## Debian's grep and Redis, unprobed and probed, baseline vs patched
	@$(S)/workloads.sh

# Each patch builds on its own: an arm64 Image after every patch, x86_64 too
# for generic code and tools (make check runs the cheap objects-only check).
# Run it before each export.
bisect: rootfs ## build the tree after each patch (run it before each export)
	@$(S)/bisect.sh

# Share of the function entries of some Debian arm64 packages that a uprobe
# handles with one exception, base vs patched (scripts/coverage.py).
coverage: deps ## Debian function entries a uprobe takes with one exception (no kernel)
	@$(S)/coverage.sh

# Measurements: they print, they are not tests.  ARGS are the script's
# arguments (see its header); its environment variables pass through.
probe-cost: kernels rootfs ## ns a probe adds per call, baseline vs patched; ARGS="[CALLS [ROUNDS]]"
	@$(S)/probe_cost.sh $(ARGS)

tramp-cost: rootfs ## mainline: slots vs BRK path; ARGS="[CALLS [ROUNDS [BENCH_SECONDS]]]"
	@$(S)/tramp_cost.sh $(ARGS)

siglock: kernels rootfs ## siglock acquisitions per stepped hit, baseline vs patched; ARGS="[N]"
	@$(S)/siglock.sh $(ARGS)

scaling: kernels rootfs ## a stepped probe hit by P threads, baseline vs patched; ARGS="[P...]"
	@$(S)/scaling.sh $(ARGS)

# FLAVOUR baseline needs the baseline kernel too.
hit-profile: $(if $(filter baseline,$(word 2,$(ARGS))),kernels) rootfs ## kernel instructions per hit by function; ARGS="TRIGGER [FLAVOUR]"
	@$(S)/hit_profile.sh $(ARGS)

# Stop before any build when the measurement cannot run.
ifneq ($(filter hit-profile,$(MAKECMDGOALS)),)
ifeq ($(strip $(ARGS)),)
$(error hit-profile needs ARGS="TRIGGER [FLAVOUR]", e.g. ARGS=uprobe-nop)
endif
endif
ifneq ($(filter tramp-cost,$(MAKECMDGOALS)),)
ifneq ($(BASE),mainline)
$(error tramp-cost measures the trampoline slots of the mainline queue: run it with BASE=mainline)
endif
endif

### The queue
# Export branch "series" of build/BASE/linux to patches/BASE (git format-patch).
export: ## branch "series" of build/BASE/linux to patches/BASE (format-patch)
	@$(S)/export.sh

# The queue as its sender mails it, in build/BASE/outgoing: From: and
# Signed-off-by: are AUTHOR="Name <mail>" (else git config user.name and
# user.email), not the committed placeholder.
outgoing: ## the queue as AUTHOR mails it, in build/BASE/outgoing (send-email)
	@$(S)/outgoing.sh

### Steps (each job runs the ones it needs)
deps: ## install the host packages (apt-get; root or sudo)
	@$(S)/deps.sh

tree: deps ## build/BASE/linux: Debian's source (tag base) + queue (branch queue)
	@$(S)/tree.sh

kernels: tree ## build the baseline and the patched kernel
	@$(S)/kernel.sh baseline
	@$(S)/kernel.sh patched

userland: tree ## the patched kernel, and the guest's bench and test programs
	@$(S)/kernel.sh patched
	@$(S)/userland.sh

rootfs: userland ## the guest's initramfs
	@$(S)/rootfs.sh

### Housekeeping
SH_FILES := $(wildcard scripts/*.sh guest/*.sh tests/host/*.sh) guest/init guest/sudo .ci/run
PY_FILES := $(wildcard scripts/*.py tests/*/*.py)

lint: ## shellcheck and pyflakes3 on every script (no build, no root)
	@command -v shellcheck >/dev/null && command -v pyflakes3 >/dev/null || \
		{ echo "lint needs shellcheck and pyflakes3: make deps, or apt-get install shellcheck pyflakes3"; exit 1; }
	@echo "shellcheck $(words $(SH_FILES)) files, pyflakes3 $(words $(PY_FILES)) files"
	@rc=0; shellcheck $(SH_FILES) || rc=1; pyflakes3 $(PY_FILES) || rc=1; \
		[ $$rc = 0 ] && echo "lint: clean" || { echo "lint: see the messages above"; exit 1; }

# Build products; keeps the kernel repository (build/BASE/linux and its
# worktree src) and the downloads (dl, distro-config).
CLEAN := obj obj-* bisect bisect-* images run logs rootfs rootfs-base rootfs-trixie \
	initramfs.cpio.gz guest-bin selftests selftests-bpf selftests-bpf-* \
	uapi-headers uapi-headers-* uapi-obj uapi-obj-* go outgoing export-wt export.tmp \
	check-am check-*.tap am.log apt-*.log *.tmp
clean: ## remove build/BASE's products; keep build/BASE/linux and downloads
	rm -rf $(addprefix $(B)/,$(CLEAN))
	@[ ! -d $(B)/linux/.git ] || git -C $(B)/linux worktree prune

# Also drops the kernel repository (build/BASE/linux), which may hold
# unexported work, and the caches both bases share (build/apt,
# build/coverage, build/qemu-gcs, build/tools).
distclean: ## remove build/BASE and shared caches (not with uncommitted work)
	@if [ -d $(B)/linux/.git ] && ! git -C $(B)/linux diff --quiet HEAD; then \
		echo "$(B)/linux has uncommitted work: commit and export it first"; exit 1; fi
	rm -rf $(B) build/apt build/coverage build/qemu-gcs build/tools
