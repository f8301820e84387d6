"""Lexical retrieval over memory entries: tokenize, index, score, rank (adr/0016, adr/0031).

BM25F over an entry's text, title, tags and shard name, one quantized impact per (term, entry). An
identifier is indexed whole and as its parts. Unknown query words are widened with synonyms, known
parts or prefix completions; known ones also reach the terms that share their entries in this memory
and the words WordNet relates to them (`thesaurus.py`, adr/0024). A score is the entry's sum over the
query's total idf weight: 1.0 is every query word once in an entry of average length; below
`DEFAULT_MIN_SCORE` an answer is weak. An index is a list of segments (segment.py), one per shard.
"""

from __future__ import annotations

import heapq
import math
import re
from array import array
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache, partial
from itertools import accumulate, islice, takewhile

from lean_harness import recall
from lean_harness.memory.search import segment, thesaurus
from lean_harness.memory.search.segment import Segment
from lean_harness.memory.shard import first_line, title_of

FORMAT_VERSION = 7
DEFAULT_MIN_SCORE = 0.3


@dataclass(frozen=True, slots=True)
class Settings:
    """How an index weighs and widens terms, chosen on benchmarks/retrieval; an index keeps its own."""

    k1: float = 1.2
    b: float = 0.5
    w_body: float = 1.0
    w_title: float = 0.5
    short_title: bool = True  # the title field holds the title lh shows (80 characters), not the whole first line
    w_tags: float = 2.0
    w_shard: float = 0.5
    part_doc: float = 1.0  # an identifier's part counts this much of a plain word in an entry
    part_query: float = 0.5  # and this much of the whole identifier in a query
    piece: float = 0.5  # each known piece of an unknown run-together query word ("lockfile") counts this much of a word
    synonym: float = 0.5  # a synonym's match counts this much of the word's own
    prefix: float = 0.5  # a completion of an unknown query word counts this much of a full match
    unknown: float = 1.0  # a query word no entry contains still weighs this share of the rarest idf
    stem: bool = True
    expand_unknown: bool = True  # complete unknown words as prefixes and rejoin them from known parts
    associations: int = 5  # widen a query word with this many words that share its entries
    association_weight: float = 0.3  # each weighing at most this share of the word
    association_sample: int = 50  # learned from at most this many of the word's entries
    association_words: int = 16  # only for queries of at most this many words (not pasted logs)
    association_common: float = 0.02  # a term in more than this share of entries is never one
    association_least: float = 0.05  # a term sharing less than this share of the word's entries is not one
    thesaurus: float = 0.2  # a word WordNet relates to a query word counts this much of the word's match
    thesaurus_words: int = 12  # at most this many related words per query word
    thesaurus_common: float = 0.05  # a related term in more than this share of entries (and 20) is skipped


DEFAULT_SETTINGS = Settings()

_CHUNK_RE = re.compile(r"\w+(?:[./:-]\w+)*")
_SEGMENT_RE = re.compile(r"[./:-]")
_PART_RE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")
_PLAIN_RE = re.compile(r"[a-z]+|[A-Z][a-z]+|[A-Z]+")

_STOPWORD_TEXT = """a about above after again against all am an and any are aren as at be because been
    before being below between both but by can cannot could couldn did didn do does doesn
    doing don down during each few for from further had hadn has hasn have haven having he
    her here hers herself him himself his how i if in into is isn it its itself just let me
    more most my myself no nor not of off on once only or other ought our ours ourselves out
    over own same shall she should shouldn so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was wasn
    we were weren what when where which while who whom why will with won would wouldn you
    your yours yourself yourselves s t ll ve re d m o e g eg ie etc via also"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())

# Groups of words that agents use for the same thing; a query word reaches the others.
_SYNONYM_GROUPS = (
    "hang hangs stuck freeze frozen deadlock timeout",
    "lock mutex",
    "fail failure error break broken crash",
    "flaky intermittent nondeterministic sporadic random",
    "slow slowness latency sluggish",
    "fast speed quick performance",
    "config configuration settings setting options",
    "dependency dependencies package packages requirement",
    "install installed installing setup",
    "directory folder dir",
    "delete remove",
    "windows win32 win",
    "macos mac darwin osx",
    "docs documentation readme",
    "test tests pytest",
    "repo repository",
    "env environment",
    "auth authentication login",
    "db database sqlite",
    "msg message",
    "err error",
    "perm permission",
    "doesnt cannot unable",
)


# the query word; weight; whether the word itself is indexed; (index term, share) alternatives
_Concept = tuple[str, float, bool, list[tuple[str, float]]]


@dataclass(frozen=True, slots=True)
class Doc:
    """What the index needs of one entry."""

    id: str
    shard: str
    created: str
    tags: tuple[str, ...]
    text: str


@dataclass(frozen=True, slots=True)
class Hit:
    """One ranked entry; `score` is the share of the query it matches (see the module docs)."""

    id: str
    shard: str
    score: float
    created: str
    matched: tuple[str, ...] = ()  # the query's words that the entry contains, in query order


stem = cache(recall.stem)  # a memory repeats a few thousand words hundreds of thousands of times


def _same(word: str) -> str:
    return word


def _analyze(text: str, stemmed: bool = True) -> list[tuple[str, bool]]:
    """Terms of a text in order, each flagged True when it is only a part of an identifier."""
    return [term for chunk in _CHUNK_RE.findall(text) for term in _chunk_terms(chunk.strip("_"), stemmed)]


def tokenize(text: str) -> list[str]:
    """Index terms of a text: stemmed words, whole identifiers and their parts, no stopwords."""
    return [term for term, _ in _analyze(text)]


@cache
def _synonyms(stemmed: bool) -> dict[str, tuple[str, ...]]:
    """Each word of a synonym group (stemmed, or not) and the other words of its group."""
    table: dict[str, set[str]] = {}
    for group in _SYNONYM_GROUPS:
        words = {stem(w) if stemmed else w for w in group.split()}
        for member in words:
            table.setdefault(member, set()).update(words - {member})
    return {k: tuple(sorted(v)) for k, v in table.items()}


@cache  # chunks (words, identifiers) recur across entries: each is analyzed once per process
def _chunk_terms(chunk: str, stemmed: bool) -> tuple[tuple[str, bool], ...]:
    stem_of = stem if stemmed else _same
    if not chunk:
        return ()
    if _PLAIN_RE.fullmatch(chunk):
        word = chunk.lower()
        return () if word in STOPWORDS else ((stem_of(word), False),)
    if not chunk.isascii() and chunk.isalpha():
        return ((chunk.casefold(), False),)
    terms = [(chunk.casefold(), False)]
    segments = _SEGMENT_RE.split(chunk)
    if len(segments) > 1:  # each segment with parts of its own (snake_case, camelCase, letters and digits)
        stripped = [s.strip("_") for s in segments]
        terms.extend((s.casefold(), False) for s in stripped if s and not s.isdigit() and not _PLAIN_RE.fullmatch(s))
    for part in _split_parts(chunk):
        if (len(part) > 1 or part.isdigit()) and part not in STOPWORDS:
            terms.append((stem_of(part), True))
    return tuple(terms)


def _split_parts(chunk: str) -> list[str]:
    """The lowercase parts of an identifier, split at separators, case changes and digits."""
    pieces = _SEGMENT_RE.sub(".", chunk).replace("_", ".").split(".")
    return [p.lower() for piece in pieces for p in (_PART_RE.findall(piece) if piece.isascii() else [piece])]


class Index:
    """An immutable inverted index over segments, ranking as one segment of every entry would (adr/0031)."""

    def __init__(self, segments: Sequence[Segment], settings: Settings = DEFAULT_SETTINGS) -> None:
        self._segments = tuple(segments)
        self._ids = [key for part in self._segments for key in part.ids]
        self._created = [stamp for part in self._segments for stamp in part.created]
        self._shards = [part.shard for part in self._segments for _ in part.ids]
        self._postings = _Postings(self._segments, settings)
        self._settings = settings
        self._stem = stem if settings.stem else _same
        # Made once per index for each term, word or chunk of a query: lint asks one query per entry.
        self._sharing = cache(self._sharing_of)
        self._relation_terms = cache(self._relation_terms_of)
        self._chunk_concepts = cache(self._chunk_concepts_of)
        self._prepared_concepts: dict[tuple[object, ...], list[tuple[dict[int, int], float, float]]] = {}
        self._idf = cache(self._idf_of)

    def __len__(self) -> int:
        return len(self._ids)

    @classmethod
    def build(cls, docs: Iterable[Doc], settings: Settings = DEFAULT_SETTINGS) -> Index:
        """Index entries in one segment a shard; the result does not depend on their order."""
        docs = list(docs)
        names = sorted({doc.shard for doc in docs})
        return cls([segment_of([d for d in docs if d.shard == name], settings) for name in names], settings)

    def span_of(self, shard: str, key: str) -> tuple[int, int]:
        """Where the entry `key` of `shard` was in the shard file when indexed: (start, end) bytes, or (0, 0)."""
        return next((part.span(local) for part, _, local in self._entries(shard, key)), (0, 0))

    def _entries(self, shard: str, key: str) -> Iterator[tuple[Segment, int, int]]:
        """Each segment holding the entry `key` of `shard` (copies too), its base and the entry's number in it."""
        for part, base in zip(self._segments, self._postings.bases, strict=True):
            if part.shard == shard:
                at = bisect_left(part.ids, key)  # a segment numbers its entries in id order
                while at < len(part) and part.ids[at] == key:
                    yield part, base, at
                    at += 1

    def finds(self, query: str, shard: str, key: str, limit: int = 5) -> bool:
        """Whether `search(query, limit=limit)` holds the entry `key` of `shard`, found by bounding what
        other entries can reach: only those that can pass its own score are added up (adr/0031)."""
        mine = [base + local for _, base, local in self._entries(shard, key)]
        if limit <= 0 or not mine:
            return False
        asked = self._concepts(query)
        denominator = self._weight(asked)
        widen = 0 < len(asked) <= self._settings.association_words and self._settings.associations
        concepts = self._related(self._associate(asked)) if widen else asked
        if not denominator:
            return False
        scale = 1.0 / denominator
        factors = [self._prepared(weight, alternatives) for _, weight, _, alternatives in concepts]
        mine_values = [(self._score(factors, doc), doc) for doc in mine]
        own = max(value for value, _ in mine_values)
        if own <= 0:
            return False
        # An entry scoring below `floor` rounds to a lower score than this one.
        floor = (round(own * scale, 6) - 2e-6) / scale * (1 - 1e-9)
        bounds = sorted((max((top for _, _, top in terms), default=0.0), n) for n, terms in enumerate(factors))
        below = 0.0
        candidates: set[int] = set()
        for bound, n in bounds:
            if below + bound < floor * (1 - 1e-9):
                below += bound
                continue
            for impacts, _, _ in factors[n]:
                candidates.update(impacts)
        candidates.difference_update(mine)
        have = dict.fromkeys(candidates, 0.0)
        left = sum(bound for bound, _ in bounds)
        for bound, n in reversed(bounds):
            if len(have) < limit:  # fewer than `limit` others can rank above this entry
                return True
            left -= bound
            best: dict[int, float] = {}
            for impacts, factor, _ in factors[n]:
                for doc in impacts.keys() & have.keys():
                    value = factor * impacts[doc]
                    if value > best.get(doc, 0.0):
                        best[doc] = value
            for doc, value in best.items():
                have[doc] += value
            need = floor * (1 - 1e-9) - left * (1 + 1e-9)
            if need > 0:
                have = {doc: value for doc, value in have.items() if value >= need}
        values = dict.fromkeys(mine, own)
        for doc in have:
            exact = self._score(factors, doc)
            if exact >= floor and exact > 0:
                values[doc] = exact
        cutoff = -math.inf
        if len(values) > limit:  # as `search` keeps only what may reach the top `limit`
            cutoff = sorted(values.values(), reverse=True)[limit - 1] - 1e-9
            if own < cutoff:
                return False
        # copies of the entry (a hand edit, a merge) rank apart: the best placed one is the one `search` may list
        mine_rank = max((round(value * scale, 6), self._created[doc]) for value, doc in mine_values)
        above = 0
        for doc, value in values.items():
            if doc in mine or value < cutoff:
                continue
            rank = (round(value * scale, 6), self._created[doc])
            if rank > mine_rank or (rank == mine_rank and (self._ids[doc], self._shards[doc]) < (key, shard)):
                above += 1
        return above < limit

    def _prepared(
        self, weight: float, alternatives: list[tuple[str, float]]
    ) -> list[tuple[dict[int, int], float, float]]:
        """A concept as `finds` weighs it, made once per index: each term's impact by entry, its
        factor, and the most it adds to any entry (a little more, against rounding)."""
        key = (weight, *alternatives)
        found = self._prepared_concepts.get(key)
        if found is None:
            factor_of = (self._settings.k1 + 1) / 255
            found = []
            for term, share in alternatives:
                impacts = self._postings.impacts(term)
                factor = weight * share * self._idf(term) * factor_of
                found.append((impacts, factor, factor * max(impacts.values()) * (1 + 1e-9)))
            self._prepared_concepts[key] = found
        return found

    def _score(self, factors: list[list[tuple[dict[int, int], float, float]]], doc: int) -> float:
        """One entry's BM25F sum over concepts given as (impacts, factor, bound) lists, added up as `_add` adds it."""
        total: float | None = None
        for alternatives in factors:
            best: float | None = None
            for impacts, factor, _ in alternatives:
                impact = impacts.get(doc)
                if impact and (len(alternatives) == 1 or factor * impact > (best or 0.0)):
                    best = factor * impact
            if best is not None:
                total = best if total is None else total + best
        return total or 0.0

    def search(
        self,
        query: str,
        *,
        limit: int = 10,
        shards: Collection[str] = (),
        tags: Collection[str] = (),
        min_score: float = 0.0,
    ) -> list[Hit]:
        """Entries matching the query, best first, then newer, then by id, kept by `shards`, `tags`, `min_score`."""
        if limit <= 0 or not self._ids:
            return []
        allowed = self._allowed(shards, tags)
        if allowed is not None and not allowed:
            return []
        asked = self._concepts(query)
        denominator = self._weight(asked)
        widen = 0 < len(asked) <= self._settings.association_words and self._settings.associations
        totals: dict[int, float] = {}
        for _, weight, _, alternatives in self._related(self._associate(asked)) if widen else asked:
            if alternatives:
                self._add(totals, weight, alternatives)
        if not totals or not denominator:
            return []
        scale = 1.0 / denominator
        floor = min_score / scale
        scored = [
            (value, doc)
            for doc, value in totals.items()
            if value >= floor and value > 0 and (allowed is None or doc in allowed)
        ]
        if len(scored) > limit:
            cutoff = sorted((v for v, _ in scored), reverse=True)[limit - 1] - 1e-9
            scored = [item for item in scored if item[0] >= cutoff]
        ranked = [(round(value * scale, 6), doc) for value, doc in scored]
        ranked.sort(key=lambda item: (self._ids[item[1]], self._shards[item[1]]))
        ranked.sort(key=lambda item: (item[0], self._created[item[1]]), reverse=True)  # stable: ties keep id order
        ids, shards, created = self._ids, self._shards, self._created
        return [Hit(ids[d], shards[d], score, created[d], self._matched(asked, d)) for score, d in ranked[:limit]]

    def _weight(self, concepts: list[_Concept]) -> float:
        """The query's total idf weight: what an entry of average length matching every word once scores."""
        rarest = math.log(1 + (len(self._ids) + 0.5) / 0.5)
        total = 0.0
        for _, weight, known, alternatives in concepts:
            top_idf = 0.0  # every idf and share is above 0
            for term, share in alternatives:
                top_idf = max(top_idf, self._idf(term) * share)
            total += weight * (top_idf if known else max(top_idf, self._settings.unknown * rarest))
        return total

    def _add(self, totals: dict[int, float], weight: float, alternatives: list[tuple[str, float]]) -> None:
        """Add one concept to the totals: the best of its alternatives in each entry."""
        factor_of = (self._settings.k1 + 1) / 255
        best: dict[int, float] = totals if len(alternatives) == 1 else {}
        for term, share in alternatives:
            factor = weight * share * self._idf(term) * factor_of
            get = best.get
            if best is totals:
                for doc, impact in self._postings.impacts(term).items():
                    best[doc] = get(doc, 0.0) + factor * impact
            else:
                for doc, impact in self._postings.impacts(term).items():
                    value = factor * impact
                    if value > get(doc, 0.0):
                        best[doc] = value
        if best is not totals:
            for doc, value in best.items():
                totals[doc] = totals.get(doc, 0.0) + value

    def _associate(self, concepts: list[_Concept]) -> list[_Concept]:
        """Each single-term concept widened with the terms that most often share its entries ("ENOSPC", "disk")."""
        settings = self._settings
        query_terms = {t for _, _, _, alternatives in concepts for t, _ in alternatives}
        widened: list[_Concept] = []
        for label, weight, known, alternatives in concepts:
            if len(alternatives) != 1 or not known:
                widened.append((label, weight, known, alternatives))
                continue
            extra: list[tuple[str, float]] = []
            for share, term in self._sharing(alternatives[0][0]):
                if len(extra) == settings.associations or share < settings.association_least:
                    break  # enough, or the rest share less still
                if term not in query_terms:
                    extra.append((term, settings.association_weight * share))
            widened.append((label, weight, known, [*alternatives, *extra]))
        return widened

    def _sharing_of(self, term: str) -> list[tuple[float, str]]:
        """The not too common terms sharing two or more of a term's sampled entries, best first, with their share."""
        settings = self._settings
        most = max(20, int(len(self._ids) * settings.association_common))
        ranked: list[tuple[float, str]] = []
        if self._postings.df(term) >= 2:
            together: Counter[str] = Counter()
            sample = self._postings.first(term, settings.association_sample)
            for doc in sample:
                together.update(self._postings.terms_of(doc))
            for other, shared in together.items():
                if shared >= 2 and other != term:
                    df = self._postings.df(other)
                    if df <= most:
                        ranked.append((shared / len(sample) * shared / df, other))
            ranked.sort(reverse=True)
        return ranked

    def _related(self, concepts: list[_Concept]) -> list[_Concept]:
        """Each plain word's concept widened with index terms of the words WordNet relates to it."""
        share, most = self._settings.thesaurus, self._settings.thesaurus_words
        if not share or most <= 0:
            return concepts
        # a term another query word holds counts for that word alone, as associations skip it too
        own = {alternatives[0][0] for _, _, known, alternatives in concepts if known and alternatives}
        widened: list[_Concept] = []
        for label, weight, known, alternatives in concepts:
            if not label.isalpha():
                widened.append((label, weight, known, alternatives))
                continue
            related = self._relation_terms(label)
            have = own.union(term for term, _ in alternatives)
            extra = [(term, share) for term in related if term not in have]
            widened.append((label, weight, known, [*alternatives, *extra] if extra else alternatives))
        return widened

    def _relation_terms_of(self, label: str) -> list[str]:
        """The index terms of the first few words WordNet relates to a word, each once and not too common."""
        common = max(20, int(len(self._ids) * self._settings.thesaurus_common))
        found: list[str] = []
        for word in thesaurus.related(label)[: self._settings.thesaurus_words]:
            term = self._stem(word)
            if term in self._postings and term not in found and self._postings.df(term) <= common:
                found.append(term)
        return found

    def _matched(self, concepts: list[_Concept], doc: int) -> tuple[str, ...]:
        """The query words whose concept an entry contains, through any of its alternatives."""
        impacts = self._postings.impacts
        return tuple(dict.fromkeys(label for label, _, _, alts in concepts if any(doc in impacts(t) for t, _ in alts)))

    def _idf_of(self, term: str) -> float:
        df = self._postings.df(term)
        return math.log(1 + (len(self._ids) - df + 0.5) / (df + 0.5))

    def _allowed(self, shards: Collection[str], tags: Collection[str]) -> set[int] | None:
        allowed: set[int] | None = None
        if shards:
            wanted = set(shards)
            allowed = {doc for doc, name in enumerate(self._shards) if name in wanted}
        for tag in tags:
            docs = self._postings.tagged(tag.lower())
            allowed = docs if allowed is None else allowed & docs
        return allowed

    def _concepts(self, query: str) -> list[_Concept]:
        """The query as weighted concepts, each a list of (index term, share) alternatives."""
        concepts: dict[str, _Concept] = {}
        for chunk in _CHUNK_RE.findall(query):
            for key, concept in self._chunk_concepts(chunk.strip("_")):
                concepts.setdefault(key, concept)
        return list(concepts.values())

    def _chunk_concepts_of(self, chunk: str) -> list[tuple[str, _Concept]]:
        """The concepts of one word or identifier of a query, by key."""
        concepts: dict[str, _Concept] = {}
        if _PLAIN_RE.fullmatch(chunk) or (chunk.isalpha() and not chunk.isascii()):
            if chunk.casefold() not in STOPWORDS:
                self._add_word(chunk.casefold(), concepts)
        elif chunk:
            whole = chunk.casefold()
            alternatives = [(whole, 1.0)] if whole in self._postings else self._prefixed(whole)
            if alternatives:
                concepts.setdefault(whole, (whole, 1.0, True, alternatives))
            for part in _split_parts(chunk):
                if (len(part) <= 1 and not part.isdigit()) or part in STOPWORDS:
                    continue
                if not alternatives:  # an unknown identifier: its parts as words
                    self._add_word(part, concepts)
                elif (term := self._stem(part)) in self._postings:
                    concepts.setdefault(term, (part, self._settings.part_query, True, [(term, 1.0)]))
        return list(concepts.items())

    def _add_word(self, word: str, concepts: dict[str, _Concept]) -> None:
        term = self._stem(word)
        share = self._settings.synonym
        found = _synonyms(self._settings.stem).get(term, ())
        synonyms = [(s, share) for s in found if s in self._postings] if share else []
        if term in self._postings:
            concepts.setdefault(term, (word, 1.0, True, [(term, 1.0), *synonyms]))
            return
        if synonyms:
            concepts.setdefault(term, (word, 1.0, False, synonyms))
            return
        pieces = self._segment(word)
        for piece in pieces:
            concepts.setdefault(piece, (word, self._settings.piece, True, [(piece, 1.0)]))
        if not pieces:
            completions = [(t, self._settings.prefix) for t, _ in self._prefixed(term)] if len(word) >= 4 else []
            concepts.setdefault(term, (word, 1.0, False, completions))

    def _segment(self, word: str) -> list[str]:
        """Known terms that join up to an unknown word ("lockfile" -> lock, file), or nothing."""
        if len(word) < 6 or not word.isalpha() or not self._settings.expand_unknown:
            return []
        for cut in range(3, len(word) - 2):
            left, right = self._stem(word[:cut]), self._stem(word[cut:])
            known = left in self._postings and right in self._postings
            if known and word[:cut] not in STOPWORDS and word[cut:] not in STOPWORDS:
                return [left, right]
        return []

    def _prefixed(self, prefix: str) -> list[tuple[str, float]]:
        """Index terms that start with an unknown, possibly truncated, query term."""
        if len(prefix) < 4 or not self._settings.expand_unknown:
            return []
        return [(term, 1.0) for term in self._postings.prefixed(prefix, 50)]


def _title(text: str) -> str:
    """The entry's title as INDEX.md and hits show it (`shard.title_of`), less a word its cut splits."""
    line, title = first_line(text), title_of(text)
    if title == line:
        return line
    kept = title[:-1]  # without the ellipsis, ending in a word
    return kept if line[len(kept)].isspace() else kept[: len(kept) - len(kept.split()[-1])].rstrip()


def segment_of(
    docs: Iterable[Doc],
    settings: Settings = DEFAULT_SETTINGS,
    spans: Sequence[tuple[int, int]] | None = None,
) -> Segment:
    """A segment of entries (with each one's byte span in its shard file, if given)."""
    rows = [row_of(doc, settings, spans[number] if spans is not None else (0, 0)) for number, doc in enumerate(docs)]
    return segment.build(rows, spans=spans is not None)


def row_of(
    doc: Doc, settings: Settings = DEFAULT_SETTINGS, span: tuple[int, int] = (0, 0), key: bytes = b""
) -> segment.Row:
    """What a segment keeps of one entry: its body's and title's lengths, each term's weighted frequency in
    the body, the title and the rest (with its byte span and key, if given)."""
    weights: dict[str, list[float]] = {}
    lengths = [0, 0]  # the body's and the title's, whole words only
    title = _title(doc.text) if settings.short_title else next((ln for ln in doc.text.splitlines() if ln.strip()), "")
    fields = (
        (0, doc.text, 1.0),
        (1, title, 1.0),
        (2, " ".join(doc.tags), settings.w_tags),
        (2, doc.shard, settings.w_shard),
    )
    for field, source, field_weight in fields:
        for term, part in _analyze(source, settings.stem):
            weights.setdefault(term, [0.0, 0.0, 0.0])[field] += field_weight * (settings.part_doc if part else 1.0)
            if field < 2:
                lengths[field] += not part
    terms = {term: (w[0], w[1], w[2]) for term, w in weights.items()}
    return segment.Row(doc.id, doc.shard, doc.created, doc.tags, lengths[0], lengths[1], terms, span, key)


class _Impacts(dict[int, int]):
    """One segment's quantized impact per shape, computed on first use."""

    def __init__(self, part: Segment, avg_body: float, avg_title: float, settings: Settings) -> None:
        super().__init__()
        self._shapes = memoryview(part.shapes).cast("d")  # five values a shape (memory/segment.py)
        self._avg_body, self._avg_title, self._settings = avg_body, avg_title, settings

    def __missing__(self, shape: int) -> int:
        """The quantized BM25F impact of a term in an entry: its field frequencies and lengths (the
        shape), normalized by the memory's average lengths and saturated by k1, as one byte."""
        body, title, other, body_len, title_len = self._shapes[5 * shape : 5 * shape + 5]
        settings, k1, b = self._settings, self._settings.k1, self._settings.b
        body_norm = settings.w_body / (1 - b + b * body_len / self._avg_body)
        title_norm = settings.w_title / (1 - b + b * title_len / self._avg_title)
        tf = body * body_norm + title * title_norm + other
        impact = tf * (k1 + 1) / (k1 + tf)
        value = self[shape] = max(1, min(255, round(impact * 255 / (k1 + 1))))
        return value


class _Postings:
    """The posting lists of all segments as one, made on first use: each term's impact by entry number,
    the numbers running on across segments."""

    def __init__(self, segments: Sequence[Segment], settings: Settings) -> None:
        self._segments = segments
        sizes = [len(part) for part in segments]
        self.bases = array("I", accumulate(sizes, initial=0))[:-1]  # the number of each segment's first entry
        count = sum(sizes)
        avg_body = sum(part.body_total for part in segments) / (count or 1) or 1.0
        avg_title = sum(part.title_total for part in segments) / (count or 1) or 1.0
        self._impacts = [_Impacts(part, avg_body, avg_title, settings) for part in segments]
        lexicons = [part.postings for part in segments]
        # Each made once a term: whether an entry holds it, how many do, its impact in each of them.
        self._known = cache(lambda term: any(term in lexicon for lexicon in lexicons))
        self.df = cache(partial(segment.holding, lexicons))
        self.impacts = cache(self._impacts_of)

    def __contains__(self, term: object) -> bool:
        return self._known(term)

    def _impacts_of(self, term: str) -> dict[int, int]:
        """The term's impact in each entry that holds it, in entry order (KeyError when none does)."""
        found: dict[int, int] = {}
        for part, base, table in zip(self._segments, self.bases, self._impacts, strict=True):
            local, shapes = part.docs(term)
            found.update(zip(map(base.__add__, local), map(table.__getitem__, shapes), strict=True))
        if not found:
            raise KeyError(term)
        return found

    def first(self, term: str, count: int) -> list[int]:
        """The first `count` entries holding the term in (id, shard) order, whichever segments hold them."""
        runs = []
        for part, base in zip(self._segments, self.bases, strict=True):
            posting = part.postings.get(term)
            if posting:
                local = memoryview(posting)[: min(len(posting) // 2, 4 * count)].cast("I")  # segment.py's layout
                runs.append([(part.ids[d], part.shard, base + d) for d in local])
        return [doc for _, _, doc in islice(heapq.merge(*runs), count)]

    def terms_of(self, doc: int) -> list[str]:
        """The terms entry number `doc` holds."""
        number = bisect_right(self.bases, doc) - 1
        part, local = self._segments[number], doc - self.bases[number]
        vocab = part.postings.terms
        offsets = memoryview(part.forward).cast("I")
        numbers = offsets[len(part) + 1 :]
        return list(map(vocab.__getitem__, numbers[offsets[local] : offsets[local + 1]]))

    def tagged(self, tag: str) -> set[int]:
        """The entries carrying a tag (lowercase)."""
        docs: set[int] = set()
        for part, base in zip(self._segments, self.bases, strict=True):
            docs.update(map(base.__add__, memoryview(part.tags.get(tag, b"")).cast("I")))
        return docs

    def prefixed(self, prefix: str, count: int) -> list[str]:
        """The first `count` terms, in sorted order, that start with `prefix`."""
        found: set[str] = set()
        for part in self._segments:
            vocab = part.postings.terms
            start = bisect_left(vocab, prefix)
            found.update(takewhile(lambda term: term.startswith(prefix), vocab[start : start + count]))
        return sorted(found)[:count]
