// SPDX-License-Identifier: GPL-2.0
/*
 * Smoke test of the test bed: a uprobe set through tracefs on a function whose
 * first instruction is a nop, and on one whose first instruction is the
 * prologue "stp x29, x30, [sp, #-16]!", fires once per call and leaves the
 * program's results unchanged.  Oracle: the same calls run unprobed first.
 */
#include <stdint.h>
#include <stdio.h>

#include "kselftest.h"
#include "uprobe_util.h"

#define CALLS 1000

uint64_t smoke_nop(uint64_t x);
uint64_t smoke_stp(uint64_t x);

asm(".text\n"
    ".globl smoke_nop\n.type smoke_nop, %function\n"
    "smoke_nop:\n"
    "	nop\n"
    "	add	x0, x0, #1\n"
    "	ret\n"
    ".size smoke_nop, .-smoke_nop\n"
    ".globl smoke_stp\n.type smoke_stp, %function\n"
    "smoke_stp:\n"
    "	stp	x29, x30, [sp, #-16]!\n"
    "	mov	x29, sp\n"
    "	ldr	x1, [sp, #8]\n"		/* the saved LR must read back */
    "	cmp	x1, x30\n"
    "	cset	x1, ne\n"
    "	add	x0, x0, x1, lsl #32\n"
    "	add	x0, x0, #2\n"
    "	ldp	x29, x30, [sp], #16\n"
    "	ret\n"
    ".size smoke_stp, .-smoke_stp\n");

static uint64_t run(uint64_t (*fn)(uint64_t))
{
	uint64_t acc = 0;
	int i;

	for (i = 0; i < CALLS; i++)
		acc = fn(acc) ^ (uint64_t)i;
	return acc;
}

static void check(const char *name, uint64_t (*fn)(uint64_t))
{
	uint64_t native = run(fn), probed;
	struct tprobe p;
	long hits;

	if (tprobe_add(&p, name, (void *)fn, false)) {
		ksft_test_result_fail("%s: cannot add uprobe\n", name);
		return;
	}
	probed = run(fn);
	hits = tprobe_hits(&p);
	tprobe_del(&p);
	ksft_print_msg("%s: native %#llx probed %#llx hits %ld\n", name,
		       (unsigned long long)native, (unsigned long long)probed, hits);
	ksft_test_result(probed == native && hits == CALLS,
			 "%s: uprobe fired %d times, results unchanged\n", name, CALLS);
}

int main(void)
{
	ksft_print_header();
	ksft_set_plan(2);
	check("smoke_nop", smoke_nop);
	check("smoke_stp", smoke_stp);
	ksft_finished();
}
