"""Constructs that have no place in an honest answer, found by an AST scan (for ``python -m grader review``).

An honest answer to the lab builds batches, samplers, seeds and datasets from
torch, numpy and the standard library; it never needs to look at the
interpreter's frames, write to a file descriptor by number, read ``/proc``,
load C functions, walk the garbage collector, install a trace or audit hook,
signal or leave the process, import the grader, or run code it decoded at
run time. Each use found is one :class:`Finding` (file, line, what, the
line's text). The scan reads the code, never runs it; names are followed
through ``import ... as`` and ``from ... import``, ``getattr``, ``vars(m)[...]``
and ``m.__dict__[...]``, ``__import__`` and ``importlib.import_module``.

Names built from string constants are folded before they are matched
(:func:`constant_text`: ``+``, ``%`` and ``str.join`` of constants, f-strings
of constants, ``bytes.fromhex``, ``base64``/``binascii`` decoding and
``.decode()`` of constants), and a lookup by such a built name (``getattr``,
``vars()``, ``__dict__``, ``import_module``, ``__import__``) is a finding of
its own: an honest answer spells its names. What it still cannot see: names
that depend on a value known only at run time (a variable, an argument, a
file, the clock, a loop), strings built by ``*``, slicing, ``chr``, ``ord``
or ``reversed``, attributes reached through ``operator.attrgetter``,
``object.__getattribute__`` or a class's ``__getattr__``, and code the
submission loads from elsewhere. It informs a person (grader/docs/DESIGN.md,
principle 8): code written to dodge it is possible, and nothing here changes a score.

The scan is linear in the file: findings are a set, at most
:data:`MAX_PER_CONSTRUCT` per construct and file are listed (the rest are
counted), and a scan past its ``deadline`` stops where it is and says so.
"""

from __future__ import annotations

import ast
import base64
import binascii
import time
from dataclasses import dataclass

#: Fully qualified callables and attributes -> what they are.
QUALIFIED = {
    **dict.fromkeys(("sys._getframe", "sys._current_frames", "inspect.currentframe", "inspect.stack",
                     "inspect.getouterframes", "inspect.getinnerframes", "inspect.trace", "traceback.walk_stack",
                     "traceback.extract_stack"), "frame inspection"),
    **dict.fromkeys(("os.write", "os.writev", "os.pwrite", "os.pwritev", "os.sendfile", "os.dup", "os.dup2",
                     "os.fdopen", "os.openpty", "os.set_inheritable"), "file-descriptor I/O"),
    **dict.fromkeys(("gc.get_objects", "gc.get_referrers", "gc.get_referents"), "garbage-collector walk"),
    **dict.fromkeys(("sys.settrace", "sys.setprofile", "threading.settrace", "threading.setprofile",
                     "threading.settrace_all_threads", "threading.setprofile_all_threads", "sys.addaudithook",
                     "sys.monitoring", "sys.remote_exec"), "trace, profile or audit hook"),
    **dict.fromkeys(("os.kill", "os.killpg", "os._exit", "os.fork", "os.forkpty", "os.setsid", "os.abort",
                     "signal.pthread_kill", "signal.raise_signal"), "process control (signals, exits, forks)"),
}
#: Modules whose import alone is the finding.
MODULES = {"ctypes": "ctypes (C functions and raw memory)", "_ctypes": "ctypes (C functions and raw memory)",
           "cffi": "ctypes (C functions and raw memory)", "grader": "imports the grader's own code"}
#: Attributes of frames, tracebacks, generators and coroutines: a frame walk whatever the object is called.
FRAME_ATTRIBUTES = {"f_back", "f_locals", "f_globals", "f_builtins", "tb_frame", "gi_frame", "cr_frame", "ag_frame"}
#: Calls whose result is text decoded at run time.
DECODERS = {"base64.b64decode", "base64.b32decode", "base64.b16decode", "base64.b85decode", "base64.a85decode",
            "base64.decodebytes", "base64.urlsafe_b64decode", "codecs.decode", "binascii.unhexlify",
            "binascii.a2b_base64", "binascii.a2b_hex", "zlib.decompress", "bz2.decompress", "lzma.decompress",
            "gzip.decompress", "marshal.loads", "bytes.fromhex", "bytearray.fromhex"}
RUNNERS = {"exec", "eval", "compile", "builtins.exec", "builtins.eval", "builtins.compile"}
#: String contents that name what the constructs above reach.
PATH_PREFIXES = ("/proc", "/dev/fd", "/dev/mem", "/dev/kmem")
#: What the scan cannot see, in one sentence (review.md says it under the constructs).
BLIND_SPOTS = ("The scan reads the code and folds names built from string constants (+, %, join, f-strings, "
               "bytes.fromhex, base64); it cannot see names that depend on run-time values (variables, arguments, "
               "files, loops), strings built by *, slicing, chr or reversed, attributes reached through "
               "operator.attrgetter, object.__getattribute__ or __getattr__, or code loaded from elsewhere.")
#: Lookups by name: a name for them built from pieces is a finding of its own.
LOOKUPS = {"getattr", "vars", "__import__", "importlib.import_module", "builtins.getattr", "builtins.vars",
           "builtins.__import__"}
BUILT_NAME = "a name built from string pieces (getattr, vars, __dict__ or an import)"
#: The most findings listed per construct and file; the rest are counted (see :func:`scan_source`).
MAX_PER_CONSTRUCT = 20
#: Folded text longer than this is not followed (no name or path is that long).
MAX_FOLDED = 4096
#: Nodes visited between two looks at the clock.
CLOCK_EVERY = 2048
_FOLD_DECODERS = {"bytes.fromhex": lambda b: bytes.fromhex(b.decode("latin-1")),
                  "bytearray.fromhex": lambda b: bytes.fromhex(b.decode("latin-1")), "base64.b64decode": base64.b64decode,
                  "base64.b32decode": base64.b32decode, "base64.b16decode": base64.b16decode,
                  "base64.b85decode": base64.b85decode, "base64.urlsafe_b64decode": base64.urlsafe_b64decode,
                  "base64.decodebytes": base64.decodebytes, "binascii.unhexlify": binascii.unhexlify,
                  "binascii.a2b_hex": binascii.a2b_hex, "binascii.a2b_base64": binascii.a2b_base64}


@dataclass(frozen=True)
class Finding:
    file: str
    line: int
    construct: str
    code: str


class OverBudget(Exception):
    """The scan ran past its deadline."""


class _Scanner(ast.NodeVisitor):
    def __init__(self, filename: str, lines: list[str], deadline: float | None = None):
        self.filename, self.lines, self.deadline = filename, lines, deadline
        self.aliases: dict[str, str] = {}  # local name -> qualified name
        self.findings: dict[Finding, None] = {}  # a set that keeps the order found
        self.per_construct: dict[str, int] = {}  # construct -> uses found (listed or not)
        self.folded: dict[int, str | None] = {}  # id(node) -> its constant text (memo: the scan stays linear)
        self.visited = 0
        self.line = 0  # the last line reached

    def visit(self, node: ast.AST):
        self.visited += 1
        self.line = getattr(node, "lineno", self.line)
        if self.deadline is not None and self.visited % CLOCK_EVERY == 0 and time.monotonic() > self.deadline:
            raise OverBudget
        return super().visit(node)

    def add(self, node: ast.AST, construct: str) -> None:
        line = getattr(node, "lineno", 0)
        code = self.lines[line - 1].strip()[:200] if 0 < line <= len(self.lines) else ""
        finding = Finding(self.filename, line, construct, code)
        if finding in self.findings:
            return
        self.per_construct[construct] = self.per_construct.get(construct, 0) + 1
        if self.per_construct[construct] <= MAX_PER_CONSTRUCT:
            self.findings[finding] = None

    def unlisted(self) -> dict[str, int]:
        """{construct: uses found beyond the first MAX_PER_CONSTRUCT}."""
        return {c: n - MAX_PER_CONSTRUCT for c, n in self.per_construct.items() if n > MAX_PER_CONSTRUCT}

    def text(self, node: ast.AST | None) -> str | None:
        """The constant text ``node`` evaluates to, when it is built from constants only (see :func:`constant_text`)."""
        if node is None:
            return None
        key = id(node)
        if key not in self.folded:
            self.folded[key] = None  # a cycle cannot happen in a tree, but a half-done fold must not recurse
            self.folded[key] = self._fold(node)
        return self.folded[key]

    def _fold(self, node: ast.AST) -> str | None:
        if isinstance(node, ast.Constant):
            value = node.value
            return value if isinstance(value, str) else value.decode("latin-1") if isinstance(value, bytes) else None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and isinstance(node.right, ast.Tuple):
            left, right = self.text(node.left), [self.text(item) for item in node.right.elts]
            if left is None or None in right:
                return None
            try:
                return _short(left % tuple(right))
            except (TypeError, ValueError):
                return None
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
            left, right = self.text(node.left), self.text(node.right)
            if left is None or right is None:
                return None
            if isinstance(node.op, ast.Add):
                return _short(left + right)
            try:
                return _short(left % right)
            except (TypeError, ValueError):
                return None
        if isinstance(node, ast.JoinedStr):
            parts = []
            for value in node.values:
                inner = value.value if isinstance(value, ast.FormattedValue) else value
                if isinstance(value, ast.FormattedValue) and value.format_spec is not None:
                    return None
                part = self.text(inner)
                if part is None:
                    return None
                parts.append(part)
            return _short("".join(parts))
        if isinstance(node, ast.Call) and not node.keywords:
            return self._fold_call(node)
        return None

    def _fold_call(self, node: ast.Call) -> str | None:
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "join" and len(node.args) == 1:
            separator = self.text(func.value)
            items = node.args[0]
            if separator is not None and isinstance(items, (ast.List, ast.Tuple)):
                parts = [self.text(item) for item in items.elts]
                return None if None in parts else _short(separator.join(parts))
            return None
        if isinstance(func, ast.Attribute) and func.attr == "decode" and not node.args:
            return self.text(func.value)
        if isinstance(func, ast.Name) and func.id == "str" and len(node.args) == 1:
            return self.text(node.args[0])
        decoder = _FOLD_DECODERS.get(self.qualified(func))
        if decoder is not None and len(node.args) == 1:
            encoded = self.text(node.args[0])
            if encoded is None:
                return None
            try:
                return _short(decoder(encoded.encode("latin-1")).decode("latin-1"))
            except (ValueError, TypeError, binascii.Error):
                return None
        return None

    def qualified(self, node: ast.AST) -> str:
        """The dotted name ``node`` refers to, imports and constant names followed ("" when it is not a plain name)."""
        if isinstance(node, ast.Name):
            return self.aliases.get(node.id, node.id)
        if isinstance(node, ast.Attribute):
            base = self.qualified(node.value)
            return f"{base}.{node.attr}" if base else ""
        if isinstance(node, ast.Call) and self.qualified(node.func) in ("__import__", "importlib.import_module",
                                                                          "builtins.__import__"):
            return (self.text(node.args[0]) or "") if node.args else ""
        if isinstance(node, ast.Call) and self.qualified(node.func) in ("getattr", "builtins.getattr") and len(node.args) >= 2:
            base, attribute = self.qualified(node.args[0]), self.text(node.args[1])
            return f"{base}.{attribute}" if base and attribute else ""
        if isinstance(node, ast.Subscript):  # vars(m)["name"], m.__dict__["name"]
            key, holder = self.text(node.slice), _namespace_of(node.value)
            base = self.qualified(holder) if holder is not None else ""
            return f"{base}.{key}" if base and key else ""
        return ""

    def _module(self, node: ast.AST, name: str) -> None:
        top = name.split(".")[0]
        if top in MODULES:
            self.add(node, MODULES[top])

    def _name(self, node: ast.AST, name: str) -> None:
        for known, construct in QUALIFIED.items():
            if name == known or name.startswith(known + "."):
                self.add(node, construct)
                return

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._module(node, alias.name)
            self.aliases[(alias.asname or alias.name).split(".")[0]] = alias.name if alias.asname else alias.name.split(".")[0]

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        if node.level == 0:
            self._module(node, module)
        for alias in node.names:
            full = f"{module}.{alias.name}" if module else alias.name
            self.aliases[alias.asname or alias.name] = full
            self._name(node, full)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in FRAME_ATTRIBUTES:
            self.add(node, "frame inspection")
        name = self.qualified(node)
        if name:
            self._name(node, name)
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if node.id in self.aliases:
            self._name(node, self.aliases[node.id])

    def visit_Subscript(self, node: ast.Subscript) -> None:
        holder = _namespace_of(node.value)
        if holder is not None and not _plain(node.slice) and self.text(node.slice) is not None:
            self.add(node, BUILT_NAME)
        name = self.qualified(node)
        if name:
            self._name(node, name)
        self.generic_visit(node)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        self._path(node, self.text(node))
        self.generic_visit(node)

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        self._path(node, self.text(node))
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = self.qualified(node.func)
        if func in LOOKUPS:
            argument = node.args[1] if func.endswith("getattr") and len(node.args) >= 2 else node.args[0] if node.args else None
            if argument is not None and not _plain(argument) and self.text(argument) is not None:
                self.add(node, BUILT_NAME)
        self._path(node, self.text(node))
        if func in ("getattr", "builtins.getattr") and len(node.args) >= 2:
            attribute = self.text(node.args[1])
            name = self.qualified(node)
            if attribute in FRAME_ATTRIBUTES:
                self.add(node, "frame inspection")
            elif name:
                self._name(node, name)
        elif func in ("__import__", "importlib.import_module", "builtins.__import__") and node.args:
            module = self.qualified(node)
            if module:
                self._module(node, module)
        elif func in RUNNERS:
            decoded = any(self.qualified(sub.func) in DECODERS or (isinstance(sub.func, ast.Attribute) and sub.func.attr == "decode")
                          for arg in node.args for sub in ast.walk(arg) if isinstance(sub, ast.Call))
            runner = func.split(".")[-1]
            self.add(node, f"{runner}() of text decoded at run time" if decoded else f"{runner}() of code built at run time")
        elif func == "open" and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, int):
            self.add(node, "file-descriptor I/O")
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        self._path(node, self.text(node))

    def _path(self, node: ast.AST, value: str | None) -> None:
        prefix = next((p for p in PATH_PREFIXES if value is not None and value.startswith(p)), None)
        if prefix is not None:
            self.add(node, f"a {prefix} path")


def _short(text: str) -> str | None:
    return text if len(text) <= MAX_FOLDED else None


def _plain(node: ast.AST) -> bool:
    """Whether ``node`` is a literal string as written (not built)."""
    return isinstance(node, ast.Constant)


def _namespace_of(node: ast.AST) -> ast.AST | None:
    """X when ``node`` is ``vars(X)`` or ``X.__dict__`` (a module's or object's namespace), else None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "vars" and len(node.args) == 1:
        return node.args[0]
    if isinstance(node, ast.Attribute) and node.attr == "__dict__":
        return node.value
    return None


def constant_text(source: str) -> str | None:
    """The text the expression ``source`` evaluates to when it is built from string constants only, else None
    (``constant_text('"_get" + "frame"')`` is ``"_getframe"``)."""
    tree = ast.parse(source, mode="eval")
    scanner = _Scanner("<expression>", [])
    for node in ast.walk(tree):  # the imports a decoder needs are taken as written
        if isinstance(node, ast.Name):
            scanner.aliases.setdefault(node.id, node.id)
    return scanner.text(tree.body)


def scan_source(source: bytes, filename: str, deadline: float | None = None) -> tuple[list[Finding], str]:
    """(findings, "") for the code ``source``, or (what was found, why the scan is incomplete or did not run).

    At most :data:`MAX_PER_CONSTRUCT` findings per construct are listed; the note counts the rest. Past
    ``deadline`` (``time.monotonic()``) the scan stops, and the note says where.
    """
    try:
        tree = ast.parse(source, filename=filename)
    except SyntaxError as exc:
        return [], f"{filename} is not valid Python (line {exc.lineno}: {exc.msg}): not scanned"
    except (ValueError, RecursionError, MemoryError) as exc:
        return [], f"{filename} could not be parsed ({type(exc).__name__}): not scanned"
    lines = source.decode("utf-8", "replace").splitlines()
    scanner = _Scanner(filename, lines, deadline)
    note = ""
    try:
        if deadline is not None and time.monotonic() > deadline:
            raise OverBudget
        scanner.visit(tree)
    except RecursionError:
        note = f"{filename} is nested too deeply to scan to the end"
    except OverBudget:
        note = f"{filename}: over the time budget, scanned to line {scanner.line} of {len(lines)}"
    more = scanner.unlisted()
    if more:
        counted = ", ".join(f"{n} more {c}" for c, n in sorted(more.items()))
        note = "; ".join(filter(None, [note, f"{filename}: {MAX_PER_CONSTRUCT} listed per construct, {counted} not listed"]))
    return sorted(scanner.findings, key=lambda f: (f.line, f.construct)), note
