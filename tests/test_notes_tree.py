"""memory/intake/formats/notes_tree.py: a tree of topic folders and focused notes."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_importing import run_import, stored


def test_notes_tree_routes_by_frontmatter_topic_and_default(project: Path, sources: Path) -> None:
    assert run_import(str(sources / "notes-tree")) == 0
    entries = stored(project)
    lock = entries["ci.windows-lock"]
    assert (lock[0], lock[1].tags, lock[1].title) == ("insights", ("ci",), "Lock file on Windows runners")
    flaky = entries["failures.flaky-network"]
    assert (flaky[0], flaky[1].tags, flaky[1].created) == ("failures", ("failures", "network"), "2026-03-01T12:00:00Z")
    (pending,) = [e for shard, e in entries.values() if shard == "quirks"]
    assert pending.text == "ruff format and black disagree on one-line docstrings."
    assert not any("index.md" in e.text or e.title == "Notes" for _, e in entries.values())


def test_a_notes_tree_note_keeps_its_own_keys_strict_and_names_others(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = tmp_path / "repo" / ".agents" / "notes" / "ci"
    notes.mkdir(parents=True)
    (notes / "index.md").write_text("# CI\n", "utf-8")
    (notes / "cache.md").write_text("---\nauthor: dana\nreviewed:\n- yes\n---\nThe cache key includes the lockfile.\n")
    (notes / "flow.md").write_text("---\ntags: [ci, cache]\n---\nA flow list of tags.\n", "utf-8")
    (notes / "rule.md").write_text("---\nNot frontmatter but prose\n---\nbetween two rules.\n", "utf-8")
    capsys.readouterr()
    assert run_import(str(tmp_path / "repo")) == 1
    where = f"{(tmp_path / 'repo').as_posix()}/.agents/notes/ci"
    assert capsys.readouterr().err.splitlines() == [
        f"warning: {where}/cache.md:4: a list is not read; reviewed was not read",
        f"warning: {where}/cache.md: frontmatter keys not imported (notes may have id, shard, tags, created): author",
        f"not imported: {where}/flow.md:2: a value starting with '[' (a YAML indicator lh does not read); tags was"
        " not read",
    ]
    entries = stored(project)
    assert sorted(entries) == ["ci.cache", "ci.rule"]
    assert entries["ci.cache"][1].text == "The cache key includes the lockfile."
    assert entries["ci.rule"][1].text == "---\nNot frontmatter but prose\n---\nbetween two rules."
