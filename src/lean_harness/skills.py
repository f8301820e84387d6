"""Agent Skills: find `skills/*/SKILL.md` in a plugin and check each against the specification.

The frontmatter is read with the one strict reader of the YAML subset (memory/intake/formats/frontmatter.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from lean_harness.errors import LhError
from lean_harness.memory.intake.formats import frontmatter
from lean_harness.memory.intake.formats.frontmatter import Value

FIELDS = ("name", "description", "license", "compatibility", "metadata", "allowed-tools")
NAME_RE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
MAX_NAME = 64
MAX_DESCRIPTION = 1024
MAX_COMPATIBILITY = 500
MAX_BODY_LINES = 500  # the specification's advice: details go in references/ files


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
    """The frontmatter fields of SKILL.md text and its body's line count; LhError outside lh's YAML subset."""
    front = frontmatter.split(text)
    if not front.present:
        raise LhError(f"{shown}:1: does not start with a --- line; open the frontmatter with ---")
    if front.problems:
        line, message = front.problems[0]
        raise LhError(f"{shown}:{line}: {message}")
    body = front.body.rstrip()
    return front.fields, body.count("\n") + 1 if body else 0


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
    except LhError as error:  # frontmatter outside the YAML subset lh reads
        return [Problem(error.message)]
    found = []
    unknown = sorted(set(fields) - set(FIELDS))
    if unknown:
        found.append(f"{where}: unknown field(s) {', '.join(unknown)}; allowed: {', '.join(FIELDS)}")
    name = fields.get("name")
    if not isinstance(name, str) or not name:
        found.append(f"{where}: no name; add name: {folder.name}")
    elif not NAME_RE.fullmatch(name) or len(name) > MAX_NAME:
        found.append(
            f"{where}: name {name!r} is not allowed; use lowercase letters, digits and single hyphens,"
            f" at most {MAX_NAME} characters, not starting or ending with a hyphen"
        )
    elif name != folder.name:
        found.append(f"{where}: name {name!r} differs from its folder {folder.name!r}; make them equal")
    description = fields.get("description")
    if not isinstance(description, str) or not description.strip():
        found.append(f"{where}: no description; add one saying what the skill does and when to use it")
    elif len(description) > MAX_DESCRIPTION:
        found.append(f"{where}: description is {len(description)} characters; shorten it to {MAX_DESCRIPTION}")
    for key in ("license", "compatibility", "allowed-tools"):
        if key in fields and not isinstance(fields[key], str):
            found.append(f"{where}: {key} is a mapping; write it as one string")
    compatibility = fields.get("compatibility")
    if isinstance(compatibility, str) and not 1 <= len(compatibility) <= MAX_COMPATIBILITY:
        found.append(f"{where}: compatibility must be 1 to {MAX_COMPATIBILITY} characters")
    if "metadata" in fields and not isinstance(fields["metadata"], dict):
        found.append(f"{where}: metadata is not a mapping; write it as indented key: value lines")
    problems = [Problem(message) for message in found]
    if body_lines >= MAX_BODY_LINES:
        problems.append(
            Problem(
                f"{where}: the body is {body_lines} lines; keep it under {MAX_BODY_LINES}"
                " and move details to references/ files",
                warning=True,
            )
        )
    return problems
