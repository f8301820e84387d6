"""doctor/fix.py: lh doctor --fix repairs what is safe and says what it changed."""

from __future__ import annotations

from pathlib import Path

import pytest

from lean_harness.cli import main
from support import snapshot
from test_doctor import (
    BROKEN_ENTRY,
    MEMORY,
    _append,
    doctor,
    git,
)


@pytest.fixture
def repo(project: Path) -> Path:
    """An initialised project in a real git repository, with one entry."""
    git(project, "init", "-q")
    assert main(["memory", "put", "failures", "test_lock hangs on Windows: open the lock file in binary mode"]) == 0
    return project


def test_fix_repairs_what_is_safe_and_says_what_it_changed(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = snapshot(repo / MEMORY)
    for path in (".gitignore", ".gitattributes", f"{MEMORY}/quirks.md"):
        (repo / path).unlink()
    _append(f"{MEMORY}/INDEX.md", "edited by hand\n")(repo)
    assert doctor(capsys)[0] == 1
    capsys.readouterr()
    assert main(["doctor", "--fix"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(
        f"fixed: created {MEMORY}/quirks.md (empty shard)\n"
        "fixed: wrote the lean-harness block in .gitignore\n"
        "fixed: wrote the lean-harness block in .gitattributes\n"
        f"fixed: regenerated {MEMORY}/INDEX.md\n"
    )
    code, checks = doctor(capsys)
    assert code == 0
    assert {c["status"] for c in checks.values()} == {"ok"}
    assert snapshot(repo / MEMORY) == before  # every entry as it was; INDEX.md as lh makes it


def test_fix_never_rewrites_a_shard_that_does_not_parse(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _append(f"{MEMORY}/failures.md", BROKEN_ENTRY)(repo)
    broken = (repo / MEMORY / "failures.md").read_bytes()
    assert main(["doctor", "--fix"]) == 1
    assert (repo / MEMORY / "failures.md").read_bytes() == broken


def test_fix_with_plugin_is_refused(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor", "--fix", "--plugin"]) == 2
    assert capsys.readouterr().err == "lh doctor: --fix repairs a project, not a plugin; run it without --plugin\n"
