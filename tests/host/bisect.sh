#!/usr/bin/env bash
# TAP: each patch builds on its own, the cheap way that fits CI
# (scripts/bisect.sh with BISECT=objects: the objects of the C files each
# patch touches, arm64 and, outside arch/, x86_64; the kselftest a patch
# touches).  The full check, an arm64 Image (and x86_64 bzImage, and the
# bench) after every patch, is `make bisect`: run it before each export.
BISECT=objects exec "$(dirname "$0")/../../scripts/bisect.sh"
