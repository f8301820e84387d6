"""Import memory from other formats: read, validate every record, plan against the memory, write.

Each import of a source updates its committed marker, `<memory dir>/.imports/<format>-<hash>.json`:
the source, the digest of what was read and a digest per imported record, so a record imported
before is skipped even if its entry was since changed (adr/0014-import-and-inbox.md).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from lean_harness.environment import now_utc
from lean_harness.errors import LhError
from lean_harness.files import refuse_symlink
from lean_harness.memory import rules
from lean_harness.memory.compaction.compact import DIGEST_TAG, carried
from lean_harness.memory.evidence import evidence
from lean_harness.memory.handle import Memory
from lean_harness.memory.intake.formats import jsonl, layered_jsonl, memory_md, notes_tree
from lean_harness.memory.intake.formats.records import Reading, Record, read_source_text
from lean_harness.memory.intake.inbox import default_shard
from lean_harness.memory.scans import rule_list
from lean_harness.memory.shard import Entry, derive_id, normalize_text
from lean_harness.memory.summary import text_key
from lean_harness.memory.writes import add_entries

FORMATS = ("jsonl", "memory-md", "notes-tree", "layered-jsonl")
TABLES: dict[str, dict[str, str]] = {"memory-md": memory_md.TYPES, "layered-jsonl": layered_jsonl.CATEGORIES}
MARKERS = ".imports"


@dataclass(frozen=True)
class Outcome:
    """What happened to one record: added, unchanged, imported before, or conflict (with why)."""

    where: str
    shard: str
    id: str
    action: str
    detail: str = ""


@dataclass(frozen=True)
class Refusal:
    """A record refused for a credential or a directive; only the rule and a safe preview are kept."""

    where: str
    what: str  # "line N", "the id" or "a tag"
    rule: str
    description: str
    preview: str
    directive: bool = False

    @property
    def line(self) -> int:
        """The line of the text the finding is on; 0 when it is in the id or a tag."""
        return int(self.what.split()[1]) if self.what.startswith("line ") else 0

    def __str__(self) -> str:
        return f"refused: {rules.why_refused(f'{self.where}: {self.what}', self, self.directive)}; not imported"


@dataclass(frozen=True)
class ImportResult:
    """The outcome of an import (or of a dry run)."""

    format: str
    source: str
    records: int
    outcomes: tuple[Outcome, ...]
    refused: tuple[Refusal, ...]
    warnings: tuple[str, ...]
    marker: str
    dry_run: bool
    problems: tuple[str, ...] = ()

    def count(self, action: str) -> int:
        return sum(1 for o in self.outcomes if o.action == action)


@dataclass(frozen=True)
class _Candidate:
    record: Record
    shard: str
    text: str
    tags: tuple[str, ...]
    checked: rules.Checked

    @property
    def digest(self) -> str:
        return hashlib.sha256(f"{self.shard}\n{' '.join(self.tags)}\n{self.text}".encode()).hexdigest()[:20]


def detect(source: Path, shown: str) -> str:
    """The format of `source`, or an error naming what was found.

    A folder of layered-jsonl categories or a notes tree (`.agents/notes`, `.pending`, topic
    folders with an index.md) is read as such; any other folder with Markdown in it, at any
    depth, is read by the memory-md reader, which takes each file as what it holds."""
    if source.is_file():
        if source.suffix in (".jsonl", ".ndjson", ".json"):
            return "jsonl"
        raise LhError(f"{shown}: a file that is not .jsonl; pass --format jsonl if it holds one entry per line")
    if not source.is_dir():
        raise LhError(f"{shown}: no such file or folder")
    if any((layered_jsonl.folder_of(source) / f"{c}.jsonl").is_file() for c in layered_jsonl.CATEGORIES):
        return "layered-jsonl"
    notes = notes_tree.folder_of(source)
    if notes != source or (notes / notes_tree.PENDING).is_dir() or any(notes.glob("*/index.md")):
        return "notes-tree"
    if next(source.rglob("*.md"), None) is None:
        raise LhError(
            f"{shown}: cannot tell the format (no Markdown or jsonl in it); pass --format {'|'.join(FORMATS)}"
        )
    return "memory-md"


def read(source: Path, shown: str, fmt: str, stdin: bytes | None = None) -> Reading:
    """Read a source in a known format; `stdin` holds the bytes when SOURCE is '-'."""
    reading = Reading()
    if stdin is not None:
        try:
            text = stdin.decode("utf-8").removeprefix("\ufeff").replace("\r\n", "\n")
        except UnicodeDecodeError:
            raise LhError("standard input is not valid UTF-8; nothing was imported") from None
        reading.files.append(("-", stdin))
        jsonl.read(text, shown, reading)
        return reading
    if fmt == "jsonl":
        if not source.is_file():
            raise LhError(f"{shown}: not a file; the jsonl format is one file with one entry per line")
        content = read_source_text(source, shown, reading, source.name)
        if content is not None:
            jsonl.read(content, shown, reading)
        return reading
    if not source.is_dir():
        raise LhError(f"{shown}: not a folder; the {fmt} format is a folder")
    if fmt == "memory-md":
        memory_md.read(source, shown, reading)
    elif fmt == "layered-jsonl":
        folder = layered_jsonl.folder_of(source)
        layered_jsonl.read(folder, shown if folder == source else f"{shown}/memory", reading)
    else:
        folder = notes_tree.folder_of(source)
        notes_tree.read(folder, shown if folder == source else f"{shown}/.agents/notes", reading)
    return reading


def parse_maps(fmt: str, values: Sequence[str], memory: Memory) -> dict[str, str]:
    """The shard table for `fmt`: its defaults overridden by `--map KIND=SHARD` values."""
    table = dict(TABLES.get(fmt, {}))
    for value in values:
        kind, sep, shard = value.partition("=")
        if not sep or not kind or not shard:
            raise LhError(f"--map {value!r}: expected KIND=SHARD, for instance feedback=corrections")
        if fmt == "jsonl":
            raise LhError("--map does not apply to jsonl: each record names its shard")
        if fmt in TABLES and kind not in TABLES[fmt]:
            raise LhError(f"--map {value!r}: {fmt} has no {kind!r}; it has {', '.join(TABLES[fmt])}")
        table[kind] = memory.check_shard(shard)
    return table


def prepare(
    memory: Memory, reading: Reading, fmt: str, table: dict[str, str]
) -> tuple[list[_Candidate], list[Refusal], list[str]]:
    """Validate every record: the candidates (one per good record, source duplicates dropped), the
    records refused for a credential, and what is wrong with each other record, sorted by place."""
    names = memory.config.shard_names
    problems = [str(p) for p in reading.problems]
    first: dict[tuple[str, str], _Candidate] = {}  # by id, else by shard and text: a record taken once
    for record in reading.records:
        candidate = _check(memory.root, record, fmt, table, names, problems)
        if candidate is None:
            continue
        key = ("id", record.id) if record.id else ("text", f"{candidate.shard}\n{candidate.text}")
        seen = first.setdefault(key, candidate)
        if record.id and seen.digest != candidate.digest:  # the digest is of its shard, tags and text
            problems.append(
                f"{record.where}: id {record.id!r} is also at {seen.record.where} with other content;"
                " an id is unique in a source"
            )
    candidates = list(first.values())
    refused: list[Refusal] = []
    kept: list[_Candidate] = []
    for candidate, found in zip(candidates, rules.screened([c.checked for c in candidates]), strict=True):
        if found is None:
            kept.append(candidate)
            continue
        what, f, directive = found
        refused.append(Refusal(candidate.record.where, what, f.rule, f.description, f.preview, directive))
    return kept, refused, sorted(problems, key=_location)


def _check(
    root: Path, record: Record, fmt: str, table: dict[str, str], names: Sequence[str], problems: list[str]
) -> _Candidate | None:
    """The record checked by the entry rules, its references anchored at the files as they are now."""
    where, extra = record.where, dict(record.extra)
    allow = rule_list(extra.get("allow-secret"))
    shard = record.shard or table.get(record.kind or "")
    if shard is None:
        topic = record.kind if fmt == "notes-tree" else None
        shard = topic if topic and topic in names else default_shard(names)
    before = len(problems)
    if shard not in names:
        how = f"--map {record.kind}=SHARD" if not record.shard and record.kind else "one of them"
        problems.append(f"{where}: shard {shard!r} is not in memory.shards ({', '.join(names)}); use {how}")
    checked = rules.check(
        record.text,
        tags=record.tags,
        key=record.id,
        allow=allow,
        directives=rule_list(extra.get("allow-directive")),
    )
    problems += [f"{where}: {problem}" for problem in checked.problems]
    if len(problems) > before:
        return None
    if extra.get("refs"):
        try:
            extra["refs"] = evidence.resolve(root, extra["refs"], where, allow)
        except LhError as error:
            problems.append(error.message)
            return None
        record = replace(record, extra=tuple(extra.items()))
    return _Candidate(record, shard, checked.text, checked.tags, checked)


def _location(problem: str) -> tuple[str, int, str]:
    if match := re.match(r"(.*?):(\d+): ", problem):
        return match.group(1), int(match.group(2)), problem
    return problem.split(": ", 1)[0], 0, problem


def import_source(
    memory: Memory,
    source: Path,
    shown: str,
    fmt: str,
    *,
    maps: Sequence[str] = (),
    dry_run: bool = False,
    stdin: bytes | None = None,
) -> ImportResult:
    """Import `source` into the memory (or with `dry_run` only say what would happen)."""
    memory.check_dir()
    if stdin is not None and fmt not in ("auto", "jsonl"):
        raise LhError(f"standard input is read as jsonl; --format {fmt} needs a folder")
    if fmt == "auto":
        fmt = "jsonl" if stdin is not None else detect(source, shown)
    table = parse_maps(fmt, maps, memory)
    reading = read(source, shown, fmt, stdin)
    candidates, refused, problems = prepare(memory, reading, fmt, table)
    label = _label(source, memory, stdin)
    digest = hashlib.sha256(f"{fmt}\n{label}".encode()).hexdigest()[:12]
    marker = memory.config.memory_dir / MARKERS / f"{fmt}-{digest}.json"
    refuse_symlink(marker, memory.root)
    with memory.reading() if dry_run else memory.writing():
        markers = imported_records(memory)
        outcomes, additions, recorded = _plan(memory, candidates, markers)
        if not dry_run and (additions or recorded):  # an import that took nothing in changes no file
            # The entries and the record of their import are one commit (memory/journal.py).
            records = {**markers.get(marker, {}), **recorded}
            add_entries(memory, additions, {marker: _marker_bytes(fmt, label, reading.digest(), records)})
    return ImportResult(
        fmt,
        shown,
        len(reading.records),
        tuple(outcomes),
        tuple(refused),
        tuple(reading.warnings),
        memory.shown(marker),
        dry_run,
        tuple(problems),
    )


def _plan(
    memory: Memory, candidates: Sequence[_Candidate], markers: dict[Path, dict[str, str]]
) -> tuple[list[Outcome], list[tuple[str, Entry]], dict[str, str]]:
    names = memory.config.shard_names
    existing: dict[str, tuple[str, Entry]] = {}
    by_text: dict[str, dict[str, str]] = {name: {} for name in names}
    memory.check_shards()
    for name in names:
        for entry in memory.entries(name):
            existing.setdefault(entry.id, (name, entry))
            by_text[name].setdefault(text_key(entry.text), entry.id)
    before = {key: digest for records in markers.values() for key, digest in records.items()}
    outcomes: list[Outcome] = []
    additions: list[tuple[str, Entry]] = []
    recorded: dict[str, str] = {}
    for candidate in candidates:
        record, shard = candidate.record, candidate.shard
        key, found, digest = record.id, text_key(candidate.text), candidate.digest
        if key is None:
            same = by_text[shard].get(found)
            if same is not None:  # the text is stored already; without an id of its own, that is this record
                outcomes.append(Outcome(record.where, shard, same, "unchanged"))
                recorded[same] = digest
                continue
            key = derive_id(shard, candidate.text, existing)
        if before.get(key) == digest:
            outcomes.append(Outcome(record.where, shard, key, "imported before"))
            continue
        if key in existing:
            name, entry = existing[key]
            detail = _difference(candidate, name, entry)
            outcomes.append(Outcome(record.where, shard, key, "conflict" if detail else "unchanged", detail))
            if not detail:
                recorded[key] = digest
            continue
        # A digest from another project keeps its lines but no longer offers an expand (adr/0012).
        text = carried(candidate.text) if DIGEST_TAG in candidate.tags else candidate.text
        entry = Entry(key, record.created or now_utc(), text, candidate.tags, record.extra)
        additions.append((shard, entry))
        existing[key] = (shard, entry)
        by_text[shard][found] = key
        recorded[key] = digest
        outcomes.append(Outcome(record.where, shard, key, "added"))
    return outcomes, additions, recorded


def _difference(candidate: _Candidate, shard: str, entry: Entry) -> str:
    if shard != candidate.shard:
        return f"the stored entry is in shard {shard}"
    if normalize_text(entry.text) != candidate.text:
        return "the stored entry has other text"
    if tuple(sorted(entry.tags)) != candidate.tags:
        return "the stored entry has other tags"
    return ""


def imported_records(memory: Memory) -> dict[Path, dict[str, str]]:
    """The record digests each import marker holds, by entry id."""
    markers: dict[Path, dict[str, str]] = {}
    folder = memory.config.memory_dir / MARKERS
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            data = json.loads(path.read_bytes())
        except (OSError, ValueError):
            raise LhError(
                f"{memory.shown(path)}: not a readable import record; restore it from git or delete it"
            ) from None
        found = data.get("records") if isinstance(data, dict) else None
        markers[path] = {str(k): str(v) for k, v in found.items()} if isinstance(found, dict) else {}
    return markers


def _label(source: Path, memory: Memory, stdin: bytes | None) -> str:
    # A committed file holds no absolute path: a source outside the project is named by its last part.
    if stdin is not None:
        return "-"
    resolved = source.resolve()
    try:
        return resolved.relative_to(memory.root.resolve()).as_posix() or "."
    except ValueError:
        return f"(outside the project)/{resolved.name}"


def _marker_bytes(fmt: str, label: str, digest: str, records: dict[str, str]) -> bytes:
    from lean_harness.scanning.masking import mask

    # The marker is committed: the source's name goes through the mask like anything lh stores.
    data = {"format": fmt, "source": mask(label), "sha256": digest, "records": dict(sorted(records.items()))}
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
