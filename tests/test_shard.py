"""The shard format: entries between comment markers, prose kept, byte-identical round trips."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lean_harness.memory.shard import (
    Entry,
    ShardError,
    append_text,
    derive_id,
    new_shard_text,
    normalize_text,
    parse,
    render,
    render_entry,
    title_of,
)

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
