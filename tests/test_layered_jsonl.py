"""memory/intake/formats/layered_jsonl.py: one event a line, in files by category."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_importing import run_import, stored


def test_layered_jsonl_takes_the_last_event_and_unions_tags_and_sources(project: Path, sources: Path) -> None:
    assert run_import(str(sources / "layered")) == 0
    entries = stored(project)
    shard, cache = entries["k-cache"]
    assert shard == "insights"
    assert cache.text == (
        "The token cache is keyed by the SHA-256 of the text.\n\nSources: src/tokens.py, adr/0005-token-counts.md"
    )
    assert (cache.tags, cache.created) == (("cache", "tokens"), "2026-01-11T09:00:00Z")
    assert entries["p-release"][0] == "seed"
    assert entries["l-fsync"][0] == "corrections"


def test_an_id_that_changes_category_is_refused_whole_naming_both_places(
    project: Path, sources: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert run_import("../sources/layered-moved") == 1
    assert capsys.readouterr().err == (
        "not imported: ../sources/layered-moved/memory/plan.jsonl:1: id 'x-moves' is also in lesson"
        " (../sources/layered-moved/memory/lesson.jsonl:1); an id keeps one category: give one of them a new id\n"
    )
    assert "x-moves" not in stored(project)


def test_layered_events_with_categories_references_and_unknown_fields(
    project: Path, sources: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert run_import("../sources/layered-rich") == 1
    where = "../sources/layered-rich/memory"
    fields = "fields are id, text, category, tags, refs, source_refs, created"
    assert capsys.readouterr().err.splitlines() == [
        f"warning: {where}/knowledge.jsonl: field 'confidence' is not imported (line(s) 1, 2); {fields}",
        f"warning: {where}/knowledge.jsonl: field 'session' is not imported (line(s) 2); {fields}",
        f"not imported: {where}/lesson.jsonl:2: category 'plan' differs from its file's (lesson); an id keeps one"
        " category: move the event to its category's file or give it a new id",
        f"not imported: {where}/path.jsonl:1: tags must be a list of strings",
        f"not imported: {where}/plan.jsonl:2: id 'k-pool' is also in knowledge ({where}/knowledge.jsonl:3);"
        " an id keeps one category: give one of them a new id",
    ]
    entries = stored(project)
    assert {key: shard for key, (shard, _) in entries.items()} == {
        "k-retry": "insights",
        "l-fixtures": "corrections",
        "x-path-ok": "conventions",
        "p-release": "seed",
    }
    retry = entries["k-retry"][1]
    assert retry.text == (
        "The HTTP client retries idempotent requests three times with backoff.\n\n"
        "Sources: src/http/client.py, docs/http.md"
    )
    assert (retry.tags, retry.created) == (("http", "retry"), "2026-02-01T10:00:00Z")
    assert entries["p-release"][1].created == "2026-03-01T07:00:00Z"


def test_an_unreadable_event_holds_back_the_ids_of_its_file(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "layered" / "memory"
    folder.mkdir(parents=True)
    (folder / "knowledge.jsonl").write_text(
        '{"id": "k-one", "text": "first text"}\n{"id": "k-one", "text": "second text"\n', "utf-8"
    )
    (folder / "lesson.jsonl").write_text('{"id": "l-one", "text": "a lesson"}\n', "utf-8")
    capsys.readouterr()
    assert run_import(str(tmp_path / "layered")) == 1
    shown = folder.as_posix()
    assert capsys.readouterr().err.splitlines() == [
        f"not imported: {shown}/knowledge.jsonl: 1 id(s) held back until the lines above are fixed: a later event"
        " may change them",
        f"not imported: {shown}/knowledge.jsonl:2: not valid JSON (Expecting ',' delimiter at column 38)",
    ]
    assert sorted(stored(project)) == ["l-one"]
