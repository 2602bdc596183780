"""Debian packages for scripts/coverage.py: an arm64 .deb fetched with
apt-get download (cached), and unpacked with dpkg-deb once."""
import glob
import os
import shutil
import subprocess

from pyutil import die, log


def fetch(pkg, debs):
    """The path of PKG's arm64 .deb in the folder debs: the cached one, else
    downloaded with 'apt-get download PKG:arm64'.  Exits with a message when
    the download fails (no arm64 lists: scripts/deps.sh, apt-get update)."""
    have = sorted(glob.glob(os.path.join(debs, glob.escape(pkg) + "_*_arm64.deb")))
    if have:
        return have[-1]
    log("downloading %s:arm64" % pkg)
    r = subprocess.run(["apt-get", "download", "-q", pkg + ":arm64"], cwd=debs,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    have = sorted(glob.glob(os.path.join(debs, glob.escape(pkg) + "_*_arm64.deb")))
    if r.returncode != 0 or not have:
        err = " ".join(r.stderr.strip().splitlines()[-2:])
        die("apt-get download %s:arm64 failed (%s): is the name right, and does apt "
            "know arm64 packages? run scripts/deps.sh (dpkg --add-architecture arm64, "
            "apt-get update)" % (pkg, err or "exit %d" % r.returncode))
    return have[-1]


def unpack(deb, dest):
    """dpkg-deb -x DEB into the folder dest, unless dest already holds this
    .deb (a stamp file names it).  Errors: exit on a failing dpkg-deb."""
    stamp = os.path.join(dest, ".deb")
    try:
        with open(stamp) as f:
            if f.read() == os.path.basename(deb):
                return
    except OSError:
        pass
    log("unpacking %s" % os.path.basename(deb))
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    r = subprocess.run(["dpkg-deb", "-x", deb, dest], stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        die("dpkg-deb -x %s failed: %s" % (deb, r.stderr.strip()))
    with open(stamp, "w") as f:
        f.write(os.path.basename(deb))
