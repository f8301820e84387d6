"""The one engine both rule sets (credentials.py, directives.py) run on: a rule is data.

A rule's value is the first named group starting with ``v`` that took part in the match, or the
whole match. Patterns compile on first use: most scans need only a few rules.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

TYPE_CHECKING = False  # importing typing costs a command's start-up (adr/0025)
if TYPE_CHECKING:
    from typing import Literal


class Rule:
    """One shape of text to find. `keywords`: it runs only when one occurs in the lowered text, and
    one of `requires` too; `prefilter`: for a costly rule whose keywords occur in most prose, a short
    pattern every match holds (adr/0036); `rank`: of overlapping credentials the higher wins; `bounded`:
    its value must not continue a word; `view`: the text, lowercased, after a newline, or folded
    (fold.py); `extend_left`: the value starts this much before the match. Not a dataclass: the hooks load
    rules, and dataclasses would double their imports (adr/0036).
    """

    __slots__ = ("bounded", "description", "extend_left", "id", "keywords", "pattern", "prefilter", "rank",
                 "requires", "validate", "view")  # fmt: skip

    def __init__(
        self,
        id: str,
        description: str,
        pattern: str,
        keywords: tuple[str, ...] = (),
        validate: Callable[[str], bool] | None = None,
        rank: int = 3,
        *,
        bounded: bool = False,
        view: Literal["text", "lowered", "lines", "folded"] = "text",
        extend_left: int = 0,
        requires: tuple[str, ...] = (),
        prefilter: str = "",
    ) -> None:
        self.id, self.description, self.pattern, self.keywords = id, description, pattern, keywords
        self.validate, self.rank, self.bounded, self.view = validate, rank, bounded, view
        self.extend_left, self.requires, self.prefilter = extend_left, requires, prefilter


_compiled: dict[str, tuple[re.Pattern[str], tuple[str, ...]]] = {}


def prefiltered(rule: Rule, view: str) -> bool:
    """False when the view lacks the rule's prefilter (`re` compiles and caches it on first use)."""
    return not rule.prefilter or re.search(rule.prefilter, view) is not None


def gated(rule: Rule, lowered: str) -> bool:
    """Whether the rule's keywords let it run on a text (lowercased)."""
    if rule.keywords and not any(keyword in lowered for keyword in rule.keywords):
        return False
    return not rule.requires or any(keyword in lowered for keyword in rule.requires)


def bounded(text: str, start: int) -> bool:
    """A value at `start` does not continue a word: start of text, a non-alphanumeric, an escape."""
    if start == 0 or not text[start].isalnum() or not text[start - 1].isascii() or not text[start - 1].isalnum():
        return True
    before = text[max(0, start - 3) : start]
    return before[-2:] in ("\\n", "\\r", "\\t") or (
        len(before) == 3 and before[0] == "%" and all(c in "0123456789abcdefABCDEF" for c in before[1:])
    )


def spans(rule: Rule, view: str, source: str, shift: int = 0) -> Iterator[tuple[int, int]]:
    """Spans in `source` (`view`'s text, `shift` characters on) of the rule's values, bounded and validated."""
    if rule.id not in _compiled:
        pattern = re.compile(rule.pattern)
        groups = sorted((i, n) for n, i in pattern.groupindex.items() if n.startswith("v"))
        _compiled[rule.id] = pattern, tuple(name for _, name in groups)
    pattern, names = _compiled[rule.id]
    for match in pattern.finditer(view):
        start, end = match.start() - rule.extend_left, match.end()
        for name in names:
            if match.group(name) is not None:
                start, end = match.span(name)
                break
        start, end = start - shift, end - shift
        if end <= start or (rule.bounded and not bounded(source, start)):
            continue
        if rule.validate is None or rule.validate(source[start:end]):
            yield start, end


def lower(text: str) -> str:
    """Lowercase without moving offsets (a few non-ASCII letters change length)."""
    lowered = text.lower()
    return lowered if len(lowered) == len(text) else text.translate({c: c + 32 for c in range(65, 91)})
