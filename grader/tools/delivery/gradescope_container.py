"""A simulation of Gradescope's container: what the autograder meets there, reproduced here.

Used by ``python -m grader simulate gradescope`` (grader/tools/delivery/simulate_gradescope.py)
and by the suite (grader/tests/container.py adds the probe that measures it).

Gradescope runs ``/autograder/run_autograder`` as root in a Docker container.
What this reproduces, and how:

* the folder layout: ``/autograder/source`` (the unzipped autograder;
  read-only here), ``/autograder/submission`` (the upload, writable),
  ``/autograder/results`` (writable: results.json goes there), and whatever
  ``extra_ro_binds`` add (``/autograder/venv``...); a private ``/tmp`` and a
  64 MiB ``/dev/shm`` (Docker's default), the system folders and ``/etc`` and
  ``/sys`` read-only, the interpreter at its own path with every folder above
  it searchable by any uid (``/root`` is 0700 on this machine; on Gradescope
  the venv is world-readable), so that a private uid can run it too;
* its own PID namespace and mount namespace (bubblewrap: only those two; not
  the network, which Gradescope leaves open, and no user namespace);
* root (uid 0) with Docker's default capability set (:data:`DOCKER_CAPABILITIES`;
  no CAP_SYS_ADMIN) and the namespace rules of Docker's default seccomp
  profile (:mod:`grader.inside.seccomp`, policy "docker").  Inside bwrap, a
  launcher (:mod:`grader.tools.delivery.container_launch`) installs the filter while it
  still holds CAP_SYS_ADMIN, then executes ``setpriv`` to drop to Docker's
  set.  setpriv alone would not be Docker: without the filter, root without
  CAP_SYS_ADMIN still makes user namespaces (``bwrap --unshare-user`` works;
  test_container.py measures both).

Known differences from Docker, all measured: no_new_privs is set (bubblewrap
always sets it, Docker does not, so code that needs it must set it itself:
the simulation cannot catch a missing ``prctl``); the hostname, IPC and
cgroup namespaces are the host's; no AppArmor profile, no masked ``/proc``
paths; the rest of Docker's seccomp profile (keyctl, bpf, io_uring...) is not
reproduced; the launcher's two files stay visible, read-only, in
:data:`SIM_DIR`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from grader.paths import REPO
from grader.sandbox.jail import _system_binds, interpreter_paths

#: Docker's default capabilities (moby's oci/caps/defaults.go), as setpriv names them.
DOCKER_CAPABILITIES = ("chown", "dac_override", "fsetid", "fowner", "mknod", "net_raw", "setgid", "setuid", "setfcap",
                       "setpcap", "net_bind_service", "sys_chroot", "kill", "audit_write")
#: The same set as /proc/<pid>/status shows it (CapEff, CapPrm, CapBnd).
DOCKER_CAP_MASK = 0xA80425FB
AUTOGRADER = "/autograder"
SIM_DIR = "/run/container-sim"
SHM_SIZE = 64 << 20
CONTAINER_ENV = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root", "LANG": "C.UTF-8"}
_SIM_FILES = {"container_launch.py": Path(__file__).with_name("container_launch.py"),
              "seccomp.py": REPO / "grader" / "inside" / "seccomp.py"}


def available() -> str | None:
    """None when the simulation can run here (root, Linux, bwrap and setpriv installed), else why not."""
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        return "the container simulation needs root on Linux (as Gradescope's container runs)"
    missing = [tool for tool in ("bwrap", "setpriv") if shutil.which(tool) is None]
    return f"not installed: {', '.join(missing)}" if missing else None


def _searchable_dirs(paths: list[str]) -> list[str]:
    """``--perms 0755 --dir`` for every folder above ``paths`` (bwrap would make them 0700)."""
    above = sorted({str(p) for path in paths for p in Path(path).parents if str(p) != "/"}, key=lambda p: (p.count("/"), p))
    return [arg for folder in above for arg in ("--perms", "0755", "--dir", folder)]


def bwrap_argv(*, source, submission, results, extra_ro_binds=(), extra_rw_binds=()) -> list[str]:
    """The bubblewrap command line, up to and including ``--``, that builds the container's world.

    ``extra_ro_binds`` and ``extra_rw_binds``: host paths, or (host, inside) pairs, bound read-only or writable.
    """
    interpreter = interpreter_paths()
    args = [shutil.which("bwrap") or "bwrap", "--unshare-pid", "--die-with-parent", "--new-session",
            "--proc", "/proc", "--dev", "/dev", "--size", str(SHM_SIZE), "--tmpfs", "/dev/shm", "--tmpfs", "/tmp",
            "--chmod", "1777", "/tmp", "--chmod", "1777", "/dev/shm", *_system_binds(),
            "--ro-bind", "/etc", "/etc", "--ro-bind", "/sys", "/sys"]
    args += _searchable_dirs([*interpreter, f"{SIM_DIR}/x"])
    for path in interpreter:
        args += ["--ro-bind", path, path]
    for name, host in _SIM_FILES.items():
        args += ["--ro-bind", str(host), f"{SIM_DIR}/{name}"]
    args += ["--perms", "0755", "--dir", AUTOGRADER, "--ro-bind", str(source), f"{AUTOGRADER}/source",
             "--bind", str(submission), f"{AUTOGRADER}/submission", "--bind", str(results), f"{AUTOGRADER}/results"]
    for option, binds in (("--ro-bind", extra_ro_binds), ("--bind", extra_rw_binds)):
        for bind in binds:
            host, inside = (bind, bind) if isinstance(bind, (str, Path)) else bind
            args += [option, str(host), str(inside)]
    return [*args, "--chdir", AUTOGRADER, "--"]


def launcher_argv(policy: str | None = "docker") -> list[str]:
    """Inside bwrap: install ``policy`` (None: no filter, setpriv alone), drop to Docker's capabilities, then exec."""
    caps = ",".join(f"+{cap}" for cap in DOCKER_CAPABILITIES)
    return [sys.executable, "-I", "-S", f"{SIM_DIR}/container_launch.py", policy or "none", f"-all,{caps}",
            shutil.which("setpriv") or "setpriv", "--"]


def container_argv(argv, *, source, submission, results, extra_ro_binds=(), extra_rw_binds=(),
                   policy: str | None = "docker") -> list[str]:
    """The whole command line that runs ``argv`` as root in the simulated container (see :func:`bwrap_argv`)."""
    return [*bwrap_argv(source=source, submission=submission, results=results, extra_ro_binds=extra_ro_binds,
                        extra_rw_binds=extra_rw_binds), *launcher_argv(policy), *argv]


def run_in_container(argv, *, source, submission, results, extra_ro_binds=(), extra_rw_binds=(), env=None,
                     timeout: float = 120, policy: str | None = "docker") -> subprocess.CompletedProcess:
    """Run ``argv`` as root in the simulated container; its exit status and output (text).

    ``env`` replaces :data:`CONTAINER_ENV` (as a Docker image's ENV would).  Raises
    subprocess.TimeoutExpired past ``timeout`` seconds (everything inside dies with bwrap).
    """
    command = container_argv(argv, source=source, submission=submission, results=results, extra_ro_binds=extra_ro_binds,
                             extra_rw_binds=extra_rw_binds, policy=policy)
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                          env=dict(CONTAINER_ENV if env is None else env), stdin=subprocess.DEVNULL)
