"""Writing entries: put one note, or append many in one write, under the lock.

Every write checks the entry with memory/rules.py, takes the project's lock, re-reads what it
changes, writes each file atomically and regenerates INDEX.md, so a refused or failed write
leaves every file as it was (adr/0007-writes-and-locking.md).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from lean_harness.environment import now_utc
from lean_harness.errors import LhError
from lean_harness.files import open_existing, read_at, refuse_symlink, write_atomic
from lean_harness.memory import index as index_md
from lean_harness.memory import journal, rules, view
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
from lean_harness.memory.summary import (
    BLOCK_BYTES,
    Summary,
    appended_blocks,
    entry_cost,
    fingerprint,
    summarize,
    text_key,
    with_entries,
    with_entry,
)
from lean_harness.values import Value


class PutResult(Value):
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
    tags: Sequence[str] | None = (),
    key: str | None = None,
    allow: Sequence[str] = (),
    allow_directives: Sequence[str] = (),
    scan: bool = True,
    refs: Sequence[str] | None = None,
) -> PutResult:
    """Store `text` in `shard`: add it, update the entry `key` in place, or find it already there.

    `tags` replace an updated entry's tags, which None keeps. `refs` are PATH[#Lstart[-Lend]]
    references, anchored at the files as they are now; they replace an updated entry's
    references, which None keeps (memory/evidence.py).
    """
    name = memory.check_shard(shard)
    where = f"shard {name}"
    checked = rules.require(
        rules.check(text, tags=tags or (), key=key, allow=allow, directives=allow_directives), where
    )
    if scan:
        rules.refuse_credentials(checked, where)
        rules.refuse_directives(checked.text, checked.directives, where)
    cites = None
    if refs is not None:
        from lean_harness.memory import evidence  # only a note that cites files needs it

        cites = evidence.encode(evidence.anchor(memory.root, s, allow=checked.allow) for s in refs)
    with memory.writing():
        for other in memory.config.shard_names:
            memory.summary(other)  # INDEX.md needs them all: a broken one stops the put before any write
        try:
            return _put(memory, name, checked, key, cites, tags is None)
        except _Unseen:
            # The shard changed without its stat showing it: summarize it from its bytes, then again.
            memory.cache.forget(name)
            memory.forget_summaries()
        try:
            return _put(memory, name, checked, key, cites, tags is None)
        except _Unseen:
            raise LhError(
                f"{memory.shown(memory.shard_path(name))} changed while lh wrote it; nothing was written."
                " Run the command again"
            ) from None


class _Unseen(Exception):
    """The end of a shard is not what its cached summary says."""


class _Stored:
    """The shard a put writes to: its summary and ids listing, and its text only once it is needed."""

    def __init__(self, memory: Memory, name: str) -> None:
        self.memory, self.name = memory, name
        self.path = memory.shard_path(name)
        self.before = memory.summary(name)
        self._text: str | None = None
        self.fresh = not self.before.exists or not self.before.blocks  # no file, or an empty one
        self.appendable = not self.fresh
        if self.fresh:
            self._text = new_shard_text(name, dict(memory.config.shards)[name])
            self.before, self.ids = Summary(name, "", 0, 0, ()), ""
        elif memory.duplicates(name):
            self._text, self.before, self.ids = _deduplicated(memory, name, self.text)
            self.appendable = False
        else:
            listing = memory.cache.ids(name, self.before.sha256)
            self.ids = memory.ids(name, self.text, self.text.encode("utf-8")) if listing is None else listing

    @property
    def text(self) -> str:
        if self._text is None:
            self._text, _ = self.memory.read_shard(self.name)
        return self._text


def _put(
    memory: Memory, name: str, checked: rules.Checked, key: str | None, cites: str | None, keep_tags: bool = False
) -> PutResult:
    body, clean_tags, allowed, directives = checked.text, checked.tags, checked.allow, checked.directives
    stored = _Stored(memory, name)
    shown = memory.shown(stored.path)
    extra: tuple[tuple[str, str], ...] = (("allow-secret", ",".join(allowed)),) if allowed else ()
    extra += (("allow-directive", ",".join(directives)),) if directives else ()
    if cites:
        extra += (("refs", cites),)
    if key is None:
        for entry_id in _ids_with_text(stored.ids, text_key(body)):
            found = locate(stored.text, entry_id, shown)
            if found is not None and normalize_text(found[2].text) == body:
                if cites is None or found[2].attr("refs") == (cites or None):
                    return _unchanged(memory, name, found[2])
                key, clean_tags = entry_id, clean_tags or found[2].tags  # new references for a stored note
                break
    if key is not None:
        found = locate(stored.text, key, shown) if key in _Listed(stored.ids) else None
        if found is None:
            _refuse_key_elsewhere(memory, name, key)
            entry = Entry(key, now_utc(), body, clean_tags, (("sha", text_hash(body)), *extra))
            return _add(memory, stored, entry)
        start, end, old = found
        clean_tags = old.tags if keep_tags else clean_tags
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
        new_text = stored.text[:start] + render_entry(entry, newline, close_id=True) + stored.text[end:]
        replaced = entry_cost(old, memory.counter)
        return _finish(memory, stored, new_text, entry, replaced)
    entry = Entry(derive_id(name, body, _Listed(stored.ids)), now_utc(), body, clean_tags, extra)
    return _add(memory, stored, entry)


def _add(memory: Memory, stored: _Stored, entry: Entry) -> PutResult:
    """Add a new entry at the end of the shard: appended in place, or the shard written whole when new."""
    if not stored.appendable:
        return _finish(memory, stored, append_text(stored.text, entry), entry, None)
    name, path, before = stored.name, stored.path, stored.before
    end = _end_of(path)
    memory.check_size(name, end.size)
    data = _appended(end, entry).encode("utf-8")
    _within_limit(memory, name, end.size + len(data))
    blocks = appended_blocks(before.blocks, end.size, end.last_block, data)
    if blocks is None:
        raise _Unseen
    journal.commit(
        memory.config.memory_dir, {}, memory.journal_path, {path: journal.Append(end.size, before.sha256, data)}
    )
    tokens = entry_cost(entry, memory.counter)
    summary = with_entry(before, blocks, entry, tokens, memory.counter.exact)
    _remember(memory, summary, path, stored.ids + f"{text_key(entry.text)} {entry.id}\n")
    write_index(memory)
    return PutResult(entry.id, name, "added", tokens, summary.tokens, memory.totals(), memory.counter.label)


def add_entries(
    memory: Memory, additions: Sequence[tuple[str, Entry]], records: Mapping[Path, bytes | None] | None = None
) -> tuple[str, ...]:
    """Append new entries (shard, entry) and write `records` in one all-or-nothing commit.

    The caller holds `memory.writing()` and has checked each entry with memory/rules.py and that
    its id is new. `records` are the files that say the entries were taken in (import records,
    consumed-note markers): they change in the same journalled commit as the shards, so no kill
    can leave entries without their record, which would add them again (memory/journal.py).
    Every shard is summarized and every new shard text built before the first file is written,
    so a broken or oversized shard stops the write with nothing changed. The entries are appended
    to each shard in place (adr/0022-appends-in-place.md) and its summary brought up to date
    from them, without reading or counting what was there. Returns the shards written.
    """
    if not memory._locked:
        raise RuntimeError("add_entries needs the write lock: call it inside memory.writing()")
    if not additions and not records:
        return ()
    for other in memory.config.shard_names:
        memory.summary(other)
    grouped: dict[str, list[Entry]] = {}
    for name, entry in additions:
        grouped.setdefault(name, []).append(entry)
    for name in grouped:  # in the order the names first come: the first unknown one is named
        memory.check_shard(name)
    changes: dict[Path, bytes | None] = dict(records or {})
    appends: dict[Path, journal.Append] = {}
    appended: list[tuple[_Stored, tuple[str, ...], list[Entry]]] = []
    for name, entries in grouped.items():
        stored = _Stored(memory, name)
        if not stored.appendable:  # a new shard, or one with copies to drop: written whole
            data = append_entries(stored.text, entries).encode("utf-8")
            changes[stored.path] = _within_limit(memory, name, len(data), data)
            memory._summaries.pop(name, None)
            continue
        end = _end_of(stored.path)
        memory.check_size(name, end.size)
        data = _appended(end, entries[0]).encode("utf-8")
        data += "".join(end.newline + render_entry(e, end.newline) for e in entries[1:]).encode("utf-8")
        _within_limit(memory, name, end.size + len(data))
        blocks = appended_blocks(stored.before.blocks, end.size, end.last_block, data)
        if blocks is None:  # the shard changed unseen: write it whole, summarized again afterwards
            changes[stored.path] = append_entries(stored.text, entries).encode("utf-8")
            memory._summaries.pop(name, None)
            continue
        appends[stored.path] = journal.Append(end.size, stored.before.sha256, data)
        appended.append((stored, blocks, entries))
    summaries = []
    for stored, blocks, entries in appended:
        counted = view.costs([view.entry_block(e) for e in entries], memory.counter.counts)
        summary = with_entries(stored.before, blocks, entries, counted, memory.counter.exact)
        summaries.append((summary, stored.path, stored.ids + "".join(f"{text_key(e.text)} {e.id}\n" for e in entries)))
    for path in [*changes, *appends]:
        refuse_symlink(path, memory.root)
    journal.commit(memory.config.memory_dir, changes, memory.journal_path, appends)
    for summary, path, listing in summaries:
        _remember(memory, summary, path, listing)
    write_index(memory)  # also after a rerun that adds nothing: a kill may have stopped the last one before it
    return tuple(grouped)


class _End:
    """What an append needs to know of a shard: its size, line ending, last bytes and last partial block."""

    __slots__ = ("last_block", "newline", "size", "tail")

    def __init__(self, size: int, newline: str, tail: bytes, last_block: bytes) -> None:
        self.size, self.newline, self.tail, self.last_block = size, newline, tail, last_block


def _end_of(path: Path) -> _End:
    """Read the end of a shard (and its first line, for its line ending) without reading the rest."""
    fd = open_existing(path)
    try:
        size = os.fstat(fd).st_size
        part = size % BLOCK_BYTES
        last_block = read_at(fd, size - part, part)
        tail = last_block[-4:] if part >= 4 else read_at(fd, max(0, size - 4), min(size, 4))
        newline, at = "\n", 0
        while at < size:  # the parser takes a shard's line ending from its first line
            chunk = read_at(fd, at, 65536)
            found = chunk.find(b"\n")
            if found >= 0:
                newline = "\r\n" if (chunk[found - 1 : found] if found else read_at(fd, at - 1, 1)) == b"\r" else "\n"
                break
            at += len(chunk)
    finally:
        os.close(fd)
    return _End(size, newline, tail, last_block)


def _appended(end: _End, entry: Entry) -> str:
    """The text that appends `entry` to a shard ending as `end` says: a blank line first, as `append_text` puts it."""
    tail = end.tail.decode("latin-1")  # only its line breaks matter, and they are ASCII
    return append_text(tail, entry, end.newline)[len(tail) :]


def _remember(memory: Memory, summary: Summary, path: Path, ids: str | None) -> None:
    memory.cache.store(summary, path, ids)
    memory._summaries[summary.name] = summary


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
    summary, ids = summarize(name, fingerprint(fixed.encode("utf-8")), shard, memory.counter)
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


def _finish(memory: Memory, stored: _Stored, new_text: str, entry: Entry, replaced: int | None) -> PutResult:
    """Write the shard whole: a new shard, one with copies dropped, or an entry rewritten in place."""
    name, path, before, ids = stored.name, stored.path, stored.before, stored.ids
    tokens = entry_cost(entry, memory.counter)
    data = new_text.encode("utf-8")
    _within_limit(memory, name, len(data))
    blocks = fingerprint(data)
    position = None
    if replaced is not None:  # an update keeps its place; the ids listing is in file order
        position = next(n for n, line in enumerate(ids.splitlines()) if line.partition(" ")[2] == entry.id)
    summary = with_entry(before, blocks, entry, tokens, memory.counter.exact, replaced, position)
    if replaced is not None and before.prose_lines:
        # An entry rewritten in place may move the loose prose after it: count the shard again.
        summary, ids = summarize(name, blocks, parse(new_text, memory.shown(path)), memory.counter)
    elif replaced is None:
        ids = ids + f"{text_key(entry.text)} {entry.id}\n"
    else:
        ids = "".join(
            f"{text_key(entry.text)} {entry.id}\n" if line.partition(" ")[2] == entry.id else line + "\n"
            for line in ids.splitlines()
        )
    write_atomic(path, data, compare=False)  # a put always changes the shard
    _remember(memory, summary, path, ids)
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
        changes[memory.shard_path(name)] = _within_limit(memory, name, len(data), data)
    for path in changes:
        refuse_symlink(path, memory.root)
    if changes:
        journal.commit(memory.config.memory_dir, changes, memory.journal_path)
    for name in texts:
        memory._summaries.pop(name, None)
    write_index(memory)
    return tuple(texts)


def _within_limit(memory: Memory, name: str, size: int, data: bytes = b"") -> bytes:
    """`data`, or an error when shard `name` would be `size` bytes, past the size limit of a shard."""
    if size > MAX_SHARD_BYTES:
        raise LhError(
            f"{memory.shown(memory.shard_path(name))} would be {size} bytes, over the {MAX_SHARD_BYTES}"
            ' byte limit for a shard; nothing was written. Run "lh memory compact" first'
        )
    return data
