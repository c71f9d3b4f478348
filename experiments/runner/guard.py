"""One experiment at a time, on a quiet machine.

A benchmark's numbers are only worth comparing when nothing else competes
for the CPU and the disks: the lock keeps two runners apart, the busy
check refuses to start beside a build or another benchmark.
"""
import errno
import fcntl
import os

LOCK_PATH = os.environ.get("ZONESTACK_EXPERIMENTS_LOCK", "/tmp/zonestack-experiments.lock")
# Processes that compete with a measurement: compilers and build tools, and
# other benchmarks (zsctl only while it runs devbench).
# ZONESTACK_BUSY_NAMES replaces both lists (the unit tests watch for a
# process of their own only, whatever else runs on the machine).
BUSY_NAMES = tuple(os.environ.get("ZONESTACK_BUSY_NAMES", "cc1plus,ninja,make,zsbench,zsreplay").split(","))
BUSY_WITH_ARG = {} if "ZONESTACK_BUSY_NAMES" in os.environ else {"zsctl": "devbench"}

EXIT_LOCKED = 3
EXIT_BUSY = 4


class Refused(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


class Lock:
    """An exclusive flock on LOCK_PATH, holding the owner's pid in the file."""

    def __init__(self, path=None):
        self.path = path or LOCK_PATH
        self.fd = None

    def acquire(self):
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            if e.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise
            holder = os.read(fd, 64).decode(errors="replace").strip() or "unknown"
            os.close(fd)
            raise Refused(EXIT_LOCKED, f"another experiment runner holds {self.path} "
                                       f"(pid {holder}); experiments run one at a time")
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self.fd = fd
        return self

    def release(self):
        if self.fd is not None:
            os.close(self.fd)  # closing drops the flock
            self.fd = None

    def __enter__(self):
        return self.acquire()

    def __exit__(self, *exc):
        self.release()


def _ancestors():
    """This process and its parents: run.sh and flock are not competitors."""
    pids, pid = set(), os.getpid()
    while pid > 1 and pid not in pids:
        pids.add(pid)
        try:
            with open(f"/proc/{pid}/stat") as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
    return pids


def busy_processes(exclude=()):
    """[(pid, command line)] of builds and benchmarks running now, other
    than this process, its parents and `exclude` (our own zsbench)."""
    skip = _ancestors() | set(exclude)
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in skip:
            continue
        try:
            with open(f"/proc/{entry}/comm") as f:
                comm = f.read().strip()
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                argv = [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
        except OSError:
            continue
        if comm in BUSY_NAMES or (comm in BUSY_WITH_ARG and BUSY_WITH_ARG[comm] in argv):
            found.append((int(entry), " ".join(argv)[:200] or comm))
    return sorted(found)


def check_quiet(ignore_busy):
    """Raises Refused (exit 4) when a build or benchmark runs, unless
    ignore_busy; returns what was seen either way (for the stamps)."""
    seen = busy_processes()
    if seen and not ignore_busy:
        lines = "\n".join(f"  pid {pid}: {cmd}" for pid, cmd in seen)
        raise Refused(EXIT_BUSY, "a build or another benchmark is running; its load would be "
                                 f"measured too (--ignore-busy to run anyway, stamped):\n{lines}")
    return seen
