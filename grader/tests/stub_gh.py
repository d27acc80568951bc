"""A stand-in for the GitHub CLI: ``gh api PATH`` answers from recorded JSON, hostile answers included.

:func:`install` writes an executable ``gh`` into a folder (put it first on
``PATH``) that runs this file. It reads ``$STUB_GH_ANSWERS``, a JSON object
{API path (with its query, exactly as the caller writes it): answer}, and
answers ``gh api [--paginate --slurp] [-H header] PATH`` with:

* the answer as JSON, wrapped in a list of one page with ``--slurp`` (what
  ``gh api --paginate --slurp`` prints for a list: a list of pages), so an
  answer that is not a list shows up as a page that is not one;
* for an answer ``{"__gh__": {"exit": N, "stderr": "...", "stdout": "..."}}``,
  exactly that (a failing call, or bytes that are not JSON);
* for a path it has no answer for, gh's 404: ``gh: Not Found (HTTP 404)``, exit 1.

Every call's arguments are appended, one JSON list a line, to ``$STUB_GH_LOG`` when set.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path


def install(folder: Path, python: str = sys.executable) -> Path:
    """Write ``folder/gh`` (a shell script running this module with ``python``); return its path."""
    folder.mkdir(parents=True, exist_ok=True)
    gh = folder / "gh"
    gh.write_text(f'#!/bin/sh\nexec "{python}" "{Path(__file__).resolve()}" "$@"\n')
    gh.chmod(0o755)
    return gh


def main(argv: list[str]) -> int:
    if os.environ.get("STUB_GH_LOG"):
        with open(os.environ["STUB_GH_LOG"], "a", encoding="utf-8") as log:
            log.write(json.dumps(argv) + "\n")
    if argv[:1] != ["api"]:
        print(f"stub gh: only 'gh api' is answered, not {argv[:2]}", file=sys.stderr)
        return 1
    args, slurp, path = argv[1:], False, None
    i = 0
    while i < len(args):
        if args[i] in ("-H", "--header"):
            i += 2
            continue
        if args[i] == "--slurp":
            slurp = True
        elif not args[i].startswith("-"):
            path = args[i]
        i += 1
    answers = json.loads(Path(os.environ["STUB_GH_ANSWERS"]).read_text(encoding="utf-8"))
    if path not in answers:
        print("gh: Not Found (HTTP 404)", file=sys.stderr)
        return 1
    answer = answers[path]
    if isinstance(answer, dict) and "__gh__" in answer:
        spec = answer["__gh__"]
        sys.stdout.write(spec.get("stdout", ""))
        sys.stderr.write(spec.get("stderr", ""))
        return int(spec.get("exit", 0))
    print(json.dumps([answer] if slurp else answer))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
