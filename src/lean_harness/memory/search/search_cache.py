"""The search index's cache: one file of segments per shard, kept in step with the shard's bytes.

`<cacheDir>/lh/search/<shard>.idx` starts with one ASCII line: the format, the SHA-256 and byte
length of the shard file its segments describe, whether whole entries appended after those
bytes may be indexed on their own (1) or not (0), and the user's signature that every entry and
block of prose in those bytes scanned clean of credentials (memory/scans.py `vouch`; "-" when
one did not, or nothing could be signed); then the segments (memory/search/search.py `segment_bytes`).
A query prints the entries of a shard so vouched for without scanning each again (adr/0029).

A shard whose hash still matches is not read. A shard that only grew by whole entries at its
end, as a put or an import leaves it, is indexed from the old length on, as one more segment
(vouched for when the old bytes were and the new ones scan clean); past `DELTAS` of them they
are merged, and merged into the first when they hold a quarter as many entries. Any other
change (an edit, a compaction, another git branch) rebuilds that shard's segments alone. A
missing, corrupt or truncated file is rebuilt, never trusted (adr/0021-incremental-search-index.md),
and a query, lint or doctor that trips over a file whose checksum holds but whose layout does not
(a planted one) works again from segments made now (memory/search/query.py `using_index`).

What is indexed never holds a flagged credential: flagged values are indexed masked, and an entry
whose id or tags hold one is left out, so the cache can be written as it is.
"""

from __future__ import annotations

from binascii import crc32
from dataclasses import dataclass, replace
from pathlib import Path

from lean_harness import digests
from lean_harness.errors import LhError
from lean_harness.files import write_atomic
from lean_harness.memory import scans
from lean_harness.memory.handle import Memory
from lean_harness.memory.search import search, segment
from lean_harness.memory.search.segment import Segment
from lean_harness.memory.shard import Entry, Shard, parse
from lean_harness.memory.summary import shard_digest

DELTAS = 8  # appended segments a shard keeps before they are merged
CLEAN_NAME = "search-clean"  # what a shard's clean verdict is signed as (memory/scans.py)
PROSE_PREFIX = "@"  # a block of loose prose is indexed under the id "@LINE" (no entry id starts with "@")
_BOM = b"\xef\xbb\xbf"
_SETTINGS = digests.sha256(repr(search.DEFAULT_SETTINGS).encode())[:16]
_FORMAT = f"lh-search/{search.FORMAT_VERSION}.3/{_SETTINGS}"  # segments depend on how entries are analyzed


@dataclass(frozen=True, slots=True)
class Cached:
    """A shard's segments and the file they describe."""

    sha256: str
    size: int
    open_end: bool  # whole entries appended after `size` bytes may be indexed on their own
    segments: list[Segment]
    clean: bool = False  # every entry and block of prose scanned clean of credentials, as the user's lh vouched


def shard_segments(memory: Memory, name: str, sha256: str, rebuild: bool = False) -> Cached:
    """The segments of a shard whose file has the hash `sha256`, from the cache or (`rebuild`:
    whatever is cached) made now."""
    path = memory.config.cache_dir / "lh" / "search" / f"{name}.idx"
    cached = None if rebuild else read(path)
    if cached is not None and cached.sha256 == sha256:
        return cached
    text, data = memory.read_shard(name)
    digest = shard_digest(data)  # the shard's digest as its summary holds it (Summary.sha256)
    if cached is not None and cached.sha256 == digest:
        return cached
    fresh = _appended(memory, name, cached, data, digest) if cached is not None else None
    if fresh is None:
        fresh = _built(memory, name, text, data, digest)
    signature = (scans.vouch(fresh.sha256, CLEAN_NAME, scans.CREDENTIALS) if fresh.clean else "") or "-"
    header = f"{_FORMAT} {fresh.sha256} {fresh.size} {int(fresh.open_end)} {signature}\n".encode()
    try:  # derived data: atomic, but not synced; a torn file fails its checksum and is rebuilt
        write_atomic(path, header + search.segment_bytes(fresh.segments), compare=False, durable=False)
    except OSError:
        pass
    return replace(fresh, clean=signature != "-")


def read(path: Path) -> Cached | None:
    """A shard's cached segments, or None when the file is missing, of another format or damaged."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    end = data.find(b"\n")
    fields = data[:end].split(b" ")
    if end < 0 or len(fields) != 5 or fields[0] != _FORMAT.encode() or fields[3] not in (b"0", b"1"):
        return None
    if len(fields[1]) != 64 or not fields[1].isascii() or not fields[4].isascii():
        return None
    if not fields[2].isdigit() or len(fields[2]) > 19:  # a shard's size, which int() always reads
        return None
    try:
        segments = search.segments_from_bytes(memoryview(data)[end + 1 :])
    except ValueError:
        return None
    sha256, signature = fields[1].decode("ascii"), fields[4].decode("ascii")
    clean = signature != "-" and scans.vouched(sha256, signature, CLEAN_NAME, scans.CREDENTIALS)
    return Cached(sha256, int(fields[2]), fields[3] == b"1", segments, clean)


def _built(memory: Memory, name: str, text: str, data: bytes, digest: str) -> Cached:
    """The shard's segment made from its whole text."""
    from lean_harness.memory import prose
    from lean_harness.scanning.credentials import hide, scan

    shard = parse(text, memory.shown(memory.shard_path(name)))
    docs, spans, marks, clean = _entry_docs(name, shard, text, len(_BOM) if data.startswith(_BOM) else 0)
    loose = prose.blocks(shard)
    for block in loose:
        findings = scan(block.text)  # the cache is no place for a flagged value, as for entries
        masked = hide(block.text, findings) if findings else block.text
        docs.append(search.Doc(f"{PROSE_PREFIX}{block.line}", name, "", (), masked))
        spans.append((0, 0))
        marks.append(0)  # read from the shard's text, never at a span
    last = shard.blocks[-1] if shard.blocks else ""
    open_end = (not text or text.endswith("\n")) and (isinstance(last, Entry) or not last.strip() or not loose)
    return Cached(digest, len(data), open_end, [search.segment_of(docs, spans=spans, marks=marks)], clean)


def _appended(memory: Memory, name: str, cached: Cached, data: bytes, digest: str) -> Cached | None:
    """The cached segments and one for the entries appended since, if whole entries are all that changed."""
    size = cached.size
    if not cached.open_end or len(data) <= size or shard_digest(memoryview(data)[:size]) != cached.sha256:
        return None
    try:
        tail = data[size:].decode("utf-8")
        shard = parse(tail, memory.shown(memory.shard_path(name)))
    except (UnicodeDecodeError, LhError):
        return None  # the whole shard is read again, and its error told as a full read tells it
    if any(isinstance(block, str) and block.strip() for block in shard.blocks):
        return None  # loose prose was added: its blocks may join those before it
    docs, spans, marks, clean = _entry_docs(name, shard, tail, size)
    open_end = tail.endswith("\n")
    segments = _merged([*cached.segments, search.segment_of(docs, spans=spans, marks=marks)])
    # Every entry lies wholly before the old end or after it, so both parts clean make every entry clean.
    return Cached(digest, len(data), open_end, segments, cached.clean and clean)


def _entry_docs(
    name: str, shard: Shard, text: str, start: int
) -> tuple[list[search.Doc], list[tuple[int, int]], list[int], bool]:
    """The entries of `shard`, parsed from `text` at byte `start` of its file, as the index sees them,
    with the byte span of each and the CRC-32 of those bytes, and whether the whole text scanned clean."""
    from lean_harness.scanning.credentials import hide, scan

    clean = not scan(text)  # one scan of the whole text clears every entry in it
    docs: list[search.Doc] = []
    spans: list[tuple[int, int]] = []
    marks: list[int] = []
    offset = start
    for block in shard.blocks:
        raw = (block if isinstance(block, str) else block.raw or "").encode("utf-8")
        # an entry whose id or tags hold a flagged value is left out; one whose text holds one is masked
        if isinstance(block, Entry) and (clean or not scan(" ".join([block.id, *block.tags]))):
            findings = [] if clean else scan(block.text)  # allowed or not: the cache is no place for one
            body = hide(block.text, findings) if findings else block.text
            docs.append(search.Doc(block.id, name, block.created, block.tags, body))
            spans.append((offset, offset + len(raw)))
            marks.append(crc32(raw))
        offset += len(raw)
    return docs, spans, marks, clean


def _merged(segments: list[Segment]) -> list[Segment]:
    """The segments, with the appended ones merged once there are more than DELTAS."""
    first, appended = segments[0], segments[1:]
    if len(appended) <= DELTAS:
        return segments
    merged = segment.merge(appended)
    if 4 * len(merged) >= len(first):
        return [segment.merge([first, merged])]
    return [first, merged]
