"""The hooks' map of the memory (its format: recall.py), written whenever lh writes or checks INDEX.md.

Entries are read from the shards as they are; texts and words are taken from the masked text, so
no flagged credential reaches the cache. The map is a hint: a write that fails is skipped and
the hooks stay silent until the next one.
"""

from __future__ import annotations

import json

from lean_harness import recall
from lean_harness.errors import LhError
from lean_harness.files import write_atomic
from lean_harness.memory.handle import Memory
from lean_harness.memory.shard import parse, written
from lean_harness.memory.view import entry_cost
from lean_harness.scanning.masking import mask_many


def write(memory: Memory, total: int) -> None:
    """Write the map of the memory as it is now; `total` is its tokens (INDEX.md's figure)."""
    stamp = recall.stamp(memory.config.memory_dir)  # before reading: a later edit leaves the map stale
    try:
        rows, files = _rows(memory)
    except (LhError, OSError):
        return
    data = {"format": recall.FORMAT, "stamp": stamp, "budget": memory.config.index_token_budget, "total": total}
    listed = "".join(f"{path}\t{' '.join(sorted(names))}\n" for path, names in sorted(files.items()))
    folder = recall.folder(memory.config.cache_dir)
    try:
        write_atomic(f"{folder}/files", f"{stamp}\n{listed}".encode(), durable=False)
        write_atomic(f"{folder}/map.json", json.dumps({**data, "entries": rows}).encode(), durable=False)
    except OSError:
        pass


def _rows(memory: Memory) -> tuple[list[list[object]], dict[str, set[str]]]:
    """Each entry's row of the map, and the notes that cite each file."""
    entries = []
    for name in memory.config.shard_names:
        if memory.summary(name).exists:
            text, _ = memory.read_shard(name)
            entries += [(name, entry) for entry in parse(text, memory.shown(memory.shard_path(name))).entries]
    stale = _stale(memory, any(entry.attr("refs") for _, entry in entries))
    texts = mask_many([entry.text for _, entry in entries])
    rows: list[list[object]] = []
    files: dict[str, set[str]] = {}
    for (name, entry), text in zip(entries, texts, strict=True):
        key = _key(entry.raw or entry.text)
        tokens = entry_cost(entry, memory.counter.counts)
        words = sorted(set(recall.terms(f"{text} {' '.join(entry.tags)}")))
        rows.append(
            [
                name,
                entry.id,
                key,
                written(entry),
                "pinned" in entry.tags,
                tokens,
                (name, entry.id) in stale,
                text,
                words,
            ]
        )
        for path in _cited(entry.attr("refs")):
            files.setdefault(path, set()).add(f"{name}/{entry.id}")
    return rows, files


def _key(text: str) -> str:
    """What a note was when it was handed over: a changed note goes again (recall.py)."""
    import hashlib

    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _stale(memory: Memory, cites: bool) -> set[tuple[str, str]]:
    if not cites:
        return set()
    from lean_harness.memory.evidence import stale

    return {(cited.shard, cited.id) for cited in stale.report(memory).stale}


def _cited(refs: str | None) -> list[str]:
    """The paths an entry's refs attribute cites; none from one that does not read."""
    if not refs:
        return []
    from lean_harness.memory.evidence.evidence import decode

    try:
        paths = {anchor.path for anchor in decode(refs, "refs")}
    except LhError:
        return []
    return sorted(path for path in paths if path.isprintable())  # one line of the `files` list each
