"""The shard file format: one Markdown file per shard, entries delimited by comment markers.

A shard reads as plain Markdown. Each entry sits between an opening and a closing HTML
comment, which Markdown viewers hide and which no ordinary note contains::

    # failures

    Failures seen in this project and what fixed them.

    <!-- lh:entry id="3f9a1c2b7d4e" created="2026-11-30T11:32:07Z" tags="ci windows" -->
    test_lock times out on Windows runners: the lock file was opened without O_BINARY.
    <!-- /lh:entry id="3f9a1c2b7d4e" -->

Everything outside entries is prose and is kept as it is. Parsing keeps each block's
original text, so writing back an unchanged shard gives the same bytes (see
adr/0002-entry-format.md).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Container, Sequence
from dataclasses import dataclass, field

from lean_harness.errors import LhError

OPEN_PREFIX = "<!-- lh:entry "
# An end marker may name its entry; lh writes it so, which keeps git's union merge from fusing the
# end markers of two entries added on two branches (adr/0008-merges.md).
_CLOSE_RE = re.compile(r'<!-- /lh:entry(?: id="([^"]*)")? -->')
_OPEN_RE = re.compile(r"<!-- lh:entry ((?:[a-z][a-z0-9-]*=\"[^\"]*\" ?)*)-->")
_ATTR_RE = re.compile(r'([a-z][a-z0-9-]*)="([^"]*)"')
ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
TAG_RE = re.compile(r"[a-z0-9][a-z0-9._:/+-]{0,47}")
CREATED_RE = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")
# The lines git writes around a conflict. `=======` is left out: alone it is a Markdown heading's
# underline, and git never writes it without a `<<<<<<<` and a `>>>>>>>` line around it.
CONFLICT_MARKERS = ("<<<<<<<", ">>>>>>>", "|||||||")
_KNOWN = ("id", "created", "tags")
_LINE_RE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")
_LINE_END_RE = re.compile(r"\r\n|\r|\n")
_MARKS_RE = re.compile(r"^(?:(?:#{1,6}|[-*+])(?:\s+|$)|>\s*)+")
CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")  # C0 controls but tab and newline, DEL, C1
# A header attribute value: one line, no quote, nothing that ends the comment.
_VALUE_RE = re.compile(r'[^"\x00-\x1f\x7f-\x9f\u2028\u2029]*')


class ShardError(LhError):
    """A shard file that cannot be parsed; no command rewrites it until it is fixed."""


class Conflict(ShardError):
    """Two versions of one entry, as a merge where both sides changed it leaves them: a problem found."""

    exit_code = 1


@dataclass(frozen=True, slots=True)
class Entry:
    """One memory entry; `raw` and `line` (its parsed text and where) take no part in equality."""

    id: str
    created: str
    text: str
    tags: tuple[str, ...] = ()
    extra: tuple[tuple[str, str], ...] = ()
    raw: str | None = field(default=None, repr=False, compare=False)
    line: int = field(default=0, compare=False)

    @property
    def title(self) -> str:
        return title_of(self.text)

    def attr(self, name: str) -> str | None:
        """The value of a header attribute other than id, created and tags."""
        return next((value for key, value in self.extra if key == name), None)


@dataclass(frozen=True, slots=True)
class Shard:
    """A parsed shard: prose strings and entries in file order."""

    blocks: tuple[str | Entry, ...]
    newline: str = "\n"

    @property
    def entries(self) -> tuple[Entry, ...]:
        return tuple(b for b in self.blocks if isinstance(b, Entry))


def first_line(text: str) -> str:
    """The first non-blank line without control characters or the heading, bullet or quote marks opening it."""
    for line in text.splitlines():
        stripped = CONTROL_RE.sub("", line).strip()
        stripped = _MARKS_RE.sub("", stripped, count=1).strip()
        if stripped:
            return stripped
    return ""


def title_of(text: str) -> str:
    """The first line (`first_line`), at most 80 characters."""
    line = first_line(text)
    return line if len(line) <= 80 else line[:79].rstrip() + "…"


def written(entry: Entry) -> str:
    """When an entry was last written: a later `updated` time in lh's form, else its `created`."""
    updated = time_attr(entry, "updated")
    return updated if updated is not None and updated > entry.created else entry.created


def time_attr(entry: Entry, name: str) -> str | None:
    """The entry's attribute `name` when it is a time in lh's form, else None (absent or hand-edited)."""
    value = entry.attr(name)
    return value if value is not None and CREATED_RE.fullmatch(value) else None


def by_writing(entries: Sequence[Entry]) -> list[int]:
    """The positions of `entries` from the first written to the last, ties in file order (adr/0012)."""
    return sorted(range(len(entries)), key=lambda i: (written(entries[i]), i))


def text_hash(text: str) -> str:
    """The `sha` attribute lh writes in the header of an entry whose id does not come from its text."""
    return hashlib.sha256(normalize_text(text).encode("utf-8")).hexdigest()[:12]


def normalize_text(text: str) -> str:
    """Canonical entry text: every `str.splitlines` break made LF, no trailing spaces, no blank lines around it."""
    lines = [line.rstrip() for line in text.splitlines()]
    return "\n".join(lines).strip("\n")


def split_lines(text: str) -> list[str]:
    """A shard's lines, each with its ending: LF, CRLF or a lone CR, no other character."""
    if "\r" in text:
        return _LINE_RE.findall(text)
    lines = text.split("\n")
    last = lines.pop()
    out = [line + "\n" for line in lines]
    if last:
        out.append(last)
    return out


def line_count(text: str, end: int) -> int:
    """How many lines end before character `end` of shard text (as `split_lines` ends them)."""
    return text.count("\n", 0, end) + text.count("\r", 0, end) - text.count("\r\n", 0, end)


def line_start(text: str, at: int) -> int:
    """Where the line holding character `at` starts."""
    return max(text.rfind("\n", 0, at), text.rfind("\r", 0, at)) + 1


def line_stop(text: str, at: int) -> int:
    """Where the line holding character `at` ends, its ending included (the text's end without one)."""
    match = _LINE_END_RE.search(text, at)
    return len(text) if match is None else match.end()


def marker_kind(line: str) -> str | None:
    """ "open", "close" or "conflict" when the parser (and so memory/rules.py) reads `line` as structure."""
    bare = line.rstrip("\r\n")
    if bare.startswith(OPEN_PREFIX):
        return "open"
    if _CLOSE_RE.fullmatch(bare.strip()):
        return "close"
    if is_conflict_marker(bare):
        return "conflict"
    return None


def is_conflict_marker(line: str) -> bool:
    """Whether `line` starts like a git conflict marker: the one rule of the parser, the writer and doctor."""
    return line.startswith(CONFLICT_MARKERS)


def derive_id(shard: str, text: str, taken: Container[str] = ()) -> str:
    """A stable id from the shard and the normalized text, lengthened on a collision."""
    digest = _digest(shard, text)
    for size in range(12, 65):
        candidate = digest[:size]
        if candidate not in taken:
            return candidate
    raise LhError(f"could not derive a free id for a new entry in shard {shard!r}")


def _digest(shard: str, text: str) -> str:
    return hashlib.sha256(f"{shard}\n{normalize_text(text)}".encode()).hexdigest()


def render_entry(entry: Entry, newline: str = "\n") -> str:
    """The entry as file text, its id named again at its end (adr/0008); an unchanged parsed entry keeps its bytes."""
    if entry.raw is not None:
        return entry.raw
    attrs = [("id", entry.id), ("created", entry.created)]
    if entry.tags:
        attrs.append(("tags", " ".join(entry.tags)))
    attrs.extend(entry.extra)
    for key, value in attrs:
        if not _VALUE_RE.fullmatch(value) or "-->" in value:
            raise ValueError(f"entry {entry.id}: header attribute {key} cannot hold {value!r}")
    header = OPEN_PREFIX + " ".join(f'{k}="{v}"' for k, v in attrs) + " -->"
    body = entry.text.replace("\n", newline)
    return f'{header}{newline}{body}{newline}<!-- /lh:entry id="{entry.id}" -->{newline}'


def new_shard_text(name: str, description: str) -> str:
    """The text of an empty shard: a heading and its description."""
    return f"# {name}\n\n{description}\n" if description else f"# {name}\n"


def append_text(existing: str, entry: Entry, newline: str = "\n") -> str:
    """The shard text with one entry appended after a blank line."""
    if existing.endswith("\r"):
        existing += "\n"  # a CRLF cut after its CR: complete it, so a blank line still follows
    elif existing and not existing.endswith("\n"):
        existing += newline
    separator = newline if existing and not existing.endswith(newline * 2) else ""
    return existing + separator + render_entry(entry, newline)


def append_entries(existing: str, entries: Sequence[Entry], newline: str = "\n") -> str:
    """The shard text with the entries appended, each after a blank line, built in one pass."""
    if not entries:
        return existing
    return append_text(existing, entries[0], newline) + "".join(newline + render_entry(e, newline) for e in entries[1:])


def render(shard: Shard) -> str:
    """The shard as file text."""
    return "".join(b if isinstance(b, str) else render_entry(b, shard.newline) for b in shard.blocks)


def without_duplicates(shard: Shard) -> tuple[Shard, tuple[str, ...]]:
    """The shard with each exact copy (a merge leaves them) folded into the first, and a note per copy dropped."""
    blocks: list[str | Entry] = []
    kept: dict[str, int] = {}
    notes: list[str] = []
    for block in shard.blocks:
        if isinstance(block, str):
            blocks.append(block)
            continue
        at = kept.get(block.id)
        if at is None:
            kept[block.id] = len(blocks)
            blocks.append(block)
            continue
        first = blocks[at]
        assert isinstance(first, Entry)
        notes.append(f"line {block.line}: entry {block.id} again (first on line {first.line})")
        blocks[at] = Entry(
            first.id,
            min(first.created, block.created),
            first.text,
            tuple(sorted({*first.tags, *block.tags})),
            _merged_extra(first, block),
            line=first.line,
        )
        if blocks and isinstance(blocks[-1], str) and not blocks[-1].strip("\r\n"):
            blocks.pop()  # the blank line that separated the copy from the entry before it
    return Shard(tuple(blocks), shard.newline), tuple(notes)


def _merged_extra(first: Entry, copy: Entry) -> tuple[tuple[str, str], ...]:
    # The first copy's attributes win, but no reference is dropped: both branches' citations are
    # kept, and `lh memory verify` tells which still hold (adr/0017-evidence-anchors.md).
    refs = " ".join(sorted({*(first.attr("refs") or "").split(), *(copy.attr("refs") or "").split()}))
    kept = tuple((k, refs if k == "refs" else v) for k, v in first.extra)
    return (*kept, *((k, v) for k, v in copy.extra if first.attr(k) is None))


def parse(text: str, path: str = "shard") -> Shard:
    """Parse shard text; raise ShardError naming the file and line when its structure is broken."""
    lines = split_lines(text)
    ending = lines[0][len(lines[0].rstrip("\r\n")) :] if lines else ""
    newline = ending if ending in ("\r\n", "\r") else "\n"
    blocks: list[str | Entry] = []
    prose: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        kind = marker_kind(line)
        if kind == "conflict":
            raise _conflict_marker(path, index)
        if kind == "close":
            raise ShardError(f"{path}:{index + 1}: entry end marker without a start; remove it")
        if kind == "open":
            if prose:
                blocks.append("".join(prose))
                prose = []
            twin = _twin(lines, index, path)
            entry, index = _parse_entry(lines, index + (twin is not None), path)
            if twin is not None:
                blocks.append(_verified_twin(twin, entry, path))
            blocks.append(entry)
            continue
        prose.append(line)
        index += 1
    if prose:
        blocks.append("".join(prose))
    return Shard(tuple(blocks), newline)


def _conflict_marker(path: str, index: int) -> ShardError:
    return ShardError(
        f'{path}:{index + 1}: git conflict marker; resolve the conflict (keep both entries), then run "lh memory index"'
    )


def refuse_conflicting_ids(entries: Sequence[Entry], path: str) -> None:
    """Raise ShardError naming both lines when two entries share an id but not their text."""
    first: dict[str, Entry] = {}
    for entry in entries:
        seen = first.setdefault(entry.id, entry)
        if seen.text != entry.text:
            raise Conflict(
                f"{path}:{entry.line}: entry {entry.id} appears again with other text (first on line {seen.line});"
                " both sides of a merge probably changed it: keep one version, or give the other its own id,"
                ' then run "lh memory index"'
            )


def _twin(lines: Sequence[str], start: int, path: str) -> Entry | None:
    # git's union merge of two branches that both added (or both rewrote) the same entry keeps
    # both headers and one text: two headers with the same id on consecutive lines.
    if start + 1 >= len(lines) or marker_kind(lines[start + 1]) != "open":
        return None
    key, created, tags, extra = _header(lines, start, path)
    if _header(lines, start + 1, path)[0] != key:
        return None
    return Entry(key, created, "", tags, extra, raw=lines[start], line=start + 1)


def _verified_twin(twin: Entry, entry: Entry, path: str) -> Entry:
    # The text is the one both branches held only when the id is derived from it, or when both
    # headers carry the hash of that text (`sha`, written with a chosen id); otherwise the
    # person who merged decides. Content is compared, never times.
    name = path.rsplit("/", 1)[-1].removesuffix(".md")  # the shard, whose name a derived id is made with
    derived = len(twin.id) >= 12 and _digest(name, entry.text).startswith(twin.id)
    hashed = twin.attr("sha") == entry.attr("sha") == text_hash(entry.text)
    if not (derived or hashed):
        raise Conflict(
            f"{path}:{twin.line}: entry {twin.id} has a second header on line {twin.line + 1}; both sides of a"
            ' merge probably changed it: keep one header and the text you want, then run "lh memory index"'
        )
    return Entry(twin.id, twin.created, entry.text, twin.tags, twin.extra, raw=twin.raw, line=twin.line)


def _header(
    lines: Sequence[str], start: int, path: str
) -> tuple[str, str, tuple[str, ...], tuple[tuple[str, str], ...]]:
    header = lines[start].rstrip("\r\n")
    match = _OPEN_RE.fullmatch(header)
    if match is None:
        raise ShardError(
            f'{path}:{start + 1}: malformed entry header; expected <!-- lh:entry id="..." created="..." -->'
        )
    pairs = _ATTR_RE.findall(match.group(1))
    attrs = dict(pairs)
    key, created = attrs.get("id", ""), attrs.get("created", "")
    if not ID_RE.fullmatch(key):
        raise ShardError(f"{path}:{start + 1}: entry id {key!r} is missing or not a valid id")
    if not CREATED_RE.fullmatch(created):
        raise ShardError(
            f"{path}:{start + 1}: entry {key} has created={created!r}; expected a UTC time like 2026-01-31T09:00:00Z"
        )
    return key, created, tuple(attrs.get("tags", "").split()), tuple((k, v) for k, v in pairs if k not in _KNOWN)


def entry_at(text: str, start: int, path: str) -> tuple[Entry, int]:
    """The entry whose header starts at character `start` of shard text, and the offset just past it."""
    tail = split_lines(text[start : _entry_stop(text, start)])
    skipped = line_count(text, start)
    # Blank stand-ins for the lines before `start` keep every line number in messages right.
    entry, after = _parse_entry([""] * skipped + tail, skipped, path)
    return entry, start + sum(len(line) for line in tail[: after - skipped])


def _entry_stop(text: str, start: int) -> int:
    """The end of the first end-marker line after the header at `start`: only that far is split, for speed."""
    at = text.find("<!-- /lh:entry", start)
    while at >= 0:
        first = line_start(text, at)
        stop = line_stop(text, at)
        if first > start and marker_kind(text[first:stop]) == "close":
            return stop
        at = text.find("<!-- /lh:entry", stop)
    return len(text)


def _parse_entry(lines: Sequence[str], start: int, path: str) -> tuple[Entry, int]:
    key, created, tags, extra = _header(lines, start, path)
    end = start + 1
    while end < len(lines):
        bare = lines[end].rstrip("\r\n")
        kind = marker_kind(bare)
        if kind == "close":
            close = _CLOSE_RE.fullmatch(bare.strip())
            assert close is not None
            if close.group(1) not in (None, key):
                raise ShardError(
                    f"{path}:{end + 1}: the end marker of entry {close.group(1)} closes entry {key} (line {start + 1});"
                    " a merge interleaved two entries: put each text between its own markers,"
                    ' then run "lh memory index"'
                )
            break
        if kind == "open":
            if _OPEN_RE.fullmatch(bare) and dict(_ATTR_RE.findall(bare)).get("id") == key:
                raise Conflict(
                    f"{path}:{end + 1}: entry {key} (line {start + 1}) starts again before its end marker;"
                    " both sides of a merge probably changed it: keep the version you want between one pair"
                    ' of markers, then run "lh memory index"'
                )
            raise ShardError(f"{path}:{start + 1}: entry {key} is not closed before the next entry starts")
        if kind == "conflict":
            raise _conflict_marker(path, end)
        end += 1
    else:
        raise ShardError(
            f'{path}:{start + 1}: entry {key} is not closed; add <!-- /lh:entry id="{key}" --> after its text'
        )
    body = "".join(lines[start + 1 : end])
    body = body[: len(body) - len(lines[end - 1]) + len(lines[end - 1].rstrip("\r\n"))] if end > start + 1 else body
    raw = "".join(lines[start : end + 1])
    body = body.replace("\r\n", "\n").replace("\r", "\n") if "\r" in body else body
    entry = Entry(key, created, body, tags, extra, raw=raw, line=start + 1)
    return entry, end + 1
