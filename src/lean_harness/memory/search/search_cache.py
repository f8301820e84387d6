"""The search index's cache: one file per shard, keyed by the SHA-256 of the shard's bytes.

`<cacheDir>/lh/search/<shard>.idx` is one line of JSON, the format, the SHA-256 of the shard file
and the strings of its segment, then the segment's arrays (segment.py `Segment.to_bytes`). A shard
whose hash matches is not parsed; a changed one is indexed again, reusing the rows of entries whose
key (the SHA-256 of what a row is made from) is unchanged (adr/0031). A cache file is a hint: every
value is checked and a file that fails is rebuilt; flagged credentials are indexed masked, and what
a query prints is scanned as it is printed (query.py).
"""

from __future__ import annotations

import hashlib
import json
from contextlib import suppress
from dataclasses import replace

from lean_harness import __version__
from lean_harness.files import write_atomic
from lean_harness.memory.handle import Memory
from lean_harness.memory.search import search, segment
from lean_harness.memory.search.segment import Segment
from lean_harness.memory.shard import Entry, parse
from lean_harness.memory.summary import shard_digest
from lean_harness.scanning.masking import leaking

PROSE_PREFIX = "@"  # a block of loose prose is indexed under the id "@LINE" (no entry id starts with "@")
_SETTINGS = hashlib.sha256(repr(search.DEFAULT_SETTINGS).encode()).hexdigest()[:16]
# segments depend on how entries are analyzed and scanned: another release makes them again
_FORMAT = f"lh-search/{search.FORMAT_VERSION}/{_SETTINGS}/{__version__}"


def shard_segment(memory: Memory, name: str, rebuild: bool = False) -> Segment:
    """The segment of a shard as its summary says it is: cached, or made now reusing what still fits and cached."""
    path = memory.config.cache_dir / "lh" / "search" / f"{name}.idx"
    previous: Segment | None = None
    if not rebuild:
        with suppress(FileNotFoundError):  # a shard past the limit is refused, cached or not
            memory.check_size(name, memory.shard_path(name).stat().st_size)
        try:
            head, cached = segment.from_bytes(path.read_bytes(), name)
        except (OSError, ValueError):  # none, or one that fails its checks
            head, cached = {}, None
        if cached is not None and head.get("format") == _FORMAT:
            if head.get("sha256") == memory.summary(name).sha256:  # the shard read once, for its summary
                return cached
            previous = cached
    text, data = memory.read_shard(name)  # decoded as every read of a shard is, its errors told alike
    fresh = _built(memory, name, text, data, previous)
    # keyed by the bytes it was made from, which a hand edit since the summary may have changed
    head = {"format": _FORMAT, "sha256": shard_digest(data)}
    with suppress(OSError):  # derived data: atomic, but not synced; a torn file fails its checks and is rebuilt
        write_atomic(path, fresh.to_bytes(head), compare=False, durable=False)
    return fresh


def key_of(doc: search.Doc) -> bytes:
    """The SHA-256 of everything a row is made from: the entry's id, shard, time, tags and text."""
    fields = [doc.id, doc.shard, doc.created, list(doc.tags), doc.text]
    return hashlib.sha256(json.dumps(fields, ensure_ascii=False).encode("utf-8", "surrogatepass")).digest()


def _built(memory: Memory, name: str, text: str, data: bytes, previous: Segment | None = None) -> Segment:
    """The shard's segment made from its text (bytes after a byte-order mark: `read_shard`'s text
    lacks it), reusing the rows of `previous` whose key an entry of the text still has."""
    from lean_harness.memory import prose
    from lean_harness.scanning.credentials import hide, scan

    shard = parse(text, memory.shown(memory.shard_path(name)))
    kept: dict[bytes, segment.Kept] = {}
    if previous is not None:
        with suppress(ValueError, IndexError):  # values that pass the checks at load but not their use
            kept = segment.rows_of(previous)
    blocks: list[tuple[search.Doc, tuple[int, int], bytes]] = []
    offset = 3 if data.startswith(b"\xef\xbb\xbf") else 0  # `text` lacks the byte-order mark
    for block in shard.blocks:
        size = len((block if isinstance(block, str) else block.raw or "").encode("utf-8"))
        if isinstance(block, Entry):
            doc = search.Doc(block.id, name, block.created, block.tags, block.text)
            blocks.append((doc, (offset, offset + size), key_of(doc)))
        offset += size
    for loose in prose.blocks(shard):
        doc = search.Doc(f"{PROSE_PREFIX}{loose.line}", name, "", (), loose.text)
        blocks.append((doc, (0, 0), key_of(doc)))  # read from the shard's text, never at a span
    # One scan clears every entry it covers: the whole text, or with reused rows what is new (a reused
    # row was made from the text its key names, scanned when it was made; adr/0031).
    new = [doc for doc, _, key in blocks if key not in kept]
    if not kept:
        clean = not scan(text)
    else:
        clean = not new or not scan("\n".join(f"{' '.join([doc.id, *doc.tags])}\n{doc.text}" for doc in new))
    rows: list[segment.Row] = []
    for doc, span, key in blocks:
        found = kept.get(key)
        if found is not None:
            body_len, title_len, weights = found
            rows.append(segment.Row(doc.id, name, doc.created, doc.tags, body_len, title_len, weights, span, key))
            continue
        # an entry whose id or tags hold a flagged value is left out; one whose text holds one is masked
        if not clean and not doc.id.startswith(PROSE_PREFIX) and leaking([(doc.id, *doc.tags)])[0]:
            continue
        findings = [] if clean else scan(doc.text)  # allowed or not: the cache is no place for one
        body = hide(doc.text, findings) if findings else doc.text
        rows.append(search.row_of(replace(doc, text=body), span=span, key=key))
    return segment.build(rows, spans=True)
