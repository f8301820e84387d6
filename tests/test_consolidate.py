"""lh memory consolidate: the pending notes merged into the shards."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lean_harness.cli import main
from lean_harness.memory.shard import Entry, parse
from support import snapshot

MEMORY = ".agents/memory"


PENDING = f"{MEMORY}/.pending"


def notes(root: Path) -> list[Path]:
    return sorted((root / PENDING).glob("*.md"))


def entries(root: Path, shard: str) -> tuple[Entry, ...]:
    return parse((root / MEMORY / f"{shard}.md").read_text("utf-8")).entries


def test_consolidate_routes_deduplicates_and_empties_the_inbox(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["memory", "put", "failures", "already known"]) == 0
    assert main(["memory", "note", "already known", "--shard", "failures"]) == 0
    assert main(["memory", "note", "goes to the default shard", "--tag", "ci"]) == 0
    assert main(["memory", "note", "goes to the default shard"]) == 0
    assert main(["memory", "note", "a quirk", "--shard", "quirks"]) == 0
    before = snapshot(project)
    capsys.readouterr()
    assert main(["memory", "consolidate", "--dry-run"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == (
        "dry run: 4 pending note(s): 2 would add, 2 already stored, 0 kept; nothing was written"
    )
    assert snapshot(project) == before
    assert main(["memory", "consolidate", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["version"], data["command"], data["problems"]) == (1, "memory consolidate", [])
    assert sorted(n["action"] for n in data["notes"]) == ["added", "added", "unchanged", "unchanged"]
    assert [e.text for e in entries(project, "failures")] == ["already known"]
    assert [(e.text, e.tags) for e in entries(project, "insights")] == [("goes to the default shard", ("ci",))]
    assert [e.text for e in entries(project, "quirks")] == ["a quirk"]
    assert notes(project) == []
    assert list((project / PENDING / ".consumed").iterdir()) == []
    assert "pending note" not in (project / MEMORY / "INDEX.md").read_text("utf-8")
    again = snapshot(project)
    assert main(["memory", "consolidate"]) == 0
    assert snapshot(project) == again
