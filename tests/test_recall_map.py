"""memory/recall_map.py: the hooks' map of the memory, written with INDEX.md, each shard's rows made
again only when the shard changed."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from support import lh

MEMORY = ".agents/memory"
RECALL = ".agents/.cache/lh/recall"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def rows(root: Path, shard: str) -> list[tuple[str, str, str]]:
    """Each row of a shard's file as (shard, id, words)."""
    data = json.loads((root / RECALL / "shards" / f"{shard}.json").read_text("utf-8"))
    assert data["digest"] == digest(root / MEMORY / f"{shard}.md")
    return [(row[0], row[1], row[-1]) for row in data["entries"]]


def test_a_put_writes_the_map_of_every_shard_and_a_changed_shard_gets_new_rows(project: Path) -> None:
    text = "the build hangs on windows when the lock file is open"
    assert lh("memory", "put", "failures", text, "--id", "w1", cwd=project).returncode == 0
    shown = json.loads((project / RECALL / "map.json").read_text("utf-8"))
    shards = ("seed", "failures", "corrections", "insights", "conventions", "quirks")
    assert shown["shards"] == {
        **{name: digest(project / MEMORY / f"{name}.md") for name in shards},
        "personal": digest(project / f"{MEMORY}.local" / "personal.md"),
    }
    assert (shown["personal"], shown["files"], shown["stale"]) == (["personal"], {}, [])
    assert rows(project, "failures") == [("failures", "w1", "build hang window lock open")]
    assert rows(project, "seed") == []
    assert lh("memory", "put", "failures", "flaky again", "--id", "w1", cwd=project).returncode == 0
    assert rows(project, "failures") == [("failures", "w1", "flaki")]


def test_a_hand_edit_is_mapped_when_the_index_is_written_again(project: Path) -> None:
    assert lh("memory", "put", "quirks", "tar on macos lacks wildcards", "--id", "q1", cwd=project).returncode == 0
    shard = project / MEMORY / "quirks.md"
    shard.write_text(shard.read_text("utf-8").replace("tar on macos", "sed on busybox"), encoding="utf-8")
    assert lh("memory", "index", cwd=project).returncode == 0
    assert rows(project, "quirks") == [("quirks", "q1", "sed busybox lack wildcard")]
