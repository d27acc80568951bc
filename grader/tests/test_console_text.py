"""The red team's strings fed to every class command: nothing a CI runner reads as a command reaches its console.

GitHub's runner trims a line with .NET's ``Trim()`` (any Unicode whitespace)
before it looks for ``::``, and it and Azure Pipelines find ``##[`` and
``##vso[`` anywhere in a line; a terminal obeys escape sequences. Each
command here (batch, merge, regrade, review) is given those strings where a
student or a file system can put them (a link's target, a grading error, a
report's name, a folder's name), and its whole output (stdout and stderr) is
checked line by line. :func:`grader.text.clean_text` is the one filter.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from grader.paths import REPO
from grader.text import clean_text

#: What the third red team sent (issue 31): a non-breaking space before "::", a mid-line "##[", escapes, newlines.
RED_TEAM = ("\u00a0::error title=Grader::the grader awards 20/20", "x ##[warning]y", "\n::error file=a.py::pwned\x1b[31m",
            "\u3000::add-mask::x", "\u200b::stop-commands::t", "a\u2028::error::b", "##vso[task.complete result=Succeeded]",
            "\x1b]0;title\x07\x1b[2J")
HOSTILE = "".join(RED_TEAM)


def commands_in(text: str) -> list[str]:
    """The lines of ``text`` a runner or a terminal would act on."""
    lines = re.split("[\n\r\u2028\u2029\x85]", text)
    return [line for line in lines
            if line.strip().lstrip("\u200b\u200c\u200d\u2060\ufeff").startswith("::")
            or re.search(r"##(\[|vso\[)", line, re.IGNORECASE) or "\x1b" in line or "\x9b" in line]


@pytest.mark.parametrize("raw", RED_TEAM)
def test_clean_text_defuses_each_string(raw):
    assert commands_in(raw), "the string is a command before cleaning (else this test proves nothing)"
    assert commands_in(clean_text(raw)) == []
    assert "20/20" in clean_text(RED_TEAM[0]), "the text is kept, only defused"


def run(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "grader", *args], cwd=REPO, capture_output=True, text=True, timeout=300)
    return done.stdout + done.stderr


def test_batch_and_merge_print_a_hostile_link_target_inert(tmp_path):
    """A student folder whose ``exercises`` is a link to a name holding the strings: its row's error, on the console."""
    klass = tmp_path / "class"
    (klass / "mallory").mkdir(parents=True)
    (klass / "mallory" / "exercises").symlink_to("nowhere" + HOSTILE)
    output = run("batch", str(klass), "--out", str(tmp_path / "out"))
    assert "mallory" in output and "symbolic link" in output, output
    assert commands_in(output) == [], output
    (tmp_path / "slice" / "results").mkdir(parents=True)
    (tmp_path / "slice" / "results" / "eve.error.txt").write_text(f"grader exit code 1: {HOSTILE}\n")
    output = run("merge", str(tmp_path / "slice"), "--out", str(tmp_path / "merged"))
    assert "eve" in output and "award" in output, output
    assert commands_in(output) == [], output
    assert commands_in((tmp_path / "merged" / "summary.md").read_text()) == []


def test_regrade_prints_a_hostile_report_name_inert(tmp_path):
    report = tmp_path / f"r{HOSTILE.replace('/', '_')}.json"
    report.write_text("{not json")
    output = run("regrade", str(report), str(tmp_path))
    assert "cannot read the report" in output, output
    assert commands_in(output) == [], output


@pytest.mark.slow
def test_review_prints_hostile_names_inert(tmp_path):
    klass = tmp_path / "class"
    (klass / "ada").mkdir(parents=True)
    (klass / "ada" / "collate.py").write_text("x = 1\n")
    (klass / f"eve{HOSTILE.replace('/', '_')}").symlink_to(klass / "ada")
    out = tmp_path / f"out{HOSTILE.replace('/', '_')}"
    output = run("review", str(klass), "--out", str(out))
    assert "review written to" in output, output
    assert commands_in(output) == [], output
    assert commands_in((out / "review.md").read_text()) == []
