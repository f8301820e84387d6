"""Which of many texts hold each of many keywords, each keyword searched for once in all of them.

The scanners (secret_scan.py, injection.py) run a rule on a text only when one of the rule's
keywords occurs in it. Checking many texts at once (an import), each keyword is searched for
in the texts joined with a character no keyword holds, so an occurrence lies inside one text
and says exactly what a search of that text alone would say.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator, Sequence

SEP = "\x00"  # no keyword holds it (tests check every scanner's keywords)
RUN = 1 << 18  # characters of texts searched at once: enough to share the searches, few enough to stay cached


def holding(texts: Sequence[str], keywords: Iterable[str]) -> dict[str, list[int]]:
    """For each keyword that occurs, the indices of the texts that hold it, in order."""
    if len(texts) == 1:
        return {keyword: [0] for keyword in keywords if keyword in texts[0]}
    joined = SEP.join(texts)
    starts: list[int] = []
    at = 0
    for text in texts:
        starts.append(at)
        at += len(text) + 1
    last = len(texts) - 1
    hits: dict[str, list[int]] = {}
    for keyword in keywords:
        at = joined.find(keyword)
        if at < 0:
            continue
        found = hits[keyword] = []
        while at >= 0:  # one occurrence per text is enough: go on from the next text
            index = bisect.bisect_right(starts, at) - 1
            found.append(index)
            at = joined.find(keyword, starts[index + 1]) if index < last else -1
    return hits


def runs(texts: Sequence[str], size: int = RUN) -> Iterator[tuple[int, int]]:
    """(begin, end) of consecutive texts of about `size` characters in all (at least one text each)."""
    begin = 0
    while begin < len(texts):
        end, total = begin, 0
        while end < len(texts) and (end == begin or total < size):
            total += len(texts[end])
            end += 1
        yield begin, end
        begin = end
