"""Constructs that have no place in an honest answer, found by an AST scan (for ``python -m grader review``).

An honest answer to the lab builds batches, samplers, seeds and datasets from
torch, numpy and the standard library; it never needs to look at the
interpreter's frames, write to a file descriptor by number, read ``/proc``,
load C functions, walk the garbage collector, install a trace or audit hook,
signal or leave the process, import the grader, or run code it decoded at
run time. Each use found is one :class:`Finding` (file, line, what, the
line's text). The scan reads the code, never runs it; names are followed
through ``import ... as`` and ``from ... import``, ``getattr`` with a literal
name, ``__import__`` and ``importlib.import_module`` with a literal module.
It informs a person (grader/docs/DESIGN.md, principle 8): code written to dodge it is
possible, and nothing here changes a score.
"""

from __future__ import annotations

import ast
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


@dataclass(frozen=True)
class Finding:
    file: str
    line: int
    construct: str
    code: str


class _Scanner(ast.NodeVisitor):
    def __init__(self, filename: str, lines: list[str]):
        self.filename, self.lines = filename, lines
        self.aliases: dict[str, str] = {}  # local name -> qualified name
        self.findings: list[Finding] = []

    def add(self, node: ast.AST, construct: str) -> None:
        line = getattr(node, "lineno", 0)
        code = self.lines[line - 1].strip()[:200] if 0 < line <= len(self.lines) else ""
        finding = Finding(self.filename, line, construct, code)
        if finding not in self.findings:
            self.findings.append(finding)

    def qualified(self, node: ast.AST) -> str:
        """The dotted name ``node`` refers to, imports followed ("" when it is not a plain name)."""
        if isinstance(node, ast.Name):
            return self.aliases.get(node.id, node.id)
        if isinstance(node, ast.Attribute):
            base = self.qualified(node.value)
            return f"{base}.{node.attr}" if base else ""
        if isinstance(node, ast.Call) and self.qualified(node.func) in ("__import__", "importlib.import_module"):
            if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                return node.args[0].value
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

    def visit_Call(self, node: ast.Call) -> None:
        func = self.qualified(node.func)
        if func == "getattr" and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant):
            attribute = node.args[1].value
            base = self.qualified(node.args[0])
            if isinstance(attribute, str):
                if attribute in FRAME_ATTRIBUTES:
                    self.add(node, "frame inspection")
                elif base:
                    self._name(node, f"{base}.{attribute}")
        elif func in ("__import__", "importlib.import_module") and node.args:
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
        value = node.value
        if isinstance(value, bytes):
            value = value.decode("latin-1")
        prefix = next((p for p in PATH_PREFIXES if isinstance(value, str) and value.startswith(p)), None)
        if prefix is not None:
            self.add(node, f"a {prefix} path")


def scan_source(source: bytes, filename: str) -> tuple[list[Finding], str]:
    """(findings, "") for the code ``source``, or ([], why it could not be read as Python)."""
    try:
        tree = ast.parse(source, filename=filename)
    except SyntaxError as exc:
        return [], f"{filename} is not valid Python (line {exc.lineno}: {exc.msg}): not scanned"
    except (ValueError, RecursionError, MemoryError) as exc:
        return [], f"{filename} could not be parsed ({type(exc).__name__}): not scanned"
    lines = source.decode("utf-8", "replace").splitlines()
    scanner = _Scanner(filename, lines)
    try:
        scanner.visit(tree)
    except RecursionError:
        return scanner.findings, f"{filename} is nested too deeply to scan to the end"
    return sorted(scanner.findings, key=lambda f: (f.line, f.construct)), ""
