"""The kernel's layers over everything that runs student code: Landlock and seccomp, applied in the zygote.

Runs inside the zygote (in the jail, or alone where bubblewrap cannot make
namespaces), once, after the preloads and before it forks the shared
forkserver or any probe child: every process that can ever run student code
(probe children, the forkserver and DataLoader workers of every start
method) descends from it and stays in the same Landlock domain and under
the same seccomp filter. See :mod:`grader.isolation` for what each layer
means for a report, :mod:`grader.inside.landlock` and
:mod:`grader.inside.seccomp` for what each refuses.

No tighter rules per probe: a probe scoped for signals on its own could no
longer stop DataLoader workers that the shared forkserver (a sibling) forked
for it (``terminate()`` gets EPERM), and probes run one at a time anyway.
"""

from __future__ import annotations

from grader.inside import landlock, seccomp
from grader.shared.messages import ZygoteConfig

#: What the "sandbox" policy refuses, in one phrase (the rules themselves: seccomp.rule_names("sandbox")).
SECCOMP_SUMMARY = ("sockets other than AF_UNIX, io_uring, ptrace and process_vm, kexec, bpf, perf_event_open, kernel keys, "
                   "mounts, namespaces, System V IPC and POSIX message queues refused; clone3 answers ENOSYS")


def apply(cfg: ZygoteConfig) -> tuple[dict[str, str], dict[str, str]]:
    """Apply the layers ``cfg`` asks for; ({layer: what it applied}, {layer: why it did not hold})."""
    if not cfg.kernel_layers:
        off = "the kernel's layers were turned off (--layers off)"
        return {}, {"landlock": off, "seccomp": off}
    held, missing = {}, {}
    fs = landlock.restrict(cfg.read_exec, cfg.read_only, cfg.read_write, deny_tcp=True, scope=True)
    if fs.applied:
        held["landlock"] = _landlock_text(fs)
    else:
        missing["landlock"] = fs.reason
    calls = seccomp.install("sandbox")
    if calls.applied:
        held["seccomp"] = f"{calls.reason}: {SECCOMP_SUMMARY}"
    else:
        missing["seccomp"] = calls.reason
    return held, missing


def _landlock_text(status: landlock.Status) -> str:
    """What Landlock applied, in words: the ABI, the file rules, TCP and the scopes."""
    parts = [f"ABI {status.abi}: file rules ({len(status.fs_rights)} rights handled)"]
    parts.append("TCP bind and connect refused" if status.net else "no TCP rules (ABI below 4)")
    parts.append(f"scoped: {', '.join(status.scopes)}" if status.scopes else "no scoping (ABI below 6)")
    return "; ".join(parts)
