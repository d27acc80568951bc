"""The defaults of the entry points' signatures (grader/engine/defaults.toml), for the checks and the tests' fixtures.

The file is generated from ``solutions/`` by ``python -m grader generate``
(grader/tools/authoring/signature_defaults.py; the public tests read its
copy, tests/defaults.toml): a default is typed once, in
the reference's signature, and a check that judges ``pad_collate(batch)``
without a ``pad_id`` reads ``default("collate", "pad_collate", "pad_id")``.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from grader.toml_file import read_toml

#: Where the file is, relative to the repository (and to the published grader).
DEFAULTS_FILE = Path("grader") / "engine" / "defaults.toml"
_PATH = Path(__file__).with_name("defaults.toml")


class DefaultsError(KeyError):
    """A default that defaults.toml does not hold; the message says how to fix it."""

    def __str__(self) -> str:
        return str(self.args[0])


@cache
def _table() -> dict:
    return read_toml(_PATH, "the defaults of the reference's signatures; run python -m grader generate", DefaultsError)


def default(exercise: str, function: str, parameter: str):
    """The default of ``parameter`` in the reference's ``function`` (``pad_collate``, ``BucketBatchSampler.__init__``)."""
    table = _table().get(exercise, {})
    for part in function.split("."):
        table = table.get(part, {}) if isinstance(table, dict) else {}
    if not isinstance(table, dict) or parameter not in table:
        raise DefaultsError(f"grader/engine/defaults.toml has no default of {parameter!r} in {exercise}'s {function}: "
                            "give it one in the signature in solutions/ and run python -m grader generate")
    return table[parameter]
