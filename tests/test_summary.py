"""memory/summary.py: per-shard cached summaries, rebuilt when the cache cannot be trusted."""

from __future__ import annotations

from pathlib import Path

from lean_harness.cli import main
from lean_harness.config import load
from lean_harness.memory import handle, status


def put(*args: str) -> int:
    return main(["memory", "put", *args])


def test_a_corrupt_cache_is_rebuilt_not_trusted(project: Path) -> None:
    assert put("seed", "a note about caching") == 0
    for cached in (project / ".agents/.cache/lh").rglob("*"):
        if cached.is_file() and cached.suffix in (".json", ".ids", ".tsv"):
            cached.write_bytes(b"\x00garbage")
    memory = handle.open_memory(load(project))
    result = status.status(memory)
    seed = next(s for s in result.shards if s.name == "seed")
    assert seed.entries == 1
    assert seed.tokens == 13  # what get prints: "[YYYY-MM-DD]", the 4 tokens of text, a blank line
