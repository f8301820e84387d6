"""What an entry may hold: the one set of checks every write path applies (adr/0015-one-entry-rule-set.md).

The checks run on the canonical text (`shard.normalize_text`) and refuse a line with the parser's own
marker predicate (`shard.marker_kind`), so no text can hold a line the parser reads as structure.
Problems are messages without a location; `require` puts the caller's in front and raises.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lean_harness.errors import LhError, Refused
from lean_harness.memory.shard import CONTROL_RE, ID_RE, TAG_RE, marker_kind, normalize_text

if TYPE_CHECKING:
    from lean_harness.scanning.finding import Finding
    from lean_harness.scanning.masking import Described

MAX_ENTRY_BYTES = 64 * 1024
NOT_INSTRUCTIONS = "memory holds notes, not instructions to the agent"
SHARD_RE = re.compile(r"[a-z0-9][a-z0-9-]{0,39}")
RULE_RE = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")
_RULE_KINDS = (  # what an allowance names: --allow-secret, then --allow-directive
    "a scanner rule name; rule names are like aws-access-key",
    "an injection rule name; rule names are like framing-tag",
)
_MARKER_PROBLEM = {
    "open": "is an lh entry marker, which would split the entry; indent it or put it in a code span",
    "close": "is an lh entry marker, which would split the entry; indent it or put it in a code span",
    "conflict": "starts like a git conflict marker; indent it or put it in a code span",
}


@dataclass(frozen=True, slots=True)
class Checked:
    """An entry's fields in canonical form, and what is wrong with them (empty when nothing is)."""

    text: str
    tags: tuple[str, ...]
    key: str | None
    allow: tuple[str, ...]
    problems: tuple[str, ...]
    given: tuple[tuple[str, str], ...] = ()  # (what, value as given) of the id and tags, for the scanner
    directives: tuple[str, ...] = ()  # injection rules the entry may trip (--allow-directive)


def check(
    text: str,
    *,
    tags: Sequence[str] = (),
    key: str | None = None,
    allow: Sequence[str] = (),
    directives: Sequence[str] = (),
) -> Checked:
    """Every field of a new entry in canonical form, with every problem found in any of them."""
    body = normalize_text(text)
    problems = [*text_problems(body), *filter(None, map(tag_problem, tags))]
    if key is not None and (problem := id_problem(key)):
        problems.append(problem)
    named: list[tuple[str, ...]] = []  # the scanner rules allowed, then the injection rules
    for names, kind in zip((allow, [r for r in directives if r]), _RULE_KINDS, strict=True):
        problems += [f"{_quoted(r)} is not {kind}" for r in names if not RULE_RE.fullmatch(r)]
        named.append(tuple(sorted({r for r in names if RULE_RE.fullmatch(r)})))
    given = ([("the id", key)] if key is not None else []) + [("a tag", tag) for tag in tags]
    together = f"the {'id and ' if key is not None else ''}tags read together"
    given += [(together, " ".join(v for _, v in given))] if len(given) > 1 else []
    kept = tuple(sorted({tag.strip().lower() for tag in tags if tag_problem(tag) is None}))
    return Checked(body, kept, key, named[0], tuple(problems), tuple(given), named[1])


def require(checked: Checked, where: str) -> Checked:
    """The checked fields, or an LhError naming `where` and the first problem."""
    if checked.problems:
        raise LhError(f"{where}: {checked.problems[0]}")
    return checked


def text_problems(body: str) -> tuple[str, ...]:
    """What is wrong with canonical entry text: empty, too large, a marker line, a control character."""
    if not body.strip():
        return ("the entry text is empty; give the note to store",)
    problems: list[str] = []
    size = len(body.encode("utf-8"))
    if size > MAX_ENTRY_BYTES:
        problems.append(
            f"the entry is {size} bytes, over the {MAX_ENTRY_BYTES} byte limit;"
            " store a summary and point to the file that holds the rest"
        )
    for number, line in enumerate(body.split("\n"), start=1):
        kind = marker_kind(line)
        if kind is not None:
            problems.append(f"line {number} {_MARKER_PROBLEM[kind]}")
        control = CONTROL_RE.search(line)  # line breaks are all "\n" by now
        if control is not None:
            problems.append(
                f"line {number} holds the control character U+{ord(control.group()):04X};"
                " remove it (tab and newline are the only ones an entry may hold)"
            )
    return tuple(problems)


def tag_problem(tag: str) -> str | None:
    """Why a tag is not allowed, or None."""
    if TAG_RE.fullmatch(tag.strip().lower()):
        return None
    return (
        f"tag {_quoted(tag)} is not allowed; use letters, digits and . _ : / + -"
        " (at most 48 characters, starting with a letter or digit)"
    )


def id_problem(key: str) -> str | None:
    """Why an entry id is not allowed, or None."""
    if ID_RE.fullmatch(key):
        return None
    return (
        f"id {_quoted(key)} is not allowed; use letters, digits, '.', '_' and '-'"
        " (at most 64 characters, starting with a letter or digit)"
    )


def shard_problem(name: str, names: Sequence[str], config_path: str) -> str | None:
    """Why `name` is not a shard of this memory, or None."""
    if name in names:
        return None
    if not SHARD_RE.fullmatch(name):
        return (
            f"shard {_quoted(name)} is not a shard name; shard names are lowercase letters, digits and '-'"
            f" (shards in {config_path}: {', '.join(names)})"
        )
    return (
        f"unknown shard {name!r}; shards in {config_path}: {', '.join(names)}"
        f' (add one with "lh config set memory.shards.{name} DESCRIPTION")'
    )


def credential(checked: Checked) -> tuple[str, Finding] | None:
    """The first field that holds a credential, as (what, finding), or None (allowances cover the text only)."""
    return credentials([checked])[0]


def credentials(entries: Sequence[Checked]) -> list[tuple[str, Finding] | None]:
    """`credential` of each entry, every field of every entry scanned in one batch."""
    from lean_harness.scanning import credentials as credential_rules

    texts = [checked.text for checked in entries]
    allows: list[Sequence[str]] = [checked.allow for checked in entries]
    for checked in entries:
        texts += [value for _, value in checked.given]
        allows += [()] * len(checked.given)
    found = credential_rules.scan_many(texts, allows)
    results: list[tuple[str, Finding] | None] = []
    at = len(entries)  # the id and tags follow the texts, entry by entry
    for number, checked in enumerate(entries):
        first = (f"line {found[number][0].line}", found[number][0]) if found[number] else None
        for what, _ in checked.given:
            if first is None and found[at]:
                first = what, found[at][0]
            at += 1
        results.append(first)
    return results


def screened(entries: Sequence[Checked]) -> list[tuple[str, Finding, bool] | None]:
    """Per entry, in one batch: (what, finding, False) for a credential, ("line N", finding, True) for a directive."""
    from lean_harness.scanning import directives as directive_rules

    results: list[tuple[str, Finding, bool] | None] = [
        None if found is None else (*found, False) for found in credentials(entries)
    ]
    rest = [number for number, result in enumerate(results) if result is None]
    said = directive_rules.scan_many(
        [entries[number].text for number in rest], [entries[number].directives for number in rest]
    )
    for number, findings in zip(rest, said, strict=True):
        if findings:
            results[number] = f"line {findings[0].line}", findings[0], True
    return results


def why_refused(what: str, finding: Described, directive: bool) -> str:
    """`what` holds a credential, or speaks as the system or the user, said without a location."""
    from lean_harness.scanning.masking import looks_like

    return f"{reads_as(what, finding)}; {NOT_INSTRUCTIONS}" if directive else looks_like(what, finding)


def refuse_setting(key: str, value: str, where: str) -> None:
    """Raise Refused when a config key or value looks like a credential, or the value speaks as the system."""
    from lean_harness.scanning.masking import refusal

    found = screened([Checked(value, (), None, (), (), (("the key", key),))])[0]
    if found is None:
        return
    what, finding, directive = found
    if directive:
        refuse_directives(value, (), f"{where}: the value", hint="Say what the shard holds in other words")
    what = "the value" if what.startswith("line") else what
    raise Refused(refusal(f"{where}: {what}", finding, "file not changed"))


def refuse_credentials(
    checked: Checked, where: str, hint: str = "If it is not a secret, pass --allow-secret {rule}"
) -> None:
    """Raise Refused when any field of the entry looks like a credential; `hint` says what next."""
    found = credential(checked)
    if found is None:
        return
    what, finding = found
    hint = hint.format(rule=finding.rule) if what.startswith("line") else "Choose another value"
    from lean_harness.scanning.masking import refusal

    raise Refused(refusal(f"{where}: {what}", finding, f"nothing was written. {hint}"))


def reads_as(what: str, finding: Described) -> str:
    """`what` speaks as the system or the user (adr/0019), said with the finding's preview and rule."""
    return f'{what} reads as {finding.description} ("{finding.preview}", rule {finding.rule})'


def _quoted(value: str) -> str:
    """A user value for a message: quoted, control characters escaped, long values cut."""
    return repr(value if len(value) <= 40 else value[:39] + "…")


def refuse_secrets(
    text: str, allow: Sequence[str], where: str, hint: str = "If it is not a secret, pass --allow-secret {rule}"
) -> None:
    """Raise Refused when stored text (with its allowed rules) holds something like a credential."""
    refuse_credentials(Checked(text, (), None, tuple(allow), ()), where, hint)


def refuse_directives(
    text: str,
    allow: Sequence[str],
    where: str,
    hint: str = "If it only quotes such text, pass --allow-directive {rule}",
) -> None:
    """Raise Refused when `text` speaks as the system or the operator (adr/0019); `hint` says what next."""
    from lean_harness.scanning import directives as directive_rules

    findings = directive_rules.scan(text, allow=[rule for rule in allow if rule])
    if findings:
        first = findings[0]
        more = f" (and {len(findings) - 1} more)" if len(findings) > 1 else ""
        said = reads_as(f"{where}: line {first.line}", first)
        raise Refused(f"refused: {said}{more}; {NOT_INSTRUCTIONS}; nothing was written. {hint.format(rule=first.rule)}")
