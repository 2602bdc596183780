// SPDX-License-Identifier: GPL-2.0
/*
 * probe_cost N REPS: what a uprobe hit costs on each of the bench's arm64
 * targets (tools/testing/selftests/bpf/benchs/bench_trigger.c), split into
 * the target's own user-mode time and the time the probe adds.
 *
 * For each of REPS rounds, and each target in turn: N calls unprobed, then
 * N calls with a uprobe (tracefs) on its first instruction.  Prints, per
 * target, the median over the rounds of ns per call unprobed and probed,
 * and of their difference (the probe's cost per hit), with min and max.
 * "push-at-nop" has the push target's body behind a nop and is probed on
 * the nop: on a kernel that simulates both, push minus push-at-nop is what
 * simulating the push costs over simulating a nop, the user-mode work
 * being the same.  "pac" is the push behind paciasp, with autiasp before
 * its ret, as a function built with -mbranch-protection=standard starts.
 * Where the CPU has BTI, the targets' pages are guarded, as the text of a
 * program built so is (and arm64 gives a uprobe a trampoline slot only
 * there); each target comes after a BTI C, where the call goes.
 *
 * A measurement helper for scripts/probe_cost.sh, not a test.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/auxv.h>
#include <sys/mman.h>

#include "uprobe_util.h"

#define MAX_REPS 32

void pc_ret(void), pc_nop(void), pc_push(void), pc_push_at_nop(void), pc_xol(void),
	pc_pac(void);

#ifndef PROT_BTI
#define PROT_BTI 0x10
#endif

extern char __start_probe_cost_targets[], __stop_probe_cost_targets[];

/* The bench's targets, and the push body behind a nop; each after a BTI C. */
asm(".pushsection probe_cost_targets, \"ax\"\n"
    ".balign 65536\n"
    "pc_noop: ret\n"
    "	hint #34\n"		/* bti c */
    ".globl pc_ret\n.type pc_ret, %function\n"
    "pc_ret:\n"
    "	ret\n"
    "	hint #34\n"		/* bti c */
    ".globl pc_nop\n.type pc_nop, %function\n"
    "pc_nop:\n"
    "	nop\n"
    "	ret\n"
    "	hint #34\n"		/* bti c */
    ".globl pc_push\n.type pc_push, %function\n"
    "pc_push:\n"
    "	stp x29, x30, [sp, #-16]!\n"
    "	mov x29, sp\n"
    "	bl pc_noop\n"
    "	mov w0, #1\n"
    "	ldp x29, x30, [sp], #16\n"
    "	ret\n"
    "	hint #34\n"		/* bti c */
    ".globl pc_push_at_nop\n.type pc_push_at_nop, %function\n"
    "pc_push_at_nop:\n"
    "	nop\n"
    "	stp x29, x30, [sp, #-16]!\n"
    "	mov x29, sp\n"
    "	bl pc_noop\n"
    "	mov w0, #1\n"
    "	ldp x29, x30, [sp], #16\n"
    "	ret\n"
    "	hint #34\n"		/* bti c */
    ".globl pc_xol\n.type pc_xol, %function\n"
    "pc_xol:\n"
    "	mul x0, x0, x0\n"
    "	ret\n"
    /* the push body behind paciasp, as -mbranch-protection=standard builds it */
    "	hint #34\n"		/* bti c */
    ".globl pc_pac\n.type pc_pac, %function\n"
    "pc_pac:\n"
    "	hint #25\n"		/* paciasp */
    "	stp x29, x30, [sp, #-16]!\n"
    "	mov x29, sp\n"
    "	bl pc_noop\n"
    "	mov w0, #1\n"
    "	ldp x29, x30, [sp], #16\n"
    "	hint #29\n"		/* autiasp */
    "	ret\n"
    ".balign 65536\n"
    ".popsection\n");

/*
 * "xol" starts with an instruction that is stepped out of line; the "uret-"
 * targets have a uretprobe (entry hit, then the return trampoline's).
 */
static const struct {
	const char *name;
	void (*fn)(void);
	bool ret;
} targets[] = {
	{ "ret", pc_ret }, { "nop", pc_nop }, { "push", pc_push },
	{ "push-at-nop", pc_push_at_nop }, { "xol", pc_xol }, { "pac", pc_pac },
	{ "uret-nop", pc_nop, true }, { "uret-xol", pc_xol, true },
};
#define NTARGETS (sizeof(targets) / sizeof(targets[0]))

/* ns per call of @fn, through its BTI C, over @n calls. */
static double ns_per_call(void (*fn)(void), long n)
{
	void (*volatile call)(void) = (void (*)(void))((char *)fn - 4);
	struct timespec a, b;
	long i;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++)
		call();
	clock_gettime(CLOCK_MONOTONIC, &b);
	return ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* "median [min, max]" of @v[0..@n), sorted in place. */
static void print_stat(const char *label, double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	printf(" %s %.0f [%.0f, %.0f]", label, v[n / 2], v[0], v[n - 1]);
}

int main(int argc, char **argv)
{
	static double unprobed[NTARGETS][MAX_REPS], probed[NTARGETS][MAX_REPS],
		      added[NTARGETS][MAX_REPS];
	long n = argc > 1 ? atol(argv[1]) : 0;
	int reps = argc > 2 ? atoi(argv[2]) : 0, r;
	size_t t;

	if (n <= 0 || reps <= 0 || reps > MAX_REPS) {
		fprintf(stderr, "usage: probe_cost CALLS REPS (REPS <= %d)\n", MAX_REPS);
		return 2;
	}
	if ((getauxval(AT_HWCAP2) & HWCAP2_BTI) &&
	    mprotect(__start_probe_cost_targets,
		     __stop_probe_cost_targets - __start_probe_cost_targets,
		     PROT_READ | PROT_EXEC | PROT_BTI)) {
		fprintf(stderr, "probe_cost: mprotect(PROT_BTI): %s\n", strerror(errno));
		return 1;
	}
	for (r = 0; r < reps; r++) {
		for (t = 0; t < NTARGETS; t++) {
			struct tprobe p;
			long hits;

			unprobed[t][r] = ns_per_call(targets[t].fn, n);
			if (tprobe_add(&p, "probe_cost", targets[t].fn, targets[t].ret))
				return 1;
			probed[t][r] = ns_per_call(targets[t].fn, n);
			hits = tprobe_hits(&p);
			if (tprobe_del(&p))
				return 1;
			if (hits != n) {
				fprintf(stderr, "probe_cost: %s: %ld hits, want %ld\n",
					targets[t].name, hits, n);
				return 1;
			}
			added[t][r] = probed[t][r] - unprobed[t][r];
		}
	}
	printf("# ns per call, median [min, max] of %d rounds of %ld calls\n",
	       reps, n);
	for (t = 0; t < NTARGETS; t++) {
		printf("probe_cost %s:", targets[t].name);
		print_stat("unprobed", unprobed[t], reps);
		print_stat("probed", probed[t], reps);
		print_stat("added", added[t], reps);
		printf("\n");
	}
	return 0;
}
