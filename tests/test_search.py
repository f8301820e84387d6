"""How memory search ranks entries, told on small hand-made memories."""

from __future__ import annotations

import math
import random

import pytest

from lean_harness.memory.search import search, segment
from lean_harness.memory.search.search import DEFAULT_MIN_SCORE, Doc, Hit, Index, Settings, stem
from lean_harness.memory.shard import title_of

MEMORY = [
    Doc(
        "lock-win",
        "failures",
        "2026-01-10T09:00:00Z",
        ("ci", "windows"),
        "test_lock hangs on Windows runners: the lock file was opened without O_BINARY.",
    ),
    Doc(
        "parse-cfg",
        "corrections",
        "2026-01-11T09:00:00Z",
        ("config",),
        "parse_config does not expand ~ in paths; call os.path.expanduser first.",
    ),
    Doc(
        "retry",
        "insights",
        "2026-01-12T09:00:00Z",
        ("network",),
        "The retry policy of the HTTP client gives up after five attempts.",
    ),
    Doc(
        "camel",
        "quirks",
        "2026-01-13T09:00:00Z",
        (),
        "HttpClient.timeoutSeconds is read once at start-up; later changes need a restart.",
    ),
    Doc(
        "store-path",
        "conventions",
        "2026-01-14T09:00:00Z",
        ("layout",),
        "Every write in src/store/writer.py goes through write_atomic.",
    ),
    Doc(
        "yaml",
        "failures",
        "2026-01-15T09:00:00Z",
        ("ci", "dependencies"),
        "Docs job fails with ModuleNotFoundError: No module named 'yaml'; install the dev extra.",
    ),
    Doc(
        "flaky",
        "failures",
        "2026-01-16T09:00:00Z",
        ("flaky",),
        "The upload test failed twice this week because it binds a fixed port.",
    ),
    Doc(
        "seed",
        "seed",
        "2026-01-01T09:00:00Z",
        (),
        "Project overview: a command line tool that keeps notes in Markdown shards.",
    ),
]


@pytest.fixture(scope="module")
def index() -> Index:
    return Index.build(MEMORY)


def ids(hits: list[Hit]) -> list[str]:
    return [hit.id for hit in hits]


def top(index: Index, query: str) -> str | None:
    """The best entry for a query at the default threshold, or None when search abstains."""
    hits = index.search(query, min_score=DEFAULT_MIN_SCORE)
    return hits[0].id if hits else None


def tokenize(text: str) -> list[str]:
    """Index terms of a text: stemmed words, whole identifiers and their parts, no stopwords."""
    return [term for term, _ in search._analyze(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("HttpClient", ["httpclient", "http", "client"], id="pascal-case"),
        pytest.param("retryPolicy", ["retrypolicy", "retri", "polici"], id="camel-case"),
        pytest.param("parse_config", ["parse_config", "pars", "config"], id="snake-case"),
        pytest.param("dry-run", ["dry-run", "dry", "run"], id="kebab-case"),
        pytest.param("src/store/lock.py", ["src/store/lock.py", "src", "stor", "lock", "py"], id="path"),
        pytest.param("HTTPServer", ["httpserver", "http", "server"], id="all-caps-run"),
        pytest.param("utf8 0xff", ["utf8", "utf", "8", "0xff", "0", "xff"], id="digits"),
        pytest.param("ECONNRESET", ["econnreset"], id="error-code"),
        pytest.param("Why does the lock hang?", ["lock", "hang"], id="stopwords"),
        pytest.param("Straße café", ["strasse", "café"], id="unicode-casefold"),
        pytest.param("__init__.py", ["init__.py", "init", "py"], id="dunder-path"),
        pytest.param("my_var.attr", ["my_var.attr", "my_var", "var", "attr"], id="stopword-part"),
        pytest.param("v1.2 x86", ["v1.2", "v1", "1", "2", "x86", "86"], id="one-letter-parts-dropped"),
        pytest.param("404", ["404", "404"], id="a-number-is-whole-and-its-own-part"),
        pytest.param("a/Bc", ["a/bc", "bc"], id="one-letter-stopword-part"),
    ],
)
def test_tokenize_keeps_whole_identifiers_and_their_parts(text: str, expected: list[str]) -> None:
    assert tokenize(text) == expected


@pytest.mark.parametrize(
    ("words", "common"),
    [
        pytest.param(("failing", "failed", "fails", "failure"), "fail", id="fail"),
        pytest.param(("tests", "test", "testing"), "test", id="test"),
        pytest.param(("retries", "retry", "retried", "retrying"), "retri", id="retry"),
        pytest.param(("configuration", "configure", "config"), "config", id="config"),
        pytest.param(("stopped", "stopping", "stop"), "stop", id="undouble"),
        pytest.param(("added", "adding", "add"), "add", id="three-letter-stem-keeps-its-double"),
        pytest.param(("caching", "cached", "cache"), "cach", id="final-e"),
    ],
)
def test_stemming_maps_inflections_together(words: tuple[str, ...], common: str) -> None:
    assert {stem(word) for word in words} == {common}


def test_short_and_non_words_are_not_stemmed() -> None:
    assert [stem(w) for w in ("is", "string", "py313", "need")] == ["is", "string", "py313", "need"]


def test_camel_case_query_finds_snake_case_note(index: Index) -> None:
    assert top(index, "parseConfig") == "parse-cfg"


def test_identifier_query_finds_words_and_words_find_identifier(index: Index) -> None:
    assert top(index, "retryPolicy") == "retry"
    assert top(index, "http client timeout seconds") == "camel"


def test_path_parts_find_the_path(index: Index) -> None:
    assert top(index, "store writer") == "store-path"
    assert top(index, "src/store/writer.py") == "store-path"


def test_partial_identifier_is_completed(index: Index) -> None:
    assert top(index, "timeoutSec") == "camel"


def test_stemming_lets_failing_tests_find_test_failed(index: Index) -> None:
    assert top(index, "failing tests upload") == "flaky"


def test_error_fragment_finds_the_failure(index: Index) -> None:
    assert top(index, "No module named yaml") == "yaml"


def test_tags_and_shard_names_are_searched(index: Index) -> None:
    assert top(index, "windows lock") == "lock-win"
    assert ids(index.search("dependencies", limit=1)) == ["yaml"]


def test_shard_filter_keeps_only_named_shards(index: Index) -> None:
    assert ids(index.search("retry config")) == ["parse-cfg", "retry"]
    assert ids(index.search("retry config", shards=["insights", "seed"])) == ["retry"]
    assert index.search("yaml", shards=["quirks"]) == []


def test_tag_filter_keeps_entries_with_every_tag(index: Index) -> None:
    assert ids(index.search("fails", tags=["ci"])) == ["yaml", "lock-win"]
    assert ids(index.search("windows lock", tags=["ci", "windows"])) == ["lock-win"]
    assert index.search("windows lock", tags=["ci", "flaky"]) == []
    assert index.search("windows lock", tags=["no-such-tag"]) == []
    assert ids(index.search("fails", tags=["CI"])) == ["yaml", "lock-win"]  # tags are compared in lower case


def test_an_index_of_one_entry_finds_it() -> None:
    index = Index.build(
        [Doc("only", "insights", "2026-01-01T00:00:00Z", ("Solo",), "Release notes live in CHANGES.md")]
    )
    assert [(h.id, h.matched) for h in index.search("release notes")] == [("only", ("release", "notes"))]
    assert ids(index.search("changes", tags=["solo"])) == ["only"]
    assert index.finds("release notes", "insights", "only", 1) is True


def test_unrelated_query_returns_nothing_at_the_default_threshold(index: Index) -> None:
    assert index.search("kubernetes helm chart ingress", min_score=DEFAULT_MIN_SCORE) == []
    assert index.search("", min_score=0.0) == []
    assert index.search("the of and", min_score=0.0) == []


def test_score_falls_with_the_share_of_the_query_that_matches(index: Index) -> None:
    scores = [index.search(query)[0].score for query in ("upload port", "upload kubernetes", "upload kubernetes helm")]
    assert scores == sorted(scores, reverse=True)
    assert scores[-1] < DEFAULT_MIN_SCORE < scores[0]


def test_hit_carries_id_shard_score_and_created(index: Index) -> None:
    hit = index.search("O_BINARY")[0]
    assert (hit.id, hit.shard, hit.created) == ("lock-win", "failures", "2026-01-10T09:00:00Z")
    assert hit.score > 0


def test_equal_scores_go_to_the_newer_entry_then_the_smaller_id() -> None:
    text = "Run the migrations before the release."
    docs = [
        Doc("b", "insights", "2026-02-01T00:00:00Z", (), text),
        Doc("a", "insights", "2026-02-01T00:00:00Z", (), text),
        Doc("c", "insights", "2026-03-01T00:00:00Z", (), text),
        Doc("d", "insights", "2025-12-01T00:00:00Z", (), text),
    ]
    assert ids(Index.build(docs).search("migrations release")) == ["c", "a", "b", "d"]


def test_limit_cuts_after_ranking() -> None:
    docs = [Doc(f"e{n}", "insights", f"2026-01-{n + 1:02d}T00:00:00Z", (), "cache miss") for n in range(9)]
    index = Index.build(docs)
    assert ids(index.search("cache", limit=3)) == ["e8", "e7", "e6"]
    assert index.search("cache", limit=0) == []


def test_an_index_keeps_where_each_entry_was_in_its_shard_file() -> None:
    docs = [
        Doc("b", "insights", "2026-01-02T00:00:00Z", (), "second"),
        Doc("a", "insights", "2026-01-01T00:00:00Z", (), "first"),
        Doc("a", "failures", "2026-01-03T00:00:00Z", (), "other shard"),
    ]
    index = Index(
        [search.segment_of(docs[:2], spans=[(120, 200), (0, 120)]), search.segment_of(docs[2:], spans=[(0, 64)])]
    )
    assert [index.span_of(shard, key) for shard, key in [("insights", "a"), ("insights", "b"), ("failures", "a")]] == [
        (0, 120),
        (120, 200),
        (0, 64),
    ]
    assert index.span_of("insights", "c") == (0, 0)  # no such entry
    assert index.span_of("quirks", "a") == (0, 0)  # no such shard
    insights = search.segment_of(docs[:2], spans=[(120, 200), (0, 120)])
    loaded = Index([_reloaded(insights, "insights")])
    assert loaded.span_of("insights", "b") == (120, 200)
    assert Index.build(docs).span_of("insights", "b") == (0, 0)  # built without spans


def _reloaded(part: segment.Segment, shard: str) -> segment.Segment:
    """A shard's segment as a query reads it back from its cache file."""
    return segment.from_bytes(part.to_bytes({}), shard)[1]


def _parts(*parts: list[Doc]) -> list[segment.Segment]:
    """A segment for each shard of each part: one shard's entries may be spread over several segments."""
    return [
        search.segment_of([d for d in part if d.shard == name])
        for part in parts
        for name in sorted({d.shard for d in part})
    ]


def _per_shard(docs: list[Doc], settings: Settings = search.DEFAULT_SETTINGS) -> Index:
    """An index of one segment per shard, each written to JSON and read back, as a query loads it."""
    names = sorted({doc.shard for doc in docs})
    parts = [search.segment_of([d for d in docs if d.shard == name], settings) for name in names]
    return Index([_reloaded(part, name) for part, name in zip(parts, names, strict=True)], settings)


def test_build_does_not_depend_on_input_order() -> None:
    shuffled = MEMORY[:]
    random.Random(3).shuffle(shuffled)
    assert [p.to_bytes({}) for p in Index.build(shuffled)._segments] == [
        p.to_bytes({}) for p in Index.build(MEMORY)._segments
    ]


def test_segments_read_back_per_shard_keep_results(index: Index) -> None:
    loaded = _per_shard(MEMORY)
    for query in ("parseConfig", "windows lock", "fails", "retry policy", "timeoutSec"):
        assert loaded.search(query) == index.search(query)
    assert len(loaded) == len(MEMORY)


def test_a_segment_holds_the_entries_of_one_shard() -> None:
    docs = [
        Doc("a", "failures", "2026-01-01T00:00:00Z", (), "lock"),
        Doc("b", "quirks", "2026-01-01T00:00:00Z", (), "lock"),
    ]
    with pytest.raises(ValueError, match=r"^a segment holds the entries of one shard$"):
        search.segment_of(docs)
    assert [part.shard for part in Index.build(docs)._segments] == ["failures", "quirks"]


def test_an_empty_segment_reads_back_and_finds_nothing() -> None:
    empty = Index([_reloaded(search.segment_of([]), "insights")])
    assert empty.search("anything") == []


ENOSPC = [
    Doc("a", "failures", "2026-02-01T00:00:00Z", (), "Release build died: disk full, ENOSPC while writing the wheel."),
    Doc(
        "b",
        "failures",
        "2026-02-02T00:00:00Z",
        (),
        "Nightly job hit ENOSPC on the runner; the disk was full of old images.",
    ),
    Doc("c", "failures", "2026-02-03T00:00:00Z", (), "Docs job stopped with ENOSPC after the cache grew."),
    Doc("d", "insights", "2026-02-04T00:00:00Z", (), "The docs cache is rebuilt every night."),
]


def test_a_word_reaches_the_words_that_share_its_entries() -> None:
    hits = Index.build(ENOSPC).search("disk")
    assert [(h.id, h.matched) for h in hits] == [("a", ("disk",)), ("b", ("disk",)), ("c", ())]  # a is shorter
    assert hits[2].score < DEFAULT_MIN_SCORE < hits[1].score


def test_associations_need_two_shared_entries_and_can_be_switched_off() -> None:
    assert ids(Index.build(ENOSPC).search("runner")) == ["b"]  # runner shares one entry with anything
    assert ids(Index.build(ENOSPC, Settings(associations=0)).search("disk")) == ["a", "b"]


# "disk" is in a and b, both sampled; "enospc" is in both and in c: it shares 2/2 of the sampled
# entries and 2 of its 3, a share of 2/2 * 2/3 = 0.67, and only through it does "disk" reach c.
@pytest.mark.parametrize(("least", "found"), [(0.0, ["a", "b", "c"]), (0.66, ["a", "b", "c"]), (0.67, ["a", "b"])])
def test_an_association_sharing_less_than_the_least_share_is_not_taken(least: float, found: list[str]) -> None:
    assert ids(Index.build(ENOSPC, Settings(association_least=least)).search("disk")) == found


@pytest.mark.parametrize(("least", "terms"), [(1.0, ["disk", "full"]), (1.01, ["disk"])])
def test_an_association_sharing_exactly_the_least_share_is_taken(least: float, terms: list[str]) -> None:
    # "full" is in a and b alone, as "disk" is: a share of 2/2 * 2/2 = 1
    index = Index.build(ENOSPC, Settings(association_least=least))
    [(_, _, _, alternatives)] = index._associate(index._concepts("disk"))
    assert [term for term, _ in alternatives] == terms


def test_settings_shape_the_index_without_touching_other_indexes() -> None:
    plain = Index.build(MEMORY, Settings(stem=False))
    assert [h.matched for h in plain.search("failing upload")] == [("upload",)]
    assert Index.build(MEMORY).search("failing upload")[0].matched == ("failing", "upload")
    restored = _per_shard(MEMORY, Settings(stem=False))
    assert restored.search("test failed upload") == plain.search("test failed upload")


def test_hits_name_the_query_words_they_hold(index: Index) -> None:
    hits = index.search("windows lock retryPolicy", min_score=0.0)
    matched = {h.id: h.matched for h in hits if h.matched}
    assert matched == {"lock-win": ("windows", "lock"), "retry": ("retry", "policy")}
    # the others hold only words WordNet relates to the query's ("fixed" for lock, "line" for policy)
    assert {h.id for h in hits if not h.matched} == {"flaky", "seed"}
    assert max(h.score for h in hits if not h.matched) < DEFAULT_MIN_SCORE


def test_long_queries_are_not_widened() -> None:
    index = Index.build(ENOSPC)
    words = [
        "alpha",
        "bravo",
        "charlie",
        "delta",
        "echo",
        "foxtrot",
        "golf",
        "hotel",
        "india",
        "juliet",
        "kilo",
        "lima",
        "mike",
        "november",
        "oscar",
        "papa",
    ]
    assert ids(index.search(" ".join(["disk", *words[:15]]))) == ["a", "b", "c"]  # 16 words: widened
    assert ids(index.search(" ".join(["disk", *words]))) == ["a", "b"]  # 17 words, as in a pasted log: not
    # finds widens exactly when search does: c holds no query word, only "ENOSPC", which shares a and b
    assert [index.finds("disk", "failures", key, 5) for key in "abcd"] == [True, True, True, False]
    assert index.finds(" ".join(["disk", *words[:15]]), "failures", "c", 5) is True
    assert index.finds(" ".join(["disk", *words]), "failures", "c", 5) is False


# -- exact scores against a reference model ----------------------------------------------------

# One-line entries of plain words that no stemmer shortens, in the shard "s" (a stopword, so the
# shard name adds no term); a word shared by two entries shares nothing else with them, so no
# query word is widened with associations.
ORACLE = {
    "x1": ("alpha beta", ()),
    "x2": ("alpha gamma gamma delta", ("gamma",)),
    "x3": ("delta", ()),
    "x4": ("omega kappa sigma lambda theta", ()),
}


def _reference_scores(
    query: list[str],
    corpus: dict[str, tuple[str, tuple[str, ...]]] = ORACLE,
    stand_in: tuple[str, str] = ("", ""),
    share: float = 0.5,
) -> dict[str, float]:
    """BM25F as the module docs state it, in plain loops: k1 = 1.2, b = 0.5; the body weighs 1 and
    the title (here the same line) 0.5, both length-normalized; tags weigh 2 and are not;
    each (word, entry) impact is stored as one of 255 levels; the sum is divided by the query's
    idf total, where a word no entry holds weighs as much as the rarest possible word.
    `stand_in` is (unknown word, its synonym): the synonym counts `share` of a word's match."""
    k1, b = 1.2, 0.5
    n = len(corpus)
    length = {key: len(text.split()) for key, (text, _) in corpus.items()}
    average = sum(length.values()) / n

    def idf(word: str) -> float:
        df = sum(1 for text, tags in corpus.values() if word in text.split() or word in tags)
        return math.log(1 + (n - df + 0.5) / (df + 0.5))

    rarest = math.log(1 + (n + 0.5) / 0.5)
    known = {w for text, tags in corpus.values() for w in (*text.split(), *tags)}
    denominator = 0.0
    for word in query:
        if word in known:
            denominator += idf(word)
        elif word == stand_in[0]:
            denominator += max(share * idf(stand_in[1]), rarest)
        else:
            denominator += rarest
    scores: dict[str, float] = {}
    for key, (text, tags) in corpus.items():
        norm = 1 / (1 - b + b * length[key] / average)
        total = 0.0
        for asked in query:
            word, part = (stand_in[1], share) if asked == stand_in[0] else (asked, 1.0)
            count = text.split().count(word)
            tf = count * norm + 0.5 * count * norm + 2.0 * tags.count(word)
            if tf == 0:
                continue
            impact = tf * (k1 + 1) / (k1 + tf)
            level = max(1, min(255, round(impact * 255 / (k1 + 1))))
            total += part * idf(word) * level * (k1 + 1) / 255
        if total:
            scores[key] = total / denominator
    return scores


@pytest.mark.parametrize(
    "query",
    ["alpha", "delta", "gamma", "alpha delta", "alpha gamma", "beta delta omega", "alpha zzzz", "kappa theta"],
)
def test_scores_match_a_reference_bm25f(query: str) -> None:
    index = Index.build(Doc(key, "s", "2026-01-01T00:00:00Z", tags, text) for key, (text, tags) in ORACLE.items())
    got = {hit.id: hit.score for hit in index.search(query, min_score=0.0)}
    assert got == pytest.approx(_reference_scores(query.split()), abs=1e-6)


@pytest.mark.parametrize(
    ("word", "stemmed"),
    [
        pytest.param("bats", "bat", id="plural-s"),
        pytest.param("flies", "fli", id="ies"),
        pytest.param("ties", "tie", id="short-ies"),
        pytest.param("classes", "class", id="sses"),
        pytest.param("glass", "glass", id="ss"),
        pytest.param("status", "status", id="us"),
        pytest.param("analysis", "analysis", id="is"),
        pytest.param("configurations", "config", id="urations"),
        pytest.param("running", "run", id="undouble-n"),
        pytest.param("falling", "fall", id="keep-ll"),
        pytest.param("buzzed", "buzz", id="keep-zz"),
        pytest.param("sing", "sing", id="base-too-short"),
        pytest.param("spring", "spring", id="no-vowel-before-the-last-letter"),
        pytest.param("skying", "skying", id="vowel-only-last"),
        pytest.param("quickly", "quick", id="ly"),
        pytest.param("deployment", "deploy", id="ment-and-vowel-y"),
        pytest.param("loudness", "loud", id="ness"),
        pytest.param("happy", "happi", id="consonant-y"),
        pytest.param("buses", "bus", id="es-then-e"),
        pytest.param("seed", "seed", id="ed-base-too-short"),
        pytest.param("Tests", "Test", id="capital"),
        pytest.param("naïve", "naïve", id="non-ascii"),
        pytest.param("ads", "ads", id="three-letters-kept-whole"),
        pytest.param("dyes", "dye", id="three-letter-stem-keeps-its-e"),
        pytest.param("code", "cod", id="four-letter-final-e"),
        pytest.param("surprisingly", "surpris", id="ingly"),
        pytest.param("reportedly", "report", id="edly"),
        pytest.param("validation", "valid", id="ation"),
        pytest.param("validations", "valid", id="ations"),
        pytest.param("failure", "fail", id="ure"),
        pytest.param("hopped", "hop", id="undouble-ed"),
        pytest.param("passing", "pass", id="keep-ss"),
        pytest.param("ties", "tie", id="ies-of-four-letters"),
        pytest.param("hoped", "hop", id="ed-after-a-single-consonant"),
        pytest.param("bed", "bed", id="three-letters-ed"),
    ],
)
def test_stem_table(word: str, stemmed: str) -> None:
    assert stem(word) == stemmed


SYNONYMS = {
    "y1": ("lock omega kappa", ()),
    "y2": ("lock theta", ()),
    "y3": ("sigma", ()),
    "y4": ("gamma delta", ()),
}


@pytest.mark.parametrize("query", ["mutex", "mutex sigma", "sigma mutex zzzz"])
def test_a_synonym_of_an_unknown_word_scores_half_against_a_reference(query: str) -> None:
    index = Index.build(Doc(key, "s", "2026-01-01T00:00:00Z", tags, text) for key, (text, tags) in SYNONYMS.items())
    got = {hit.id: hit.score for hit in index.search(query, min_score=0.0)}
    assert got == pytest.approx(_reference_scores(query.split(), SYNONYMS, ("mutex", "lock")), abs=1e-6)
    assert {hit.id: hit.matched for hit in index.search(query, min_score=0.0)}.get("y1") == ("mutex",)


def test_a_related_word_that_is_also_asked_counts_once() -> None:
    """WordNet relates "word" to "language"; asked together, an entry holding one counts it for that word only."""
    docs = [("a", "language"), ("b", "word"), ("c", "alpha beta"), ("d", "gamma delta")]
    index = Index.build(Doc(key, "s", "2026-01-01T00:00:00Z", (), text) for key, text in docs)
    alone = {hit.id: hit.score for hit in index.search("language", min_score=0.0)}
    assert alone == pytest.approx({"a": 1.32, "b": 0.2 * 1.32})  # "word" reaches "language" at 0.2
    both = {hit.id: hit.score for hit in index.search("language word", min_score=0.0)}
    assert both == pytest.approx({"a": 1.32 / 2, "b": 1.32 / 2})  # two words of equal idf: half each


PREFIX = "one two three four five six seven eight nine ten eleven twelve thirteen "  # 72 characters


def test_the_title_field_holds_the_title_lh_shows_without_the_word_its_cut_splits() -> None:
    """A title (`shard.title_of`) is the first line cut at 79 characters; a word the cut splits is body only."""
    docs = {
        "early": f"zebrafish {PREFIX}padding words",
        "cut": f"{PREFIX}zebrafish padding words",  # the title ends "thirteen zebrafi…"
        "late": f"{PREFIX}padding zebrafish words",
    }
    assert title_of(docs["cut"]) == f"{PREFIX}zebrafi…"
    index = Index.build(Doc(key, "s", "2026-01-01T00:00:00Z", (), text) for key, text in docs.items())
    scores = {hit.id: hit.score for hit in index.search("zebrafish", min_score=0.0)}
    assert scores["early"] > scores["cut"] == scores["late"] > 0
    # "zebrafi" is no index term: it is completed to "zebrafish" in every entry, at half weight
    partial = {hit.id: hit.score for hit in index.search("zebrafi", min_score=0.0)}
    assert partial["early"] > partial["cut"] == partial["late"] > 0


@pytest.mark.parametrize(
    ("line", "title"),
    [
        pytest.param("short line", "short line", id="whole"),
        pytest.param(f"{PREFIX}zebrafish padding words", PREFIX.rstrip(), id="a word cut"),
        pytest.param(f"{PREFIX}zebraf padding words", f"{PREFIX}zebraf", id="cut after a word"),
        pytest.param(f"{PREFIX}zebrafi\tpadding words", f"{PREFIX}zebrafi", id="cut before a tab"),
        pytest.param(f"{PREFIX[:-1]}\tzebrafish padding", PREFIX[:-1], id="a word after a tab cut"),
        pytest.param("x" * 100, "", id="one long token"),
        pytest.param("## heading\nbody", "heading", id="markdown marks"),
    ],
)
def test_the_title_field_text(line: str, title: str) -> None:
    assert search._title(line) == title


def test_synonyms_can_be_switched_off() -> None:
    index = Index.build(
        (Doc(key, "s", "2026-01-01T00:00:00Z", tags, text) for key, (text, tags) in SYNONYMS.items()),
        Settings(synonym=0.0),
    )
    assert index.search("mutex", min_score=0.0) == []


JOINED = [
    Doc("a", "s", "2026-01-01T00:00:00Z", (), "lock file written"),
    Doc("b", "s", "2026-01-02T00:00:00Z", (), "file server"),
    Doc("c", "s", "2026-01-03T00:00:00Z", (), "timeoutSeconds default"),
    Doc("d", "s", "2026-01-04T00:00:00Z", (), "ports 123 and 456"),
]


@pytest.mark.parametrize(
    ("query", "found"),
    [
        pytest.param("lockfile", [("a", ("lockfile",)), ("b", ("lockfile",))], id="rejoined-from-known-parts"),
        pytest.param("fileserver", [("b", ("fileserver",)), ("a", ("fileserver",))], id="rejoined-other-order"),
        pytest.param("lockf", [], id="too-short-to-rejoin"),
        pytest.param("timeoutSec", [("c", ("timeoutsec", "timeout"))], id="prefix-of-an-identifier-and-its-known-part"),
        pytest.param("tim", [], id="prefix-too-short"),
        pytest.param("123456", [], id="a-number-is-not-rejoined-from-numbers"),
        pytest.param("123", [("d", ("123",))], id="a-number-is-found-whole"),
    ],
)
def test_unknown_words_are_rejoined_or_completed(query: str, found: list[tuple[str, tuple[str, ...]]]) -> None:
    hits = Index.build(JOINED).search(query, min_score=0.0)
    assert [(h.id, h.matched) for h in hits] == found


def test_unknown_words_are_neither_rejoined_nor_completed_when_switched_off() -> None:
    index = Index.build(JOINED, Settings(expand_unknown=False))
    assert index.search("lockfile", min_score=0.0) == []
    assert index.search("timeou", min_score=0.0) == []
    # the identifier's whole is not completed; its part that the memory holds still counts
    assert [(h.id, h.matched) for h in index.search("timeoutSec", min_score=0.0)] == [("c", ("timeout",))]


def test_an_unknown_identifier_reaches_the_first_fifty_identifiers_it_starts() -> None:
    docs = [Doc(f"t{n}", "s", "2026-01-01T00:00:00Z", (), f"ticket{n}") for n in range(1000, 1055)]
    hits = Index.build(docs).search("ticket10", limit=100)
    # all hold the part "ticket"; only ticket1000 to ticket1049 (in sorted order) also answer the whole
    assert sorted(h.id for h in hits[:50]) == [f"t{n}" for n in range(1000, 1050)]
    assert {h.matched for h in hits[:50]} == {("ticket10", "ticket")}
    assert hits[49].score > hits[50].score == hits[54].score
    assert sorted(h.id for h in hits[50:]) == [f"t{n}" for n in range(1050, 1055)]
    assert {h.matched for h in hits[50:]} == {("ticket",)}


def _corpus(count: int, seed: int) -> list[Doc]:
    """Notes from a small vocabulary, so that many share words, scores tie and titles repeat."""
    rng = random.Random(seed)
    words = ["lock", "cache", "retry", "proxy", "token", "windows", "flaky", "timeout", "upload", "retryPolicy"]
    words += ["sqlite", "disk", "ENOSPC", "fsync", "os.replace", "parse_config", "runner", "merge", "shard", "ci"]
    docs = []
    for number in range(count):
        title = " ".join(rng.choice(words) for _ in range(rng.randrange(1, 7)))
        body = " ".join(rng.choice(words) for _ in range(rng.randrange(0, 30)))
        created = f"2026-01-{rng.randrange(1, 4):02d}T00:00:00Z"
        tags = tuple(rng.sample(["ci", "windows", "db"], rng.randrange(0, 2)))
        docs.append(Doc(f"e{number:03d}", rng.choice(["failures", "insights"]), created, tags, f"{title}\n{body}"))
    return docs


# Every entry holding "cache" scores the same (same words, same lengths); "disk full" holds no
# query word, and the shard name "failures" it shares with one cache entry is no association.
TIED = [
    Doc("d", "insights", "2025-12-01T00:00:00Z", (), "cache miss"),
    Doc("b", "insights", "2026-02-01T00:00:00Z", (), "cache miss"),
    Doc("a", "insights", "2026-02-01T00:00:00Z", (), "cache miss"),
    Doc("a", "failures", "2026-02-01T00:00:00Z", (), "cache miss"),
    Doc("c", "insights", "2026-03-01T00:00:00Z", (), "cache miss"),
    Doc("e", "insights", "2026-04-01T00:00:00Z", (), "cache hit"),
    Doc("f", "failures", "2026-05-01T00:00:00Z", (), "disk full"),
]
# newest first, then the smaller id, then the shard name
TIED_ORDER = [
    ("insights", "e"),
    ("insights", "c"),
    ("failures", "a"),
    ("insights", "a"),
    ("insights", "b"),
    ("insights", "d"),
]


def test_ties_rank_newest_first_then_by_id_then_by_shard() -> None:
    hits = Index.build(TIED).search("cache", limit=10)
    assert [(h.shard, h.id) for h in hits] == TIED_ORDER
    assert len({h.score for h in hits}) == 1


@pytest.mark.parametrize("limit", range(-1, 9))
def test_finds_places_tied_entries_as_search_does(limit: int) -> None:
    index = Index.build(TIED)
    for place, (shard, key) in enumerate(TIED_ORDER):
        assert index.finds("cache", shard, key, limit) is (place < limit), (shard, key)
    assert index.finds("cache", "failures", "f", limit) is False  # holds no query word, however many fit
    assert index.finds("cache", "quirks", "a", limit) is False  # no entry a in that shard


def test_finds_nothing_for_a_query_of_stopwords_or_of_nothing() -> None:
    index = Index.build(TIED)
    for query in ("", "the of and", "why does it", "?!"):
        assert [index.finds(query, shard, key, 10) for shard, key in TIED_ORDER] == [False] * 6, query


@pytest.mark.parametrize("reverse", [False, True])
def test_finds_places_an_entry_by_its_best_placed_copy(reverse: bool) -> None:
    """Two copies of one entry (a hand edit, a merge of two branches) are two hits; the newer is first."""
    docs = [
        Doc("x", "insights", "2026-01-01T00:00:00Z", (), "cache miss"),
        Doc("x", "insights", "2026-06-01T00:00:00Z", (), "cache miss"),
        Doc("y", "insights", "2026-03-01T00:00:00Z", (), "cache miss"),
    ]
    index = Index.build(docs[::-1] if reverse else docs)
    assert [(h.id, h.created[:7]) for h in index.search("cache")] == [
        ("x", "2026-06"),
        ("y", "2026-03"),
        ("x", "2026-01"),
    ]
    assert [index.finds("cache", "insights", "x", limit) for limit in (1, 2, 3)] == [True, True, True]
    assert [index.finds("cache", "insights", "y", limit) for limit in (1, 2, 3)] == [False, True, True]


@pytest.mark.parametrize("seed", [1, 2])
def test_finds_answers_as_search_does(seed: int) -> None:
    docs = _corpus(120, seed)
    index = Index.build(docs)
    for doc in docs:
        title = doc.text.splitlines()[0]
        for limit in (1, 5):
            hits = index.search(title, limit=limit, min_score=0.0)
            expected = (doc.shard, doc.id) in [(h.shard, h.id) for h in hits]
            assert index.finds(title, doc.shard, doc.id, limit) is expected, (doc, limit)
    assert index.finds("lock", "failures", "missing", 5) is False


def _rare_corpus(seed: int) -> list[Doc]:
    """Notes of a few common words and many rare ones, some travelling in pairs (so queries are
    widened with associations and a rare word outweighs several common ones), with ids shared
    across shards, an exact copy now and then, and few dates (so scores and dates tie)."""
    rng = random.Random(seed)
    common = ["cache", "lock", "retry", "build"]
    rare = ["enospc disk", "sqlite", "fsync", "proxy", "token", "upload", "merge conflict", "runner", "yaml"]
    rare += ["HttpClient", "os.replace", "parse_config", "deadlock", "timeout", "windows", "kernel panic", "mutex"]
    docs: list[Doc] = []
    for number in range(60):
        title = " ".join([*rng.sample(common, rng.randrange(0, 3)), *rng.sample(rare, rng.randrange(1, 3))])
        body = " ".join(rng.choice(common + rare) for _ in range(rng.randrange(0, 8)))
        tags = tuple(rng.sample(["ci", "db", "windows"], rng.randrange(0, 2)))
        created = f"2026-01-0{rng.randrange(1, 4)}T00:00:00Z"
        doc = Doc(f"n{rng.randrange(45)}", rng.choice(["failures", "insights"]), created, tags, f"{title}\n{body}")
        docs.append(doc)
        if number % 15 == 0:
            docs.append(Doc(doc.id, doc.shard, "2026-01-04T00:00:00Z", doc.tags, doc.text))  # a copy, newer
    return docs


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_finds_answers_as_search_does_when_rare_words_and_associations_decide(seed: int) -> None:
    docs = _rare_corpus(seed)
    index = Index.build(docs)
    rng = random.Random(seed)
    words = [
        "cache",
        "lock",
        "retry",
        "build",
        "enospc",
        "disk",
        "sqlite",
        "proxy",
        "merge",
        "runner",
        "timeout",
        "windows",
        "mutex",
        "zzzz",
        "the",
    ]
    queries = [doc.text.splitlines()[0] for doc in docs[:6]]
    queries += [" ".join(rng.sample(words, rng.randrange(1, 5))) for _ in range(6)]
    queries += ["parseConfig disk", "os.replace fsync zzzz qqqq", "httpclient.timeout", "deadlocks"]
    keys = sorted({(doc.shard, doc.id) for doc in docs})
    for query in queries:
        for limit in (1, 3):
            listed = {(h.shard, h.id) for h in index.search(query, limit=limit)}
            found = {key for key in keys if index.finds(query, *key, limit)}
            assert found == listed, (query, limit)


def test_segments_learn_the_associations_one_index_learns() -> None:
    """Associations are learned from a word's first fifty entries in (id, shard) order, whichever
    segments hold them: here common words are in more than fifty entries and rare ones widen."""
    docs = _rare_corpus(13) + [Doc(f"r{d.id}", d.shard, d.created, d.tags, d.text) for d in _rare_corpus(14)]
    random.Random(13).shuffle(docs)
    whole = Index.build(docs)
    split = Index(_parts(*(docs[n : n + 40] for n in range(0, len(docs), 40))))
    assert len(split._segments) == sum(len({d.shard for d in docs[n : n + 40]}) for n in range(0, len(docs), 40)) > 4
    for text in ["cache", "lock enospc", "build", "sqlite", "retry proxy", "merge", "kernel", "windows timeout"]:
        assert split.search(text, limit=30) == whole.search(text, limit=30), text


def _varied(count: int, seed: int) -> list[Doc]:
    """Notes mixing words WordNet relates, identifiers, paths that one note alone names, titles and
    times that repeat (ties on score and on time), so that every way `finds` bounds a score is met."""
    rng = random.Random(seed)
    words = ["fail", "failure", "crash", "error", "broken", "slow", "latency", "quick", "hang", "freeze"]
    words += ["cache", "lock", "disk", "drive", "storage", "memory", "store", "runner", "merge", "the", "of"]
    words += ["retryPolicy", "os.replace", "parse_config", "ENOSPC", "sqlite", "database", "windows", "ci"]
    titles = [" ".join(rng.choice(words) for _ in range(rng.randrange(1, 5))) for _ in range(count // 10)]
    docs = []
    for _ in range(count):
        if rng.random() < 0.3:
            title = rng.choice(titles)  # the same first line as other notes
        else:
            title = " ".join(rng.choice(words) for _ in range(rng.randrange(1, 10)))
            if rng.random() < 0.4:
                title += f" src/app/mod_{rng.randrange(count)}.py:{rng.randrange(1, 400)}"
        body = " ".join(rng.choice(words) for _ in range(rng.randrange(0, 40)))
        created = f"2026-02-0{rng.randrange(1, 4)}T00:00:00Z"
        tags = tuple(rng.sample(["ci", "windows", "db"], rng.randrange(0, 3)))
        docs.append(
            Doc(f"n{rng.randrange(10**6):06d}", rng.choice(["failures", "quirks"]), created, tags, f"{title}\n{body}")
        )
    return docs


@pytest.mark.parametrize("seed", [11, 12, 13, 14])
def test_finds_answers_as_search_does_over_segments_and_copies(seed: int) -> None:
    docs = _varied(150, seed)
    rng = random.Random(seed)
    copies = rng.sample(docs, 6)  # the same entries again, as a shard that repeats an id holds them
    parts = [docs[:60], docs[60:125], docs[125:], copies]
    index = Index(_parts(*parts))
    queries = [doc.text.splitlines()[0] for doc in rng.sample(docs, 20)]
    outcomes = set()
    for number, doc in enumerate(docs):
        for query in [doc.text.splitlines()[0] if number % 2 else rng.choice(queries)]:
            for limit in (1, 2, 5):
                hits = index.search(query, limit=limit, min_score=0.0)
                expected = (doc.shard, doc.id) in [(h.shard, h.id) for h in hits]
                assert index.finds(query, doc.shard, doc.id, limit) is expected, (doc, query, limit)
                outcomes.add(expected)
    assert outcomes == {True, False}


@pytest.mark.parametrize("seed", [4, 5])
def test_segments_rank_as_one_index_over_all_their_entries(seed: int) -> None:
    docs = _corpus(200, seed)
    rng = random.Random(seed)
    rng.shuffle(docs)  # each part holds ids from all over: merging must put them back in order
    cuts = sorted(rng.sample(range(1, len(docs)), 4))
    parts = [docs[a:b] for a, b in zip([0, *cuts], [*cuts, len(docs)], strict=True)]
    whole = Index.build(docs)
    split = Index(_parts(*parts))
    loaded = _per_shard(docs)  # as a query reads the cache: one segment per shard
    for text in ["lock retry", "retry", "ENOSPC disk", "parse config", "retr", "lockfile", "windows flaky ci"]:
        for options in ({}, {"min_score": 0.0, "limit": 300}, {"tags": ["ci"]}, {"shards": ["failures"]}):
            assert split.search(text, **options) == whole.search(text, **options), (text, options)  # type: ignore[arg-type]
            assert loaded.search(text, **options) == whole.search(text, **options), (text, options)  # type: ignore[arg-type]


def test_the_index_lists_prefixed_terms_and_tagged_entries_as_its_entries_say() -> None:
    docs = _varied(150, 21)
    index = Index(_parts(docs[:50], docs[50:120], docs[120:]))
    postings = index._postings
    vocabulary = sorted({term for doc in docs for term in tokenize(f"{doc.text} {' '.join(doc.tags)} {doc.shard}")})
    for prefix in ("", "c", "cach", "s", "src", "zz", "wind", "o"):
        for count in (1, 3, 50):
            assert postings.prefixed(prefix, count) == [t for t in vocabulary if t.startswith(prefix)][:count]
    for tag in ("ci", "windows", "db", "nope"):
        carrying = {(doc.id, doc.shard) for doc in docs if tag in doc.tags}
        assert {(index._ids[d], index._shards[d]) for d in postings.tagged(tag)} == carrying


def test_a_search_lists_ten_hits_unless_told_otherwise() -> None:
    docs = [Doc(f"e{n:02d}", "failures", f"2026-01-{n + 1:02d}T00:00:00Z", (), f"cache miss {n}") for n in range(14)]
    index = Index.build(docs)
    assert len(index.search("cache", min_score=0.0)) == 10
    assert len(index.search("cache", limit=12, min_score=0.0)) == 12
    assert index.search("cache", limit=0) == []


def test_the_forward_list_holds_every_term_of_the_first_entry_too() -> None:
    index = Index.build([Doc("a", "zz", "2026-01-01T00:00:00Z", (), "alpha lock"), Doc("b", "zz", "", (), "lock")])
    assert sorted(index._postings.terms_of(0)) == ["alpha", "lock", "zz"]  # "zz" is the shard field
    assert sorted(index._postings.terms_of(1)) == ["lock", "zz"]
