"""`lh memory get --query`: ranked whole entries packed into a token budget, and reachability.

The search index is derived data, cached per shard and kept in step with each shard's bytes
(search_cache.py); the shards stay the truth. A hit is read back from the byte span the
index recorded for it, not found by scanning its shard.
"""

from __future__ import annotations

from binascii import crc32
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from lean_harness.errors import LhError
from lean_harness.files import refuse_symlink
from lean_harness.memory.handle import MAX_SHARD_BYTES, Memory, locate
from lean_harness.memory.search import search, search_cache
from lean_harness.memory.search.search_cache import PROSE_PREFIX
from lean_harness.memory.shard import Entry, entry_at

TYPE_CHECKING = False  # importing typing costs a command's start-up (adr/0025)
if TYPE_CHECKING:
    from typing import TypeVar

    from lean_harness.scanning.finding import Finding

    T = TypeVar("T")

CUT_MARKER = "\n[… cut; whole entry: lh memory get {shard}]"
SHORT_CUT_MARKER = "…"


@dataclass(frozen=True, slots=True)
class Result:
    """One entry in the answer to a query."""

    id: str
    shard: str
    score: float
    tokens: int
    created: str
    tags: tuple[str, ...]
    text: str
    cut: bool = False
    masked: bool = False
    matched: tuple[str, ...] = ()  # the query's words this entry contains (directly or by a synonym)
    refs: str = ""  # the entry's refs attribute (memory/evidence/evidence.py)
    line: int = 0  # for loose prose (id ""), the line of the shard file it starts on


@dataclass(frozen=True, slots=True)
class Answer:
    """The entries that answer a query, best first, within the token budget."""

    query: str
    results: tuple[Result, ...]
    total_tokens: int
    nearest: search.Hit | None = None  # with no results: the best entry below the threshold, if any


@dataclass(frozen=True, slots=True)
class Unreachable:
    """An entry that a query made of its own first line does not find in the top results."""

    id: str
    shard: str
    title: str


def load_index(memory: Memory) -> search.Index:
    """The search index for the shards as they are now, from the cache or rebuilt."""
    with memory.reading():  # no writer changes a shard between hashing it and indexing it
        return _load_index(memory)[0]


def using_index(memory: Memory, work: Callable[[search.Index, frozenset[str]], T]) -> T:
    """`work` done with the search index and the shards vouched clean (see `_load_index`), under
    the read lock, so the shards stay as indexed while their entries are read.

    A cache file that passes its checksum but not its layout (one a repository planted, say)
    breaks the work with one of these errors; it is then done again on segments made now from
    the shards, which replace the file. Work that fails on those too fails as it would.
    """
    with memory.reading():
        try:  # the index is made from the segments when it is loaded: a planted file may break that too
            index, clean = _load_index(memory)
            return work(index, clean)
        except (ValueError, IndexError, KeyError, TypeError, ArithmeticError):
            index, clean = _load_index(memory, rebuild=True)
            return work(index, clean)


def _load_index(memory: Memory, rebuild: bool = False) -> tuple[search.Index, frozenset[str]]:
    """The index (`rebuild`: made now, whatever is cached), and the shards whose every entry was
    found clean of credentials as they are now."""
    segments = []
    clean = set()
    for name in memory.config.shard_names:
        summary = memory.summary(name)  # refuses a shard whose entries conflict
        if summary.exists:
            cached = search_cache.shard_segments(memory, name, summary.sha256, rebuild)
            segments += cached.segments
            if cached.clean:
                clean.add(name)
    return search.Index(segments), frozenset(clean)


def ask(
    memory: Memory,
    text: str,
    *,
    limit: int = 8,
    max_tokens: int = 1500,
    shards: Sequence[str] = (),
    tags: Sequence[str] = (),
    min_score: float = search.DEFAULT_MIN_SCORE,
) -> Answer:
    """The entries that best answer `text`, whole, best first, while they fit `max_tokens`."""
    memory.check_dir()
    for name in shards:
        memory.check_shard(name)
    asked = (text, limit, max_tokens, shards, [t.lower() for t in tags], min_score)
    return using_index(memory, lambda index, clean: _answer(memory, index, clean, *asked))


def _answer(
    memory: Memory,
    index: search.Index,
    clean: frozenset[str],
    text: str,
    limit: int,
    max_tokens: int,
    shards: Sequence[str],
    tags: Sequence[str],
    min_score: float,
) -> Answer:
    hits = index.search(text, limit=limit, shards=shards, tags=tags, min_score=min_score)
    results: list[Result] = []
    used = 0
    texts: dict[str, str] = {}
    for hit in hits:
        entry, as_indexed = _read(memory, index, hit.shard, hit.id, texts)
        if entry is None:
            continue
        # an entry read as indexed from a shard vouched clean holds no credential to mask (search_cache.py)
        body, findings = (entry.text, []) if as_indexed and hit.shard in clean else _masked(entry)
        tokens = memory.counter.count(body)
        if used + tokens > max_tokens:
            if results or tokens <= max_tokens:
                break
            body, tokens = _cut(memory, body, hit.shard, max_tokens)
            results.append(_result(hit, entry, body, tokens, cut=True, masked=bool(findings)))
            used += tokens
            break
        results.append(_result(hit, entry, body, tokens, cut=False, masked=bool(findings)))
        used += tokens
    nearest = None
    if not results and min_score > 0:
        below = index.search(text, limit=1, shards=shards, tags=tags, min_score=0.0)
        nearest = below[0] if below else None
    return Answer(text, tuple(results), used, nearest)


def _masked(entry: Entry) -> tuple[str, list[Finding]]:
    from lean_harness.memory.leaks import mask_entry  # the scanner's rules: only for hits no vouch covers

    return mask_entry(entry)


def unreachable(memory: Memory, top: int = 5) -> list[Unreachable]:
    """Entries that their own first line does not retrieve within the top `top` results."""
    from lean_harness.scanning import masking

    memory.check_dir()

    def lost(index: search.Index, _: frozenset[str]) -> list[Unreachable]:
        found: list[Unreachable] = []
        for name in memory.config.shard_names:
            for entry in memory.entries(name):
                if not index.finds(entry.title, name, entry.id, top):
                    # shown as an agent may read them: an id or title written by hand may hold a credential
                    found.append(Unreachable(masking.mask(entry.id), name, masking.mask(entry.title)))
        return found

    return using_index(memory, lost)


def entry_of(memory: Memory, index: search.Index, shard: str, key: str, texts: dict[str, str]) -> Entry | None:
    """An indexed entry (or prose block), read from the byte span the index recorded, else found in
    its shard's text (kept in `texts` for the next); call it under the lock the index was loaded under."""
    return _read(memory, index, shard, key, texts)[0]


def _read(
    memory: Memory, index: search.Index, shard: str, key: str, texts: dict[str, str]
) -> tuple[Entry | None, bool]:
    """`entry_of`'s entry, and whether it was read at its span from the very bytes indexed (their
    CRC-32 is the one the index recorded): only then does a vouch for the shard cover it."""
    shown = memory.shown(memory.shard_path(shard))
    if not key.startswith(PROSE_PREFIX):
        entry, mark = _at_span(memory, shard, index.span_of(shard, key), shown)
        if entry is not None and entry.id == key:
            return entry, mark == index.mark_of(shard, key) != 0
    if shard not in texts:
        texts[shard] = memory.read_shard(shard)[0]
    if key.startswith(PROSE_PREFIX):
        return _prose_entry(memory, shard, int(key[len(PROSE_PREFIX) :]), texts[shard]), False
    found = locate(texts[shard], key, shown)
    return (None if found is None else found[2]), False


def _at_span(memory: Memory, name: str, span: tuple[int, int], shown: str) -> tuple[Entry | None, int]:
    """The entry whose text fills bytes `span` of a shard file (None when they hold no whole entry),
    and the CRC-32 of those bytes."""
    start, end = span
    if end <= start or end - start > MAX_SHARD_BYTES:  # a span no shard has (a planted cache file)
        return None, 0
    path = memory.shard_path(name)
    refuse_symlink(path, memory.root)
    try:
        with open(path, "rb") as handle:
            handle.seek(start)
            data = handle.read(end - start)
        text = data.decode("utf-8")
        entry, stop = entry_at(text, 0, shown)
    except (OSError, UnicodeDecodeError, LhError):
        return None, 0
    return (entry if stop == len(text) else None), crc32(data)


# --- Loose prose as documents (memory/prose.py) ---------------------------------------------------
# A block of prose is indexed under the id "@LINE" (search_cache.py) and answered as an
# entry-like value whose `line` is the block's first line and whose id is empty.


def _prose_entry(memory: Memory, name: str, line: int, text: str) -> Entry | None:
    from lean_harness.memory import prose
    from lean_harness.memory.shard import parse

    for block in prose.blocks(parse(text, memory.shown(memory.shard_path(name)))):
        if block.line == line:
            return Entry("", "", block.text, line=line)
    return None


def _cut(memory: Memory, body: str, shard: str, budget: int) -> tuple[str, int]:
    marker = CUT_MARKER.format(shard=shard)
    if memory.counter.measure(marker) > budget:
        marker = SHORT_CUT_MARKER  # a budget smaller than the marker still gets no more than it asked for
    room = max(0, budget - memory.counter.measure(marker))
    low, high = 0, len(body)
    while low < high:  # the longest prefix that fits, by bisection on characters
        middle = (low + high + 1) // 2
        if memory.counter.measure(body[:middle]) <= room:
            low = middle
        else:
            high = middle - 1
    cut = body[:low].rstrip() + marker
    return cut, memory.counter.measure(cut)


def _result(hit: search.Hit, entry: Entry, body: str, tokens: int, *, cut: bool, masked: bool) -> Result:
    key, line = (hit.id, 0) if entry.id else ("", entry.line)
    refs = entry.attr("refs") or ""
    return Result(
        key,
        hit.shard,
        round(hit.score, 4),
        tokens,
        entry.created,
        entry.tags,
        body,
        cut,
        masked,
        hit.matched,
        refs,
        line,
    )
