"""Per-shard summaries: what INDEX.md and status need, cached by the shard's content hash.

A summary holds a shard's entry count, token total (memory/view.py), loose prose figures and newest
titles. It lives in `<cacheDir>/lh/shards/<name>.json` beside `<name>.ids` (per entry: a short hash of
its normalized text and its id, so a write finds duplicates without parsing). Both carry the SHA-256
of the shard bytes they describe and are rebuilt from the shard whenever it no longer matches.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections import Counter
from collections.abc import Callable, Iterable
from contextlib import suppress
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lean_harness.files import write_atomic
from lean_harness.hookstate import stat_key
from lean_harness.memory import view
from lean_harness.memory.shard import Entry, Shard, by_writing, normalize_text, written
from lean_harness.memory.tokens import TokenCounter
from lean_harness.scanning.masking import leaking

if TYPE_CHECKING:
    from lean_harness.memory.prose import Block

NEWEST_KEPT = 64
_FORMAT = 10


@dataclass(frozen=True, slots=True)
class Newest:
    """An entry as INDEX.md lists it: when it was last written, and its position in the shard."""

    written: str
    id: str
    title: str
    position: int


@dataclass(frozen=True, slots=True)
class Summary:
    """What is known about one shard file."""

    name: str
    sha256: str
    count: int
    tokens: int
    newest: tuple[Newest, ...]
    exists: bool = True
    exact: bool = True
    repeated: tuple[str, ...] = ()  # ids stored more than once, as a union merge can leave them
    refs: tuple[tuple[str, str], ...] = ()  # (id, refs attribute) of each entry that cites files
    prose_tokens: int = 0  # of `tokens`, those of loose prose (memory/prose.py)
    prose_lines: tuple[tuple[int, int], ...] = ()  # first and last line of each block of loose prose
    leaked: tuple[str, ...] = ()  # ids whose id, tags or cited paths hold a credential: never cached, nor mapped


def shard_digest(data: bytes | memoryview) -> str:
    """The digest of a shard's bytes: what `Summary.sha256` holds."""
    return hashlib.sha256(data).hexdigest()


def text_key(text: str) -> str:
    """A short hash of an entry's normalized text, for finding duplicates."""
    return hashlib.sha256(normalize_text(text).encode("utf-8")).hexdigest()[:20]


def id_lines(entries: Iterable[Entry]) -> str:
    """The lines of an ids listing for `entries`, in their order: "text-key id" each."""
    return "".join(f"{text_key(e.text)} {e.id}\n" for e in entries)


def loose_costs(shard: Shard, counts: Callable[[list[str]], list[int]]) -> tuple[tuple[Block, ...], list[int]]:
    """A shard's blocks of loose prose and the tokens of each as `get` prints it."""
    from lean_harness.memory import prose  # only a shard read whole has prose to find: a put needs none

    loose = prose.blocks(shard)
    return loose, view.costs([view.prose_block(b) for b in loose], counts)


def summarize(name: str, sha256: str, shard: Shard, counter: TokenCounter) -> tuple[Summary, str]:
    """A shard's summary and its ids listing, counting tokens through the cache; `sha256` is its bytes' digest."""
    entries = list(shard.entries)
    loose, prose_counts = loose_costs(shard, counter.counts)
    counts = view.costs([view.entry_block(e) for e in entries], counter.counts)  # each one's view.entry_cost
    order = by_writing(entries)[::-1][:NEWEST_KEPT]
    newest = [Newest(written(entries[i]), entries[i].id, _safe_title(entries[i].title), i) for i in order]
    ids = id_lines(entries)
    summary = Summary(
        name,
        sha256,
        len(entries),
        sum(counts) + sum(prose_counts),
        tuple(newest),
        exact=counter.exact,
        repeated=tuple(sorted(key for key, n in Counter(e.id for e in entries).items() if n > 1)),
        refs=tuple((e.id, value) for e in entries if (value := e.attr("refs"))),
        prose_tokens=sum(prose_counts),
        prose_lines=tuple((b.line, b.end) for b in loose),
        leaked=leaked_ids(entries),
    )
    return summary, ids


WITHHELD = "(title not shown: it would read as a directive to the agent)"


def _safe_title(title: str) -> str:
    # INDEX.md is loaded into every session, so its titles are checked whatever an entry allows:
    # a credential pasted into a shard by hand is masked, and a title that reads as an instruction
    # to the agent (allowed in an entry with --allow-directive, or written by hand) is withheld.
    from lean_harness.scanning import directives
    from lean_harness.scanning.credentials import hide, scan

    if directives.scan(title):
        return WITHHELD
    findings = scan(title)
    return hide(title, findings) if findings else title


def leaked_ids(entries: list[Entry]) -> tuple[str, ...]:
    """The ids of `entries` whose names hold a credential (masking.leaking): every cache and record leaves them out."""
    found = leaking([(e.id, *e.tags, e.attr("refs") or "") for e in entries])
    return tuple(e.id for e, out in zip(entries, found, strict=True) if out)


def with_entries(
    summary: Summary,
    sha256: str,
    entries: list[Entry],
    costs: list[int],
    exact: bool,
    replaced: int | None = None,
    position: int | None = None,
) -> Summary:
    """The summary after appending `entries` (each costing its `costs` tokens), or after one replaced an entry
    of `replaced` tokens at `position`; only the newest kept get a title."""
    ids = {e.id for e in entries}
    at = summary.count if position is None else position
    old: list[tuple[str, int, Newest | Entry]] = [(n.written, n.position, n) for n in summary.newest if n.id not in ids]
    new: list[tuple[str, int, Newest | Entry]] = [(written(e), at + i, e) for i, e in enumerate(entries)]
    ranked = sorted([*old, *new], key=lambda item: item[:2], reverse=True)[:NEWEST_KEPT]  # last written first
    newest = tuple(
        item if isinstance(item, Newest) else Newest(stamp, item.id, _safe_title(item.title), place)
        for stamp, place, item in ranked
    )
    refs = tuple((e.id, value) for e in entries if (value := e.attr("refs")))
    return replace(
        summary,
        sha256=sha256,
        count=summary.count + (len(entries) if replaced is None else 0),
        tokens=summary.tokens - (replaced or 0) + sum(costs),
        newest=newest,
        exists=True,
        exact=summary.exact and exact,
        refs=(*((key, value) for key, value in summary.refs if key not in ids), *refs),
        leaked=(*summary.leaked, *leaked_ids(entries)),
    )


class SummaryCache:
    """Reads and writes the summaries of one project's shards."""

    def __init__(self, cache_dir: Path, encoding: str) -> None:
        self.folder = cache_dir / "shards"
        self.encoding = encoding

    def load(self, name: str, path: Path) -> Summary | bytes:
        """The cached summary when it still describes the file, else the file's bytes."""
        try:
            stat = path.stat()
        except FileNotFoundError:
            return Summary(name, "", 0, 0, (), exists=False)
        record = self._read(name)
        if record is not None and record.get("stat") == list(stat_key(stat)) and _settled(stat, record):
            return _from_record(name, record)
        data = path.read_bytes()
        if record is not None and record.get("sha256") == shard_digest(data):
            summary = _from_record(name, record)
            self.store(summary, path, None)
            return summary
        return data

    def forget(self, name: str) -> None:
        """Drop what is cached of a shard, so that it is summarized from its bytes again."""
        for suffix in (".json", ".ids"):
            with suppress(OSError):
                (self.folder / f"{name}{suffix}").unlink()

    def ids(self, name: str, sha256: str) -> str | None:
        """The ids listing of a shard, when it matches the given file hash."""
        try:
            text = (self.folder / f"{name}.ids").read_text("utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        head, _, body = text.partition("\n")
        return body if head == sha256 else None

    def store(self, summary: Summary, path: Path, ids: str | None) -> None:
        """Remember `summary` (and its ids listing) for the file at `path` as it is now."""
        if summary.leaked:
            return self.forget(summary.name)
        with suppress(OSError):  # an unwritable cache costs the next command a re-read, nothing more
            stat = path.stat()
            record = {
                "format": _FORMAT,
                "encoding": self.encoding,
                "sha256": summary.sha256,
                "stat": list(stat_key(stat)),
                "checked": time.time_ns(),
                "count": summary.count,
                "tokens": summary.tokens,
                "exact": summary.exact,
                "repeated": list(summary.repeated),
                "newest": [[n.written, n.id, n.title, n.position] for n in summary.newest],
                "refs": [list(pair) for pair in summary.refs],
                "prose_tokens": summary.prose_tokens,
                "prose_lines": [list(pair) for pair in summary.prose_lines],
            }
            # Not synced: a cache lost to a power cut is rebuilt from the shard, which is.
            if ids is not None:
                listing = f"{summary.sha256}\n{ids}".encode()
                write_atomic(self.folder / f"{summary.name}.ids", listing, compare=False, durable=False)
            write_atomic(self.folder / f"{summary.name}.json", json.dumps(record).encode(), durable=False)

    def _read(self, name: str) -> dict[str, Any] | None:
        """The cached record of a shard when it is whole and of this format, else None."""
        try:
            record = json.loads((self.folder / f"{name}.json").read_bytes())
        except (OSError, ValueError):
            return None
        if not isinstance(record, dict) or record.get("format") != _FORMAT or record.get("encoding") != self.encoding:
            return None
        if record.get("exact") is not True:
            return None  # estimated counts are recounted, in case the ranks can be had now
        valid = (
            _rows([[record.get(k) for k in ("sha256", "count", "tokens", "prose_tokens")]], (str, int, int, int))
            and isinstance(record.get("repeated"), list)
            and _rows([[r] for r in record["repeated"]], (str,))
            and _rows(record.get("newest"), (str, str, str, int))
            and _rows(record.get("refs"), (str, str))
            and _rows(record.get("prose_lines"), (int, int))
        )
        return record if valid else None


def _rows(value: object, kinds: tuple[type, ...]) -> bool:
    """Whether `value` is a list of lists holding values of exactly these types."""
    return isinstance(value, list) and all(
        isinstance(row, list) and len(row) == len(kinds) and all(type(v) is k for v, k in zip(row, kinds, strict=True))
        for row in value
    )


def _settled(stat: os.stat_result, record: dict[str, object]) -> bool:
    # As git does for its index: a file changed within the clock's resolution of the moment
    # it was summarized may have changed again unseen, so only older files are trusted by stat.
    checked = record.get("checked")
    return isinstance(checked, int) and stat.st_mtime_ns < checked - 2_000_000_000


def _from_record(name: str, record: dict[str, Any]) -> Summary:
    """The summary a record `_read` checked holds."""
    return Summary(
        name,
        record["sha256"],
        record["count"],
        record["tokens"],
        tuple(Newest(*row) for row in record["newest"]),
        repeated=tuple(record["repeated"]),
        refs=tuple(map(tuple, record["refs"])),
        prose_tokens=record["prose_tokens"],
        prose_lines=tuple(map(tuple, record["prose_lines"])),
    )
