"""The house's trust boundary, read from the code's own imports (every ``import`` statement, nested ones included).

* ``grader/inside/`` (what runs in the jail) imports only itself and ``grader/shared/``;
* ``grader/shared/`` imports only itself;
* the host side (``grader/sandbox/``) never imports ``grader/inside/``: what both need is shared;
* the engine is a library: it imports no writer, no command, no tool and not the front door;
* the instructor's tools are rooms by job (:data:`TOOL_ROOMS`): a room imports only the rooms listed for it,
  and no tool imports a command or the front door;
* ``grader/cli.py`` is the only module that finds the commands, and nothing but ``python -m grader`` imports it;
* an exercise is one folder, ``grader/exercises/<exercise>/`` (one per exercise of lab.toml, nothing else there):
  its ``probe.py`` imports of the grader only ``grader/inside/`` and ``grader/shared/``; its checks and helpers
  import neither the jail's code nor any writer, command or tool; no other room imports an exercise's folder;
* only ``grader/inside/``, ``grader/shared/`` and each exercise's ``probe.py`` are staged into the jail.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from grader.engine.runner import PROBE_MODULES
from grader.paths import REPO
from grader.registry import REGISTRY
from grader.sandbox.files import stage_modules
from grader.shared.common import PROBE_MODULE

GRADER = REPO / "grader"

#: room -> the grader packages its modules may not import
FORBIDDEN = {
    "grader.inside": ("grader.sandbox", "grader.engine", "grader.writers", "grader.commands", "grader.tools",
                      "grader.cli", "grader.registry", "grader.isolation", "grader.text", "grader.report_files",
                      "grader.paths"),
    "grader.shared": ("grader.inside", "grader.sandbox", "grader.engine", "grader.writers", "grader.commands",
                      "grader.tools", "grader.cli", "grader.registry", "grader.isolation", "grader.text",
                      "grader.report_files", "grader.paths"),
    "grader.sandbox": ("grader.inside", "grader.engine", "grader.writers", "grader.commands", "grader.tools"),
    "grader.engine": ("grader.inside", "grader.writers", "grader.commands", "grader.tools", "grader.cli"),
    "grader.writers": ("grader.commands", "grader.tools", "grader.sandbox", "grader.inside", "grader.cli"),
    "grader.commands": ("grader.cli",),
    # an exercise's checks and helpers; its probe.py is held to JAIL_ROOMS instead (it runs in the jail)
    "grader.exercises": ("grader.inside", "grader.writers", "grader.commands", "grader.tools", "grader.cli"),
}
for _room in ("grader.inside", "grader.shared", "grader.sandbox", "grader.engine", "grader.writers"):
    FORBIDDEN[_room] += ("grader.exercises",)  # exercises plug in by name and path, never by import
#: What of the grader an exercise's probe.py may import: the code that runs in the jail with it.
JAIL_ROOMS = ("grader.inside", "grader.shared")
#: room of grader/tools/ -> the other rooms it may import (a release refuses stale stubs; batch reads through the
#: intake; the documents' derived figures read the class workflow's slicing)
TOOL_ROOMS = {
    "authoring": ("class_grading",),
    "delivery": ("authoring",),
    "intake": (),
    "class_grading": ("intake",),
}
for _room, _allowed in TOOL_ROOMS.items():
    FORBIDDEN[f"grader.tools.{_room}"] = ("grader.commands", "grader.cli") + tuple(
        f"grader.tools.{other}" for other in TOOL_ROOMS if other != _room and other not in _allowed)


def imported_modules(path: Path, root: Path = REPO) -> list[tuple[int, str]]:
    """(line, module) for every import in ``path`` (a module below ``root``), relative ones resolved."""
    package = ".".join(path.relative_to(root).with_suffix("").parts[:-1])
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            found += [(node.lineno, base)] + [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return found


def _within(module: str, rooms: tuple[str, ...]) -> bool:
    return any(module == room or module.startswith(room + ".") for room in rooms)


def _is_probe(path: Path, root: Path) -> bool:
    return path.name == f"{PROBE_MODULE}.py" and path.parent.parent == root / "grader" / "exercises"


def crossings(room: str, forbidden: tuple[str, ...], root: Path = REPO) -> list[str]:
    folder = root / Path(*room.split("."))
    found = []
    for path in sorted(folder.rglob("*.py")):
        if "corpus" in path.relative_to(folder).parts:  # students' answers, not the grader's code
            continue
        for line, module in imported_modules(path, root):
            if _is_probe(path, root) and module.startswith("grader") and not _within(module, JAIL_ROOMS):
                found.append(f"{path.relative_to(root)}:{line} imports {module} (a probe runs in the jail)")
            elif not _is_probe(path, root) and _within(module, forbidden):
                found.append(f"{path.relative_to(root)}:{line} imports {module}")
    return found


@pytest.mark.parametrize("room", sorted(FORBIDDEN))
def test_no_import_crosses_the_boundary(room):
    assert not crossings(room, FORBIDDEN[room]), "\n".join(crossings(room, FORBIDDEN[room]))


def test_the_tools_are_rooms_and_every_room_is_listed():
    tools = GRADER / "tools"
    loose = sorted(p.name for p in tools.glob("*.py") if p.name != "__init__.py")
    rooms = sorted(p.name for p in tools.iterdir() if (p / "__init__.py").is_file())
    assert not loose, f"modules of grader/tools/ outside a room: {loose}; move each into the room of its job"
    assert rooms == sorted(TOOL_ROOMS), f"rooms {rooms} but test_house.TOOL_ROOMS lists {sorted(TOOL_ROOMS)}"
    for room in rooms:
        assert ast.get_docstring(ast.parse((tools / room / "__init__.py").read_text())), f"grader/tools/{room}/__init__.py says nothing"


def test_only_python_m_grader_imports_the_front_door():
    importers = [f"{path.relative_to(REPO)}:{line}" for path in sorted(GRADER.rglob("*.py"))
                 if not {"tests", "corpus"} & set(path.relative_to(GRADER).parts) and path.name != "__main__.py"
                 for line, module in imported_modules(path) if module == "grader.cli" or module.startswith("grader.cli.")]
    assert not importers, f"only grader/__main__.py may import grader.cli: {importers}"


def test_the_check_would_see_a_crossing(tmp_path):
    bad = tmp_path / "grader" / "inside" / "_house_probe.py"
    bad.parent.mkdir(parents=True)
    bad.write_text("def f():\n    from grader.sandbox.host import Sandbox\n    from ..sandbox import jail\n    return Sandbox, jail\n")
    assert crossings("grader.inside", FORBIDDEN["grader.inside"], tmp_path) == [
        "grader/inside/_house_probe.py:2 imports grader.sandbox.host",
        "grader/inside/_house_probe.py:2 imports grader.sandbox.host.Sandbox",
        "grader/inside/_house_probe.py:3 imports grader.sandbox",
        "grader/inside/_house_probe.py:3 imports grader.sandbox.jail"]


def test_every_exercise_is_one_folder_and_every_folder_an_exercise():
    folders = sorted(p.name for p in (GRADER / "exercises").iterdir() if p.is_dir() and p.name != "__pycache__")
    assert folders == sorted(e.name for e in REGISTRY), (
        f"grader/exercises/ holds {folders}, lab.toml lists {[e.name for e in REGISTRY]}: one folder per exercise")
    for entry in REGISTRY:
        assert (REPO / entry.folder / f"{PROBE_MODULE}.py").is_file() and (REPO / entry.checks).is_file(), entry.folder


def test_the_check_would_see_a_probe_that_imports_the_host_side(tmp_path):
    folder = tmp_path / "grader" / "exercises" / "toy"
    folder.mkdir(parents=True)
    (folder / "probe.py").write_text("from grader.engine.checking import show\nfrom grader.inside.probes.common import plain\n")
    (folder / "check_toy.py").write_text("from grader.engine.checking import show\nfrom grader.inside import child\n")
    assert crossings("grader.exercises", FORBIDDEN["grader.exercises"], tmp_path) == [
        "grader/exercises/toy/check_toy.py:2 imports grader.inside",
        "grader/exercises/toy/check_toy.py:2 imports grader.inside.child",
        "grader/exercises/toy/probe.py:1 imports grader.engine.checking (a probe runs in the jail)",
        "grader/exercises/toy/probe.py:1 imports grader.engine.checking.show (a probe runs in the jail)"]


def test_only_the_inside_and_shared_packages_and_the_probes_are_staged(tmp_path):
    stage_modules(("grader.inside.zygote", "grader.shared.common", *PROBE_MODULES), tmp_path)
    staged = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*.py"))
    probes = {f"grader/exercises/{e.name}/{PROBE_MODULE}.py" for e in REGISTRY}
    inits = {"grader/__init__.py", "grader/exercises/__init__.py"} | {f"grader/exercises/{e.name}/__init__.py" for e in REGISTRY}
    outside = [p for p in staged if not p.startswith(("grader/inside/", "grader/shared/")) and p not in probes | inits]
    assert not outside, f"staged into the jail but not inside code: {outside}"
    assert "grader/inside/zygote.py" in staged and probes <= set(staged)
    for init in inits:  # staged, so they must not import anything
        assert not imported_modules(REPO / init), f"{init} imports something, and it enters the jail"


def test_a_command_that_does_not_import_is_an_error_not_a_missing_command(monkeypatch):
    from grader import cli

    monkeypatch.setitem(cli.INSTRUCTOR_COMMANDS, "broken", "grader.commands.no_such_module")
    with pytest.raises(ModuleNotFoundError, match="grader.commands.no_such_module"):
        cli.build_parser()


def test_a_command_error_is_exit_2_with_the_command_named(capsys):
    from grader import cli

    assert cli.main(["batch", "--out", "nowhere", "--jobs", "0"]) == 2
    assert capsys.readouterr().err.strip() == "python -m grader batch: error: --jobs must be at least 1"


def test_every_command_module_has_the_front_end_shape():
    import importlib

    from grader import cli

    for name, module_name in cli.commands().items():
        module = importlib.import_module(module_name)
        assert isinstance(module.HELP, str) and callable(module.add_arguments) and callable(module.run), name
