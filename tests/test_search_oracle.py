"""Search scores against a reference BM25F spelt out field by field, on small hand-made memories.

The reference reads words the way a person would describe them: a lowercase word is one term, a
camelCase word is the whole word plus its parts, and the parts count toward no field's length.
Its entries use words that no stemmer shortens and no stopword list holds (Greek letters), so
what is compared is the weighing: text, first line, tags and shard name, their lengths, k1 and b.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import pytest

from lean_harness.memory.search.search import Doc, Index, Settings

# Associations and WordNet widening are query-time features with their own tests; here they are
# off so that a score is the fields' weighing alone.
PLAIN = Settings(associations=0, thesaurus=0.0)


@dataclass(frozen=True)
class Weights:
    """The BM25F constants the reference uses, set apart from `Settings` so a swap shows."""

    k1: float = 1.2
    b: float = 0.5
    body: float = 1.0
    title: float = 0.5
    tags: float = 2.0
    shard: float = 0.5
    part: float = 1.0
    unknown: float = 1.0  # the share of the rarest word's idf a word no entry holds weighs


def terms(words: str) -> list[tuple[str, bool]]:
    """(term, is a part) for each word: `alphaDelta` is alphadelta, then alpha and delta as parts."""
    found: list[tuple[str, bool]] = []
    for word in words.split():
        found.append((word.lower(), False))
        if word != word.lower():
            pieces, current = [], ""
            for letter in word:
                if letter.isupper() and current:
                    pieces.append(current)
                    current = ""
                current += letter.lower()
            found += [(piece, True) for piece in [*pieces, current]]
    return found


@dataclass(frozen=True)
class Asked:
    """One concept of a query: its weight, the terms that answer it with the share each counts, and
    whether the query word itself is in the memory (when not, it weighs as the rarest word would)."""

    weight: float
    answers: tuple[tuple[str, float], ...]
    known: bool = True


def word(term: str, weight: float = 1.0) -> Asked:
    return Asked(weight, ((term, 1.0),))


def reference(docs: list[Doc], query: list[Asked], weights: Weights = Weights()) -> dict[str, float]:
    """Each entry's score: per concept, the best of its answering terms the entry holds (each
    (term, entry) impact stored as one of 255 levels), added up and divided by the query's idf total."""
    fields = {}
    for doc in docs:
        title = ""
        for line in doc.text.split("\n"):
            if line.strip():
                title = line
                break
        body_terms, title_terms = terms(doc.text), terms(title)
        other: dict[str, float] = {}
        for tag in doc.tags:
            for term, part in terms(tag):
                other[term] = other.get(term, 0.0) + weights.tags * (weights.part if part else 1.0)
        for term, part in terms(doc.shard):
            other[term] = other.get(term, 0.0) + weights.shard * (weights.part if part else 1.0)
        fields[doc.id] = (body_terms, title_terms, other)
    count = len(docs)
    average_body = sum(sum(1 for _, part in b if not part) for b, _, _ in fields.values()) / count or 1.0
    average_title = sum(sum(1 for _, part in t if not part) for _, t, _ in fields.values()) / count or 1.0

    def holders(term: str) -> int:
        return sum(
            1
            for body, title, other in fields.values()
            if term in [t for t, _ in body] or term in [t for t, _ in title] or term in other
        )

    def idf(term: str) -> float:
        return math.log(1 + (count - holders(term) + 0.5) / (holders(term) + 0.5))

    rarest = math.log(1 + (count + 0.5) / 0.5)
    denominator = 0.0
    for asked in query:
        best = max([share * idf(term) for term, share in asked.answers if holders(term)], default=0.0)
        denominator += asked.weight * (best if asked.known else max(best, weights.unknown * rarest))
    scores = {}
    for doc in docs:
        body, title, other = fields[doc.id]
        body_len = len([1 for _, part in body if not part])
        title_len = len([1 for _, part in title if not part])
        body_norm = weights.body / (1 - weights.b + weights.b * body_len / average_body)
        title_norm = weights.title / (1 - weights.b + weights.b * title_len / average_title)
        total = 0.0
        for asked in query:
            best = 0.0
            for term, share in asked.answers:
                in_body = sum(weights.part if part else 1.0 for t, part in body if t == term)
                in_title = sum(weights.part if part else 1.0 for t, part in title if t == term)
                tf = in_body * body_norm + in_title * title_norm + other.get(term, 0.0)
                if tf:
                    saturated = tf * (weights.k1 + 1) / (weights.k1 + tf)
                    level = min(255, max(1, round(saturated * 255 / (weights.k1 + 1))))
                    best = max(best, share * idf(term) * level * (weights.k1 + 1) / 255)
            total += asked.weight * best
        if total:
            scores[doc.id] = total / denominator
    return scores


# avg body length (5 + 4 + 3 + 3 + 6 + 2) / 6 = 23/6; avg title length (2 + 1 + 2 + 2 + 6 + 2) / 6 = 15/6.
FIELDED = [
    Doc("d1", "kappa", "2026-01-01T00:00:00Z", ("omega",), "alpha beta\ngamma delta epsilon"),
    Doc("d2", "sigma", "2026-01-02T00:00:00Z", (), "gamma\n\nalpha alpha zeta"),
    Doc("d3", "kappa", "2026-01-03T00:00:00Z", ("alpha", "theta"), "  \ntheta iota\nlambda"),
    Doc("d4", "sigma", "2026-01-04T00:00:00Z", (), "alphaDelta upsilon\nepsilon"),
    Doc("d5", "omega", "2026-01-05T00:00:00Z", (), "zeta zeta zeta zeta zeta zeta"),
    Doc("d6", "sigmaTau", "2026-01-06T00:00:00Z", ("betaRho",), "\n\n\nrho mu"),
]

QUERIES = {
    # a word in the first line counts in both text and title; in a later line, in the text only
    "alpha": [word("alpha")],
    "gamma": [word("gamma")],
    "epsilon": [word("epsilon")],
    # a tag weighs twice a text word and is not length-normalized
    "theta": [word("theta")],
    "omega": [word("omega")],  # a tag of d1 and the shard name of d5
    # a shard name weighs half a word
    "kappa": [word("kappa")],
    "sigma": [word("sigma")],  # the shard of d2 and d4, and a part of d6's shard name
    # repeats saturate: six times in a long entry
    "zeta": [word("zeta")],
    # an identifier: its parts weigh half the whole in the query, and count no length in an entry
    "alphaDelta": [word("alphadelta"), word("alpha", 0.5), word("delta", 0.5)],
    "betaRho": [word("betarho"), word("beta", 0.5), word("rho", 0.5)],
    "delta": [word("delta")],
    "tau": [word("tau")],
    "rho": [word("rho")],
    # several words, and a word no entry holds
    "alpha theta lambda": [word("alpha"), word("theta"), word("lambda")],
    "gamma omicron": [word("gamma"), Asked(1.0, (), known=False)],
}


def scores(index: Index, query: str) -> dict[str, float]:
    return {hit.id: hit.score for hit in index.search(query, limit=20)}


@pytest.mark.parametrize("query", list(QUERIES))
def test_each_field_weighs_as_bm25f_says(query: str) -> None:
    got = scores(Index.build(FIELDED, PLAIN), query)
    assert got == pytest.approx(reference(FIELDED, QUERIES[query]), abs=1e-6)
    assert got  # every query finds something


CHANGED = Weights(k1=2.0, b=0.75, body=2.0, title=3.0, tags=0.25, shard=4.0, part=0.5)


@pytest.mark.parametrize("query", list(QUERIES))
def test_every_weight_is_taken_from_the_settings(query: str) -> None:
    settings = Settings(
        k1=2.0, b=0.75, w_body=2.0, w_title=3.0, w_tags=0.25, w_shard=4.0, part_doc=0.5, associations=0, thesaurus=0.0
    )
    got = scores(Index.build(FIELDED, settings), query)
    assert got == pytest.approx(reference(FIELDED, QUERIES[query], CHANGED), abs=1e-6)


# The same concepts asked in other words: case, punctuation, quotes, question words and repeats
# change nothing; an identifier's parts weigh half of it, a kebab or dotted word no entry holds
# is asked as its words.
QUERY_FORMS = {
    '"Alpha", (GAMMA)?': [word("alpha"), word("gamma")],
    "What is alpha and where is gamma?": [word("alpha"), word("gamma")],
    "How do I... alpha? Why, when, which, who?": [word("alpha")],
    "alpha alpha ALPHA Alpha": [word("alpha")],
    "_alpha_ __ gamma_": [word("alpha"), word("gamma")],
    "alpha-beta": [word("alpha"), word("beta")],
    "alpha.gamma/zeta": [word("alpha"), word("gamma"), word("zeta")],
    "AlphaDelta": [word("alphadelta"), word("alpha", 0.5), word("delta", 0.5)],
    "alphaDelta alpha": [word("alphadelta"), word("alpha", 0.5), word("delta", 0.5)],
    "ALPHADELTA": [word("alphadelta")],
    "alphadelta": [word("alphadelta")],
    "alphaOmicron": [word("alpha"), Asked(1.0, (), known=False)],  # the whole is unknown: its parts are words
    "alphaOmicron gamma": [word("alpha"), Asked(1.0, (), known=False), word("gamma")],
    "zetas gammas": [word("zeta"), word("gamma")],  # plurals
    # an identifier no entry holds reaches the identifiers it starts (with a full share)
    "alphaDel": [Asked(1.0, (("alphadelta", 1.0),)), word("alpha", 0.5)],
    # an unknown word of four letters or more reaches the words it starts, at half a match
    "lamb": [Asked(1.0, (("lambda", 0.5),), known=False)],
    "alph": [Asked(1.0, (("alpha", 0.5), ("alphadelta", 0.5)), known=False)],
    "sigmat": [Asked(1.0, (("sigmatau", 0.5),), known=False)],
    "eps": [Asked(1.0, (), known=False)],
    # or is rejoined from two known words of three letters or more, each weighing half: one word in all
    "alphazeta": [word("alpha", 0.5), word("zeta", 0.5)],
    "rhoiota": [word("rho", 0.5), word("iota", 0.5)],
    "iotarho": [word("iota", 0.5), word("rho", 0.5)],
    "rhotau": [word("rho", 0.5), word("tau", 0.5)],
    "rhotau gamma": [word("rho", 0.5), word("tau", 0.5), word("gamma")],
    "muzeta": [Asked(1.0, (), known=False)],
    "zetamu": [Asked(1.0, (), known=False)],
}


@pytest.mark.parametrize("query", list(QUERY_FORMS))
def test_a_query_is_read_as_its_words_and_identifiers(query: str) -> None:
    got = scores(Index.build(FIELDED, PLAIN), query)
    assert got == pytest.approx(reference(FIELDED, QUERY_FORMS[query]), abs=1e-6)


@pytest.mark.parametrize("piece", [0.25, 1.0])
def test_the_pieces_of_a_rejoined_word_weigh_as_the_settings_say(piece: float) -> None:
    got = scores(Index.build(FIELDED, dataclasses.replace(PLAIN, piece=piece)), "alphazeta gamma")
    asked = [word("alpha", piece), word("zeta", piece), word("gamma")]
    assert got == pytest.approx(reference(FIELDED, asked), abs=1e-6)


# "lock" and "mutex" are one synonym group, and so are "hang", "stuck", "freeze" and "timeout".
LOCKS = [
    Doc("m1", "s", "2026-01-01T00:00:00Z", (), "lock kappa"),
    Doc("m2", "s", "2026-01-02T00:00:00Z", (), "mutex"),
    Doc("m3", "s", "2026-01-03T00:00:00Z", (), "sigma stuck"),
    Doc("m4", "s", "2026-01-04T00:00:00Z", (), "timeout timeout sigma"),
]
SYNONYM_QUERIES = {
    # a word the memory holds reaches its synonyms at half a match
    "lock": [Asked(1.0, (("lock", 1.0), ("mutex", 0.5)))],
    "locks": [Asked(1.0, (("lock", 1.0), ("mutex", 0.5)))],
    "mutex": [Asked(1.0, (("mutex", 1.0), ("lock", 0.5)))],
    "stuck kappa": [Asked(1.0, (("stuck", 1.0), ("timeout", 0.5))), word("kappa")],
    # a word it does not hold is answered by its synonyms alone, and weighs as an unknown word
    "hangs": [Asked(1.0, (("stuck", 0.5), ("timeout", 0.5)), known=False)],
    "freezing sigma": [Asked(1.0, (("stuck", 0.5), ("timeout", 0.5)), known=False), word("sigma")],
    # two such words are two concepts
    "hangs freezing sigma": [*[Asked(1.0, (("stuck", 0.5), ("timeout", 0.5)), known=False)] * 2, word("sigma")],
}


@pytest.mark.parametrize("query", list(SYNONYM_QUERIES))
def test_synonyms_answer_at_half_a_match(query: str) -> None:
    got = scores(Index.build(LOCKS, PLAIN), query)
    assert got == pytest.approx(reference(LOCKS, SYNONYM_QUERIES[query]), abs=1e-6)
    assert got


def test_without_synonyms_a_word_is_answered_by_itself_alone() -> None:
    index = Index.build(LOCKS, Settings(associations=0, thesaurus=0.0, synonym=0.0))
    assert scores(index, "lock") == pytest.approx(reference(LOCKS, [word("lock")]), abs=1e-6)
    assert scores(index, "hangs") == {}


@pytest.mark.parametrize("unknown", [0.0, 0.5, 2.0])
@pytest.mark.parametrize("query", ["gamma omicron", "eps", "lamb", "alphaOmicron", "gamma"])
def test_a_word_no_entry_holds_weighs_the_set_share_of_the_rarest_word(query: str, unknown: float) -> None:
    index = Index.build(FIELDED, Settings(associations=0, thesaurus=0.0, unknown=unknown))
    expected = reference(FIELDED, QUERIES.get(query) or QUERY_FORMS[query], Weights(unknown=unknown))
    assert scores(index, query) == pytest.approx(expected, abs=1e-6)


# "alpha" is in g1 and g2, which also share "beta" (in 3 entries) and "gamma" (in 4): a query word
# reaches a word sharing its entries at 0.3 x (shared / sampled) x (shared / entries holding it).
SHARING = [
    Doc("g1", "s", "2026-01-01T00:00:00Z", (), "alpha beta gamma"),
    Doc("g2", "s", "2026-01-02T00:00:00Z", (), "alpha beta gamma delta"),
    Doc("g3", "s", "2026-01-03T00:00:00Z", (), "beta epsilon"),
    Doc("g4", "s", "2026-01-04T00:00:00Z", (), "gamma omega"),
    Doc("g5", "s", "2026-01-05T00:00:00Z", (), "gamma"),
    Doc("g6", "s", "2026-01-06T00:00:00Z", (), "zeta"),
]


@pytest.mark.parametrize(
    ("associations", "answers"),
    [
        (5, (("alpha", 1.0), ("beta", 0.3 * 2 / 2 * 2 / 3), ("gamma", 0.3 * 2 / 2 * 2 / 4))),
        (1, (("alpha", 1.0), ("beta", 0.3 * 2 / 2 * 2 / 3))),  # only the best
        (0, (("alpha", 1.0),)),
    ],
)
def test_a_word_reaches_the_words_that_share_its_entries(
    associations: int, answers: tuple[tuple[str, float], ...]
) -> None:
    index = Index.build(SHARING, Settings(associations=associations, thesaurus=0.0))
    assert scores(index, "alpha") == pytest.approx(reference(SHARING, [Asked(1.0, answers)]), abs=1e-6)


def test_a_term_in_both_the_tags_and_the_shard_name_adds_up() -> None:
    docs = [
        Doc("t1", "omega", "2026-01-01T00:00:00Z", ("omega",), "nu xi"),
        Doc("t2", "omega", "2026-01-02T00:00:00Z", (), "nu"),
        Doc("t3", "kappa", "2026-01-03T00:00:00Z", ("omega",), "xi"),
        Doc("t4", "kappa", "2026-01-04T00:00:00Z", (), "xi nu"),
    ]
    got = scores(Index.build(docs, PLAIN), "omega")
    assert got == pytest.approx(reference(docs, [word("omega")]), abs=1e-6)
    assert got["t1"] > got["t3"] > got["t2"]


LONG = [
    Doc("l1", "kappa", "2026-01-01T00:00:00Z", (), " ".join(["alpha"] * 3 + ["beta"] * 12 + ["gamma"] * 4) + "\ndelta"),
    Doc("l2", "kappa", "2026-01-02T00:00:00Z", (), "\n\ngamma alpha\nbeta"),
    Doc("l3", "sigma", "2026-01-03T00:00:00Z", (), "delta " * 30 + "gamma"),
]


@pytest.mark.parametrize("query", ["alpha", "gamma", "beta", "delta", "alpha gamma"])
def test_the_whole_first_line_is_the_title_field_when_asked(query: str) -> None:
    """With `short_title` off the title field is the first non-blank line whole, however long (the
    reference's own reading); the default cuts it where lh's titles are cut."""
    settings = dataclasses.replace(PLAIN, short_title=False)
    asked = [word(term) for term in query.split()]
    assert scores(Index.build(LONG, settings), query) == pytest.approx(reference(LONG, asked), abs=1e-6)
    assert scores(Index.build(LONG, PLAIN), "gamma") != scores(Index.build(LONG, settings), "gamma")


@pytest.mark.parametrize("query", ["alpha theta lambda", "gamma zeta", "alpha epsilon rho"])
def test_min_score_keeps_exactly_the_entries_whose_score_reaches_it(query: str) -> None:
    expected = reference(FIELDED, [word(term) for term in query.split()])
    index = Index.build(FIELDED, PLAIN)
    for threshold in sorted(expected.values()):
        found = {hit.id for hit in index.search(query, limit=20, min_score=threshold - 1e-7)}
        assert found == {key for key, value in expected.items() if value >= threshold - 1e-7}, threshold


INFLECTED = [
    Doc("i1", "builds", "2026-01-01T00:00:00Z", ("caching",), "locks failing\nnotes"),
    Doc("i2", "kappa", "2026-01-02T00:00:00Z", (), "lock fail\nlocks"),
    Doc("i3", "builds", "2026-01-03T00:00:00Z", ("cached",), "notes noted"),
]


@pytest.mark.parametrize("query", ["locks", "lock", "failing", "caching", "builds", "notes"])
def test_without_stemming_every_field_keeps_words_as_written(query: str) -> None:
    """`stem=False` reaches the text, the title, the tags and the shard name alike."""
    got = scores(Index.build(INFLECTED, dataclasses.replace(PLAIN, stem=False)), query)
    assert got == pytest.approx(reference(INFLECTED, [word(query)]), abs=1e-6)


NESTED = [
    Doc("n1", "kappa", "2026-01-01T00:00:00Z", (), "kappaMu chi"),
    Doc("n2", "kappa", "2026-01-02T00:00:00Z", (), "kappaMuNu chi"),
    Doc("n3", "kappa", "2026-01-03T00:00:00Z", (), "psi chi"),
]


def test_an_identifier_the_memory_holds_is_not_widened_to_longer_ones() -> None:
    """A known identifier answers for itself and its parts; an identifier it begins is only a part's match."""
    got = scores(Index.build(NESTED, PLAIN), "kappaMu")
    assert got == pytest.approx(reference(NESTED, [word("kappamu"), word("kappa", 0.5), word("mu", 0.5)]), abs=1e-6)
