"""The hooks' map of the memory (its format: recall.py), written whenever lh writes or checks INDEX.md.

A shard whose digest the last map holds is not read again, and an entry whose key it holds is not
scanned or counted again: only new and changed entries are (as the search cache does, adr/0031).
Words come from the masked text, so no flagged credential reaches the cache. The map is a hint: a
write that fails is skipped and the hooks stay silent until the next one.
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
    folder = recall.folder(memory.config.cache_dir)
    try:
        digests, rows = _rows(memory, _previous(f"{folder}/map.json"))
        files = _files(memory)
    except (LhError, OSError):
        return
    data = {"format": recall.FORMAT, "stamp": stamp, "budget": memory.config.index_token_budget, "total": total}
    listed = "".join(f"{path}\t{' '.join(sorted(names))}\n" for path, names in sorted(files.items()))
    try:
        write_atomic(f"{folder}/files", f"{stamp}\n{listed}".encode(), durable=False)
        write_atomic(
            f"{folder}/map.json", json.dumps({**data, "shards": digests, "entries": rows}).encode(), durable=False
        )
    except OSError:
        pass


def _previous(path: str) -> tuple[dict[str, str], list[list[object]]]:
    """The digests and rows of the last map, as far as they are of their types; none from a broken one."""
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
        digests, rows = data["shards"], data["entries"]
        if isinstance(digests, dict) and isinstance(rows, list) and all(map(recall.is_row, rows)):
            return {k: v for k, v in digests.items() if isinstance(v, str)}, rows
    except (OSError, ValueError, RecursionError, TypeError, KeyError):
        pass
    return {}, []


def _rows(
    memory: Memory, previous: tuple[dict[str, str], list[list[object]]]
) -> tuple[dict[str, str], list[list[object]]]:
    """Each shard's digest and each entry's row: `[shard, id, key, written, pinned, tokens, stale, words]`."""
    from lean_harness.scanning.masking import mask_many

    digests, old = previous
    stale = _stale(memory)
    kept = {(str(row[0]), str(row[2])): row for row in old}
    found: dict[str, str] = {}
    rows: list[list[object]] = []
    new = []
    for name in memory.config.shard_names:
        summary = memory.summary(name)
        if not summary.exists:
            continue
        found[name] = summary.sha256
        if digests.get(name) == summary.sha256:
            rows += [[*row[:6], (name, row[1]) in stale, row[7]] for row in old if row[0] == name]
            continue
        text, _ = memory.read_shard(name)
        for entry in parse(text, memory.shown(memory.shard_path(name))).entries:
            key = hashlib.sha256((entry.raw or entry.text).encode("utf-8", "surrogatepass")).hexdigest()[:16]
            row = [name, entry.id, key, written(entry), "pinned" in entry.tags, 0, (name, entry.id) in stale, []]
            reused = kept.get((name, key))
            if reused is not None:
                row[5], row[7] = reused[5], reused[7]
            else:
                new.append((row, entry))
            rows.append(row)
    for (row, entry), text in zip(new, mask_many([entry.text for _, entry in new]), strict=True):
        row[5] = entry_cost(entry, memory.counter.counts)
        row[7] = sorted(set(recall.terms(f"{text} {' '.join(entry.tags)}")))
    return found, rows


def _stale(memory: Memory) -> set[tuple[str, str]]:
    if not any(memory.summary(name).refs for name in memory.config.shard_names):
        return set()
    from lean_harness.memory.evidence import stale

    return {(cited.shard, cited.id) for cited in stale.report(memory).stale}


def _files(memory: Memory) -> dict[str, set[str]]:
    """The notes that cite each file, from the shard summaries; none from a refs value that does not read."""
    files: dict[str, set[str]] = {}
    for name in memory.config.shard_names:
        for key, value in memory.summary(name).refs:
            from lean_harness.memory.evidence.evidence import decode

            try:
                paths = {anchor.path for anchor in decode(value, "refs")}
            except LhError:
                continue
            for path in paths:
                if path.isprintable():  # one line of the `files` list each
                    files.setdefault(path, set()).add(f"{name}/{key}")
    return files
