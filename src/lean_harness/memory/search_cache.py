"""The search index's cache: one file per shard, keyed by the SHA-256 of the shard's bytes.

`<cacheDir>/lh/search/<shard>.idx` is one JSON object: the format, the SHA-256 of the shard file
it describes, and that shard's segment (memory/segment.py `to_json`). A shard whose hash still
matches is not parsed; any change to it (a put, an edit, a compaction, another git branch)
indexes that shard again, whole (adr/0031-one-search-cache-per-shard.md).

The cache folder lies in the repository, so a file there is a hint, never trusted: it is read as
JSON (no format that can run code), every value's type and shape is checked, and a file that fails
any check is rebuilt from the shard (memory/query.py `using_index` also rebuilds when a value
passes those checks but not its use). What is indexed never holds a flagged credential: flagged
values are indexed masked, and an entry whose id or tags hold one is left out.
"""

from __future__ import annotations

import json
from pathlib import Path

from lean_harness import digests
from lean_harness.files import write_atomic
from lean_harness.memory import search, segment
from lean_harness.memory.handle import Memory
from lean_harness.memory.segment import Segment
from lean_harness.memory.shard import Entry, parse

PROSE_PREFIX = "@"  # a block of loose prose is indexed under the id "@LINE" (no entry id starts with "@")
_SETTINGS = digests.sha256(repr(search.DEFAULT_SETTINGS).encode())[:16]
_FORMAT = f"lh-search/{search.FORMAT_VERSION}/{_SETTINGS}"  # segments depend on how entries are analyzed


def shard_segment(memory: Memory, name: str, rebuild: bool = False) -> Segment:
    """The segment of a shard as its file is now: from the cache when it holds that file's hash,
    else (or with `rebuild`) made now and cached."""
    path = memory.config.cache_dir / "lh" / "search" / f"{name}.idx"
    text, data = memory.read_shard(name)
    sha256 = digests.sha256(data)
    cached = None if rebuild else read(path, name, sha256)
    if cached is not None:
        return cached
    fresh = _built(memory, name, text, data)
    body = json.dumps({"format": _FORMAT, "sha256": sha256, "segment": fresh.to_json()}, separators=(",", ":"))
    try:  # derived data: atomic, but not synced; a torn file fails to parse and is rebuilt
        write_atomic(path, body.encode("ascii"), compare=False, durable=False)
    except OSError:
        pass
    return fresh


def read(path: Path, name: str, sha256: str) -> Segment | None:
    """The cached segment of shard `name` whose file hashes to `sha256`; None when the cache file is
    missing, describes other bytes, or fails any check of its values."""
    try:
        loaded = json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(loaded, dict) or loaded.get("format") != _FORMAT or loaded.get("sha256") != sha256:
        return None
    try:
        return segment.from_json(loaded.get("segment"), name)
    except ValueError:
        return None


def _built(memory: Memory, name: str, text: str, data: bytes) -> Segment:
    """The shard's segment made from its whole text (bytes after a byte-order mark: `read_shard`'s text lacks it)."""
    from lean_harness.memory import prose
    from lean_harness.secret_scan import mask, scan

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
            body = mask(block.text, findings) if findings else block.text
            docs.append(search.Doc(block.id, name, block.created, block.tags, body))
            spans.append((offset, offset + size))
        offset += size
    for loose in prose.blocks(shard):
        findings = [] if clean else scan(loose.text)
        masked = mask(loose.text, findings) if findings else loose.text
        docs.append(search.Doc(f"{PROSE_PREFIX}{loose.line}", name, "", (), masked))
        spans.append((0, 0))  # read from the shard's text, never at a span
    return search.segment_of(docs, spans=spans)
