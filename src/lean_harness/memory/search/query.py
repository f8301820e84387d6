"""`lh memory get --query`: ranked whole entries packed into a token budget, and reachability.

The search index is derived data, cached per shard and kept in step with each shard's bytes
(memory/search_cache.py); the shards stay the truth. A hit is read back from the byte span the
index recorded for it, not found by scanning its shard.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from lean_harness.errors import LhError
from lean_harness.files import refuse_symlink
from lean_harness.memory.handle import MAX_SHARD_BYTES, Memory, locate
from lean_harness.memory.search import search, search_cache
from lean_harness.memory.search.search_cache import PROSE_PREFIX
from lean_harness.memory.shard import Entry, entry_at, parse
from lean_harness.memory.view import entry_cost
from lean_harness.recall import CUT
from lean_harness.scanning.masking import mask, neutralise

TYPE_CHECKING = False  # importing typing costs a command's start-up (adr/0025)
if TYPE_CHECKING:
    from typing import TypeVar

    T = TypeVar("T")

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
    refs: str = ""  # the entry's refs attribute (memory/evidence.py)
    line: int = 0  # for loose prose (id ""), the line of the shard file it starts on

    @property
    def weak(self) -> bool:
        """Below the strict threshold, which what is added unasked must reach (adr/0016)."""
        return self.score < search.DEFAULT_MIN_SCORE


@dataclass(frozen=True, slots=True)
class Answer:
    """The entries that answer a query, best first, within the token budget."""

    query: str
    results: tuple[Result, ...]
    total_tokens: int
    nearest: search.Hit | None = None  # with no results: the best entry left out, if any
    searched: int = 0  # how many entries and blocks of prose the query was matched against
    needs: int = 0  # with no results: the tokens the best entry's header line needs, when over the budget


@dataclass(frozen=True, slots=True)
class Unreachable:
    """An entry that a query made of its own first line does not find in the top results."""

    id: str
    shard: str
    title: str


def using_index(memory: Memory, work: Callable[[search.Index], T]) -> T:
    """`work` done with the search index under the read lock; again on an index made now from the
    shards when a cache file passed its checks but breaks in use (a planted one)."""
    with memory.reading():
        try:
            return work(_load_index(memory))
        except (ValueError, IndexError, KeyError, TypeError, ArithmeticError):
            return work(_load_index(memory, rebuild=True))


def _load_index(memory: Memory, rebuild: bool = False) -> search.Index:
    """The index of every shard as it is now (`rebuild`: made now, whatever is cached)."""
    names = [name for name in memory.config.shard_names if memory.summary(name).exists]  # refuses one that conflicts
    return search.Index([search_cache.shard_segment(memory, name, rebuild) for name in names])


def ask(
    memory: Memory,
    text: str,
    *,
    limit: int = 8,
    max_tokens: int = 1500,
    shards: Sequence[str] = (),
    tags: Sequence[str] = (),
    min_score: float | None = None,
    headers: bool = False,
) -> Answer:
    """The entries that best answer `text`, whole, best first, while they fit `max_tokens` (`headers`:
    counted with their header lines); all that hold a word of it, or with `min_score` those reaching it."""
    from lean_harness.memory.leaks import mask_entry

    memory.check_dir()
    for name in shards:
        memory.check_shard(name)
    tags = [t.lower() for t in tags]

    def answer(index: search.Index) -> Answer:
        found = index.search(text, limit=limit, shards=shards, tags=tags, min_score=min_score or 0.0)
        results: list[Result] = []
        used = 0
        texts: dict[str, str] = {}
        for hit in kept(found, min_score):
            entry = entry_of(memory, index, hit.shard, hit.id, texts)
            if entry is None:
                continue
            body, findings = mask_entry(entry)  # what is printed is scanned as it is now, whatever the cache says
            body = neutralise(body)
            # the entry's one figure (memory/view.py), of the text as printed here
            tokens = entry_cost(entry, memory.counter.counts, body)
            key, line, refs = (hit.id, 0, entry.attr("refs") or "") if entry.id else ("", entry.line, "")
            values = (hit.shard, round(hit.score, 4), tokens, entry.created, entry.tags, body, False, bool(findings))
            result = Result(key, *values, hit.matched, refs, line)
            cost = _printed(memory, result, first=not results) if headers else result.tokens
            if used + cost > max_tokens:
                if results:
                    break
                # the best entry alone is cut to what fits below its header line (its count as long as the budget's)
                frame = _printed(memory, replace(result, text="", tokens=max_tokens), first=True) if headers else 0
                body, tokens = _cut(memory, body, hit.shard, max(0, max_tokens - frame))
                result = replace(result, text=body, tokens=tokens, cut=True)
                cost = _printed(memory, result, first=True) if headers else tokens
                if cost > max_tokens:  # the header line and the shortest cut do not fit
                    return Answer(text, (), 0, None, len(index), cost)
            results.append(result)
            used += cost
            if result.cut:
                break
        if not results and min_score:  # a threshold left them out: the best entry below it
            found = index.search(text, limit=1, shards=shards, tags=tags, min_score=0.0)
        nearest = found[0] if found and not results else None
        return Answer(text, tuple(results), used, nearest, len(index))

    return using_index(memory, answer)


def kept(hits: Sequence[search.Hit], min_score: float | None) -> list[search.Hit]:
    """What an answer keeps of hits found at `min_score or 0.0`: with no `min_score`, those holding a query word."""
    return [hit for hit in hits if hit.matched or min_score is not None]


def heading(result: Result, shown: str) -> str:
    """The line printed above a result, less a stale mark; `shown` is its shard file as shown."""
    score = f"score {result.score:.2f}" + (" (weak)" if result.weak else "")
    if not result.id:  # loose prose: named by file and line (memory/prose.py)
        return f"[{shown}:{result.line}, not an entry] {score}, {result.tokens} tokens"
    tags = "".join(f" #{t}" for t in result.tags)
    return f"[{result.shard}/{result.id}] {score}, {result.tokens} tokens, {result.created[:10]}{tags}"


def _printed(memory: Memory, result: Result, first: bool) -> int:
    """The tokens a result takes as `lh memory get --query` prints it (a blank line before all but the first)."""
    block = f"{heading(result, memory.shown(memory.shard_path(result.shard)))}\n{result.text}\n"
    return memory.counter.count(block if first else "\n" + block)  # cached: a warm query counts nothing


def unreachable(memory: Memory, top: int = 5) -> list[Unreachable]:
    """Entries that their own first line does not retrieve within the top `top` results."""
    memory.check_dir()

    def lost(index: search.Index) -> list[Unreachable]:
        entries = [(name, entry) for name in memory.config.shard_names for entry in memory.entries(name)]
        # shown as an agent may read them: an id or title written by hand may hold a credential
        missed = [(name, e) for name, e in entries if not index.finds(e.title, name, e.id, top)]
        return [Unreachable(mask(entry.id), name, mask(entry.title)) for name, entry in missed]

    return using_index(memory, lost)


def entry_of(memory: Memory, index: search.Index, shard: str, key: str, texts: dict[str, str]) -> Entry | None:
    """An indexed entry (or prose block), read from the byte span the index recorded, else found in
    its shard's text (kept in `texts` for the next); call it under the lock the index was loaded under."""
    shown = memory.shown(memory.shard_path(shard))
    if not key.startswith(PROSE_PREFIX):
        entry = _at_span(memory, shard, index.span_of(shard, key), shown)
        if entry is not None and entry.id == key:
            return entry
    if shard not in texts:
        texts[shard] = memory.read_shard(shard)[0]
    if key.startswith(PROSE_PREFIX):  # a block of loose prose (memory/prose.py), answered as an entry without an id
        from lean_harness.memory import prose

        line = int(key[len(PROSE_PREFIX) :])
        blocks = [block for block in prose.blocks(parse(texts[shard], shown)) if block.line == line]
        return Entry("", "", blocks[0].text, line=line) if blocks else None
    found = locate(texts[shard], key, shown)
    return None if found is None else found[2]


def _at_span(memory: Memory, name: str, span: tuple[int, int], shown: str) -> Entry | None:
    """The entry whose text fills bytes `span` of a shard file (None when they hold no whole entry)."""
    start, end = span
    if end <= start or end - start > MAX_SHARD_BYTES:  # a span no shard has
        return None
    path = memory.shard_path(name)
    refuse_symlink(path, memory.root)
    try:
        with open(path, "rb") as handle:
            handle.seek(start)
            text = handle.read(end - start).decode("utf-8")
        entry, stop = entry_at(text, 0, shown)
    except (OSError, UnicodeDecodeError, LhError):
        return None
    return entry if stop == len(text) else None


def _cut(memory: Memory, body: str, shard: str, budget: int) -> tuple[str, int]:
    marker = CUT.format(shard=shard)
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
