"""Messages of the test bed's Python tools, prefixed with the program's
name: die() ends the program, log() goes on; need_tools() dies naming the
first tool that is not installed."""
import os
import shutil
import sys

PROG = os.path.splitext(os.path.basename(sys.argv[0] or "python3"))[0]


def die(msg):
    """Print 'PROG: ERROR: msg' on stderr and exit 1 (SystemExit)."""
    sys.stderr.write("%s: ERROR: %s\n" % (PROG, msg))
    sys.exit(1)


def log(msg):
    """A progress line on stderr."""
    sys.stderr.write("%s: %s\n" % (PROG, msg))
    sys.stderr.flush()


def need_tools(tools):
    """Exit with a message naming the first of tools not on PATH."""
    for t in tools:
        if not shutil.which(t):
            die("missing tool '%s': run 'make deps' (scripts/deps.sh) first" % t)
