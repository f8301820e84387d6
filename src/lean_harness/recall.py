"""What the hooks hand the agent unasked: the notes that meet a failed command, a file it opens or
a prompt, and what a session start shows of them (adr/0037-the-right-note-at-the-moment.md).

lh keeps a map of the memory for the hooks in `<cacheDir>/lh/recall/`, written with INDEX.md
(memory/recall_map.py):

- `map.json`: `{"format", "stamp", "budget", "total", "shards", "entries"}`: each shard's digest,
  and each entry `[shard, id, key, written, pinned, tokens, stale, words]` in shard order, its
  words from its masked text; a note's text is read from its shard when it is printed;
- `files`: the stamp, then a line `PATH<TAB>SHARD/ID ...` for each file that notes cite.

The stamp is every memory file's `name size mtime inode` (hookstate.scan, INDEX.md left out) as lh
found them before reading the shards. A map whose stamp is not the memory folder's now, that is
a link, or whose values are not of their types is not used: the hooks then stay silent. A cache is
a hint (adr/0030): the map only ranks; what is printed is the shard's text, through `mask`.

A note is handed over only on a strong match (see `FAILURE` and `PROMPT`), once a session: again
only when its text changed (hookstate.py `handed`).
"""

from __future__ import annotations

import os

from lean_harness import hookstate

TYPE_CHECKING = False  # importing typing alone would double a hook's import time
if TYPE_CHECKING:
    import re
    from collections.abc import Iterable, Sequence
    from typing import Any

FORMAT = "lh-recall/1"
TOOL_CHARS = 1_200  # one note after a tool call: about 300 tokens (Claude Code cuts tool context at 2,000 characters)
PROMPT_NOTES = 3
START_CHARS = 9_500  # a session start's whole output (Claude Code cuts hook output at 10,000 characters)
MUST_SHARE = 4  # corrections and pinned notes take at most 1/4 of indexTokenBudget at session start
READ_BYTES = 32 * 1024  # of a failure's output, its first and last this many bytes are read
CUT = "\n[… cut; whole entry: lh memory get {shard}]"

# A failure's note shares at least 2 rare words with its informative lines (a word of at most 1 in
# 20 entries, or of one), and they make 30% of the note's weight; a prompt's notes share 2 words
# with it, making half of the prompt's weight and a fifth of the note's.
FAILURE = (2, 0.0, 0.3)  # rare words shared; share of the event's weight; share of the note's
PROMPT = (2, 0.5, 0.2)

_STOP_TEXT = """about above after again against all also and any are because been before being below between
    both but can cannot could did does doing done down during each few for from further had has have
    having here how into its itself just more most not now off once only other our out over own same
    should some such than that the their them then there these they this those through too under
    until very was were what when where which while who why will with would you your yes use used
    using get got make want need like please let see try file line code error errors fail failed
    failure exit status run running return returned call last recent most traceback"""
_STOP = frozenset(_STOP_TEXT.split())
# Lines of a failure's output that say what went wrong; stack frames and progress are not read.
_SIGNS = (
    "error", "exception", "fail", "fatal", "cannot", "can't", "unable", "not found", "no such", "denied",
    "refused", "invalid", "missing", "undefined", "panic", "abort", "conflict", "timed out", "timeout",
    "unexpected", "incompatible", "expected", "err!", "e   ", "killed", "segmentation",
)  # fmt: skip
_FRAMES = ("traceback (most recent", 'file "', "at ", "exit code", "process exited", "^", "~")
PATH_KEYS = ("file_path", "path", "filePath", "notebook_path")  # a tool call's file, in each client's words
_word: list[re.Pattern[str]] = []


class Note:
    """One entry as the map holds it."""

    __slots__ = ("id", "key", "pinned", "shard", "stale", "terms", "text", "tokens", "written")

    def __init__(self, row: list[Any]) -> None:
        self.shard, self.id, self.key, self.written = row[:4]
        self.pinned: bool = row[4]
        self.tokens: int = row[5]
        self.stale: bool = row[6]
        self.terms = frozenset(row[7])
        self.text = ""  # read from the shard when the note is printed

    @property
    def name(self) -> str:
        return f"{self.shard}/{self.id}"

    @property
    def must(self) -> bool:
        """A note an agent must follow: a correction or a pinned note."""
        return self.shard == "corrections" or self.pinned


class Map:
    """The map as loaded: its notes, indexTokenBudget, the memory's total tokens."""

    def __init__(self, notes: list[Note], budget: int, total: int) -> None:
        self.notes, self.budget, self.total = notes, budget, total


def stamp(memory_dir: str | os.PathLike[str]) -> str:
    """The memory files as they are now, in one line."""
    found = hookstate.scan(memory_dir)
    return " ".join(f"{n}:{s[0]}:{s[1]}:{s[2]}" for n, s in sorted(found.items()) if n != "INDEX.md")


def folder(cache_dir: str | os.PathLike[str]) -> str:
    return os.path.join(os.fspath(cache_dir), "lh", "recall")


def files(cache_dir: str | os.PathLike[str]) -> tuple[str, str]:
    """The map's two files."""
    return os.path.join(folder(cache_dir), "map.json"), os.path.join(folder(cache_dir), "files")


def terms(text: str) -> list[str]:
    """The words of a text as notes and events are matched on: lowercase, three characters or
    more (a version number such as 9.2 from two), a plural's `s` dropped, common words left out."""
    if not _word:
        import re

        _word.append(re.compile(r"[0-9]+(?:\.[0-9]+)+|[a-z0-9_]*[a-z][a-z0-9_]*"))
    found = []
    for match in _word[0].findall(text.lower()):
        word = match.strip("_")
        if len(word) > 4 and word.endswith(("ches", "shes", "xes", "sses", "zes")):
            word = word[:-2]
        elif len(word) > 4 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
            word = word[:-1]
        if len(word) >= 3 and word not in _STOP:
            found.append(word)
    return found


def cited(cache_dir: str, memory_dir: str, path: str) -> list[str]:
    """The `shard/id` of the notes that cite `path` (relative to the root, forward slashes), from a fresh map."""
    try:
        with open(os.path.join(folder(cache_dir), "files"), encoding="utf-8") as handle:
            lines = handle.read().split("\n")
    except (OSError, UnicodeDecodeError):
        return []
    for line in lines[1:]:
        if line.startswith(path + "\t"):
            return line[len(path) + 1 :].split(" ") if lines[0] == stamp(memory_dir) else []
    return []


def load(cache_dir: str, memory_dir: str) -> Map | None:
    """The map when it describes the memory as it is now and holds values of its types; else None."""
    import json

    try:
        with open(os.path.join(folder(cache_dir), "map.json"), encoding="utf-8") as handle:
            data = json.loads(handle.read())
        if data["format"] != FORMAT or data["stamp"] != stamp(memory_dir):
            return None
        notes = [Note(row) for row in data["entries"] if is_row(row)]
        if len(notes) != len(data["entries"]) or type(data["budget"]) is not int or type(data["total"]) is not int:
            return None
        return Map(notes, data["budget"], data["total"])
    except (OSError, ValueError, RecursionError, TypeError, KeyError):
        return None


def is_row(row: object) -> bool:
    """Whether a value is an entry's row of the map, every value of its type."""
    kinds = (str, str, str, str, bool, int, bool, list)
    return (
        isinstance(row, list)
        and len(row) == len(kinds)
        and all(type(v) is k for v, k in zip(row, kinds, strict=True))
        and all(type(t) is str for t in row[7])
    )


def strong(found: Map, words: Iterable[str], rule: tuple[int, float, float], most: int) -> list[Note]:
    """The notes that match `words` strongly by `rule`, best first, at most `most`."""
    import math

    query = set(words)
    count = len(found.notes)
    holding: dict[str, int] = {}
    for note in found.notes:
        for term in note.terms:
            holding[term] = holding.get(term, 0) + 1
    rare = max(1, count // 20)

    def idf(term: str) -> float:
        return math.log(1 + count / max(1, holding.get(term, 0)))

    weight = sum(idf(t) for t in query) or 1.0
    ranked = []
    for note in found.notes:
        shared = query & note.terms
        if len(shared) < rule[0]:
            continue
        score = sum(idf(t) for t in shared)
        if sum(holding[t] <= rare for t in shared) < rule[0] or score < rule[1] * weight:
            continue
        if score >= rule[2] * (sum(idf(t) for t in note.terms) or 1.0):
            ranked.append((-score, note.name, note))
    return [note for _, _, note in sorted(ranked, key=lambda r: r[:2])[:most]]


def informative(output: str) -> str:
    """The lines of a failure's output that say what went wrong (all of its end when none does)."""
    if len(output) > 2 * READ_BYTES:
        output = output[:READ_BYTES] + "\n" + output[-READ_BYTES:]
    lines = [line.strip() for line in output.splitlines()]
    kept = [
        line for line in lines if any(sign in line.lower() for sign in _SIGNS) and not line.lower().startswith(_FRAMES)
    ]
    return "\n".join((kept or lines[-10:])[-40:])


def exit_code(text: str) -> int:
    """The exit code a shell tool's output starts by saying ("Exit code: 2", "Process exited with code 2"), or 0."""
    lowered = text.lower()
    for mark in ("exit code", "exited with code"):
        at = lowered.find(mark)
        if at >= 0:
            digits = lowered[at + len(mark) :].lstrip(" :")[:6].split()[0:1]
            return int(digits[0]) if digits and digits[0].lstrip("-").isdigit() else 0
    return 0


def patched(patch: str) -> list[str]:
    """The files a Codex patch adds, updates or deletes (its `*** Update File: PATH` lines)."""
    marks = ("*** Update File: ", "*** Add File: ", "*** Delete File: ")
    return [line.split(": ", 1)[1].strip() for line in patch.splitlines() if line.startswith(marks)]


def block(note: Note, limit: int) -> str:
    """A note as the hooks print it: `[shard/id]`, its stale mark, its text, cut to `limit` characters."""
    head = f"[{note.name}]" + (" (stale: it cites lines that changed)" if note.stale else "")
    text = note.text.strip()
    if len(head) + len(text) + 1 > limit:
        cut = CUT.format(shard=note.shard)
        text = text[: max(0, limit - len(head) - len(cut) - 1)].rstrip() + cut
    return f"{head}\n{text}"


def hand(cache_dir: str, root: str, session: str, kind: str, notes: Sequence[Note]) -> list[Note]:
    """The notes of `notes` not yet handed over in this session as they are now, recorded as handed."""
    path = hookstate.session_path(cache_dir, "handed", session)
    handed = hookstate.load_handed(path)
    fresh = [note for note in notes if handed.get(note.name) != note.key]
    if fresh:
        hookstate.save_handed(path, {**handed, **{note.name: note.key for note in fresh}}, root)
        handed_over(root, kind, session, fresh)
    return fresh


def handed_over(root: str, kind: str, session: str, notes: Sequence[Note]) -> None:
    """Where the record of which notes reached the agent (usage) is kept: not wired yet."""


def session_view(found: Map, index_text: str, room: int, where: str) -> tuple[str, list[Note], bool]:
    """What a session start shows in `room` characters, and the notes it shows whole: every note then
    INDEX.md when the memory fits indexTokenBudget and the room; else the corrections and pinned
    notes, newest first, within a share of the budget and half the room, then INDEX.md as far as it fits."""
    everything = "\n\n".join(block(note, START_CHARS) for note in found.notes)
    if found.notes and found.total <= found.budget and len(everything) + len(index_text) + 2 <= room:
        return f"{everything}\n\n{index_text}", list(found.notes), True
    must = sorted((n for n in found.notes if n.must), key=lambda n: n.written)
    shown: list[Note] = []
    blocks: list[str] = []
    tokens, used = 0, 0
    for note in reversed(must):
        text = block(note, TOOL_CHARS)
        if tokens + note.tokens > found.budget // MUST_SHARE or used + len(text) + 2 > room // 2:
            break
        shown.append(note)
        blocks.append(text)
        tokens, used = tokens + note.tokens, used + len(text) + 2
    text = "".join(f"{b}\n\n" for b in blocks)
    return text + cut_lines(index_text, room - len(text), where), shown, False


def cut_lines(text: str, room: int, where: str) -> str:
    """`text` whole when it fits `room` characters, else its first lines that fit and a line saying so."""
    if len(text) <= room:
        return text
    note = f"[… cut here to fit the hook's output; read the rest in {where}]"
    kept = text[: max(0, room - len(note) - 1)].rpartition("\n")[0]
    return f"{kept}\n{note}"
