// SPDX-License-Identifier: GPL-2.0
/*
 * Signals and single-stepped uprobes.  While uprobes step a probed
 * instruction out of line (XOL), uprobe_deny_signal() hides pending signals
 * and handle_singlestep() restores them; the series does both without
 * sighand->siglock.  Check that:
 *  - every queued real-time signal sent while the main thread hits the probe
 *    is delivered exactly once (count), none with the PC in the XOL area
 *    ([uprobes] mapping), the probed function's results stay right, and the
 *    probe hit count equals the calls;
 *  - SIGKILL arriving while children hit the probe kills them cleanly
 *    (the host fails the run on any WARN/BUG in the kernel log).
 * The probed instruction is "mul", which uprobes step out of line: with
 * arm64 uprobe trampoline slots switched off, where the kernel has them,
 * since a slot runs it without a step (uprobe_tramp tests signals there).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "kselftest.h"
#include "uprobe_util.h"

#define CALLS	100000

uint64_t xol_target(uint64_t a, uint64_t b);

asm(".text\n"
    ".globl xol_target\n.type xol_target, %function\n"
    "xol_target:\n"
    "	mul	x0, x0, x1\n"
    "	ret\n"
    ".size xol_target, .-xol_target\n");

static volatile sig_atomic_t received, in_xol;
static unsigned long xol_start, xol_end;
static pthread_t main_thread;
static atomic_int stop;
static long sent;

static void handler(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	unsigned long pc = uc->uc_mcontext.pc;

	received++;
	if (pc >= xol_start && pc < xol_end)
		in_xol++;
}

/* Queue SIGRTMIN to the main thread as fast as the queue takes them. */
static void *sender(void *arg)
{
	union sigval v = { 0 };

	while (!atomic_load(&stop)) {
		if (pthread_sigqueue(main_thread, SIGRTMIN, v) == 0)
			sent++;
		else if (errno != EAGAIN)
			break;
		else
			sched_yield();
	}
	return NULL;
}

static int find_xol_area(void)
{
	char line[256];
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "[uprobes]") &&
		    sscanf(line, "%lx-%lx", &xol_start, &xol_end) == 2)
			break;
	if (f)
		fclose(f);
	return xol_end ? 0 : -1;
}

static uint64_t run(long n)
{
	uint64_t acc = 1;
	long i;

	for (i = 0; i < n; i++)
		acc = xol_target(acc | 1, 3 + (i & 7)) ^ (uint64_t)i;
	return acc;
}

static void test_signals_during_xol(void)
{
	struct sigaction sa = { .sa_sigaction = handler, .sa_flags = SA_SIGINFO };
	uint64_t native = run(CALLS), probed;
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	struct tprobe p;
	pthread_t t;
	long hits;
	int i;

	sigemptyset(&sa.sa_mask);
	sigaction(SIGRTMIN, &sa, NULL);
	main_thread = pthread_self();
	if (tprobe_add(&p, "xol_signals", (void *)xol_target, false)) {
		ksft_test_result_fail("signals during XOL: cannot add uprobe\n");
		return;
	}
	xol_target(1, 1);		/* the first hit maps the XOL area */
	if (find_xol_area())
		ksft_print_msg("no [uprobes] mapping found\n");

	pthread_create(&t, NULL, sender, NULL);
	probed = run(CALLS);
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	for (i = 0; i < 100 && received < sent; i++)
		nanosleep(&ts, NULL);	/* let the last ones arrive */
	hits = tprobe_hits(&p);
	tprobe_del(&p);

	ksft_print_msg("sent %ld, received %ld, in XOL area %d, hits %ld\n",
		       sent, (long)received, (int)in_xol, hits);
	ksft_test_result(sent > 0 && received == sent,
			 "signals during XOL: every queued signal delivered once\n");
	ksft_test_result(in_xol == 0 && xol_end,
			 "signals during XOL: none delivered inside the XOL slot\n");
	ksft_test_result(probed == native && hits == CALLS + 1,
			 "signals during XOL: results right, probe hit every call\n");
}

/* Children hit the probe in a loop; SIGKILL must end each one cleanly. */
static void test_sigkill_during_xol(void)
{
	struct timespec ts = { 0, 30 * 1000 * 1000 };
	struct tprobe p;
	int i, ok = 0, rounds = 20, status;
	pid_t pid;

	if (tprobe_add(&p, "xol_sigkill", (void *)xol_target, false)) {
		ksft_test_result_fail("SIGKILL during XOL: cannot add uprobe\n");
		return;
	}
	for (i = 0; i < rounds; i++) {
		pid = fork();
		if (pid < 0) {
			ksft_print_msg("fork: %s\n", strerror(errno));
			break;
		}
		if (pid == 0) {
			for (;;)
				run(1000);
		}
		ts.tv_nsec = (10 + i * 3) * 1000 * 1000;
		nanosleep(&ts, NULL);
		kill(pid, SIGKILL);
		if (waitpid(pid, &status, 0) == pid && WIFSIGNALED(status) &&
		    WTERMSIG(status) == SIGKILL)
			ok++;
	}
	ksft_print_msg("SIGKILL: %d of %d children killed cleanly, hits %ld\n",
		       ok, rounds, tprobe_hits(&p));
	tprobe_del(&p);
	ksft_test_result(ok == rounds, "SIGKILL during XOL: children die cleanly\n");
}

int main(void)
{
	int slots;

	ksft_print_header();
	ksft_set_plan(4);
	slots = uprobe_slots_set(false);
	if (slots < 0)
		ksft_exit_fail_msg("cannot switch uprobe trampoline slots off\n");
	test_signals_during_xol();
	test_sigkill_during_xol();
	if (slots == 1 && uprobe_slots_set(true) < 0)
		ksft_exit_fail_msg("cannot switch uprobe trampoline slots back on\n");
	ksft_finished();
}
