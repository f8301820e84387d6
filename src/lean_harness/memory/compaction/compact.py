"""Compaction plans: which old entries merge into which digest, and what memory weighs after.

Pure: parsed shards and their token counts in, a frozen Plan out; files are `archive.py`'s (adr/0012-compaction.md).

A digest is an ordinary entry: one line naming how many entries it stands for, their dates and the
command that shows them, then each source's first line less fillers (true duplicates once). Its header
records the range, the source ids, the count, the archive file and the union of the sources' attributes.

Never merged: the `keep_newest` last written of each shard and `pinned` entries. Merged first: superseded
entries, then the never used and least recently used (adr/0038), then the first written; largest shards
first, at most one digest a shard, only when it saves tokens. Loose prose counts but is never merged.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from lean_harness.config import compaction_threshold
from lean_harness.memory import view
from lean_harness.memory.scans import rule_list
from lean_harness.memory.shard import Entry, by_writing, derive_id, first_line, time_attr, written

PIN_TAG = "pinned"
DIGEST_TAG = "digest"
ARCHIVE_DIR = "archive"
HOLDERS = 5  # the largest entries named when the target is out of reach
# An entry is merged only when its digest line costs at most this share of it: moving a note out
# of sight for a token or two (a one-line note keeps nearly all of itself) is not worth it.
LINE_SHARE = 0.75
# Left out of a digest line: articles and fillers, every one a word search ignores
# (search.STOPWORDS; a test keeps it so), so no query word of the note is lost.
FILLERS = frozenset({"a", "an", "the", "very", "just", "also"})
_WORD_RE = re.compile(r"\w+")
_INTRO_RE = re.compile(
    r"Digest of (\d+) entries from (\S+) to (\S+), the first line of each( \(\d+ repeated lines? left out\))?; "
)
# Attributes a digest computes itself rather than gathering from its sources.
_OWN = frozenset({"from", "to", "entries", "sources", "archive", "allow-secret", "allow-directive", "updated", "sha"})

Counts = Callable[[Sequence[str]], list[int]]


@dataclass(frozen=True)
class ShardInput:
    """A shard as the planner sees it: entries in file order and their token counts."""

    name: str
    entries: tuple[Entry, ...]
    tokens: tuple[int, ...]
    loose: int = 0  # tokens of text outside entries (memory/prose.py): counted, never merged


@dataclass(frozen=True)
class Digest:
    """One digest entry and the source entries it replaces."""

    shard: str
    entry: Entry
    sources: tuple[Entry, ...]
    tokens_before: int
    tokens: int
    dropped: int  # source lines left out as true duplicates
    reasons: tuple[str, ...] = field(default=(), compare=False)  # why each source was chosen, in order


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
class Holder:
    """An entry that stays, with its tokens and why it stays: newest, pinned, one-line or digest."""

    shard: str
    id: str
    tokens: int
    why: str


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
    protected_tokens: int = 0  # held by the newest and pinned entries
    whole_tokens: int = 0  # held by entries a digest would hardly shrink (their line costs nearly as much)
    whole: int = 0  # how many such entries
    holders: tuple[Holder, ...] = ()  # the largest entries left after the plan
    loose_tokens: int = 0  # held by text outside entries, which no digest can shrink

    @property
    def due(self) -> bool:
        return self.total_before > self.threshold

    @property
    def reached(self) -> bool:
        return self.total_after <= self.target


def is_digest(entry: Entry) -> bool:
    """An entry written by compaction, with its sources in this project's archive."""
    return entry.attr("sources") is not None and DIGEST_TAG in entry.tags


def archive_path(shard: str) -> str:
    """Where a shard's merged entries are kept, relative to the memory dir."""
    return f"{ARCHIVE_DIR}/{shard}.md"


def protected(entries: Sequence[Entry], keep_newest: int) -> set[int]:
    """Positions compaction never touches: the last `keep_newest` written, and pinned entries."""
    order = by_writing(entries)
    newest = order[len(order) - min(keep_newest, len(order)) :] if keep_newest > 0 else []
    return set(newest) | {i for i, e in enumerate(entries) if PIN_TAG in e.tags}


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
    last_used: Mapping[tuple[str, str], str] | None = None,
) -> Plan:
    """The compaction of `shards` down to `target_percent` of `budget` (only when due, or forced); `last_used`
    ((shard, id) -> last use) orders entries by use, None (no usage record) by writing alone."""
    threshold = compaction_threshold(budget, at_percent)
    target = budget * target_percent // 100
    total = sum(sum(s.tokens) + s.loose for s in shards)
    kept = {s.name: protected(s.entries, keep_newest) for s in shards}
    groups: dict[str, _Group] = {s.name: _Group(s, counts) for s in shards}
    digests: dict[str, Digest] = {}
    whole: set[tuple[str, int]] = set()
    if (total > threshold or force) and total > target:
        made: dict[tuple[str, int], Digest] = {}  # digests counted so far, by shard and group size
        pending = _order(shards, kept, last_used)

        def take() -> None:
            name, index, superseded = pending.pop(0)
            if not groups[name].add(index, force=superseded):
                whole.add((name, index))

        while True:
            # Grow the groups on estimates (line counts add up), then count the digests exactly;
            # an entry taken because the count was short is counted before the loop can end.
            while pending and total - sum(g.saving() for g in groups.values()) > target:
                take()
            for name, group in groups.items():
                if len(group.indexes) >= 2 and (name, len(group.indexes)) not in made:
                    made[name, len(group.indexes)] = _digest(group.shard, group.indexes, counts, taken)
            digests = {n: made[n, len(g.indexes)] for n, g in groups.items() if len(g.indexes) >= 2}
            digests = {n: d for n, d in digests.items() if d.tokens < d.tokens_before}
            if total - sum(d.tokens_before - d.tokens for d in digests.values()) <= target or not pending:
                break
            take()  # the estimate was short: take one more entry and count again
    rows = []
    for shard in shards:
        digest = digests.get(shard.name)
        tokens = sum(shard.tokens) + shard.loose
        saved, merged = (digest.tokens_before - digest.tokens, len(digest.sources) - 1) if digest else (0, 0)
        after = len(shard.entries) - merged
        rows.append(ShardPlan(shard.name, len(shard.entries), after, tokens, tokens - saved, len(kept[shard.name])))
    chosen = tuple(replace(d, reasons=_reasons(s, d, last_used)) for s in shards if (d := digests.get(s.name)))
    total_after = total - sum(d.tokens_before - d.tokens for d in chosen)
    protected_tokens = sum(s.tokens[i] for s in shards for i in kept[s.name])
    whole_tokens = sum(s.tokens[i] for s in shards for i in range(len(s.entries)) if (s.name, i) in whole)
    holders = _holders(shards, kept, whole, chosen)
    return Plan(
        budget,
        threshold,
        target,
        total,
        total_after,
        force,
        tuple(rows),
        chosen,
        protected_tokens,
        whole_tokens,
        len(whole),
        holders,
        sum(s.loose for s in shards),
    )


def _reasons(shard: ShardInput, digest: Digest, last_used: Mapping[tuple[str, str], str] | None) -> tuple[str, ...]:
    """Why each of a digest's sources was chosen, as `--dry-run` says it."""
    named, used = _named(shard.entries), last_used or {}
    whys = {e.id: f"last used {used[shard.name, e.id][:10]}" for e in digest.sources if (shard.name, e.id) in used}
    fallback = "first written" if last_used is None else "never used"
    return tuple("superseded" if e.id in named else whys.get(e.id, fallback) for e in digest.sources)


def _named(entries: Sequence[Entry]) -> set[str]:
    return {key for e in entries for key in (e.attr("supersedes") or "").replace(",", " ").split()}


def _order(
    shards: Sequence[ShardInput], kept: dict[str, set[int]], last_used: Mapping[tuple[str, str], str] | None
) -> list[tuple[str, int, bool]]:
    """Every entry that may be merged, in merge order: superseded ones first, largest shard first, never used
    then least recently used, else first written."""
    first: list[tuple[str, int, bool]] = []
    rest: list[tuple[str, int, bool]] = []
    for shard in sorted(shards, key=lambda s: (-sum(s.tokens), s.name)):
        named = _named(shard.entries)
        free = [i for i in by_writing(shard.entries) if i not in kept[shard.name]]
        if last_used is not None:
            uses = [last_used.get((shard.name, entry.id), "") for entry in shard.entries]
            free.sort(key=uses.__getitem__)
        for index in free:
            superseded = shard.entries[index].id in named
            (first if superseded else rest).append((shard.name, index, superseded))
    return first + rest


def _holders(
    shards: Sequence[ShardInput], kept: dict[str, set[int]], whole: set[tuple[str, int]], chosen: Sequence[Digest]
) -> tuple[Holder, ...]:
    merged = {(d.shard, e.id) for d in chosen for e in d.sources}
    found: list[Holder] = [Holder(d.shard, d.entry.id, d.tokens, "digest") for d in chosen]
    for shard in shards:
        for index, entry in enumerate(shard.entries):
            if (shard.name, entry.id) in merged:
                continue
            if PIN_TAG in entry.tags:
                why = "pinned"
            elif index in kept[shard.name]:
                why = "newest"
            elif (shard.name, index) in whole:
                why = "one line"
            else:
                why = "digest" if is_digest(entry) else "left"
            found.append(Holder(shard.name, entry.id, shard.tokens[index], why))
    found.sort(key=lambda h: -h.tokens)
    return tuple(found[:HOLDERS])


def digest_line(text: str) -> str:
    """A note's line in a digest: its whole first line without articles and fillers outside code spans."""
    whole = first_line(text)
    words = []
    code = False
    for word in whole.split():
        inside = code or word.startswith("`")
        if word.count("`") % 2:
            code = not code
        if not inside and word.casefold() in FILLERS:
            continue
        words.append(word)
    return " ".join(words) or whole  # a line of fillers only ("The") stays as it is


def lines_of(entry: Entry) -> list[str]:
    """The lines an entry contributes to a digest: its shortened first line, or a digest's own lines."""
    if DIGEST_TAG in entry.tags and (entry.attr("sources") is not None or _INTRO_RE.match(entry.text)):
        return [line.removeprefix("- ") for line in entry.text.split("\n")[1:] if line.strip()]
    line = digest_line(entry.text)
    return [line] if line else []


def same_key(line: str) -> str:
    """Lines with the same key are true duplicates: the same words and numbers in the same order."""
    words = _WORD_RE.findall(line.casefold())
    return " ".join(words) if words else line


def carried(text: str) -> str:
    """A digest's text as another project receives it: it says what it is, and offers no expand."""
    first, newline, rest = text.partition("\n")
    match = _INTRO_RE.match(first)
    if match is None or "lh memory expand" not in first:
        return text
    count, start, end, left_out = match.groups()
    intro = (
        f"Digest of {count} entries from {start} to {end}, the first line of each{left_out or ''}; imported:"
        " the entries themselves stayed in the project that compacted them."
    )
    return intro + newline + rest


class _Group:
    """A shard's group as it grows: its sources, their tokens and the estimated digest size."""

    def __init__(self, shard: ShardInput, counts: Counts) -> None:
        self.shard = shard
        self.counts = counts
        self.indexes: list[int] = []
        self.sources = 0
        self.lines = 0
        self.keys: set[str] = set()
        intro = _intro(2, "2026-01-01T00:00:00Z", "2026-12-31T00:00:00Z", "0123456789ab", 0)
        # As get prints a digest (adr/0020): its id, day and tags, then the text.
        sample = Entry("0123456789ab", "2026-12-31T00:00:00Z", intro, (DIGEST_TAG,), (("sources", ""),))
        self.intro = view.costs([view.entry_block(sample)], counts)[0] + 1

    def add(self, index: int, *, force: bool) -> bool:
        """Take the entry at `index` when merging it saves tokens (or `force`); whether it was taken."""
        new: dict[str, str] = {}  # the lines no source taken holds, each once
        for line in lines_of(self.shard.entries[index]):
            if (key := same_key(line)) not in self.keys:
                new.setdefault(key, f"- {line}\n")
        cost = sum(self.counts(list(new.values()))) if new else 0
        if cost > self.shard.tokens[index] * LINE_SHARE and not force:
            return False
        self.indexes.append(index)
        self.keys.update(new)
        self.sources += self.shard.tokens[index]
        self.lines += cost
        return True

    def saving(self) -> int:
        return max(0, self.sources - self.intro - self.lines) if len(self.indexes) >= 2 else 0


def _intro(entries: int, first: str, last: str, key: str, dropped: int) -> str:
    left_out = f" ({dropped} repeated {'line' if dropped == 1 else 'lines'} left out)" if dropped else ""
    return (
        f"Digest of {entries} entries from {first[:10]} to {last[:10]}, the first line of each{left_out};"
        f" `lh memory expand {key} --print` shows them whole."
    )


def _digest(
    shard: ShardInput, indexes: Sequence[int], counts: Counts, taken: Callable[[str], set[str]] | None
) -> Digest:
    """The digest of the entries at `indexes`, in the order they were written."""
    order = {index: rank for rank, index in enumerate(by_writing(shard.entries))}
    ranked = sorted(indexes, key=order.__getitem__)
    sources = [shard.entries[i] for i in ranked]
    before = sum(shard.tokens[i] for i in indexes)
    every = [line for entry in sources for line in lines_of(entry)]
    firsts: dict[str, str] = {}
    for line in every:
        firsts.setdefault(same_key(line), line)  # true duplicates once, the first kept
    lines, dropped = list(firsts.values()), len(every) - len(firsts)
    first = min(time_attr(e, "from") or e.created for e in sources)
    last = max(written(e) for e in sources)
    ids = [e.id for e in sources]
    used = {e.id for e in shard.entries} | (taken(shard.name) if taken else set())
    key = derive_id(shard.name, "\n".join([DIGEST_TAG, *ids]), used)
    count = sum(_stands_for(e) for e in sources)
    text = "\n".join([_intro(count, first, last, key, dropped), *(f"- {line}" for line in lines)])
    tags = sorted({DIGEST_TAG, *(t for e in sources for t in e.tags)})
    extra = [
        ("from", first),
        ("to", last),
        ("entries", str(count)),
        ("sources", " ".join(ids)),
        ("archive", archive_path(shard.name)),
    ]
    for allow in ("allow-secret", "allow-directive"):
        if rules := sorted({r for e in sources for r in rule_list(e.attr(allow))}):
            extra.append((allow, ",".join(rules)))
    # A digest cites what its sources cited, so it is stale when one of them would be (adr/0017).
    extra += _gathered(sources, set(ids))
    entry = Entry(key, last, text, tuple(tags), tuple(extra))
    printed = view.costs([view.entry_block(entry)], counts)[0]  # what get prints for it (adr/0020)
    return Digest(shard.name, entry, tuple(sources), before, printed, dropped)


def _stands_for(entry: Entry) -> int:
    """How many original entries `entry` stands for: a digest's `entries` (if a count, else its sources), else one."""
    if not is_digest(entry):
        return 1
    value = entry.attr("entries")
    if value and value.isascii() and value.isdigit() and int(value) > 0:
        return int(value)
    return max(1, len((entry.attr("sources") or "").split()))


def _gathered(sources: Sequence[Entry], inside: set[str]) -> list[tuple[str, str]]:
    """The sources' other attributes (evidence references, what they supersede), values united."""
    values: dict[str, set[str]] = {}
    for entry in sources:
        for name, value in entry.extra:
            if name not in _OWN:
                # refs are space-separated (a path may hold a comma); other lists may use commas
                parts = value.split() if name == "refs" else value.replace(",", " ").split()
                values.setdefault(name, set()).update(parts)
    values.get("supersedes", set()).difference_update(inside)
    return [(name, " ".join(sorted(found))) for name, found in sorted(values.items()) if found]
