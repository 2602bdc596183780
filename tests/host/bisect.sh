#!/usr/bin/env bash
# TAP: each patch builds on its own (scripts/bisect.sh: the objects of the C
# files each patch touches, arm64 and, outside arch/, x86_64; the kselftest a
# patch touches).
exec "$(dirname "$0")/../../scripts/bisect.sh"
