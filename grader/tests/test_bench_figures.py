"""The token reader's benchmark (``python -m exercises.bench``, made from solutions/bench.py): the four levels of
experiment (d) with their shares of the raw gather, on the reference and on the stubs, on a tiny file.

Proves the figures are measured and printed for every level (and "not implemented yet" on the stubs); never their
size, which depends on the machine.
"""

from __future__ import annotations

import contextlib
import io

from exercises import bench as stub_bench
from grader.paths import REPO
from grader.tools.authoring import corpus
from solutions import bench
from solutions.tokens import TokenWindows

LEVELS = ["per item", "__getitems__", "whole batches", "raw gather, no DataLoader"]


def test_every_level_is_measured_for_each_class_in_the_same_rounds(tmp_path):
    (entry,) = [e for e in corpus.entries("right") if e.id == "right/tokens/sliding_window_view"]
    right = bench.load_tokens(corpus.assemble(entry, tmp_path) / "tokens.py")
    rates = bench.bench_tokens(1, tokens=20_000, samples=256, classes={"reference": TokenWindows, "right": right})
    for name in ("reference", "right"):
        assert list(rates[name]) == LEVELS and all(rate > 0 for rate in rates[name].values()), rates
    assert rates["reference"]["raw gather, no DataLoader"] == rates["right"]["raw gather, no DataLoader"]


def test_the_stubs_bench_says_not_implemented():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert stub_bench.main(["--repeats", "1", "--compare", str(REPO / "solutions" / "tokens.py")]) == 0
    assert "tokens: not implemented yet" in out.getvalue(), out.getvalue()
