"""Tests of grader.engine.results and grader.writers.

Each writer is checked against what its *consumer* accepts, not against
itself: Gradescope's ``results.json`` against a schema written from the
"Autograder Specifications" (grader/tests/schemas/), JUnit XML by parsing it
and checking the common JUnit schema rules by hand, Markdown by counting
table columns and code fences, CSV by reading it back. Classroom 50's
result has its own tests (test_hosts.py, through the bundle it runs in). A perfect submission on a
runner without a GPU must look perfect in every one of them.

Golden files
------------
``grader/tests/golden/writers/`` holds one expected output per writer for the
fixed fixture below. After an intended change of a writer's output,
regenerate them and review the diff::

    UPDATE_GOLDEN=1 .venv/bin/python -m pytest grader/tests/test_writers.py
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from grader.engine.results import EXERCISES, STATUSES, VISIBILITIES, CheckResult, ExerciseResult, GradeResult
from grader.writers import (
    GRADEBOOK_COLUMNS,
    class_summary_markdown,
    gradebook_csv,
    to_console,
    to_gradescope,
    to_json,
    to_junit,
    to_markdown,
    write_all,
)

GOLDEN_DIR = Path(__file__).parent / "golden" / "writers"
UPDATE_GOLDEN = os.environ.get("UPDATE_GOLDEN") == "1"

# A message that tries to break every format at once.
NASTY = (
    "expected shape (4, 7) | got (4, 6)\n"
    "```\n"
    "<script>alert('x')</script>\n"
    "NUL here:\x00 and colour: \x1b[31mred\x1b[0m\n"
    "naïve café — 日本語 ✓"
)
LONG = "Traceback (most recent call last):\n" + "\n".join(f"  line {i}: " + "x" * 60 for i in range(100))
THIRD = 20 / 3


def throughput_figure(whole: float, per_item: float = 0.074, getitems: float = 0.21) -> dict:
    """A measured throughput figure (grader.engine.throughput) with these median shares of the raw gather."""
    levels = {name: {"share": share, "low": round(share * 0.8, 4), "high": round(share * 1.1, 4), "samples_per_s": round(share * 250_000)}
              for name, share in (("per item", per_item), ("__getitems__", getitems), ("whole batches", whole))}
    return {"status": "measured", "levels": levels, "ceiling_samples_per_s": 250_000, "rounds": 5, "child_clock_ratio": 0.98,
            "seconds": 2.1, "machine": {"cpu": "AMD EPYC", "isolation": "jail", "start_method": "none (0 workers)"},
            "setup": {"tokens": 1_000_000, "high": 50_257, "block": 64, "batch": 64, "workers": 0},
            "measured_by": "the sandbox zygote's clock, outside the student's process"}


def make_result(**overrides) -> GradeResult:
    """The fixture: every status, partial credit, non-terminating float points,
    hostile student text, a long message, hidden checks and integrity flags."""
    ex = [
        ExerciseResult("collate", [
            CheckResult("pads_to_longest", "collate", "passed", 5, 5,
                        description="Pads every sequence in a batch to the longest one.", duration_s=0.01),
            CheckResult("mask_shape", "collate", "failed", 0, 5, message=NASTY,
                        description="The attention mask has the padded batch's shape.",
                        output="debug print \x1b[1mbold\x1b[0m\x07", duration_s=0.02),
            CheckResult("keeps_order", "collate", "failed", 2.5, 5, message="2 of 4 batches out of order",
                        description="Samples stay in dataset order.", duration_s=0.03),
            CheckResult("dtype", "collate", "passed", 5, 5, description="Tokens are int64.", duration_s=0.04),
            CheckResult("pin_memory_on_gpu", "collate", "skipped", 0, 0, message="no CUDA device here: runs on a GPU runner",
                        description="Batches come out pinned."),
        ]),
        ExerciseResult("sharding", [
            CheckResult("disjoint", "sharding", "passed", 10, 10,
                        description="Workers see disjoint shards.", duration_s=0.5),
            CheckResult("covers_all", "sharding", "error", 0, 10,
                        message="ZeroDivisionError: division by zero\n  in shard_for_worker()",
                        description="Every sample is seen exactly once.", duration_s=0.25),
        ]),
        ExerciseResult("seeding", [
            CheckResult("reproducible", "seeding", "timeout", 0, 10,
                        message="did not finish within 30 s", duration_s=30.0),
            CheckResult("workers_differ", "seeding", "passed", 10, 10, visibility="hidden",
                        description="Each worker gets its own seed.", duration_s=0.1),
        ]),
        ExerciseResult("bucketing", [
            CheckResult("buckets", "bucketing", "skipped", 0, 10, message="not implemented yet"),
            CheckResult("padding_waste", "bucketing", "skipped", 0, 10, message="not implemented yet",
                        visibility="after_due_date"),
        ], note="not implemented yet"),
        ExerciseResult("tokens", [
            CheckResult("budget", "tokens", "passed", THIRD, THIRD, description="Batches respect the token budget."),
            CheckResult("no_drop", "tokens", "failed", 0, THIRD, message=LONG,
                        description="No sample is dropped.", visibility="after_published"),
            CheckResult("stable", "tokens", "passed", THIRD, THIRD, description="Same seed, same batches."),
        ]),
    ]
    fields = dict(
        exercises=ex, seed=1234, duration_s=42.5, submission="alice/lab@3f2a9c1",
        started_at="2025-01-31T12:00:00Z", grader_version="1.0.0", gpu="none",
        isolation={"level": "jail", "reason": "namespaces: bubblewrap as root; uid: probes run under a uid of their own",
                   "layers": {"namespaces": "bubblewrap as root", "uid": "probes run under a uid of their own"}},
        integrity_flags=["exercises/collate.py imports grader.engine.results | suspicious",
                         "=HYPERLINK(\"http://evil\") <b>copied</b> from \x1b[31mbob\x1b[0m"],
        throughput=throughput_figure(0.613),
    )
    fields.update(overrides)
    return GradeResult(**fields)


@pytest.fixture
def result() -> GradeResult:
    return make_result()


def all_passed_result() -> GradeResult:
    return GradeResult([ExerciseResult(n, [CheckResult("ok", n, "passed", 20, 20)]) for n in EXERCISES],
                       seed=7, duration_s=1.0, throughput=throughput_figure(0.702))


# --------------------------------------------------------------------------
# results.py
# --------------------------------------------------------------------------


def test_sums(result):
    assert result.exercise("collate").score == 12.5
    assert result.exercise("collate").max_score == 20
    assert math.isclose(result.score, 5 + 2.5 + 5 + 10 + 10 + 2 * THIRD)
    assert math.isclose(result.max_score, 100)


@pytest.mark.parametrize("bad", ["pass", "PASSED", "", None])
def test_bad_status_is_rejected_by_name(bad):
    with pytest.raises(ValueError, match=re.escape(repr(bad))):
        CheckResult("c", "collate", bad, 0, 1)


def test_bad_visibility_and_seed_are_rejected():
    with pytest.raises(ValueError, match="'public'"):
        CheckResult("c", "collate", "passed", 1, 1, visibility="public")
    with pytest.raises(ValueError, match="seed"):
        GradeResult([], seed="1", duration_s=0)


def test_from_dict_validates_status(result):
    data = result.to_dict()
    data["exercises"][0]["checks"][0]["status"] = "ok"
    with pytest.raises(ValueError, match="'ok'"):
        GradeResult.from_dict(data)


# --------------------------------------------------------------------------
# JSON
# --------------------------------------------------------------------------


def _is_num(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _strict_json(text: str):
    """json.loads that, like JavaScript's JSON.parse, rejects NaN/Infinity."""
    def reject(name):
        raise ValueError(f"non-standard JSON constant {name}")
    return json.loads(text, parse_constant=reject)


def test_json_shape(result):
    data = _strict_json(to_json(result))
    assert type(data["score"]) is float and type(data["max_score"]) is float
    assert type(data["seed"]) is int and type(data["duration_s"]) is float
    assert [e["name"] for e in data["exercises"]] == list(EXERCISES)
    for ex in data["exercises"]:
        assert type(ex["score"]) is float and type(ex["max_score"]) is float
        assert isinstance(ex["checks"], list) and ex["checks"]
        for c in ex["checks"]:
            assert isinstance(c["name"], str) and isinstance(c["message"], str)
            assert c["status"] in STATUSES
            assert type(c["score"]) is float and type(c["max_score"]) is float
    assert isinstance(data["integrity"]["flags"], list)
    assert all(isinstance(f, str) for f in data["integrity"]["flags"])
    assert math.isclose(data["score"], sum(e["score"] for e in data["exercises"]))


def test_json_round_trip_is_lossless(result):
    text = to_json(result)
    assert "日本語" in text and "\\u0000" not in text and "\\u001b" not in text  # the model cleaned the text
    assert GradeResult.from_dict(json.loads(text)) == result
    assert GradeResult.from_dict(result.to_dict()) == result


def test_scaled_time_limits_are_recorded_and_shown(result):
    """A grading with --timeout-scale says so in the JSON report and the console header; a normal one does not."""
    assert "Time limits" not in to_console(result)
    scaled = make_result(timeout_scale=0.5)
    assert GradeResult.from_dict(json.loads(to_json(scaled))).timeout_scale == 0.5
    assert "Time limits: x0.5 (--timeout-scale)" in to_console(scaled)


# --------------------------------------------------------------------------

FORMATS = {"text", "html", "simple_format", "md", "ansi"}


SCHEMAS = Path(__file__).parent / "schemas"


def validate(instance, schema_name):
    import jsonschema

    schema = json.loads((SCHEMAS / schema_name).read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(instance)


def _no_nulls(value, where="results.json"):
    assert value is not None, f"null at {where}"
    if isinstance(value, dict):
        for key, item in value.items():
            _no_nulls(item, f"{where}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _no_nulls(item, f"{where}[{i}]")


def test_gradescope_results_json(result):
    data = _strict_json(to_gradescope(result))
    validate(data, "gradescope-results.schema.json")
    _no_nulls(data)
    assert _is_num(data["score"])
    assert type(data["execution_time"]) is int
    assert isinstance(data["output"], str) and data["output"]
    assert data["visibility"] == "visible" and data["stdout_visibility"] == "hidden"
    for key in ("output_format", "test_output_format", "test_name_format"):
        assert data[key] in FORMATS
    assert isinstance(data["extra_data"], dict)

    tests = data["tests"]
    ran = [c for c in result.all_checks() if c.status != "skipped" or c.max_score]  # a 0-point check that cannot run here is left out
    assert len(tests) == len(ran) < len(result.all_checks())
    numbers = [t["number"] for t in tests]
    assert len(set(numbers)) == len(numbers)
    for t, c in zip(tests, ran):
        assert isinstance(t["name"], str) and t["name"]
        assert _is_num(t["score"]) and _is_num(t["max_score"])
        assert 0 <= t["score"] <= t["max_score"]
        assert t["status"] in ("passed", "failed")
        assert (t["status"] == "passed") == c.passed
        assert t["visibility"] in VISIBILITIES and t["visibility"] == c.visibility
        assert t["name"] == f"{c.exercise}/{c.name}"
        assert re.fullmatch(r"\d+\.\d+", t["number"])
        assert isinstance(t["output"], str)
        assert not re.search("[\x00-\x08\x0b-\x1f\x7f]", t["output"])
        assert t["tags"] and all(isinstance(tag, str) for tag in t["tags"])
    assert tests[1]["number"] == "1.2" and tests[1]["tags"] == ["collate"]
    # The top-level score overrides the tests' total on Gradescope: they must agree.
    assert math.isclose(data["score"], sum(t["score"] for t in tests), abs_tol=1e-9)
    assert math.isclose(data["score"], result.score, abs_tol=1e-9)
    assert math.isclose(sum(t["max_score"] for t in tests), result.max_score)
    assert data["output_format"] == data["test_output_format"] == "md"
    for text in [data["output"], *(t["output"] for t in tests)]:  # student text is fenced or escaped in Markdown
        _script_only_in_fences(text)


def _script_only_in_fences(markdown: str) -> None:
    inside = False
    fence = ""
    for line in markdown.split("\n"):
        stripped = line.strip()
        if stripped.startswith("```"):
            marks = stripped[: len(stripped) - len(stripped.lstrip("`"))]
            if not inside:
                inside, fence = True, marks
            elif stripped == fence:
                inside = False
            continue
        assert inside or "<script>" not in line, f"raw HTML outside a code block: {line!r}"


# --------------------------------------------------------------------------
# JUnit XML
# --------------------------------------------------------------------------

_OUTCOMES = {"failure", "error", "skipped"}


def _check_junit_schema(root: ET.Element) -> None:
    """The common JUnit XSD rules, by hand (element nesting, order, required
    and numeric attributes; at most one outcome per testcase)."""
    assert root.tag == "testsuites"
    assert all(child.tag == "testsuite" for child in root)
    for suite in root:
        for attr in ("name", "tests", "failures", "errors", "skipped", "time"):
            assert attr in suite.attrib, attr
        assert float(suite.get("time")) >= 0
        tags = [child.tag for child in suite]
        assert set(tags) <= {"properties", "testcase", "system-out", "system-err"}
        assert tags.count("properties") <= 1 and (tags[0] == "properties" or "properties" not in tags)
        for prop_parent in suite.iter("properties"):
            for prop in prop_parent:
                assert prop.tag == "property" and "name" in prop.attrib and "value" in prop.attrib
        for case in suite.iter("testcase"):
            assert case.get("name") and case.get("classname")
            assert float(case.get("time")) >= 0
            ctags = [child.tag for child in case]
            assert set(ctags) <= {"properties"} | _OUTCOMES | {"system-out", "system-err"}
            assert sum(t in _OUTCOMES for t in ctags) <= 1
            for outcome in case:
                if outcome.tag in ("failure", "error"):
                    assert "message" in outcome.attrib and "type" in outcome.attrib


def test_junit_is_valid_and_counts_match(result):
    text = to_junit(result)
    root = ET.fromstring(text.encode("utf-8"))
    _check_junit_schema(root)
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == list(EXERCISES)
    total = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for suite, ex in zip(suites, result.exercises):
        cases = suite.findall("testcase")
        counts = {
            "tests": len(cases),
            "failures": sum(c.find("failure") is not None for c in cases),
            "errors": sum(c.find("error") is not None for c in cases),
            "skipped": sum(c.find("skipped") is not None for c in cases),
        }
        for key, n in counts.items():
            assert int(suite.get(key)) == n, (ex.name, key)
            total[key] += n
        for case, c in zip(cases, ex.checks):
            assert case.get("classname") == f"grader.{ex.name}" and case.get("name") == c.name
            props = {p.get("name"): p.get("value") for p in case.find("properties")}
            assert float(props["score"]) == round(c.score, 2)
            assert float(props["max_score"]) == round(c.max_score, 2)
        suite_props = {p.get("name"): p.get("value") for p in suite.find("properties")}
        assert float(suite_props["score"]) == round(ex.score, 2)
    for key, n in total.items():
        assert int(root.get(key)) == n
    timeout = root.find(".//testcase[@name='reproducible']/error")
    assert timeout is not None and timeout.get("type") == "timeout"
    failure = root.find(".//testcase[@name='mask_shape']/failure")
    assert "<script>" in failure.text and "\x00" not in failure.text  # escaped by the serializer, text intact
    assert "\n" not in failure.get("message")


def test_junit_survives_every_illegal_character():
    junk = "".join(chr(i) for i in range(32)) + "\x7f\ud800\ufffe\uffff]]>&<\"'"
    r = GradeResult([ExerciseResult("collate", [
        CheckResult(f"n{junk}", "collate", "error", 0, 1, message=junk, description=junk, output=junk)],
        note=junk)], seed=1, duration_s=0, started_at=junk)
    root = ET.fromstring(to_junit(r).encode("utf-8"))
    _check_junit_schema(root)
    assert root.find(".//error").text.endswith("]]>&<\"'")


# --------------------------------------------------------------------------
# Markdown
# --------------------------------------------------------------------------

_CELL_SPLIT = re.compile(r"(?<!\\)\|")


def _cells(row: str) -> list[str]:
    assert row.startswith("|") and row.endswith("|"), row
    return _CELL_SPLIT.split(row[1:-1])


def _code_blocks(md: str) -> tuple[list[str], list[str]]:
    """Split Markdown into (lines outside fenced code, code block bodies) the
    CommonMark way: a fence of N backticks is closed only by a line of at least
    N backticks and nothing else. Asserts every fence is closed."""
    outside, blocks, fence, body = [], [], None, []
    for line in md.split("\n"):
        m = re.match(r"^ {0,3}(`{3,})(.*)$", line)
        if fence is None:
            if m and "`" not in m.group(2):
                fence, body = m.group(1), []
            else:
                outside.append(line)
        elif m and len(m.group(1)) >= len(fence) and not m.group(2).strip():
            blocks.append("\n".join(body))
            fence = None
        else:
            body.append(line)
    assert fence is None, "unclosed code fence"
    return outside, blocks


def test_markdown_table(result):
    md = to_markdown(result)
    lines = md.split("\n")
    start = lines.index("| Exercise | Score | Max | Status |")
    table = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        table.append(line)
    assert len(table) == 2 + len(result.exercises) + 1  # header, delimiter, exercises, total
    assert all(len(_cells(row)) == 4 for row in table)
    assert [_cells(row)[0].strip() for row in table[2:-1]] == list(EXERCISES)
    assert _cells(table[2])[1].strip() == "12.5"  # collate
    assert _cells(table[-1])[1].strip() == "**45.83**"
    assert md.startswith("## Autograder: ")


def test_markdown_is_safe(result):
    md = to_markdown(result)
    outside, blocks = _code_blocks(md)
    text_outside = "\n".join(outside)
    assert "<script" not in text_outside.lower()
    assert "\x00" not in md and "\x1b" not in md
    assert md.count("<details>") == md.count("</details>") == len(result.exercises)
    # The hostile message is shown verbatim (bar the control characters) inside a code block.
    cleaned = NASTY.replace("\x00", "").replace("\x1b[31m", "").replace("\x1b[0m", "")
    assert cleaned in blocks
    assert any("[cut:" in b for b in blocks)
    # Flags come from outside: they are escaped, so no raw HTML and no extra table cells.
    assert "<b>copied" not in md and "&lt;b&gt;copied" in md
    assert "Seed: 1234 (" in md and "--seed" not in md, "the seed is shown; no command a student cannot run is offered"
    assert "Integrity flags" in md


def test_the_push_feedbacks_seed_says_what_it_fixes_and_offers_no_command(result):
    """A public push-feedback seed: every report a student reads says that the same files get the same inputs and the
    grade of record others, and none offers --seed (the student has no grader to run it with)."""
    pushed = dataclasses.replace(result, seed_from_repository="course/ada-lab")
    assert GradeResult.from_dict(pushed.to_dict()) == pushed
    gradescope = json.loads(to_gradescope(pushed))["output"]
    for text in (to_console(pushed), to_markdown(pushed), gradescope):
        assert "1234, fixed by your repository's name" in text and "fixed inputs of your own" in text
        assert "the grade of record uses other inputs of the same kind" in text and "--seed" not in text
    for text in (to_console(result), to_markdown(result), json.loads(to_gradescope(result))["output"]):
        assert "fixed inputs of your own" not in text, "only the push feedback's seed is the repository's"
    with pytest.raises(ValueError, match="not both"):
        dataclasses.replace(result, seed_secret=True, seed_from_repository="course/ada-lab")


def test_markdown_code_fence_longer_than_backticks_inside():
    r = GradeResult([ExerciseResult("collate", [
        CheckResult("c", "collate", "failed", 0, 1, message="a ````` b\n`````\nc")])], seed=1, duration_s=0)
    _, blocks = _code_blocks(to_markdown(r))
    assert blocks == ["a ````` b\n`````\nc"]


# --------------------------------------------------------------------------
# Console
# --------------------------------------------------------------------------


def test_console_report(result):
    text = to_console(result, unicode=True)
    assert "Score: 45.83 / 100" in text
    assert "Seed: 1234 (" in text and "--seed" not in text and "Duration: 42.50 s" in text
    for c in result.all_checks():
        assert c.name in text
    assert "\x1b" not in text and "\x00" not in text
    # Messages of non-passed checks are indented, all their lines kept, long ones cut.
    assert "      expected shape (4, 7) | got (4, 6)\n      ```\n" in text
    assert "[cut:" in text and "line 99" not in text
    head, _, tail = text.partition("INTEGRITY FLAGS (for the instructor):")
    assert tail and "imports grader.engine.results" in tail and "imports grader.engine.results" not in head
    assert "✓ pads_to_longest" in text and "✗ mask_shape" in text


def test_console_ascii_and_color(result):
    ascii_text = to_console(result, unicode=False)
    check_lines = [line for line in ascii_text.split("\n") if line.startswith("  ") and not line.startswith("   ")
                   and not line.startswith("  note") and not line.startswith("  - ")]
    assert check_lines and all(line[2] in "+x!T-" for line in check_lines)
    assert all(ch.isascii() for line in check_lines for ch in line)
    colored = to_console(result, color=True, unicode=True)
    assert "\x1b[32m✓\x1b[0m" in colored


# --------------------------------------------------------------------------
# Gradebook CSV and class summary
# --------------------------------------------------------------------------


def class_rows():
    return [
        ("alice", make_result(), ""),
        ("=cmd|' /C calc'!A0", make_result(integrity_flags=["@SUM(1,1)", "+x"]), ""),
        ("carol", all_passed_result(), ""),
        ("-dave", None, "grader crashed: \x1b[31mMemoryError\x1b[0m"),
    ]


def test_gradebook_csv():
    text = gradebook_csv(class_rows())
    reader = csv.DictReader(io.StringIO(text))
    assert tuple(reader.fieldnames) == GRADEBOOK_COLUMNS
    rows = list(reader)
    assert len(rows) == 4
    for row in rows:
        for value in row.values():
            assert not value or value[0] not in "=+-@\t\r", value
    alice, evil, carol, dave = rows
    assert alice["status"] == "graded" and float(alice["score"]) == round(make_result().score, 2)
    assert alice["collate"] == "12.5" and alice["bucketing"] == "0" and alice["seed"] == "1234"
    assert alice["integrity_flags"].count("; ") == 1
    assert evil["student"] == "'=cmd|' /C calc'!A0" and evil["integrity_flags"] == "'@SUM(1,1); +x"
    assert carol["score"] == "100" and carol["max_score"] == "100"
    assert dave["student"] == "'-dave" and dave["status"] == "grader error"
    assert all(dave[k] == "" for k in ("score", "max_score", *EXERCISES, "seed", "duration_s"))
    assert dave["error"] == "grader crashed: MemoryError"


def test_class_summary():
    md = class_summary_markdown(class_rows())
    assert "graded: 3" in md and "grader errors: 1" in md
    bands = [line for line in md.split("\n") if re.match(r"\| \d+-\d+ \|", line)]
    assert len(bands) == 10 and bands[-1].startswith("| 90-100 |")
    assert sum(int(_cells(b)[1]) for b in bands) == 3
    _, blocks = _code_blocks(md)
    top = md.split("### Checks most often failed", 1)[1].split("\n### ", 1)[0]
    top_rows = [line for line in top.split("\n") if line.startswith("| ") and not line.startswith("| Check") and "---" not in line]
    assert 1 <= len(top_rows) <= 10
    first = _cells(top_rows[0])
    assert int(first[1]) == 2 and first[2].strip() == "66.67"
    assert all(len(_cells(line)) == 3 for line in top_rows)
    assert class_summary_markdown([("x", None, "boom")]).count("No graded submissions") == 1


# --------------------------------------------------------------------------
# write_all
# --------------------------------------------------------------------------


def test_write_all(result, tmp_path, monkeypatch):
    summary = tmp_path / "step_summary.md"
    summary.write_text("earlier step output\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    written = write_all(result, json=tmp_path / "out" / "result.json", markdown=summary,
                        junit=tmp_path / "junit.xml", gradescope=tmp_path / "results.json")
    assert set(written) == {"json", "markdown", "junit", "gradescope"}
    assert GradeResult.from_dict(json.loads((tmp_path / "out" / "result.json").read_text("utf-8"))) == result
    assert summary.read_text("utf-8") == "earlier step output\n" + to_markdown(result)
    assert (tmp_path / "results.json").read_text("utf-8") == to_gradescope(result)


# --------------------------------------------------------------------------
# Golden files
# --------------------------------------------------------------------------


GOLDEN = {
    "console.txt": lambda r: to_console(r, color=False, unicode=True),
    "result.json": to_json,
    "summary.md": to_markdown,
    "gradescope.json": to_gradescope,
    "junit.xml": to_junit,
    "gradebook.csv": lambda r: gradebook_csv(class_rows()),
    "class_summary.md": lambda r: class_summary_markdown(class_rows()),
}


@pytest.mark.parametrize("filename", sorted(GOLDEN))
def test_golden(filename, result):
    actual = GOLDEN[filename](result)
    path = GOLDEN_DIR / filename
    if UPDATE_GOLDEN:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="") as fh:
            fh.write(actual)
    assert path.exists(), f"missing {path}; run with UPDATE_GOLDEN=1"
    with open(path, encoding="utf-8", newline="") as fh:
        expected = fh.read()
    assert actual == expected, f"{filename} differs from the golden file; if intended, rerun with UPDATE_GOLDEN=1"
