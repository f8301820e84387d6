"""`lh memory adopt`: turn each block of loose prose (memory/prose.py) into an entry, in place.

Each block becomes an entry where it stands, text kept (in canonical form), with a derived id, no
tags and the one time of the run; a block that breaks an entry rule stays prose and is named.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from lean_harness.environment import now_utc
from lean_harness.memory import prose, rules
from lean_harness.memory.handle import Memory
from lean_harness.memory.shard import Entry, Shard, derive_id, parse, render_entry, split_lines
from lean_harness.memory.writes import replace_shards


@dataclass(frozen=True)
class Adopted:
    """One block made an entry."""

    shard: str
    line: int
    id: str
    title: str


@dataclass(frozen=True)
class AdoptResult:
    """What adoption did: the new entries, the blocks it refused (with why), the shards written."""

    adopted: tuple[Adopted, ...]
    refused: tuple[str, ...]
    written: tuple[str, ...]


def adopt(memory: Memory, shards: Sequence[str] = ()) -> AdoptResult:
    """Make every block of loose prose in `shards` (default: all) an entry, in one write."""
    memory.check_dir()
    names = [memory.check_shard(name) for name in shards] or list(memory.config.shard_names)
    adopted: list[Adopted] = []
    refused: list[str] = []
    texts: dict[str, str] = {}
    with memory.writing():
        memory.check_shards()
        created = now_utc()
        for name in dict.fromkeys(names):
            if not memory.summary(name).prose_lines:
                continue
            shown = memory.shown(memory.shard_path(name))
            text, _ = memory.read_shard(name)
            new_text, done, problems = _adopt_shard(name, parse(text, shown), text, created, shown)
            adopted += done
            refused += problems
            if done:
                texts[name] = new_text
        written = replace_shards(memory, texts)
    return AdoptResult(tuple(adopted), tuple(refused), written)


def _adopt_shard(name: str, shard: Shard, text: str, created: str, shown: str) -> tuple[str, list[Adopted], list[str]]:
    lines = split_lines(text)
    taken = {e.id for e in shard.entries}
    spans: list[tuple[int, int, Entry]] = []
    done: list[Adopted] = []
    problems: list[str] = []
    for block in prose.blocks(shard):
        checked = rules.check(block.text)
        if checked.problems:
            problems.append(f"{shown}:{block.line}: {checked.problems[0]}; left as prose")
            continue
        found = rules.screened([checked])[0]
        if found is not None:
            _, finding, directive = found
            line = block.line + finding.line - 1
            why = rules.why_refused("the text", finding, directive)
            problems.append(f'{shown}:{line}: {why}; left as prose: remove it, then run "lh memory adopt" again')
            continue
        key = derive_id(name, checked.text, taken)
        taken.add(key)
        entry = Entry(key, created, checked.text)
        spans.append((block.line - 1, block.end, entry))
        done.append(Adopted(name, block.line, key, entry.title))
    if not spans:
        return text, [], problems
    newline = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    out: list[str] = []
    at = 0
    for start, end, entry in spans:
        out += lines[at:start]
        out.append(render_entry(entry, newline))
        if not lines[end - 1].endswith("\n"):
            out[-1] = out[-1][: -len(newline)]  # the file ended without a line break; keep it so
        at = end
    out += lines[at:]
    return "".join(out), done, problems
