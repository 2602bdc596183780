// SPDX-License-Identifier: GPL-2.0
/* See uprobe_util.h.  Follows Documentation/trace/uprobetracer.rst. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "uprobe_util.h"

#define SLOTS_KNOB "/proc/sys/debug/uprobes-optimization"

int write_file(const char *file, const char *s, bool append)
{
	int fd = open(file, O_WRONLY | (append ? O_APPEND : O_TRUNC));
	ssize_t n;

	if (fd < 0) {
		fprintf(stderr, "open %s: %s\n", file, strerror(errno));
		return -1;
	}
	n = write(fd, s, strlen(s));
	if (n != (ssize_t)strlen(s)) {
		fprintf(stderr, "write '%s' to %s: %s\n", s, file, strerror(errno));
		close(fd);
		return -1;
	}
	return close(fd);
}

int file_offset_of(const void *addr, char *path, size_t pathlen,
		   unsigned long *offset)
{
	unsigned long a = (unsigned long)addr, start, end, pgoff;
	char line[512], perms[8], file[256];
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		file[0] = 0;
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %255s",
			   &start, &end, perms, &pgoff, file) < 4)
			continue;
		if (a < start || a >= end || file[0] != '/')
			continue;
		snprintf(path, pathlen, "%s", file);
		*offset = a - start + pgoff;
		fclose(f);
		return 0;
	}
	fclose(f);
	fprintf(stderr, "address %p is not in a file mapping\n", addr);
	return -1;
}

static int enable(const struct tprobe *p, const char *val)
{
	char file[256];

	snprintf(file, sizeof(file), TRACEFS "/events/testbed/%s/enable", p->name);
	return write_file(file, val, false);
}

int tprobe_add(struct tprobe *p, const char *name, const void *addr, bool ret)
{
	char def[512];

	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->ret = ret;
	if (file_offset_of(addr, p->path, sizeof(p->path), &p->offset))
		return -1;
	snprintf(def, sizeof(def), "%c:testbed/%s %s:0x%lx\n",
		 ret ? 'r' : 'p', name, p->path, p->offset);
	if (write_file(TRACEFS "/uprobe_events", def, true))
		return -1;
	return enable(p, "1");
}

long tprobe_hits(const struct tprobe *p)
{
	char line[512], ev[128];
	long hits;
	FILE *f = fopen(TRACEFS "/uprobe_profile", "r");

	if (!f)
		return -1;
	snprintf(ev, sizeof(ev), "testbed/%s", p->name);
	while (fgets(line, sizeof(line), f)) {
		char path[256], event[128];

		/* "  <path> <group/event> <hits>" (event may lack the group) */
		if (sscanf(line, "%255s %127s %ld", path, event, &hits) == 3 &&
		    (!strcmp(event, ev) || !strcmp(event, p->name))) {
			fclose(f);
			return hits;
		}
	}
	fclose(f);
	return -1;
}

int tprobe_del(struct tprobe *p)
{
	char def[160];

	if (enable(p, "0"))
		return -1;
	snprintf(def, sizeof(def), "-:testbed/%s\n", p->name);
	return write_file(TRACEFS "/uprobe_events", def, true);
}

int fork_tracee(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		raise(SIGSTOP);
		return 0;
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status)) {
		if (pid > 0)
			kill(pid, SIGKILL);
		return -1;
	}
	return pid;
}

int uprobe_slots_set(bool on)
{
	char was = 0;
	int fd = open(SLOTS_KNOB, O_RDONLY);

	if (fd < 0 && errno == ENOENT)
		return UPROBE_SLOTS_NONE;
	if (fd < 0 || read(fd, &was, 1) != 1 || (was != '1' && was != '0')) {
		fprintf(stderr, "read %s: %s\n", SLOTS_KNOB,
			fd < 0 ? strerror(errno) : "not 1 or 0");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	if (write_file(SLOTS_KNOB, on ? "1" : "0", false))
		return -1;
	return was == '1';
}
