"""Writing entries: put one note, or append many in one write, under the lock.

Every write checks the entry with memory/rules.py, takes the project's lock, re-reads what it
changes, writes each file atomically and regenerates INDEX.md, so a refused or failed write
leaves every file as it was (adr/0007-writes-and-locking.md).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from lean_harness.environment import now_utc
from lean_harness.errors import LhError
from lean_harness.files import refuse_symlink, write_atomic
from lean_harness.memory import evidence, journal, rules
from lean_harness.memory import index as index_md
from lean_harness.memory.handle import MAX_SHARD_BYTES, Memory, header_re, locate
from lean_harness.memory.shard import (
    Entry,
    append_entries,
    append_text,
    derive_id,
    new_shard_text,
    normalize_text,
    parse,
    render,
    render_entry,
    text_hash,
    without_duplicates,
)
from lean_harness.memory.status import write_index
from lean_harness.memory.summary import Summary, entry_cost, summarize, text_key, with_entry


@dataclass(frozen=True)
class PutResult:
    """What a put did and where the memory stands after it."""

    id: str
    shard: str
    action: str  # "added", "updated" or "unchanged"
    entry_tokens: int
    shard_tokens: int
    totals: index_md.Totals
    label: str


def put(
    memory: Memory,
    shard: str,
    text: str,
    *,
    tags: Sequence[str] = (),
    key: str | None = None,
    allow: Sequence[str] = (),
    allow_directives: Sequence[str] = (),
    scan: bool = True,
    refs: Sequence[str] | None = None,
) -> PutResult:
    """Store `text` in `shard`: add it, update the entry `key` in place, or find it already there.

    `refs` are PATH[#Lstart[-Lend]] references, anchored at the files as they are now; they
    replace an updated entry's references, which None keeps (memory/evidence.py).
    """
    name = memory.check_shard(shard)
    where = f"shard {name}"
    checked = rules.require(rules.check(text, tags=tags, key=key, allow=allow, directives=allow_directives), where)
    body, clean_tags, allowed, directives = checked.text, checked.tags, checked.allow, checked.directives
    if scan:
        rules.refuse_credentials(checked, where)
        rules.refuse_directives(body, directives, where)
    cites = None if refs is None else evidence.encode(evidence.anchor(memory.root, s, allow=allowed) for s in refs)
    with memory.writing():
        for other in memory.config.shard_names:
            memory.summary(other)  # INDEX.md needs them all: a broken one stops the put before any write
        path = memory.shard_path(name)
        shown = memory.shown(path)
        current, data = memory.read_shard(name)
        existing = current or new_shard_text(name, dict(memory.config.shards)[name])
        before = memory.summary(name) if current else Summary(name, "", 0, 0, ())
        ids = memory.ids(name, current, data) if current else ""
        if current and memory.duplicates(name):
            existing, before, ids = _deduplicated(memory, name, current)
        extra: tuple[tuple[str, str], ...] = (("allow-secret", ",".join(allowed)),) if allowed else ()
        extra += (("allow-directive", ",".join(directives)),) if directives else ()
        if cites:
            extra += (("refs", cites),)
        if key is None:
            for entry_id in _ids_with_text(ids, text_key(body)):
                found = locate(existing, entry_id, shown)
                if found is not None and normalize_text(found[2].text) == body:
                    if cites is None or found[2].attr("refs") == (cites or None):
                        return _unchanged(memory, name, found[2])
                    key, clean_tags = entry_id, clean_tags or found[2].tags  # new references for a stored note
                    break
        if key is not None:
            found = locate(existing, key, shown)
            if found is None:
                _refuse_key_elsewhere(memory, name, key)
                entry = Entry(key, now_utc(), body, clean_tags, (("sha", text_hash(body)), *extra))
                new_text = append_text(existing, entry, close_id=True)
                return _finish(memory, name, path, new_text, entry, before, ids, None)
            start, end, old = found
            same_allow = old.attr("allow-secret") == (",".join(allowed) or None) and old.attr("allow-directive") == (
                ",".join(directives) or None
            )
            same_refs = cites is None or old.attr("refs") == (cites or None)
            if old.text == body and old.tags == clean_tags and same_allow and same_refs:
                return _unchanged(memory, name, old)
            # `sha` makes the headers of two versions differ even when written in the same second,
            # so a merge of both shows them as two versions, never fused under one header (adr/0008).
            dropped = ("updated", "sha", "allow-secret", "allow-directive", *(("refs",) if cites is not None else ()))
            kept = tuple((k, v) for k, v in old.extra if k not in dropped)
            fresh = (("updated", now_utc()), ("sha", text_hash(body)))
            entry = Entry(key, old.created, body, clean_tags, (*fresh, *kept, *extra))
            newline = "\r\n" if "\r\n" in (old.raw or "") else "\n"
            new_text = existing[:start] + render_entry(entry, newline, close_id=True) + existing[end:]
            replaced = entry_cost(old, memory.counter)
            return _finish(memory, name, path, new_text, entry, before, ids, replaced)
        entry = Entry(derive_id(name, body, _Listed(ids)), now_utc(), body, clean_tags, extra)
        return _finish(memory, name, path, append_text(existing, entry, close_id=True), entry, before, ids, None)


def add_entries(
    memory: Memory, additions: Sequence[tuple[str, Entry]], records: Mapping[Path, bytes | None] | None = None
) -> tuple[str, ...]:
    """Append new entries (shard, entry) and write `records` in one all-or-nothing commit.

    The caller holds `memory.writing()` and has checked each entry with memory/rules.py and that
    its id is new. `records` are the files that say the entries were taken in (import records,
    consumed-note markers): they change in the same journalled commit as the shards, so no kill
    can leave entries without their record, which would add them again (memory/journal.py).
    Every shard is summarized and every new shard text built before the first file is written,
    so a broken or oversized shard stops the write with nothing changed. Returns the shards written.
    """
    if not memory._locked:
        raise RuntimeError("add_entries needs the write lock: call it inside memory.writing()")
    if not additions and not records:
        return ()
    for other in memory.config.shard_names:
        memory.summary(other)
    grouped: dict[str, list[Entry]] = {}
    for name, entry in additions:
        grouped.setdefault(memory.check_shard(name), []).append(entry)
    changes: dict[Path, bytes | None] = dict(records or {})
    for name, entries in grouped.items():
        current, _ = memory.read_shard(name)
        text = current or new_shard_text(name, dict(memory.config.shards)[name])
        if current and memory.duplicates(name):
            text, _, _ = _deduplicated(memory, name, current)
        changes[memory.shard_path(name)] = _within_limit(memory, name, append_entries(text, entries).encode("utf-8"))
    for path in changes:
        refuse_symlink(path, memory.root)
    journal.commit(memory.config.memory_dir, changes, memory.journal_path)
    for name in grouped:
        memory._summaries.pop(name, None)
    write_index(memory)  # also after a rerun that adds nothing: a kill may have stopped the last one before it
    return tuple(grouped)


def _ids_with_text(ids: str, digest: str) -> list[str]:
    """The ids whose text hashes to `digest`, found by substring search in the ids listing."""
    found = []
    at = ids.find(digest + " ")
    while at >= 0:
        if at == 0 or ids[at - 1] == "\n":
            end = ids.find("\n", at)
            found.append(ids[at + len(digest) + 1 : end if end >= 0 else len(ids)])
        at = ids.find(digest + " ", at + 1)
    return found


class _Listed:
    """The ids of an ids listing, as a container, without building a set of them all."""

    def __init__(self, ids: str) -> None:
        self.ids = ids

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and (f" {key}\n" in self.ids)


def _deduplicated(memory: Memory, name: str, text: str) -> tuple[str, Summary, str]:
    """A shard's text with exact copies of entries dropped, its summary and its ids listing."""
    shard, _ = without_duplicates(parse(text, memory.shown(memory.shard_path(name))))
    fixed = render(shard, close_id=True)
    digest = hashlib.sha256(fixed.encode("utf-8")).hexdigest()
    summary, ids = summarize(name, digest, shard, memory.counter)
    return fixed, summary, ids


def _unchanged(memory: Memory, name: str, entry: Entry) -> PutResult:
    summary = memory.summary(name)
    return PutResult(
        entry.id,
        name,
        "unchanged",
        entry_cost(entry, memory.counter),
        summary.tokens,
        memory.totals(),
        memory.counter.label,
    )


def _finish(
    memory: Memory,
    name: str,
    path: Path,
    new_text: str,
    entry: Entry,
    before: Summary,
    ids: str,
    replaced: int | None,
) -> PutResult:
    tokens = entry_cost(entry, memory.counter)
    data = new_text.encode("utf-8")
    digest = hashlib.sha256(data).hexdigest()
    position = None
    if replaced is not None:  # an update keeps its place; the ids listing is in file order
        position = next(n for n, line in enumerate(ids.splitlines()) if line.partition(" ")[2] == entry.id)
    summary = with_entry(before, digest, entry, tokens, memory.counter.exact, replaced, position)
    if replaced is not None and before.prose_lines:
        # An entry rewritten in place may move the loose prose after it: count the shard again.
        summary, ids = summarize(name, digest, parse(new_text, memory.shown(path)), memory.counter)
    elif replaced is None:
        ids = ids + f"{text_key(entry.text)} {entry.id}\n"
    else:
        ids = "".join(
            f"{text_key(entry.text)} {entry.id}\n" if line.partition(" ")[2] == entry.id else line + "\n"
            for line in ids.splitlines()
        )
    write_atomic(path, data, compare=False)  # a put always changes the shard
    memory.cache.store(summary, path, ids)
    memory._summaries[name] = summary
    write_index(memory)
    action = "added" if replaced is None else "updated"
    return PutResult(entry.id, name, action, tokens, summary.tokens, memory.totals(), memory.counter.label)


def _refuse_key_elsewhere(memory: Memory, shard: str, key: str) -> None:
    pattern = header_re(key)
    for other in memory.config.shard_names:
        if other != shard:
            text, _ = memory.read_shard(other)
            if pattern.search(text):
                raise LhError(f"entry {key} is in shard {other}, not {shard}; update it there or choose another --id")


def replace_shards(memory: Memory, texts: Mapping[str, str]) -> tuple[str, ...]:
    """Write whole new shard texts in one all-or-nothing commit and regenerate INDEX.md.

    The caller holds `memory.writing()` and has checked every new entry with memory/rules.py.
    Returns the shards written.
    """
    if not memory._locked:
        raise RuntimeError("replace_shards needs the write lock: call it inside memory.writing()")
    changes: dict[Path, bytes | None] = {}
    for name, text in texts.items():
        data = text.encode("utf-8")
        parse(data.decode("utf-8"), memory.shown(memory.shard_path(name)))  # never write what cannot be read back
        changes[memory.shard_path(name)] = _within_limit(memory, name, data)
    for path in changes:
        refuse_symlink(path, memory.root)
    if changes:
        journal.commit(memory.config.memory_dir, changes, memory.journal_path)
    for name in texts:
        memory._summaries.pop(name, None)
    write_index(memory)
    return tuple(texts)


def _within_limit(memory: Memory, name: str, data: bytes) -> bytes:
    """The new bytes of shard `name`, or an error when they pass the size limit of a shard."""
    if len(data) > MAX_SHARD_BYTES:
        raise LhError(
            f"{memory.shown(memory.shard_path(name))} would be {len(data)} bytes, over the {MAX_SHARD_BYTES}"
            ' byte limit for a shard; nothing was written. Run "lh memory compact" first'
        )
    return data
