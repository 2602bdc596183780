// SPDX-License-Identifier: GPL-2.0
/*
 * xol_loop N: call a function whose first instruction uprobes step out of
 * line ("mul") N times, after a uprobe was put on it through tracefs, and
 * print "hits <n>".  A measurement helper for guest/siglock.sh, not a test.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "uprobe_util.h"

uint64_t xol_loop_target(uint64_t a, uint64_t b);

asm(".text\n"
    ".globl xol_loop_target\n.type xol_loop_target, %function\n"
    "xol_loop_target:\n"
    "	mul	x0, x0, x1\n"
    "	ret\n"
    ".size xol_loop_target, .-xol_loop_target\n");

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000, i;
	uint64_t acc = 1;
	struct tprobe p;

	if (tprobe_add(&p, "xol_loop", (void *)xol_loop_target, false))
		return 1;
	for (i = 0; i < n; i++)
		acc = xol_loop_target(acc | 1, 3);
	printf("hits %ld (acc %#llx)\n", tprobe_hits(&p), (unsigned long long)acc);
	tprobe_del(&p);
	return 0;
}
