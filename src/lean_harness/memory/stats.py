"""What of the memory reaches the agent: each entry's uses from the usage record (usage.py), by shard.

An entry is used when its text was handed over (`lh memory get`, a query, a hook's note); a
title listed at session start counts apart, as `listed`. Tokens are what `get` prints for the
entry now. Entries the record names that the memory no longer holds are left out.
"""

from __future__ import annotations

from dataclasses import dataclass

from lean_harness import usage
from lean_harness.memory import view
from lean_harness.memory.handle import Memory
from lean_harness.memory.shard import parse


@dataclass(frozen=True, slots=True)
class EntryUse:
    shard: str
    id: str
    tokens: int
    uses: int
    listed: int
    last_used: str | None  # None when never used


@dataclass(frozen=True, slots=True)
class Stats:
    entries: tuple[EntryUse, ...]  # in the config's shard order, then file order
    sessions: int
    recorded: bool  # whether a record was read
    problem: str = ""  # why the record could not be read


def stats(memory: Memory) -> Stats:
    """Every entry with its uses; a record that cannot be read counts as none, with the reason."""
    memory.check_dir()
    problem = ""
    try:
        used, sessions = usage.read(memory.root)
    except (OSError, ValueError) as error:
        used, sessions, problem = {}, 0, f"{usage.PATH} cannot be read ({error}); uses are not counted"
    rows: list[EntryUse] = []
    with memory.reading():
        for name in memory.config.shard_names:
            entries = parse(memory.read_shard(name)[0], memory.shown(memory.shard_path(name))).entries
            costs = view.costs([view.entry_block(e) for e in entries], memory.counter.counts)
            for entry, tokens in zip(entries, costs, strict=True):
                uses, listed, last = used.get((name, entry.id), (0, 0, ""))
                rows.append(EntryUse(name, entry.id, tokens, uses, listed, last or None))
    recorded = bool(used or sessions) or (memory.root / usage.PATH).exists()
    return Stats(tuple(rows), sessions, recorded and not problem, problem)


def last_used(memory: Memory) -> dict[tuple[str, str], str] | None:
    """(shard, id) -> last use of each entry ever used, for compaction; None without a readable record."""
    try:
        used, sessions = usage.read(memory.root)
    except (OSError, ValueError):
        return None
    if not used and not sessions:
        return None
    return {key: last for key, (uses, _, last) in used.items() if uses}
