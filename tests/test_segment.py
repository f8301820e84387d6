"""memory/search/segment.py: what the index keeps of a shard's entries, as bytes read back."""

from __future__ import annotations

import json
import math
import sys
from array import array
from dataclasses import replace

import pytest

from lean_harness.memory.search import search, segment
from lean_harness.memory.search.search import Doc, Index

CORRUPT = "search index is corrupt"


BINARY = ("shapes", "ends", "blob", "forward", "spans", "keys")  # memory/segment.py's binary fields, in file order


def unpacked(data: bytes) -> dict[str, object]:
    """A segment file's values, read as memory/segment.py documents its layout: those of its JSON
    line, and each binary field by name (each tag's entries under "tag_docs")."""
    line, _, rest = data.partition(b"\n")
    values: dict[str, object] = json.loads(line)
    fields, at = [], 0
    for size in values.pop("sizes"):  # type: ignore[attr-defined]
        fields.append(rest[at : at + size])
        at += size
    values.update(zip(BINARY, fields[:6], strict=True))
    values["tag_docs"] = dict(zip(values["tags"], fields[6:], strict=True))  # type: ignore[call-overload]
    return values


def packed(values: dict[str, object]) -> bytes:
    """The segment file of `unpacked` values."""
    values = dict(values)
    binary = [values.pop(name) for name in BINARY] + list(values.pop("tag_docs").values())  # type: ignore[attr-defined]
    values["sizes"] = [len(field) for field in binary]
    return json.dumps(values).encode() + b"\n" + b"".join(binary)  # type: ignore[arg-type]


def _file(**changed: object) -> bytes:
    """The file of shard "s"'s segment of one entry "a" holding "lock", with `changed` values."""
    values = unpacked(search.segment_of([Doc("a", "s", "t", (), "lock")]).to_bytes({}))
    values.update(changed)
    return packed(values)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        pytest.param(b"", "(unexpected layout)", id="empty"),
        pytest.param(b"[]\n", "(unexpected layout)", id="not-a-dict"),
        pytest.param(b"{" * 5000 + b"\n", "(unexpected layout)", id="deeply-nested"),
        pytest.param(_file().replace(b'"ids"', b'"idz"', 1), "(unexpected layout)", id="field-missing"),
        pytest.param(_file(ids=[1]), "(a list that is not of strings)", id="id-not-a-string"),
        pytest.param(_file(ids="a"), "(a list that is not of strings)", id="ids-not-a-list"),
        pytest.param(_file(created=[None]), "(a list that is not of strings)", id="created-not-strings"),
        pytest.param(_file(terms=[["lock"]]), "(a list that is not of strings)", id="term-not-a-string"),
        pytest.param(_file(tags={}), "(a list that is not of strings)", id="tags-not-a-list"),
        pytest.param(_file(totals=[1.5, 1]), "(a count that is not one)", id="total-not-int"),
        pytest.param(_file(totals=[True, 1]), "(a count that is not one)", id="total-a-bool"),
        pytest.param(_file(totals=[-1, 1]), "(a count that is not one)", id="total-negative"),
        pytest.param(_file(totals=[1]), "(a count that is not one)", id="totals-short"),
        pytest.param(_file()[:-1], "(fields of the wrong size)", id="truncated"),
        pytest.param(_file() + b"x", "(fields of the wrong size)", id="longer"),
        pytest.param(_file(forward=bytes(4)), "(values that do not fit together)", id="forward-short"),
        pytest.param(_file(created=[]), "(values that do not fit together)", id="created-missing"),
        pytest.param(_file(spans=bytes(8)), "(values that do not fit together)", id="spans-short"),
        pytest.param(_file(shapes=bytes(8)), "(values that do not fit together)", id="shape-partial"),
        pytest.param(_file(terms=["lock", "x"]), "(values that do not fit together)", id="term-without-end"),
        pytest.param(
            _file(terms=["z", "a"], ends=(8).to_bytes(4, sys.byteorder) * 2),
            "(values that do not fit together)",
            id="terms-unsorted",
        ),
        pytest.param(
            _file(tags=["t"], tag_docs={"t": (9).to_bytes(4, sys.byteorder)}),
            "(values that do not fit together)",
            id="tag-past-end",
        ),
        pytest.param(_file(ids=["b", "a"], created=["t", "t"]), "(values that do not fit together)", id="ids-unsorted"),
        pytest.param(
            _file(ends=(4).to_bytes(4, sys.byteorder), blob=bytes(4)),
            "(a posting list of the wrong size)",
            id="odd-posting",
        ),
    ],
)
def test_bad_segment_files_say_what_is_wrong(data: bytes, message: str) -> None:
    with pytest.raises(ValueError, match="search index") as raised:
        segment.from_bytes(data, "s")
    assert str(raised.value) == f"{CORRUPT} {message}"


def test_a_well_formed_segment_file_of_one_entry_loads() -> None:
    head, part = segment.from_bytes(_file(format="f"), "s")
    assert head["format"] == "f"
    loaded = Index([part])
    assert len(loaded) == 1
    assert [h.id for h in loaded.search("lock")] == ["a"]
    assert part.shard == "s"  # the shard it is read for, whatever the file says


def test_a_posting_list_past_its_entries_fails_when_used() -> None:
    past = array("I", [0, 5]).tobytes()  # entry 0, then shape 5 of the segment's 2
    loaded = Index([segment.from_bytes(_file(blob=past), "s")[1]])
    with pytest.raises(ValueError, match=r"search index is corrupt \(a posting list past its entries\)"):
        loaded.search("lock")


def test_a_lexicon_finds_each_posting_list_by_its_term_and_nothing_else() -> None:
    postings = {"retry": b"r" * 16, "lock": b"l" * 8, "zone": b"z" * 24}
    lexicon = search.segment.Lexicon.of(postings)
    assert lexicon.terms == ["lock", "retry", "zone"]
    assert [lexicon.get(term) for term in ("lock", "retry", "zone")] == [b"l" * 8, b"r" * 16, b"z" * 24]
    assert [lexicon.place(term) for term in ("lock", "retry", "zone", "a", "m", "zz")] == [0, 1, 2, -1, -1, -1]
    assert (lexicon.get("proxy"), lexicon.get("proxy", b"none")) == (b"", b"none")
    assert [term in lexicon for term in ("lock", "zone", "proxy", "", 3)] == [True, True, False, False, False]
    other = search.segment.Lexicon.of({"retry": b"r" * 8})
    assert [search.segment.holding([lexicon, other], t) for t in ("retry", "zone", "lock", "proxy")] == [3, 3, 1, 0]


def test_rows_of_gives_each_keyed_row_back_and_refuses_values_no_build_makes() -> None:
    rows = [
        segment.Row("b", "s", "t", (), 2, 1, {"lock": (1.0, 1.0, 0.0), "s": (0.0, 0.0, 0.5)}, key=b"b" * 32),
        segment.Row("a", "s", "t", ("x",), 1, 0, {"proxy": (1.0, 0.0, 0.0)}, key=b"a" * 32),
    ]
    part = segment.from_bytes(segment.build(rows).to_bytes({}), "s")[1]
    assert segment.rows_of(part) == {
        b"a" * 32: (1, 0, {"proxy": (1.0, 0.0, 0.0)}),
        b"b" * 32: (2, 1, {"lock": (1.0, 1.0, 0.0), "s": (0.0, 0.0, 0.5)}),
    }
    assert segment.rows_of(segment.build([replace(rows[0], key=b"")])) == {}  # no keys: nothing to reuse
    for shape, message in (
        ((math.nan, 0.0, 0.0, 1.0, 0.0), "(a weight that is not one)"),
        ((1.0, 0.0, 0.0, 1.5, 0.0), "(a length that is not one)"),
        ((1.0, 0.0, 0.0, -1.0, 0.0), "(a length that is not one)"),
    ):
        values = unpacked(segment.build([rows[1]]).to_bytes({}))
        values["shapes"] = array("d", shape).tobytes()
        with pytest.raises(ValueError, match="search index") as raised:
            segment.rows_of(segment.from_bytes(packed(values), "s")[1])
        assert str(raised.value) == f"{CORRUPT} {message}"
    values = unpacked(segment.build([rows[0]]).to_bytes({}))
    values["shapes"] = array("d", [0.0, 0.0, 0.5, 2.0, 1.0, 1.0, 1.0, 0.0, 3.0, 1.0]).tobytes()
    with pytest.raises(ValueError, match=r"\(an entry of two lengths\)"):
        segment.rows_of(segment.from_bytes(packed(values), "s")[1])
