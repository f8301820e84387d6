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
)


def test_fix_repairs_what_is_safe_and_says_what_it_changed(
    repo_with_entry: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot(repo_with_entry / MEMORY)
    for path in (".gitignore", ".gitattributes", f"{MEMORY}/quirks.md"):
        (repo_with_entry / path).unlink()
    _append(f"{MEMORY}/INDEX.md", "edited by hand\n")(repo_with_entry)
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
    assert snapshot(repo_with_entry / MEMORY) == before  # every entry as it was; INDEX.md as lh makes it


def test_fix_never_rewrites_a_shard_that_does_not_parse(
    repo_with_entry: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _append(f"{MEMORY}/failures.md", BROKEN_ENTRY)(repo_with_entry)
    broken = (repo_with_entry / MEMORY / "failures.md").read_bytes()
    assert main(["doctor", "--fix"]) == 1
    assert (repo_with_entry / MEMORY / "failures.md").read_bytes() == broken


def test_fix_with_plugin_is_refused(repo_with_entry: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor", "--fix", "--plugin"]) == 2
    assert capsys.readouterr().err == "lh doctor: --fix repairs a project, not a plugin; run it without --plugin\n"
