"""The pending inbox: notes any number of agents drop without a lock, merged by one consolidation.

A note is one Markdown file `<memory dir>/.pending/<UTC time>-<pid>-<random>.md` (frontmatter
FIELDS, then the text), linked into place from a synced temp file. `consolidate` writes the
entries of a snapshot of the notes with a marker per note, `.pending/.consumed/<sha256>`, in one
journalled commit, then retires the notes (adr/0014-import-and-inbox.md); `plan` and `apply` do
the same through a receipt (adr/0039-supersede-review-receipts.md).
"""

from __future__ import annotations

import hashlib
import os
import secrets
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from lean_harness.environment import now_utc
from lean_harness.errors import LhError
from lean_harness.files import refuse_symlink, stage, sync_dir
from lean_harness.hookstate import pending_notes
from lean_harness.memory import rules, writes
from lean_harness.memory.handle import Memory
from lean_harness.memory.intake.formats import frontmatter
from lean_harness.memory.intake.formats.records import TIME_HINT, utc_time
from lean_harness.memory.scans import rule_list
from lean_harness.memory.shard import Entry, derive_id
from lean_harness.memory.status import write_index
from lean_harness.memory.summary import text_key
from lean_harness.memory.writes import add_entries

PENDING = ".pending"
CONSUMED = ".consumed"
MAX_NOTES = 256
MAX_NOTE_BYTES = 1024 * 1024
MAX_SNAPSHOT_BYTES = 8 * 1024 * 1024
FIELDS = ("created", "shard", "tags", "allow-secret", "allow-directive")


@dataclass(frozen=True)
class Pending:
    """One note as the snapshot saw it."""

    path: Path
    data: bytes
    sha256: str


@dataclass(frozen=True)
class Merged:
    """What consolidation did with one note: added, unchanged (already stored), or kept (with why)."""

    note: str
    action: str
    shard: str = ""
    id: str = ""
    detail: str = ""


@dataclass(frozen=True)
class ConsolidateResult:
    """The outcome of a consolidation (or of a dry run)."""

    notes: tuple[Merged, ...]
    dry_run: bool

    def count(self, action: str) -> int:
        return sum(1 for n in self.notes if n.action == action)


def default_shard(names: Sequence[str]) -> str:
    """Where a record or note with no shard of its own goes: insights, else the first shard."""
    return "insights" if "insights" in names else names[0]


def folder(memory: Memory) -> Path:
    """The inbox folder of a memory."""
    return memory.config.memory_dir / PENDING


def write_note(
    memory: Memory,
    text: str,
    *,
    shard: str | None = None,
    tags: Sequence[str] = (),
    allow: Sequence[str] = (),
    allow_directives: Sequence[str] = (),
) -> Path:
    """Check a note as put checks an entry, then write it to the inbox without taking the lock."""
    memory.check_dir()
    name = memory.check_shard(shard) if shard else None
    checked = rules.require(rules.check(text, tags=tags, allow=allow, directives=allow_directives), "note")
    rules.refuse_credentials(checked, "note")
    rules.refuse_directives(checked.text, checked.directives, "note")
    values = (now_utc(), name, " ".join(checked.tags), ",".join(checked.allow), ",".join(checked.directives))
    front = [f"{key}: {value}" for key, value in zip(FIELDS, values, strict=True) if value]  # the empty left out
    data = "\n".join(["---", *front, "---", checked.text, ""]).encode("utf-8")
    inbox = folder(memory)
    refuse_symlink(inbox, memory.root)
    inbox.mkdir(exist_ok=True)
    return _place(inbox, data)


def _place(inbox: Path, data: bytes) -> Path:
    """Write `data` as a new, uniquely named note: a synced temp file, then a link that never overwrites."""
    temp = stage(inbox / "note.md", data)  # a note is committed like a shard: it gets a shard's mode
    try:
        while True:
            # Names sort in the order notes were written, to the nanosecond the clock gives, so
            # consolidate appends a burst in that order (the order of writing, adr/0012).
            now = time.time_ns()
            stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime(now // 1_000_000_000)) + f".{now % 1_000_000_000:09d}"
            target = inbox / f"{stamp}Z-{os.getpid()}-{secrets.token_hex(4)}.md"
            try:
                os.link(temp, target)
                break
            except FileExistsError:
                continue
    finally:
        os.unlink(temp)
    sync_dir(inbox)
    return target


def snapshot(memory: Memory) -> list[Pending]:
    """The pending notes now, in name order; an error over the limits, with every note kept."""
    inbox = folder(memory)
    refuse_symlink(inbox, memory.root)
    shown = memory.shown(inbox)
    if not inbox.is_dir():
        if inbox.exists():
            raise LhError(f"{shown}: is a file where a folder was expected; move it away")
        return []
    paths = [inbox / name for name in pending_notes(str(memory.config.memory_dir), strict=True)]
    keep = (
        'nothing was consolidated; move some notes out of the folder, run "lh memory consolidate", then move them back'
    )
    if len(paths) > MAX_NOTES:
        raise LhError(f"{shown}: {len(paths)} notes, over the limit of {MAX_NOTES} in one consolidation; {keep}")
    notes: list[Pending] = []
    total = 0
    for path in paths:
        # A note is a file in the inbox: a link would bring in whatever it points to, outside
        # the project included. Refused here, and not followed when opened (O_NOFOLLOW).
        refuse_symlink(path, memory.root)
        size = path.stat().st_size
        if size > MAX_NOTE_BYTES:
            raise LhError(
                f"{memory.shown(path)}: {size} bytes, over the limit of {MAX_NOTE_BYTES} for a note;"
                " nothing was consolidated; shorten the note or move it out of the folder"
            )
        with os.fdopen(os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)), "rb") as handle:
            data = handle.read(MAX_NOTE_BYTES + 1)
        total += len(data)
        if len(data) > MAX_NOTE_BYTES or total > MAX_SNAPSHOT_BYTES:
            limit = MAX_SNAPSHOT_BYTES if total > MAX_SNAPSHOT_BYTES else MAX_NOTE_BYTES
            raise LhError(
                f"{shown}: the notes hold more than {limit} bytes, over the limit for one consolidation; {keep}"
            )
        notes.append(Pending(path, data, hashlib.sha256(data).hexdigest()))
    return notes


def consolidate(memory: Memory, *, dry_run: bool = False) -> ConsolidateResult:
    """Merge the pending notes into the shards (or with `dry_run` only say what would happen)."""
    memory.check_dir()
    names = memory.config.shard_names
    with memory.reading() if dry_run else memory.writing():
        consumed_dir = folder(memory) / CONSUMED
        if not dry_run:
            _recover(consumed_dir, folder(memory))
        notes = snapshot(memory)
        done = _markers(consumed_dir)
        memory.check_shards()
        stored = {name: memory.entries(name) for name in names}  # read, not listed: a note found stored is retired
        by_text = {name: {text_key(e.text): e.id for e in found} for name, found in stored.items()}
        taken = {e.id for found in stored.values() for e in found}
        merged: list[Merged] = []
        additions: list[tuple[str, Entry]] = []
        batch: dict[str, int] = {}  # id -> position in additions
        consolidated: list[Pending] = []
        for note in notes:
            shown = memory.shown(note.path)
            if note.sha256 in done:
                consolidated.append(note)  # its entry was written before a crash; only retiring is left
                merged.append(Merged(shown, "unchanged", detail="consolidated before"))
                continue
            entry, shard, problem = _entry(note, names, taken)
            if entry is None:
                merged.append(Merged(shown, "kept", detail=problem))
                continue
            known = by_text[shard].get(text_key(entry.text))
            twin = batch.get(known or "")
            if twin is not None:  # the same text in two notes of this snapshot: one entry, all their tags
                first = additions[twin][1]
                tags = tuple(sorted({*first.tags, *entry.tags}))
                additions[twin] = (shard, replace(first, created=min(first.created, entry.created), tags=tags))
            if known is not None:
                merged.append(Merged(shown, "unchanged", shard, known))
            else:
                batch[entry.id] = len(additions)
                additions.append((shard, entry))
                by_text[shard][text_key(entry.text)] = entry.id
                taken.add(entry.id)
                merged.append(Merged(shown, "added", shard, entry.id))
            consolidated.append(note)
        if not dry_run:
            # The entries and the markers of the notes they came from are one commit: no kill can
            # leave an entry whose note is not marked, which a later consolidation would add again.
            add_entries(memory, additions, {consumed_dir / n.sha256: b"" for n in consolidated if n.sha256 not in done})
            if consolidated or consumed_dir.is_dir():
                _retire(consolidated, consumed_dir, folder(memory))
                write_index(memory)  # its pending count
    return ConsolidateResult(tuple(merged), dry_run)


def _entry(note: Pending, names: Sequence[str], taken: set[str]) -> tuple[Entry | None, str, str]:
    try:
        front = frontmatter.split(note.data.decode("utf-8"))
    except UnicodeDecodeError:
        return None, "", "not valid UTF-8; re-save it as UTF-8"
    if front.problems:
        line, message = front.problems[0]
        return None, "", f"line {line}: {message}"
    if problem := front.mapping_problem():
        return None, "", problem
    fields = front.strings()
    unknown = sorted(set(fields) - set(FIELDS))
    if unknown:
        return None, "", f"unknown frontmatter key {unknown[0]!r}; notes may have {', '.join(FIELDS)}"
    shard = fields.get("shard") or default_shard(names)
    if shard not in names:
        return None, "", f"shard {shard!r} is not in memory.shards ({', '.join(names)}); change the note's shard line"
    created = utc_time(fields["created"]) if fields.get("created") else now_utc()
    if created is None:
        return None, "", f"created {fields['created']!r} is not a time; {TIME_HINT}"
    checked = rules.check(
        front.body,
        tags=fields.get("tags", "").split(),
        allow=rule_list(fields.get("allow-secret")),
        directives=rule_list(fields.get("allow-directive")),
    )
    if checked.problems:
        return None, "", checked.problems[0]
    if (found := rules.screened([checked])[0]) is not None:  # a credential first, then a directive
        return None, "", f"{rules.why_refused(*found)}; remove it"
    key = derive_id(shard, checked.text, taken)
    return Entry(key, created, checked.text, checked.tags, writes.extra_of(checked, None)), shard, ""


def _markers(consumed_dir: Path) -> set[str]:
    try:
        return {p.name for p in consumed_dir.iterdir() if len(p.name) == 64 and "." not in p.name}
    except OSError:
        return set()


def _retire(notes: Sequence[Pending], consumed_dir: Path, inbox: Path) -> None:
    """Take each consolidated (and so marked) note out of the inbox unless it changed since."""
    for note in notes:
        parked = consumed_dir / f"{note.sha256}.{note.path.name}"
        try:
            os.replace(note.path, parked)
        except FileNotFoundError:
            continue  # another consolidation took it
        data = parked.read_bytes()
        if hashlib.sha256(data).hexdigest() != note.sha256:
            _place(inbox, data)  # edited after the snapshot: pending again
        parked.unlink()
    # A marker matters only while a note with its bytes is still in the inbox.
    remaining = {hashlib.sha256(p.read_bytes()).hexdigest() for p in inbox.glob("*.md") if p.is_file()}
    for marker in _markers(consumed_dir) - remaining:
        (consumed_dir / marker).unlink(missing_ok=True)


def _recover(consumed_dir: Path, inbox: Path) -> None:
    """Finish what a consolidation killed while retiring notes left: park nothing, lose nothing."""
    if not consumed_dir.is_dir():
        return
    marked = _markers(consumed_dir)
    for parked in sorted(consumed_dir.glob("*.md")):
        if parked.is_symlink():
            continue  # lh parks real files only: a link is not read, so nothing it points to comes in
        data = parked.read_bytes()
        if hashlib.sha256(data).hexdigest() not in marked:
            _place(inbox, data)
        parked.unlink()


def snapshot_id(notes: Sequence[Pending]) -> str:
    """The id of a snapshot: a hash of its notes' names and SHA-256s."""
    listing = "".join(f"{note.path.name} {note.sha256}\n" for note in notes)
    return hashlib.sha256(listing.encode("utf-8")).hexdigest()[:16]


def plan(memory: Memory) -> tuple[str, list[tuple[Pending, str, str]]]:
    """The snapshot id and each pending note not yet consolidated, with its shard and its text."""
    memory.check_dir()
    names = memory.config.shard_names
    with memory.reading():
        done = _markers(folder(memory) / CONSUMED)
        notes = [note for note in snapshot(memory) if note.sha256 not in done]
    rows = []
    for note in notes:
        entry, shard, _ = _entry(note, names, set())
        text = entry.text if entry else note.data.decode("utf-8", "replace")
        rows.append((note, shard or default_shard(names), text))
    return snapshot_id(notes), rows


def apply(memory: Memory, receipt: Mapping[str, object], where: str) -> tuple[tuple[str, str], ...]:
    """Write what a receipt says the snapshot's notes become, after checking all of it; returns the
    (shard, id) of each entry it names. A receipt applied before changes nothing."""
    from lean_harness.memory.compaction import archive

    entries, dropped = receipt.get("entries"), receipt.get("dropped", [])
    if not (isinstance(entries, list) and isinstance(dropped, list) and isinstance(receipt.get("snapshot"), str)):
        raise LhError(f"{where}: a receipt is an object with snapshot, entries and dropped; nothing was written")
    made = []
    for number, item in enumerate(entries, start=1):
        fields = item if isinstance(item, dict) else {}
        sources, tags, supersedes, refs = lists = [fields.get(k, []) for k in ("from", "tags", "supersedes", "refs")]
        listed = all(isinstance(v, list) and all(isinstance(x, str) for x in v) for v in lists)
        if not listed or not all(isinstance(fields.get(k), str) for k in ("shard", "text")):
            raise LhError(
                f"{where}: entry {number} needs shard and text, and from, tags, supersedes, refs as lists of strings;"
                " nothing was written"
            )
        name, checked, cites = writes.prepare(memory, fields["shard"], fields["text"], tags, refs=refs or None)
        made.append((name, checked, cites, sources, supersedes))
    reasons = {d["id"]: d.get("reason") for d in dropped if isinstance(d, dict) and isinstance(d.get("id"), str)}
    if len(reasons) != len(dropped) or not all(isinstance(r, str) and r for r in reasons.values()):
        raise LhError(f'{where}: each of dropped is {{"id": NOTE, "reason": WHY}}; nothing was written')
    consumed = folder(memory) / CONSUMED
    with memory.writing():
        _recover(consumed, folder(memory))
        done = _markers(consumed)
        notes = [note for note in snapshot(memory) if note.sha256 not in done]
        shards = {name: archive.parsed(memory, name) for name in memory.config.shard_names}
        live = {name: {e.text: e.id for e in shard.entries} for name, shard in shards.items()}
        named = {*reasons, *(key for *_, sources, _ in made for key in sources)}
        waiting = {note.path.name for note in notes}
        if snapshot_id(notes) != receipt["snapshot"]:
            if named & waiting or any(c.text not in live[n] for n, c, *_ in made):
                raise LhError(
                    f"{where}: the pending notes changed since snapshot {receipt['snapshot']} (now"
                    f' {snapshot_id(notes)}); nothing was written. Run "lh memory consolidate --plan" again'
                )
            _retire([note for note in snapshot(memory) if note.sha256 in done], consumed, folder(memory))
            write_index(memory)  # its pending count, when a kill stopped the first apply before it
            return tuple((n, live[n][c.text]) for n, c, *_ in made)  # applied before: nothing to write
        if missing := sorted(waiting - named):
            raise LhError(f"{where}: note {missing[0]} is in no entry's from and not dropped; nothing was written")
        if unknown := sorted(named - waiting):
            raise LhError(f"{where}: {unknown[0]} is no note of the snapshot; nothing was written")
        taken = {key for ids in live.values() for key in ids.values()}
        additions: list[tuple[str, Entry]] = []
        heads = []
        for name, checked, cites, _, supersedes in made:
            key = live[name].get(checked.text) or derive_id(name, checked.text, taken)
            if checked.text not in live[name]:
                taken.add(key)
                live[name][checked.text] = key
                extra = writes.extra_of(checked, cites)
                additions.append((name, Entry(key, now_utc(), checked.text, checked.tags, extra)))
            heads.append((key, supersedes))
        archive.supersede(memory, shards, additions, heads, {consumed / note.sha256: b"" for note in notes})
        _retire(notes, consumed, folder(memory))
        write_index(memory)
    return tuple((name, live[name][checked.text]) for name, checked, *_ in made)
