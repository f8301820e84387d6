"""A segment of the search index: what ranking needs of some entries, apart from every other entry.

An entry's impact on a term depends on every entry of the memory (the average field lengths), and
so do a term's document frequency and its learned associations; what an entry holds does not. A
segment keeps only the latter, so one shard's segment stays valid while other shards change, and
an appended note becomes a small segment of its own (adr/0021-incremental-search-index.md). The
index (memory/search/search.py) combines the statistics of all its segments when a query needs them and
ranks exactly as an index built over all their entries at once.

Entries are numbered in (id, shard) order. A term's posting is the bytes of an `array('I')` of
entry numbers, then one of shape numbers: a shape is (body, title, other frequency, body length,
title length), which fixes the term's impact in the entry once the averages are known; shapes are
sorted and stored as five `array('d')` values each. The postings are one blob in the order of the
sorted vocabulary, with each term's end offset as an `array('I')` (`Lexicon`), so loading a segment
makes one string per term and nothing per posting. The forward list is `count + 1` offsets, then
each entry's terms as numbers in the sorted vocabulary. Spans are each entry's (start, end) byte
offsets in its shard file and the CRC-32 of those bytes (its mark: what a reader checks it read
the entry as indexed), or empty.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

Shape = tuple[float, float, float, int, int]  # body, title, other frequency; body, title length


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
    mark: int = 0  # the CRC-32 of the entry's bytes at `span`


class Lexicon:
    """A segment's posting lists by term: its sorted vocabulary, and their bytes in one blob."""

    __slots__ = ("_blob", "ends", "terms")

    def __init__(self, terms: list[str], ends: bytes, blob: bytes) -> None:
        self.terms, self._blob = terms, blob
        self.ends = memoryview(ends).cast("I")  # where each term's posting list ends in the blob

    @classmethod
    def of(cls, postings: dict[str, bytes]) -> Lexicon:
        """The lexicon of the posting lists `postings` (in any order)."""
        terms = sorted(postings)
        ends, end = array("I"), 0
        for term in terms:
            end += len(postings[term])
            ends.append(end)
        return cls(terms, ends.tobytes(), b"".join(postings[term] for term in terms))

    def place(self, term: str) -> int:
        """The term's number in the vocabulary, or -1 when no entry of the segment holds it."""
        terms = self.terms
        at = bisect_left(terms, term)
        return at if at < len(terms) and terms[at] == term else -1

    def get(self, term: str, default: bytes = b"") -> bytes:
        """The term's posting list, or `default` when no entry of the segment holds it."""
        at = self.place(term)
        return default if at < 0 else self._blob[self.ends[at - 1] if at else 0 : self.ends[at]]

    def __contains__(self, term: object) -> bool:
        return isinstance(term, str) and self.place(term) >= 0

    def __iter__(self) -> Iterator[str]:
        return iter(self.terms)

    def __len__(self) -> int:
        return len(self.terms)

    def payload(self) -> tuple[list[str], bytes, bytes]:
        """Plain values for marshal."""
        return self.terms, self.ends.tobytes(), self._blob


def holding(lexicons: Sequence[Lexicon], term: str) -> int:
    """How many entries of all these lexicons' segments hold the term: the length of each one's posting
    list over the 8 bytes an entry takes, found as `Lexicon.place` finds a term, in one loop (it
    runs for every word near a query)."""
    size = 0
    for lexicon in lexicons:
        terms, ends = lexicon.terms, lexicon.ends
        at = bisect_left(terms, term)
        if at < len(terms) and terms[at] == term:
            size += ends[at] - (ends[at - 1] if at else 0)
    return size // 8


class Segment:
    """The raw statistics of some entries; see the module docs for the layout.

    Not a value type: its length is its number of entries, which a tuple's must not be.
    """

    __slots__ = (
        "body_total",
        "created",
        "doc_shards",
        "forward",
        "ids",
        "postings",
        "shapes",
        "shards",
        "spans",
        "tags",
        "title_total",
    )

    def __init__(
        self,
        ids: list[str],
        created: list[str],
        shards: list[str],
        doc_shards: bytes,
        tags: dict[str, bytes],
        body_total: int,
        title_total: int,
        shapes: bytes,
        postings: Lexicon,
        forward: bytes,
        spans: bytes,
    ) -> None:
        self.ids, self.created, self.shards, self.doc_shards = ids, created, shards, doc_shards
        self.tags, self.body_total, self.title_total, self.shapes = tags, body_total, title_total, shapes
        self.postings, self.forward, self.spans = postings, forward, spans

    def __len__(self) -> int:
        return len(self.ids)

    def shape(self, number: int) -> Shape:
        """Shape number `number` (see the module docs)."""
        body, title, other, body_len, title_len = memoryview(self.shapes).cast("d")[5 * number : 5 * number + 5]
        return body, title, other, int(body_len), int(title_len)

    def docs(self, term: str) -> tuple[array[int], array[int]]:
        """The entry numbers holding `term` and the shape of each."""
        posting = self.postings.get(term, b"")
        half = len(posting) // 2
        docs, shapes = array("I"), array("I")
        docs.frombytes(posting[:half])
        shapes.frombytes(posting[half:])
        return docs, shapes

    def shard_of(self, doc: int) -> str:
        return self.shards[memoryview(self.doc_shards).cast("I")[doc]]

    def span(self, doc: int) -> tuple[int, int]:
        if not self.spans:
            return 0, 0
        spans = memoryview(self.spans).cast("Q")
        return spans[3 * doc], spans[3 * doc + 1]

    def mark(self, doc: int) -> int:
        """The CRC-32 of the entry's bytes at its span when indexed (0: not known)."""
        return memoryview(self.spans).cast("Q")[3 * doc + 2] if self.spans else 0

    def to_payload(self) -> tuple[object, ...]:
        """Plain values for marshal."""
        return (
            self.ids,
            self.created,
            self.shards,
            self.doc_shards,
            self.tags,
            self.body_total,
            self.title_total,
            self.shapes,
            *self.postings.payload(),
            self.forward,
            self.spans,
        )


def from_payload(payload: object) -> Segment:
    """The segment `to_payload` gave; ValueError when the values do not fit together."""
    if not isinstance(payload, tuple) or len(payload) != 13:
        raise ValueError("search index is corrupt (unexpected layout)")
    ids, created, shards, doc_shards, tags, body_total, title_total, shapes, terms, ends, blob, forward, spans = payload
    count = len(ids) if isinstance(ids, list) else -1
    if not (
        isinstance(ids, list)
        and isinstance(created, list)
        and isinstance(shards, list)
        and isinstance(doc_shards, bytes)
        and isinstance(tags, dict)
        and isinstance(body_total, int)
        and isinstance(title_total, int)
        and isinstance(shapes, bytes)
        and isinstance(terms, list)
        and isinstance(ends, bytes)
        and isinstance(blob, bytes)
        and isinstance(forward, bytes)
        and isinstance(spans, bytes)
        and len(created) == count
        and len(doc_shards) == 4 * count
        and len(forward) >= 4 * (count + 1)
        and len(spans) in (0, 24 * count)
        and len(shapes) % 40 == 0
        and len(ends) == 4 * len(terms)
        and (memoryview(ends).cast("I")[-1] if terms else 0) == len(blob)
    ):
        raise ValueError("search index is corrupt (unexpected layout)")
    postings = Lexicon(terms, ends, blob)
    return Segment(ids, created, shards, doc_shards, tags, body_total, title_total, shapes, postings, forward, spans)


def build(rows: Sequence[Row], spans: bool = False) -> Segment:
    """A segment of the rows; the result does not depend on their order (ties keep it)."""
    ordered = sorted(rows, key=lambda r: (r.id, r.shard))
    terms: dict[str, list[tuple[int, Shape]]] = {}
    for number, row in enumerate(ordered):
        for term, (body, title, other) in row.weights.items():
            terms.setdefault(term, []).append((number, (body, title, other, row.body_len, row.title_len)))
    return _assemble(
        ordered,
        terms,
        sum(r.body_len for r in ordered),
        sum(r.title_len for r in ordered),
        spans,
    )


def merge(segments: Sequence[Segment]) -> Segment:
    """One segment of the entries of several, as `build` would give it over all their rows."""
    rows: list[Row] = []
    starts: list[int] = []
    for segment in segments:
        starts.append(len(rows))
        tag_of: list[list[str]] = [[] for _ in range(len(segment))]
        for tag in segment.tags:  # sorted already
            for doc in memoryview(segment.tags[tag]).cast("I"):
                tag_of[doc].append(tag)
        for doc in range(len(segment)):
            rows.append(
                Row(
                    segment.ids[doc],
                    segment.shard_of(doc),
                    segment.created[doc],
                    tuple(tag_of[doc]),
                    0,
                    0,
                    {},
                    segment.span(doc),
                    segment.mark(doc),
                )
            )
    order = sorted(range(len(rows)), key=lambda n: (rows[n].id, rows[n].shard))
    renumber = array("I", bytes(4 * len(rows)))
    for new, old in enumerate(order):
        renumber[old] = new
    terms: dict[str, list[tuple[int, Shape]]] = {}
    for segment, start in zip(segments, starts, strict=True):
        for term in segment.postings:
            docs, shapes = segment.docs(term)
            found = terms.setdefault(term, [])
            found.extend((renumber[start + d], segment.shape(s)) for d, s in zip(docs, shapes, strict=True))
    for found in terms.values():
        found.sort(key=lambda pair: pair[0])
    return _assemble(
        [rows[n] for n in order],
        terms,
        sum(s.body_total for s in segments),
        sum(s.title_total for s in segments),
        all(s.spans for s in segments if len(s)),
    )


def _assemble(
    ordered: Sequence[Row], terms: dict[str, list[tuple[int, Shape]]], body_total: int, title_total: int, spans: bool
) -> Segment:
    """The segment of rows in number order and each term's (entry, shape) pairs in entry order."""
    shapes = sorted({shape for pairs in terms.values() for _, shape in pairs})
    shape_number = {shape: n for n, shape in enumerate(shapes)}
    postings: dict[str, bytes] = {}
    per_doc: list[list[int]] = [[] for _ in ordered]
    for number, term in enumerate(sorted(terms)):
        pairs = terms[term]
        postings[term] = (
            array("I", [doc for doc, _ in pairs]).tobytes()
            + array("I", [shape_number[shape] for _, shape in pairs]).tobytes()
        )
        for doc, _ in pairs:
            per_doc[doc].append(number)
    offsets, numbers = array("I", [0]), array("I")
    for held in per_doc:
        numbers.extend(held)
        offsets.append(len(numbers))
    shard_names = sorted({row.shard for row in ordered})
    shard_number = {name: n for n, name in enumerate(shard_names)}
    tag_docs: dict[str, list[int]] = {}
    for number, row in enumerate(ordered):
        for tag in sorted({t.lower() for t in row.tags}):
            tag_docs.setdefault(tag, []).append(number)
    return Segment(
        ids=[row.id for row in ordered],
        created=[row.created for row in ordered],
        shards=shard_names,
        doc_shards=array("I", [shard_number[row.shard] for row in ordered]).tobytes(),
        tags={t: array("I", tag_docs[t]).tobytes() for t in sorted(tag_docs)},
        body_total=body_total,
        title_total=title_total,
        shapes=array("d", [value for shape in shapes for value in shape]).tobytes(),
        postings=Lexicon.of(postings),
        forward=offsets.tobytes() + numbers.tobytes(),
        spans=array("Q", [v for row in ordered for v in (*row.span, row.mark)]).tobytes() if spans else b"",
    )
