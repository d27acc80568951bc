"""The environment's bytecode is compiled on the host when the jail would otherwise compile torch at every import."""

from __future__ import annotations

import importlib.util
import sys

from grader.sandbox import bytecode


def test_a_module_without_bytecode_is_compiled_once_and_then_left_alone(tmp_path, monkeypatch):
    (tmp_path / "lab_fake_pkg").mkdir()
    source = tmp_path / "lab_fake_pkg" / "__init__.py"
    source.write_text("VALUE = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(bytecode, "_site_packages", lambda: tmp_path)
    importlib.invalidate_caches()
    told = []

    assert bytecode.missing(("lab_fake_pkg", "no_such_module_here")) == ["lab_fake_pkg"]
    assert bytecode.ensure(say=told.append, modules=("lab_fake_pkg",)) is True
    assert told and "once" in told[0]
    assert (tmp_path / "lab_fake_pkg" / "__pycache__").is_dir()
    assert importlib.util.cache_from_source(str(source)).startswith(str(tmp_path))
    assert bytecode.missing(("lab_fake_pkg",)) == []
    assert bytecode.ensure(say=told.append, modules=("lab_fake_pkg",)) is False
    assert len(told) == 1


def test_an_environment_the_grader_cannot_write_is_left_alone(tmp_path, monkeypatch):
    (tmp_path / "lab_fake_ro").mkdir()
    (tmp_path / "lab_fake_ro" / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(bytecode, "_site_packages", lambda: tmp_path)
    monkeypatch.setattr(bytecode.os, "access", lambda path, mode: False)
    importlib.invalidate_caches()
    assert bytecode.ensure(modules=("lab_fake_ro",)) is False
    assert not (tmp_path / "lab_fake_ro" / "__pycache__").exists()
    assert "lab_fake_ro" not in sys.modules
