"""How the host starts the zygote: its command line, its environment, and the configuration it is sent first.

The configuration names the folders as the zygote sees them (inside a jail,
the jail's own paths), the probes' limits and uid, and the Landlock rules:
what the processes that run student code may read, execute and write.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from grader.sandbox import identity
from grader.sandbox import jail as jail_module
from grader.shared.messages import Limits, ZygoteConfig

#: The most a probe may leave in its scratch folders and /dev/shm: the jail's own tmpfs caps (256 MB of
#: scratch and 256 MB of /dev/shm), measured by the zygote where there is no jail (grader.inside.quota).
WRITE_QUOTA_MB = 512

#: The probes' whole environment; the zygote adds HOME and TMPDIR (the probe's scratch).
PROBE_ENV = {"LANG": "C.UTF-8", "USER": "sandbox", "LOGNAME": "sandbox", "PYTHONHASHSEED": "0",
             "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "PYTHONDONTWRITEBYTECODE": "1",
             "PYTHONNOUSERSITE": "1"}

BOOT = ("import sys; sys.path.insert(0, sys.argv[1]); "
         "from grader.inside.zygote import main; main(int(sys.argv[2]), int(sys.argv[3]))")


def zygote_paths(*, jailed: bool, root: Path, lib_dir: Path, code_dir: Path) -> dict[str, str]:
    """The zygote's folders as it sees them: inside a jail, the jail's own paths."""
    if jailed:
        return dict(lib_dir=jail_module.LIB_DIR, code_dir=jail_module.CODE_DIR, scratch_root=jail_module.SCRATCH_DIR,
                    capture_dir=jail_module.CAPTURE_DIR)
    return dict(lib_dir=str(lib_dir), code_dir=str(code_dir), scratch_root=str(root / "scratch"),
                capture_dir=str(root / "capture"))


def zygote_config(paths: dict[str, str], *, preload: tuple[str, ...], probe_modules: tuple[str, ...], limits: Limits,
                  uid: int | None, kernel_layers: bool, gpu: bool) -> ZygoteConfig:
    """What the zygote is told when it starts: its folders, its limits, its environment, the probes' uid and rules."""
    bin_dir = os.path.dirname(sys.executable)
    env = dict(PROBE_ENV, PATH=f"{bin_dir}:/usr/local/bin:/usr/bin:/bin")
    return ZygoteConfig(**paths, preload=list(preload), probe_modules=list(probe_modules), limits=limits, env=env,
                        uid=uid, gid=None if uid is None else identity.NOGROUP, kernel_layers=kernel_layers,
                        **landlock_rules(paths, gpu), write_quota_mb=WRITE_QUOTA_MB)


def landlock_rules(paths: dict[str, str], gpu: bool) -> dict[str, list[str]]:
    """What the processes that run student code may touch, as the zygote sees the paths: read and execute
    the system, the interpreter, the staged probes and the submission; read /proc and the random devices;
    write only the scratch folders, /dev/shm (DataLoader workers share tensors there) and /dev/null."""
    system = [path for path in jail_module.SYSTEM_PATHS if os.path.exists(path)]
    devices = jail_module.gpu_device_paths() if gpu else []
    return {"read_exec": [*system, *jail_module.interpreter_paths(), paths["lib_dir"], paths["code_dir"]],
            "read_only": [*jail_module.LOADER_FILES, "/proc", "/dev/urandom", "/dev/random",
                          *(["/sys"] if gpu else [])],
            "read_write": [paths["scratch_root"], paths["capture_dir"], "/dev/shm", "/dev/null", *devices]}


def zygote_argv(cfg: ZygoteConfig, req_r: int, resp_w: int, *, token: str, jailed: bool, lib_dir: Path,
                code_dir: Path, gpu: bool) -> list[str]:
    """The zygote's command line (``token`` marks it), inside bubblewrap when ``jailed``."""
    zygote = [sys.executable, "-I", "-B", "-c", BOOT, cfg.lib_dir, str(req_r), str(resp_w), f"--grader-sandbox={token}"]
    if not jailed:
        return zygote
    return [*jail_module.command(lib_dir, code_dir, gpu=gpu), *zygote]
