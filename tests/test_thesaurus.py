"""The WordNet-derived word relations: the table's format, its lookup, and how search uses it."""

from __future__ import annotations

import re

import pytest

from lean_harness.memory.search import thesaurus
from lean_harness.memory.search.search import DEFAULT_SETTINGS, Doc, Index, Settings
from test_search import _reference_scores

TABLE = b"".join(
    line + b"\n"
    for line in (
        b"ab\tx",
        b"abc\ty z",
        b"abcd\tw",
        b"b1\tq",
        b"lock\tfasten secure",
        b"shop\tstore mart",
        b"zz\tlast",
    )
)


def _linear(data: bytes, word: str) -> list[str]:
    """The reference: read every line."""
    for line in data.decode().splitlines():
        key, _, related = line.partition("\t")
        if key == word:
            return related.split()
    return []


@pytest.mark.parametrize(
    "word", ["ab", "abc", "abcd", "b1", "lock", "shop", "zz", "a", "aa", "abca", "abce", "b", "locks", "zzz", "", "0"]
)
@pytest.mark.parametrize(
    "data", [TABLE, TABLE.rstrip(b"\n"), b"", b"only\tone"], ids=["table", "no-eol", "empty", "one"]
)
def test_lookup_bisects_to_the_same_line_as_a_linear_read(data: bytes, word: str) -> None:
    assert thesaurus.lookup(data, word) == _linear(data, word)


def test_lookup_finds_each_line_of_the_table() -> None:
    assert thesaurus.lookup(TABLE, "abc") == ["y", "z"]
    assert thesaurus.lookup(TABLE, "zz") == ["last"]
    assert thesaurus.lookup(TABLE, "abcde") == []


@pytest.mark.parametrize(
    ("word", "forms"),
    [
        pytest.param("laptops", ["laptops", "laptop"], id="plural"),
        pytest.param("queries", ["queries", "query"], id="ies"),
        pytest.param("boxes", ["boxes", "box", "boxe"], id="es"),
        pytest.param("stopped", ["stopped", "stopp", "stoppe", "stop"], id="doubled"),
        pytest.param("caching", ["caching", "cach", "cache"], id="ing"),
        pytest.param("faster", ["faster", "fast", "faste"], id="er"),
        pytest.param("bigger", ["bigger", "bigg", "bigge", "big"], id="er-doubled"),
        pytest.param("largest", ["largest", "larg", "large"], id="est"),
        pytest.param("biggest", ["biggest", "bigg", "bigge", "big"], id="est-doubled"),
        pytest.param("running", ["running", "runn", "runne", "run"], id="ing-doubled"),
        pytest.param("added", ["added", "add", "adde"], id="doubled-base-too-short"),
        pytest.param("runs", ["runs", "run"], id="four-letters"),
        pytest.param("class", ["class"], id="ss"),
        pytest.param("bus", ["bus"], id="short"),
        pytest.param("utf8s", ["utf8s"], id="digits"),
    ],
)
def test_base_forms(word: str, forms: list[str]) -> None:
    assert thesaurus.base_forms(word) == forms


def test_the_shipped_table_is_sorted_well_formed_and_licensed() -> None:
    data = thesaurus.TABLE.read_bytes()
    lines = data.decode("ascii").splitlines()
    keys = [line.split("\t")[0] for line in lines]
    assert data.endswith(b"\n")
    assert keys == sorted(set(keys))
    line_re = re.compile(r"[a-z][a-z0-9]*\t[a-z][a-z0-9]*( [a-z][a-z0-9]*){0,11}")
    assert [line for line in lines if not line_re.fullmatch(line)] == []
    notice = thesaurus.TABLE.with_name("wordnet-LICENSE.txt").read_text("utf-8")
    assert "WordNet 3.0 Copyright 2006 by Princeton University.  All rights reserved." in notice


def test_related_words_hold_no_repeats_and_never_the_word_itself() -> None:
    keys = [line.split("\t")[0] for line in thesaurus.TABLE.read_text("ascii").splitlines()]
    for word in (form for key in keys for form in (key, key + "s", key + "es", key + "ed")):
        found = thesaurus.related(word)
        assert len(set(found)) == len(found), word
        assert word not in found


def test_related_words_come_from_wordnet_for_a_word_and_its_inflections() -> None:
    assert thesaurus.related("shopper")[:2] == ("customer", "client")  # a synonym set's hypernym
    assert thesaurus.related("shoppers")[:2] == ("customer", "client")
    assert thesaurus.related("kubernetes") == ()


SHOP = {
    "z1": ("customer omega", ()),
    "z2": ("sigma kappa", ()),
    "z3": ("theta customer customer", ()),
}


def _shop(settings: Settings = DEFAULT_SETTINGS) -> Index:
    return Index.build((Doc(k, "s", "2026-01-01T00:00:00Z", tags, text) for k, (text, tags) in SHOP.items()), settings)


@pytest.mark.parametrize("query", ["shopper", "shopper sigma", "shoppers kappa zzzz"])
def test_a_related_word_counts_a_fifth_against_a_reference(query: str) -> None:
    words = [("shopper" if w.startswith("shopper") else w) for w in query.split()]
    got = {hit.id: hit.score for hit in _shop().search(query, min_score=0.0)}
    assert got == pytest.approx(_reference_scores(words, SHOP, ("shopper", "customer"), 0.2), abs=1e-6)
    assert {hit.id: hit.matched for hit in _shop().search(query, min_score=0.0)}.get("z1") == ()


def test_related_words_can_be_switched_off_and_skip_long_queries() -> None:
    assert _shop(Settings(thesaurus=0.0)).search("shopper") == []
    filler = "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar"
    assert {h.id for h in _shop().search(f"shopper {filler}", min_score=0.0)} == {"z1", "z3"}  # 16 words
    assert _shop().search(f"shopper {filler} papa", min_score=0.0) == []  # 17 words, as in a pasted log
