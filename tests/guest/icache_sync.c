// SPDX-License-Identifier: GPL-2.0
/*
 * When the kernel writes a uprobe's BRK, or the original instruction back,
 * into a page the task already executes, it must make the I-cache coherent
 * with the write (arm64 CPUs without CTR_EL0.DIC do not snoop it).  Since
 * v6.16 the write goes to the mapped page in place, and the maintenance
 * comes from get_user_pages_remote() in uprobe_write(): it calls
 * flush_dcache_page(), which clears PG_dcache_clean, so the set_pte_at()
 * after the write syncs the page.  Nothing in uprobes says it depends on
 * that, so this test checks it.  QEMU does not model the I-cache, so it
 * watches the maintenance itself: with a uprobe on one function of a page,
 * it registers a uprobe on a second function of that page, then unregisters
 * it, and counts the calls of arm64's sync_icache_aliases() this task makes
 * meanwhile (a kprobe event, filtered by pid, in a tracefs instance of its
 * own).  Each write must make one.  It fails (0 calls) on a kernel whose
 * __get_user_pages() does not call flush_dcache_page().
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest.h"
#include "uprobe_util.h"

#define TRACEFS "/sys/kernel/tracing"
#define INSTANCE TRACEFS "/instances/testbed_icache"
#define EVENT INSTANCE "/events/testbed_icache/sync"
#define PAGE 4096UL

void icache_a(void);
void icache_b(void);
void icache_warm(void);

/* icache_a and icache_b share a page; icache_warm is on the next one. */
asm(".text\n"
    ".balign 4096\n"
    ".globl icache_a\n.type icache_a, %function\n"
    "icache_a:\n	nop\n	ret\n"
    ".size icache_a, .-icache_a\n"
    ".balign 64\n"
    ".globl icache_b\n.type icache_b, %function\n"
    "icache_b:\n	nop\n	ret\n"
    ".size icache_b, .-icache_b\n"
    ".balign 4096\n"
    ".globl icache_warm\n.type icache_warm, %function\n"
    "icache_warm:\n	nop\n	ret\n"
    ".size icache_warm, .-icache_warm\n");

static unsigned long page_of(void (*fn)(void))
{
	return (unsigned long)fn & ~(PAGE - 1);
}

/* Trace sync_icache_aliases() calls of this task into the instance. */
static int trace_syncs(void)
{
	char filter[64];

	if (mkdir(INSTANCE, 0755) && access(INSTANCE, F_OK))
		return -1;
	if (write_file(TRACEFS "/kprobe_events",
		       "p:testbed_icache/sync sync_icache_aliases\n", true))
		return -1;
	snprintf(filter, sizeof(filter), "common_pid == %d", getpid());
	if (write_file(EVENT "/filter", filter, false))
		return -1;
	return write_file(EVENT "/enable", "1", false);
}

static void untrace_syncs(void)
{
	write_file(EVENT "/enable", "0", false);
	write_file(TRACEFS "/kprobe_events", "-:testbed_icache/sync\n", true);
	rmdir(INSTANCE);
}

/* Empty the instance's buffer (an O_TRUNC open of "trace" resets it). */
static int clear_syncs(void)
{
	return write_file(INSTANCE "/trace", "", false);
}

/* Calls traced since clear_syncs(), or -1. */
static long count_syncs(void)
{
	FILE *f = fopen(INSTANCE "/trace", "r");
	char line[512];
	long n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (line[0] != '#' && strstr(line, "sync:"))
			n++;
	fclose(f);
	return n;
}

/*
 * Register (@add) or unregister @p, and return the sync_icache_aliases()
 * calls that made; -1 if it could not be done.
 */
static long syncs_of(struct tprobe *p, const char *name, void (*fn)(void),
		     bool add)
{
	if (clear_syncs())
		return -1;
	if (add ? tprobe_add(p, name, (void *)fn, false) : tprobe_del(p))
		return -1;
	return count_syncs();
}

int main(void)
{
	struct tprobe a, b, warm;
	long add_syncs, del_syncs, hits_a, hits_b;

	ksft_print_header();
	ksft_set_plan(3);
	if (page_of(icache_a) != page_of(icache_b) ||
	    page_of(icache_a) == page_of(icache_warm))
		ksft_exit_fail_msg("test functions are not laid out as expected\n");
	icache_a();
	icache_b();
	icache_warm();
	if (trace_syncs()) {
		untrace_syncs();
		ksft_exit_fail_msg("cannot trace sync_icache_aliases()\n");
	}

	/* The same steps once on another page, so that no first use counts. */
	if (syncs_of(&warm, "icache_warm", icache_warm, true) < 0 ||
	    syncs_of(&warm, "icache_warm", icache_warm, false) < 0 ||
	    tprobe_add(&a, "icache_a", (void *)icache_a, false)) {
		untrace_syncs();
		ksft_exit_fail_msg("cannot add the uprobes\n");
	}
	add_syncs = syncs_of(&b, "icache_b", icache_b, true);
	icache_a();
	icache_b();
	hits_a = tprobe_hits(&a);
	hits_b = add_syncs < 0 ? -1 : tprobe_hits(&b);
	del_syncs = add_syncs < 0 ? -1 : syncs_of(&b, "icache_b", icache_b, false);
	tprobe_del(&a);
	untrace_syncs();

	ksft_test_result(hits_a == 1 && hits_b == 1,
			 "both uprobes of the page fire (hits %ld, %ld)\n",
			 hits_a, hits_b);
	ksft_test_result(add_syncs > 0,
			 "a second uprobe on a page written already syncs the I-cache (%ld calls)\n",
			 add_syncs);
	ksft_test_result(del_syncs > 0,
			 "unregistering it, with the first one left, syncs the I-cache (%ld calls)\n",
			 del_syncs);
	ksft_finished();
}
