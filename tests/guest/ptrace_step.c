// SPDX-License-Identifier: GPL-2.0
/*
 * A tracer single-steps (PTRACE_SINGLESTEP) a child through functions whose
 * first instruction uprobes simulate (nop, the frame-record push, sub sp,
 * ldr, the LR push, a branch) or step out of line (mul).  With a uprobe on
 * that instruction the tracer must see the same sequence of PCs as without
 * one: the simulation advances the single-step state like the instruction
 * would (arm64_skip_faulting_instruction()), and stepping out of line must
 * leave the tracer's single-step on.  Oracle: the same child traced without
 * the probe.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <asm/ptrace.h>

#include "kselftest.h"
#include "uprobe_util.h"

#define MAX_STEPS	20000
#define MAX_PCS		64

uint64_t step_nop(uint64_t x);
uint64_t step_stp(uint64_t x);
uint64_t step_sub(uint64_t x);
uint64_t step_ldr(uint64_t x);
uint64_t step_str(uint64_t x);
uint64_t step_b(uint64_t x);
uint64_t step_xol(uint64_t x);
void step_end(void);

asm(".text\n"
    ".globl step_nop\n.type step_nop, %function\n"
    "step_nop:\n"
    "	nop\n"
    "	add	x0, x0, #1\n"
    "	ret\n"
    ".size step_nop, .-step_nop\n"
    ".globl step_stp\n.type step_stp, %function\n"
    "step_stp:\n"
    "	stp	x29, x30, [sp, #-16]!\n"
    "	mov	x29, sp\n"
    "	add	x0, x0, #2\n"
    "	ldp	x29, x30, [sp], #16\n"
    "	ret\n"
    ".size step_stp, .-step_stp\n"
    ".globl step_sub\n.type step_sub, %function\n"
    "step_sub:\n"
    "	sub	sp, sp, #16\n"
    "	add	x0, x0, #3\n"
    "	add	sp, sp, #16\n"
    "	ret\n"
    ".size step_sub, .-step_sub\n"
    ".globl step_ldr\n.type step_ldr, %function\n"
    "step_ldr:\n"
    "	ldr	x1, [x30, #0]\n"
    "	add	x0, x0, #4\n"
    "	ret\n"
    ".size step_ldr, .-step_ldr\n"
    ".globl step_str\n.type step_str, %function\n"
    "step_str:\n"
    "	str	x30, [sp, #-16]!\n"
    "	add	x0, x0, #6\n"
    "	ldr	x30, [sp], #16\n"
    "	ret\n"
    ".size step_str, .-step_str\n"
    ".globl step_b\n.type step_b, %function\n"
    "step_b:\n"
    "	b	1f\n"
    "1:	add	x0, x0, #7\n"
    "	ret\n"
    ".size step_b, .-step_b\n"
    ".globl step_xol\n.type step_xol, %function\n"
    "step_xol:\n"
    "	mul	x1, x0, x0\n"
    "	add	x0, x0, #5\n"
    "	ret\n"
    ".size step_xol, .-step_xol\n"
    ".globl step_end\n"
    "step_end:\n");

/* PCs the tracer saw inside [lo, hi), in order; -1 on error. */
static int trace_child(uint64_t (*fn)(uint64_t), uint64_t *pcs, int *npcs)
{
	uint64_t lo = (uint64_t)step_nop, hi = (uint64_t)step_end;
	struct user_pt_regs regs;
	struct iovec iov = { &regs, sizeof(regs) };
	int status, steps;
	pid_t pid = fork_tracee();

	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit((int)fn(40));
	*npcs = 0;
	for (steps = 0; steps < MAX_STEPS; steps++) {
		if (ptrace(PTRACE_SINGLESTEP, pid, 0, 0) || waitpid(pid, &status, 0) != pid)
			return -1;
		if (WIFEXITED(status))
			return WEXITSTATUS(status);
		if (ptrace(PTRACE_GETREGSET, pid, (void *)NT_PRSTATUS, &iov))
			return -1;
		if (regs.pc >= lo && regs.pc < hi && *npcs < MAX_PCS)
			pcs[(*npcs)++] = regs.pc;
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return -1;
}

static void check(const char *name, uint64_t (*fn)(uint64_t))
{
	uint64_t native[MAX_PCS], probed[MAX_PCS];
	int nn, np, rn, rp, i;
	struct tprobe p;
	long hits;

	rn = trace_child(fn, native, &nn);
	if (tprobe_add(&p, name, (void *)fn, false)) {
		ksft_test_result_fail("%s: cannot add uprobe\n", name);
		return;
	}
	rp = trace_child(fn, probed, &np);
	hits = tprobe_hits(&p);
	tprobe_del(&p);
	for (i = 0; i < nn && i < np; i++)
		if (native[i] != probed[i])
			ksft_print_msg("%s: step %d: pc %#lx native, %#lx probed\n",
				       name, i, (unsigned long)native[i],
				       (unsigned long)probed[i]);
	ksft_print_msg("%s: %d PCs native, %d probed, exit %d/%d, hits %ld\n",
		       name, nn, np, rn, rp, hits);
	ksft_test_result(rn >= 0 && rn == rp && nn > 0 && nn == np &&
			 !memcmp(native, probed, nn * sizeof(native[0])) && hits == 1,
			 "%s: single-stepping a probed function sees the native PCs\n", name);
}

int main(void)
{
	ksft_print_header();
	ksft_set_plan(7);
	check("step_nop", step_nop);
	check("step_stp", step_stp);
	check("step_sub", step_sub);
	check("step_ldr", step_ldr);
	check("step_str", step_str);
	check("step_b", step_b);
	check("step_xol", step_xol);
	ksft_finished();
}
