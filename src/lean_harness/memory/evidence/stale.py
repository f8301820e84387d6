"""Stale entries: which notes cite project lines that changed, checked with a cache keyed by file stat.

An entry is stale when one of its references is changed or missing (memory/evidence/evidence.py); an
entry without references is never stale. The references come from the shard summaries, so no
shard is parsed. The outcome is kept in `<cacheDir>/lh/evidence`, plain lines (read here alone:
the session-start hook asks `since_check`):

    lh-evidence 1 CHECKED_NS STALE_ENTRIES
    f SIZE MTIME_NS INODE PATH       a cited file as it was checked (PATH as stored in refs)
    a STATUS ANCHOR [NOW]            one anchor in the file above, and where a moved one is now
    m PATH                           a cited file that was missing

A file whose stat still matches, and that had not changed for two seconds when it was
checked, is not read again (adr/0017-evidence-anchors.md). A stat is only that hint: a copied
checkout changes every stat and no line, so what counts as changed is decided by the lines' hash.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from lean_harness.errors import LhError
from lean_harness.files import write_atomic
from lean_harness.hookstate import Stat, stat_of
from lean_harness.memory.evidence import checked, evidence
from lean_harness.memory.evidence.checked import Record
from lean_harness.memory.evidence.evidence import Anchor, Finding
from lean_harness.scanning.masking import leaking

TYPE_CHECKING = False  # the session-start hook imports this module: no handle, no config
if TYPE_CHECKING:
    from lean_harness.memory.handle import Memory

CACHE_NAME = "evidence"

SETTLE_NS = 2_000_000_000


@dataclass(frozen=True)
class Cited:
    """The state of one entry that cites files: each reference and what checking it found."""

    shard: str
    id: str
    findings: tuple[Finding, ...]
    problem: str = ""  # why its refs attribute could not be read (a hand edit); such an entry is stale

    @property
    def stale(self) -> bool:
        return bool(self.problem) or any(f.stale for f in self.findings)


@dataclass(frozen=True)
class Report:
    """Every entry that cites files, in shard then file order."""

    entries: tuple[Cited, ...]

    @property
    def stale(self) -> tuple[Cited, ...]:
        return tuple(e for e in self.entries if e.stale)


Refs = tuple[str, str, tuple[Anchor, ...], str]  # shard, id, anchors, why the refs could not be read


def references(memory: Memory, shards: Iterable[str] | None = None) -> list[Refs]:
    """(shard, id, anchors, problem) of every entry that cites files, from the shard summaries."""
    found = []
    for name in memory.config.shard_names if shards is None else shards:
        firsts: dict[str, str] = {}
        for key, value in memory.summary(name).refs:
            firsts.setdefault(key, value)  # an id stored twice (a merge) is checked once, as first written
        found += [_decoded(memory, name, key, value) for key, value in firsts.items()]
    return found


def _decoded(memory: Memory, name: str, key: str, value: str) -> Refs:
    where = f"{memory.shown(memory.shard_path(name))}: entry {key}"
    try:
        return name, key, evidence.decode(value, where), ""
    except LhError as error:
        return name, key, (), error.message


def report(memory: Memory, shards: Iterable[str] | None = None) -> Report:
    """Check the references of every entry (or the given shards') now; a check of all is cached for the hook."""
    cited = references(memory, shards)
    findings, stats = _findings(memory, [a for _, _, anchors, _ in cited for a in anchors])
    result = Report(tuple(Cited(n, k, tuple(findings[a] for a in anchors), why) for n, k, anchors, why in cited))
    if shards is None:
        _save(memory.config.cache_dir / "lh" / CACHE_NAME, findings, stats, len(result.stale))
    return result


def of_entries(memory: Memory, entries: Iterable[tuple[str, str, str]]) -> dict[tuple[str, str], Cited]:
    """The state of each given (shard, id, refs value) that cites files; only their files are read."""
    cited = [_decoded(memory, name, key, value) for name, key, value in entries if value]
    if not cited:
        return {}
    findings, _ = _findings(memory, [a for _, _, anchors, _ in cited for a in anchors])
    return {(n, k): Cited(n, k, tuple(findings[a] for a in anchors), why) for n, k, anchors, why in cited}


def _findings(memory: Memory, anchors: list[Anchor]) -> tuple[dict[Anchor, Finding], dict[str, Stat | None]]:
    """Findings for the anchors, from the cache for files unchanged since it was written, and the stats."""
    root = memory.root
    known = _load(memory.config.cache_dir / "lh" / CACHE_NAME)
    stats = {p: stat_of(root / p, follow_symlinks=True) for p in {a.path for a in anchors}}
    findings: dict[Anchor, Finding] = {}
    unknown: list[Anchor] = []
    for item in set(anchors):
        cached = known.get(item.stored())
        if cached is not None and cached[0] == stats[item.path]:
            status, now = cached[1], cached[2]
            findings[item] = Finding(item, status, evidence.decode(now, "cache")[0] if now else None)
        else:
            unknown.append(item)
    if unknown:
        findings.update(evidence.check(root, unknown))
    return findings, stats


def _records(path: Path) -> tuple[int, int, list[Record]] | None:
    """The record of the last check (checked.py), with every place a moved anchor now stands decodable."""
    found = checked.records(path)
    try:
        for _, _, anchors in found[2] if found else []:
            for _, _, now in anchors:
                if now:
                    evidence.decode(now, "cache")  # a damaged line drops the whole cache
    except LhError:
        return None
    return found


def _load(path: Path) -> dict[str, tuple[Stat, str, str]]:
    """Stored anchor -> (its file's stat, status, where a moved one is now) for settled files."""
    found = _records(path)
    if found is None:
        return {}
    checked, _, records = found
    # A file changed within the clock's resolution of the check may have changed again unseen
    # (as git treats its index): only older files are trusted by stat.
    return {
        item: (stat, status, now)
        for _, stat, anchors in records
        if stat is not None and stat[1] < checked - SETTLE_NS
        for status, item, now in anchors
    }


@dataclass(frozen=True)
class Since:
    """What the last full check found, and how many of its cited files say otherwise now."""

    stale: int
    changed: int


def since_check(root: Path, cache_dir: Path) -> Since | None:
    """The last check's stale count and the cited files whose lines now check otherwise; None before any check."""
    found = _records(cache_dir / "lh" / CACHE_NAME)
    if found is None:
        return None
    _, stale, records = found
    changed = 0
    try:
        for cited, stat, anchors in records:
            path = root / evidence.decode(f"{cited}@{'0' * evidence.DIGEST_CHARS}", "cache")[0].path
            if stat is None:
                changed += path.exists()
            elif stat_of(path, follow_symlinks=True) != stat:
                decoded = {evidence.decode(item, "cache")[0]: status for status, item, _ in anchors}
                now = evidence.check(root, decoded)
                changed += any(now[a].status != status for a, status in decoded.items())
    except LhError:
        return None  # a damaged cache: as if no check had run
    return Since(stale, changed)


def _save(path: Path, findings: dict[Anchor, Finding], stats: dict[str, Stat | None], stale: int) -> None:
    if not findings:  # no note cites a file: no cache, so the session-start hook loads nothing of this
        with suppress(OSError):
            path.unlink()
        return
    by_path: dict[str, list[Finding]] = {}
    for finding in findings.values():
        by_path.setdefault(finding.anchor.path, []).append(finding)
    lines = [f"lh-evidence 1 {time.time_ns()} {stale}"]
    for (cited, items), leaked in zip(sorted(by_path.items()), leaking([(p,) for p in sorted(by_path)]), strict=True):
        if leaked:  # a path that holds a credential is not recorded; the next check reads it again
            continue
        stat = stats.get(cited)
        quoted = Anchor(cited, 0, 0, "0" * evidence.DIGEST_CHARS).stored().partition("@")[0]
        if stat is None or any(f.renamed_to or f.status == "missing" for f in items):
            lines.append(f"m {quoted}")
            continue
        lines.append(f"f {stat[0]} {stat[1]} {stat[2]} {quoted}")
        for f in sorted(items, key=lambda f: f.anchor):
            now = f" {f.now.stored()}" if f.now is not None else ""
            lines.append(f"a {f.status} {f.anchor.stored()}{now}")
    if _same(path, lines, stale):
        return  # a reading command that found what the last check found writes nothing
    with suppress(OSError):  # an unwritable cache costs the next check a re-read, nothing more
        write_atomic(path, ("\n".join(lines) + "\n").encode("utf-8"))


def _same(path: Path, lines: list[str], stale: int) -> bool:
    """Whether the cache holds these lines already, with every file settled when it was written."""
    try:
        old = path.read_text("utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return False
    head = old[0].split() if old else []
    if len(head) != 4 or head[3] != str(stale) or old[1:] != lines[1:] or not head[2].isdigit():
        return False
    checked = int(head[2])
    return all(int(line.split(" ", 3)[2]) < checked - SETTLE_NS for line in old[1:] if line.startswith("f "))


@dataclass(frozen=True)
class Fixed:
    """What `verify --fix` found before re-anchoring, and the references it re-anchored."""

    before: Report
    moved: tuple[tuple[str, str, Finding], ...]  # (shard, id, finding) re-anchored


def fix(memory: Memory, write_index: Callable[[Memory], object]) -> Fixed:
    """Re-anchor every moved reference at its new lines in one journalled write, then `write_index`."""
    from lean_harness.memory import journal
    from lean_harness.memory.handle import locate
    from lean_harness.memory.shard import Entry, render_entry

    with memory.writing():
        before = report(memory)
        moved = [(e, f) for e in before.entries for f in e.findings if f.status == "moved" and f.now is not None]
        changes: dict[Path, bytes | None] = {}
        for name in sorted({e.shard for e, _ in moved}):
            path = memory.shard_path(name)
            shown = memory.shown(path)
            text, _ = memory.read_shard(name)
            for key in sorted({e.id for e, _ in moved if e.shard == name}):
                found = locate(text, key, shown)
                if found is None:
                    continue
                start, end, old = found
                now = {f.anchor: f.now for e, f in moved if e.shard == name and e.id == key}
                anchors = evidence.decode(old.attr(evidence.ATTR) or "", f"{shown}: entry {key}")
                value = evidence.encode(now.get(a) or a for a in anchors)
                extra = tuple((k, value if k == evidence.ATTR else v) for k, v in old.extra)
                newline = "\r\n" if "\r\n" in (old.raw or "") else "\n"
                entry = Entry(old.id, old.created, old.text, old.tags, extra)
                text = text[:start] + render_entry(entry, newline) + text[end:]
            changes[path] = text.encode("utf-8")
        if changes:
            journal.commit(memory.config.memory_dir, changes, memory.journal_path, root=memory.root)
            memory.forget_summaries()
            write_index(memory)
    return Fixed(before, tuple((e.shard, e.id, f) for e, f in moved))
