"""Agent Skills: find `skills/*/SKILL.md` in a plugin and check each against the specification.

A SKILL.md opens with YAML frontmatter between two `---` lines, then a Markdown body. lh reads
the frontmatter with a small strict parser of the YAML subset skills use, instead of a YAML
library (adr/0013-doctor.md). The subset, one construct per line:

- `key: value` at the top level; keys are letters, digits, `-` and `_`; a key may occur once;
- values: a plain scalar (a `: ` or a trailing `:` in it is an error, as in YAML, so such text
  must be quoted; ` #` starts a comment; indented lines that follow continue it, joined by
  spaces), a double-quoted string (escapes `\\" \\\\ \\/ \\n \\t \\r \\0 \\uXXXX`), a single-quoted
  string (`''` is a quote), or a block scalar `|`, `|-`, `>`, `>-` on the indented lines below;
- `key:` with nothing after it, followed by indented `key: value` lines: a mapping of scalars
  (one level, as `metadata` is);
- blank lines and `#` comment lines.

Anything else (flow collections `[...]` `{...}`, lists, anchors, aliases, tags, tabs in
indentation, directives) is refused with the line number and what to write instead. Every
scalar is a string, as the specification's fields are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from lean_harness.errors import LhError

FIELDS = ("name", "description", "license", "compatibility", "metadata", "allowed-tools")
NAME_RE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_COMPATIBILITY = 500
MAX_BODY_LINES = 500  # the specification's advice: details go in references/ files

_KEY_RE = re.compile(r"([A-Za-z0-9_-]+):(?: (.*)|)$")
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "n": "\n", "t": "\t", "r": "\r", "0": "\0", " ": " "}
_PLAIN_START = (*"[]{}&*!|>'\"%@`,?", "- ", ": ")
_QUOTE_HINT = 'quote the value ("...") when it contains ": "'

Value = str | dict[str, str]


class FrontmatterError(LhError):
    """Frontmatter outside the YAML subset lh reads."""


@dataclass(frozen=True)
class Skill:
    """One SKILL.md: where, its frontmatter fields, and its body's length."""

    path: str
    folder: str
    fields: dict[str, Value]
    body_lines: int


@dataclass(frozen=True)
class Problem:
    """One rule a SKILL.md breaks; `warning` for advice rather than a requirement."""

    message: str
    warning: bool = False


def find(plugin: Path) -> list[Path]:
    """The skill folders under `plugin/skills`, sorted."""
    folder = plugin / "skills"
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))


def parse(text: str, shown: str) -> tuple[dict[str, Value], int]:
    """The frontmatter fields of SKILL.md text and the number of lines in its body."""
    lines = text.removeprefix("\ufeff").replace("\r\n", "\n").split("\n")
    if lines[0].rstrip() != "---":
        raise FrontmatterError(f"{shown}:1: does not start with a --- line; open the frontmatter with ---")
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].rstrip() == "---")
    except StopIteration:
        raise FrontmatterError(f"{shown}:1: the frontmatter is not closed; add a --- line after it") from None
    body = lines[end + 1 :]
    while body and not body[-1].strip():
        body.pop()
    return _mapping(lines, 1, end, shown), len(body)


def check(folder: Path, shown: str) -> list[Problem]:
    """Every rule of the specification that the skill in `folder` breaks."""
    path = folder / "SKILL.md"
    where = f"{shown}/SKILL.md"
    if not path.is_file():
        return [Problem(f"{shown}: no SKILL.md; add one with name and description frontmatter")]
    try:
        fields, body_lines = parse(path.read_text("utf-8"), where)
    except UnicodeDecodeError:
        return [Problem(f"{where}: not UTF-8 text; re-save it as UTF-8")]
    except FrontmatterError as error:
        return [Problem(error.message)]
    return rules(Skill(where, folder.name, fields, body_lines))


def rules(skill: Skill) -> list[Problem]:
    """The specification's rules applied to parsed frontmatter."""
    where, found = skill.path, []
    unknown = sorted(set(skill.fields) - set(FIELDS))
    if unknown:
        found.append(f"{where}: unknown field(s) {', '.join(unknown)}; allowed: {', '.join(FIELDS)}")
    name = skill.fields.get("name")
    if not isinstance(name, str) or not name:
        found.append(f"{where}: no name; add name: {skill.folder}")
    elif not NAME_RE.fullmatch(name) or len(name) > MAX_NAME:
        found.append(
            f"{where}: name {name!r} is not allowed; use lowercase letters, digits and single hyphens,"
            f" at most {MAX_NAME} characters, not starting or ending with a hyphen"
        )
    elif name != skill.folder:
        found.append(f"{where}: name {name!r} differs from its folder {skill.folder!r}; make them equal")
    description = skill.fields.get("description")
    if not isinstance(description, str) or not description.strip():
        found.append(f"{where}: no description; add one saying what the skill does and when to use it")
    elif len(description) > MAX_DESCRIPTION:
        found.append(f"{where}: description is {len(description)} characters; shorten it to {MAX_DESCRIPTION}")
    for key in ("license", "compatibility", "allowed-tools"):
        if key in skill.fields and not isinstance(skill.fields[key], str):
            found.append(f"{where}: {key} is a mapping; write it as one string")
    compatibility = skill.fields.get("compatibility")
    if isinstance(compatibility, str) and not 1 <= len(compatibility) <= MAX_COMPATIBILITY:
        found.append(f"{where}: compatibility must be 1 to {MAX_COMPATIBILITY} characters")
    if "metadata" in skill.fields and not isinstance(skill.fields["metadata"], dict):
        found.append(f"{where}: metadata is not a mapping; write it as indented key: value lines")
    problems = [Problem(message) for message in found]
    if skill.body_lines >= MAX_BODY_LINES:
        problems.append(
            Problem(
                f"{where}: the body is {skill.body_lines} lines; keep it under {MAX_BODY_LINES}"
                " and move details to references/ files",
                warning=True,
            )
        )
    return problems


def _mapping(lines: list[str], start: int, end: int, shown: str) -> dict[str, Value]:
    found: dict[str, Value] = {}
    index = start
    while index < end:
        line = lines[index]
        number = index + 1
        index += 1
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line[0] in " \t":
            raise FrontmatterError(f"{shown}:{number}: unexpected indented line; top-level keys start in column 1")
        match = _KEY_RE.match(line)
        if match is None:
            raise FrontmatterError(
                f"{shown}:{number}: expected key: value at the start of the line"
                " (the YAML subset of adr/0013-doctor.md)"
            )
        key, rest = match.group(1), (match.group(2) or "").strip()
        if key in found:
            raise FrontmatterError(f"{shown}:{number}: {key} appears twice; keep one")
        block = index
        while block < end and (not lines[block].strip() or lines[block][0] in " \t"):
            block += 1
        indented = lines[index:block]
        if rest in ("", "|", "|-", ">", ">-") or _comment_only(rest):
            if rest in ("", "#") or _comment_only(rest):
                found[key] = _nested(indented, index, shown) if any(x.strip() for x in indented) else ""
            else:
                found[key] = _block(indented, rest, number, shown)
            index = block
            continue
        value = _scalar(rest, number, shown)
        if any(x.strip() for x in indented):
            if rest[0] in "\"'":
                raise FrontmatterError(f"{shown}:{index + 1}: a quoted value must close on its own line")
            value = " ".join([value, *(_scalar(x.strip(), index + 1 + i, shown) for i, x in enumerate(indented))])
        found[key] = value
        index = block
    return found


def _comment_only(rest: str) -> bool:
    return rest.startswith("#")


def _nested(lines: list[str], first: int, shown: str) -> dict[str, str]:
    found: dict[str, str] = {}
    indent: int | None = None
    for offset, line in enumerate(lines):
        number = first + offset + 1
        if not line.strip() or line.strip().startswith("#"):
            continue
        width = len(line) - len(line.lstrip(" "))
        if line[:width].count("\t") or line[width] == "\t":
            raise FrontmatterError(f"{shown}:{number}: a tab in the indentation; indent with spaces")
        indent = width if indent is None else indent
        match = _KEY_RE.match(line[width:])
        if width != indent or match is None or not (match.group(2) or "").strip():
            raise FrontmatterError(
                f"{shown}:{number}: expected an indented key: value line (one level of nesting, as metadata has)"
            )
        if match.group(1) in found:
            raise FrontmatterError(f"{shown}:{number}: {match.group(1)} appears twice; keep one")
        found[match.group(1)] = _scalar((match.group(2) or "").strip(), number, shown)
    return found


def _block(lines: list[str], style: str, number: int, shown: str) -> str:
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    content = [line for line in lines if line.strip()]
    if not content:
        return ""
    indent = min(len(line) - len(line.lstrip(" ")) for line in content)
    if indent == 0:
        raise FrontmatterError(f"{shown}:{number + 1}: a block scalar's lines must be indented")
    texts = [line[indent:] for line in lines]
    if style.startswith("|"):
        text = "\n".join(texts)
    else:  # folded: lines join with spaces; a blank line is a line break
        text = "\n".join(" ".join(part.split("\n")) for part in "\n".join(texts).split("\n\n"))
    return text if style.endswith("-") else text + "\n"


def _scalar(text: str, number: int, shown: str) -> str:
    if text.startswith('"'):
        return _double(text, number, shown)
    if text.startswith("'"):
        match = re.fullmatch(r"'((?:[^']|'')*)'\s*(#.*)?", text)
        if match is None:
            raise FrontmatterError(f"{shown}:{number}: a single-quoted value is not closed on its line")
        return match.group(1).replace("''", "'")
    if text.startswith(_PLAIN_START) or text == "-":
        raise FrontmatterError(
            f"{shown}:{number}: {text[:12]!r} starts with a YAML indicator lh does not read; quote the value"
        )
    value = re.split(r"\s#", text, maxsplit=1)[0].rstrip()
    if ": " in value or value.endswith(":"):
        raise FrontmatterError(f"{shown}:{number}: ': ' inside a plain value is not valid YAML; {_QUOTE_HINT}")
    return value


def _double(text: str, number: int, shown: str) -> str:
    out: list[str] = []
    index = 1
    while index < len(text):
        char = text[index]
        if char == '"':
            rest = text[index + 1 :].strip()
            if rest and not rest.startswith("#"):
                raise FrontmatterError(f"{shown}:{number}: text after the closing quote; remove it")
            return "".join(out)
        if char == "\\":
            code = text[index + 1 : index + 2]
            if code == "u" and re.fullmatch(r"[0-9A-Fa-f]{4}", text[index + 2 : index + 6]):
                out.append(chr(int(text[index + 2 : index + 6], 16)))
                index += 6
                continue
            if code not in _ESCAPES:
                raise FrontmatterError(f"{shown}:{number}: unknown escape \\{code} in a double-quoted value")
            out.append(_ESCAPES[code])
            index += 2
            continue
        out.append(char)
        index += 1
    raise FrontmatterError(f"{shown}:{number}: a double-quoted value is not closed on its line")
