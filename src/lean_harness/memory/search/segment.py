"""A segment of the search index: what ranking needs of one shard's entries, apart from every other shard.

An entry's impact on a term depends on every entry of the memory (the average field lengths), and
so do a term's document frequency and its learned associations; what an entry holds does not. A
segment keeps only the latter, so one shard's segment stays valid while other shards change
(adr/0031-one-search-cache-per-shard.md). The index (memory/search.py) combines the statistics of
all its segments when a query needs them and ranks exactly as an index built over all their
entries at once.

Entries are numbered in id order. A term's posting is the bytes of an `array('I')` of
entry numbers, then one of shape numbers: a shape is (body, title, other frequency, body length,
title length), which fixes the term's impact in the entry once the averages are known; shapes are
sorted and stored as five `array('d')` values each. The postings are one blob in the order of the
sorted vocabulary, with each term's end offset as an `array('I')` (`Lexicon`). The forward list is
`count + 1` offsets, then each entry's terms as numbers in the sorted vocabulary. Spans are each
entry's (start, end) byte offsets in its shard file, or empty. Keys are each entry's 32-byte key (the
SHA-256 of what it was made from, memory/search_cache.py), or empty: `rows_of` gives back the rows of
a segment by key, so a shard that changed reuses what it keeps of the entries that did not.
"""

from __future__ import annotations

import json
import math
import sys
from array import array
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate, pairwise


@dataclass(frozen=True, slots=True)
class Row:
    """One entry as a segment takes it: what it is, where it is, and its weighted terms."""

    id: str
    shard: str
    created: str
    tags: tuple[str, ...]
    body_len: int
    title_len: int
    weights: dict[str, tuple[float, float, float]]
    span: tuple[int, int] = (0, 0)
    key: bytes = b""  # 32 bytes that name what the row was made from, or none


KEY_SIZE = 32


class Lexicon:
    """A segment's posting lists by term: its sorted vocabulary, and their bytes in one blob."""

    __slots__ = ("blob", "ends", "terms")

    def __init__(self, terms: list[str], ends: bytes, blob: bytes) -> None:
        self.terms, self.blob = terms, blob
        self.ends = memoryview(ends).cast("I")  # where each term's posting list ends in the blob

    @classmethod
    def of(cls, postings: dict[str, bytes]) -> Lexicon:
        """The lexicon of the posting lists `postings` (in any order)."""
        terms = sorted(postings)
        ends = array("I", accumulate(len(postings[term]) for term in terms))
        return cls(terms, ends.tobytes(), b"".join(postings[term] for term in terms))

    def place(self, term: str) -> int:
        """The term's number in the vocabulary, or -1 when no entry of the segment holds it."""
        terms = self.terms
        at = bisect_left(terms, term)
        return at if at < len(terms) and terms[at] == term else -1

    def get(self, term: str, default: bytes = b"") -> bytes:
        """The term's posting list, or `default` when no entry of the segment holds it."""
        at = self.place(term)
        return default if at < 0 else self.blob[self.ends[at - 1] if at else 0 : self.ends[at]]

    def __contains__(self, term: object) -> bool:
        return isinstance(term, str) and self.place(term) >= 0


def holding(lexicons: Sequence[Lexicon], term: str) -> int:
    """How many entries of these lexicons' segments hold the term (8 bytes an entry in a posting)."""
    size = 0  # `Lexicon.place` inlined: lint asks this of thousands of terms
    for lexicon in lexicons:
        terms, ends = lexicon.terms, lexicon.ends
        at = bisect_left(terms, term)
        if at < len(terms) and terms[at] == term:
            size += ends[at] - (ends[at - 1] if at else 0)
    return size // 8


@dataclass(slots=True, eq=False)
class Segment:
    """The raw statistics of one shard's entries; see the module docs for the layout."""

    ids: list[str]
    created: list[str]
    shard: str
    tags: dict[str, bytes]
    body_total: int
    title_total: int
    shapes: bytes
    postings: Lexicon
    forward: bytes
    spans: bytes
    keys: bytes = b""

    def __len__(self) -> int:
        return len(self.ids)

    def docs(self, term: str) -> tuple[array[int], array[int]]:
        """The entry numbers holding `term` and the shape of each."""
        posting = self.postings.get(term, b"")
        half = len(posting) // 2
        docs, shapes = array("I"), array("I")
        docs.frombytes(posting[:half])
        shapes.frombytes(posting[half:])
        if docs and (max(docs) >= len(self.ids) or max(shapes) >= len(self.shapes) // 40):
            raise ValueError("search index is corrupt (a posting list past its entries)")
        return docs, shapes

    def span(self, doc: int) -> tuple[int, int]:
        if not self.spans:
            return 0, 0
        spans = memoryview(self.spans).cast("Q")
        return spans[2 * doc], spans[2 * doc + 1]

    def to_bytes(self, head: dict[str, object]) -> bytes:
        """The segment as `from_bytes` reads it: one line of JSON (`head`'s values, the strings and
        counts, and the size of each binary field), then the binary fields one after the other."""
        fields = [self.shapes, self.postings.ends.tobytes(), self.postings.blob, self.forward, self.spans, self.keys]
        fields += [self.tags[tag] for tag in self.tags]
        values = {
            **head,
            "ids": self.ids,
            "created": self.created,
            "terms": self.postings.terms,
            "tags": list(self.tags),
            "totals": [self.body_total, self.title_total],
            "sizes": [len(field) for field in fields],
        }
        return json.dumps(values, separators=(",", ":")).encode("ascii") + b"\n" + b"".join(fields)


def from_bytes(data: bytes, shard: str) -> tuple[dict[str, object], Segment]:
    """The head and the segment of shard `shard` that `Segment.to_bytes` gave; ValueError for any value
    not of its type, size or order (a file in the repository may hold anything)."""
    end = data.find(b"\n")
    try:
        values = json.loads(data[:end]) if end >= 0 else None
    except (ValueError, RecursionError):
        values = None
    if not isinstance(values, dict) or not set(values) >= _FIELDS:
        raise ValueError("search index is corrupt (unexpected layout)")
    ids, created, terms, tags = values["ids"], values["created"], values["terms"], values["tags"]
    totals, sizes = values["totals"], values["sizes"]
    if not (_strings(ids) and _strings(created) and _strings(terms) and _strings(tags)):
        raise ValueError("search index is corrupt (a list that is not of strings)")
    if not (_counts(totals) and len(totals) == 2 and _counts(sizes) and len(sizes) == 6 + len(tags)):
        raise ValueError("search index is corrupt (a count that is not one)")
    if sum(sizes) != len(data) - end - 1:
        raise ValueError("search index is corrupt (fields of the wrong size)")
    fields = [data[start:stop] for start, stop in pairwise(accumulate(sizes, initial=end + 1))]
    shapes, ends, blob, forward, spans, keys = fields[:6]
    tag_docs = dict(zip(tags, fields[6:], strict=True))
    count = len(ids)
    offsets = memoryview(forward)[: 4 * (count + 1)].cast("I") if len(forward) >= 4 * (count + 1) else None
    if not (
        len(created) == count
        and ids == sorted(ids)
        and terms == sorted(terms)
        and len(set(terms)) == len(terms)
        and tags == sorted(set(tags))
        and len(spans) in (0, 16 * count)
        and len(keys) in (0, KEY_SIZE * count)
        and len(shapes) % 40 == 0
        and len(ends) == 4 * len(terms)
        and (memoryview(ends).cast("I")[-1] if terms else 0) == len(blob)
        and all(len(docs) % 4 == 0 and max(memoryview(docs).cast("I"), default=0) < count for docs in tag_docs.values())
        and len(forward) % 4 == 0
        and offsets is not None
        and offsets[0] == 0
        and offsets[-1] == len(forward) // 4 - count - 1
        and offsets.tolist() == sorted(offsets.tolist())
    ):
        raise ValueError("search index is corrupt (values that do not fit together)")
    ends_list = memoryview(ends).cast("I").tolist()
    lowest = ends[0::4] if sys.byteorder == "little" else ends[3::4]  # each end's lowest byte
    if ends_list != sorted(ends_list) or lowest.translate(_LOW_BITS) != bytes(len(lowest)):
        raise ValueError("search index is corrupt (a posting list of the wrong size)")  # 8 bytes an entry
    # What is left, each entry's term numbers and each posting's entry and shape numbers, is checked
    # where it is read (`Segment.docs`), or fails there with IndexError (memory/query.py `using_index`).
    (body, title), postings = totals, Lexicon(terms, ends, blob)
    return values, Segment(ids, created, shard, tag_docs, body, title, shapes, postings, forward, spans, keys)


_FIELDS = frozenset(("ids", "created", "terms", "tags", "totals", "sizes"))
_LOW_BITS = bytes(n & 7 for n in range(256))  # maps a byte to its remainder by 8


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(type(item) is str for item in value)


def _counts(value: object) -> bool:
    return isinstance(value, list) and all(type(item) is int and item >= 0 for item in value)


Kept = tuple[int, int, dict[str, tuple[float, float, float]]]  # body length, title length, weighted terms


def rows_of(part: Segment) -> dict[bytes, Kept]:
    """What the segment keeps of each keyed entry's row, by key; ValueError (or IndexError) when the
    values do not fit together (a row is only reused for the text its key names)."""
    count = len(part)
    if len(part.keys) != KEY_SIZE * count or not count:
        return {}
    values = memoryview(part.shapes).cast("d").tolist()
    shapes = [tuple(values[at : at + 5]) for at in range(0, len(values), 5)]
    for body, title, other, body_len, title_len in shapes:
        if not (0 <= body < math.inf and 0 <= title < math.inf and 0 <= other < math.inf):
            raise ValueError("search index is corrupt (a weight that is not one)")
        if not (0 <= body_len < 2**31 and 0 <= title_len < 2**31 and body_len % 1 == 0 and title_len % 1 == 0):
            raise ValueError("search index is corrupt (a length that is not one)")
    weights: list[dict[str, tuple[float, float, float]]] = [{} for _ in range(count)]
    lengths: list[tuple[float, ...] | None] = [None] * count
    for term in part.postings.terms:
        docs, numbers = part.docs(term)  # checks each entry and shape number
        for doc, number in zip(docs, numbers, strict=True):
            shape = shapes[number]
            weights[doc][term] = (shape[0], shape[1], shape[2])
            if lengths[doc] is None:
                lengths[doc] = shape[3:]
            elif lengths[doc] != shape[3:]:
                raise ValueError("search index is corrupt (an entry of two lengths)")
    kept: dict[bytes, Kept] = {}
    for doc, length in enumerate(lengths):
        if length is not None:  # an entry without terms is made again: it costs nothing
            kept[part.keys[KEY_SIZE * doc : KEY_SIZE * (doc + 1)]] = (int(length[0]), int(length[1]), weights[doc])
    return kept


def build(rows: Sequence[Row], spans: bool = False) -> Segment:
    """A segment of the rows, all of one shard; the result does not depend on their order (ties keep it)."""
    shard = rows[0].shard if rows else ""
    if any(row.shard != shard for row in rows):
        raise ValueError("a segment holds the entries of one shard")
    ordered = sorted(rows, key=lambda r: r.id)
    shapes = sorted({(*weights, row.body_len, row.title_len) for row in ordered for weights in row.weights.values()})
    number_of = {shape: n for n, shape in enumerate(shapes)}
    # each term's entries and shapes in entry order, a shape as its number in sorted order
    terms: dict[str, tuple[list[int], list[int]]] = {}
    tag_docs: dict[str, list[int]] = {}
    for number, row in enumerate(ordered):
        for tag in sorted({t.lower() for t in row.tags}):
            tag_docs.setdefault(tag, []).append(number)
        for term, (body, title, other) in row.weights.items():
            pairs = terms.get(term)
            if pairs is None:
                pairs = terms[term] = ([], [])
            pairs[0].append(number)
            pairs[1].append(number_of[body, title, other, row.body_len, row.title_len])
    vocabulary = sorted(terms)
    postings = {
        term: array("I", terms[term][0]).tobytes() + array("I", terms[term][1]).tobytes() for term in vocabulary
    }
    place = {term: n for n, term in enumerate(vocabulary)}
    offsets, numbers = array("I", [0]), array("I")
    for row in ordered:
        numbers.extend(sorted(map(place.__getitem__, row.weights)))
        offsets.append(len(numbers))
    keys = b"".join(row.key for row in ordered)
    return Segment(
        ids=[row.id for row in ordered],
        created=[row.created for row in ordered],
        shard=shard,
        tags={t: array("I", tag_docs[t]).tobytes() for t in sorted(tag_docs)},
        body_total=sum(row.body_len for row in ordered),
        title_total=sum(row.title_len for row in ordered),
        shapes=array("d", [value for shape in shapes for value in shape]).tobytes(),
        postings=Lexicon.of(postings),
        forward=offsets.tobytes() + numbers.tobytes(),
        spans=array("Q", [v for row in ordered for v in row.span]).tobytes() if spans else b"",
        keys=keys if len(keys) == KEY_SIZE * len(ordered) else b"",
    )
