"""Autograder bundles for the hosts students submit to: Classroom 50 and Gradescope.

``python -m grader classroom50 OUT`` writes the folder an instructor copies to
``CLASSROOM/autograders/ASSIGNMENT/`` of their ``classroom50`` repository:
``autograder.py`` (grader/tools/delivery/templates/classroom50/), the published grader and
its ``requirements.txt``, and a README with the assignment settings.

``python -m grader gradescope OUT.zip`` writes the zip to upload as a
Gradescope "programming assignment" autograder: ``setup.sh``,
``run_autograder`` and ``gradescope_run.py`` (grader/tools/delivery/templates/gradescope/)
at the root, the published grader beside them.

Both hold exactly what ``python -m grader publish`` publishes: the grader,
never ``solutions/``. A Classroom 50 bundle is served publicly, and a
Gradescope zip reaches the course staff; neither must hold an answer.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import zipfile
from pathlib import Path

from grader.tools.delivery.published_grader import PublishError, publish

TEMPLATES = Path(__file__).resolve().parent / "templates"
CLASSROOM50_ASSIGNMENT = {"runtime": {"runs-on": "ubuntu-latest", "python": "3.11", "apt": ["bubblewrap"]}}
CLASSROOM50_README = """# Data-loading lab: Classroom 50 autograder

Written by `python -m grader classroom50`; do not edit here. Copy this folder to
`CLASSROOM/autograders/ASSIGNMENT/` in your organisation's `classroom50` repository and
give the assignment these settings in `CLASSROOM/assignments.json`:

```json
{settings}
```

`runtime.python` 3.11 is the Python the grader is tested with; `runtime.apt` installs
bubblewrap, the grader's jail. For the pin_memory checks on a GPU, use
`"runs-on": ["self-hosted", "gpu"]` and a runner prepared as the instructor repository's
grader/docs/hosts.md says ("A GPU runner": torch with CUDA and bubblewrap installed there).

`autograder.py` installs CPU-only torch and the grader's requirements (a minute or two of
the grade job's 15), grades `exercises/`, and writes `result.json` and `release-body.md`.
The bundle is public on your Pages site: it holds the grader, never the solutions.
"""


def _copy_templates(kind: str, out: Path) -> None:
    for path in sorted((TEMPLATES / kind).iterdir()):
        target = out / path.name
        shutil.copy2(path, target)


def classroom50_bundle(out: Path, force: bool = False) -> list[Path]:
    """Write the Classroom 50 autograder folder into ``out``; return its files."""
    publish(out, force=force)
    (out / "README.md").unlink()
    _copy_templates("classroom50", out)
    settings = json.dumps(CLASSROOM50_ASSIGNMENT, indent=2)
    (out / "README.md").write_text(CLASSROOM50_README.format(settings=settings), encoding="utf-8")
    return sorted(p for p in out.rglob("*") if p.is_file() and ".git" not in p.parts)


#: The course key's file in the Gradescope zip (read and removed by gradescope_run.py before any student code runs).
SEED_KEY_FILE = "seed_key"


def gradescope_zip(out: Path, seed_key: bytes | None = None) -> list[str]:
    """Write the Gradescope autograder zip ``out``; return the names in it.

    With ``seed_key`` (the course key) the zip carries it as :data:`SEED_KEY_FILE`
    (mode 0600): every submission is then graded with its student's secret seed of
    record. The zip is private to the course staff on Gradescope; keep it so.
    """
    if out.suffix != ".zip":
        raise PublishError(f"{out}: the Gradescope autograder is a .zip file")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "autograder"
        publish(folder)
        (folder / "README.md").unlink()
        _copy_templates("gradescope", folder)
        if seed_key:
            (folder / SEED_KEY_FILE).write_bytes(seed_key + b"\n")
            (folder / SEED_KEY_FILE).chmod(0o600)
        out.parent.mkdir(parents=True, exist_ok=True)
        names = []
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in sorted(p for p in folder.rglob("*") if p.is_file()):
                name = path.relative_to(folder).as_posix()
                info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
                mode = 0o600 if name == SEED_KEY_FILE else 0o755 if path.stat().st_mode & 0o111 else 0o644
                info.external_attr = mode << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                archive.writestr(info, path.read_bytes())
                names.append(name)
    return names
