"""lh memory export: every entry with its metadata as jsonl that import reads back."""

from __future__ import annotations

from pathlib import Path

from lean_harness.cli import main
from support import lh
from test_importing import run_import, stored


def test_export_then_import_into_an_empty_memory_gives_the_same_entries(
    project: Path, sources: Path, tmp_path: Path
) -> None:
    for source in ("memory-md", "notes-tree", "layered", "jsonl/entries.jsonl"):
        assert run_import(str(sources / source)) == 0
    assert main(["memory", "put", "quirks", "with an allowance", "--tag", "x"]) == 0
    exported = lh("memory", "export", "--personal", "--output", str(tmp_path / "all.jsonl"), cwd=project)
    assert exported.returncode == 0, exported.stderr
    assert exported.stdout == f"exported 13 entries to {(tmp_path / 'all.jsonl').as_posix()}\n"
    other = tmp_path / "other"
    other.mkdir()
    assert lh("init", cwd=other).returncode == 0
    imported = lh("memory", "import", str(tmp_path / "all.jsonl"), cwd=other)
    assert imported.returncode == 0, imported.stderr

    def shape(root: Path) -> dict[str, tuple[str, str, tuple[str, ...], str]]:
        return {k: (s, e.created, e.tags, e.text) for k, (s, e) in stored(root).items()}

    assert shape(other) == shape(project)
    again = lh("memory", "export", "--personal", cwd=other)
    assert again.stdout.encode() == (tmp_path / "all.jsonl").read_bytes()
