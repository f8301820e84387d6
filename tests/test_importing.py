"""memory/intake/importing.py: formats detected, imports idempotent, conflicts, credentials; shared helpers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lean_harness.cli import main
from lean_harness.memory.shard import Entry, parse
from support import github_token, lh, snapshot

MEMORY = ".agents/memory"


def stored(root: Path) -> dict[str, tuple[str, Entry]]:
    """Every entry in the memory by id, with its shard."""
    found: dict[str, tuple[str, Entry]] = {}
    for path in sorted([*(root / MEMORY).glob("*.md"), *(root / f"{MEMORY}.local").glob("*.md")]):
        if path.name != "INDEX.md":
            found.update({e.id: (path.stem, e) for e in parse(path.read_text("utf-8")).entries})
    return found


def run_import(*args: str) -> int:
    return main(["memory", "import", *args])


@pytest.mark.parametrize(
    ("source", "fmt", "records"),
    [
        pytest.param("jsonl/entries.jsonl", "jsonl", 4, id="jsonl"),
        pytest.param("memory-md", "memory-md", 3, id="memory-md"),
        pytest.param("notes-tree", "notes-tree", 3, id="notes-tree"),
        pytest.param("layered", "layered-jsonl", 3, id="layered-jsonl"),
    ],
)
def test_each_format_is_detected_and_imported_without_touching_the_source(
    project: Path, sources: Path, capsys: pytest.CaptureFixture[str], source: str, fmt: str, records: int
) -> None:
    before = snapshot(sources)
    capsys.readouterr()
    assert run_import(str(sources / source), "--json") == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["version"], data["command"], data["format"], data["records"]) == (1, "memory import", fmt, records)
    assert data["problems"] == []
    assert {o["action"] for o in data["outcomes"]} == {"added"}
    assert snapshot(sources) == before
    assert data["marker"].startswith(f"{MEMORY}/.imports/{fmt}-")
    marker = json.loads((project / data["marker"]).read_text("utf-8"))
    assert marker["source"] == f"(outside the project)/{Path(source).name}"
    assert sorted(marker["records"]) == sorted(o["id"] for o in data["outcomes"])


def test_importing_again_adds_nothing_and_a_changed_source_only_the_difference(
    project: Path, sources: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = sources / "jsonl" / "entries.jsonl"
    assert run_import(str(source)) == 0
    first = snapshot(project)
    assert len(stored(project)) == 3
    capsys.readouterr()
    assert run_import(str(source)) == 0
    marker = _marker(project)
    assert capsys.readouterr().out == (
        f"jsonl {source.as_posix()}: 4 record(s); 0 added, 3 already imported, 0 conflict(s), 0 refused;"
        f" recorded in {MEMORY}/.imports/{marker.name}\n"
    )
    assert snapshot(project) == first
    with source.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"id": "new-one", "shard": "insights", "text": "added later"}) + "\n")
    assert run_import(str(source)) == 0
    assert capsys.readouterr().out.splitlines()[0] == f"added insights/new-one ({source.as_posix()}:6)"
    assert len(stored(project)) == 4
    assert "new-one" in json.loads(marker.read_text("utf-8"))["records"]


def _marker(root: Path) -> Path:
    (marker,) = (root / MEMORY / ".imports").glob("jsonl-*.json")
    return marker


def test_an_entry_edited_or_deleted_after_import_is_not_brought_back(project: Path, sources: Path) -> None:
    source = str(sources / "jsonl" / "entries.jsonl")
    assert run_import(source) == 0
    path = project / MEMORY / "seed.md"
    path.write_text(path.read_text("utf-8").replace("Run everything with nox", "Run it all with nox"), "utf-8")
    failures = project / MEMORY / "failures.md"
    failures.write_text("# failures\n", encoding="utf-8")
    before = snapshot(project)
    assert run_import(source) == 0
    after = snapshot(project)
    assert {k: v for k, v in after.items() if not k.endswith("INDEX.md")} == {
        k: v for k, v in before.items() if not k.endswith("INDEX.md")
    }


def test_an_id_stored_with_other_content_is_a_conflict_left_alone(
    project: Path, sources: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["memory", "put", "seed", "Run the tests with pytest directly.", "--id", "nox-sessions"]) == 0
    assert main(["memory", "put", "quirks", "a note", "--id", "lock-binary"]) == 0
    seed_before = (project / MEMORY / "seed.md").read_bytes()
    capsys.readouterr()
    assert run_import("../sources/jsonl/entries.jsonl") == 1
    out, err = capsys.readouterr()
    assert err.splitlines() == [
        "conflict: seed/nox-sessions (../sources/jsonl/entries.jsonl:1): the stored entry has other text; left alone",
        "conflict: failures/lock-binary (../sources/jsonl/entries.jsonl:3): the stored entry is in shard quirks;"
        " left alone",
    ]
    assert out.splitlines()[-1].startswith(
        "jsonl ../sources/jsonl/entries.jsonl: 4 record(s); 1 added, 0 already imported, 2 conflict(s), 0 refused;"
    )
    assert (project / MEMORY / "seed.md").read_bytes() == seed_before
    assert run_import("../sources/jsonl/entries.jsonl") == 1  # still reported: nothing was resolved


def test_a_record_with_a_credential_is_refused_and_the_rest_imported(project: Path, sources: Path) -> None:
    token = github_token(3)
    source = sources / "jsonl" / "entries.jsonl"
    with source.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"shard": "seed", "text": f"deploy with\ntoken {token}"}) + "\n")
    result = lh("memory", "import", str(source), cwd=project)
    assert result.returncode == 1
    assert result.stderr == (
        f"refused: {source.as_posix()}:6: line 2 looks like a GitHub personal access token (ghp_********,"
        " rule github-pat); not imported\n"
    )
    assert token[4:] not in result.stdout + result.stderr
    assert len(stored(project)) == 3
    for path in project.rglob("*"):
        assert not path.is_file() or token.encode() not in path.read_bytes()


def test_an_unknown_shape_names_the_formats(project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty").mkdir()
    capsys.readouterr()
    assert run_import(str(tmp_path / "empty")) == 2
    assert capsys.readouterr().err == (
        f"{(tmp_path / 'empty').as_posix()}: cannot tell the format (no Markdown or jsonl in it);"
        " pass --format jsonl|memory-md|notes-tree|layered-jsonl\n"
    )
