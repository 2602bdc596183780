// SPDX-License-Identifier: GPL-2.0
/*
 * A uprobe must not change the signal frames of the task it steps.  arm64
 * puts an esr_context record in a signal frame whenever thread.fault_code
 * is not 0, and stepping a probed instruction out of line sets it to an
 * invalid value to tell whether the instruction trapped.  Check, native
 * against probed, that a task which has hit a stepped uprobe (on "mul")
 * and then raises SIGUSR1 gets the same frame: an esr_context record, and
 * its ESR, exactly when the unprobed task gets one.  Each case runs in a
 * fresh child, whose thread.fault_code starts at 0; a second case takes a
 * SIGSEGV first (fault_code is then that fault's ESR) and checks that the
 * ESR of the next frame is still that one.  A third has the stepped
 * instruction itself fault (a load from address 0): that SIGSEGV's frame
 * must hold the native ESR, PC and PSTATE (no SPSR.SS left from the step).
 */
#define _GNU_SOURCE
#include <asm/sigcontext.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include "kselftest.h"
#include "uprobe_util.h"

#define CALLS	8

uint64_t esr_target(uint64_t a, uint64_t b);

asm(".text\n"
    ".globl esr_target\n.type esr_target, %function\n"
    "esr_target:\n"
    "	mul	x0, x0, x1\n"
    "	ret\n"
    ".size esr_target, .-esr_target\n");

/* esr_fault(0, 0) faults in its probed, stepped, first instruction. */
uint64_t esr_fault(uint64_t a, uint64_t b);

asm(".text\n"
    ".globl esr_fault\n.type esr_fault, %function\n"
    "esr_fault:\n"
    "	ldr	x0, [x0, x1]\n"
    "	ret\n"
    ".size esr_fault, .-esr_fault\n");

enum mode { PLAIN, SEGV_FIRST, STEP_FAULTS };

/* What the child saw in its SIGUSR1 frame, passed back through a pipe. */
struct frame_seen {
	int has_esr;
	uint64_t esr;
	uint64_t pc, pstate;	/* STEP_FAULTS: of the SIGSEGV frame */
};

static struct frame_seen seen;
static sigjmp_buf after_segv;

/* Find the esr_context record of a signal frame, if any. */
static void scan_frame(ucontext_t *uc, struct frame_seen *out)
{
	struct _aarch64_ctx *head = (struct _aarch64_ctx *)uc->uc_mcontext.__reserved;
	size_t off = 0, size = sizeof(uc->uc_mcontext.__reserved);

	out->has_esr = 0;
	while (off + sizeof(*head) <= size && head->magic) {
		if (head->magic == ESR_MAGIC) {
			out->has_esr = 1;
			out->esr = ((struct esr_context *)head)->esr;
			return;
		}
		if (head->magic == EXTRA_MAGIC || !head->size)
			return;	/* esr_context comes before extra_context */
		off += head->size;
		head = (struct _aarch64_ctx *)((char *)head + head->size);
	}
}

static void on_usr1(int sig, siginfo_t *si, void *ctx)
{
	scan_frame(ctx, &seen);
}

static void on_segv(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;

	scan_frame(uc, &seen);
	seen.pc = uc->uc_mcontext.pc;
	seen.pstate = uc->uc_mcontext.pstate;
	siglongjmp(after_segv, 1);
}

/*
 * Child: STEP_FAULTS: call esr_fault(0, 0) and write what the frame of its
 * SIGSEGV held to @fd.  Otherwise: take a SIGSEGV first (SEGV_FIRST), call
 * the probed function, raise SIGUSR1, and write what its frame held.
 */
static void child(int fd, enum mode mode)
{
	struct sigaction sa = { .sa_flags = SA_SIGINFO };
	volatile uint64_t sum = 0;
	int i;

	sa.sa_sigaction = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_sigaction = on_segv;
	sigaction(SIGSEGV, &sa, NULL);
	if (mode == STEP_FAULTS) {
		if (!sigsetjmp(after_segv, 1))
			esr_fault(0, 0);
		_exit(write(fd, &seen, sizeof(seen)) == sizeof(seen) ? 0 : 2);
	}
	if (mode == SEGV_FIRST && !sigsetjmp(after_segv, 1)) {
		char *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		*(volatile char *)p = 1;	/* SIGSEGV: sets fault_code */
	}
	for (i = 0; i < CALLS; i++)
		sum += esr_target(i, 3);
	raise(SIGUSR1);
	if (write(fd, &seen, sizeof(seen)) != sizeof(seen))
		_exit(2);
	_exit(sum == 3 * (CALLS - 1) * CALLS / 2 ? 0 : 3);
}

/* Run a child; fill @out with what its SIGUSR1 frame held.  0 or -1. */
static int run_child(enum mode mode, struct frame_seen *out)
{
	int fds[2], status;
	pid_t pid;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		close(fds[0]);
		child(fds[1], mode);
	}
	close(fds[1]);
	if (read(fds[0], out, sizeof(*out)) != sizeof(*out))
		out->has_esr = -1;
	close(fds[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -1;
	return out->has_esr < 0 ? -1 : 0;
}

/* One case: native, then probed, and compare the frames. */
static void check_case(const char *name, enum mode mode)
{
	void *target = mode == STEP_FAULTS ? (void *)esr_fault : (void *)esr_target;
	int calls = mode == STEP_FAULTS ? 1 : CALLS;
	struct frame_seen native, probed;
	struct tprobe p;
	long hits;

	memset(&native, 0, sizeof(native));
	memset(&probed, 0, sizeof(probed));
	if (run_child(mode, &native)) {
		ksft_test_result_fail("%s: native child failed\n", name);
		return;
	}
	if (tprobe_add(&p, "sigframe_esr", target, false)) {
		ksft_test_result_fail("%s: cannot add the uprobe\n", name);
		return;
	}
	if (run_child(mode, &probed)) {
		tprobe_del(&p);
		ksft_test_result_fail("%s: probed child failed\n", name);
		return;
	}
	hits = tprobe_hits(&p);
	tprobe_del(&p);
	if (hits != calls) {
		ksft_test_result_fail("%s: %ld hits, want %d\n", name, hits, calls);
		return;
	}
	if (native.has_esr != probed.has_esr ||
	    (native.has_esr && native.esr != probed.esr) ||
	    native.pc != probed.pc || native.pstate != probed.pstate) {
		ksft_print_msg("native: esr_context %s %#llx pc %#llx pstate %#llx, probed: %s %#llx pc %#llx pstate %#llx\n",
			       native.has_esr ? "present" : "absent",
			       (unsigned long long)native.esr,
			       (unsigned long long)native.pc,
			       (unsigned long long)native.pstate,
			       probed.has_esr ? "present" : "absent",
			       (unsigned long long)probed.esr,
			       (unsigned long long)probed.pc,
			       (unsigned long long)probed.pstate);
		ksft_test_result_fail("%s: signal frame as native\n", name);
		return;
	}
	ksft_test_result_pass("%s: signal frame as native (esr_context %s)\n", name,
			      native.has_esr ? "present" : "absent");
}

int main(void)
{
	ksft_print_header();
	ksft_set_plan(3);
	check_case("after a stepped uprobe", PLAIN);
	check_case("after a SIGSEGV and a stepped uprobe", SEGV_FIRST);
	check_case("a stepped uprobe that faults", STEP_FAULTS);
	ksft_finished();
}
