"""The compaction planner called in this process: whole plans and digests for small hand-made inputs.

Token counts are one per word (`words`), so every figure below can be worked out by hand: a
digest's printed block is its header `[id day #tags]` (2 words plus one per tag), its intro
(21 words, 26 with "(N repeated lines left out)") and one word more than each line it keeps.
While a group grows, the planner estimates the intro as the printed block of a two-entry digest
tagged `digest` only (24 words) plus one, so its estimate is one token above the exact count when
no other tag and no repeated line is involved.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lean_harness.cli import main
from lean_harness.memory.compaction.compact import (
    Digest,
    Holder,
    Plan,
    ShardInput,
    ShardPlan,
    archive_path,
    carried,
    digest_line,
    is_digest,
    lines_of,
    plan,
    protected,
    same_key,
)
from lean_harness.memory.shard import Entry, parse


def words(texts: Sequence[str]) -> list[int]:
    """One token per word."""
    return [len(text.split()) for text in texts]


def note(key: str, day: int, tokens: int, title: str = "", **attrs: str) -> tuple[Entry, int]:
    """An entry written on 2026-01-DAY whose first line is `title` (default "Note KEY title")."""
    tags = tuple(attrs.pop("tags", "").split())
    created = attrs.pop("created", f"2026-01-{day:02d}T00:00:00Z")
    text = (title or f"Note {key} title") + "\nbody text that a digest leaves out"
    return Entry(key, created, text, tags, tuple(attrs.items())), tokens


def shard(name: str, *notes: tuple[Entry, int]) -> ShardInput:
    return ShardInput(name, tuple(e for e, _ in notes), tuple(t for _, t in notes))


def key_of(shard_name: str, ids: Sequence[str], size: int = 12) -> str:
    """The id a digest of `ids` gets: the start of the SHA-256 of the shard, "digest" and the ids."""
    return hashlib.sha256("\n".join([shard_name, "digest", *ids]).encode()).hexdigest()[:size]


def intro(count: int, first: str, last: str, key: str, left_out: str = "") -> str:
    return (
        f"Digest of {count} entries from {first} to {last}, the first line of each{left_out};"
        f" `lh memory expand {key} --print` shows them whole."
    )


def run(
    shards: Sequence[ShardInput],
    target: int,
    keep: int = 2,
    *,
    force: bool = False,
    threshold: int | None = None,
    taken: dict[str, set[str]] | None = None,
) -> Plan:
    """A plan down to `target` tokens, compacting above `threshold` (default: the target).

    The budget is 100 tokens, so the percentages are the token figures themselves.
    """
    return plan(
        shards,
        budget=100,
        at_percent=target if threshold is None else threshold,
        target_percent=target,
        keep_newest=keep,
        counts=words,
        force=force,
        taken=(lambda name: taken.get(name, set())) if taken is not None else None,
    )


# Six notes written on six days, 40 to 45 tokens: 255 in all. With keepNewest 2 the first four
# may be merged; a digest of the first k costs 24 + 4k tokens (estimated 25 + 4k).
SIX = [note(f"e{n}", n + 1, 40 + n) for n in range(6)]


def six_digest(count: int) -> Digest:
    ids = [f"e{n}" for n in range(count)]
    key = key_of("s", ids)
    text = intro(count, "2026-01-01", f"2026-01-0{count}", key) + "".join(f"\n- Note e{n} title" for n in range(count))
    extra = (
        ("from", "2026-01-01T00:00:00Z"),
        ("to", f"2026-01-0{count}T00:00:00Z"),
        ("entries", str(count)),
        ("sources", " ".join(ids)),
        ("archive", "archive/s.md"),
    )
    entry = Entry(key, f"2026-01-0{count}T00:00:00Z", text, ("digest",), extra)
    return Digest(
        "s", entry, tuple(SIX[n][0] for n in range(count)), sum(40 + n for n in range(count)), 24 + 4 * count, 0
    )


def test_four_of_six_notes_merged_down_to_the_target_give_this_whole_plan() -> None:
    # Estimates after 2, 3, 4 entries: 207, 169, 130; a target of 168 needs all four (exactly 129).
    planned = run([shard("s", *SIX)], 168)
    digest = six_digest(4)
    assert planned == Plan(
        budget=100,
        threshold=168,
        target=168,
        total_before=255,
        total_after=129,
        forced=False,
        shards=(ShardPlan("s", 6, 3, 255, 129, 2),),
        digests=(digest,),
        protected_tokens=89,
        whole_tokens=0,
        whole=0,
        holders=(
            Holder("s", "e5", 45, "newest"),
            Holder("s", "e4", 44, "newest"),
            Holder("s", digest.entry.id, 40, "digest"),
        ),
    )
    assert digest.entry.text == (
        "Digest of 4 entries from 2026-01-01 to 2026-01-04, the first line of each;"
        f" `lh memory expand {digest.entry.id} --print` shows them whole.\n"
        "- Note e0 title\n- Note e1 title\n- Note e2 title\n- Note e3 title"
    )
    assert (planned.due, merged(planned), planned.reached) == (True, 4, True)


def test_a_target_the_estimate_reaches_stops_the_group_there() -> None:
    # After three entries the estimate is 169: at a target of 169 the fourth stays (exactly 168).
    planned = run([shard("s", *SIX)], 169)
    digest = six_digest(3)
    assert planned.digests == (digest,)
    assert (planned.total_after, planned.shards) == (168, (ShardPlan("s", 6, 4, 255, 168, 2),))
    assert planned.holders == (
        Holder("s", "e5", 45, "newest"),
        Holder("s", "e4", 44, "newest"),
        Holder("s", "e3", 43, "left"),
        Holder("s", digest.entry.id, 36, "digest"),
    )
    assert (merged(planned), planned.reached) == (3, True)


@pytest.mark.parametrize(
    ("target", "count", "after"),
    [(254, 2, 206), (207, 2, 206), (206, 3, 168), (130, 4, 129), (129, 4, 129)],
    ids=["one-under-the-total", "estimate-of-two", "exact-of-two", "estimate-of-four", "exact-of-four"],
)
def test_the_group_grows_until_its_estimate_reaches_the_target(target: int, count: int, after: int) -> None:
    planned = run([shard("s", *SIX)], target)
    assert planned.digests == (six_digest(count),)
    assert (planned.total_after, planned.reached) == (after, True)


def test_a_target_out_of_reach_merges_every_candidate_and_says_so() -> None:
    planned = run([shard("s", *SIX)], 128)
    assert planned.digests == (six_digest(4),)
    assert (planned.total_after, planned.due, planned.reached) == (129, True, False)


def test_text_outside_entries_counts_toward_the_threshold_and_is_never_merged() -> None:
    # 255 tokens of entries and 30 of loose prose: 285, over a threshold of 260 the entries alone
    # stay under; merging the first four (129 left of the entries) ends at 159, above a target of 140.
    loose = ShardInput("s", tuple(e for e, _ in SIX), tuple(t for _, t in SIX), loose=30)
    planned = run([loose], 140, threshold=260)
    assert planned.digests == (six_digest(4),)
    assert (planned.total_before, planned.total_after, planned.loose_tokens) == (285, 159, 30)
    assert planned.shards == (ShardPlan("s", 6, 3, 285, 159, 2),)
    assert (planned.due, planned.reached) == (True, False)


def test_loose_text_over_the_threshold_alone_makes_the_plan_due() -> None:
    planned = run([ShardInput("s", (), (), loose=120)], 50, threshold=100)
    assert (planned.due, planned.digests, planned.total_after, planned.loose_tokens) == (True, (), 120, 120)


@pytest.mark.parametrize(
    ("threshold", "target", "force", "merged"),
    [
        pytest.param(255, 150, False, 0, id="total-exactly-at-the-threshold"),
        pytest.param(254, 150, False, 4, id="one-over-the-threshold"),
        pytest.param(255, 255, True, 0, id="forced-total-exactly-at-the-target"),
        pytest.param(255, 254, True, 2, id="forced-one-over-the-target"),
        pytest.param(300, 169, True, 3, id="forced-between-target-and-threshold"),
        pytest.param(300, 169, False, 0, id="between-target-and-threshold"),
    ],
)
def test_the_plan_starts_above_the_threshold_or_when_forced_above_the_target(
    threshold: int, target: int, force: bool, merged: int
) -> None:
    planned = run([shard("s", *SIX)], target, force=force, threshold=threshold)
    assert (planned.threshold, planned.target, planned.forced) == (threshold, target, force)
    assert planned.due is (threshold < 255)
    assert planned.digests == ((six_digest(merged),) if merged else ())
    assert planned.total_after == 255 - (sum(40 + n for n in range(merged)) - 24 - 4 * merged if merged else 0)


def test_threshold_and_target_are_whole_tokens_rounded_down() -> None:
    planned = plan([shard("s", *SIX)], budget=333, at_percent=77, target_percent=51, keep_newest=2, counts=words)
    assert (planned.threshold, planned.target) == (256, 169)  # 256.41 and 169.83
    assert type(planned.threshold) is int
    assert type(planned.target) is int
    assert planned.digests == ()  # 255 is not above 256
    assert planned.total_after == 255


# -- keepNewest -----------------------------------------------------------------------------------


def newer_count(entries: Sequence[Entry], position: int) -> int:
    """Reference model: how many entries were written after the one at `position`."""

    def when(entry: Entry) -> str:
        updated = entry.attr("updated")
        return updated if updated is not None and updated > entry.created else entry.created

    count = 0
    for other, entry in enumerate(entries):
        if when(entry) > when(entries[position]) or (when(entry) == when(entries[position]) and other > position):
            count += 1
    return count


@pytest.mark.parametrize("size", [0, 1, 2, 3, 4, 5])
def test_keep_newest_protects_the_last_written_of_every_shard_size(size: int) -> None:
    same_second = [note(f"n{n}", 1, 50) for n in range(size)]  # one second: file order decides
    assert protected([e for e, _ in same_second], 3) == set(range(max(0, size - 3), size))
    planned = run([shard("s", *same_second)], 1, keep=3, force=True)
    if size < 5:  # no more than one entry to merge: nothing is done
        assert (planned.digests, planned.total_after) == ((), 50 * size)
    else:
        (digest,) = planned.digests
        assert [e.id for e in digest.sources] == ["n0", "n1"]
    assert planned.shards == (
        ShardPlan("s", size, size - 1 if size == 5 else size, 50 * size, planned.total_after, min(size, 3)),
    )


@pytest.mark.parametrize(
    ("keep", "expected"),
    [(0, set()), (1, {0}), (2, {0, 2}), (3, {0, 1, 2}), (4, {0, 1, 2})],
)
def test_keep_newest_follows_the_time_of_last_writing_not_the_file_order(keep: int, expected: set[int]) -> None:
    entries = [
        note("late", 9, 10)[0],  # written last, first in the file
        note("early", 1, 10)[0],
        note("edited", 2, 10, updated="2026-01-05T00:00:00Z")[0],
    ]
    # Order of writing: early (the 1st), edited (the 5th), late (the 9th).
    assert protected(entries, keep) == expected


def test_an_update_older_than_the_entry_does_not_count() -> None:
    entries = [note("a", 3, 10, updated="2026-01-01T00:00:00Z")[0], note("b", 2, 10)[0]]
    assert protected(entries, 1) == {0}  # a was written on the 3rd, b on the 2nd


def test_pinned_entries_are_protected_however_old() -> None:
    entries = [note("old", 1, 10, tags="ci pinned")[0], note("mid", 2, 10)[0], note("new", 3, 10)[0]]
    assert protected(entries, 0) == {0}
    assert protected(entries, 1) == {0, 2}
    planned = run([shard("s", (entries[0], 40), (entries[1], 40), (entries[2], 40))], 1, keep=1, force=True)
    assert planned.digests == ()
    assert planned.protected_tokens == 80
    assert planned.holders == (
        Holder("s", "old", 40, "pinned"),
        Holder("s", "mid", 40, "left"),
        Holder("s", "new", 40, "newest"),
    )


@settings(max_examples=100, deadline=None)
@given(
    times=st.lists(st.tuples(st.integers(1, 4), st.integers(0, 5), st.booleans()), max_size=9),
    keep=st.integers(0, 10),
)
def test_protected_agrees_with_counting_the_entries_written_later(
    times: list[tuple[int, int, bool]], keep: int
) -> None:
    entries = [
        note(
            f"x{n}",
            day,
            10,
            **({"updated": f"2026-01-{update:02d}T00:00:00Z"} if update else {}),
            **({"tags": "pinned"} if pinned else {}),
        )[0]
        for n, (day, update, pinned) in enumerate(times)
    ]
    expected = {i for i in range(len(entries)) if newer_count(entries, i) < keep or "pinned" in entries[i].tags}
    assert protected(entries, keep) == expected


# -- order across shards, superseded entries, one-line notes -----------------------------------


def test_superseded_entries_go_first_then_the_largest_shard_oldest_first() -> None:
    big = shard("big", *(note(f"b{n}", 11 + n, 50) for n in range(4)))
    small = shard("small", note("s0", 1, 40), note("s1", 2, 40, supersedes="s0, zz"), note("s2", 3, 40))
    # Taken in this order: s0 (superseded), b0, b1, b2, s1; the estimate stays above 150 (160).
    planned = run([small, big], 150, keep=1)
    small_key, big_key = key_of("small", ["s0", "s1"]), key_of("big", ["b0", "b1", "b2"])
    small_digest = Digest(
        "small",
        Entry(
            small_key,
            "2026-01-02T00:00:00Z",
            intro(2, "2026-01-01", "2026-01-02", small_key) + "\n- Note s0 title\n- Note s1 title",
            ("digest",),
            (
                ("from", "2026-01-01T00:00:00Z"),
                ("to", "2026-01-02T00:00:00Z"),
                ("entries", "2"),
                ("sources", "s0 s1"),
                ("archive", "archive/small.md"),
                ("supersedes", "zz"),  # s0 is inside the digest
            ),
        ),
        (small.entries[0], small.entries[1]),
        80,
        32,
        0,
    )
    big_digest = Digest(
        "big",
        Entry(
            big_key,
            "2026-01-13T00:00:00Z",
            intro(3, "2026-01-11", "2026-01-13", big_key) + "\n- Note b0 title\n- Note b1 title\n- Note b2 title",
            ("digest",),
            (
                ("from", "2026-01-11T00:00:00Z"),
                ("to", "2026-01-13T00:00:00Z"),
                ("entries", "3"),
                ("sources", "b0 b1 b2"),
                ("archive", "archive/big.md"),
            ),
        ),
        big.entries[:3],
        150,
        36,
        0,
    )
    assert planned == Plan(
        budget=100,
        threshold=150,
        target=150,
        total_before=320,
        total_after=158,
        forced=False,
        shards=(ShardPlan("small", 3, 2, 120, 72, 1), ShardPlan("big", 4, 2, 200, 86, 1)),
        digests=(small_digest, big_digest),
        protected_tokens=90,
        whole_tokens=0,
        whole=0,
        holders=(
            Holder("big", "b3", 50, "newest"),
            Holder("small", "s2", 40, "newest"),
            Holder("big", big_key, 36, "digest"),
            Holder("small", small_key, 32, "digest"),
        ),
    )
    assert (merged(planned), planned.reached) == (5, False)


def test_a_nearer_target_takes_the_superseded_entry_and_the_largest_shard_only() -> None:
    big = shard("big", *(note(f"b{n}", 11 + n, 50) for n in range(4)))
    small = shard("small", note("s0", 1, 40), note("s1", 2, 40, supersedes="s0"), note("s2", 3, 40))
    planned = run([small, big], 253, keep=1)  # s0, then b0 and b1: estimated 253, exactly 252
    assert [[e.id for e in d.sources] for d in planned.digests] == [["b0", "b1"]]
    assert planned.total_after == 252
    assert planned.shards[0] == ShardPlan("small", 3, 3, 120, 120, 1)  # s0 alone makes no digest


def test_shards_of_the_same_size_go_in_the_order_of_their_names() -> None:
    b = shard("b", *(note(f"b{n}", 1 + n, 40) for n in range(3)))
    a = shard("a", *(note(f"a{n}", 5 + n, 40) for n in range(3)))
    planned = run([b, a], 193, keep=1)  # two entries of one shard are enough: estimated 193
    assert [[e.id for e in d.sources] for d in planned.digests] == [["a0", "a1"]]
    assert planned.total_after == 192


def test_a_superseded_entry_is_merged_first_even_when_written_last() -> None:
    entries = [note("old", 1, 40), note("gone", 5, 40), note("mid", 3, 40), note("newest", 9, 40, supersedes="x1,gone")]
    planned = run([shard("s", *entries)], 1, keep=1, force=True)
    (digest,) = planned.digests
    # Sources and lines in the order they were written, whatever the order they were taken in.
    assert [e.id for e in digest.sources] == ["old", "mid", "gone"]
    assert digest.entry.text.split("\n")[1:] == ["- Note old title", "- Note mid title", "- Note gone title"]
    partial = run([shard("s", *entries)], 120, keep=1)  # the first two taken: gone, then old
    assert [[e.id for e in d.sources] for d in partial.digests] == [["old", "gone"]]


def line_note(key: str, day: int, tokens: int, text: str, **attrs: str) -> tuple[Entry, int]:
    tags = tuple(attrs.pop("tags", "").split())
    return Entry(key, f"2026-01-{day:02d}T00:00:00Z", text, tags, tuple(attrs.items())), tokens


def test_a_note_whose_line_costs_more_than_three_quarters_of_it_is_left_whole() -> None:
    entries = [
        line_note("w0", 1, 4, "alpha beta"),  # its line "- alpha beta" costs 3: exactly three quarters
        line_note("w1", 2, 3, "gamma delta"),  # 3 of 3: left whole
        note("w2", 3, 40),
        note("w3", 4, 40),
        note("w4", 5, 40),
    ]
    planned = run([shard("s", *entries)], 1, keep=1, force=True)
    (digest,) = planned.digests
    assert [e.id for e in digest.sources] == ["w0", "w2", "w3"]
    assert digest.entry.text.split("\n")[1:] == ["- alpha beta", "- Note w2 title", "- Note w3 title"]
    assert (digest.tokens_before, digest.tokens) == (84, 35)
    assert (planned.whole, planned.whole_tokens, planned.protected_tokens) == (1, 3, 40)
    assert planned.holders == (
        Holder("s", "w4", 40, "newest"),
        Holder("s", digest.entry.id, 35, "digest"),
        Holder("s", "w1", 3, "one line"),
    )
    assert planned.shards == (ShardPlan("s", 5, 3, 127, 78, 1),)


def test_a_superseded_one_line_note_is_merged_all_the_same() -> None:
    entries = [line_note("w1", 2, 3, "gamma delta"), note("w2", 3, 40), note("w3", 4, 40, supersedes="w1")]
    planned = run([shard("s", *entries)], 1, keep=1, force=True)
    (digest,) = planned.digests
    assert [e.id for e in digest.sources] == ["w1", "w2"]
    assert (planned.whole, planned.whole_tokens) == (0, 0)


@pytest.mark.parametrize(("tokens", "kept"), [(15, False), (16, True)], ids=["saves-nothing", "saves-one"])
def test_a_digest_is_made_only_when_it_costs_less_than_its_sources(tokens: int, kept: bool) -> None:
    # Two notes of TOKENS tokens; their digest prints 3 + 21 + 3 + 3 = 30 tokens.
    entries = [line_note("x", 1, tokens, "Note x"), line_note("y", 2, tokens, "Note y"), note("z", 3, 40)]
    planned = run([shard("s", *entries)], 1, keep=1, force=True)
    assert [d.tokens for d in planned.digests] == ([30] if kept else [])
    assert planned.total_after == 2 * tokens + 40 - (2 * tokens - 30 if kept else 0)
    assert planned.shards[0].entries_after == (2 if kept else 3)


def test_when_the_digest_counts_more_than_estimated_one_more_entry_is_taken() -> None:
    # e0's three tags print in the digest's header: 2 tokens above the estimate, which stops at
    # three entries (169); exactly 171 is over the target, so the fourth is taken (132).
    tagged = [note("e0", 1, 40, tags="a b c"), *SIX[1:]]
    planned = run([shard("s", *tagged)], 169)
    (digest,) = planned.digests
    assert [e.id for e in digest.sources] == ["e0", "e1", "e2", "e3"]
    assert digest.entry.tags == ("a", "b", "c", "digest")
    assert (digest.tokens, planned.total_after, planned.reached) == (43, 132, True)
    assert (planned.whole, planned.whole_tokens) == (0, 0)
    exactly = run([shard("s", *tagged)], 171)  # three entries count exactly 171: enough
    assert [[e.id for e in d.sources] for d in exactly.digests] == [["e0", "e1", "e2"]]
    assert exactly.total_after == 171


@pytest.mark.parametrize(
    ("supersedes", "merged", "whole"),
    [("s0 s1 s2", ["s0", "s1", "s2"], 0), ("s0 s1", ["s0", "s1"], 1)],
    ids=["superseded-one-line-note-taken", "one-line-note-left-whole"],
)
def test_the_entry_taken_after_an_exact_count_follows_the_same_rules(
    supersedes: str, merged: list[str], whole: int
) -> None:
    # s0's tags put the exact count (48) above the estimate (46) at the target: one more is taken.
    entries = [
        note("s0", 1, 60, tags="a b c"),
        note("s1", 2, 60),
        line_note("s2", 3, 3, "gamma delta"),  # its line costs all of it
        note("s3", 4, 10, supersedes=supersedes),
    ]
    planned = run([shard("s", *entries)], 46, keep=1)
    (digest,) = planned.digests
    assert [e.id for e in digest.sources] == merged
    assert (planned.whole, planned.whole_tokens) == (whole, 3 * whole)
    assert planned.total_after == 48
    assert [h.id for h in planned.holders if h.why == "one line"] == ["s2"] * whole


def test_repeated_lines_cost_nothing_in_the_estimate() -> None:
    # Eight notes with one first line, eight words without its fillers. A digest of six of them
    # prints 3 + 26 + 9 = 38 tokens (5 repeated lines left out), estimated as 25 + 9: the memory
    # is estimated at 154 tokens after it, counted at 158; at a target of 158 the seventh stays.
    title = "the same nine word line about the flaky upload job"
    entries = [note(f"h{n}", n + 1, 60, title=title) for n in range(8)]
    planned = run([shard("s", *entries)], 158, keep=1)
    (digest,) = planned.digests
    key = key_of("s", [f"h{n}" for n in range(6)])
    assert digest.entry.text == (
        intro(6, "2026-01-01", "2026-01-06", key, " (5 repeated lines left out)")
        + "\n- same nine word line about flaky upload job"
    )
    assert (digest.tokens, digest.dropped, planned.total_after) == (38, 5, 158)


def test_a_shard_whose_one_candidate_cannot_make_a_digest_saves_nothing_in_the_estimate() -> None:
    # "a" is the largest shard, so its one candidate goes first; it saves nothing alone. SIX then
    # needs four entries: three would count exactly 488, but their estimate is 489.
    lone = shard("a", note("a0", 1, 300), note("a1", 2, 10), note("a2", 3, 10))
    planned = run([lone, shard("s", *SIX)], 488)
    assert [[e.id for e in d.sources] for d in planned.digests] == [["e0", "e1", "e2", "e3"]]
    assert planned.total_after == 575 - 126


def test_a_group_that_would_not_shrink_saves_nothing_in_the_estimate() -> None:
    # a0 and a1 are superseded, so they go first; their digest (32) would be larger than they are (24).
    small = shard("a", note("a0", 1, 12), note("a1", 2, 12), note("a2", 3, 10), note("a3", 4, 10, supersedes="a0 a1"))
    planned = run([small, shard("s", *SIX)], 212)
    assert [[e.id for e in d.sources] for d in planned.digests] == [["e0", "e1", "e2", "e3"]]
    assert planned.total_after == 299 - 126


def test_superseded_entries_of_a_smaller_shard_go_before_a_larger_shards_oldest() -> None:
    small = shard("small", note("s0", 1, 40), note("s1", 2, 40), note("s2", 3, 40, supersedes="s0,s1"))
    big = shard("big", *(note(f"b{n}", 11 + n, 50) for n in range(4)))
    planned = run([big, small], 273, keep=1)  # s0 and s1: estimated 273, exactly 272
    assert [[e.id for e in d.sources] for d in planned.digests] == [["s0", "s1"]]
    assert planned.total_after == 272


def test_only_an_id_another_entry_names_is_superseded() -> None:
    # Any id at all, placeholders included, is superseded only when an entry names it.
    entries = [note("x1", 1, 40), note("XXXX", 2, 40), note("x3", 3, 40), note("x4", 4, 40, supersedes="x3")]
    planned = run([shard("s", *entries)], 113, keep=1)  # two entries are enough (estimated 113)
    assert [[e.id for e in d.sources] for d in planned.digests] == [["x1", "x3"]]


def test_at_most_five_holders_largest_first() -> None:
    planned = run([shard("s", *SIX)], 300, threshold=300)
    assert planned.digests == ()
    assert planned.holders == (
        Holder("s", "e5", 45, "newest"),
        Holder("s", "e4", 44, "newest"),
        Holder("s", "e3", 43, "left"),
        Holder("s", "e2", 42, "left"),
        Holder("s", "e1", 41, "left"),
    )


def test_a_digest_id_taken_in_the_shard_or_its_archive_is_lengthened() -> None:
    ids = ["e0", "e1", "e2", "e3"]
    archived = run([shard("s", *SIX)], 168, taken={"s": {key_of("s", ids)}, "t": {key_of("s", ids, 13)}})
    assert [d.entry.id for d in archived.digests] == [key_of("s", ids, 13)]
    clash = [*SIX[:5], (Entry(key_of("s", ids), "2026-01-06T00:00:00Z", SIX[5][0].text), 45)]
    in_shard = run([shard("s", *clash)], 168, taken={})
    (digest,) = in_shard.digests
    assert digest.entry.id == key_of("s", ids, 13)
    assert digest.entry.text.startswith(intro(4, "2026-01-01", "2026-01-04", key_of("s", ids, 13)) + "\n")


# -- what a digest holds --------------------------------------------------------------------------


def test_a_digest_unites_its_sources_tags_allowances_and_references_in_the_order_written() -> None:
    entries = [
        line_note(
            "d0",
            1,
            60,
            "The cache is a very flaky thing\nmore",
            tags="ci",
            refs="pr/1 log/a",
            **{"allow-secret": "aws-access-key-id"},
        ),
        line_note(
            "d1",
            2,
            60,
            "cache is flaky thing!\nmore",
            tags="ci macos",
            refs="pr/1  issue/2",
            **{"allow-directive": "x,y"},
        ),
        line_note(
            "d2",
            3,
            60,
            "Also the proxy strips headers\nmore",
            tags="a",
            see="k1,k2",
            **{"allow-directive": "y"},
            updated="2026-01-20T00:00:00Z",
            **{"allow-secret": "generic,aws-access-key-id"},
        ),
        line_note("d3", 4, 60, "- the proxy strips headers\nmore", sha="0a1b2c3d4e5f", refs="docs/a,b.md", seen=""),
        note("n", 30, 10),
    ]
    planned = run([shard("s", *entries)], 1, keep=1, force=True)
    (digest,) = planned.digests
    order = ["d0", "d1", "d3", "d2"]  # d2 was last written on the 20th
    key = key_of("s", order)
    assert digest == Digest(
        "s",
        Entry(
            key,
            "2026-01-20T00:00:00Z",
            intro(4, "2026-01-01", "2026-01-20", key, " (2 repeated lines left out)")
            + "\n- cache is flaky thing\n- proxy strips headers",
            ("a", "ci", "digest", "macos"),
            (
                ("from", "2026-01-01T00:00:00Z"),
                ("to", "2026-01-20T00:00:00Z"),
                ("entries", "4"),
                ("sources", "d0 d1 d3 d2"),
                ("archive", "archive/s.md"),
                ("allow-secret", "aws-access-key-id,generic"),
                ("allow-directive", "x,y"),
                ("refs", "docs/a,b.md issue/2 log/a pr/1"),  # a path may hold a comma
                ("see", "k1 k2"),
            ),
        ),
        tuple(entries[i][0] for i in (0, 1, 3, 2)),
        240,
        41,  # 6 in the header, 26 in the intro, 5 + 4 in the lines
        2,
    )


def test_one_repeated_line_is_named_in_the_singular() -> None:
    entries = [
        line_note("d0", 1, 60, "flaky cache\nmore"),
        line_note("d1", 2, 60, "Flaky cache.\nmore"),
        note("n", 3, 9),
    ]
    (digest,) = run([shard("s", *entries)], 1, keep=1, force=True).digests
    key = key_of("s", ["d0", "d1"])
    assert (
        digest.entry.text
        == intro(2, "2026-01-01", "2026-01-02", key, " (1 repeated line left out)") + "\n- flaky cache"
    )
    assert digest.dropped == 1


def old_digest(tokens: int) -> tuple[Entry, int]:
    text = intro(2, "2025-12-01", "2026-01-05", "d1dig") + "\n- Note x1 title\n- Note x2 title"
    extra = (
        ("from", "2025-12-01T00:00:00Z"),
        ("to", "2026-01-05T00:00:00Z"),
        ("entries", "2"),
        ("sources", "x1 x2"),
        ("archive", "archive/s.md"),
        ("refs", "pr/9"),
    )
    return Entry("d1dig", "2026-01-05T00:00:00Z", text, ("digest",), extra), tokens


def test_recompacting_a_shard_that_holds_a_digest_carries_its_lines_count_and_range() -> None:
    entries = [old_digest(32), note("e6", 6, 41), note("e7", 7, 42), note("e8", 8, 43)]
    before = run([shard("s", *entries)], 300, keep=1, threshold=300)
    assert before.holders == (
        Holder("s", "e8", 43, "newest"),
        Holder("s", "e7", 42, "left"),
        Holder("s", "e6", 41, "left"),
        Holder("s", "d1dig", 32, "digest"),
    )
    (digest,) = run([shard("s", *entries)], 1, keep=1, force=True).digests
    key = key_of("s", ["d1dig", "e6", "e7"])
    assert digest.entry == Entry(
        key,
        "2026-01-07T00:00:00Z",
        intro(4, "2025-12-01", "2026-01-07", key)
        + "\n- Note x1 title\n- Note x2 title\n- Note e6 title\n- Note e7 title",
        ("digest",),
        (
            ("from", "2025-12-01T00:00:00Z"),
            ("to", "2026-01-07T00:00:00Z"),
            ("entries", "4"),
            ("sources", "d1dig e6 e7"),
            ("archive", "archive/s.md"),
            ("refs", "pr/9"),
        ),
    )
    assert (digest.tokens_before, digest.tokens) == (115, 40)


def test_a_recompacted_digest_drops_a_line_that_repeats_one_of_its_own() -> None:
    entries = [old_digest(32), note("e6", 6, 41, title="note X1 title"), note("e8", 8, 43)]
    (digest,) = run([shard("s", *entries)], 1, keep=1, force=True).digests
    assert digest.entry.text.split("\n")[1:] == ["- Note x1 title", "- Note x2 title"]
    assert (digest.dropped, digest.entry.attr("entries")) == (1, "3")


# -- the pieces of a digest -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("The cache is a very big problem\nsecond line", "cache is big problem"),
        ("THE An JUST also the lock", "lock"),
        ("The", "The"),
        ("the a an", "the a an"),
        ("", ""),
        ("\n\n  ## A heading  \nbody", "heading"),
        ("the `the a` an thing", "`the a` thing"),
        ("run `git add the file` and the rest", "run `git add the file` and rest"),
        ("a `very` just fine", "`very` fine"),
        ("use `a` the `b c` an end", "use `a` `b c` end"),
        ("x`the a` the y", "x`the a` y"),
        ("``the`` the fix", "``the`` fix"),
        ("keep the   spaces   simple", "keep spaces simple"),
    ],
)
def test_a_digest_line_is_the_first_line_without_fillers_outside_code(text: str, line: str) -> None:
    assert digest_line(text) == line


def test_the_lines_a_digest_brings_are_its_own_and_an_entry_brings_its_first() -> None:
    written = old_digest(32)[0]
    assert lines_of(written) == ["Note x1 title", "Note x2 title"]
    imported = Entry("i", "2026-01-01T00:00:00Z", carried(written.text) + "\n\n  \nloose line", ("digest",))
    assert lines_of(imported) == ["Note x1 title", "Note x2 title", "loose line"]
    tagged = Entry("t", "2026-01-01T00:00:00Z", "The digest of the week\n- a\n- b", ("digest",))
    assert lines_of(tagged) == ["digest of week"]
    untagged = Entry("u", "2026-01-01T00:00:00Z", written.text, (), written.extra)
    assert lines_of(untagged) == [
        "Digest of 2 entries from 2025-12-01 to 2026-01-05, first line of each; `lh memory expand d1dig --print` shows"
        " them whole."
    ]
    assert lines_of(Entry("e", "2026-01-01T00:00:00Z", "  \n\t")) == []


def test_an_entry_is_a_digest_when_it_is_tagged_so_and_names_its_sources() -> None:
    written = old_digest(32)[0]
    assert is_digest(written)
    assert not is_digest(Entry("x", written.created, written.text, ("digest",)))
    assert not is_digest(Entry("x", written.created, written.text, ("ci",), written.extra))
    assert is_digest(Entry("x", written.created, "x", ("ci", "digest"), (("sources", ""),)))
    assert archive_path("failures") == "archive/failures.md"


@pytest.mark.parametrize(
    ("line", "key"),
    [
        ("Tar on macOS lacks --wildcards!", "tar on macos lacks wildcards"),
        ("retry 2 times", "retry 2 times"),
        ("snake_case_name, here", "snake_case_name here"),
        ("--- ...", "--- ..."),
        ("", ""),
    ],
)
def test_lines_with_the_same_words_and_numbers_in_order_share_a_key(line: str, key: str) -> None:
    assert same_key(line) == key


def test_a_carried_digest_says_it_was_imported() -> None:
    text = intro(3, "2026-01-01", "2026-01-04", "abc", " (2 repeated lines left out)") + "\n- x\n- y"
    imported = (
        "Digest of 3 entries from 2026-01-01 to 2026-01-04, the first line of each (2 repeated lines left out);"
        " imported: the entries themselves stayed in the project that compacted them.\n- x\n- y"
    )
    assert carried(text) == imported
    assert carried(imported) == imported
    assert carried(intro(2, "2026-01-01", "2026-01-02", "k")) == (
        "Digest of 2 entries from 2026-01-01 to 2026-01-02, the first line of each; imported: the entries"
        " themselves stayed in the project that compacted them."
    )
    plain = "Digest of 2 entries from a to b, the first line of each; no expand here\n- x"
    assert carried(plain) == plain
    assert carried("a note\n" + text) == "a note\n" + text


# -- whole files ----------------------------------------------------------------------------------

CAUSE = (
    "Cause: a blocking read inside the event loop; the fix moves it to a thread and adds a timeout.",
    "Seen on the nightly runner and on two laptops; the regression test is test_worker_stall.",
)
TITLES = ("The worker stalls under load", "the cache is a very stale index", "the proxy strips headers", "newest stays")


def entry_lines(key: str, day: int, title: str) -> list[str]:
    created = f"2026-01-{day:02d}T00:00:00Z"
    return [f'<!-- lh:entry id="{key}" created="{created}" -->', title, *CAUSE, f'<!-- /lh:entry id="{key}" -->']


@pytest.mark.parametrize("newline", ["\r\n", "\n"], ids=["crlf", "lf"])
def test_a_shard_without_a_trailing_newline_is_compacted_in_its_own_line_breaks(project: Path, newline: str) -> None:
    assert main(["config", "set", "memory.tokenBudget", "100"]) == 0
    assert main(["config", "set", "memory.keepNewest", "1"]) == 0
    lines = ["# quirks", "", "Surprising behaviour.", ""]
    for n, title in enumerate(TITLES):
        lines += entry_lines(f"a{n + 1}", n + 1, title)
    path = project / ".agents/memory/quirks.md"
    path.write_bytes(newline.join(lines).encode("utf-8"))  # no line break after the last line
    originals = {e.id: e.raw for e in parse(path.read_bytes().decode("utf-8")).entries}
    assert main(["memory", "compact", "--force"]) == 1  # the newest entry alone is over the target
    key = key_of("quirks", ["a1", "a2", "a3"])
    expected = [
        "# quirks",
        "",
        "Surprising behaviour.",
        "",
        f'<!-- lh:entry id="{key}" created="2026-01-03T00:00:00Z" tags="digest" from="2026-01-01T00:00:00Z"'
        f' to="2026-01-03T00:00:00Z" entries="3" sources="a1 a2 a3" archive="archive/quirks.md" -->',
        f"Digest of 3 entries from 2026-01-01 to 2026-01-03, the first line of each; `lh memory expand {key} --print`"
        " shows them whole.",
        "- worker stalls under load",
        "- cache is stale index",
        "- proxy strips headers",
        f'<!-- /lh:entry id="{key}" -->',
        *entry_lines("a4", 4, "newest stays"),
    ]
    assert path.read_bytes() == newline.join(expected).encode("utf-8")
    archived = parse((project / ".agents/memory/archive/quirks.md").read_bytes().decode("utf-8")).entries
    assert [(e.id, e.raw) for e in archived] == [(k, originals[k]) for k in ("a1", "a2", "a3")]


# -- a reference model ----------------------------------------------------------------------------

POOL = ("lock", "cache", "retry", "fsync", "rename", "proxy", "token", "merge", "flaky", "windows")


@st.composite
def memories(draw: st.DrawFn) -> tuple[list[ShardInput], int, int, int, bool]:
    """Up to three shards of one-line notes with distinct first words, some pinned, edited or superseded."""
    shards = []
    for name in draw(st.lists(st.sampled_from(["a", "b", "c"]), unique=True, max_size=3)):
        entries: list[Entry] = []
        tokens = []
        for n in range(draw(st.integers(0, 8))):
            attrs: dict[str, str] = {}
            if draw(st.booleans()) and draw(st.booleans()):
                attrs["updated"] = f"2026-01-{draw(st.integers(1, 6)):02d}T00:00:00Z"
            if entries and draw(st.integers(0, 4)) == 0:
                attrs["supersedes"] = draw(st.sampled_from(entries)).id
            title = " ".join([f"{name}{n}", *draw(st.lists(st.sampled_from(POOL), max_size=6))])
            tags = tuple(sorted(draw(st.sets(st.sampled_from(["ci", "macos", "pinned"]), max_size=2))))
            created = f"2026-01-{draw(st.integers(1, 4)):02d}T00:00:00Z"
            entries.append(Entry(f"{name}{n}", created, title, tags, tuple(attrs.items())))
            tokens.append(draw(st.integers(2, 60)))
        shards.append(ShardInput(name, tuple(entries), tuple(tokens)))
    total = sum(sum(s.tokens) for s in shards)
    target = draw(st.integers(0, total + 2))
    threshold = draw(st.integers(target, total + 2))
    return shards, target, threshold, draw(st.integers(0, 4)), draw(st.booleans())


def when(entry: Entry) -> str:
    updated = entry.attr("updated")
    return updated if updated is not None and updated > entry.created else entry.created


@settings(max_examples=120, deadline=None)
@given(memory=memories())
def test_plans_agree_with_a_reference_model(memory: tuple[list[ShardInput], int, int, int, bool]) -> None:
    shards, target, threshold, keep, force = memory
    planned = run(shards, target, keep, force=force, threshold=threshold)
    total = sum(sum(s.tokens) for s in shards)
    assert (planned.total_before, planned.due) == (total, total > threshold)
    ran = (total > threshold or force) and total > target
    digests = {d.shard: d for d in planned.digests}
    assert [d.shard for d in planned.digests] == [s.name for s in shards if s.name in digests]
    if not ran:
        assert digests == {}
    whole = 0
    for s in shards:
        entries = list(s.entries)
        # The order of writing, by counting for each entry how many were written after it.
        rank = {i: len(entries) - 1 - newer_count(entries, i) for i in range(len(entries))}
        writing = sorted(rank, key=rank.__getitem__)
        guarded = [i for i in writing if newer_count(entries, i) < keep or "pinned" in entries[i].tags]
        superseded = set()
        for e in entries:
            for key in (e.attr("supersedes") or "").split():
                superseded.add(key)
        free = [i for i in writing if i not in guarded]
        order = [i for i in free if entries[i].id in superseded] + [i for i in free if entries[i].id not in superseded]
        # One-line notes whose line costs more than three quarters of them are never taken.
        accepted = [
            i for i in order if entries[i].id in superseded or len(entries[i].text.split()) + 1 <= 0.75 * s.tokens[i]
        ]
        whole += sum(1 for i in order if i not in accepted)
        row = next(r for r in planned.shards if r.name == s.name)
        assert row.protected == len(guarded)
        digest = digests.get(s.name)
        if digest is None:
            assert (row.entries_after, row.tokens_after) == (len(entries), sum(s.tokens))
            if ran and not planned.reached:  # every accepted entry was taken: too few, or no saving
                tags = {t for i in accepted for t in entries[i].tags}
                cost = 24 + len(tags) + sum(len(entries[i].text.split()) + 1 for i in accepted)
                assert len(accepted) < 2 or cost >= sum(s.tokens[i] for i in accepted)
            continue
        taken = [entries.index(e) for e in digest.sources]
        assert sorted(taken, key=order.index) == accepted[: len(taken)]
        if not planned.reached:
            assert len(taken) == len(accepted)
        sources = [entries[i] for i in writing if i in taken]
        assert list(digest.sources) == sources
        ids = [e.id for e in sources]
        key = key_of(s.name, ids)
        first, last = min(e.created for e in sources), max(when(e) for e in sources)
        text = intro(len(sources), first[:10], last[:10], key) + "".join(f"\n- {e.text}" for e in sources)
        extra = [("from", first), ("to", last), ("entries", str(len(ids))), ("sources", " ".join(ids))]
        extra.append(("archive", f"archive/{s.name}.md"))
        named = sorted({k for e in sources for k in (e.attr("supersedes") or "").split()} - set(ids))
        if named:
            extra.append(("supersedes", " ".join(named)))
        tags = sorted({"digest"} | {t for e in sources for t in e.tags})
        assert digest.entry == Entry(key, last, text, tuple(tags), tuple(extra))
        before = sum(s.tokens[i] for i in taken)
        assert (digest.tokens_before, digest.tokens, digest.dropped) == (before, 2 + len(tags) + len(text.split()), 0)
        assert digest.tokens < before
        assert row == ShardPlan(
            s.name,
            len(entries),
            len(entries) - len(taken) + 1,
            sum(s.tokens),
            sum(s.tokens) - before + digest.tokens,
            len(guarded),
        )
    saved = sum(d.tokens_before - d.tokens for d in planned.digests)
    assert planned.total_after == total - saved
    assert planned.reached is (total - saved <= target)
    if ran and not planned.reached:
        assert planned.whole == whole


def test_the_planner_counts_each_new_line_and_then_the_digest_as_get_prints_it() -> None:
    counted: list[list[str]] = []

    def recording(texts: Sequence[str]) -> list[int]:
        counted.append(list(texts))
        return words(texts)

    planned = plan([shard("s", *SIX)], budget=100, at_percent=206, target_percent=206, keep_newest=2, counts=recording)
    (digest,) = planned.digests
    key = key_of("s", ["e0", "e1", "e2"])
    assert counted == [
        # The estimate of an intro: a digest of two entries over a year, as get prints it.
        [
            "[0123456789ab 2026-12-31 #digest]\nDigest of 2 entries from 2026-01-01 to 2026-12-31, the first line of"
            " each; `lh memory expand 0123456789ab --print` shows them whole.\n\n"
        ],
        ["- Note e0 title\n"],
        ["- Note e1 title\n"],
        ["- Note e2 title\n"],
        [f"[{key} 2026-01-03 #digest]\n{digest.entry.text}\n\n"],
    ]
    assert digest.entry.text == intro(3, "2026-01-01", "2026-01-03", key) + (
        "\n- Note e0 title\n- Note e1 title\n- Note e2 title"
    )


def test_a_digest_with_sources_keeps_its_own_lines_whatever_its_first_line_says() -> None:
    edited = Entry(
        "d", "2026-01-01T00:00:00Z", "Summary written by hand\n- one\n- two", ("digest",), (("sources", "a b"),)
    )
    assert lines_of(edited) == ["one", "two"]


def test_a_line_repeated_inside_a_later_source_is_dropped_and_the_rest_kept() -> None:
    entries = [note("e0", 1, 60, title="Note x1 title"), old_digest(32), note("e9", 9, 10)]
    (digest,) = run([shard("s", *entries)], 1, keep=1, force=True).digests
    assert [e.id for e in digest.sources] == ["e0", "d1dig"]
    assert digest.entry.text.split("\n")[1:] == ["- Note x1 title", "- Note x2 title"]
    assert digest.dropped == 1


def test_only_a_digest_counts_as_the_entries_it_names() -> None:
    entries = [
        line_note("p", 1, 60, "a plain note\nmore", entries="7"),  # not a digest: one entry
        line_note("c", 2, 60, "a digest without a count\nmore", tags="digest", sources="q r"),  # its two sources
        old_digest(60),  # two entries
        note("n", 9, 10),
    ]
    (digest,) = run([shard("s", *entries)], 1, keep=1, force=True).digests
    assert digest.entry.attr("entries") == "5"
    assert digest.entry.text.startswith("Digest of 5 entries from 2025-12-01 to 2026-01-05,")


@pytest.mark.parametrize(
    ("value", "sources", "count"),
    [
        ("5", "x1 x2", "7"),
        ("1", "x1 x2", "3"),
        ("three", "x1 x2", "4"),
        ("", "x1 x2", "4"),
        ("0", "x1 x2", "4"),
        ("-2", "x1 x2", "4"),
        ("\u0663", "x1 x2", "4"),  # an Arabic-Indic three
        ("three", "", "3"),
    ],
    ids=["a-count", "one", "a-word", "empty", "zero", "negative", "arabic-indic-digit", "no-sources"],
)
def test_a_digest_whose_count_was_edited_into_no_count_stands_for_its_sources(
    value: str, sources: str, count: str
) -> None:
    edited, tokens = old_digest(60)
    changed = {"entries": value, "sources": sources}
    extra = tuple((k, changed.get(k, v)) for k, v in edited.extra)
    entries = [(Entry(edited.id, edited.created, edited.text, edited.tags, extra), tokens), note("e6", 6, 60)]
    (digest,) = run([shard("s", *entries, note("e7", 7, 60), note("n", 9, 10))], 1, keep=1, force=True).digests
    assert digest.entry.attr("entries") == count  # its count, else its sources (at least one), + 1 + 1


def test_compaction_reads_a_hand_edited_digest_count_without_a_traceback(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["config", "set", "memory.tokenBudget", "100"]) == 0
    assert main(["config", "set", "memory.keepNewest", "1"]) == 0
    edited = old_digest(0)[0]
    lines = ["# quirks", "", "Surprising behaviour.", ""]
    header = " ".join(f'{k}="{"three" if k == "entries" else v}"' for k, v in edited.extra)
    lines += [f'<!-- lh:entry id="d1dig" created="2026-01-05T00:00:00Z" tags="digest" {header} -->']
    lines += [*edited.text.split("\n"), '<!-- /lh:entry id="d1dig" -->']
    for n, title in enumerate(TITLES):
        lines += entry_lines(f"a{n + 1}", n + 6, title)
    path = project / ".agents/memory/quirks.md"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["memory", "compact", "--force"]) == 1  # the newest entry alone is over the target
    assert "Traceback" not in capsys.readouterr().err
    digest = parse(path.read_text("utf-8")).entries[0]
    # The edited digest stands for its two sources, the three notes for one each.
    assert digest.text.startswith("Digest of 5 entries from 2025-12-01 to 2026-01-08,")
    assert digest.attr("entries") == "5"
    assert digest.attr("sources") == "d1dig a1 a2 a3"


@pytest.mark.parametrize("hand_edited", ["</system>", "0000", "2025-12-01", "yesterday"])
def test_a_digest_whose_from_is_not_a_time_starts_its_range_at_its_creation(hand_edited: str) -> None:
    digest, tokens = old_digest(32)
    edited = Entry(digest.id, digest.created, digest.text, digest.tags, (("from", hand_edited), *digest.extra[1:]))
    entries = [(edited, tokens), note("e6", 6, 41), note("e7", 7, 42), note("e8", 8, 43)]
    (merged,) = run([shard("s", *entries)], 1, keep=1, force=True).digests
    assert merged.entry.attr("from") == "2026-01-05T00:00:00Z"
    assert merged.entry.text.split("\n")[0] == intro(4, "2026-01-05", "2026-01-07", merged.entry.id)


def merged(planned: Plan) -> int:
    """How many entries the plan's digests take in."""
    return sum(len(digest.sources) for digest in planned.digests)
