"""The folded view of a text that directive rules read, and where each of its characters came from.

The view undoes the usual disguises, lowercased: NFKC forms, Cyrillic and Greek look-alikes,
invisible characters, Markdown emphasis (`ig**nore**`) and HTML comments (read as a space).
`origin[i]` is the place in the text of the view's i-th character (and of its end).
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right

# Letters that render like Latin letters, by code point (lowercase: the view is lowercased first).
_LOOKALIKES = {ord(char): latin for latin, chars in (
    ("a", "аαɑ"), ("b", "вβ"), ("c", "сϲ"), ("d", "ԁ"), ("e", "еεё"), ("g", "ɡ"), ("h", "һ"), ("i", "іιıї"),
    ("j", "ј"), ("k", "кκ"), ("l", "ӏ"), ("m", "м"), ("n", "ոη"), ("o", "оοσ"), ("p", "рρ"), ("q", "ԛ"),
    ("s", "ѕ"), ("t", "тτ"), ("u", "υ"), ("v", "νѵ"), ("w", "ԝѡ"), ("x", "хχ"), ("y", "уγ"), ("z", "ᴢ"),
) for char in chars}  # fmt: skip
# Characters a reader does not see: zero-width, soft hyphen, bidirectional controls, tag characters.
_INVISIBLE = "[\u00ad\u034f\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\U000e0000-\U000e007f]"
# Markup a renderer hides: an HTML comment, emphasis marks touching a word.
# Underscores mark emphasis only at a word's edge (`im_start` keeps its own); asterisks anywhere.
_MARKUP = r"<!--.*?-->|(?<=\w)\*{1,3}|\*{1,3}(?=\w)|(?<!\w)_{1,3}(?=\w)|(?<=\w)_{1,3}(?!\w)|~~"
_cut: list[re.Pattern[str]] = []


class Origin:
    """Where each character of a folded view came from, as runs mapped one to one (step 1) or onto
    one place (step 0): a place per character would cost a shard's worth of integers."""

    __slots__ = ("_places", "_starts", "_steps")

    def __init__(self) -> None:
        self._starts: list[int] = []  # where each run starts in the view
        self._places: list[int] = []  # and in the text
        self._steps: list[int] = []

    def add(self, at: int, place: int, step: int) -> None:
        self._starts.append(at)
        self._places.append(place)
        self._steps.append(step)

    def __getitem__(self, index: int) -> int:
        run = bisect_right(self._starts, index) - 1
        return self._places[run] + (index - self._starts[run]) * self._steps[run]


def folded(text: str) -> tuple[str, Origin]:
    """The folded view of `text`, and the place in `text` of each of its characters and of its end."""
    if not _cut:
        _cut.append(re.compile(f"{_INVISIBLE}|{_MARKUP}", re.DOTALL))
    cut = _cut[0]
    origin = Origin()
    if text.isascii() and not cut.search(text):
        origin.add(0, 0, 1)
        return text.lower(), origin
    parts: list[str] = []
    size = done = 0
    for match in [*cut.finditer(text), None]:
        upto = match.start() if match else len(text)
        if text[done:upto].isascii():
            origin.add(size, done, 1)
            parts.append(text[done:upto].lower())
            size += upto - done
            upto = done  # nothing left to fold one by one
        for at in range(done, upto):
            char = text[at]
            char = (
                char.lower() if char.isascii() else unicodedata.normalize("NFKC", char).lower().translate(_LOOKALIKES)
            )
            origin.add(size, at, 0)
            parts.append(char)
            size += len(char)
        if match:
            if match.group().startswith("<!--"):  # a comment parts the words on either side
                origin.add(size, match.start(), 0)
                parts.append(" ")
                size += 1
            done = match.end()
    origin.add(size, len(text), 0)
    return "".join(parts), origin
