// SPDX-License-Identifier: GPL-2.0
/*
 * When the kernel writes a uprobe's BRK, or the original instruction back,
 * into a page the task already executes, it must make the I-cache coherent
 * with the write (arm64 CPUs without CTR_EL0.DIC do not snoop it).  Since
 * v6.16 the write goes to the mapped page in place, and the maintenance
 * comes from get_user_pages_remote() in uprobe_write(): it calls
 * flush_dcache_page(), which clears PG_dcache_clean, so the set_pte_at()
 * after the write syncs the page.  Nothing in uprobes says it depends on
 * that, so this test checks it.
 *
 * QEMU does not model the I-cache (it drops translated code on writes
 * itself), so the test watches the maintenance: with a uprobe on one
 * function of a page, it registers a uprobe on a second function of that
 * page, then unregisters it, and counts the calls of arm64's
 * sync_icache_aliases() made meanwhile by this task under uprobe_write(),
 * or uprobe_write_opcode() on 6.12 (a kprobe event with stack traces,
 * filtered by pid, in a tracefs instance of its own).  Each write must make
 * one.  It fails (0 calls) on a kernel whose __get_user_pages() does not
 * call flush_dcache_page().  That both uprobes fire is only a sanity check.
 * The pid filter takes the pid of the initial namespace: run it there.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest.h"
#include "uprobe_util.h"

#define INSTANCE TRACEFS "/instances/testbed_icache"
#define EVENT INSTANCE "/events/testbed_icache/sync"
#define KPROBE "testbed_icache/sync"

void icache_a(void);
void icache_b(void);
void icache_warm(void);

/*
 * icache_a and icache_b share a page; icache_warm has one of its own, so
 * that neither holds the code of the test itself (64K: the largest arm64
 * page size).
 */
asm(".text\n"
    ".balign 65536\n"
    ".globl icache_a\n.type icache_a, %function\n"
    "icache_a:\n	nop\n	ret\n"
    ".size icache_a, .-icache_a\n"
    ".balign 64\n"
    ".globl icache_b\n.type icache_b, %function\n"
    "icache_b:\n	nop\n	ret\n"
    ".size icache_b, .-icache_b\n"
    ".balign 65536\n"
    ".globl icache_warm\n.type icache_warm, %function\n"
    "icache_warm:\n	nop\n	ret\n"
    ".size icache_warm, .-icache_warm\n"
    ".balign 65536\n");

/* The probes this run defined, for cleanup() on every path. */
static struct tprobe probes[3];
static bool defined[3];
enum { WARM, A, B };

static unsigned long page_of(const void *code)
{
	return (unsigned long)code & ~((unsigned long)sysconf(_SC_PAGESIZE) - 1);
}

/* Trace sync_icache_aliases() calls of this task, with stacks. */
static int trace_syncs(void)
{
	char filter[64];

	/* A run killed before its cleanup leaves both behind. */
	write_file(TRACEFS "/kprobe_events", "-:" KPROBE "\n", true);
	if (rmdir(INSTANCE) && errno != ENOENT)
		ksft_print_msg("rmdir %s: %s\n", INSTANCE, strerror(errno));
	if (mkdir(INSTANCE, 0755)) {
		ksft_print_msg("mkdir %s: %s\n", INSTANCE, strerror(errno));
		return -1;
	}
	if (write_file(TRACEFS "/kprobe_events",
		       "p:" KPROBE " sync_icache_aliases\n", true))
		return -1;
	snprintf(filter, sizeof(filter), "common_pid == %d", getpid());
	if (write_file(EVENT "/filter", filter, false) ||
	    write_file(INSTANCE "/options/stacktrace", "1", false))
		return -1;
	return write_file(EVENT "/enable", "1", false);
}

static void cleanup(void)
{
	int i;

	for (i = 0; i < 3; i++)
		if (defined[i] && !tprobe_del(&probes[i]))
			defined[i] = false;
	write_file(EVENT "/enable", "0", false);
	write_file(TRACEFS "/kprobe_events", "-:" KPROBE "\n", true);
	rmdir(INSTANCE);
}

static void fail(const char *msg)
{
	cleanup();
	ksft_exit_fail_msg("%s\n", msg);
}

/* Empty the instance's buffer (an O_TRUNC open of "trace" resets it). */
static int clear_syncs(void)
{
	return write_file(INSTANCE "/trace", "", false);
}

/*
 * Calls traced since clear_syncs() whose stack has uprobe_write*(), or -1.
 * Each event line is followed by its "<stack trace>" and " => fn" lines.
 */
static long count_syncs(void)
{
	FILE *f = fopen(INSTANCE "/trace", "r");
	bool in_sync = false, counted = false;
	char line[512];
	long n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || strstr(line, "<stack trace>"))
			continue;
		if (strstr(line, " => ")) {
			/* uprobe_write(), or 6.12's uprobe_write_opcode() */
			if (in_sync && !counted && strstr(line, "=> uprobe_write")) {
				counted = true;
				n++;
			}
			continue;
		}
		in_sync = strstr(line, " sync:") != NULL;
		counted = false;
	}
	fclose(f);
	return n;
}

/*
 * Define and enable probes[@i] on @fn.  It counts as defined even when this
 * fails: tprobe_add() may define the event and then fail to enable it.
 */
static int add_probe(int i, const char *name, void (*fn)(void))
{
	defined[i] = true;
	return tprobe_add(&probes[i], name, (void *)fn, false);
}

/* add_probe(), and the syncs that made, or -1. */
static long syncs_adding(int i, const char *name, void (*fn)(void))
{
	int err = clear_syncs();

	if (add_probe(i, name, fn))
		return -1;
	return err ? -1 : count_syncs();
}

/* Disable and remove probes[@i]; the syncs that made, or -1. */
static long syncs_removing(int i)
{
	int err = clear_syncs();

	if (tprobe_del(&probes[i]))
		return -1;
	defined[i] = false;
	return err ? -1 : count_syncs();
}

int main(void)
{
	long add_syncs, del_syncs, hits_a, hits_b;

	ksft_print_header();
	ksft_set_plan(3);
	if (page_of(icache_a) != page_of(icache_b) ||
	    page_of(icache_a) == page_of(icache_warm) ||
	    page_of(icache_a) == page_of(main) ||
	    page_of(icache_warm) == page_of(main))
		ksft_exit_fail_msg("test functions are not laid out as expected\n");
	icache_a();
	icache_b();
	icache_warm();
	if (trace_syncs())
		fail("cannot trace sync_icache_aliases()");

	/* The same steps once on another page, so that no first use counts. */
	if (syncs_adding(WARM, "icache_warm", icache_warm) < 0 ||
	    syncs_removing(WARM) < 0)
		fail("cannot add and remove a uprobe");
	if (add_probe(A, "icache_a", icache_a))
		fail("cannot add a uprobe");
	add_syncs = syncs_adding(B, "icache_b", icache_b);
	icache_a();
	icache_b();
	hits_a = tprobe_hits(&probes[A]);
	hits_b = tprobe_hits(&probes[B]);
	del_syncs = syncs_removing(B);
	cleanup();

	ksft_print_msg("hits %ld, %ld; sync_icache_aliases() calls under uprobe_write*(): %ld registering, %ld unregistering\n",
		       hits_a, hits_b, add_syncs, del_syncs);
	ksft_test_result(hits_a == 1 && hits_b == 1,
			 "both uprobes of the page fire\n");
	ksft_test_result(add_syncs > 0,
			 "a second uprobe on a page written already syncs the I-cache\n");
	ksft_test_result(del_syncs > 0,
			 "unregistering it, with the first one left, syncs the I-cache\n");
	ksft_finished();
}
