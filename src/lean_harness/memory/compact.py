"""Compaction plans: which old entries merge into which digest, and what memory weighs after.

Pure: it takes parsed shards with their token counts and a counting function, and returns a
frozen Plan; reading and writing files is `memory/archive.py`'s job (adr/0012-compaction.md).

A digest is an ordinary entry written by lh. Its text opens with one line naming how many
entries it stands for, their date range and the command that restores them, then keeps the
first line of each source entry (its title, as INDEX.md shows it), exact and near-duplicate
lines once. Its header records the range (`from`, `to`), the source ids (`sources`), how many
original entries it stands for (`entries`) and the archive file holding the sources verbatim.
Its `created` is the newest source's, so nothing in it depends on the clock.

Never merged: the newest `keep_newest` entries of each shard and entries tagged `pinned`.
Merged first: superseded entries (named by another entry's `supersedes` attribute); then the
oldest, where an entry updated in place with `--id` is as old as its last update. Largest shards go first; a shard
gives at most one digest per run, and only a group of two or more entries that saves tokens.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from lean_harness.memory import view
from lean_harness.memory.shard import Entry, derive_id, title_of

PIN_TAG = "pinned"
DIGEST_TAG = "digest"
ARCHIVE_DIR = "archive"
_WORD_RE = re.compile(r"[^\W\d_]+")

Counts = Callable[[Sequence[str]], list[int]]


@dataclass(frozen=True)
class ShardInput:
    """A shard as the planner sees it: entries in file order and their token counts."""

    name: str
    entries: tuple[Entry, ...]
    tokens: tuple[int, ...]


@dataclass(frozen=True)
class Digest:
    """One digest entry and the source entries it replaces."""

    shard: str
    entry: Entry
    sources: tuple[Entry, ...]
    tokens_before: int
    tokens: int
    dropped: int  # source lines left out as exact or near duplicates


@dataclass(frozen=True)
class ShardPlan:
    """One shard before and after the plan."""

    name: str
    entries_before: int
    entries_after: int
    tokens_before: int
    tokens_after: int
    protected: int  # newest and pinned entries, never merged


@dataclass(frozen=True)
class Plan:
    """What a compaction would do, and where the memory stands before and after."""

    budget: int
    threshold: int
    target: int
    total_before: int
    total_after: int
    forced: bool
    shards: tuple[ShardPlan, ...]
    digests: tuple[Digest, ...]

    @property
    def due(self) -> bool:
        return self.total_before > self.threshold

    @property
    def merged(self) -> int:
        return sum(len(d.sources) for d in self.digests)

    @property
    def reached(self) -> bool:
        return self.total_after <= self.target


def is_digest(entry: Entry) -> bool:
    """An entry written by compaction."""
    return entry.attr("sources") is not None and DIGEST_TAG in entry.tags


def archive_path(shard: str) -> str:
    """Where a shard's merged entries are kept, relative to the memory dir."""
    return f"{ARCHIVE_DIR}/{shard}.md"


def plan(
    shards: Sequence[ShardInput],
    *,
    budget: int,
    at_percent: int,
    target_percent: int,
    keep_newest: int,
    counts: Counts,
    force: bool = False,
    taken: Callable[[str], set[str]] | None = None,
) -> Plan:
    """The compaction of `shards` down to `target_percent` of `budget` (only when due, or forced)."""
    threshold = budget * at_percent // 100
    target = budget * target_percent // 100
    total = sum(sum(s.tokens) for s in shards)
    candidates = {s.name: _candidates(s, keep_newest) for s in shards}
    groups: dict[str, list[int]] = {s.name: [] for s in shards}
    digests: dict[str, Digest] = {}
    if (total > threshold or force) and total > target:
        order = _order(shards, candidates)
        growth = {s.name: _Growth(s, counts) for s in shards if candidates[s.name]}
        by_name = {s.name: s for s in shards}
        made: dict[tuple[str, int], Digest] = {}  # digests counted so far, by shard and group size
        position = 0
        while position < len(order):
            # Grow the groups on estimates (line counts add up), then count the digests exactly.
            while position < len(order) and total - sum(g.saving() for g in growth.values()) > target:
                name, index = order[position]
                growth[name].add(index)
                groups[name].append(index)
                position += 1
            for name, indexes in groups.items():
                if len(indexes) >= 2 and (name, len(indexes)) not in made:
                    made[name, len(indexes)] = _digest(by_name[name], indexes, counts, taken)
            digests = {name: made[name, len(i)] for name, i in groups.items() if len(i) >= 2}
            digests = {name: d for name, d in digests.items() if d.tokens < d.tokens_before}
            saved = sum(d.tokens_before - d.tokens for d in digests.values())
            if total - saved <= target:
                break
            if position < len(order):  # the estimate was short: take one more entry and count again
                name, index = order[position]
                growth[name].add(index)
                groups[name].append(index)
                position += 1
    rows = []
    for shard in shards:
        digest = digests.get(shard.name)
        tokens = sum(shard.tokens)
        merged = len(digest.sources) if digest else 0
        after = tokens - (digest.tokens_before - digest.tokens if digest else 0)
        entries_after = len(shard.entries) - merged + (1 if digest else 0)
        protected = len(shard.entries) - len(candidates[shard.name])
        rows.append(ShardPlan(shard.name, len(shard.entries), entries_after, tokens, after, protected))
    chosen = tuple(digests[s.name] for s in shards if s.name in digests)
    total_after = total - sum(d.tokens_before - d.tokens for d in chosen)
    return Plan(budget, threshold, target, total, total_after, force, tuple(rows), chosen)


def _key(entry: Entry) -> tuple[str, int, str]:
    # Age order: last change (an update in place with --id makes an entry current again), a
    # digest before an entry of the same second, then id; the file order plays no part, so
    # shuffling a shard's entries does not change the plan.
    return (max(entry.created, entry.attr("updated") or ""), 0 if is_digest(entry) else 1, entry.id)


def _candidates(shard: ShardInput, keep_newest: int) -> list[int]:
    """Indexes of the entries that may be merged, superseded first, then oldest first."""
    ranked = sorted(range(len(shard.entries)), key=lambda i: _key(shard.entries[i]))
    newest = set(ranked[len(ranked) - keep_newest :]) if keep_newest else set()
    named = {key for e in shard.entries for key in (e.attr("supersedes") or "").replace(",", " ").split()}
    free = [i for i in ranked if i not in newest and PIN_TAG not in shard.entries[i].tags]
    superseded = [i for i in free if _superseded(shard.entries[i], named)]
    return superseded + [i for i in free if not _superseded(shard.entries[i], named)]


def _superseded(entry: Entry, named: set[str]) -> bool:
    return entry.id in named


def _order(shards: Sequence[ShardInput], candidates: dict[str, list[int]]) -> list[tuple[str, int]]:
    """Every candidate in merge order: superseded ones first, largest shard first, oldest first."""
    ranked = sorted(shards, key=lambda s: (-sum(s.tokens), s.name))
    first: list[tuple[str, int]] = []
    rest: list[tuple[str, int]] = []
    for shard in ranked:
        named = {key for e in shard.entries for key in (e.attr("supersedes") or "").replace(",", " ").split()}
        for index in candidates[shard.name]:
            (first if _superseded(shard.entries[index], named) else rest).append((shard.name, index))
    return first + rest


def lines_of(entry: Entry) -> list[str]:
    """The lines an entry contributes to a digest: its title, or a digest's own lines."""
    if is_digest(entry):
        return [line.removeprefix("- ") for line in entry.text.split("\n")[1:] if line.strip()]
    title = title_of(entry.text)
    return [title] if title else []


def near_key(line: str) -> str:
    """Lines with the same key are near duplicates: the same words, whatever the case, numbers and order."""
    words = sorted(set(_WORD_RE.findall(line.casefold())))
    return " ".join(words) if words else line


class _Growth:
    """A shard's group as it grows: source tokens and the estimated digest size."""

    def __init__(self, shard: ShardInput, counts: Counts) -> None:
        self.shard = shard
        self.counts = counts
        self.sources = 0
        self.size = 0
        self.lines = 0
        self.keys: set[str] = set()
        intro = _intro(2, "2026-01-01T00:00:00Z", "2026-12-31T00:00:00Z", "0123456789ab", 0)
        # As get prints a digest (adr/0017): its id, day and tags, then the text.
        sample = Entry("0123456789ab", "2026-12-31T00:00:00Z", intro, (DIGEST_TAG,), (("sources", ""),))
        self.intro = view.costs([view.entry_block(sample)], counts)[0] + 1

    def add(self, index: int) -> None:
        entry = self.shard.entries[index]
        self.sources += self.shard.tokens[index]
        self.size += 1
        fresh = []
        for line in lines_of(entry):
            key = near_key(line)
            if key not in self.keys:
                self.keys.add(key)
                fresh.append(f"- {line}\n")
        if fresh:
            self.lines += sum(self.counts(fresh))

    def saving(self) -> int:
        return max(0, self.sources - self.intro - self.lines) if self.size >= 2 else 0


def _intro(entries: int, first: str, last: str, key: str, dropped: int) -> str:
    left_out = f" ({dropped} repeated lines left out)" if dropped else ""
    return (
        f"Digest of {entries} entries from {first[:10]} to {last[:10]}{left_out};"
        f" `lh memory expand {key}` restores them."
    )


def _digest(
    shard: ShardInput, indexes: Sequence[int], counts: Counts, taken: Callable[[str], set[str]] | None
) -> Digest:
    """The digest of the entries at `indexes`, oldest first."""
    sources = sorted((shard.entries[i] for i in indexes), key=_key)
    before = sum(shard.tokens[i] for i in indexes)
    lines: list[str] = []
    keys: set[str] = set()
    dropped = 0
    for entry in sources:
        for line in lines_of(entry):
            key = near_key(line)
            if key in keys:
                dropped += 1
                continue
            keys.add(key)
            lines.append(line)
    first = min(e.attr("from") or e.created for e in sources)
    last = max(e.created for e in sources)
    ids = [e.id for e in sources]
    used = {e.id for e in shard.entries} | (taken(shard.name) if taken else set())
    key = derive_id(shard.name, "\n".join([DIGEST_TAG, *ids]), used)
    count = sum(int(e.attr("entries") or 1) if is_digest(e) else 1 for e in sources)
    text = "\n".join([_intro(count, first, last, key, dropped), *(f"- {line}" for line in lines)])
    tags = sorted({DIGEST_TAG, *(t for e in sources for t in e.tags)})
    allowed = sorted({r for e in sources for r in (e.attr("allow-secret") or "").split(",") if r})
    extra = [
        ("from", first),
        ("to", last),
        ("entries", str(count)),
        ("sources", " ".join(ids)),
        ("archive", archive_path(shard.name)),
    ]
    if allowed:
        extra.append(("allow-secret", ",".join(allowed)))
    entry = Entry(key, last, text, tuple(tags), tuple(extra))
    printed = view.costs([view.entry_block(entry)], counts)[0]  # what get prints for it (adr/0017)
    return Digest(shard.name, entry, tuple(sources), before, printed, dropped)
