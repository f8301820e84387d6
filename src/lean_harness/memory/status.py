"""Where the memory stands: status, INDEX.md regeneration and its freshness, merge clean-up."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from lean_harness import hookstate
from lean_harness.config import Config
from lean_harness.errors import LhError
from lean_harness.files import read_text, refuse_symlink, write_text
from lean_harness.locations import CONFIG_PATH
from lean_harness.memory import index as index_md
from lean_harness.memory.handle import INDEX_NAME, Memory, header_re
from lean_harness.memory.shard import line_count, parse, render, without_duplicates

TYPE_CHECKING = False
if TYPE_CHECKING:
    from lean_harness.memory.evidence.stale import Cited
    from lean_harness.memory.recall_map import Wrote


@dataclass(frozen=True, slots=True)
class ShardStatus:
    """One shard's line in status."""

    name: str
    description: str
    path: str
    entries: int
    tokens: int
    exists: bool
    prose_tokens: int = 0  # of `tokens`, those of loose prose (memory/prose.py)
    prose_lines: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True, slots=True)
class Status:
    """The memory's size against its budgets."""

    shards: tuple[ShardStatus, ...]
    totals: index_md.Totals
    label: str
    exact: bool
    index_path: str
    index_tokens: int
    index_budget: int
    index_fresh: bool


@dataclass(frozen=True, slots=True)
class IndexResult:
    """The outcome of regenerating (or checking) INDEX.md."""

    path: str
    fresh_before: bool
    written: bool
    tokens: int
    budget: int
    titles: int
    duplicates: tuple[str, ...] = ()  # "path: line N: entry X again ...", found by --check or removed
    clashes: tuple[str, ...] = ()  # "path:line: entry X is also in path:line ...": one id in two shards


def _remove_duplicates(memory: Memory) -> tuple[str, ...]:
    """Write every shard that holds exact copies of entries with each entry once; what was dropped."""
    notes: list[str] = []
    for name in memory.config.shard_names:
        if memory.summary(name).repeated:
            path = memory.shard_path(name)
            text, _ = memory.read_shard(name)
            shard, dropped = without_duplicates(parse(text, memory.shown(path)))
            write_text(path, render(shard))
            memory.forget_summary(name)
            notes += [f"{memory.shown(path)}: {note}" for note in dropped]
    return tuple(notes)


def _found_duplicates(memory: Memory) -> tuple[str, ...]:
    return tuple(
        f"{memory.shown(memory.shard_path(name))}: entry {key} is stored more than once"
        for name in memory.config.shard_names
        for key in memory.summary(name).repeated
    )


def totals(memory: Memory, names: Sequence[str] | None = None) -> index_md.Totals:
    """The memory's tokens (of the shards `names`, else of all) against its budget."""
    tokens = sum(memory.summary(name).tokens for name in names or memory.config.shard_names)
    return index_md.Totals(tokens, memory.config.token_budget, memory.config.compact_at_percent)


def render_index(memory: Memory, checked: Sequence[Cited] | None = None) -> index_md.IndexText:
    """INDEX.md as it should be now: the committed shards only, never the personal scope's; `checked`:
    `cited(memory)`, when the caller has it."""
    described = dict(memory.config.shards)
    shards = [(name, described[name]) for name in memory.config.shared_names]
    summaries = {name: memory.summary(name) for name, _ in shards}
    checked = cited(memory) if checked is None else checked
    return index_md.render(
        shards,
        summaries,
        totals(memory, list(summaries)),
        memory.counter.label,
        memory.config.index_token_budget,
        memory.counter.count,
        pending=len(hookstate.pending_notes(str(memory.config.memory_dir))),
        stale=sum(entry.stale and entry.shard in summaries for entry in checked),
    )


def cited(memory: Memory) -> tuple[Cited, ...]:
    """Every entry that cites files, checked now (memory/evidence/stale.py); nothing is loaded when none does."""
    if not any(memory.summary(name).refs for name in memory.config.shard_names):
        return ()
    from lean_harness.memory.evidence import stale

    return stale.report(memory).entries


def write_index(
    memory: Memory, wrote: Wrote | None = None, checked: Sequence[Cited] | None = None
) -> tuple[index_md.IndexText, bool]:
    """Regenerate INDEX.md, written only when it changed, and whether it did; `wrote`: the entries a write
    just made (recall_map.py); `checked`: `cited(memory)`, when the caller has it."""
    checked = cited(memory) if checked is None else checked  # once, for INDEX.md and the hooks' map
    rendered = render_index(memory, checked)
    refuse_symlink(memory.index_path, memory.root)
    changed = write_text(memory.index_path, rendered.text)
    recorded(memory, rendered.listed, checked, wrote)
    return rendered, changed


def recorded(
    memory: Memory, listed: Sequence[tuple[str, str]] | None, checked: Sequence[Cited], wrote: Wrote | None = None
) -> None:
    """After INDEX.md was rendered: what the hooks keep (hookstate.py, recall.py), the map first (the `index`
    record keeps the stat of the evidence check, which must not change after it), then, unless `listed` is
    None (INDEX.md is not as lh makes it), the `index` record."""
    from lean_harness.memory import recall_map

    recall_map.write(memory, totals(memory).tokens, checked, wrote)
    if listed is not None:  # an id whose names hold a credential is not recorded (summary.leaked)
        listed = [(shard, key) for shard, key in listed if key not in memory.summary(shard).leaked]
        hookstate.record_index(memory.config.memory_dir, memory.config.cache_dir, memory.root / CONFIG_PATH, listed)


Settle = Callable[..., tuple[str, ...]]  # archive.settle(memory, *, fix): live entries a digest already holds


def reindex(memory: Memory, check: bool = False, *, settle: Settle) -> IndexResult:
    """Regenerate INDEX.md, or with `check` only compare it with what it should be.

    `settle` is the archive's rule for entries both live and in a digest, as a merge with a compaction
    leaves them (memory/compaction/archive.py).
    """
    memory.check_dir()
    if check:
        with memory.reading():
            rendered = render_index(memory)
            duplicates = _found_duplicates(memory) + settle(memory, fix=False)
            clashes = id_clashes(memory)
            fresh, written = _index_matches(memory, rendered.text) and not duplicates and not clashes, False
    else:
        with memory.writing():
            memory.check_shards()
            settle(memory, fix=False)  # as does a conflict
            duplicates = _remove_duplicates(memory) + settle(memory, fix=True)
            rendered, changed = write_index(memory)
            written = changed or bool(duplicates)
            fresh = not written
            clashes = id_clashes(memory)
    budget = memory.config.index_token_budget
    path = memory.shown(memory.index_path)
    return IndexResult(path, fresh, written, rendered.tokens, budget, rendered.titles, duplicates, clashes)


def id_clashes(memory: Memory) -> tuple[str, ...]:
    """Ids that name entries in two shards, each with both places ("file:line"); an id names one entry."""
    keys: dict[str, set[str]] = {}
    for name in memory.config.shard_names:
        summary = memory.summary(name)
        if not summary.exists:
            continue
        keys[name] = {line.partition(" ")[2] for line in memory.listing(name, summary.sha256).splitlines()}
    counts = Counter(key for found_keys in keys.values() for key in found_keys)
    found = []
    for key in sorted(key for key, count in counts.items() if count > 1):
        places = [_place(memory, name, key) for name, found_keys in keys.items() if key in found_keys]
        found.append(
            f"{places[0]}: entry {key} is also in {', '.join(places[1:])}; an id names one entry:"
            " delete one copy, or give it another id (lh memory put SHARD TEXT --id NEW)"
        )
    return tuple(found)


def _place(memory: Memory, name: str, key: str) -> str:
    text, _ = memory.read_shard(name)
    match = header_re(key).search(text)
    line = line_count(text, match.start()) + 1 if match else 0
    return f"{memory.shown(memory.shard_path(name))}:{line}"


def _index_matches(memory: Memory, text: str) -> bool:
    refuse_symlink(memory.index_path, memory.root)
    try:
        return memory.index_path.read_bytes() == text.encode("utf-8")
    except FileNotFoundError:
        return False


def status(memory: Memory) -> Status:
    """Entries and tokens per shard, the total against the budget, and the index's state; what the hooks
    read is recorded as of this reading (a session start has it done when the memory changed outside lh)."""
    memory.check_dir()
    rows = []
    with memory.reading():
        for name, about in memory.config.shards:
            s, path = memory.summary(name), memory.shown(memory.shard_path(name))
            rows.append(ShardStatus(name, about, path, s.count, s.tokens, s.exists, s.prose_tokens, s.prose_lines))
        checked = cited(memory)
        rendered = render_index(memory, checked)
        fresh = _index_matches(memory, rendered.text)
        recorded(memory, rendered.listed if fresh else None, checked)
    return Status(
        tuple(rows),
        totals(memory),
        memory.counter.label,
        memory.counter.exact,
        memory.shown(memory.index_path),
        rendered.tokens,
        memory.config.index_token_budget,
        fresh,
    )


def unlisted_shards(config: Config) -> list[tuple[Path, str]]:
    """Shard files in the memory folder that the config does not name, each with the command that adds it."""
    from lean_harness.memory.prose import description
    from lean_harness.memory.rules import SHARD_RE

    folder = config.memory_dir
    try:
        paths = sorted(p for p in folder.iterdir() if p.suffix == ".md" and p.is_file())
    except OSError:
        return []
    found: list[tuple[Path, str]] = []
    for path in paths:
        name = path.stem
        if path.name == INDEX_NAME or name in config.shard_names:
            continue
        if not SHARD_RE.fullmatch(name):
            found.append((path, "rename it to a shard name (lowercase letters, digits, '-') and add it to the config"))
            continue
        try:
            said = description(read_text(path, config.root))
        except (LhError, OSError):  # an unreadable file still needs naming; its description is optional
            said = None
        plain = said and len(said) <= 200 and not any(c in said for c in '"$`\\!')  # safe inside the quotes
        shown = said if plain else "DESCRIPTION"
        found.append((path, f'lh config set memory.shards.{name} "{shown}"'))
    return found
