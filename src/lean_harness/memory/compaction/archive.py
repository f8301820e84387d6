"""The archive of merged entries, and the two moves through it: compact and expand.

`<memory dir>/archive/<shard>.md` keeps, byte for byte, the entries compaction merged into
digests, one group per digest, so that `lh memory expand DIGEST_ID` can put them back. It is
committed with the memory, is not a shard (nothing loads it or counts it against the budget),
and reads as Markdown::

    # failures: archive

    Entries `lh memory compact` merged into digests, ... `lh memory expand DIGEST_ID` ...

    <!-- lh:archive digest="9a8b7c6d5e4f" -->
    <!-- lh:entry id="3f9a1c2b7d4e" created="2026-11-30T11:32:07Z" -->
    test_lock times out on Windows runners.
    <!-- /lh:entry id="3f9a1c2b7d4e" -->
    <!-- /lh:archive digest="9a8b7c6d5e4f" -->

Both moves write the shard, the archive and INDEX.md in one journalled commit
(`memory/journal.py`), and both scan what they write for credentials (adr/0012-compaction.md).

An entry superseded by a newer one (`lh memory put --supersedes`, a consolidation receipt) moves
here too, in a group that names its successor, `<!-- lh:archive superseded-by="ID" -->`, in the
same commit as the entry that replaces it (adr/0039-supersede-review-receipts.md).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lean_harness import usage
from lean_harness.environment import now_utc
from lean_harness.errors import LhError, Refused
from lean_harness.files import read_text, remove_stale_temps, write_text
from lean_harness.memory import directives, journal, rules, view, writes
from lean_harness.memory import index as index_md
from lean_harness.memory.compaction import compact as planner
from lean_harness.memory.handle import Memory, locate
from lean_harness.memory.leaks import allowed
from lean_harness.memory.rules import refuse_directives, refuse_secrets
from lean_harness.memory.shard import (
    Conflict,
    Entry,
    Shard,
    append_entries,
    derive_id,
    parse,
    render,
    render_entry,
    text_hash,
    without_duplicates,
)
from lean_harness.memory.status import render_index, totals
from lean_harness.memory.summary import Summary, loose_costs, shard_digest, summarize

HEAD = (
    "# {shard}: archive\n\nEntries `lh memory compact` merged into digests, kept here verbatim:"
    " `lh memory expand DIGEST_ID` puts them back; entries superseded by newer ones, which"
    " `lh memory expand ID --print` shows. Not loaded into sessions, not counted against the token budget.\n"
)
_SUCCESSOR_RE = re.compile(r'^<!-- lh:archive superseded-by="([^"]+)" -->\r?$', re.MULTILINE)
_SECRET_HINT = 'Remove the credential from that entry, or add allow-secret="{rule}" to its header if it is not a secret'
_DIRECTIVE_HINT = 'Remove it from that entry, or add allow-directive="{rule}" to its header if it only quotes such text'


@dataclass(frozen=True)
class CompactResult:
    """A compaction's plan and the files it wrote (none for a dry run or nothing to do)."""

    plan: planner.Plan
    written: tuple[str, ...]
    label: str


@dataclass(frozen=True)
class ExpandResult:
    """What expanding a digest put back."""

    digest: str
    shard: str
    restored: tuple[str, ...]
    archive: str
    tokens_before: int
    tokens_after: int
    totals: index_md.Totals
    written: tuple[str, ...]


def compact(memory: Memory, *, force: bool = False, dry_run: bool = False) -> CompactResult:
    """Merge old entries into digests until memory is at its target; with `dry_run`, only plan."""
    memory.check_dir()
    with memory.reading() if dry_run else memory.writing():
        # The personal scope is never merged: its archive would be committed with the memory dir.
        shards = {name: parsed(memory, name) for name in memory.config.shared_names}
        inputs = [
            planner.ShardInput(
                name,
                shard.entries,
                tuple(view.costs([view.entry_block(e) for e in shard.entries], memory.counter.counts)),
                sum(loose_costs(shard, memory.counter.counts)[1]),
            )
            for name, shard in shards.items()
        ]
        config = memory.config
        plan = planner.plan(
            inputs,
            budget=config.token_budget,
            at_percent=config.compact_at_percent,
            target_percent=config.compact_target_percent,
            keep_newest=config.keep_newest,
            counts=memory.counter.counts,
            force=force,
            taken=functools.cache(lambda name: _archived_ids(memory, name)),
            last_used=usage.last_used(memory.root),
        )
        if dry_run or not plan.digests:
            return CompactResult(plan, (), memory.counter.label)
        changes: Changes = {}
        for digest in plan.digests:
            where = f"shard {digest.shard}, digest {digest.entry.id}"
            rules.require(rules.check(digest.entry.text), where)
            _scan_digest(digest)
            # the digest in place of its first source, the other sources removed
            shard, lines = shards[digest.shard], {e.line for e in digest.sources}
            first = min(lines)
            blocks = tuple(digest.entry if isinstance(b, Entry) and b.line == first else b for b in shard.blocks)
            shard = _without(Shard(blocks, shard.newline), lines - {first})
            changes[digest.shard] = _shard_change(memory, digest.shard, shard)
            text = _archive_text(memory, digest.shard)
            group = _group(digest.entry.id, [e.raw or render_entry(e) for e in digest.sources])
            changes[_archive_file(memory, digest.shard)] = ((text + "\n" + group).encode("utf-8"), None, "")
        return CompactResult(plan, _commit(memory, changes), memory.counter.label)


@dataclass(frozen=True)
class Archived:
    """A digest's entries as its archive keeps them, read without changing anything."""

    digest: str
    shard: str
    archive: str
    entries: tuple[Entry, ...]


def show(memory: Memory, key: str) -> Archived:
    """The entries digest `key` stands for, from the archive; nothing is written."""
    memory.check_dir()
    with memory.reading():
        name, digest = _find(memory, key)
        _, sources, shown = _sources(memory, name, digest)
    return Archived(key, name, shown, sources)


def _sources(memory: Memory, name: str, digest: Entry) -> tuple[tuple[int, int], tuple[Entry, ...], str]:
    """Where digest's group is in its shard's archive text, the entries in it, and the archive's name."""
    key = digest.id
    archive = _archive_file(memory, name)
    shown = memory.shown(archive)
    text = _archive_text(memory, name) if archive.exists() else ""
    span, sources = _group_at(text, key, shown)
    wanted = (digest.attr("sources") or "").split()
    if span is None:
        raise LhError(
            f"digest {key} of shard {name}: its entries are not in {shown}; restore that file from git"
            f' history (git log -- {shown}), then run "lh memory expand {key}" again'
        )
    if [e.id for e in sources] != wanted:
        raise LhError(
            f"{shown}: the entries kept for digest {key} are not the ones it names ({' '.join(wanted)});"
            " restore the file from git history"
        )
    return span, sources, shown


def expand(memory: Memory, key: str) -> ExpandResult:
    """Put the entries of digest `key` back in its shard, in its place, and out of the archive."""
    memory.check_dir()
    with memory.writing():
        memory.check_shards()
        name, digest = _find(memory, key)
        span, sources, shown = _sources(memory, name, digest)
        text = _archive_text(memory, name)
        for entry in sources:
            refuse_secrets(entry.text, allowed(entry), f"{shown}: entry {entry.id}", hint=_SECRET_HINT)
            refuse_directives(entry.text, directives.allowed(entry), f"{shown}: entry {entry.id}", hint=_DIRECTIVE_HINT)
        for other in memory.config.shard_names:  # an id taken again since the compaction is never stored twice
            ids = memory.listing(other, memory.summary(other).sha256).split()[1::2]
            for entry in sources:
                if entry.id in ids and entry.id != digest.id:
                    raise LhError(
                        f"entry {entry.id} of digest {digest.id} is in shard {other} again, since the compaction;"
                        f" putting it back would store it twice: give the newer one another id"
                        f' (lh memory put {other} TEXT --id NEW), then run "lh memory expand {digest.id}"'
                    )
        shard = parsed(memory, name)
        before = memory.summary(name).tokens
        blocks: list[str | Entry] = []
        for block in shard.blocks:
            if isinstance(block, Entry) and block.id == key:
                for number, entry in enumerate(sources):
                    blocks += ([shard.newline] if number else []) + [entry]
            else:
                blocks.append(block)
        changes: Changes = {name: _shard_change(memory, name, Shard(tuple(blocks), shard.newline))}
        start, end = span
        rest = text[:start].removesuffix("\n") + text[end:] if start else text[end:]
        left = "<!-- lh:archive " in rest
        changes[_archive_file(memory, name)] = (rest.encode("utf-8") if left else None, None, "")
        written = _commit(memory, changes)
        return ExpandResult(
            key,
            name,
            tuple(e.id for e in sources),
            shown,
            before,
            memory.summary(name).tokens,
            totals(memory),
            written,
        )


def parsed(memory: Memory, name: str) -> Shard:
    """A shard parsed, with exact copies of entries (as a merge leaves them) kept once; `supersede` takes them all."""
    text, _ = memory.read_shard(name)
    summary = memory.summary(name)  # refuses one id with two texts
    shard = parse(text, memory.shown(memory.shard_path(name)))
    return without_duplicates(shard)[0] if summary.repeated else shard


def _shard_change(memory: Memory, name: str, shard: Shard) -> tuple[bytes | None, Summary | None, str]:
    data = render(shard).encode("utf-8")
    summary, ids = summarize(name, shard_digest(data), shard, memory.counter)
    return data, summary, ids


Changes = dict[str | Path, tuple[bytes | None, Summary | None, str]]  # a shard by name, an archive by path


def _commit(
    memory: Memory,
    changes: Changes,
    records: Mapping[Path, bytes] = {},
) -> tuple[str, ...]:
    """Write the changed shards (by name) and archives (by path), `records` and INDEX.md in one journalled commit."""
    folder = memory.config.memory_dir
    paths: dict[Path, bytes | None] = {}
    read: dict[Path, str | None] = {}  # each shard as it was read: an editor's save since is never written over
    for key, (data, summary, _) in changes.items():
        if summary is not None:
            was = memory.summary(str(key))
            read[memory.shard_path(str(key))] = was.sha256 if was.exists else None
            memory.keep_summary(str(key), summary)
            paths[memory.shard_path(str(key))] = data
        else:
            paths[Path(key)] = data
    paths[memory.index_path] = render_index(memory).text.encode("utf-8")
    paths |= records
    paths = {p: data for p, data in paths.items() if data is None or not (p.exists() and p.read_bytes() == data)}
    for archives in {folder / planner.ARCHIVE_DIR, *(p.parent for p in paths if p.parent.name == planner.ARCHIVE_DIR)}:
        remove_stale_temps(archives)
    journal.commit(folder, paths, memory.journal_path, read, root=memory.root)
    for name, (_, summary, ids) in changes.items():
        if summary is not None:
            memory.cache.store(summary, memory.shard_path(str(name)), ids)
    return tuple(memory.shown(p) for p in sorted(paths))


def _archive_file(memory: Memory, name: str) -> Path:
    """Where shard `name` keeps its merged and superseded entries: beside the shard, so a personal
    shard's archive stays in the personal folder (adr/0040)."""
    return memory.shard_path(name).parent / planner.archive_path(name)


def _archive_text(memory: Memory, name: str) -> str:
    try:
        return read_text(_archive_file(memory, name), memory.root)
    except FileNotFoundError:
        return HEAD.format(shard=name)


def _archived_ids(memory: Memory, name: str) -> set[str]:
    """Ids of the entries and digests in a shard's archive, which a new digest must not take."""
    return set(re.findall(r'(?:id|digest)="([^"]*)"', _archive_text(memory, name)))


def _group(key: str, raws: list[str], kind: str = "digest") -> str:
    return f'<!-- lh:archive {kind}="{key}" -->\n' + "\n".join(raws) + f'<!-- /lh:archive {kind}="{key}" -->\n'


def supersede(
    memory: Memory,
    shards: Mapping[str, Shard],
    additions: Sequence[tuple[str, Entry]],
    heads: Sequence[tuple[str, Sequence[str]]],
    records: Mapping[Path, bytes] = {},
) -> tuple[str, ...]:
    """Add `additions`, move each entry a head supersedes into its archive under a pointer to the head, and write
    `records`, in one journalled commit; the caller holds `memory.writing()`, checked the entries, read `shards`."""
    live = {e.id for shard in shards.values() for e in shard.entries}
    gone: dict[str, str] = {}
    for head, keys in heads:
        for key in keys:
            if key not in live:
                raise LhError(
                    f'entry {key} is in no shard; nothing was written. "lh memory get SHARD" lists the ids'
                    ' (a superseded entry is in the archive: "lh memory expand ID --print" shows its successor)'
                )
            if gone.get(key, head) != head:
                raise LhError(f"entry {key} cannot be superseded by {head} and by {gone[key]}; nothing was written")
            gone[key] = head
    loop = sorted(set(gone) & {head for head, _ in heads})
    if loop:
        raise LhError(f"entry {loop[0]} would supersede itself, a cycle; nothing was written")
    changes: Changes = {}
    for name, shard in shards.items():
        out = [e for e in shard.entries if e.id in gone]
        added = [e for where, e in additions if where == name]
        if not out and not added:
            continue
        kept = _without(shard, {e.line for e in out})
        text = append_entries(render(kept), added, shard.newline)
        changes[name] = _shard_change(memory, name, parse(text, memory.shown(memory.shard_path(name))))
        if out:
            groups = [
                _group(h, [e.raw or render_entry(e) for e in out if gone[e.id] == h], "superseded-by")
                for h in sorted({gone[e.id] for e in out})
            ]
            archived = "\n".join([_archive_text(memory, name), *groups])
            changes[_archive_file(memory, name)] = (archived.encode("utf-8"), None, "")
    return _commit(memory, changes, records) if changes or records else ()


def put(memory: Memory, shard: str, text: str, *, supersedes: Sequence[str], **options: Any) -> writes.PutResult:
    """Store `text` in `shard` as the entry that supersedes each of `supersedes` (ids in any shard):
    the entry with that text already in the shard, else a new one (`options` as writes.put's)."""
    name, checked, cites = writes.prepare(memory, shard, text, **options)
    key = options.get("key")
    with memory.writing():
        shards = {other: parsed(memory, other) for other in memory.config.shard_names}
        taken = {e.id for shard in shards.values() for e in shard.entries}
        same = [e for e in shards[name].entries if e.text == checked.text]
        if key in taken and not same:
            raise LhError(f"entry {key} exists; --supersedes stores a new entry: choose another --id")
        extra = (("sha", text_hash(checked.text)),) * bool(key) + writes.extra_of(checked, cites)
        key = key or derive_id(name, checked.text, taken | _archived_ids(memory, name))
        entry = same[0] if same else Entry(key, now_utc(), checked.text, checked.tags, extra)
        supersede(memory, shards, [] if same else [(name, entry)], [(entry.id, supersedes)])
        cost, tokens = view.entry_cost(entry, memory.counter.counts), memory.summary(name).tokens
        action = "unchanged" if same else "added"
        return writes.PutResult(entry.id, name, action, cost, tokens, totals(memory), memory.counter.label)


@dataclass(frozen=True)
class Link:
    """An entry in a supersession chain: where it is, and the entry that superseded it ("" for the head)."""

    shard: str
    entry: Entry
    successor: str
    where: str


def superseded(memory: Memory) -> list[Link]:
    """Every entry the archives keep as superseded, with its successor."""
    found: list[Link] = []
    for name in memory.config.shard_names:
        path = _archive_file(memory, name)
        if not path.exists():
            continue
        text, shown = _archive_text(memory, name), memory.shown(path)
        entries = parse(text, shown).entries
        for match in _SUCCESSOR_RE.finditer(text):
            close = text.find(f'<!-- /lh:archive superseded-by="{match.group(1)}" -->', match.end())
            first, last = text.count("\n", 0, match.start()) + 1, text.count("\n", 0, close % (len(text) + 1)) + 1
            found += [Link(name, e, match.group(1), shown) for e in entries if first < e.line < last]
    return found


def history(memory: Memory, key: str) -> tuple[Link, ...]:
    """The chain `key` is in: the entries superseded on the way to its head, oldest first, then the
    head when it is live; empty when `key` takes part in no supersession."""
    memory.check_dir()
    with memory.reading():
        links = superseded(memory)
        after = {link.entry.id: link.successor for link in links}
        head, seen = key, {key}
        while after.get(head, head) not in seen:  # a loop made by hand stops where it closes
            head = after[head]
            seen.add(head)
        chain: list[tuple[int, Link]] = []  # (steps from the head, link): older ones are further
        wanted = [(head, 0)]
        while wanted:
            node, steps = wanted.pop()
            for link in links:
                if link.successor == node and link not in [k for _, k in chain]:
                    chain.append((steps + 1, link))
                    wanted.append((link.entry.id, steps + 1))
        chain.sort(key=lambda item: (-item[0], item[1].entry.created, item[1].entry.id))
        for name in memory.config.shard_names if chain else ():
            shown = memory.shown(memory.shard_path(name))
            found = locate(memory.read_shard(name)[0], head, shown)
            if found is not None:
                return (*(k for _, k in chain), Link(name, found[2], "", shown))
    return tuple(k for _, k in chain)


def _group_at(text: str, key: str, shown: str) -> tuple[tuple[int, int] | None, tuple[Entry, ...]]:
    """The span of digest `key`'s group in archive text and the entries in it."""
    opening = re.search("^" + re.escape(f'<!-- lh:archive digest="{key}" -->') + r"\r?$", text, re.MULTILINE)
    if opening is None:
        return None, ()
    closing = re.compile("^" + re.escape(f'<!-- /lh:archive digest="{key}" -->') + r"\r?\n?", re.MULTILINE)
    found = closing.search(text, opening.end())
    if found is None:
        line = text.count("\n", 0, opening.start()) + 1
        raise LhError(f"{shown}:{line}: the group of digest {key} is not closed; restore the file from git history")
    first, last = text.count("\n", 0, opening.start()) + 1, text.count("\n", 0, found.start()) + 1
    entries = tuple(e for e in parse(text, shown).entries if first < e.line < last)
    return (opening.start(), found.end()), entries


def _find(memory: Memory, key: str) -> tuple[str, Entry]:
    """The shard holding entry `key`, and the entry, which must be a digest."""
    for name in memory.config.shard_names:
        text, _ = memory.read_shard(name)
        found = locate(text, key, memory.shown(memory.shard_path(name)))
        if found is not None:
            if not planner.is_digest(found[2]):
                raise LhError(
                    f"entry {key} in shard {name} is not a digest; only digests written by"
                    ' "lh memory compact" can be expanded'
                )
            return name, found[2]
    raise LhError(f'no digest {key} in any shard; "lh memory get SHARD" lists the ids (digests are tagged digest)')


def _scan_digest(digest: planner.Digest) -> None:
    """Scan the digest text lh wrote; a finding names the source entry it came from."""
    from lean_harness.scanning import credentials
    from lean_harness.scanning.masking import refusal

    said = directives.allowed(digest.entry)
    refuse_directives(digest.entry.text, said, f"the digest of shard {digest.shard}", hint=_DIRECTIVE_HINT)
    findings = credentials.scan(digest.entry.text, allow=allowed(digest.entry))
    if not findings:
        return
    first = findings[0]
    line = digest.entry.text.split("\n")[first.line - 1].removeprefix("- ")
    source = next((e for e in digest.sources if line in planner.lines_of(e)), digest.sources[0])
    what = f"the digest of shard {digest.shard} would hold, from entry {source.id}, what"
    raise Refused(refusal(what, first, f"nothing was written. {_SECRET_HINT.format(rule=first.rule)}"))


def settle(memory: Memory, *, fix: bool) -> tuple[str, ...]:
    """After a merge: live copies of entries a live digest or successor holds (adr/0012-compaction.md);
    an identical copy is named (and removed with `fix`), a differing one is a Conflict. The caller holds the lock."""
    notes: list[str] = []
    live = {e.id for name in memory.config.shard_names for e in memory.entries(name)}
    successors: dict[str, Link] = {}
    for link in superseded(memory):
        other = successors.setdefault(link.entry.id, link)
        if link.successor in live and other.successor in live and other.successor != link.successor:
            raise Conflict(
                f"{link.where}:{link.entry.line}: entry {link.entry.id} is superseded by {link.successor} and by"
                f" {other.successor} (line {other.entry.line}); both sides of a merge superseded it: keep one, as"
                f' "lh memory put SHARD TEXT --supersedes {other.successor}" with the text of {link.successor} does,'
                ' then run "lh memory index"'
            )
    for name in memory.config.shard_names:
        path = _archive_file(memory, name)
        if not path.exists():
            continue
        text, _ = memory.read_shard(name)
        shown = memory.shown(memory.shard_path(name))
        shard = parse(text, shown)
        held = _held(memory, name, [e.id for e in shard.entries if planner.is_digest(e)])
        for key, link in successors.items():
            if link.successor in live and key not in held:
                held[key] = (link.successor, link.entry, link.where)
        drop: set[int] = set()
        for entry in shard.entries:
            if entry.id not in held:
                continue
            key, kept, where = held[entry.id]
            digest = entry.id not in successors or successors[entry.id].successor != key
            verb, did = ("merged into digest", "compacted") if digest else ("superseded by", "superseded")
            if entry.text != kept.text or entry.tags != kept.tags:
                keep = (
                    " (to keep this one, delete it from the archive group and the digest's sources)" if digest else ""
                )
                raise Conflict(
                    f"{shown}:{entry.line}: entry {entry.id} is {verb} {key} ({where}:{kept.line}) and is here again"
                    f" with other content; one side of a merge {did} it, the other changed it: delete the version you"
                    f' do not want{keep}, then run "lh memory index"'
                )
            drop.add(entry.line)
            notes.append(f"{shown}: line {entry.line}: entry {entry.id} again, {verb} {key} ({where})")
        if drop and fix:
            write_text(memory.shard_path(name), render(_without(shard, drop)))
            memory.forget_summary(name)
    return tuple(notes)


def _held(memory: Memory, name: str, digests: list[str]) -> dict[str, tuple[str, Entry, str]]:
    """Each entry the live `digests` of a shard hold in its archive: (digest, the archived entry, archive)."""
    text = _archive_text(memory, name)
    where = memory.shown(_archive_file(memory, name))
    held: dict[str, tuple[str, Entry, str]] = {}
    for key in digests:
        span, sources = _group_at(text, key, where)
        for entry in sources if span is not None else ():
            other = held.get(entry.id)
            if other is not None and other[0] != key:
                raise Conflict(
                    f"{where}:{entry.line}: entry {entry.id} is merged into digest {key} and into digest {other[0]}"
                    f" (line {other[1].line}); both sides of a merge compacted it: run"
                    f' "lh memory expand {key}", then "lh memory index"'
                )
            held[entry.id] = (key, entry, where)
    return held


def _without(shard: Shard, lines: set[int]) -> Shard:
    """The shard without the entries starting at `lines`, each with the blank line before it."""
    blocks: list[str | Entry] = []
    skip_blank = False
    for block in shard.blocks:
        if skip_blank and isinstance(block, str) and block and not block.strip("\r\n"):  # a blank line
            skip_blank = False
            continue
        skip_blank = False
        if isinstance(block, Entry) and block.line in lines:
            if blocks and isinstance(blocks[-1], str) and blocks[-1] and not blocks[-1].strip("\r\n"):
                blocks.pop()
            else:
                skip_blank = True
            continue
        blocks.append(block)
    return Shard(tuple(blocks), shard.newline)
