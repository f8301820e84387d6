"""The hooks' map of the memory (its format: recall.py), written whenever lh writes or checks INDEX.md.

Only new and changed shards and entries are read, scanned and counted (as in the search cache, adr/0031);
words come from the masked text. A write that fails is skipped: the hooks stay silent until the next.
"""

from __future__ import annotations

import hashlib
import json

from lean_harness import recall
from lean_harness.errors import LhError
from lean_harness.files import write_atomic
from lean_harness.memory.handle import Memory
from lean_harness.memory.shard import parse, written
from lean_harness.memory.view import entry_cost


def write(memory: Memory, total: int) -> None:
    """Write the map of the memory as it is now; `total` is its tokens (INDEX.md's figure)."""
    stamp = recall.stamp(memory.config.memory_dir)  # before reading: a later edit leaves the map stale
    try:
        digests, rows = _rows(memory, recall.load(memory.config.cache_dir, None))
        data = {"format": recall.FORMAT, "stamp": stamp, "budget": memory.config.index_token_budget, "total": total}
        data |= {"shards": digests, "files": _files(memory), "entries": rows}
        write_atomic(recall.path(memory.config.cache_dir), json.dumps(data).encode(), durable=False)
    except (LhError, OSError):
        pass


def _rows(memory: Memory, last: recall.Map | None) -> tuple[dict[str, str], list[list[object]]]:
    """Each shard's digest and each entry's row: `[shard, id, key, written, pinned, tokens, stale, words]`."""
    from lean_harness.scanning.masking import mask_many

    stale = _stale(memory)
    old = last.notes if last else []
    kept = {(note.shard, note.key): note.row for note in old}
    digests: dict[str, str] = {}
    rows: list[list[object]] = []
    new = []
    for name in memory.config.shard_names:
        summary = memory.summary(name)
        if not summary.exists:
            continue
        digests[name] = summary.sha256
        if last and last.shards.get(name) == summary.sha256:
            rows += [[*note.row[:6], (name, note.id) in stale, note.row[7]] for note in old if note.shard == name]
            continue
        text, _ = memory.read_shard(name)
        for entry in parse(text, memory.shown(memory.shard_path(name))).entries:
            key = hashlib.sha256((entry.raw or entry.text).encode("utf-8", "surrogatepass")).hexdigest()[:16]
            row = [name, entry.id, key, written(entry), "pinned" in entry.tags, 0, (name, entry.id) in stale, ""]
            reused = kept.get((name, key))
            if reused is None:
                new.append((row, entry))
            else:
                row[5], row[7] = reused[5], reused[7]
            rows.append(row)
    for (row, entry), text in zip(new, mask_many([entry.text for _, entry in new]), strict=True):
        row[5] = entry_cost(entry, memory.counter.counts)
        row[7] = " ".join(recall.terms(f"{text} {' '.join(entry.tags)}"))  # in order: adjacent words pair
    return digests, rows


def _stale(memory: Memory) -> set[tuple[str, str]]:
    if not any(memory.summary(name).refs for name in memory.config.shard_names):
        return set()
    from lean_harness.memory.evidence import stale

    return {(cited.shard, cited.id) for cited in stale.report(memory).stale}


def _files(memory: Memory) -> dict[str, list[str]]:
    """The notes that cite each file, from the shard summaries; none from a refs value that does not read."""
    files: dict[str, set[str]] = {}
    for name in memory.config.shard_names:
        for key, value in memory.summary(name).refs:
            from lean_harness.memory.evidence.evidence import decode

            try:
                for anchor in decode(value, "refs"):
                    files.setdefault(anchor.path, set()).add(f"{name}/{key}")
            except LhError:
                continue
    return {path: sorted(names) for path, names in sorted(files.items())}
