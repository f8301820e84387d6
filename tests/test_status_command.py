"""lh memory status: entries and tokens per shard, as text and JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lean_harness.cli import main


def put(*args: str) -> int:
    return main(["memory", "put", *args])


def test_status_json_counts_entries_and_tokens(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert put("seed", "the build uses nox") == 0
    assert put("quirks", "tar on macOS lacks --wildcards") == 0
    capsys.readouterr()
    assert main(["memory", "status", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    shards = {s["name"]: s for s in data["shards"]}
    assert shards["seed"]["entries"] == 1
    assert shards["quirks"]["entries"] == 1
    assert data["total_tokens"] == shards["seed"]["tokens"] + shards["quirks"]["tokens"]
    assert data["encoding"] == "cl100k_base (tiktoken)"
    assert data["index"]["fresh"] is True
