"""What the probe child watches for: replaced functions and trace/profile/audit hooks.

Both detectors are built in the zygote (:func:`arm`), after torch, numpy and
the probe modules are imported and before any student code exists in any
process; a probe child inherits them by fork.

* **Replaced functions.**  For every name in :data:`WATCHED`, and every
  top-level function and class of the modules under
  :data:`WATCHED_MODULE_PREFIXES`, the detector keeps the module object it
  was found in and the object itself.  After a probe it resolves each name
  again from those module objects (module and class ``__dict__``s along the
  MRO, no descriptors, no ``sys.modules``) and reports the names that no
  longer give the same object.  Its own references live in a closure, so
  replacing this module's functions changes nothing.
* **Hooks.**  An audit hook, which cannot be removed once added, blocks
  ``sys.settrace``, ``sys.setprofile`` and ``sys.addaudithook`` in the zygote
  and every process forked from it, and records each attempt.  A profile
  hook could otherwise edit the data a probe returns (the row 5 attack of
  the jail issue).

Limits, stated plainly: student code runs in the same process as the probe.
It can still restore a patched function before the probe ends, reach the
probe's objects through frames or ``ctypes``, or write a forged result to
the result pipe.  The checks therefore decide from outside the child where
they can (the zygote measures memory; the grading process judges plain
data), and these detectors only make the common shortcuts visible.
"""

from __future__ import annotations

import builtins
import sys

#: Dotted names whose identity is checked around every probe.
WATCHED = (
    *(f"builtins.{n}" for n in (
        "print", "len", "isinstance", "issubclass", "sorted", "open", "range",
        "sum", "min", "max", "abs", "all", "any", "iter", "next", "zip", "map",
        "filter", "enumerate", "list", "dict", "tuple", "set", "str", "int",
        "float", "bool", "type", "repr", "hash", "id", "getattr", "setattr",
        "hasattr", "round", "__import__", "exec", "eval", "compile")),
    "torch.equal", "torch.allclose", "torch.Tensor.__eq__", "torch.Tensor.tolist",
    "torch.Tensor.numpy", "torch.Tensor.equal", "torch.manual_seed",
    "torch.initial_seed", "torch.utils.data.DataLoader",
    "torch.utils.data.get_worker_info",
    "numpy.array_equal", "numpy.ndarray.tolist", "numpy.random.seed",
    "numpy.random.random", "numpy.random.random_sample", "numpy.random.default_rng",
    "json.dumps", "pickle.dumps", "random.seed", "random.random",
)

#: Every function and class defined at the top level of these modules is watched too.
WATCHED_MODULE_PREFIXES = ("grader.inside.", "grader.shared.")

#: Audit events that are blocked (and recorded) once :func:`arm` has run.
BLOCKED_EVENTS = frozenset({"sys.settrace", "sys.setprofile", "sys.addaudithook"})


class Detector:
    """The armed detectors; one per zygote, inherited by every probe child."""

    def __init__(self, replaced, hook_attempts):
        self.replaced = replaced  # () -> [dotted name, ...]
        self.hook_attempts = hook_attempts  # () -> [event, ...], in order, without repeats


def arm() -> Detector:
    """Capture the watched objects and install the hook guard; call once, in the zygote."""
    _isinstance, _type, _getattr, _list = builtins.isinstance, builtins.type, builtins.getattr, builtins.list
    missing = object()

    def resolve(root, path):
        obj = root
        for attr in path:
            if _isinstance(obj, _type):
                for klass in obj.__mro__:
                    namespace = klass.__dict__
                    if attr in namespace:
                        obj = namespace[attr]
                        break
                else:
                    return missing
            else:
                namespace = _getattr(obj, "__dict__", None)
                obj = namespace.get(attr, missing) if _isinstance(namespace, dict) else missing
            if obj is missing:
                return missing
        return obj

    watched = []  # (dotted name, root module, attribute path, object)
    for name in WATCHED:
        parts = name.split(".")
        for split in range(len(parts), 0, -1):
            root = sys.modules.get(".".join(parts[:split]))
            if root is not None:
                obj = resolve(root, parts[split:])
                if obj is not missing:
                    watched.append((name, root, tuple(parts[split:]), obj))
                break
    for module_name, module in _list(sys.modules.items()):
        if module_name.startswith(WATCHED_MODULE_PREFIXES):
            for attr, obj in _list(vars(module).items()):
                if not attr.startswith("__") and (_isinstance(obj, _type) or callable(obj)):
                    watched.append((f"{module_name}.{attr}", module, (attr,), obj))
    watched = tuple(watched)

    def replaced():
        return [name for name, root, path, obj in watched if resolve(root, path) is not obj]

    attempts: list[str] = []
    blocked = BLOCKED_EVENTS
    append = attempts.append

    def guard(event, _args):
        if event in blocked:
            if event not in attempts:
                append(event)
            raise RuntimeError(f"{event} is not allowed while the grader runs your code")

    sys.addaudithook(guard)
    return Detector(replaced, lambda: _list(attempts))
