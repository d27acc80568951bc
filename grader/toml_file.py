"""Reading the grader's own TOML files (lab.toml, the rubric, the contract table) with errors that say what to fix."""

from __future__ import annotations

import tomllib
from pathlib import Path


def read_toml(path: Path, what: str, error: type[Exception]) -> dict:
    """The table in ``path``; ``error(message)`` when it is missing, unreadable or not TOML.

    ``what`` says what the file is for, as the message names it ("it lists the lab's exercises").
    """
    try:
        return tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise error(f"{path} does not exist (it is missing: {what})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise error(f"{path} is not valid TOML ({what}): {exc}") from None
    except OSError as exc:
        raise error(f"{path} cannot be read ({what}): {exc.strerror}") from None
