"""memory/intake/formats/jsonl.py: one JSON object a line, the form export writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support import lh
from test_importing import MEMORY, _marker, run_import, stored


def test_broken_jsonl_records_are_each_reported_and_the_good_ones_imported(
    project: Path, sources: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert run_import("../sources/jsonl/broken.jsonl") == 1
    where = "../sources/jsonl/broken.jsonl"
    out, err = capsys.readouterr()
    assert err.splitlines() == [
        f"not imported: {where}:2: not valid JSON (Expecting ',' delimiter at column 44)",
        f"not imported: {where}:3: shard and text are required strings",
        f"not imported: {where}:4: unknown field 'tag'; fields are id, shard, text, tags, created, updated,"
        " allow_secret, allow_directive, refs",
        f"not imported: {where}:5: shard 'nowhere' is not in memory.shards (seed, failures, corrections, insights,"
        " conventions, quirks, personal); use one of them",
        f"not imported: {where}:6: id 'ok-one' is also at {where}:1 with other content; an id is unique in a source",
        f"not imported: {where}:7: tag 'two words' is not allowed; use letters, digits and . _ : / + - (at most 48"
        " characters, starting with a letter or digit)",
        f"not imported: {where}:8: created 'yesterday' is not a time; expected a time with a zone, like"
        " 2026-01-31T09:00:00Z",
    ]
    assert out == (
        f"added seed/ok-one ({where}:1)\n"
        f"jsonl {where}: 4 record(s); 1 added, 0 already imported, 0 conflict(s), 0 refused,"
        f" 7 problem(s) (fix them and import again); recorded in {MEMORY}/.imports/{_marker(project).name}\n"
    )
    assert sorted(stored(project)) == ["ok-one"]


def test_jsonl_references_outside_the_project_are_refused_as_put_refuses_them(project: Path, tmp_path: Path) -> None:
    digest = "0123456789abcdef"
    rows = [
        {"shard": "insights", "text": "absolute", "refs": [f"/etc/hostname@{digest}"]},
        {"shard": "insights", "text": "escaped", "refs": [f"%2Fetc%2Fhostname#L1-1@{digest}"]},
        {"shard": "insights", "text": "parent", "refs": [f"../outside.py#L1-2@{digest}"]},
        {"shard": "insights", "text": "inner parent", "refs": [f"src/..%2F..%2Foutside.py@{digest}"]},
        {"shard": "insights", "text": "kept", "refs": [f"src/./app.py#L1-1@{digest}"]},
    ]
    source = tmp_path / "refs.jsonl"
    source.write_text("".join(json.dumps(row) + "\n" for row in rows), "utf-8")
    done = lh("memory", "import", str(source), cwd=project)
    shown = source.as_posix()
    assert (done.returncode, done.stderr) == (
        1,
        f"not imported: {shown}:1: refs: reference /etc/hostname@{digest}: give a path relative to the project root\n"
        f"not imported: {shown}:2: refs: reference %2Fetc%2Fhostname#L1-1@{digest}: give a path relative to the"
        " project root\n"
        f"not imported: {shown}:3: refs: reference ../outside.py#L1-2@{digest}: ../outside.py leads outside the"
        " project; cite files inside it\n"
        f"not imported: {shown}:4: refs: reference src/..%2F..%2Foutside.py@{digest}: src/../../outside.py leads"
        " outside the project; cite files inside it\n",
    )
    entries = stored(project)
    assert [e.text for _, e in entries.values()] == ["kept"]
    assert [e.attr("refs") for _, e in entries.values()] == [f"src/app.py#L1-1@{digest}"]
    put = lh("memory", "put", "insights", "a note", "--ref", "../outside.py#L1-2", cwd=project)
    assert put.stderr == "--ref ../outside.py#L1-2: ../outside.py leads outside the project; cite files inside it\n"
