"""The one reader of the YAML frontmatter that SKILL.md files and memory files open with.

A block runs from a first `---` line to the next. lh reads a subset of YAML, one construct a line
(adr/0013-doctor.md): top-level `key: value` pairs; plain scalars (` #` starts a comment, indented
lines continue them), double-quoted (escapes `\\" \\\\ \\/ \\n \\t \\r \\0 \\uXXXX`) and single-quoted
strings, block scalars (`|`, `|-`, `>`, `>-`); `key:` over one level of indented scalars (as
`metadata` is); blank and comment lines. Strict mode (skills, pending notes) reports anything
else, a repeated key and `: ` in a plain value with its line; lenient mode (imports) takes such a
value whole, lets the last of a repeated key win, reads an unclosed or keyless block as text and
drops only the keys it cannot read, each named (adr/0014-import-and-inbox.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

Value = str | dict[str, str]

_KEY_RE = re.compile(r"([A-Za-z0-9_-]+):(?: (.*)|)$")
_DOUBLE_RE = re.compile(r'"((?:[^"\\]|\\.?)*)(")?(.*)', re.DOTALL)
_ESCAPE_RE = re.compile(r"\\(u[0-9A-Fa-f]{4}|.?)", re.DOTALL)
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "n": "\n", "t": "\t", "r": "\r", "0": "\0", " ": " "}
_PLAIN_START = (*"[]{}&*!|>'\"%@`,?", "- ", ": ")
_QUOTE_HINT = 'quote the value ("...") when it contains ": "'
_BLOCK_STYLES = ("|", "|-", ">", ">-")
NOT_CLOSED = "the frontmatter is not closed; add a --- line after it"


@dataclass(frozen=True)
class Frontmatter:
    """The fields of a frontmatter block, the body after it, and (line, message) problems.

    In strict mode a problem means the block was not read as written; in lenient mode each
    problem names a key that was left out and why."""

    fields: dict[str, Value]
    body: str
    problems: tuple[tuple[int, str], ...] = ()
    present: bool = True
    dropped: tuple[str, ...] = ()  # lenient: the keys left out ('metadata.x' for a nested one)

    def strings(self) -> dict[str, str]:
        """The fields whose values are strings (not mappings)."""
        return {key: value for key, value in self.fields.items() if isinstance(value, str)}

    def mapping_problem(self) -> str | None:
        """For readers of one value per key: what is wrong when a field is a mapping."""
        nested = sorted(key for key, value in self.fields.items() if not isinstance(value, str))
        return f"{nested[0]} is a mapping; give it one value on its line" if nested else None


class _Unread(Exception):
    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line, self.message = line, message


def split(text: str, *, lenient: bool = False) -> Frontmatter:
    """The frontmatter at the start of `text` (a BOM and CRLF endings read as plain); `present` is False without one."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    lines = text.split("\n")
    if lines[0].rstrip() != "---":
        return Frontmatter({}, text, present=False)
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() == "---"), None)
    if end is None:
        if lenient:
            return Frontmatter({}, text, ((1, f"{NOT_CLOSED}; the whole file was read as text"),), present=False)
        return Frontmatter({}, text, ((1, NOT_CLOSED),))
    problems: list[tuple[int, str, str]] = []  # (line, message, the key left out or '')
    fields = _mapping(lines, end, lenient, problems)
    if lenient and problems and not any(_KEY_RE.match(line) for line in lines[1:end]):
        return Frontmatter({}, text, present=False)  # prose between two thematic breaks
    found = tuple((line, message) for line, message, _ in problems)
    dropped = tuple(key for _, _, key in problems if key)
    return Frontmatter(fields, "\n".join(lines[end + 1 :]), found, dropped=dropped)


def _mapping(lines: list[str], end: int, lenient: bool, problems: list[tuple[int, str, str]]) -> dict[str, Value]:
    found: dict[str, Value] = {}
    last = ""
    index = 1
    while index < end:
        line, number = lines[index], index + 1
        index += 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        block = index
        while block < end and (not lines[block].strip() or lines[block][0] in " \t"):
            block += 1
        indented, index = lines[index:block], block
        if line[0] in " \t":
            _report(problems, lenient, number, "unexpected indented line; top-level keys start in column 1", "")
            continue
        match = _KEY_RE.match(line)
        if match is None:
            message = "expected key: value at the start of the line (the YAML subset of adr/0013-doctor.md)"
            if lenient and line.startswith("- ") and last:  # a list under the key above, not indented
                if found.pop(last, None) is not None:
                    _report(problems, lenient, number, "a list is not read", last)
            else:
                _report(problems, lenient, number, message, "")
            continue
        key, rest = match.group(1), (match.group(2) or "").strip()
        last = key
        if key in found and not lenient:
            problems.append((number, f"{key} appears twice; keep one", ""))
            continue
        if key in found:
            problems.append((number, f"{key} appears twice; the last one was read", ""))
        try:
            found[key] = _value(rest, indented, number, lenient, problems, key)
        except _Unread as error:
            found.pop(key, None)
            _report(problems, lenient, error.line, error.message, key)
    return found


def _report(problems: list[tuple[int, str, str]], lenient: bool, number: int, message: str, key: str) -> None:
    if lenient:
        message += f"; {key} was not read" if key else "; the line was not read"
    problems.append((number, message, key if lenient else ""))


def _value(
    rest: str, indented: list[str], number: int, lenient: bool, problems: list[tuple[int, str, str]], key: str
) -> Value:
    if rest in ("", "#") or rest.startswith("#"):
        return _nested(indented, number, lenient, problems, key) if any(x.strip() for x in indented) else ""
    if rest in _BLOCK_STYLES:
        return _block(indented, rest, number)
    value = _scalar(rest, number, lenient)
    if any(x.strip() for x in indented):
        if rest[0] in "\"'":
            raise _Unread(number + 1, "a quoted value must close on its own line")
        parts = [value, *(_scalar(x.strip(), number + 1 + i, lenient) for i, x in enumerate(indented) if x.strip())]
        value = " ".join(parts)
    return value


def _nested(
    lines: list[str], first: int, lenient: bool, problems: list[tuple[int, str, str]], parent: str
) -> dict[str, str]:
    # Each value as its parts, joined once at the end: a value continued over many lines is
    # read in linear time (adding to a string held in a dict copies it every time).
    found: dict[str, list[str]] = {}
    indent: int | None = None
    previous: str | None = None
    for number, line in enumerate(lines, start=first + 1):
        if not line.strip() or line.strip().startswith("#"):
            continue
        width = len(line) - len(line.lstrip(" "))
        if line[:width].count("\t") or line[width] == "\t":
            raise _Unread(number, "a tab in the indentation; indent with spaces")
        indent = width if indent is None else indent
        if lenient and width > indent:  # under a key of this mapping: a deeper level or a continued value
            if previous is not None and previous in found and found[previous][0]:
                found[previous].append(_scalar(line.strip(), number, lenient))
            elif previous is not None:
                found.pop(previous, None)
                _report(problems, lenient, number, "a second level of nesting is not read", f"{parent}.{previous}")
                previous = None
            continue
        match = _KEY_RE.match(line[width:])
        if lenient and width == indent and match is not None:
            previous = match.group(1)
            try:
                found[previous] = [_scalar((match.group(2) or "").strip(), number, lenient)]
            except _Unread as error:
                found.pop(previous, None)
                _report(problems, lenient, error.line, error.message, f"{parent}.{previous}")
                previous = None
            continue
        if width != indent or match is None or not (match.group(2) or "").strip():
            raise _Unread(number, "expected an indented key: value line (one level of nesting, as metadata has)")
        if match.group(1) in found:
            raise _Unread(number, f"{match.group(1)} appears twice; keep one")
        found[match.group(1)] = [_scalar((match.group(2) or "").strip(), number, lenient)]
    return {key: " ".join(parts) for key, parts in found.items()}


def _block(lines: list[str], style: str, number: int) -> str:
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    content = [line for line in lines if line.strip()]
    if not content:
        return ""
    indent = min(len(line) - len(line.lstrip(" ")) for line in content)
    if indent == 0:
        raise _Unread(number + 1, "a block scalar's lines must be indented")
    texts = [line[indent:] for line in lines]
    if style.startswith("|"):
        text = "\n".join(texts)
    else:  # folded: lines join with spaces; a blank line is a line break
        text = "\n".join(" ".join(part.split("\n")) for part in "\n".join(texts).split("\n\n"))
    return text if style.endswith("-") else text + "\n"


def _scalar(text: str, number: int, lenient: bool = False) -> str:
    if text.startswith('"'):
        return _double(text, number)
    if text.startswith("'"):
        match = re.fullmatch(r"'((?:[^']|'')*)'\s*(#.*)?", text)
        if match is None:
            raise _Unread(number, "a single-quoted value is not closed on its line")
        return match.group(1).replace("''", "'")
    if text.startswith(_PLAIN_START) or text == "-":
        if lenient:  # no preview: an import's values are not shown, and one may be a credential
            raise _Unread(number, f"a value starting with {text[0]!r} (a YAML indicator lh does not read)")
        raise _Unread(number, f"{text[:12]!r} starts with a YAML indicator lh does not read; quote the value")
    value = re.split(r"\s#", text, maxsplit=1)[0].rstrip()
    if not lenient and (": " in value or value.endswith(":")):
        raise _Unread(number, f"': ' inside a plain value is not valid YAML; {_QUOTE_HINT}")
    return value


def _double(text: str, number: int) -> str:
    quoted, closed, rest = _DOUBLE_RE.findall(text)[0]  # it matches every text that opens with a quote

    def unescaped(escape: re.Match[str]) -> str:
        code = escape.group(1)
        if len(code) == 5:  # uXXXX
            return chr(int(code[1:], 16))
        if code not in _ESCAPES:
            raise _Unread(number, f"unknown escape \\{code} in a double-quoted value")
        return _ESCAPES[code]

    value = _ESCAPE_RE.sub(unescaped, quoted)  # an unknown escape is named before a missing quote
    if not closed:
        raise _Unread(number, "a double-quoted value is not closed on its line")
    if rest.strip() and not rest.strip().startswith("#"):
        raise _Unread(number, "text after the closing quote; remove it")
    return value
