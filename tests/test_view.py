"""memory/view.py: what `lh memory get SHARD` prints of each entry and block, and what each costs."""

from __future__ import annotations

import pytest

from lean_harness.memory.prose import Block
from lean_harness.memory.shard import Entry
from lean_harness.memory.view import costs, entry_block, entry_cost, page, prose_block

NOTE = Entry("k1", "2026-03-04T05:06:07Z", "one\ntwo", ("ci", "db"))
DIGEST = Entry("d1", "2026-03-04T05:06:07Z", "three notes", (), (("sources", "a b c"),))


@pytest.mark.parametrize(
    ("entry", "text", "ids", "block"),
    [
        pytest.param(NOTE, None, False, "[2026-03-04 #ci #db]\none\ntwo", id="day-and-tags"),
        pytest.param(NOTE, None, True, "[k1 2026-03-04 #ci #db]\none\ntwo", id="with-ids"),
        pytest.param(NOTE, "masked", False, "[2026-03-04 #ci #db]\nmasked", id="text-in-its-place"),
        pytest.param(DIGEST, None, False, "[d1 2026-03-04]\nthree notes", id="a-digest-shows-its-id"),
    ],
)
def test_an_entry_is_printed_as_a_header_then_its_text(entry: Entry, text: str | None, ids: bool, block: str) -> None:
    assert entry_block(entry, text, ids=ids) == block


def test_prose_is_marked_with_the_line_it_starts_on() -> None:
    prose = Block(7, 9, "Loose words.")
    assert prose_block(prose) == "[prose, line 7]\nLoose words."
    assert prose_block(prose, "masked") == "[prose, line 7]\nmasked"


def test_a_page_is_its_blocks_a_blank_line_apart_ending_in_a_newline() -> None:
    assert page([]) == ""
    assert page(["[a]\nx"]) == "[a]\nx\n"
    assert page(["[a]\nx", "[b]\ny"]) == "[a]\nx\n\n[b]\ny\n"


def test_each_block_costs_its_text_and_the_separator_after_it() -> None:
    def characters(texts: list[str]) -> list[int]:
        return [len(text) for text in texts]

    assert costs(["[a]\nx", "[bb]\nyy"], characters) == [7, 9]
    assert entry_cost(NOTE, characters) == len("[2026-03-04 #ci #db]\none\ntwo\n\n")
    assert entry_cost(NOTE, characters, "m") == len("[2026-03-04 #ci #db]\nm\n\n")
