/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the guest tests: place uprobes on functions of the running
 * program through tracefs (Documentation/trace/uprobetracer.rst) and read
 * their hit counts from uprobe_profile.
 */
#ifndef UPROBE_UTIL_H
#define UPROBE_UTIL_H

#include <stdbool.h>
#include <stddef.h>

#define TRACEFS "/sys/kernel/tracing"

/*
 * write_file - write @s to @file (a tracefs or debugfs knob), appending if
 * @append, else truncating.  Returns 0, or -1 with a message on stderr.
 */
int write_file(const char *file, const char *s, bool append);

/* A uprobe event "testbed/<name>" on one instruction of this program. */
struct tprobe {
	char name[64];
	char path[256];
	unsigned long offset;	/* file offset of the probed instruction */
	bool ret;		/* uretprobe instead of uprobe */
};

/*
 * tprobe_add - define and enable a uprobe (or uretprobe) at @addr.
 * @p:    filled in; pass to tprobe_hits() and tprobe_del()
 * @name: event name, [a-z0-9_]
 * @addr: an instruction address of this program (mapped from its own file)
 * @ret:  true for a uretprobe
 * Returns 0, or -1 with a message on stderr (tracefs missing, no mapping).
 */
int tprobe_add(struct tprobe *p, const char *name, const void *addr, bool ret);

/* tprobe_hits - hit count of @p from uprobe_profile; -1 if not found. */
long tprobe_hits(const struct tprobe *p);

/* tprobe_del - disable and remove @p; returns 0 or -1. */
int tprobe_del(struct tprobe *p);

/*
 * file_offset_of - file offset of @addr in the mapping that holds it,
 * from /proc/self/maps; writes the mapped file's path to @path.
 * Returns 0 or -1 when @addr is not in a file mapping.
 */
int file_offset_of(const void *addr, char *path, size_t pathlen,
		   unsigned long *offset);

/*
 * fork_tracee - fork a child to be traced with ptrace.  The child asks to
 * be traced (PTRACE_TRACEME) and stops itself with SIGSTOP; 0 is returned
 * in it once its tracer resumes it.  In the parent: the child's pid, once
 * it has stopped, or -1 (fork or waitpid failed).
 */
int fork_tracee(void);

/*
 * uprobe_slots_set - switch arm64 uprobe trampoline slots on (@on true) or
 * off for the probes first hit from now (sysctl debug.uprobes-optimization,
 * the mainline queue's series 8); off, every hit takes the BRK path.
 * Returns the previous state (0 off, 1 on), UPROBE_SLOTS_NONE on a kernel
 * without slots, or -1 with a message on stderr (the knob cannot be read
 * or written).
 */
#define UPROBE_SLOTS_NONE	2
int uprobe_slots_set(bool on);

#endif
