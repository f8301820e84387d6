"""memory/evidence/checked.py: what a session start tells from the record of the last evidence check
without loading the check."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from lean_harness.cli import main
from lean_harness.memory.evidence import checked
from support import hook_python, lh

REPO = Path(__file__).resolve().parents[1]
RECORD = ".agents/.cache/lh/evidence"


def settled(path: Path, text: str) -> None:
    """Write a file and age it past the two seconds within which a check does not trust its stat."""
    path.write_text(text, encoding="utf-8")
    past = time.time() - 10
    os.utime(path, (past, past))


def session_start(project: Path) -> tuple[str, bool]:
    """The session-start hook's output, and whether it loaded the evidence check (`dataclasses`)."""
    code = (
        "import sys; from lean_harness import hooks; hooks.main(['session-start']);"
        "sys.stderr.write(str('dataclasses' in sys.modules))"
    )
    done = hook_python(code, project, "{}", CLAUDE_PROJECT_DIR=str(project))
    return done.stdout, done.stderr.endswith("True")


@pytest.fixture
def cited(project: Path) -> Path:
    settled(project / "app.py", "def main():\n    return 1\n")
    assert main(["memory", "put", "insights", "main returns one", "--ref", "app.py#L2"]) == 0
    assert lh("memory", "verify", cwd=project).returncode == 0
    session_start(project)  # the first start after a write generates what it shows
    return project


def test_a_start_after_a_check_with_nothing_changed_loads_no_evidence_check(cited: Path) -> None:
    assert checked.unchanged(str(cited), cited / RECORD) is True
    printed, loaded = session_start(cited)
    assert "changed since the notes were last checked" not in printed
    assert not loaded


def test_a_cited_file_that_changed_is_told(cited: Path) -> None:
    settled(cited / "app.py", "def main():\n    return 2\n")
    assert checked.unchanged(str(cited), cited / RECORD) is False
    printed, loaded = session_start(cited)
    assert "lean-harness: 1 file cited by memory notes changed since the notes were last checked;" in printed
    assert loaded


def test_a_missing_cited_file_that_came_back_is_told(cited: Path) -> None:
    (cited / "app.py").unlink()
    assert lh("memory", "verify", cwd=cited).returncode == 1  # the note is stale: its file is missing
    assert checked.unchanged(str(cited), cited / RECORD) is True
    settled(cited / "app.py", "def main():\n    return 1\n")
    assert checked.unchanged(str(cited), cited / RECORD) is False


def test_a_quoted_path_is_left_to_the_evidence_check(project: Path) -> None:
    settled(project / "two words.py", "X = 1\n")
    assert main(["memory", "put", "quirks", "X starts at one", "--ref", "two words.py#L1"]) == 0
    assert lh("memory", "verify", cwd=project).returncode == 0
    assert checked.unchanged(str(project), project / RECORD) is False
    assert "changed since the notes were last checked" not in session_start(project)[0]


@pytest.mark.parametrize(
    "record",
    ["", "lh-evidence 2 1 0\n", "lh-evidence 1 x 0\n", "lh-evidence 1 1 0\nf 1 2 app.py\n", "\xff"],
)
def test_a_damaged_or_foreign_record_tells_nothing(cited: Path, record: str) -> None:
    (cited / RECORD).write_text(record, encoding="latin-1")
    assert checked.unchanged(str(cited), cited / RECORD) is False
    assert "changed since the notes were last checked" not in session_start(cited)[0]
