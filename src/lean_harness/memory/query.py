"""`lh memory get --query`: ranked whole entries packed into a token budget, and reachability.

The search index is derived data: `<cacheDir>/lh/search.idx` starts with a key made of every
shard's content hash and is rebuilt from the Markdown whenever that key no longer matches or the
file does not load; the shards stay the truth.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from lean_harness.files import write_atomic
from lean_harness.memory import search
from lean_harness.memory.handle import Memory, locate
from lean_harness.memory.leaks import mask_entry
from lean_harness.memory.shard import Entry

CUT_MARKER = "\n[… cut; whole entry: lh memory get {shard}]"


@dataclass(frozen=True)
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
    refs: str = ""  # the entry's refs attribute (memory/evidence.py)
    line: int = 0  # for loose prose (id ""), the line of the shard file it starts on


@dataclass(frozen=True)
class Answer:
    """The entries that answer a query, best first, within the token budget."""

    query: str
    results: tuple[Result, ...]
    total_tokens: int
    nearest: search.Hit | None = None  # with no results: the best entry below the threshold, if any


@dataclass(frozen=True)
class Unreachable:
    """An entry that a query made of its own first line does not find in the top results."""

    id: str
    shard: str
    title: str


def load_index(memory: Memory) -> search.Index:
    """The search index for the shards as they are now, from the cache or rebuilt."""
    with memory.reading():  # no writer changes a shard between hashing it and indexing it
        return _load_index(memory)


def _load_index(memory: Memory) -> search.Index:
    names = memory.config.shard_names
    key = hashlib.sha256(
        "\n".join(f"{name} {memory.summary(name).sha256}" for name in names).encode()
        + f"\nformat {search.FORMAT_VERSION}".encode()
    ).hexdigest()
    path = memory.config.cache_dir / "lh" / "search.idx"
    try:
        data = path.read_bytes()
        if data[:64] == key.encode():
            return search.Index.from_bytes(data[64:])
    except (OSError, ValueError):
        pass  # a missing, stale or corrupt cache is rebuilt, never trusted
    docs = [doc for name in names for doc in _docs(memory, name)]
    docs += _prose_docs(memory, names)
    index = search.Index.build(docs)
    try:
        write_atomic(path, key.encode() + index.to_bytes())
    except OSError:
        pass
    return index


def _docs(memory: Memory, name: str) -> list[search.Doc]:
    """A shard's entries as the index sees them: the cache on disk never holds a credential, so
    flagged values are indexed masked, and an entry whose id or tags hold one is left out."""
    from lean_harness.secret_scan import mask, scan

    entries = memory.entries(name)
    if not scan(memory.read_shard(name)[0]):  # one scan of the whole file clears every entry in it
        return [search.Doc(e.id, name, e.created, e.tags, e.text) for e in entries]
    docs = []
    for entry in entries:
        findings = scan(entry.text)  # allowed or not: the cache is no place for a flagged value
        if not scan(" ".join([entry.id, *entry.tags])):
            text = mask(entry.text, findings) if findings else entry.text
            docs.append(search.Doc(entry.id, name, entry.created, entry.tags, text))
    return docs


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
    with memory.reading():  # the shards stay as indexed while their entries are read
        index = load_index(memory)
        hits = index.search(text, limit=limit, shards=shards, tags=[t.lower() for t in tags], min_score=min_score)
        results: list[Result] = []
        used = 0
        texts: dict[str, str] = {}
        for hit in hits:
            entry = _entry(memory, hit.shard, hit.id, texts)
            if entry is None:
                continue
            body, findings = mask_entry(entry)
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
            below = index.search(text, limit=1, shards=shards, tags=[t.lower() for t in tags], min_score=0.0)
            nearest = below[0] if below else None
    return Answer(text, tuple(results), used, nearest)


def unreachable(memory: Memory, top: int = 5) -> list[Unreachable]:
    """Entries that their own first line does not retrieve within the top `top` results."""
    memory.check_dir()
    index = load_index(memory)
    found: list[Unreachable] = []
    for name in memory.config.shard_names:
        for entry in memory.entries(name):
            hits = index.search(entry.title, limit=top, min_score=0.0)
            ids = [(h.shard, h.id) for h in hits]
            if (name, entry.id) not in ids:
                found.append(Unreachable(entry.id, name, entry.title))
    return found


def _entry(memory: Memory, shard: str, key: str, texts: dict[str, str]) -> Entry | None:
    if shard not in texts:
        texts[shard] = memory.read_shard(shard)[0]
    if key.startswith(PROSE_PREFIX):
        return _prose_entry(memory, shard, int(key[len(PROSE_PREFIX) :]), texts[shard])
    found = locate(texts[shard], key, memory.shown(memory.shard_path(shard)))
    return None if found is None else found[2]


# --- Loose prose as documents (memory/prose.py) ---------------------------------------------------
# A block of prose is indexed under the id "@LINE" (no entry id starts with "@") and answered as
# an entry-like value whose `line` is the block's first line and whose id is empty.
PROSE_PREFIX = "@"


def _prose_docs(memory: Memory, names: Sequence[str]) -> list[search.Doc]:
    from lean_harness.memory import prose
    from lean_harness.memory.shard import parse
    from lean_harness.secret_scan import mask, scan

    docs: list[search.Doc] = []
    for name in names:
        if not memory.summary(name).prose_lines:
            continue
        shard = parse(memory.read_shard(name)[0], memory.shown(memory.shard_path(name)))
        for block in prose.blocks(shard):
            findings = scan(block.text)  # the cache is no place for a flagged value, as for entries
            text = mask(block.text, findings) if findings else block.text
            docs.append(search.Doc(f"{PROSE_PREFIX}{block.line}", name, "", (), text))
    return docs


def _prose_entry(memory: Memory, name: str, line: int, text: str) -> Entry | None:
    from lean_harness.memory import prose
    from lean_harness.memory.shard import parse

    for block in prose.blocks(parse(text, memory.shown(memory.shard_path(name)))):
        if block.line == line:
            return Entry("", "", block.text, line=line)
    return None


def _cut(memory: Memory, body: str, shard: str, budget: int) -> tuple[str, int]:
    marker = CUT_MARKER.format(shard=shard)
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
