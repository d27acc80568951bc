"""How a grading's student code was isolated: the layers that held and the level they make (one definition).

Layers, each recorded with a short description of what it applied when it held:

* ``namespaces``: bubblewrap's mount, PID, network, IPC and UTS namespaces; a
  file system of the interpreter, the staged probes and the submission only;
* ``uid``: probe children (and DataLoader workers) run under a uid of their own, without capabilities;
* ``landlock``: the kernel's Landlock: file system rules (read the interpreter,
  the probes and the submission; write private scratch), and where its ABI
  allows, TCP bind and connect refused and signals and abstract sockets scoped;
* ``seccomp``: a seccomp filter: sockets other than AF_UNIX, io_uring, ptrace,
  namespaces, mounts, BPF, kernel keys, System V IPC and POSIX message queues refused.

Rlimits, wall timeouts, bounded output and the kill of every descendant after
each probe apply at every level.

Levels, strongest first (:data:`LEVELS`):

* ``jail``: the namespaces held (the other layers are added on top, as defence in depth);
* ``contained``: no namespaces, but Landlock's file rules and the seccomp filter both held;
* ``weak``: anything less (limits, timeouts and the process-tree kill; a private uid where the grader may switch).
"""

from __future__ import annotations

from dataclasses import dataclass, field

LEVELS = ("jail", "contained", "weak")
LAYERS = ("namespaces", "uid", "landlock", "seccomp")
#: What each level lets a probe do, in one phrase (reports and the README say it).
LEVEL_MEANINGS = {
    "jail": "a jail of its own: no other file, process or network",
    "contained": "no namespaces, but file, network and signal rules of the kernel (Landlock, seccomp)",
    "weak": "limits and timeouts only: the machine's world-readable files and network stay reachable",
}


#: Said of every grading without namespaces: what a probe sees of the grader in /proc (a private /proc with hidepid
#: needs a mount namespace, which those hosts refuse; the seed of record goes by pipe, never a command line).
PROC_SHARED = ("/proc shared with the grader (no PID namespace): a probe can list the grader's processes and read their "
               "command lines, which hold no secret")


def level_of(layers: dict[str, str]) -> str:
    """The level that the layers which held (``{layer: description}``) make."""
    if "namespaces" in layers:
        return "jail"
    if "landlock" in layers and "seccomp" in layers:
        return "contained"
    return "weak"


def meets(level: str, minimum: str) -> bool:
    """Whether ``level`` is ``minimum`` or stronger."""
    check_level(level)
    check_level(minimum)
    return LEVELS.index(level) <= LEVELS.index(minimum)


def check_level(level: str) -> str:
    """``level`` if it is one of :data:`LEVELS`; ValueError naming them otherwise."""
    if level not in LEVELS:
        raise ValueError(f"isolation level must be one of {', '.join(LEVELS)}, not {level!r}")
    return level


@dataclass(frozen=True)
class Isolation:
    """The isolation of one grading: its level, why (in words), and each layer that held."""

    level: str
    reason: str
    layers: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        check_level(self.level)
        unknown = set(self.layers) - set(LAYERS)
        if unknown:
            raise ValueError(f"unknown isolation layers {sorted(unknown)}; expected some of {', '.join(LAYERS)}")

    @classmethod
    def from_layers(cls, layers: dict[str, str], missing: dict[str, str]) -> "Isolation":
        """The isolation that ``layers`` make; ``missing`` says why each absent layer did not hold."""
        held = [f"{name}: {layers[name]}" for name in LAYERS if name in layers]
        absent = [f"no {name}: {missing[name]}" for name in LAYERS if name in missing and name not in layers]
        if "namespaces" not in layers:
            absent.append(PROC_SHARED)
        return cls(level_of(layers), "; ".join(held + absent), dict(layers))

    def to_dict(self) -> dict:
        return {"level": self.level, "reason": self.reason, "layers": dict(self.layers)}

    @classmethod
    def from_dict(cls, data: dict) -> "Isolation":
        return cls(data["level"], data["reason"], dict(data.get("layers", {})))
