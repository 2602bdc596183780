// SPDX-License-Identifier: GPL-2.0
/*
 * Does the emulator run code that another CPU rewrote?  No probe and no
 * kernel feature here: the pattern of uprobes' XOL slots, in user space.
 * Slots of one page are taken from a bitmap; a thread writes an
 * instruction into its slot through a second, writable mapping of the
 * page, cleans and invalidates it to the point of unification
 * (__builtin___clear_cache(): DC CVAU, DSB, IC IVAU, DSB, ISB), runs the
 * slot and gives it back.  The threads alternate between two instructions,
 * so a slot's content changes from one use to the next, while the other
 * threads write and run other slots of the same page.  That is correct
 * on any Armv8 CPU, so a wrong result is the emulator's.
 *
 * QEMU's multi-threaded TCG (10.0.2 and 11.1.3, -accel tcg,thread=multi)
 * fails it on 2 vCPUs: in some runs, from some point on, writes to the
 * page no longer drop the code translated from it, and 20% to 45% of the
 * runs of a slot return what the instruction the slot held before gives
 * (the "other instruction" count); with one thread, or with the vCPUs on
 * one host thread (thread=single), none do.  The kernel's XOL slots, and the
 * trampoline pages of the mainline queue, are rewritten the same way, so
 * a uprobe test with two threads stepping different instructions would
 * see wrong results and extra or missing hits that are not the kernel's:
 * this test tells that apart, which is why `make check` boots with
 * thread=single (scripts/guest.sh TCG_THREAD) and runs it there.
 *
 * Usage: emu_xmodify [seconds, default 5] [threads, default 2]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest.h"

#define NSLOTS	64
#define SLOT	8	/* the instruction, then RET */

static const uint32_t insns[2] = {
	0x91000400,	/* add x0, x0, #1 */
	0x9b007c00,	/* mul x0, x0, x0 */
};

static uint32_t *wview;
static char *xview;
static atomic_ulong slots;
static atomic_bool stop;
static atomic_long runs, wrong, stale;

static int take_slot(void)
{
	for (;;) {
		unsigned long busy = atomic_load(&slots);
		int nr;

		if (!~busy)
			continue;
		nr = __builtin_ctzl(~busy);
		if (!(atomic_fetch_or(&slots, 1UL << nr) & (1UL << nr)))
			return nr;
	}
}

static void *thread(void *arg)
{
	uint64_t i;

	for (i = 1; !atomic_load_explicit(&stop, memory_order_relaxed); i++) {
		int k = i & 1, nr = take_slot();
		uint64_t (*slot)(uint64_t) = (void *)(xview + nr * SLOT);
		uint64_t r;

		wview[nr * SLOT / 4] = insns[k];
		__builtin___clear_cache(xview + nr * SLOT, xview + nr * SLOT + SLOT);
		r = slot(i);
		if (r != (k ? i * i : i + 1)) {
			atomic_fetch_add(&wrong, 1);
			/* what the other instruction gives */
			if (r == (k ? i + 1 : i * i))
				atomic_fetch_add(&stale, 1);
		}
		atomic_fetch_and(&slots, ~(1UL << nr));
		atomic_fetch_add(&runs, 1);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int seconds = argc > 1 ? atoi(argv[1]) : 5;
	int n = argc > 2 ? atoi(argv[2]) : 2;
	long page = sysconf(_SC_PAGESIZE);
	pthread_t t[64];
	int fd, i;

	ksft_print_header();
	ksft_set_plan(1);
	if (n < 1 || n > 64)
		ksft_exit_fail_msg("threads: 1 to 64\n");
	fd = memfd_create("xol", 0);
	if (fd < 0 || ftruncate(fd, page))
		ksft_exit_fail_msg("memfd: %s\n", strerror(errno));
	wview = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	xview = mmap(NULL, page, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
	if (wview == MAP_FAILED || xview == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	for (i = 0; i < NSLOTS; i++) {
		wview[i * SLOT / 4] = 0xd503201f;	/* nop */
		wview[i * SLOT / 4 + 1] = 0xd65f03c0;	/* ret */
	}
	__builtin___clear_cache(xview, xview + NSLOTS * SLOT);

	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, thread, NULL))
			ksft_exit_fail_msg("pthread_create\n");
	sleep(seconds);
	atomic_store(&stop, true);
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);

	ksft_print_msg("%d threads, %d s: %ld runs of a rewritten slot, %ld wrong, %ld of them the other instruction's result\n",
		       n, seconds, atomic_load(&runs), atomic_load(&wrong), atomic_load(&stale));
	ksft_test_result(atomic_load(&runs) > 0 && !atomic_load(&wrong),
			 "the emulator runs code another CPU rewrote in the same page\n");
	ksft_finished();
}
