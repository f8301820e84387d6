"""Writing entries: put one note, or add many in one write, under the lock.

Every write checks the entry (memory/rules.py), writes each shard whole through memory/journal.py and
regenerates INDEX.md, so a refused or failed write leaves every file as it was (adr/0007, adr/0033).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from lean_harness.environment import now_utc
from lean_harness.errors import LhError
from lean_harness.memory import index as index_md
from lean_harness.memory import journal, rules, view
from lean_harness.memory.handle import Memory, locate
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
from lean_harness.memory.status import totals, write_index
from lean_harness.memory.summary import Summary, id_lines, shard_digest, summarize, text_key, with_entries


@dataclass(frozen=True, slots=True)
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
    tags: Sequence[str] | None = (),
    key: str | None = None,
    allow: Sequence[str] = (),
    allow_directives: Sequence[str] = (),
    scan: bool = True,
    refs: Sequence[str] | None = None,
) -> PutResult:
    """Store `text` in `shard`: add it, update the entry `key` in place, or find it already there.

    `tags` and `refs` (PATH[#Lstart[-Lend]], anchored now) replace an updated entry's own; None keeps them.
    """
    name, checked, cites = prepare(memory, shard, text, tags, key, allow, allow_directives, refs, scan)
    with memory.writing():
        memory.check_shards()
        try:
            return _put(memory, name, checked, key, cites, tags is None)
        except journal.Changed:
            # The shard changed since it was read, or without its stat showing it: summarize it
            # from its bytes, then try once more.
            memory.cache.forget(name)
            memory.forget_summaries()
        return _put(memory, name, checked, key, cites, tags is None)


def prepare(
    memory: Memory,
    shard: str,
    text: str,
    tags: Sequence[str] | None = None,
    key: str | None = None,
    allow: Sequence[str] = (),
    allow_directives: Sequence[str] = (),
    refs: Sequence[str] | None = None,
    scan: bool = True,
) -> tuple[str, rules.Checked, str | None]:
    """The shard's name, the entry checked by memory/rules.py (refused when it holds a credential or
    a directive) and its references anchored, before any lock is taken."""
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
        from lean_harness.memory.evidence import evidence  # only a note that cites files needs it

        cites = evidence.encode(evidence.anchor(memory.root, s, allow=checked.allow) for s in refs)
    return name, checked, cites


def extra_of(checked: rules.Checked, cites: str | None) -> tuple[tuple[str, str], ...]:
    """The header attributes a new entry records: the scanner rules it may trip, its references."""
    extra: tuple[tuple[str, str], ...] = (("allow-secret", ",".join(checked.allow)),) if checked.allow else ()
    extra += (("allow-directive", ",".join(checked.directives)),) if checked.directives else ()
    return extra + ((("refs", cites),) if cites else ())


_EMPTY = shard_digest(b"")
_BOM = b"\xef\xbb\xbf"


class _Stored:
    """The shard a write changes: its summary, the digest it was read at, its ids listing, its text when needed."""

    def __init__(self, memory: Memory, name: str) -> None:
        self.memory, self.name = memory, name
        self.path = memory.shard_path(name)
        self.before = memory.summary(name)
        self.basis = self.before.sha256 if self.before.exists else None
        self._text: str | None = None
        self.bom = False
        # summarized again after the write, not from the entries added: a new shard (no file, or an empty one)
        self.whole = not self.before.exists or self.before.sha256 == _EMPTY
        if self.whole:
            self._text = new_shard_text(name, dict(memory.config.shards)[name])
            self.before, self.ids = Summary(name, "", 0, 0, ()), ""
        elif self.before.repeated:
            shard, _ = without_duplicates(parse(self.text, memory.shown(self.path)))  # exact copies dropped
            self._text = render(shard)
            self.before, self.ids = summarize(name, shard_digest(self._text.encode("utf-8")), shard, memory.counter)
            self.whole = True
        else:
            self.ids = memory.listing(name, self.before.sha256, self.text)  # the text is read for the write anyway

    @property
    def text(self) -> str:
        if self._text is None:
            self._text, data = self.memory.read_shard(self.name)
            self.bom = data.startswith(_BOM)
        return self._text

    def encode(self, text: str) -> bytes:
        """The bytes of the new shard text, with the byte-order mark the file began with, if any."""
        return (_BOM if self.bom else b"") + text.encode("utf-8")

    @property
    def newline(self) -> str:
        """The shard's line ending, as the parser reads it: that of its first line."""
        text = self.text
        at = text.find("\n")
        return "\r\n" if at > 0 and text[at - 1] == "\r" else "\n"


def _put(
    memory: Memory, name: str, checked: rules.Checked, key: str | None, cites: str | None, keep_tags: bool = False
) -> PutResult:
    body, clean_tags = checked.text, checked.tags
    stored = _Stored(memory, name)
    shown = memory.shown(stored.path)
    extra = extra_of(checked, cites)
    if key is None:
        for entry_id in re.findall(f"(?m)^{re.escape(text_key(body))} (.*)", stored.ids):  # ids with this text
            found = locate(stored.text, entry_id, shown)
            if found is not None and normalize_text(found[2].text) == body:
                if cites is None or found[2].attr("refs") == (cites or None):
                    return _unchanged(memory, name, found[2])
                key, clean_tags = entry_id, clean_tags or found[2].tags  # new references for a stored note
                break
    if key is not None:
        found = locate(stored.text, key, shown) if key in _Listed(stored.ids) else None
        if found is None:
            for other in memory.config.shard_names:  # an id names one entry in the whole memory
                if other != name and key in _Listed(memory.listing(other, memory.summary(other).sha256)):
                    raise LhError(
                        f"entry {key} is in shard {other}, not {name}; update it there or choose another --id"
                    )
            entry = Entry(key, now_utc(), body, clean_tags, (("sha", text_hash(body)), *extra))
            return _finish(memory, stored, append_text(stored.text, entry, stored.newline), entry, None)
        start, end, old = found
        clean_tags = old.tags if keep_tags else clean_tags
        given = ("allow-secret", "allow-directive", *(("refs",) if cites is not None else ()))  # what `extra` sets
        if old.text == body and old.tags == clean_tags and all(old.attr(k) == dict(extra).get(k) for k in given):
            return _unchanged(memory, name, old)
        # `sha` makes the headers of two versions differ even when written in the same second,
        # so a merge of both shows them as two versions, never fused under one header (adr/0008).
        kept = tuple((k, v) for k, v in old.extra if k not in ("updated", "sha", *given))
        fresh = (("updated", now_utc()), ("sha", text_hash(body)))
        entry = Entry(key, old.created, body, clean_tags, (*fresh, *kept, *extra))
        block = render_entry(entry, "\r\n" if "\r\n" in (old.raw or "") else "\n")
        entry = replace(entry, raw=block)
        new_text = stored.text[:start] + block + stored.text[end:]
        replaced = view.entry_cost(old, memory.counter.counts)
        return _finish(memory, stored, new_text, entry, replaced)
    entry = Entry(derive_id(name, body, _Listed(stored.ids)), now_utc(), body, clean_tags, extra)
    return _finish(memory, stored, append_text(stored.text, entry, stored.newline), entry, None)


def add_entries(
    memory: Memory, additions: Sequence[tuple[str, Entry]], records: Mapping[Path, bytes | None] | None = None
) -> tuple[str, ...]:
    """Add new (shard, entry) pairs at the ends of their shards and write `records`, in one journalled commit.

    The caller holds `memory.writing()` and has checked each entry and that its id is new. `records`
    (import records, consumed-note markers) commit with the shards, so no kill leaves one without the other.
    Returns the shards written.
    """
    if not memory.locked:
        raise RuntimeError("add_entries needs the write lock: call it inside memory.writing()")
    if not additions and not records:
        return ()
    memory.check_shards()
    grouped: dict[str, list[Entry]] = {}
    for name, entry in additions:
        grouped.setdefault(name, []).append(entry)
    for name in grouped:  # in the order the names first come: the first unknown one is named
        memory.check_shard(name)
    changes: dict[Path, bytes | None] = dict(records or {})
    basis: dict[Path, str | None] = {}
    summaries, wrote = [], dict[str, tuple[str | None, list[Entry]]]()
    for name, entries in grouped.items():
        stored = _Stored(memory, name)
        data = stored.encode(append_entries(stored.text, entries, stored.newline))
        wrote |= _wrote(stored, entries)
        memory.check_size(name, len(data), written=True)
        changes[stored.path] = data
        basis[stored.path] = stored.basis
        if stored.whole:  # a new shard, or one with copies dropped: summarized from its bytes
            memory.forget_summary(name)
            continue
        counted = view.costs([view.entry_block(e) for e in entries], memory.counter.counts)
        summary = with_entries(stored.before, shard_digest(data), entries, counted, memory.counter.exact)
        summaries.append((summary, stored.path, stored.ids + id_lines(entries)))
    journal.commit(memory.config.memory_dir, changes, memory.journal_path, basis, root=memory.root)
    for summary, path, listing in summaries:
        memory.cache.store(summary, path, listing)
        memory.keep_summary(summary.name, summary)
    write_index(memory, wrote)  # also after a rerun that adds nothing: a kill may have stopped the last one before it
    return tuple(grouped)


def _wrote(stored: _Stored, entries: list[Entry], prose: bool = False) -> dict[str, tuple[str | None, list[Entry]]]:
    """The entries written in place or at the end of a shard, with their lines, for the hooks' map
    (memory/recall_map.py); none when the write touched more: a new or de-duplicated shard, prose
    moved, a last line completed."""
    if stored.whole or prose or not stored.text.endswith("\n"):
        return {}
    return {stored.name: (stored.basis, [replace(e, raw=e.raw or render_entry(e, stored.newline)) for e in entries])}


class _Listed:
    """The ids of an ids listing, as a container, without building a set of them all."""

    def __init__(self, ids: str) -> None:
        self.ids = ids

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and (f" {key}\n" in self.ids)


def _unchanged(memory: Memory, name: str, entry: Entry) -> PutResult:
    tokens, shard_tokens = view.entry_cost(entry, memory.counter.counts), memory.summary(name).tokens
    return PutResult(entry.id, name, "unchanged", tokens, shard_tokens, totals(memory), memory.counter.label)


def _finish(memory: Memory, stored: _Stored, new_text: str, entry: Entry, replaced: int | None) -> PutResult:
    """Write the shard whole: with an entry added at its end (`replaced` None) or rewritten in place."""
    name, path, before, ids = stored.name, stored.path, stored.before, stored.ids
    tokens = view.entry_cost(entry, memory.counter.counts)
    data = stored.encode(new_text)
    memory.check_size(name, len(data), written=True)
    digest = shard_digest(data)
    position = None
    if replaced is None:
        ids += id_lines([entry])
    else:  # an update keeps its place; the ids listing is in file order
        lines = ids.splitlines(keepends=True)
        position = next(n for n, line in enumerate(lines) if line.partition(" ")[2] == f"{entry.id}\n")
        lines[position] = id_lines([entry])
        ids = "".join(lines)
    summary = with_entries(before, digest, [entry], [tokens], memory.counter.exact, replaced, position)
    if replaced is not None and before.prose_lines:
        # An entry rewritten in place may move the loose prose after it: count the shard again.
        summary, ids = summarize(name, digest, parse(new_text, memory.shown(path)), memory.counter)
    journal.commit(memory.config.memory_dir, {path: data}, memory.journal_path, {path: stored.basis}, root=memory.root)
    memory.cache.store(summary, path, ids)
    memory.keep_summary(name, summary)
    write_index(memory, _wrote(stored, [entry], prose=replaced is not None and bool(before.prose_lines)))
    action = "added" if replaced is None else "updated"
    return PutResult(entry.id, name, action, tokens, summary.tokens, totals(memory), memory.counter.label)


def replace_shards(memory: Memory, texts: Mapping[str, str]) -> tuple[str, ...]:
    """Write whole new shard texts (entries checked, lock held) in one commit, regenerate INDEX.md; the shards."""
    if not memory.locked:
        raise RuntimeError("replace_shards needs the write lock: call it inside memory.writing()")
    changes: dict[Path, bytes | None] = {}
    for name, text in texts.items():
        parse(text, memory.shown(memory.shard_path(name)))  # never write what cannot be read back
        changes[memory.shard_path(name)] = data = text.encode("utf-8")
        memory.check_size(name, len(data), written=True)
    if changes:
        journal.commit(memory.config.memory_dir, changes, memory.journal_path, root=memory.root)
    for name in texts:
        memory.forget_summary(name)
    write_index(memory)
    return tuple(texts)
