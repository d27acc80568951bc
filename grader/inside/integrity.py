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
  longer give the same object, unless torch itself put its lazy wrapper
  around it (:func:`_torch_wrapper_test`).  Its own references live in a closure, so
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


def _torch_wrapper_test(_getattr):
    """``wraps(now, obj)``: whether ``now`` is torch's own lazy wrapper around ``obj`` and nothing else.

    The first ``import torch._dynamo`` in a process (torch does it on first use of ``torch.compile``, of an
    optimizer's ``state_dict``, of its logging of an exception, ...) replaces ``torch.manual_seed`` by
    ``torch._disable_dynamo(torch.manual_seed)``: torch's doing, not the student's. Such a wrapper runs the code of
    torch's wrapper function, with the original in its ``fn`` cell; a function with other code, or torch's wrapper
    around another function, is a replacement.

    The wrapper calls what it finds in the original's ``__dynamo_disable`` attribute, which torch caches there on
    first call (``torch._dynamo.disable(original)``). So the original must carry nothing there, or torch's
    disable wrapper (the ``_fn`` that ``DisableContext.__call__`` makes) around the original itself: a student's
    function left there would run in the original's place.
    """
    torch = sys.modules.get("torch")
    disable = _getattr(torch, "_disable_dynamo", None)
    code = _getattr(disable(len), "__code__", None) if callable(disable) else None
    if code is None or "fn" not in code.co_freevars:
        return lambda now, obj: False

    def holds(function, code_ok, obj) -> bool:
        """Whether ``function`` runs code that ``code_ok`` accepts, with ``obj`` in its ``fn`` cell."""
        function_code = _getattr(function, "__code__", None)
        if function_code is None or not code_ok(function_code) or "fn" not in function_code.co_freevars:
            return False
        try:
            return function.__closure__[function_code.co_freevars.index("fn")].cell_contents is obj
        except (AttributeError, IndexError, TypeError, ValueError):
            return False

    def torchs_disable_code(candidate) -> bool:
        eval_frame = sys.modules.get("torch._dynamo.eval_frame")
        context = _getattr(eval_frame, "DisableContext", None)
        call = _getattr(context, "__dict__", {}).get("__call__")
        consts = _getattr(_getattr(call, "__code__", None), "co_consts", ())
        return any(candidate is const for const in consts if _getattr(const, "co_name", None) == "_fn")

    def wraps(now, obj) -> bool:
        if not holds(now, lambda candidate: candidate is code, obj):
            return False
        cached = _getattr(obj, "__dict__", {}).get("__dynamo_disable")
        return cached is None or holds(cached, torchs_disable_code, obj)

    return wraps


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
    torch_wraps = _torch_wrapper_test(_getattr)

    def replaced():
        return [name for name, root, path, obj in watched
                if (now := resolve(root, path)) is not obj and not torch_wraps(now, obj)]

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
