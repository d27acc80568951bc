"""The jail: one bubblewrap (``bwrap``) command line per grading.

bubblewrap builds the zygote's whole world from nothing; what is not bound
does not exist.  Inside:

* new mount, PID, network, IPC, UTS (and, where possible, cgroup)
  namespaces; ``--die-with-parent``; ``--new-session``; a read-only root;
* read-only: the system's ``/usr`` (and the ``/lib*``/``/bin`` links or
  folders beside it), the dynamic loader's cache, the Python interpreter and
  its site-packages, :data:`LIB_DIR` (the staged grader code, never this
  repository) and :data:`CODE_DIR` (the copied submission);
* private and size-capped: ``/tmp``, ``/dev/shm``, :data:`SCRATCH_DIR` (one
  folder per probe) and :data:`CAPTURE_DIR` (the probes' output, 0700);
* a minimal ``/dev``, its own ``/proc``; no network at all (only its own
  loopback).

Privileges.  As root, bwrap runs without a user namespace and leaves the
zygote only the capabilities it needs to switch each probe child to the
sandbox's own unprivileged uid (:data:`ZYGOTE_CAPABILITIES`); the child then
has none.  bwrap's own ``--uid`` cannot do that switch: as root it maps the
chosen uid to host uid 0.  As any other user, bwrap makes a user namespace,
drops every capability, and the zygote and its children keep that user's
uid (nested user namespaces are disabled).

Where bwrap is missing or cannot make namespaces (a container without user
namespaces, a laptop without bubblewrap), :func:`availability` says why, and
the sandbox starts the zygote directly: its isolation is then "contained" or
"weak" (see :mod:`grader.isolation`).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

JAIL_ROOT = "/jail"
LIB_DIR = f"{JAIL_ROOT}/lib"
CODE_DIR = f"{JAIL_ROOT}/code"
SCRATCH_DIR = f"{JAIL_ROOT}/scratch"
CAPTURE_DIR = f"{JAIL_ROOT}/capture"

#: Sizes of the jail's private, memory-backed folders (bytes).
TMPFS_SIZES = {SCRATCH_DIR: 256 << 20, "/tmp": 64 << 20, "/dev/shm": 256 << 20, CAPTURE_DIR: 64 << 20}

#: What the zygote keeps when the jail runs as root: switch uid/gid, chown a probe's
#: scratch folder, remove what a probe left there, kill whatever a probe started.
ZYGOTE_CAPABILITIES = ("CAP_SETUID", "CAP_SETGID", "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_KILL")

_NAMESPACES = ("--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try")
SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
LOADER_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d")
_GPU_DEVICES = ("/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools", "/dev/nvidia-modeset")


@dataclass(frozen=True)
class Availability:
    """Whether bubblewrap can make the jail's namespaces on this machine (``ok``), and why or why not."""

    ok: bool
    reason: str


def _as_root() -> bool:
    return os.geteuid() == 0


def namespace_options() -> list[str]:
    """bwrap's namespace and privilege options for the current user."""
    options = [*_NAMESPACES, "--die-with-parent", "--new-session"]
    if _as_root():
        options += ["--cap-drop", "ALL"]
        for cap in ZYGOTE_CAPABILITIES:
            options += ["--cap-add", cap]
    else:
        options += ["--unshare-user", "--disable-userns", "--cap-drop", "ALL"]
    return options


@functools.lru_cache(maxsize=None)
def availability() -> Availability:
    """Whether a jail can be made here; tried once per process with a real bwrap run."""
    if not sys.platform.startswith("linux"):
        return Availability(False, f"bubblewrap needs Linux; this is {sys.platform}")
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return Availability(False, "bubblewrap (bwrap) is not installed: apt-get install bubblewrap, dnf install bubblewrap")
    trial = [bwrap, *namespace_options(), *_system_binds(), "--proc", "/proc", "--", "/bin/true"]
    try:
        proc = subprocess.run(trial, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Availability(False, f"bwrap could not be run: {exc}")
    if proc.returncode != 0:
        detail = " ".join(proc.stderr.split())[:300] or f"exit status {proc.returncode}"
        hint = "" if _as_root() else " (run the grader as root, e.g. with sudo, or allow unprivileged user namespaces)"
        return Availability(False, f"bwrap cannot make namespaces here: {detail}{hint}")
    return Availability(True, f"bubblewrap {'as root' if _as_root() else f'as uid {os.geteuid()}'}: own mount, PID, "
                              "network, IPC and UTS namespaces")


#: bubblewrap's CVE-2026-87766 (while setting up a sandbox, creating a file or folder under the new root can follow a
#: symlink planted there out through /oldroot and write on the host as the launching user): fixed upstream in 0.12.0;
#: the distribution packages known to carry the fix (grader/docs/hosts.md, "bubblewrap").
CVE = "CVE-2026-87766"
FIXED_UPSTREAM = (0, 12, 0)
#: Distribution packages older than 0.12.0 known to carry the fix (and those after them on the same upstream version).
FIXED_PACKAGES = ("0.9.0-1ubuntu0.2",)
#: Packages known to lack it.
UNFIXED_PACKAGES = ("0.8.0-2+deb12u1",)


@dataclass(frozen=True)
class Bubblewrap:
    """The installed bubblewrap: ``version`` as ``bwrap --version`` prints it ("" when absent), ``package`` the
    distribution's package version ("" when unknown), ``fixed`` whether it carries :data:`CVE`'s fix (None: unknown)."""

    version: str
    package: str
    fixed: bool | None

    def text(self) -> str:
        """One line for reports and ``check``, e.g. "0.8.0 (package 0.8.0-2+deb12u1; CVE-2026-87766 not fixed)"."""
        if not self.version:
            return "not installed"
        package = f"package {self.package}; " if self.package else ""
        fix = {True: "fixed", False: "not fixed", None: "fix unknown"}[self.fixed]
        return f"{self.version} ({package}{CVE} {fix})"


@functools.lru_cache(maxsize=None)
def bubblewrap() -> Bubblewrap:
    """What :class:`Bubblewrap` says of this machine's ``bwrap`` (asked once per process; never raises)."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return Bubblewrap("", "", None)
    version = _output([bwrap, "--version"]).removeprefix("bubblewrap").strip()
    package = _output(["dpkg-query", "-W", "-f=${Version}", "bubblewrap"]) if shutil.which("dpkg-query") else ""
    numbers = tuple(int(part) for part in version.split(".")[:3] if part.isdigit())
    if len(numbers) == 3 and numbers >= FIXED_UPSTREAM:
        fixed = True
    elif package in UNFIXED_PACKAGES:
        fixed = False
    elif same_line := [known for known in FIXED_PACKAGES if known.split("-")[0] == package.split("-")[0]]:
        fixed = any(_at_least(package, known) for known in same_line)
    else:
        fixed = None  # a distribution may have backported the fix: its security tracker says
    return Bubblewrap(version, package, fixed)


def _output(argv: list[str]) -> str:
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=10).stdout.strip()[:100]
    except (OSError, subprocess.SubprocessError):
        return ""


def _at_least(package: str, known: str) -> bool:
    """Whether the package version ``package`` is ``known`` or later (dpkg's own ordering, where dpkg is here)."""
    if package == known:
        return True
    if not shutil.which("dpkg"):
        return False
    try:
        return subprocess.run(["dpkg", "--compare-versions", package, "ge", known], timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def _system_binds() -> list[str]:
    args: list[str] = []
    for path in SYSTEM_PATHS:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    for path in LOADER_FILES:
        args += ["--ro-bind-try", path, path]
    return args


def interpreter_paths() -> list[str]:
    """The folders the interpreter needs: its prefixes and every site-packages on sys.path."""
    wanted = [sys.base_prefix, sys.prefix, sys.base_exec_prefix, sys.exec_prefix,
              os.path.dirname(os.path.realpath(sys.executable)),
              *(p for p in sys.path if p.endswith(("site-packages", "dist-packages")))]
    system = tuple(p + "/" for p in SYSTEM_PATHS)
    chosen: list[str] = []
    for path in sorted({os.path.abspath(p) for p in wanted if p and os.path.isdir(p)}, key=len):
        if not (path + "/").startswith(system) and not any((path + "/").startswith(c + "/") for c in chosen):
            chosen.append(path)
    return chosen


def command(lib_dir: Path, code_dir: Path, *, gpu: bool = False) -> list[str]:
    """The bwrap argv, up to and including ``--``, that jails a zygote.

    ``lib_dir`` and ``code_dir`` are host folders, seen inside as
    :data:`LIB_DIR` and :data:`CODE_DIR`.
    """
    # bwrap applies its options in order. The private folders come first, so that an interpreter
    # that lives below one of them (a virtual environment in /tmp) is bound on top, not hidden.
    args = [shutil.which("bwrap") or "bwrap", *namespace_options(), "--proc", "/proc", "--dev", "/dev"]
    interpreter = interpreter_paths()
    ancestors = _ancestors([*interpreter, LIB_DIR, *LOADER_FILES])
    in_private = [folder for folder in ancestors if any(_below(folder, path) for path in TMPFS_SIZES)]
    for folder in (f for f in ancestors if f not in in_private):
        args += ["--perms", "0755", "--dir", folder]  # bwrap would make them 0700
    for path, size in TMPFS_SIZES.items():
        args += ["--size", str(size), "--tmpfs", path]
    args += ["--chmod", "0711", SCRATCH_DIR, "--chmod", "0700", CAPTURE_DIR, "--chmod", "1777", "/tmp",
             "--chmod", "1777", "/dev/shm"]
    for folder in in_private:
        args += ["--perms", "0755", "--dir", folder]
    args += _system_binds()
    for path in interpreter:
        args += ["--ro-bind", path, path]
    args += ["--ro-bind", str(lib_dir), LIB_DIR, "--ro-bind", str(code_dir), CODE_DIR]
    if gpu:
        args += _gpu_binds()
    return [*args, "--hostname", "grader-sandbox", "--chdir", SCRATCH_DIR, "--remount-ro", "/", "--"]


def _below(path: str, folder: str) -> bool:
    """Whether ``path`` is ``folder`` or lies inside it."""
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _ancestors(paths: list[str]) -> list[str]:
    """Every folder above ``paths`` (not "/"), parents first."""
    found = {str(parent) for path in paths for parent in Path(path).parents if str(parent) != "/"}
    return sorted(found, key=lambda p: (p.count("/"), p))


def gpu_device_paths() -> list[str]:
    """NVIDIA's device nodes on this machine (the pin_memory checks on a GPU runner need them)."""
    return [*_GPU_DEVICES, *sorted(str(p) for p in Path("/dev").glob("nvidia[0-9]*")), "/dev/nvidia-caps"]


def _gpu_binds() -> list[str]:
    """NVIDIA's device nodes and sysfs, for the pin_memory checks on a GPU runner."""
    args: list[str] = []
    for device in gpu_device_paths()[:-1]:
        args += ["--dev-bind-try", device, device]
    return [*args, "--ro-bind-try", "/sys", "/sys", "--ro-bind-try", "/dev/nvidia-caps", "/dev/nvidia-caps"]
