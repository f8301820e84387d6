"""The one way lh shows anyone's text: `mask(text)`, made safe to print or store, `neutralise` for
framing alone, and `refusal`, the one way a refused credential or directive is said."""

from __future__ import annotations

import re

TYPE_CHECKING = False  # importing typing costs a command's start-up (adr/0025)
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Protocol

    class Described(Protocol):
        """A finding, or a record of one: its rule, what the rule finds, a preview safe to show."""

        @property
        def rule(self) -> str: ...
        @property
        def description(self) -> str: ...
        @property
        def preview(self) -> str: ...


# Control characters a terminal acts on (escape sequences, carriage return, backspace, C1 codes).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_neutral: list[re.Pattern[str]] = []
_MARKS = ("<", "[inst]", "[/inst]", "[system_prompt]", "[available_tools]", "[tool_")


def mask(text: str, line: bool = False) -> str:
    """`text` with every credential masked, framing tags and chat tokens escaped and terminal control characters
    shown as `U+001B` (with `line`, a value within a line such as a file name: line breaks and tabs too)."""
    shown = mask_many([text])[0]
    return shown.replace("\n", "U+000A").replace("\t", "U+0009") if line else shown


def mask_many(texts: Sequence[str]) -> list[str]:
    """`mask` of each text, the credentials of all of them looked for in one batch."""
    from lean_harness.scanning import credentials  # only when text from outside lh is shown

    shown = []
    for given, found in zip(texts, credentials.scan_many(texts), strict=True):
        text = neutralise(credentials.hide(given, found) if found else given)
        shown.append(_CONTROL.sub(lambda m: f"U+{ord(m.group()):04X}", text) if _CONTROL.search(text) else text)
    return shown


def leaking(entries: Sequence[Sequence[str]]) -> list[bool]:
    """Whether each entry's names (its id, tags or cited paths) hold a credential, scanned joined and each on its
    own (one name can hide another's, or lend it context): lh's caches and records leave such an entry out."""
    from lean_harness.scanning import credentials

    return [any(credentials.scan_many([" ".join(names), *names])) for names in entries]


def neutralise(text: str) -> str:
    """`text` with framing tags and chat-template tokens escaped (`<` becomes `&lt;`), else unchanged:
    the part of `mask` that text lh wrote itself (INDEX.md, entries already checked) needs."""
    # An HTML comment's "<!--" starts no tag or token, and INDEX.md has several: skip compiling for it.
    lowered = text.lower().replace("<!--", "")
    if not any(mark in lowered for mark in _MARKS):
        return text
    if not _neutral:
        from lean_harness.scanning.directives import NEUTRAL

        _neutral.append(re.compile(NEUTRAL, re.IGNORECASE))
    return _neutral[0].sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    tag = match.group()
    if tag.startswith("["):
        return tag.replace("[", "&#91;").replace("]", "&#93;")
    return tag.replace("<", "&lt;").replace(">", "&gt;")


def looks_like(what: str, finding: Described) -> str:
    """`what` looks like a credential, said with the finding's masked preview and rule."""
    return f"{what} looks like {finding.description} ({finding.preview}, rule {finding.rule})"


def refusal(what: str, finding: Described, then: str) -> str:
    """The message of a refused credential: `refused: WHAT looks like ... (preview, rule R); THEN`
    (`what` says where first: "notes.md: line 3")."""
    return f"refused: {looks_like(what, finding)}; {then}"
