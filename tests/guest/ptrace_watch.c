// SPDX-License-Identifier: GPL-2.0
/*
 * A tracer puts a hardware watchpoint (PTRACE_SETREGSET NT_ARM_HW_WATCH) on
 * the word that a function's first instruction stores or loads: the
 * frame-record push, the LR push, or Go's stack-bound load, which uprobes
 * simulate with user accesses that a watchpoint does not report.  With a
 * uprobe on that instruction the tracer must see what it sees without one:
 * a SIGTRAP stop, TRAP_HWBKPT, with si_addr the watched word and the PC on
 * the instruction (not on the uprobe's XOL slot).  So the simulation must
 * decline under a watchpoint and let the real instruction trigger it, and
 * the instruction stepped out of line must not hang the task (a SIGTRAP
 * held back while the access is retried).  A stop not seen in 30 s fails.
 * Oracle: the same child traced without the probe.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <signal.h>
#include <stddef.h>
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

/* DBGWCR: enabled, EL0 only, 8 bytes (arch/arm64/kernel/ptrace.c) */
#define WCR(type)	(1u | 2u << 1 | (type) << 3 | 0xffu << 5)
#define WCR_LOAD	WCR(1u)
#define WCR_STORE	WCR(2u)

void call_on_stack(uint64_t *sp, uint64_t *x0, void (*fn)(void));
void watch_stp(void), watch_str(void), watch_ldr(void);

/* Run fn on the stack ending at sp, with x0 as given. */
asm(".text\n"
    ".globl call_on_stack\n.type call_on_stack, %function\n"
    "call_on_stack:\n"
    "	stp	x29, x30, [sp, #-32]!\n"
    "	str	x19, [sp, #16]\n"
    "	mov	x29, sp\n"
    "	mov	x19, sp\n"
    "	mov	sp, x0\n"
    "	mov	x0, x1\n"
    "	blr	x2\n"
    "	mov	sp, x19\n"
    "	ldr	x19, [sp, #16]\n"
    "	ldp	x29, x30, [sp], #32\n"
    "	ret\n"
    ".size call_on_stack, .-call_on_stack\n"
    ".globl watch_stp\n.type watch_stp, %function\n"
    "watch_stp:\n"
    "	stp	x29, x30, [sp, #-16]!\n"
    "	ldp	x29, x30, [sp], #16\n"
    "	ret\n"
    ".size watch_stp, .-watch_stp\n"
    ".globl watch_str\n.type watch_str, %function\n"
    "watch_str:\n"
    "	str	x30, [sp, #-16]!\n"
    "	ldr	x30, [sp], #16\n"
    "	ret\n"
    ".size watch_str, .-watch_str\n"
    ".globl watch_ldr\n.type watch_ldr, %function\n"
    "watch_ldr:\n"
    "	ldr	x16, [x0, #16]\n"
    "	ret\n"
    ".size watch_ldr, .-watch_ldr\n");

static uint64_t wstack[64] __attribute__((aligned(16)));
static uint64_t wdata[4];

/* What the tracer saw: a stop (signal, si_code, si_addr, PC) or an exit. */
struct seen {
	int sig, code, exit;
	uint64_t addr, pc;
};

#define TIMEOUT_S	30
static volatile pid_t child;

/* A child that neither stops nor exits in time is killed. */
static void on_alarm(int sig)
{
	if (child > 0)
		kill(child, SIGKILL);
}

/* Set watchpoint 0 of @pid on the 8 bytes at @addr, with DBGWCR @ctrl. */
static int set_watch(pid_t pid, uint64_t addr, uint32_t ctrl)
{
	struct user_hwdebug_state st;
	struct iovec iov = { &st, offsetof(struct user_hwdebug_state, dbg_regs[1]) };

	memset(&st, 0, sizeof(st));
	st.dbg_regs[0].addr = addr;
	st.dbg_regs[0].ctrl = ctrl;
	return ptrace(PTRACE_SETREGSET, pid, (void *)NT_ARM_HW_WATCH, &iov) ? -1 : 0;
}

/* Trace a child that runs @fn under a watchpoint; -1 on a ptrace error. */
static int trace_child(void (*fn)(void), uint64_t addr, uint32_t ctrl,
		       struct seen *s)
{
	struct user_pt_regs regs;
	struct iovec iov = { &regs, sizeof(regs) };
	siginfo_t si;
	int status, rc = -1;
	pid_t pid = fork_tracee();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		call_on_stack(&wstack[64], wdata, fn);
		_exit(0);
	}
	memset(s, 0, sizeof(*s));
	s->exit = -1;
	child = pid;
	alarm(TIMEOUT_S);
	if (set_watch(pid, addr, ctrl) || ptrace(PTRACE_CONT, pid, 0, 0) ||
	    waitpid(pid, &status, 0) != pid)
		goto out;
	alarm(0);
	if (WIFSIGNALED(status)) {
		ksft_print_msg("child killed by signal %d (timeout %d s?)\n",
			       WTERMSIG(status), TIMEOUT_S);
		return -1;
	}
	if (WIFEXITED(status)) {
		s->exit = WEXITSTATUS(status);
		return 0;
	}
	if (!WIFSTOPPED(status) || ptrace(PTRACE_GETSIGINFO, pid, 0, &si) ||
	    ptrace(PTRACE_GETREGSET, pid, (void *)NT_PRSTATUS, &iov))
		goto out;
	s->sig = WSTOPSIG(status);
	s->code = si.si_code;
	s->addr = (uint64_t)si.si_addr;
	s->pc = regs.pc;
	rc = 0;
out:
	alarm(0);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return rc;
}

static void check(const char *name, void (*fn)(void), uint64_t *word,
		  uint32_t ctrl)
{
	struct seen native, probed;
	int rn, rp;
	struct tprobe p;
	long hits;

	rn = trace_child(fn, (uint64_t)word, ctrl, &native);
	if (tprobe_add(&p, name, (void *)fn, false)) {
		ksft_test_result_fail("%s: cannot add uprobe\n", name);
		return;
	}
	rp = trace_child(fn, (uint64_t)word, ctrl, &probed);
	hits = tprobe_hits(&p);
	tprobe_del(&p);
	ksft_print_msg("%s: native: signal %d code %d addr %#lx pc %#lx exit %d; probed: signal %d code %d addr %#lx pc %#lx exit %d; hits %ld\n",
		       name, native.sig, native.code, (unsigned long)native.addr,
		       (unsigned long)native.pc, native.exit, probed.sig,
		       probed.code, (unsigned long)probed.addr,
		       (unsigned long)probed.pc, probed.exit, hits);
	/* si_addr: in the access, at most 8 bytes below the word (the STP) */
	ksft_test_result(!rn && !rp && native.sig == SIGTRAP &&
			 native.code == TRAP_HWBKPT &&
			 native.addr <= (uint64_t)word &&
			 native.addr + 8 >= (uint64_t)word &&
			 native.pc == (uint64_t)fn &&
			 probed.sig == native.sig && probed.code == native.code &&
			 probed.addr == native.addr && probed.pc == native.pc &&
			 probed.exit == native.exit && hits == 1,
			 "%s: the tracer's watchpoint sees the probed access\n",
			 name);
}

int main(void)
{
	ksft_print_header();
	ksft_set_plan(3);
	signal(SIGALRM, on_alarm);
	/* the call runs with SP = &wstack[64] */
	check("watch_stp", watch_stp, &wstack[63], WCR_STORE);	/* x30 */
	check("watch_str", watch_str, &wstack[62], WCR_STORE);
	check("watch_ldr", watch_ldr, &wdata[2], WCR_LOAD);	/* x0 + 16 */
	ksft_finished();
}
