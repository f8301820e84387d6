"""What the hooks hand the agent unasked: the notes that meet a failed command, a file it opens or a
prompt, and what a session start shows of them (adr/0037-the-right-note-at-the-moment.md).

The hooks' map of the memory, written with INDEX.md (memory/recall_map.py) in
`<cacheDir>/lh/recall/`: `map.json`, `{"format", "stamp", "budget", "total", "shards", "personal",
"parts", "files", "stale", "must"}`, and each shard's rows, `shards/<shard>.json`, `{"format",
"digest", "entries"}`, kept while the shard's digest is the one `shards` names. A row is `[shard,
id, key, written, pinned, tokens, stale, words]`, its words the `terms` of its masked text in order,
`stale` false (`stale` names the stale notes); `must` holds the rows a session start may show first;
`personal` names the shards kept in the personal folder (adr/0040). Each shard's words,
`shards/<shard>.words` (`words_text`), are what a failure or a prompt is matched on, so that a hook
parses rows only for the notes it hands over. The stamp is every memory file's
`name:size:mtime:inode` but INDEX.md, then the personal folder's; a map whose stamp, digests or
types are off is not used. The map only ranks (adr/0030): what is printed is the shard's text under
the note's header, its lines checked against the row's key, masked. A note is handed over on a
strong match, once a session; again only changed.
"""

from __future__ import annotations

import os
import stat
from itertools import pairwise  # built into the interpreter: importing it costs nothing

from lean_harness import hookstate

TYPE_CHECKING = False  # importing typing alone would double a hook's import time
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from typing import Any

    from lean_harness.hookstate import Stat

FORMAT = "lh-recall/9"  # a new `terms` rule, or key, is a new format: the map's words are made again
TOOL_CHARS = 1_200  # a note after a tool call: about 300 tokens (Claude Code keeps 2,000 characters)
START_CHARS = 9_500  # a session start's output (Claude Code keeps 10,000 characters)
MUST_SHARE = 4  # corrections and pinned notes take at most 1/4 of indexTokenBudget at session start
READ_BYTES = 32 * 1024  # of a failure's output, the first and last this many characters are read
CUT = "\n[… cut; whole entry: lh memory get {shard}]"
# (score in words held by one note alone, share of the event's weight, share of the note's, margin over the
# next note): a score is the idf weight of the shared words and adjacent pairs. A failure's best note is also
# the one when it holds much of a short output (ALONE: score in words, share of the event's weight, margin).
# Chosen on the designed replay set, the odd half of the held-out one, the fresh sets and the public folders;
# then measured once on a set written after the choice (benchmarks/replay/run.py; adr/0037).
FAILURE = (3.5, 0.0, 0.25, 1.0)
ALONE = (1.5, 0.4, 1.5)
PROMPT = (0.0, 0.3, 0.1, 1.2)
PATH_KEYS = ("file_path", "path", "filePath", "notebook_path")  # a tool call's file, in each client's words

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
    "unexpected", "incompatible", "expected", "err!", "e   ", "kill", "segmentation", "oom", "too large",
)  # fmt: skip
_FRAMES = ("traceback (most recent", 'file "', "at ", "exit code", "process exited", "^", "~")
# What only a failure prints: a command that exits 0 through a pipe (`pytest | tail`) still failed.
PIPED = ("Traceback (most recent call last)", "INTERNALERROR", "npm ERR!", "panicked at", "error[E", "fatal: ")
_ROW = (str, str, str, str, bool, int, bool, str)
_VOWELS = frozenset("aeiouy")


class Note:
    """One entry as the map holds it; `text` is read from its shard when it is printed."""

    __slots__ = ("id", "key", "pinned", "row", "shard", "stale", "text", "tokens", "written")

    def __init__(self, row: list[Any]) -> None:
        self.row, self.text = row, ""
        self.shard, self.id, self.key, self.written, self.pinned, self.tokens, self.stale = row[:7]

    @property
    def name(self) -> str:
        return f"{self.shard}/{self.id}"

    @property
    def must(self) -> bool:
        """A note an agent must follow: a correction or a pinned note."""
        return self.shard == "corrections" or bool(self.pinned)


class Map:
    """The map as loaded, and the notes a hook asked for (`load`)."""

    def __init__(self, data: dict[str, Any], cache_dir: str | os.PathLike[str]) -> None:
        self.cache_dir, self.notes = cache_dir, list[Note]()
        self.words: list[tuple[str, str]] = []  # every shard's words, when loaded whole (`words_of`)
        self.budget: int = data["budget"]
        self.total: int = data["total"]
        self.shards: dict[str, str] = data["shards"]
        self.personal: list[str] = data["personal"]
        self.files: dict[str, list[str]] = data["files"]
        self.parts: dict[str, object] = data["parts"]  # each shard's rows file as written (memory/recall_map.py)
        self.stale, self.stamp = set(data["stale"]), data["stamp"]

    def rows_of(self, shards: Iterable[str]) -> list[list[Any]] | None:
        """The rows of `shards` from their files, None when one is not of the digest the map names."""
        parts = [(shard, rows_of(self.cache_dir, shard)) for shard in shards]
        if any(part is None or part[0] != self.shards.get(shard) for shard, part in parts):
            return None
        return [row for _, part in parts if part for row in part[1]]

    def words_of(self, shards: Iterable[str]) -> list[tuple[str, str]] | None:
        """Each shard's words file but its first line, None when one is not of the digest the map names."""
        found = []
        for shard in shards:
            head, _, body = _text(path(self.cache_dir, shard, "words")).partition("\n")
            if head != f"{FORMAT} {self.shards[shard]}":
                return None
            found.append((shard, body))
        return found

    def notes_of(self, shards: Iterable[str]) -> list[Note] | None:
        """The notes of `shards`, None when one's rows are not of the digest the map names."""
        rows = self.rows_of(shards)
        return None if rows is None else self.made(rows)

    def made(self, rows: list[list[Any]]) -> list[Note]:
        notes = [Note(row) for row in rows]
        for note in notes if self.stale else ():
            note.stale = note.name in self.stale
        return notes


def path(cache_dir: str | os.PathLike[str], shard: str = "", kind: str = "json") -> str:
    """The map, or the rows of `shard` (`kind` "words": its words file)."""
    folder = os.path.join(os.fspath(cache_dir), "lh", "recall")
    return os.path.join(folder, "shards", f"{shard}.{kind}") if shard else os.path.join(folder, "map.json")


def words_text(digest: str, rows: Sequence[list[Any]]) -> str:
    """A shard's words file: a line of the format and the shard's digest, then each row's id and words,
    space-padded, one row a line."""
    return f"{FORMAT} {digest}\n" + "".join(f"{row[1]} {row[7]} \n" for row in rows)


def stamp(memory_dir: str, personal_dir: str, scanned: Mapping[str, Stat] | None = None) -> str:
    """The memory files but INDEX.md as they are now (`scanned`, when the caller has them), and the
    personal folder's, in one line."""
    found = dict(hookstate.scan(memory_dir) if scanned is None else scanned)
    found |= {f"local/{n}": s for n, s in hookstate.scan(personal_dir).items()}
    return " ".join(f"{n}:{s[0]}:{s[1]}:{s[2]}" for n, s in sorted(found.items()) if n != "INDEX.md")


def load(cache_dir: str | os.PathLike[str], now: str | None, whole: bool | None = True) -> Map | None:
    """The map when its values are of their types and (with `now`, a `stamp`) it describes the memory now:
    with `whole`, every row (each shard's rows of the digest the map names, for `strong`), else the notes
    of the `must` rows; `whole=None`, as a session start needs it: every note when the memory fits its budget."""
    try:
        data = _read(path(cache_dir))
        lists = [data["shards"].values(), data["personal"], *data["files"].values(), data["stale"]]
        valid = type(data["budget"]) is int and type(data["total"]) is int and all(type(v) is list for v in lists[1:])
        if not valid or not all(type(n) is str for v in lists for n in v) or now not in (None, data["stamp"]):
            return None
        if not all(_plain(n) for n in (*data["shards"], *data["personal"], *(r[0] for r in data["must"]))):
            return None  # a shard is a file of the memory folder, never a path
        found = Map(data, cache_dir)
        if whole:  # every shard's words, or none when one's are not of the digest the map names
            found.words = found.words_of(found.shards) or []
            return found if found.words or not found.shards else None
        whole = data["total"] <= data["budget"] if whole is None else whole
        notes = found.notes_of(found.shards) if whole else found.made(data["must"]) if _rows(data["must"]) else None
        if notes is None:
            return None
        found.notes = notes
        return found
    except (OSError, ValueError, RecursionError, TypeError, KeyError, AttributeError):
        return None


def _plain(name: object) -> bool:
    return type(name) is str and os.path.basename(name) == name and not name.startswith(".")


def rows_of(cache_dir: str | os.PathLike[str], shard: str) -> tuple[str, list[list[Any]]] | None:
    """The digest and rows of one shard's file when they are of their types, else None."""
    try:
        data = _read(path(cache_dir, shard)) if _plain(shard) else {}
        valid = type(data["digest"]) is str and _rows(data["entries"], shard)
        return (data["digest"], data["entries"]) if valid else None
    except (OSError, ValueError, RecursionError, TypeError, KeyError, AttributeError):
        return None


def _text(file: str) -> str:
    """A file of the map, never through a link nor anything but a regular file (ValueError)."""
    if os.path.islink(file) or os.path.islink(os.path.dirname(file)):
        raise ValueError(file)
    with open(os.open(file, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)), encoding="utf-8") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):  # a pipe planted here would hang the hook
            raise ValueError(file)
        return handle.read()


def _read(file: str) -> dict[str, Any]:
    """A JSON file of the map, parsed; ValueError when it is not of this format."""
    data = hookstate.loads(_text(file))
    if type(data) is not dict or data.get("format") != FORMAT:
        raise ValueError(file)
    return data


def _rows(rows: object, shard: str = "") -> bool:
    return type(rows) is list and all(
        type(row) is list and len(row) == len(_ROW) and all(map(isinstance, row, _ROW)) and row[0] == (shard or row[0])
        for row in rows
    )


def stem(word: str) -> str:
    """A light English suffix stripper for lowercase words, search.py's too; other strings come back as they are."""
    if len(word) <= 3 or not word.isalpha() or not word.isascii():
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "i"
    elif word.endswith("sses"):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("urations", "uration", "ations", "ation", "ingly", "edly", "ing", "ed", "ly", "ment", "ness", "ure"):
        base = word[: -len(suffix)]
        if word.endswith(suffix) and len(base) >= 3 and _VOWELS.intersection(base[:-1] or base):
            word = base
            if suffix in ("ing", "ed") and len(base) > 3 and base[-1] == base[-2] and base[-1] not in "lsz":
                word = base[:-1]
            break
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    if word.endswith("y") and len(word) > 3 and word[-2] not in _VOWELS:
        word = word[:-1] + "i"
    return word


def terms(text: str) -> list[str]:
    """The words notes and events are matched on, in order: stemmed, three characters or more, not
    common; an identifier (`libpq-fe.h`, `requests_mock`, `lockfileVersion`) whole and by its parts;
    of a path, its last part (a folder says where, the file what). Split without `re`: importing it
    would take a third of a prompt hook's time."""
    found = []
    for name in _names(text):
        if not (chunk := name.rpartition("/")[2].strip("_")):
            continue
        parts = [part.lower() for part in _parts(chunk)]
        if parts != [chunk.lower()] and not chunk.isdigit():
            found.append(chunk.lower())
        found += [word for part in parts if len(word := stem(part)) >= 3 and part not in _STOP and word not in _STOP]
    return found


def _names(text: str) -> list[str]:
    """What `\\w+(?:[./:-]\\w+)*` finds: runs of word characters (`str.isalnum`, and `_`), joined by
    single `. / : -` between two of them."""
    found, i, n = [], 0, len(text)
    while i < n:
        if not (text[i].isalnum() or text[i] == "_"):
            i += 1
            continue
        start = i
        while True:
            i += 1
            while i < n and (text[i].isalnum() or text[i] == "_"):
                i += 1
            if not (i + 1 < n and text[i] in "./:-" and (text[i + 1].isalnum() or text[i + 1] == "_")):
                break
        found.append(text[start:i])
    return found


def _parts(chunk: str) -> list[str]:
    """What `[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+` finds: the ASCII words of an identifier, split
    where its case changes (`HTTPServerError`: HTTP, Server, Error)."""
    found, i, n = [], 0, len(chunk)
    while i < n:
        j = i
        while j < n and "A" <= chunk[j] <= "Z":
            j += 1
        if j < n and "a" <= chunk[j] <= "z" and j - i >= 2:
            j -= 1  # the last capital opens the next word
        elif (j < n and "a" <= chunk[j] <= "z") or i == j:
            while j < n and "a" <= chunk[j] <= "z":
                j += 1
        if i == j:
            i += 1
        else:
            found.append(chunk[i:j])
            i = j
    return found


def strong(
    found: Map,
    words: Iterable[str],
    rule: tuple[float, float, float, float],
    most: int,
    alone: tuple[float, float, float] | None = None,
) -> list[Note]:
    """The notes that match `words` strongly by `rule`, best first, at most `most`: the best when it
    passes the rule and beats the next by its margin, and any as strong; or the best by itself when it
    passes `alone`. A shared word weighs its idf in the memory, a pair of words adjacent in both once more."""
    import math

    words, holding = list(words), dict[str, int]()  # no `collections`: a hook's import
    needles = {t: f" {t} " for t in dict.fromkeys(words)}
    held, matched, count = dict.fromkeys(needles, 0), [], 0
    for shard, body in found.words:  # a line: a note's id, then its words, space-padded
        count += body.count("\n")
        present = [(t, needle) for t, needle in needles.items() if needle in body]  # a word no note holds: skipped
        for at, line in enumerate(body.split("\n") if present else ()):
            if shared := [t for t, needle in present if needle in line]:
                matched.append((shard, at, line, shared))
                held.update((t, held[t] + 1) for t in shared)
    pairs = {(a, b) for a, b in pairwise(words) if held[a] and held[b] and b not in a}  # not a name and its part

    def idf(term: str) -> float:
        return math.log(1 + count / max(1, held[term] if term in held else holding[term]))

    scored = []
    for shard, at, line, shared in matched:
        ident, _, text = line.partition(" ")
        score = sum(map(idf, shared)) + sum(min(map(idf, pair)) for pair in pairs.intersection(pairwise(text.split())))
        scored.append((-score, f"{shard}/{ident}", shard, at, text))
    scored.sort(key=lambda r: r[:2])
    best, runner_up = -scored[0][0] if scored else 0.0, -scored[1][0] if len(scored) > 1 else 0.0
    floor, weight = math.log(1 + count), sum(map(idf, held))
    if alone and scored and best >= max(alone[0] * floor, alone[1] * weight, alone[2] * runner_up):
        return _rows_at(found, [scored[0]])
    if not scored or best < max(rule[0] * floor, rule[1] * weight, rule[3] * runner_up):
        return []
    for _, body in found.words:  # for the notes' own weights
        for line in body.split("\n"):
            holding.update((t, holding.get(t, 0) + 1) for t in set(line.split()[1:]))
    return _rows_at(
        found,
        [r for r in scored[:most] if -r[0] * rule[3] >= best and -r[0] >= rule[2] * sum(map(idf, set(r[4].split())))],
    )


def failure_notes(found: Map, output: str) -> list[Note]:
    """The note a failure's output meets strongly, when it shares a word with what the command printed:
    one met only through the command line (`$ make test`) says how to run it, not what went wrong."""
    lines = informative(output)
    notes = strong(found, terms(lines), FAILURE, 1, ALONE)
    said = set(terms("\n".join(line for line in lines.splitlines() if not line.startswith("$ "))))
    return [note for note in notes if said.intersection(note.row[7].split())]


def _rows_at(found: Map, picked: Sequence[tuple[float, str, str, int, str]]) -> list[Note]:
    """The notes `strong` picked, from their shards' rows; none when a row is not the one its words line names."""
    rows = {shard: found.rows_of([shard]) or [] for shard in {pick[2] for pick in picked}}
    chosen = [rows[shard][at] if at < len(rows[shard]) else None for _, _, shard, at, _ in picked]
    if any(row is None or f"{row[0]}/{row[1]}" != name for row, (_, name, *_) in zip(chosen, picked, strict=True)):
        return []
    return found.made([row for row in chosen if row])


def failure_output(event: Mapping[str, object]) -> str:
    """The failed shell command, `$ ` first, and what it printed ("" for none): Claude Code's `error`, a
    Codex `tool_response` that starts with a non-zero exit code, a Copilot tool result whose
    `resultType` is `failure`."""
    asked = [v.get("command") for v in (event.get("tool_input"), event.get("toolArgs")) if isinstance(v, dict)]
    command = "".join(f"$ {line}\n" for c in asked if isinstance(c, str) for line in c[:500].splitlines())
    # What lh prints quotes notes, failures' words among them: a command that runs lh (the first word of
    # one of its steps, or `python -m lean_harness`) never reads as a failure that exited 0.
    steps = "".join(";" if c in "|&;()\n" else c for c in "\n".join(c for c in asked if isinstance(c, str)))
    runs = [w for w in map(str.split, steps.split(";")) if w]
    lh = any(w[0] == "lh" or w[0].endswith("/lh") or ("-m", "lean_harness") in pairwise(w) for w in runs)
    return f"{command}{output}" if (output := _printed(event, lh)) else ""


def _printed(event: Mapping[str, object], quoting: bool) -> str:
    if isinstance(event.get("error"), str):
        return str(event["error"])
    piped = ""  # a success that printed what only a failure prints, when no field says it failed
    for name in ("tool_response", "toolResult"):
        value = event.get(name)
        text = " ".join(v for v in value.values() if isinstance(v, str)) if isinstance(value, dict) else value
        if isinstance(value, dict):
            code = value.get("exit_code", value.get("exitCode"))
            if value.get("resultType") == "failure" or (type(code) is int and code != 0):
                return str(text)
        elif isinstance(value, str):
            said = value[:200].lower().replace("exited with code", "exit code").partition("exit code")[2]
            if said and said.lstrip(" :").split(None, 1)[0:1] not in ([], ["0"]):
                return value
        if not piped and not quoting and isinstance(text, str) and any(sign in text for sign in PIPED):
            piped = text
    return piped


def touched(event: Mapping[str, object]) -> list[str]:
    """The files a tool call read or edited, as it names them (Codex's patches name them on `*** ` lines)."""
    found: list[str] = []
    for name in ("tool_input", "toolArgs"):
        value = event.get(name)
        if isinstance(value, dict):
            found += [v for k, v in value.items() if k in PATH_KEYS and isinstance(v, str)]
            patch = value.get("command") or value.get("input")
            if isinstance(patch, str):
                marks = ("*** Update File: ", "*** Add File: ", "*** Delete File: ")
                found += [line.partition(": ")[2].strip() for line in patch.splitlines() if line.startswith(marks)]
    return found[:20]


def informative(output: str) -> str:
    """The lines of a failure's output that say what went wrong: all but stack frames and exit codes
    of a short output, else those that say error, fatal, not found... (its last lines when none does)."""
    if len(output) > 2 * READ_BYTES:
        output = output[:READ_BYTES] + "\n" + output[-READ_BYTES:]
    lines = [line.strip() for line in output.splitlines() if not line.strip().lower().startswith(_FRAMES)]
    kept = (
        lines
        if len(lines) <= 20
        else [line for line in lines if line[:2] == "$ " or any(s in line.lower() for s in _SIGNS)]
    )
    kept = kept or lines[-10:]
    return "\n".join(kept if len(kept) <= 40 else kept[:20] + kept[-20:])  # the first error and the last


def key(raw: str) -> str:
    """A row's key: two checksums of the entry's lines (zlib, loaded only when a note is printed;
    hashlib's OpenSSL would cost a session start a tenth of a bare start)."""
    import zlib

    data = raw.encode("utf-8", "surrogatepass")
    return f"{zlib.crc32(data):08x}{zlib.adler32(data):08x}"


def entry_text(text: str, note: Note) -> str | None:
    """The note's text in its shard's `text`: the lines between the header lh writes for it (id first)
    and the next end marker, when those lines are the entry the map was made from (their hash is the
    row's key); else None, and the caller parses the shard (memory/shard.py)."""
    import re

    start = text.find(f'<!-- lh:entry id="{note.id}" ')
    end = text.find("<!-- /lh:entry", start)
    if start < 0 or end < 0 or text[start - 1 : start] not in ("", "\n", "\r"):
        return None
    lines = re.compile(r"\r\n|\r|\n")
    stop, first = lines.search(text, end), lines.search(text, start)
    raw = text[start : stop.end() if stop else len(text)]
    if first is None or key(raw) != note.key:
        return None
    body = text[first.end() : end]  # as the parser reads it: the last line's ending dropped, CR and CRLF made LF
    body = body[:-2] if body.endswith("\r\n") else body[:-1] if body.endswith(("\n", "\r")) else body
    return body.replace("\r\n", "\n").replace("\r", "\n")


def block(note: Note, limit: int) -> str:
    """A note as the hooks print it: `[shard/id]`, its stale mark, its text, cut to `limit` characters."""
    head = f"[{note.name}]" + (" (stale: it cites lines that changed)" if note.stale else "")
    text = note.text.strip()
    if len(head) + len(text) + 1 > limit:
        cut = CUT.format(shard=note.shard)
        text = text[: max(0, limit - len(head) - len(cut) - 1)].rstrip() + cut
    return f"{head}\n{text}"


def hand(cache_dir: str, root: str, session: str, kind: str, notes: Sequence[Note]) -> list[Note]:
    """The notes not yet handed over in this session as they are now, recorded as handed."""
    record = hookstate.session_path(cache_dir, "handed", session)
    handed = hookstate.load_handed(record)
    fresh = [note for note in notes if handed.get(note.name) != note.key]
    if fresh:
        lines = [f"{k} {v}" for k, v in sorted({**handed, **{n.name: n.key for n in fresh}}.items())]
        hookstate.save_lines(record, lines, root)
        from lean_harness import usage

        usage.record(root, kind, [(note.shard, note.id) for note in fresh], session)
    return fresh


def must_first(notes: Sequence[Note], budget: int, spare: int = 5) -> list[Note]:
    """The notes to follow a session start may show, newest first: those within the budget's share
    (`session_view` decides), and `spare` more for any withheld; their texts alone are read."""
    ordered, tokens, room = sorted((n for n in notes if n.must), key=lambda n: n.written, reverse=True), 0, 0
    for note in ordered:
        tokens, room = tokens + note.tokens, room + 1
        if tokens > budget // MUST_SHARE:
            break
    return ordered[: room + spare]


def session_view(found: Map, index_text: str, room: int, where: str) -> tuple[str, list[Note], bool]:
    """What a session start shows in `room` characters, its notes, and whether that is all of them:
    every note when all fit, else the notes to follow, newest first, in a share of the budget and
    half the room; then INDEX.md as far as it fits."""
    everything = "\n\n".join(block(note, START_CHARS) for note in found.notes)
    if found.notes and found.total <= found.budget and len(everything) + len(index_text) + 2 <= room:
        return f"{everything}\n\n{index_text}", list(found.notes), True
    shown, text, tokens = list[Note](), "", 0
    for note in must_first(found.notes, found.budget, spare=len(found.notes)):  # every one, newest first
        more = block(note, TOOL_CHARS) + "\n\n"
        if tokens + note.tokens > found.budget // MUST_SHARE or len(text + more) > room // 2:
            break
        shown, text, tokens = [*shown, note], text + more, tokens + note.tokens
    return text + cut_lines(index_text, room - len(text), where), shown, False


def cut_lines(text: str, room: int, where: str) -> str:
    """`text` whole when it fits `room` characters, else its first lines that fit and a line saying so."""
    if len(text) <= room:
        return text
    note = f"[… cut here to fit the hook's output; read the rest in {where}]"
    return f"{text[: max(0, room - len(note) - 1)].rpartition(chr(10))[0]}\n{note}"
