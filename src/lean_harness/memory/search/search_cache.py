"""The search index's cache: one file per shard, keyed by the SHA-256 of the shard's bytes.

`<cacheDir>/lh/search/<shard>.idx` is one line of JSON, the format, the SHA-256 of the shard file it
describes and the strings of that shard's segment, then the segment's arrays (memory/segment.py
`Segment.to_bytes`). A shard whose hash still
matches is not parsed; any change to it (a put, an edit, a compaction, another git branch)
indexes that shard again, whole (adr/0031-one-search-cache-per-shard.md).

The cache folder lies in the repository, so a file there is a hint, never trusted: it is read as
JSON and plain bytes (nothing that can run code), every value's type and shape is checked, and a file that fails
any check is rebuilt from the shard (memory/query.py `using_index` also rebuilds when a value
passes those checks but not its use). What is indexed never holds a flagged credential: flagged
values are indexed masked, and an entry whose id or tags hold one is left out.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from lean_harness.files import refuse_symlink, write_atomic
from lean_harness.memory.handle import Memory
from lean_harness.memory.search import search, segment
from lean_harness.memory.search.segment import Segment
from lean_harness.memory.shard import Entry, parse

PROSE_PREFIX = "@"  # a block of loose prose is indexed under the id "@LINE" (no entry id starts with "@")
_SETTINGS = hashlib.sha256(repr(search.DEFAULT_SETTINGS).encode()).hexdigest()[:16]
_FORMAT = f"lh-search/{search.FORMAT_VERSION}/{_SETTINGS}"  # segments depend on how entries are analyzed


def shard_segment(memory: Memory, name: str, rebuild: bool = False) -> Segment:
    """The segment of a shard as its file is now: from the cache when it holds that file's hash,
    else (or with `rebuild`) made now and cached."""
    path = memory.config.cache_dir / "lh" / "search" / f"{name}.idx"
    if not rebuild:
        shard = memory.shard_path(name)
        refuse_symlink(shard, memory.root)
        try:
            data = shard.read_bytes()  # hashed, not decoded: a cache file that matches stands for the text
        except FileNotFoundError:
            data = b""
        memory.check_size(name, len(data))
        cached = read(path, name, hashlib.sha256(data).hexdigest())
        if cached is not None:
            return cached
    text, data = memory.read_shard(name)  # decoded as every read of a shard is, its errors told alike
    sha256 = hashlib.sha256(data).hexdigest()
    fresh = _built(memory, name, text, data)
    try:  # derived data: atomic, but not synced; a torn file fails its checks and is rebuilt
        write_atomic(path, fresh.to_bytes({"format": _FORMAT, "sha256": sha256}), compare=False, durable=False)
    except OSError:
        pass
    return fresh


def read(path: Path, name: str, sha256: str) -> Segment | None:
    """The cached segment of shard `name` whose file hashes to `sha256`; None when the cache file is
    missing, describes other bytes, or fails any check of its values."""
    try:
        head, part = segment.from_bytes(path.read_bytes(), name)
    except (OSError, ValueError):
        return None
    return part if head.get("format") == _FORMAT and head.get("sha256") == sha256 else None


def _built(memory: Memory, name: str, text: str, data: bytes) -> Segment:
    """The shard's segment made from its whole text (bytes after a byte-order mark: `read_shard`'s text lacks it)."""
    from lean_harness.memory import prose
    from lean_harness.scanning.credentials import hide, scan

    shard = parse(text, memory.shown(memory.shard_path(name)))
    clean = not scan(text)  # one scan of the whole text clears every entry in it
    docs: list[search.Doc] = []
    spans: list[tuple[int, int]] = []
    offset = 3 if data.startswith(b"\xef\xbb\xbf") else 0  # `text` lacks the byte-order mark
    for block in shard.blocks:
        size = len((block if isinstance(block, str) else block.raw or "").encode("utf-8"))
        # an entry whose id or tags hold a flagged value is left out; one whose text holds one is masked
        if isinstance(block, Entry) and (clean or not scan(" ".join([block.id, *block.tags]))):
            findings = [] if clean else scan(block.text)  # allowed or not: the cache is no place for one
            body = hide(block.text, findings) if findings else block.text
            docs.append(search.Doc(block.id, name, block.created, block.tags, body))
            spans.append((offset, offset + size))
        offset += size
    for loose in prose.blocks(shard):
        findings = [] if clean else scan(loose.text)
        masked = hide(loose.text, findings) if findings else loose.text
        docs.append(search.Doc(f"{PROSE_PREFIX}{loose.line}", name, "", (), masked))
        spans.append((0, 0))  # read from the shard's text, never at a span
    return search.segment_of(docs, spans=spans)
