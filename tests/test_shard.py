"""The shard format: entries between comment markers, prose kept, byte-identical round trips."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lean_harness.errors import LhError
from lean_harness.memory import shard as shard_module
from lean_harness.memory.shard import (
    Conflict,
    Entry,
    Shard,
    ShardError,
    append_entries,
    append_text,
    by_writing,
    derive_id,
    entry_at,
    marker_kind,
    new_shard_text,
    normalize_text,
    parse,
    refuse_conflicting_ids,
    render,
    render_entry,
    split_lines,
    text_hash,
    title_of,
    without_duplicates,
    written,
)
from support import lh

EXAMPLE = """# failures

Failures seen here and what fixed them.

<!-- lh:entry id="3f9a1c2b7d4e" created="2026-11-30T11:32:07Z" tags="ci windows" -->
test_lock times out on Windows runners.

Cause: the lock file was opened in text mode.
<!-- /lh:entry -->

A note a person wrote by hand between entries.

<!-- lh:entry id="npm-proxy" created="2026-11-29T08:00:00Z" updated="2026-11-30T09:00:00Z" -->
npm ci fails behind a proxy
<!-- /lh:entry -->
"""


def test_parse_reads_entries_and_keeps_prose() -> None:
    shard = parse(EXAMPLE)
    first, second = shard.entries
    assert first == Entry(
        "3f9a1c2b7d4e",
        "2026-11-30T11:32:07Z",
        "test_lock times out on Windows runners.\n\nCause: the lock file was opened in text mode.",
        ("ci", "windows"),
    )
    assert second.attr("updated") == "2026-11-30T09:00:00Z"
    assert first.line == 5
    prose = [b for b in shard.blocks if isinstance(b, str)]
    assert any("by hand between entries" in p for p in prose)


def test_unchanged_shard_renders_byte_identical() -> None:
    assert render(parse(EXAMPLE)) == EXAMPLE


def test_crlf_shard_round_trips_and_new_entries_follow_its_line_endings() -> None:
    crlf = EXAMPLE.replace("\n", "\r\n")
    shard = parse(crlf)
    assert render(shard) == crlf
    assert shard.entries[0].text.count("\r") == 0
    added = append_text(crlf, Entry("new", "2026-12-01T00:00:00Z", "one\ntwo"), shard.newline)
    assert added.endswith(
        '<!-- lh:entry id="new" created="2026-12-01T00:00:00Z" -->\r\none\r\ntwo\r\n<!-- /lh:entry id="new" -->\r\n'
    )


def test_new_entry_renders_in_the_documented_shape() -> None:
    entry = Entry("k1", "2026-01-31T09:00:00Z", "line one\nline two", ("a", "b"), (("allow-secret", "jwt"),))
    assert render_entry(entry) == (
        '<!-- lh:entry id="k1" created="2026-01-31T09:00:00Z" tags="a b" allow-secret="jwt" -->\n'
        "line one\nline two\n"
        '<!-- /lh:entry id="k1" -->\n'
    )


def test_append_separates_entries_with_one_blank_line() -> None:
    text = new_shard_text("quirks", "Odd things.")
    once = append_text(text, Entry("a", "2026-01-01T00:00:00Z", "first"))
    twice = append_text(once, Entry("b", "2026-01-02T00:00:00Z", "second"))
    assert twice == (
        "# quirks\n\nOdd things.\n\n"
        '<!-- lh:entry id="a" created="2026-01-01T00:00:00Z" -->\nfirst\n<!-- /lh:entry id="a" -->\n\n'
        '<!-- lh:entry id="b" created="2026-01-02T00:00:00Z" -->\nsecond\n<!-- /lh:entry id="b" -->\n'
    )
    assert [e.id for e in parse(twice).entries] == ["a", "b"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            '<!-- lh:entry id="a" created="2026-01-01T00:00:00Z" -->\ntext\n',
            'f.md:1: entry a is not closed; add <!-- /lh:entry id="a" --> after its text',
            id="unclosed",
        ),
        pytest.param(
            '<!-- lh:entry id="a" created="2026-01-01T00:00:00Z" -->\nx\n'
            '<!-- lh:entry id="b" created="2026-01-01T00:00:00Z" -->\n',
            "f.md:1: entry a is not closed before the next entry starts",
            id="half-written",
        ),
        pytest.param(
            "prose\n<!-- /lh:entry -->\n", "f.md:2: entry end marker without a start; remove it", id="stray-end"
        ),
        pytest.param(
            "# x\n<<<<<<< HEAD\na\n=======\nb\n>>>>>>> other\n",
            'f.md:2: git conflict marker; resolve the conflict (keep both entries), then run "lh memory index"',
            id="conflict",
        ),
        pytest.param(
            '<!-- lh:entry created="2026-01-01T00:00:00Z" -->\nx\n<!-- /lh:entry -->\n',
            "f.md:1: entry id '' is missing or not a valid id",
            id="no-id",
        ),
        pytest.param(
            '<!-- lh:entry id="a" created="yesterday" -->\nx\n<!-- /lh:entry -->\n',
            "f.md:1: entry a has created='yesterday'; expected a UTC time like 2026-01-31T09:00:00Z",
            id="bad-time",
        ),
        pytest.param(
            "<!-- lh:entry id=a -->\nx\n<!-- /lh:entry -->\n",
            'f.md:1: malformed entry header; expected <!-- lh:entry id="..." created="..." -->',
            id="malformed-header",
        ),
    ],
)
def test_broken_structure_names_file_and_line(text: str, message: str) -> None:
    with pytest.raises(ShardError) as raised:
        parse(text, "f.md")
    assert raised.value.message == message


def test_plain_markdown_without_entries_is_all_prose() -> None:
    text = "# Notes\n\n- a list\n- <!-- a comment -->\n"
    shard = parse(text)
    assert shard.entries == ()
    assert render(shard) == text


def test_derive_id_is_stable_and_avoids_taken_ids() -> None:
    first = derive_id("failures", "some text")
    assert first == derive_id("failures", "some text  \n")
    assert len(first) == 12
    assert first != derive_id("quirks", "some text")
    longer = derive_id("failures", "some text", taken={first})
    assert longer.startswith(first)
    assert len(longer) == 13


def test_title_is_the_first_line_without_markdown_marks() -> None:
    assert title_of("\n## Flaky lock test\nmore") == "Flaky lock test"
    assert title_of("- item") == "item"
    assert len(title_of("x" * 200)) == 80


def test_normalize_strips_trailing_space_and_outer_blank_lines() -> None:
    assert normalize_text("\n\n a  \r\nb\t\n\n") == " a\nb"


safe_line = st.text(
    alphabet=st.characters(
        blacklist_categories=("Cs",), blacklist_characters="\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
    ),
    max_size=40,
).filter(
    lambda s: (
        not s.startswith(("<<<<<<<", ">>>>>>>", "|||||||", "<!-- lh:entry ")) and s.strip() != "<!-- /lh:entry -->"
    )
)
entry_text = st.lists(safe_line, min_size=1, max_size=5).map("\n".join).filter(lambda t: t.strip() != "")
entries = st.builds(
    Entry,
    id=st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._-]{0,20}", fullmatch=True),
    created=st.just("2026-05-01T10:00:00Z"),
    text=entry_text.map(normalize_text).filter(bool),
    tags=st.lists(st.from_regex(r"[a-z0-9][a-z0-9-]{0,8}", fullmatch=True), max_size=3, unique=True).map(tuple),
)
prose = st.lists(safe_line, max_size=3).map(lambda lines: "".join(line + "\n" for line in lines))


@settings(max_examples=200, deadline=None)
@given(blocks=st.lists(st.tuples(prose, entries), max_size=6), tail=prose)
def test_parse_then_render_round_trips(blocks: list[tuple[str, Entry]], tail: str) -> None:
    text = "".join(p + render_entry(e) for p, e in blocks) + tail
    shard = parse(text)
    assert render(shard) == text
    assert [(e.id, e.text, e.tags) for e in shard.entries] == [(e.id, e.text, e.tags) for _, e in blocks]
    rebuilt = parse(render(type(shard)(tuple(_fresh(b) for b in shard.blocks), shard.newline)))
    assert rebuilt.entries == shard.entries


def _fresh(block: str | Entry) -> str | Entry:
    return block if isinstance(block, str) else Entry(block.id, block.created, block.text, block.tags, block.extra)


# -- exact output for small hand-made inputs ----------------------------------------------------

CRLF_EXAMPLE = (
    "# quirks\r\n"
    "\r\n"
    '<!-- lh:entry id="a1" created="2026-01-01T00:00:00Z" tags="x" -->\r\n'
    "first line\r\n"
    "\r\n"
    "third line\r\n"
    '<!-- /lh:entry id="a1" -->\r\n'
    "\r\n"
    '<!-- lh:entry id="b2" created="2026-01-02T00:00:00Z" -->\r\n'
    "ok\r\n"
    "<!-- /lh:entry -->\r\n"
)


def test_a_crlf_shard_parses_to_whole_entries() -> None:
    shard = parse(CRLF_EXAMPLE)
    assert shard.newline == "\r\n"
    assert shard.entries == (
        Entry("a1", "2026-01-01T00:00:00Z", "first line\n\nthird line", ("x",)),
        Entry("b2", "2026-01-02T00:00:00Z", "ok"),
    )
    assert [e.line for e in shard.entries] == [3, 9]
    assert shard.blocks[0] == "# quirks\r\n\r\n"
    assert shard.blocks[2] == "\r\n"


@pytest.mark.parametrize(
    ("existing", "expected"),
    [
        pytest.param(
            "", '<!-- lh:entry id="n" created="2026-02-01T00:00:00Z" -->\nnew\n<!-- /lh:entry id="n" -->\n', id="empty"
        ),
        pytest.param(
            "# quirks",
            '# quirks\n\n<!-- lh:entry id="n" created="2026-02-01T00:00:00Z" -->\nnew\n<!-- /lh:entry id="n" -->\n',
            id="no-trailing-newline",
        ),
        pytest.param(
            "# quirks\n",
            '# quirks\n\n<!-- lh:entry id="n" created="2026-02-01T00:00:00Z" -->\nnew\n<!-- /lh:entry id="n" -->\n',
            id="one-newline",
        ),
        pytest.param(
            "# quirks\n\n",
            '# quirks\n\n<!-- lh:entry id="n" created="2026-02-01T00:00:00Z" -->\nnew\n<!-- /lh:entry id="n" -->\n',
            id="blank-line-already",
        ),
    ],
)
def test_append_puts_exactly_one_blank_line_before_the_entry(existing: str, expected: str) -> None:
    assert append_text(existing, Entry("n", "2026-02-01T00:00:00Z", "new")) == expected


def test_append_to_a_crlf_shard_without_a_trailing_newline_keeps_crlf() -> None:
    added = append_text("# quirks\r\n\r\nprose", Entry("n", "2026-02-01T00:00:00Z", "a\nb"), "\r\n")
    assert added == (
        "# quirks\r\n\r\nprose\r\n\r\n"
        '<!-- lh:entry id="n" created="2026-02-01T00:00:00Z" -->\r\na\r\nb\r\n<!-- /lh:entry id="n" -->\r\n'
    )
    assert parse(added).entries == (Entry("n", "2026-02-01T00:00:00Z", "a\nb"),)


def test_append_entries_writes_each_after_one_blank_line() -> None:
    one = Entry("a", "2026-01-01T00:00:00Z", "first")
    two = Entry("b", "2026-01-02T00:00:00Z", "second", ("t",))
    assert append_entries("# s\n", []) == "# s\n"
    assert append_entries("# s\n", [one, two]) == (
        "# s\n\n"
        '<!-- lh:entry id="a" created="2026-01-01T00:00:00Z" -->\nfirst\n<!-- /lh:entry id="a" -->\n\n'
        '<!-- lh:entry id="b" created="2026-01-02T00:00:00Z" tags="t" -->\nsecond\n<!-- /lh:entry id="b" -->\n'
    )
    assert append_entries("# s", [one], "\r\n") == (
        '# s\r\n\r\n<!-- lh:entry id="a" created="2026-01-01T00:00:00Z" -->\r\nfirst\r\n<!-- /lh:entry id="a" -->\r\n'
    )


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        pytest.param((("note", 'a "quote"'),), "entry a: header attribute note cannot hold 'a \"quote\"'", id="quote"),
        pytest.param((("note", "end -->"),), "entry a: header attribute note cannot hold 'end -->'", id="comment-end"),
        pytest.param(
            (("note", "two\nlines"),), "entry a: header attribute note cannot hold 'two\\nlines'", id="newline"
        ),
    ],
)
def test_render_refuses_a_header_value_that_would_break_the_header(
    extra: tuple[tuple[str, str], ...], message: str
) -> None:
    with pytest.raises(ValueError, match=r"^entry a: header attribute ") as raised:
        render_entry(Entry("a", "2026-01-01T00:00:00Z", "x", (), extra))
    assert str(raised.value) == message


def test_render_refuses_a_tag_value_with_a_quote() -> None:
    with pytest.raises(ValueError, match=r"^entry a: header attribute ") as raised:
        render_entry(Entry("a", "2026-01-01T00:00:00Z", "x", ('t"',)))
    assert str(raised.value) == "entry a: header attribute tags cannot hold 't\"'"


@pytest.mark.parametrize(
    ("text", "title"),
    [
        pytest.param("", "", id="empty"),
        pytest.param("  \n\t\n", "", id="blank"),
        pytest.param("# \n\n  * real title  \nmore", "real title", id="first-non-blank"),
        pytest.param("-> arrow", "-> arrow", id="arrow"),
        pytest.param("--line-ranges: cite lines", "--line-ranges: cite lines", id="double-dash"),
        pytest.param("> - ## quoted", "quoted", id="quote-bullet-heading"),
        pytest.param("a\x1b[0mb", "a[0mb", id="control-removed"),
        pytest.param("x" * 80, "x" * 80, id="exactly-80"),
        pytest.param("x" * 81, "x" * 79 + "…", id="81"),
        pytest.param("x" * 78 + " yz", "x" * 78 + "…", id="cut-after-a-space"),
    ],
)
def test_title_edges(text: str, title: str) -> None:
    assert title_of(text) == title


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        pytest.param('<!-- lh:entry id="a" -->\r\n', "open", id="open"),
        pytest.param(' <!-- lh:entry id="a" -->', None, id="indented-open"),
        pytest.param("<!-- /lh:entry -->\n", "close", id="close"),
        pytest.param('  <!-- /lh:entry id="a" -->  \r\n', "close", id="close-with-id-and-spaces"),
        pytest.param("<!-- /lh:entry id=a -->", None, id="close-unquoted"),
        pytest.param("<<<<<<< HEAD", "conflict", id="ours"),
        pytest.param("|||||||", "conflict", id="base"),
        pytest.param(">>>>>>> theirs", "conflict", id="theirs"),
        pytest.param("=======", None, id="separator"),
        pytest.param("<<<<<< six", None, id="six"),
    ],
)
def test_marker_kind(line: str, kind: str | None) -> None:
    assert marker_kind(line) == kind


def test_split_lines_keeps_endings_and_a_last_line_without_one() -> None:
    assert split_lines("") == []
    assert split_lines("a\r\nb\n\nc") == ["a\r\n", "b\n", "\n", "c"]
    assert split_lines("a\n") == ["a\n"]


def test_derive_id_gives_up_when_every_length_is_taken() -> None:
    digest = hashlib.sha256(b"s\nt").hexdigest()
    taken = {digest[:size] for size in range(12, 65)}
    assert derive_id("s", "t", taken=taken - {digest[:64]}) == digest
    with pytest.raises(LhError) as raised:
        derive_id("s", "t", taken=taken)
    assert raised.value.message == "could not derive a free id for a new entry in shard 's'"


def test_attr_reads_extra_attributes_only() -> None:
    entry = Entry("a", "2026-01-01T00:00:00Z", "x", ("t",), (("refs", "b c"), ("note", "n")))
    assert entry.attr("note") == "n"
    assert entry.attr("refs") == "b c"
    assert entry.attr("tags") is None


def _derived(shard: str, text: str) -> str:
    return hashlib.sha256(f"{shard}\n{text}".encode()).hexdigest()[:12]


def test_two_headers_left_by_a_union_merge_of_the_same_entry_become_two_copies() -> None:
    key = _derived("seed", "same text")
    text = (
        "# seed\n\n"
        f'<!-- lh:entry id="{key}" created="2026-01-02T00:00:00Z" tags="b" -->\n'
        f'<!-- lh:entry id="{key}" created="2026-01-01T00:00:00Z" tags="a" note="n" -->\n'
        "same text\n"
        f'<!-- /lh:entry id="{key}" -->\n'
    )
    shard = parse(text, "memory/seed.md")
    assert render(shard) == text
    assert shard.entries == (
        Entry(key, "2026-01-02T00:00:00Z", "same text", ("b",)),
        Entry(key, "2026-01-01T00:00:00Z", "same text", ("a",), (("note", "n"),)),
    )
    assert [e.line for e in shard.entries] == [3, 4]
    merged, notes = without_duplicates(shard)
    assert notes == (f"line 4: entry {key} again (first on line 3)",)
    assert render(merged) == (
        "# seed\n\n"
        f'<!-- lh:entry id="{key}" created="2026-01-01T00:00:00Z" tags="a b" note="n" -->\n'
        "same text\n"
        f'<!-- /lh:entry id="{key}" -->\n'
    )


@pytest.mark.parametrize(
    ("key", "shard_path"),
    [
        pytest.param("chosen-id", "memory/seed.md", id="chosen-id"),
        pytest.param(_derived("seed", "same text")[:11], "memory/seed.md", id="short-id"),
        pytest.param(_derived("seed", "other text"), "memory/seed.md", id="other-text"),
        pytest.param(_derived("seed", "same text"), "memory/quirks.md", id="other-shard"),
    ],
)
def test_two_headers_whose_id_does_not_prove_the_text_are_refused(key: str, shard_path: str) -> None:
    text = (
        f'<!-- lh:entry id="{key}" created="2026-01-02T00:00:00Z" -->\n'
        f'<!-- lh:entry id="{key}" created="2026-01-01T00:00:00Z" -->\n'
        "same text\n"
        f'<!-- /lh:entry id="{key}" -->\n'
    )
    with pytest.raises(ShardError) as raised:
        parse(text, shard_path)
    assert raised.value.message == (
        f"{shard_path}:1: entry {key} has a second header on line 2; both sides of a merge probably changed it:"
        ' keep one header and the text you want, then run "lh memory index"'
    )


def test_two_headers_with_different_ids_are_an_unclosed_entry() -> None:
    text = (
        '<!-- lh:entry id="a" created="2026-01-02T00:00:00Z" -->\n'
        '<!-- lh:entry id="b" created="2026-01-01T00:00:00Z" -->\n'
        "x\n<!-- /lh:entry -->\n"
    )
    with pytest.raises(ShardError) as raised:
        parse(text, "f.md")
    assert raised.value.message == "f.md:1: entry a is not closed before the next entry starts"


def test_copies_keep_the_first_place_and_lose_the_blank_line_before_the_copy() -> None:
    text = (
        "# s\n\n"
        '<!-- lh:entry id="a" created="2026-01-03T00:00:00Z" tags="x" -->\nA\n<!-- /lh:entry id="a" -->\n\n'
        '<!-- lh:entry id="b" created="2026-01-02T00:00:00Z" -->\nB\n<!-- /lh:entry id="b" -->\n\n'
        '<!-- lh:entry id="a" created="2026-01-01T00:00:00Z" tags="w x" -->\nA\n<!-- /lh:entry id="a" -->\n'
        "tail prose\n"
    )
    merged, notes = without_duplicates(parse(text))
    assert notes == ("line 11: entry a again (first on line 3)",)
    assert render(merged) == (
        "# s\n\n"
        '<!-- lh:entry id="a" created="2026-01-01T00:00:00Z" tags="w x" -->\nA\n<!-- /lh:entry id="a" -->\n\n'
        '<!-- lh:entry id="b" created="2026-01-02T00:00:00Z" -->\nB\n<!-- /lh:entry id="b" -->\n'
        "tail prose\n"
    )
    assert [e.line for e in merged.entries] == [3, 7]
    unchanged = parse(
        text.replace('tags="w x" -->\nA\n<!-- /lh:entry id="a"', 'tags="w x" -->\nA\n<!-- /lh:entry id="c"').replace(
            'id="a" created="2026-01-01', 'id="c" created="2026-01-01'
        )
    )
    assert without_duplicates(unchanged) == (unchanged, ())


def test_the_same_id_with_other_text_names_both_lines() -> None:
    entries = parse(
        '<!-- lh:entry id="a" created="2026-01-01T00:00:00Z" -->\nA\n<!-- /lh:entry id="a" -->\n'
        '<!-- lh:entry id="b" created="2026-01-01T00:00:00Z" -->\nB\n<!-- /lh:entry id="b" -->\n'
        '<!-- lh:entry id="a" created="2026-01-01T00:00:00Z" -->\nA2\n<!-- /lh:entry id="a" -->\n'
    ).entries
    refuse_conflicting_ids(entries[:2], "f.md")
    refuse_conflicting_ids([entries[0], entries[0]], "f.md")
    with pytest.raises(ShardError) as raised:
        refuse_conflicting_ids(entries, "f.md")
    assert raised.value.message == (
        "f.md:7: entry a appears again with other text (first on line 1); both sides of a merge probably changed"
        ' it: keep one version, or give the other its own id, then run "lh memory index"'
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            '<!-- lh:entry id="a" created="2026-01-01T00:00:00Z" -->\nx\n<!-- /lh:entry id="b" -->\n',
            "f.md:3: the end marker of entry b closes entry a (line 1); a merge interleaved two entries:"
            ' put each text between its own markers, then run "lh memory index"',
            id="other-end-marker",
        ),
        pytest.param(
            '<!-- lh:entry id="a" created="2026-01-01T00:00:00Z" -->\nx\n'
            '<!-- lh:entry id="a" created="2026-01-02T00:00:00Z" -->\ny\n<!-- /lh:entry -->\n',
            "f.md:3: entry a (line 1) starts again before its end marker; both sides of a merge probably changed it:"
            ' keep the version you want between one pair of markers, then run "lh memory index"',
            id="starts-again",
        ),
        pytest.param(
            '<!-- lh:entry id="a" created="2026-01-01T00:00:00Z" -->\nx\n=======\n>>>>>>> b\n<!-- /lh:entry -->\n',
            'f.md:4: git conflict marker; resolve the conflict (keep both entries), then run "lh memory index"',
            id="conflict-inside",
        ),
        pytest.param(
            '<!-- lh:entry id="a" created="2026-01-01T00:00:00Z" -->',
            'f.md:1: entry a is not closed; add <!-- /lh:entry id="a" --> after its text',
            id="header-only",
        ),
    ],
)
def test_broken_entries_name_the_line(text: str, message: str) -> None:
    with pytest.raises(ShardError) as raised:
        parse(text, "f.md")
    assert raised.value.message == message


def test_entry_at_reads_one_entry_and_gives_the_offset_after_it() -> None:
    head = "# s\r\n\r\nprose\r\n"
    first = '<!-- lh:entry id="a" created="2026-01-01T00:00:00Z" tags="t" -->\r\nA\r\n\r\nA2\r\n<!-- /lh:entry -->\r\n'
    rest = '\r\n<!-- lh:entry id="b" created="2026-01-01T00:00:00Z" -->\r\nB\r\n<!-- /lh:entry -->\r\n'
    entry, end = entry_at(head + first + rest, len(head), "f.md")
    assert entry == Entry("a", "2026-01-01T00:00:00Z", "A\n\nA2", ("t",))
    assert entry.line == 4
    assert entry.raw == first
    assert end == len(head + first)
    with pytest.raises(ShardError) as raised:
        entry_at(head + first[:-20], len(head), "f.md")
    assert raised.value.message == 'f.md:4: entry a is not closed; add <!-- /lh:entry id="a" --> after its text'


def test_a_title_keeps_letters_that_are_not_markdown_marks() -> None:
    assert title_of("Xylophone -> x") == "Xylophone -> x"
    assert title_of("#*->Xray") == "#*->Xray"  # no space after the marks: Markdown reads them as text
    assert title_of("**Why:** bold") == "**Why:** bold"


def test_append_entries_follows_crlf_for_every_entry() -> None:
    entries = [Entry(key, "2026-01-01T00:00:00Z", "a\nb") for key in ("e1", "e2", "e3")]
    one = '<!-- lh:entry id="{0}" created="2026-01-01T00:00:00Z" -->\r\na\r\nb\r\n<!-- /lh:entry id="{0}" -->\r\n'
    assert append_entries("# s\r\n", entries, "\r\n") == (
        "# s\r\n\r\n" + one.format("e1") + "\r\n" + one.format("e2") + "\r\n" + one.format("e3")
    )


def test_a_copy_adds_only_the_attributes_the_first_lacks_and_keeps_non_blank_prose() -> None:
    text = (
        '<!-- lh:entry id="a" created="2026-01-01T00:00:00Z" note="n1" -->\nA\n<!-- /lh:entry id="a" -->\n'
        "X\n"
        '<!-- lh:entry id="a" created="2026-01-01T00:00:00Z" note="n2" refs="b" -->\nA\n<!-- /lh:entry id="a" -->\n'
        " \t\n"
        '<!-- lh:entry id="a" created="2026-01-01T00:00:00Z" -->\nA\n<!-- /lh:entry id="a" -->\n'
    )
    merged, notes = without_duplicates(parse(text))
    assert notes == ("line 5: entry a again (first on line 1)", "line 9: entry a again (first on line 1)")
    assert render(merged) == (
        '<!-- lh:entry id="a" created="2026-01-01T00:00:00Z" note="n1" refs="b" -->\nA\n<!-- /lh:entry id="a" -->\n'
        "X\n"
        " \t\n"
    )


def test_entry_at_counts_lines_from_the_start_of_the_text() -> None:
    text = '\n\n<!-- lh:entry id="a" created="2026-01-01T00:00:00Z" -->\nA\n'
    with pytest.raises(ShardError) as raised:
        entry_at(text, 2, "f.md")
    assert raised.value.message == 'f.md:3: entry a is not closed; add <!-- /lh:entry id="a" --> after its text'
    entry, end = entry_at(text + "<!-- /lh:entry -->\n", 2, "f.md")
    assert (entry.line, end) == (3, len(text) + 19)


@pytest.mark.parametrize("path", ["seed.md", ".agents/memory/seed.md"])
def test_a_twin_header_keeps_its_own_attributes_whatever_the_folder(path: str) -> None:
    key = _derived("seed", "same text")
    text = (
        f'<!-- lh:entry id="{key}" created="2026-01-02T00:00:00Z" refs="x" -->\n'
        f'<!-- lh:entry id="{key}" created="2026-01-01T00:00:00Z" tags="a" -->\n'
        "same text\n"
        f'<!-- /lh:entry id="{key}" -->\n'
    )
    shard = parse(text, path)
    assert shard.entries == (
        Entry(key, "2026-01-02T00:00:00Z", "same text", (), (("refs", "x"),)),
        Entry(key, "2026-01-01T00:00:00Z", "same text", ("a",)),
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            '<!-- lh:entry id="a" created="2026-01-01T00:00:00Z" -->\n'
            '<!-- lh:entry id="a" created="2026-01-01T00:00:00Z" -->\n',
            'f.md:2: entry a is not closed; add <!-- /lh:entry id="a" --> after its text',
            id="two-headers-at-the-end",
        ),
        pytest.param(
            '<!-- lh:entry id="a" -->\n'
            '<!-- lh:entry id="a" created="2026-01-01T00:00:00Z" -->\nx\n<!-- /lh:entry -->\n',
            "f.md:1: entry a has created=''; expected a UTC time like 2026-01-31T09:00:00Z",
            id="first-header-broken",
        ),
        pytest.param(
            '<!-- lh:entry id="a" created="2026-01-01T00:00:00Z" -->\n'
            '<!-- lh:entry id="a" -->\nx\n<!-- /lh:entry -->\n',
            "f.md:2: entry a has created=''; expected a UTC time like 2026-01-31T09:00:00Z",
            id="second-header-broken",
        ),
    ],
)
def test_broken_twin_headers_name_the_line(text: str, message: str) -> None:
    with pytest.raises(ShardError) as raised:
        parse(text, "f.md")
    assert raised.value.message == message


def test_a_crlf_shard_stays_crlf_when_copies_are_merged() -> None:
    text = (
        '<!-- lh:entry id="a" created="2026-01-02T00:00:00Z" -->\r\nA\r\n<!-- /lh:entry id="a" -->\r\n'
        '<!-- lh:entry id="a" created="2026-01-01T00:00:00Z" -->\r\nA\r\n<!-- /lh:entry id="a" -->\r\n'
    )
    merged, _ = without_duplicates(parse(text))
    assert (
        render(merged)
        == '<!-- lh:entry id="a" created="2026-01-01T00:00:00Z" -->\r\nA\r\n<!-- /lh:entry id="a" -->\r\n'
    )


def test_normalize_keeps_outer_letters() -> None:
    assert normalize_text("X\nmiddle\nX") == "X\nmiddle\nX"


def test_a_shard_without_a_description_is_only_its_heading() -> None:
    assert new_shard_text("quirks", "") == "# quirks\n"
    assert new_shard_text("quirks", "Odd things.") == "# quirks\n\nOdd things.\n"


def test_append_and_render_name_the_id_at_the_end_and_follow_the_shard_line_ending() -> None:
    entry = Entry("a", "2026-01-01T00:00:00Z", "x")
    assert append_text("# s\n", entry) == (
        '# s\n\n<!-- lh:entry id="a" created="2026-01-01T00:00:00Z" -->\nx\n<!-- /lh:entry id="a" -->\n'
    )
    assert render(Shard(("# s\r\n\r\n", entry), "\r\n")) == (
        '# s\r\n\r\n<!-- lh:entry id="a" created="2026-01-01T00:00:00Z" -->\r\nx\r\n<!-- /lh:entry id="a" -->\r\n'
    )


def test_a_header_with_anything_after_the_comment_is_malformed() -> None:
    with pytest.raises(ShardError) as raised:
        parse('<!-- lh:entry id="a" created="2026-01-01T00:00:00Z" -->X\nx\n<!-- /lh:entry -->\n', "f.md")
    assert raised.value.message == 'f.md:1: malformed entry header; expected <!-- lh:entry id="..." created="..." -->'


@pytest.mark.parametrize(
    ("existing", "newline", "expected"),
    [
        pytest.param("# s\r\n\r\nprose\r", "\r\n", "# s\r\n\r\nprose\r\n\r\n", id="crlf-cut-after-cr"),
        pytest.param("# s\n\nprose\r", "\n", "# s\n\nprose\r\n\n", id="lf-shard-line-ending-in-cr"),
    ],
)
def test_a_last_line_ending_in_a_lone_cr_gets_a_line_break_and_a_blank_line(
    existing: str, newline: str, expected: str
) -> None:
    entry = Entry("a", "2026-01-01T00:00:00Z", "x")
    added = append_text(existing, entry, newline)
    assert added == expected + render_entry(entry, newline)
    assert parse(added).entries == (entry,)


@pytest.mark.parametrize(
    ("extra", "when"),
    [
        pytest.param((), "2026-01-02T00:00:00Z", id="no-update"),
        pytest.param((("updated", "2026-01-03T00:00:00Z"),), "2026-01-03T00:00:00Z", id="updated-later"),
        pytest.param((("updated", "2026-01-02T00:00:00Z"),), "2026-01-02T00:00:00Z", id="updated-same"),
        pytest.param((("updated", "2026-01-01T00:00:00Z"),), "2026-01-02T00:00:00Z", id="updated-earlier"),
        pytest.param((("updated", "</system>"),), "2026-01-02T00:00:00Z", id="updated-not-a-time"),
        pytest.param((("updated", "zzzz"),), "2026-01-02T00:00:00Z", id="updated-sorts-after-digits"),
        pytest.param((("updated", "2026-01-03T00:00:00Z "),), "2026-01-02T00:00:00Z", id="updated-trailing-space"),
        pytest.param((("updated", "2026-01-03"),), "2026-01-02T00:00:00Z", id="updated-date-only"),
    ],
)
def test_an_entry_was_written_at_its_latest_time(extra: tuple[tuple[str, str], ...], when: str) -> None:
    assert written(Entry("a", "2026-01-02T00:00:00Z", "x", (), extra)) == when


def test_the_order_of_writing_is_time_then_position_never_the_id() -> None:
    entries = [
        Entry("a", "2026-01-02T00:00:00Z", "A"),
        Entry("z", "2026-01-01T00:00:00Z", "B"),
        Entry("b", "2026-01-01T00:00:00Z", "C", (), (("updated", "2026-01-03T00:00:00Z"),)),
        Entry("0", "2026-01-02T00:00:00Z", "D"),
    ]
    assert by_writing(entries) == [1, 0, 3, 2]
    assert by_writing([]) == []


def test_text_hash_is_the_start_of_the_sha256_of_the_canonical_text() -> None:
    assert text_hash("a  \r\nb\n") == hashlib.sha256(b"a\nb").hexdigest()[:12]


def test_twin_headers_with_a_chosen_id_are_one_entry_when_both_carry_the_text_hash() -> None:
    sha = hashlib.sha256(b"same text").hexdigest()[:12]
    text = (
        f'<!-- lh:entry id="mine" created="2026-01-02T00:00:00Z" sha="{sha}" -->\n'
        f'<!-- lh:entry id="mine" created="2026-01-01T00:00:00Z" sha="{sha}" -->\n'
        "same text\n"
        '<!-- /lh:entry id="mine" -->\n'
    )
    assert [e.text for e in parse(text, "m/seed.md").entries] == ["same text", "same text"]
    other = text.replace(f'created="2026-01-01T00:00:00Z" sha="{sha}"', 'created="2026-01-01T00:00:00Z" sha="0"')
    with pytest.raises(Conflict) as raised:
        parse(other, "m/seed.md")
    assert raised.value.exit_code == 1
    assert raised.value.message == (
        "m/seed.md:1: entry mine has a second header on line 2; both sides of a merge probably changed it:"
        ' keep one header and the text you want, then run "lh memory index"'
    )


def test_copies_keep_the_references_of_both() -> None:
    text = (
        '<!-- lh:entry id="a" created="2026-01-01T00:00:00Z" refs="b.py a.py" note="1" -->\nA\n'
        '<!-- /lh:entry id="a" -->\n'
        '<!-- lh:entry id="a" created="2026-01-01T00:00:00Z" refs="c.py a.py" -->\nA\n<!-- /lh:entry id="a" -->\n'
    )
    merged, _ = without_duplicates(parse(text))
    assert merged.entries[0].extra == (("refs", "a.py b.py c.py"), ("note", "1"))
    only_copy = text.replace(' refs="b.py a.py"', "")
    assert without_duplicates(parse(only_copy))[0].entries[0].extra == (("note", "1"), ("refs", "c.py a.py"))


def test_entries_equal_by_content_whatever_file_position_they_were_read_from() -> None:
    read = Entry("k1", "2026-01-02T03:04:05Z", "text", ("a",), (("refs", "x.py"),), raw="<!-- raw -->", line=7)
    made = Entry("k1", "2026-01-02T03:04:05Z", "text", ("a",), (("refs", "x.py"),))
    assert read == made
    assert (read != made) is False  # tuple.__ne__ would compare raw and line
    assert hash(read) == hash(made)
    assert read != dataclasses.replace(made, text="other")
    assert repr(read) == (
        "Entry(id='k1', created='2026-01-02T03:04:05Z', text='text', tags=('a',), extra=(('refs', 'x.py'),), line=7)"
    )


HEAD = '<!-- lh:entry id="e1" created="2026-01-01T00:00:00Z" -->\n'
SHUT = "<!-- /lh:entry -->"
NEXT = '<!-- lh:entry id="e2" created="2026-01-02T00:00:00Z" -->\nc\n<!-- /lh:entry -->\n'


@pytest.mark.parametrize(
    ("before", "entry", "rest"),
    [
        pytest.param("", f"{HEAD}body\n{SHUT}\n", "after\n", id="the-end-marker-line-and-its-newline"),
        pytest.param("", f"{HEAD}body\n{SHUT}\n", NEXT, id="the-next-entry-is-not-read"),
        pytest.param("", f"{HEAD}say `{SHUT}` here\n{SHUT}\n", "after\n", id="a-marker-inside-a-line-is-text"),
        pytest.param("", f"{HEAD}body\n{SHUT} and words\n{SHUT}\n", "x", id="not-alone-on-its-line"),
        pytest.param("", f"{HEAD}body\n  {SHUT}  \r\n", "after", id="indented-and-crlf"),
        pytest.param("", f"{HEAD}body\n{SHUT}", "", id="at-the-end-without-a-newline"),
        pytest.param("", f"{HEAD}body\nno end\n", "", id="no-end-marker"),
        pytest.param(f"x\n{SHUT}\n", f"{HEAD}b\n{SHUT}\n", "after", id="one-before-the-entry-is-not-its-end"),
        pytest.param("", f'<!-- lh:entry id="e1" note="{SHUT}" -->\nb\n{SHUT}\n', "after", id="on-the-header-line"),
    ],
)
def test_an_entry_ends_at_the_first_end_marker_line_after_its_header(before: str, entry: str, rest: str) -> None:
    """Where `entry_at` stops reading: just past the end marker's line, found without splitting the shard."""
    text = before + entry + rest
    assert shard_module._entry_stop(text, len(before)) == len(before) + len(entry)


def test_a_shard_read_without_a_path_is_named_shard_in_messages() -> None:
    with pytest.raises(ShardError) as raised:
        parse('<!-- lh:entry id="a" created="2026-01-01T00:00:00Z" -->\nA\n')
    assert raised.value.message == 'shard:1: entry a is not closed; add <!-- /lh:entry id="a" --> after its text'


def test_a_shard_saved_with_cr_line_endings_keeps_every_entry(project: Path) -> None:
    assert (
        lh(
            "memory", "put", "insights", "caching needs the lock", "--id", "one", "--tag", "cache", cwd=project
        ).returncode
        == 0
    )
    assert lh("memory", "put", "insights", "retries back off twice", "--id", "two", cwd=project).returncode == 0
    shard = project / ".agents" / "memory" / "insights.md"
    shard.write_bytes(shard.read_bytes().replace(b"\n", b"\r"))
    done = lh("memory", "get", "insights", "--ids", cwd=project)
    assert (done.returncode, done.stderr) == (0, "")
    assert [line.split(" ")[0] for line in done.stdout.splitlines() if line.startswith("[")] == ["[one", "[two"]
    exported = [json.loads(line) for line in lh("memory", "export", cwd=project).stdout.splitlines()]
    assert [(row["id"], row["text"], row["tags"]) for row in exported] == [
        ("one", "caching needs the lock", ["cache"]),
        ("two", "retries back off twice", []),
    ]
    status = lh("memory", "status", "--json", cwd=project)
    assert next(s for s in json.loads(status.stdout)["shards"] if s["name"] == "insights")["entries"] == 2
    assert lh(
        "memory", "put", "insights", "retries back off three times", "--id", "two", cwd=project
    ).stdout.startswith("updated two in insights")
    exported = [json.loads(line) for line in lh("memory", "export", cwd=project).stdout.splitlines()]
    assert [(row["id"], row["text"]) for row in exported] == [
        ("one", "caching needs the lock"),
        ("two", "retries back off three times"),
    ]
