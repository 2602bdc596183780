// SPDX-License-Identifier: GPL-2.0
/*
 * A QEMU TCG plugin for scripts/hit_profile.sh: counts how many times each
 * translation block at a kernel address (bit 63 set) runs, and writes, at
 * exit, one line per block that ran: "VADDR INSNS RUNS" (hex, decimal,
 * decimal) to the file named by its argument out=FILE.  QEMU's own
 * contrib/plugins/hotblocks.c keeps only the 20 hottest blocks.
 * Load it with -plugin tbprof.so,out=FILE, on one vCPU (counts and the
 * list are not atomic).  Errors: a missing out= argument, more than one
 * vCPU or no memory fail the load; a file that cannot be written is
 * reported on stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

struct block {
	uint64_t vaddr, insns, runs;
	struct block *next;
};

static struct block *blocks;
static char *out;

static void block_run(unsigned int vcpu, void *data)
{
	((struct block *)data)->runs++;
}

static void block_translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t vaddr = qemu_plugin_tb_vaddr(tb);
	struct block *b;

	if (!(vaddr >> 63))
		return;
	b = calloc(1, sizeof(*b));
	if (!b)
		abort();
	b->vaddr = vaddr;
	b->insns = qemu_plugin_tb_n_insns(tb);
	b->next = blocks;
	blocks = b;
	qemu_plugin_register_vcpu_tb_exec_cb(tb, block_run, QEMU_PLUGIN_CB_NO_REGS, b);
}

static void write_counts(qemu_plugin_id_t id, void *data)
{
	FILE *f = fopen(out, "w");
	struct block *b;

	if (!f) {
		perror(out);
		return;
	}
	for (b = blocks; b; b = b->next)
		if (b->runs)
			fprintf(f, "%llx %llu %llu\n", (unsigned long long)b->vaddr,
				(unsigned long long)b->insns, (unsigned long long)b->runs);
	if (fclose(f))
		perror(out);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	for (int i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			out = strdup(argv[i] + 4);
	if (!out) {
		fprintf(stderr, "tbprof: no out=FILE argument (or no memory)\n");
		return -1;
	}
	if (info->system_emulation && info->system.smp_vcpus != 1) {
		fprintf(stderr, "tbprof: %d vCPUs; it counts on one\n", info->system.smp_vcpus);
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, block_translated);
	qemu_plugin_register_atexit_cb(id, write_counts, NULL);
	return 0;
}
