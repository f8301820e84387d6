"""The memory store: read shards, write entries under the lock, keep INDEX.md current.

Every write takes the project's lock, re-reads what it changes, writes each file atomically
and regenerates INDEX.md from the shard summaries, so a refused or failed write leaves every
file as it was (adr/0007-writes-and-locking.md).
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from lean_harness import hooks
from lean_harness.config import Config
from lean_harness.errors import LhError
from lean_harness.files import display, read_text, refuse_symlink, remove_stale_temps, write_atomic, write_text
from lean_harness.lock import locked
from lean_harness.memory import index as index_md
from lean_harness.memory import journal
from lean_harness.memory.shard import (
    Entry,
    append_text,
    check_id,
    check_tag,
    check_text,
    derive_id,
    entry_at,
    new_shard_text,
    normalize_text,
    parse,
    refuse_conflicting_ids,
    render,
    render_entry,
    without_duplicates,
)
from lean_harness.memory.summary import Summary, SummaryCache, build, summarize, text_key, with_entry
from lean_harness.memory.tokens import TokenCounter

INDEX_NAME = "INDEX.md"
MAX_ENTRY_BYTES = 64 * 1024
MAX_SHARD_BYTES = 64 * 1024 * 1024


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


@dataclass(frozen=True)
class ShardStatus:
    """One shard's line in status."""

    name: str
    description: str
    path: str
    entries: int
    tokens: int
    exists: bool


@dataclass(frozen=True)
class Status:
    """The memory's size against its budgets."""

    shards: tuple[ShardStatus, ...]
    totals: index_md.Totals
    label: str
    exact: bool
    index_path: str
    index_tokens: int
    index_budget: int
    index_fresh: bool


@dataclass(frozen=True)
class IndexResult:
    """The outcome of regenerating (or checking) INDEX.md."""

    path: str
    fresh_before: bool
    written: bool
    tokens: int
    budget: int
    titles: int
    duplicates: tuple[str, ...] = ()  # "path: line N: entry X again ...", found by --check or removed


@dataclass
class Memory:
    """One project's memory: its config, caches and token counter."""

    config: Config
    counter: TokenCounter = field(init=False)
    cache: SummaryCache = field(init=False)
    _summaries: dict[str, Summary] = field(default_factory=dict)
    _locked: bool = False

    def __post_init__(self) -> None:
        lh_cache = self.config.cache_dir / "lh"
        self.counter = TokenCounter(self.config.encoding, lh_cache)
        self.cache = SummaryCache(lh_cache, self.config.encoding)

    @property
    def root(self) -> Path:
        return self.config.root

    @property
    def index_path(self) -> Path:
        return self.config.memory_dir / INDEX_NAME

    def shard_path(self, name: str) -> Path:
        return self.config.memory_dir / f"{name}.md"

    def shown(self, path: Path) -> str:
        return display(path, self.root)

    def check_shard(self, name: str) -> str:
        """The shard name, or an error that lists the configured shards."""
        if "/" in name or "\\" in name or ".." in name:
            raise LhError(f"shard {name!r} is not a shard name; shard names have no path separators or '..'")
        if name not in self.config.shard_names:
            known = ", ".join(self.config.shard_names)
            raise LhError(
                f"unknown shard {name!r}; shards in {self.config.shown_path}: {known}"
                f' (add one with "lh config set memory.shards.{name} DESCRIPTION")'
            )
        return name

    def check_dir(self) -> None:
        """Raise unless the memory dir exists as a real folder."""
        folder = self.config.memory_dir
        refuse_symlink(folder, self.root)
        if not folder.is_dir():
            raise LhError(f'no memory directory at {self.shown(folder)}; run "lh init"')

    def read_shard(self, name: str) -> tuple[str, bytes]:
        """A shard's text and bytes ("" when the file does not exist yet)."""
        path = self.shard_path(name)
        refuse_symlink(path, self.root)
        try:
            size = path.stat().st_size
        except FileNotFoundError:
            return "", b""
        if size > MAX_SHARD_BYTES:
            raise LhError(
                f"{self.shown(path)} is {size} bytes, over the {MAX_SHARD_BYTES} byte limit for a shard;"
                ' split it or run "lh memory compact"'
            )
        text = read_text(path, self.root)
        return text, text.encode("utf-8")

    def entries(self, name: str) -> list[Entry]:
        """The parsed entries of one shard."""
        text, _ = self.read_shard(name)
        return list(parse(text, self.shown(self.shard_path(name))).entries)

    def summary(self, name: str) -> Summary:
        """A shard's summary, from the cache when it still matches the file."""
        known = self._summaries.get(name)
        if known is not None:
            return known
        if not self._locked:
            # Under a shared lock, no writer changes the shard between reading it and caching
            # its summary, so a summary never describes bytes other than those it was made from.
            with self.reading():
                return self.summary(name)
        path = self.shard_path(name)
        refuse_symlink(path, self.root)
        summary, data = self.cache.load(name, path)
        if summary is None:
            if data is None:
                data = path.read_bytes()
            text = read_text(path, self.root)
            summary = build(name, path, self.shown(path), data, text, self.counter, self.cache)
        if summary.repeated:
            self._refuse_conflicting_ids(name, summary)
        self._summaries[name] = summary
        return summary

    def _refuse_conflicting_ids(self, name: str, summary: Summary) -> None:
        # Two entries with one id and different texts are two versions of one note, typically
        # from a merge: never pick one silently. The ids listing shows it without a parse.
        listing = self.cache.ids(name, summary.sha256)
        path = self.shard_path(name)
        if listing is None:
            text = read_text(path, self.root)
            listing = self.ids(name, text, text.encode("utf-8"))
        texts: dict[str, str] = {}
        for line in listing.splitlines():
            digest, _, key = line.partition(" ")
            if texts.setdefault(key, digest) != digest:
                shown = self.shown(path)
                refuse_conflicting_ids(parse(read_text(path, self.root), shown).entries, shown)

    def ids(self, name: str, text: str, data: bytes) -> str:
        """The ids listing of a shard ("text-hash id" lines), from the cache or from the text."""
        listing = self.cache.ids(name, hashlib.sha256(data).hexdigest())
        if listing is None:
            entries = parse(text, self.shown(self.shard_path(name))).entries
            listing = "".join(f"{text_key(e.text)} {e.id}\n" for e in entries)
        return listing

    def totals(self) -> index_md.Totals:
        tokens = sum(self.summary(name).tokens for name in self.config.shard_names)
        return index_md.Totals(tokens, self.config.token_budget, self.config.compact_at_percent)

    def render_index(self) -> index_md.IndexText:
        """INDEX.md as it should be now."""
        summaries = {name: self.summary(name) for name in self.config.shard_names}
        return index_md.render(
            self.config.shards,
            summaries,
            self.totals(),
            self.counter.label,
            self.config.index_token_budget,
            self.counter.count,
            pending=_count_pending(self.config.memory_dir),
        )

    def duplicates(self, name: str) -> list[str]:
        """Ids that occur more than once in a shard (exact copies, as a merge can leave them)."""
        return list(self.summary(name).repeated)

    @contextmanager
    def writing(self) -> Iterator[None]:
        """Hold the project's write lock; the token cache is appended to before it is let go."""
        self.check_dir()
        refuse_symlink(self.index_path, self.root)  # before any write, not after the shard's
        # Files lh writes are recorded as its own, so the prompt hook does not report them back.
        with self._lock(shared=False), hooks.lh_writes(self.config.memory_dir, self.config.cache_dir):
            self._summaries.clear()
            remove_stale_temps(self.config.memory_dir)
            yield
            self.counter.save()

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Hold the lock shared: writers wait, other readers do not."""
        if self._locked:
            yield
            return
        with self._lock(shared=True):
            yield
            self.counter.save()  # counts made while reading are kept, appended under the lock

    @contextmanager
    def _lock(self, shared: bool) -> Iterator[None]:
        lock_path = self.config.cache_dir / "lh" / "write.lock"
        with locked(lock_path, self.shown(lock_path), shared=shared):
            self._locked = True
            try:
                # A compaction killed after its commit point is finished before anything is read
                # (adr/0012-compaction.md); renames are idempotent, so concurrent readers may both try.
                journal.recover(self.config.memory_dir, self.shown(self.config.memory_dir))
                yield
            finally:
                self._locked = False


def open_memory(config: Config) -> Memory:
    """The memory of a loaded config."""
    return Memory(config)


def _count_pending(folder: Path) -> int:
    try:
        return sum(1 for p in (folder / ".pending").iterdir() if p.suffix == ".md")
    except OSError:
        return 0


def now_utc() -> str:
    """The creation time for new entries; SOURCE_DATE_EPOCH pins it for reproducible runs."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    seconds = int(epoch) if epoch and epoch.isdigit() else int(time.time())
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def _header_re(key: str) -> re.Pattern[str]:
    return re.compile(r'^<!-- lh:entry [^\n]*?\bid="' + re.escape(key) + r'"[^\n]*-->\r?$', re.MULTILINE)


def locate(text: str, key: str, shown: str) -> tuple[int, int, Entry] | None:
    """The span of the entry with id `key` in shard text, and the entry."""
    match = _header_re(key).search(text)
    if match is None:
        return None
    entry, end = entry_at(text, match.start(), shown)
    return match.start(), end, entry


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
) -> PutResult:
    """Store `text` in `shard`: add it, update the entry `key` in place, or find it already there."""
    name = memory.check_shard(shard)
    body = normalize_text(text)
    where = f"shard {name}"
    check_text(body, where)
    size = len(body.encode("utf-8"))
    if size > MAX_ENTRY_BYTES:
        raise LhError(
            f"{where}: the entry is {size} bytes, over the {MAX_ENTRY_BYTES} byte limit;"
            " store a summary and point to the file that holds the rest"
        )
    clean_tags = tuple(sorted({check_tag(t) for t in tags}))
    if key is not None:
        check_id(key)
    allowed = tuple(sorted(set(allow)))
    directives = tuple(sorted(set(allow_directives)))
    if scan:
        refuse_secrets(body, allowed, where)
        refuse_directives(body, directives, where)
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
        if key is not None:
            found = locate(existing, key, shown)
            if found is None:
                _refuse_key_elsewhere(memory, name, key)
                entry = Entry(key, now_utc(), body, clean_tags, extra)
                new_text = append_text(existing, entry, close_id=True)
                return _finish(memory, name, path, new_text, entry, before, ids, None)
            start, end, old = found
            same_allow = old.attr("allow-secret") == (",".join(allowed) or None) and old.attr("allow-directive") == (
                ",".join(directives) or None
            )
            if old.text == body and old.tags == clean_tags and same_allow:
                return _unchanged(memory, name, old)
            kept = tuple((k, v) for k, v in old.extra if k not in ("updated", "allow-secret", "allow-directive"))
            entry = Entry(key, old.created, body, clean_tags, (("updated", now_utc()), *kept, *extra))
            newline = "\r\n" if "\r\n" in (old.raw or "") else "\n"
            new_text = existing[:start] + render_entry(entry, newline, close_id=True) + existing[end:]
            replaced = memory.counter.count(old.text)
            return _finish(memory, name, path, new_text, entry, before, ids, replaced)
        for entry_id in _ids_with_text(ids, text_key(body)):
            found = locate(existing, entry_id, shown)
            if found is not None and normalize_text(found[2].text) == body:
                return _unchanged(memory, name, found[2])
        entry = Entry(derive_id(name, body, _Listed(ids)), now_utc(), body, clean_tags, extra)
        return _finish(memory, name, path, append_text(existing, entry, close_id=True), entry, before, ids, None)


def add_entries(memory: Memory, additions: Sequence[tuple[str, Entry]]) -> tuple[str, ...]:
    """Append new entries (shard, entry) in one write; the caller holds `memory.writing()`.

    The caller has checked each entry as put does (text, size, tags, id, credentials) and that
    its id is new. Every shard is summarized and every new shard text built before the first
    file is written, so a broken or oversized shard stops the write with nothing changed.
    Returns the shards written.
    """
    if not memory._locked:
        raise RuntimeError("add_entries needs the write lock: call it inside memory.writing()")
    if not additions:
        return ()
    for other in memory.config.shard_names:
        memory.summary(other)
    grouped: dict[str, list[Entry]] = {}
    for name, entry in additions:
        grouped.setdefault(memory.check_shard(name), []).append(entry)
    texts: dict[str, str] = {}
    for name, entries in grouped.items():
        current, _ = memory.read_shard(name)
        text = current or new_shard_text(name, dict(memory.config.shards)[name])
        if current and memory.duplicates(name):
            text, _, _ = _deduplicated(memory, name, current)
        for entry in entries:
            text = append_text(text, entry, close_id=True)
        size = len(text.encode("utf-8"))
        if size > MAX_SHARD_BYTES:
            raise LhError(
                f"{memory.shown(memory.shard_path(name))} would be {size} bytes, over the {MAX_SHARD_BYTES} byte"
                ' limit for a shard; nothing was written. Run "lh memory compact" first'
            )
        texts[name] = text
    for name, text in texts.items():
        write_atomic(memory.shard_path(name), text.encode("utf-8"), compare=False)
        memory._summaries.pop(name, None)
    write_index(memory)
    return tuple(texts)


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
    summary, ids = summarize(name, digest, list(shard.entries), memory.counter)
    return fixed, summary, ids


def _remove_duplicates(memory: Memory) -> tuple[str, ...]:
    """Write every shard that holds exact copies of entries with each entry once; what was dropped."""
    notes: list[str] = []
    for name in memory.config.shard_names:
        if memory.duplicates(name):
            path = memory.shard_path(name)
            text, _ = memory.read_shard(name)
            shard, dropped = without_duplicates(parse(text, memory.shown(path)))
            write_text(path, render(shard, close_id=True))
            memory._summaries.pop(name, None)
            notes += [f"{memory.shown(path)}: {note}" for note in dropped]
    return tuple(notes)


def _found_duplicates(memory: Memory) -> tuple[str, ...]:
    return tuple(
        f"{memory.shown(memory.shard_path(name))}: entry {key} is stored more than once"
        for name in memory.config.shard_names
        for key in memory.duplicates(name)
    )


def _unchanged(memory: Memory, name: str, entry: Entry) -> PutResult:
    summary = memory.summary(name)
    return PutResult(
        entry.id,
        name,
        "unchanged",
        memory.counter.count(entry.text),
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
    tokens = memory.counter.count(entry.text)
    data = new_text.encode("utf-8")
    digest = hashlib.sha256(data).hexdigest()
    summary = with_entry(before, digest, entry, tokens, memory.counter.exact, replaced)
    if replaced is None:
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
    pattern = _header_re(key)
    for other in memory.config.shard_names:
        if other != shard:
            text, _ = memory.read_shard(other)
            if pattern.search(text):
                raise LhError(f"entry {key} is in shard {other}, not {shard}; update it there or choose another --id")


def refuse_secrets(
    text: str, allow: Sequence[str], where: str, hint: str = "If it is not a secret, pass --allow-secret {rule}"
) -> None:
    """Raise Refused when `text` holds something that looks like a credential; `hint` says what next."""
    from lean_harness import secret_scan
    from lean_harness.errors import Refused

    findings = secret_scan.scan(text, allow=allow)
    if findings:
        first = findings[0]
        more = f" (and {len(findings) - 1} more)" if len(findings) > 1 else ""
        raise Refused(
            f"refused: {where}: line {first.line} looks like {first.description}"
            f" ({first.preview}, rule {first.rule}){more}; nothing was written. {hint.format(rule=first.rule)}"
        )


def refuse_directives(
    text: str,
    allow: Sequence[str],
    where: str,
    hint: str = "If it only quotes such text, pass --allow-directive {rule}",
) -> None:
    """Raise Refused when `text` speaks as the system or the operator (adr/0016); `hint` says what next."""
    from lean_harness import injection
    from lean_harness.errors import Refused

    findings = injection.scan(text, allow=allow)
    if findings:
        first = findings[0]
        more = f" (and {len(findings) - 1} more)" if len(findings) > 1 else ""
        raise Refused(
            f'refused: {where}: line {first.line} reads as {first.description} ("{first.preview}",'
            f" rule {first.rule}){more}; memory holds notes, not instructions to the agent; nothing was written."
            f" {hint.format(rule=first.rule)}"
        )


def write_index(memory: Memory) -> index_md.IndexText:
    """Regenerate INDEX.md (written only when it changed)."""
    rendered = memory.render_index()
    refuse_symlink(memory.index_path, memory.root)
    write_text(memory.index_path, rendered.text)
    return rendered


def reindex(memory: Memory, check: bool = False) -> IndexResult:
    """Regenerate INDEX.md, or with `check` only compare it with what it should be."""
    memory.check_dir()
    if check:
        with memory.reading():
            rendered = memory.render_index()
            duplicates = _found_duplicates(memory)
            fresh = _index_matches(memory, rendered.text) and not duplicates
        return IndexResult(
            memory.shown(memory.index_path),
            fresh,
            False,
            rendered.tokens,
            memory.config.index_token_budget,
            rendered.titles,
            duplicates,
        )
    with memory.writing():
        # Every shard is parsed or summarized before anything is written, so a broken one stops
        # the command with nothing changed.
        for name in memory.config.shard_names:
            memory.summary(name)
        duplicates = _remove_duplicates(memory)
        rendered = memory.render_index()
        fresh = _index_matches(memory, rendered.text) and not duplicates
        written = write_text(memory.index_path, rendered.text) or bool(duplicates)
    return IndexResult(
        memory.shown(memory.index_path),
        fresh,
        written,
        rendered.tokens,
        memory.config.index_token_budget,
        rendered.titles,
        duplicates,
    )


def _index_matches(memory: Memory, text: str) -> bool:
    refuse_symlink(memory.index_path, memory.root)
    try:
        return memory.index_path.read_bytes() == text.encode("utf-8")
    except FileNotFoundError:
        return False


def status(memory: Memory) -> Status:
    """Entries and tokens per shard, the total against the budget, and the index's state."""
    memory.check_dir()
    rows = []
    with memory.reading():
        for name, description in memory.config.shards:
            summary = memory.summary(name)
            rows.append(
                ShardStatus(
                    name,
                    description,
                    memory.shown(memory.shard_path(name)),
                    summary.count,
                    summary.tokens,
                    summary.exists,
                )
            )
        rendered = memory.render_index()
        fresh = _index_matches(memory, rendered.text)
    return Status(
        tuple(rows),
        memory.totals(),
        memory.counter.label,
        memory.counter.exact,
        memory.shown(memory.index_path),
        rendered.tokens,
        memory.config.index_token_budget,
        fresh,
    )
