"""Provenance of a measurement: what code, build, library and machine
produced it, so a reader can tell whether two results are comparable."""
import hashlib
import os
import platform
import re
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _run(cmd, cwd=ROOT):
    try:
        r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=60)
        return r.stdout if r.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired):
        return None


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


# What the runner itself writes into the tree (a summary and RESULTS.md
# after every repeat) says nothing about the code that measured.
OWN_OUTPUTS = [":(exclude)experiments/*/RESULTS.md", ":(exclude)experiments/*/summary/*"]


def git_state(root):
    status = _run(["git", "status", "--porcelain", "--untracked-files=no", "--", "."] + OWN_OUTPUTS,
                  root)
    return {"commit": (_run(["git", "rev-parse", "HEAD"], root) or "unknown").strip(),
            "dirty": bool(status and status.strip()),
            "diff_stat": (_run(["git", "diff", "HEAD", "--stat", "--", "."] + OWN_OUTPUTS, root)
                          or "").strip()}


def cmake_cache(build_dir, key, default):
    """The value of `key` in a build directory's CMakeCache.txt."""
    try:
        with open(os.path.join(build_dir, "CMakeCache.txt")) as f:
            for line in f:
                if line.startswith(key + ":"):
                    return line.split("=", 1)[1].strip()
    except OSError:
        pass
    return default


def build_type(build_dir):
    return cmake_cache(build_dir, "CMAKE_BUILD_TYPE", "unknown")


def source_dir(build_dir):
    """The source tree a build directory was configured from."""
    return cmake_cache(build_dir, "CMAKE_HOME_DIRECTORY", ROOT)


def newest_source_mtime(root):
    """The newest mtime of a file the zsbench binary is built from."""
    newest = 0.0
    for top in ("src", "CMakeLists.txt", "cmake"):
        path = os.path.join(root, top)
        if os.path.isfile(path):
            newest = max(newest, os.path.getmtime(path))
        for d, _, files in os.walk(path):
            for name in files:
                newest = max(newest, os.path.getmtime(os.path.join(d, name)))
    return newest


def rocksdb_version():
    pkg = _run(["dpkg-query", "-W", "-f=${Version}", "librocksdb-dev"])
    header = {}
    try:
        with open("/usr/include/rocksdb/version.h") as f:
            for m in re.finditer(r"#define ROCKSDB_(MAJOR|MINOR|PATCH) (\d+)", f.read()):
                header[m.group(1)] = int(m.group(2))
    except OSError:
        pass
    return {"package": (pkg or "unknown").strip(),
            "header": ".".join(str(header.get(k, "?")) for k in ("MAJOR", "MINOR", "PATCH"))}


def machine():
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = 0
    try:
        with open("/proc/meminfo") as f:
            mem = int(f.readline().split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_bytes": mem,
            "kernel": platform.release(), "hostname_hash": hashlib.sha256(
                platform.node().encode()).hexdigest()[:8]}


def load_average():
    return list(os.getloadavg())


def now():
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def build_dir(zsbench):
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(zsbench))))


def tool_state(zsbench, zsctl):
    """The binary's identity and whether it is older than its sources."""
    out = {"zsbench": zsbench, "source_dir": source_dir(build_dir(zsbench))}
    try:
        out["zsbench_sha256"] = sha256(zsbench)
        out["stale_build"] = os.path.getmtime(zsbench) < newest_source_mtime(out["source_dir"])
    except OSError:
        out["zsbench_sha256"] = "missing"
        out["stale_build"] = None
    out["build_type"] = build_type(build_dir(zsbench))
    out["zsctl_schemes"] = (_run([zsctl, "schemes"]) or "unavailable") if zsctl else "unavailable"
    return out


def static_stamp(zsbench, zsctl):
    """Everything that does not change while the runner runs. The commit is
    the one zsbench was built from (its build's source tree); the runner's
    own checkout is stamped too when it is another."""
    tools = tool_state(zsbench, zsctl)
    out = {"git": git_state(tools["source_dir"]), "tools": tools,
           "rocksdb": rocksdb_version(), "machine": machine()}
    if os.path.realpath(tools["source_dir"]) != os.path.realpath(ROOT):
        out["runner_git"] = git_state(ROOT)
    return out
