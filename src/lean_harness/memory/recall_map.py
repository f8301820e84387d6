"""The hooks' map of the memory (its format: recall.py), written whenever lh writes or checks INDEX.md.

One file of rows per shard, and one of its words (what failures and prompts are matched on), kept
while the shard's digest is the same (as the search cache is, adr/0031); a changed shard's rows are
made again, reusing the words and counts of entries whose text did not change, and from the entries
a write just made when it says which (never parsing its shard again). Words come from the masked
text. The shards' files are written before the map, so a kill between them leaves the map of the old
stamp, which the hooks do not use. A write that fails is skipped: the hooks stay silent until the
next.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from contextlib import suppress

from lean_harness import hookstate, recall
from lean_harness.errors import LhError
from lean_harness.files import write_atomic
from lean_harness.memory.handle import Memory
from lean_harness.memory.shard import Entry, parse, written
from lean_harness.memory.summary import Summary
from lean_harness.memory.view import entry_cost

Written = tuple[str | None, Sequence[Entry]]  # a shard's digest before a write, and the entries it wrote
Wrote = Mapping[str, Written]  # by shard
TYPE_CHECKING = False
if TYPE_CHECKING:
    from lean_harness.memory.evidence.stale import Cited


def write(memory: Memory, total: int, cited: Sequence[Cited], wrote: Wrote | None = None) -> None:
    """Write the map of the memory as it is now; `total` is its tokens (INDEX.md's figure), `cited` its
    entries that cite files, checked (memory/status.py); `wrote`, the entries a write just added or
    rewrote in place, by shard."""
    cache, budget = memory.config.cache_dir, memory.config.index_token_budget
    # Before reading and after: a change while it is made (an edit, a checkout) leaves the old map.
    stamp = recall.stamp(str(memory.config.memory_dir), str(memory.config.personal_dir))
    with suppress(LhError, OSError):
        last = recall.load(cache, None, whole=False)
        digests: dict[str, str] = {}
        must: list[list[object]] = []
        files: dict[str, list[int]] = {}  # each shard's rows file as written: one changed since is made again
        for name in memory.config.shard_names:
            summary = memory.summary(name)
            if not summary.exists:
                continue
            digests[name], part = summary.sha256, hookstate.stat_of(recall.path(cache, name, "words"))
            now = (budget, summary.sha256, list(part or ()))
            if last and (last.budget, last.shards.get(name), last.parts.get(name)) == now:
                must += [note.row for note in last.notes if note.shard == name]
            else:
                must += _must(_rows(memory, summary, (wrote or {}).get(name)), budget)
                part = hookstate.stat_of(recall.path(cache, name, "words"))
            files[name] = list(part or ())
        data = {"format": recall.FORMAT, "stamp": stamp, "budget": budget, "total": total, "shards": digests}
        data |= {"personal": [name for name in memory.config.personal if name in digests], "parts": files}
        cited = [e for e in cited if e.id not in memory.summary(e.shard).leaked]  # names holding a credential
        stale = sorted({f"{entry.shard}/{entry.id}" for entry in cited if entry.stale})
        data |= {"files": _files(cited), "stale": stale, "must": must}
        if recall.stamp(str(memory.config.memory_dir), str(memory.config.personal_dir)) == stamp:
            write_atomic(recall.path(cache), json.dumps(data).encode(), durable=False)  # else it read two states


def _rows(memory: Memory, summary: Summary, wrote: Written | None) -> list[list[object]]:
    """The rows of shard `name` at `digest` (recall.py), written to its file."""
    from lean_harness.scanning.masking import mask_many

    cache, name, digest = memory.config.cache_dir, summary.name, summary.sha256
    last = recall.rows_of(cache, name)
    if last is not None and last[0] == digest:  # the map or the words file alone was lost or changed
        write_atomic(recall.path(cache, name, "words"), recall.words_text(digest, last[1]).encode(), durable=False)
        return last[1]
    if wrote is not None and last is not None and last[0] == wrote[0]:
        entries, rows = list(wrote[1]), [list(row) for row in last[1]]
    else:
        text, _ = memory.read_shard(name)
        entries, rows = list(parse(text, memory.shown(memory.shard_path(name))).entries), []
    kept = {row[2]: row for row in last[1]} if last else {}
    at = {row[1]: n for n, row in enumerate(rows)}
    new = []
    for entry in (e for e in entries if e.id not in summary.leaked):  # left out, as the search cache leaves it out
        key = recall.key(entry.raw or entry.text)
        row = [name, entry.id, key, written(entry), "pinned" in entry.tags, 0, False, ""]
        reused = kept.get(key)
        if reused is None:
            new.append((row, entry))
        else:
            row[5], row[7] = reused[5], reused[7]
        if entry.id in at:
            rows[at[entry.id]] = row
        else:
            rows.append(row)
    rows = [row for row in rows if row[1] not in summary.leaked]  # a row the last map kept for it goes too
    for (row, entry), text in zip(new, mask_many([entry.text for _, entry in new]), strict=True):
        row[5] = entry_cost(entry, memory.counter.counts)
        row[7] = " ".join(recall.terms(f"{text} {' '.join(entry.tags)}"))  # in order: adjacent words pair
    data = {"format": recall.FORMAT, "digest": digest, "entries": rows}
    write_atomic(recall.path(cache, name), json.dumps(data).encode(), compare=False, durable=False)
    write_atomic(recall.path(cache, name, "words"), recall.words_text(digest, rows).encode(), durable=False)
    return rows


def _must(rows: list[list[object]], budget: int) -> list[list[object]]:
    """The rows of one shard a session start may show first, in file order: a shard's own pick
    holds every note the pick over all shards takes from it (recall.must_first)."""
    picked = {id(note.row) for note in recall.must_first([recall.Note(row) for row in rows], budget)}
    return [row for row in rows if id(row) in picked]


def _files(cited: Sequence[Cited]) -> dict[str, list[str]]:
    """The notes that cite each file; none from a refs value that does not read (its entry has no findings)."""
    files: dict[str, set[str]] = {}
    for entry in cited:
        for finding in entry.findings:
            files.setdefault(finding.anchor.path, set()).add(f"{entry.shard}/{entry.id}")
    return {path: sorted(names) for path, names in sorted(files.items())}
