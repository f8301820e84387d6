"""Edges of the credential scanner: every threshold of the value checks exactly at and one off,
stand-in values, masking of adjacent, overlapping and nested findings, line and column under
every kind of line break and in non-ASCII text, the allow list.

Each check is reached through a context that only one rule reads, so a row says which rule
reports the value or that none does. Values are made of fragments joined at run time, and are
patterned (`1a2b3c4d`) rather than random where an entropy must be exact; expected masks are
written out by hand. Nothing here prints a value: assertions compare rule names, positions
and masked text.
"""

from __future__ import annotations

import base64
import random
import re
import string
import zlib

import pytest

from lean_harness.scanning import credentials as secret_scan
from lean_harness.scanning.credentials import hide, scan
from lean_harness.scanning.finding import Finding
from lean_harness.scanning.masking import mask

pytestmark = pytest.mark.usefixtures("cold_scanner")  # tests/conftest.py


R = random.Random(20261201)
UPPER = string.ascii_uppercase + string.digits


def rnd(n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    return "".join(R.choice(alphabet) for _ in range(n))


def aws_id() -> str:
    """An access key id shape: reported as `AKIA********`."""
    return "AK" + "IA" + rnd(16, UPPER)


def rules(text: str, allow: tuple[str, ...] = ()) -> list[str]:
    return [f.rule for f in scan(text, allow=allow)]


def masked(text: str) -> str:
    return hide(text, scan(text))


# Contexts that one rule alone reads, each with its own value check.
def url(value: str) -> str:  # url-credentials: a literal of 3 or more, a leading dot or slash allowed
    return "https://deploy:" + value + "@db.internal/app"


def escaped_json(value: str) -> str:  # keyword-assignment: the generic check for generated values
    return '{\\"tok' + 'en\\": \\"' + value + '\\"}'


def define(value: str) -> str:  # named-secret: a value under a name that says it is secret
    return "define('DB_PASS" + "WORD', '" + value + "');"


def spoken(value: str) -> str:  # spoken-password: a password in prose
    return "The staging pass" + "word is " + value + " until Friday."


def dotenv(value: str) -> str:  # env-assignment: a .env line
    return "DEBUG=1\nDB_PASS" + "WORD=" + value + "\n"


# --- stand-ins: values that only hold a credential's place ---------------------------------

STAND_INS = [
    pytest.param("xxx", id="xxx"),
    pytest.param("xxxxxxxxxxxx", id="x-run"),
    pytest.param("<token>", id="angle-token"),
    pytest.param("${DB_PASS" + "WORD}", id="dollar-brace"),
    pytest.param("$DB_PASS" + "WORD", id="dollar"),
    pytest.param("{{ secrets.db }}", id="template"),
    pytest.param("changeme", id="changeme"),
    pytest.param("change_me_9Xk2", id="change_me"),
    pytest.param("hunter2", id="hunter2"),
    pytest.param("'hunter2'", id="quoted-word"),
    pytest.param("`hunter2`", id="backticked-word"),
    pytest.param("********", id="stars"),
    pytest.param("ab3…", id="ellipsis"),
    pytest.param("Ab3...Xy9k", id="three-dots"),
    pytest.param("Ab3****Xy9k", id="four-stars"),
    pytest.param("your-9Xk2-pw", id="your"),
    pytest.param("my-Example-9Xk2", id="example"),
    pytest.param("Qz-123456-Wv", id="digit-run"),
    pytest.param("Qz-qwerty-Wv", id="qwerty"),
    pytest.param("q7aaaaaa9", id="six-equal"),
    pytest.param("q7bcdefg9", id="six-consecutive"),
    pytest.param("q7345678z", id="six-consecutive-digits"),
    pytest.param("ababababa", id="two-kinds-in-nine"),
    pytest.param("1a1a1b1b1a1a1b1b1a", id="three-kinds-in-eighteen"),
    pytest.param("${" + "9Xk2Lm7Qp", id="unclosed-dollar-brace"),
    pytest.param("Ab3>Xy9k", id="greater-than"),
    pytest.param("Ab3{{Xy9k", id="double-brace"),
]


@pytest.mark.parametrize("value", STAND_INS)
def test_a_stand_in_is_not_a_credential_in_any_context(value: str) -> None:
    for context in (url, escaped_json, define, spoken, dotenv):
        assert rules(context(value)) == [], context.__name__


CONTROLS = [
    pytest.param("Ab3-Xy9k", id="dash-for-mark"),
    pytest.param("q7aaaaa9z", id="five-equal"),
    pytest.param("q7bcdef9z", id="five-consecutive"),
    pytest.param("q73456z8", id="five-consecutive-digits"),
    pytest.param("abababa", id="two-kinds-in-seven"),
    pytest.param("hunter22", id="not-the-word"),
    pytest.param("Qz-12345-Wv", id="digit-run-of-five"),
]


@pytest.mark.parametrize("value", CONTROLS)
def test_the_stand_ins_near_twin_is_a_password(value: str) -> None:
    """One character away from a stand-in, the value in a URL is reported."""
    assert rules(url(value)) == ["url-credentials"]


@pytest.mark.parametrize(
    ("distinct", "size", "found"),
    [
        pytest.param(5, 18, False, id="18-chars-5-kinds"),
        pytest.param(6, 18, True, id="18-chars-6-kinds"),
        pytest.param(6, 21, True, id="21-chars-6-kinds"),
        pytest.param(2, 8, True, id="8-chars-2-kinds"),
        pytest.param(2, 9, False, id="9-chars-2-kinds"),
        pytest.param(3, 9, True, id="9-chars-3-kinds"),
        pytest.param(1, 3, False, id="3-chars-1-kind"),
        pytest.param(2, 3, True, id="3-chars-2-kinds"),
    ],
)
def test_too_few_kinds_of_character_is_a_stand_in(distinct: int, size: int, found: bool) -> None:
    """Fewer distinct characters than a third of the length (at least 2, at most 6 needed)."""
    kinds = "q8w3e5z"[:distinct]
    value = (kinds * size)[:size]
    assert rules(url(value)) == (["url-credentials"] if found else [])


def test_a_word_inside_a_long_value_is_chance_not_a_stand_in() -> None:
    """Up to 64 characters any stand-in word counts; beyond, only whole words and x-runs."""
    left, right = rnd(30), rnd(30)
    assert "your" not in (left + right).lower()
    at_64 = left + "your" + right
    assert rules(escaped_json(at_64)) == []
    at_65 = left + "your" + right + "Z"
    assert rules(escaped_json(at_65)) == ["keyword-assignment"]
    assert rules(escaped_json(left + "-example-" + right + "Z")) == []
    assert rules(escaped_json(left + "Zexamplez" + right + "Z")) == ["keyword-assignment"]
    assert rules(escaped_json(left + "xxxxxxxx" + right + "Z")) == []
    assert rules(escaped_json(left + "xxxxxxx" + right + "Z")) == ["keyword-assignment"]


# --- the generic keyword check: generated-looking values only ------------------------------

KEYWORD_VALUES = [
    # (value, reported): lengths 7/8, entropy exactly 2.5 and below at 8 characters,
    # exactly 3.0 at 8 and 16, the 12 and 20 character steps.
    pytest.param("1a2b3c4", False, id="7-chars"),
    pytest.param("1a2b3c4d", True, id="8-chars-entropy-3.0"),
    pytest.param("1a1ab2cd", True, id="8-chars-entropy-2.5"),
    pytest.param("1a1ab2cc", False, id="8-chars-entropy-2.25"),
    pytest.param("1a1ab2b2c3d", True, id="11-chars-entropy-2.73"),
    pytest.param("1a1ab2b2c3dx", False, id="12-chars-entropy-2.92"),
    pytest.param("1a2b1a2b3c3c4d4d", True, id="16-chars-entropy-3.0"),
    pytest.param("1a2b1a2b3c3c4d4d11", False, id="18-chars-entropy-2.95"),
    pytest.param("1a2b1a2b3c3c4d4d1e1", True, id="19-chars-entropy-3.09"),
    pytest.param("1a2b1a2b3c3c4d4d1e1e", False, id="20-chars-entropy-3.12"),
    pytest.param("1a2b1a2b3c3c4d4d5e5e", True, id="20-chars-entropy-3.32"),
    # identifiers: a variable unless long, mixed and with digits, or hex with digits
    pytest.param("Zq8wLm3v", False, id="short-identifier"),
    pytest.param("Zq8wLm3vR2k", False, id="11-char-identifier"),
    pytest.param("Zq8wLm3vR2kP", True, id="12-char-mixed-identifier"),
    pytest.param("zq8wlm3vr2kp", False, id="12-char-lowercase-identifier"),
    pytest.param("a1b2c3d4e5f6", True, id="12-char-hex-identifier"),
    pytest.param("A1B2C3D4E5F6", True, id="12-char-uppercase-hex-identifier"),
    pytest.param("ZQWLMRKPTVXN", False, id="12-letter-uppercase"),
    pytest.param("qwzrtypsdfgh", False, id="12-letter-lowercase"),
    pytest.param("qwzRTypsdfgh", True, id="12-letters-two-capitals-in-a-row"),
    pytest.param("qwzRtypSdfgh", False, id="12-letters-capitals-apart"),
    pytest.param("qwzRTypsdfg", False, id="11-letters-two-capitals"),
    pytest.param("Qwzrtypsdfgh", False, id="12-letters-one-capital"),
    pytest.param("my.Conf1g.K3y9x", False, id="dotted-identifier"),
    pytest.param("Zq8w(Lm3vR2kP", False, id="parenthesis"),
    pytest.param("!#%&*+?~^", False, id="symbols-only"),
    pytest.param("some-name-here", False, id="slug"),
    pytest.param("SOME-NAME-TAGS", False, id="upper-slug"),
    pytest.param("9837465.2", False, id="number"),
    pytest.param("abc-defghijk", False, id="slug-lowercase"),
    pytest.param("zq-wl-mv-rk-pt", False, id="slug-of-pairs"),
    pytest.param("zq-wl-m3-rk-pt", True, id="dashed-with-digit"),
]


@pytest.mark.parametrize(("value", "reported"), KEYWORD_VALUES)
def test_keyword_assignment_wants_a_generated_value(value: str, reported: bool) -> None:
    assert rules(escaped_json(value)) == (["keyword-assignment"] if reported else [])


# --- named secrets: any literal that is not a plain word -----------------------------------

NAMED_VALUES = [
    pytest.param("Zq8wL3", True, id="6-chars"),
    pytest.param("Zq8wL", False, id="5-chars"),
    pytest.param("1a2b3c4d", True, id="two-kinds-entropy-3.0"),
    pytest.param("1a1ab2cd", True, id="entropy-2.5"),
    pytest.param("1a1ab2cc", False, id="entropy-2.25"),
    pytest.param("1a1ab2b2c3d", True, id="11-chars-entropy-2.73"),
    pytest.param("1a1ab2b2c3dx", False, id="12-chars-entropy-2.92"),
    pytest.param("1a2b1a2b3c3c4d4d", True, id="16-chars-entropy-3.0"),
    pytest.param("Zq8wLm3v", True, id="identifier-with-digits"),
    pytest.param("mvKeRTbnWQjsLpCx", True, id="16-letters-generated"),
    pytest.param("mvKeRTbnWQjsLpC", False, id="15-letters-generated"),
    pytest.param("mvKeRtbnWqjsLpCx", False, id="16-letters-capitals-apart"),
    pytest.param("qw-Er-TY-ui", True, id="letters-and-dashes"),
    pytest.param("app.db2.Pw9x", False, id="dotted-identifier"),
    pytest.param("app.db2.Pw9xQz7Lm4Rt", False, id="long-dotted-identifier"),
    pytest.param("load7Kx2Qm(b4)", False, id="call"),
    pytest.param("Load7Kx2Qm(b4)", False, id="call-capital"),
    pytest.param("_load7Kx2Qm(b4)", False, id="call-underscore"),
    pytest.param("(Zq8wLm3v)", True, id="parentheses"),
    pytest.param("(12345678)", False, id="number-in-parentheses"),
    pytest.param("Zq8(wLm3)v", False, id="looks-like-a-call"),
    pytest.param(".Zq8wLm3v", True, id="leading-dot"),
    pytest.param("/Zq8wLm3v", False, id="leading-slash"),
    pytest.param("~Zq8wLm3v", False, id="leading-tilde"),
    pytest.param("Z/q8wLm3v", True, id="second-slash"),
    pytest.param("Xq8wLm3v", True, id="leading-capital-x"),
    pytest.param("C:\\q8wLm3v", False, id="windows-path"),
    pytest.param("Cq:\\8wLm3v", True, id="colon-backslash-later"),
    pytest.param("zq8w://lm3v", False, id="url"),
    pytest.param("zq8w:/lm3v", True, id="colon-slash"),
    pytest.param("Zq8w Lm3v", False, id="space"),
    pytest.param("9zPass" + "word7", False, id="keyword-inside"),
    pytest.param("ZQW_LM3V", False, id="constant-name"),
    pytest.param("ZQ8W-LM3V", True, id="upper-with-dash"),
    pytest.param("some-name-here", False, id="slug"),
    pytest.param("build.", False, id="word-ending-a-sentence"),
    pytest.param("deploy!", False, id="word-ending-an-exclamation"),
    pytest.param("Zq8wLm3v.", True, id="literal-ending-a-sentence"),
]


@pytest.mark.parametrize(("value", "reported"), NAMED_VALUES)
def test_named_secret_wants_a_literal(value: str, reported: bool) -> None:
    assert rules(define(value)) == (["named-secret"] if reported else [])


# --- a password in prose -------------------------------------------------------------------

SPOKEN_VALUES = [
    pytest.param("Zq8wLm", True, id="6-chars-with-digit"),
    pytest.param("Zq8wLX", True, id="ends-in-capital-x"),
    pytest.param("Zq8wLm.", True, id="trailing-period-dropped"),
    pytest.param("Zq8wL.", False, id="5-chars-and-a-period"),
    pytest.param("mvkeRTbnwqjslpCx", True, id="lower-upper-twice"),
    pytest.param("mvkertbnwqjslpCX", False, id="lower-upper-once"),
    pytest.param("mvKeRTbnWQjsLpCx", True, id="lower-upper-five-times"),
    pytest.param("qwErTyuIop", False, id="camel-case-word"),
    pytest.param("qw-Er-Ty", True, id="dashes"),
    pytest.param("qw-er-ty", False, id="slug"),
    pytest.param("wonderful", False, id="a-word"),
    pytest.param(".Zq8wLm", True, id="leading-period-kept"),
    pytest.param("Zq8wLm3v!?", True, id="trailing-marks-dropped"),
]


@pytest.mark.parametrize(("value", "reported"), SPOKEN_VALUES)
def test_spoken_password_mixes_kinds_of_characters(value: str, reported: bool) -> None:
    assert rules(spoken(value)) == (["spoken-password"] if reported else [])


def test_a_spoken_password_runs_to_the_next_space() -> None:
    """Punctuation that ends the sentence is not part of the checked value, but it is masked
    with it: the password may end in the same marks."""
    assert masked(spoken("Zq8w" + "Lm3vR2kPa7!.")) == "The staging password is Zq8******** until Friday."


# --- .env lines ----------------------------------------------------------------------------

DOTENV_VALUES = [
    pytest.param("qwzrtypsdfgh", True, id="12-letter-word"),
    pytest.param("qwzrtypsdfg", False, id="11-letter-word"),
    pytest.param("qwz7ty", True, id="6-chars-with-digit"),
    pytest.param("qwz7t", False, id="5-chars"),
    pytest.param("https://h/x", False, id="url"),
    pytest.param("~/qwz7ty", False, id="path"),
    pytest.param("~qwz7tyz", False, id="leading-tilde"),
    pytest.param("Xqwz7tyz", True, id="leading-capital-x"),
    pytest.param("q~wz7tyz", True, id="inner-tilde"),
    pytest.param("12345678", False, id="number"),
]


@pytest.mark.parametrize(("value", "reported"), DOTENV_VALUES)
def test_dotenv_line_wants_a_literal(value: str, reported: bool) -> None:
    assert rules(dotenv(value)) == (["env-assignment"] if reported else [])


# --- URL passwords -------------------------------------------------------------------------

URL_VALUES = [
    pytest.param("q7z", True, id="3-chars"),
    pytest.param("q7", False, id="2-chars"),
    pytest.param(".q7zw", True, id="leading-dot"),
    pytest.param("~q7zw", True, id="leading-tilde"),
    pytest.param("$q7zw", False, id="reference"),
    pytest.param("hunter2", False, id="stand-in-word"),
]


@pytest.mark.parametrize(("value", "reported"), URL_VALUES)
def test_url_password_is_any_literal_of_three(value: str, reported: bool) -> None:
    assert rules(url(value)) == (["url-credentials"] if reported else [])


# --- masking -------------------------------------------------------------------------------

ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"


def span(start: int, end: int) -> Finding:
    return Finding("r", "d", 1, start + 1, start, end, "")


@pytest.mark.parametrize(
    ("spans", "expected"),
    [
        pytest.param([(0, 5), (5, 10)], "0********5********abcdefghijklmnopqrstuvwxyz", id="adjacent"),
        pytest.param([(0, 6), (3, 10)], "01********abcdefghijklmnopqrstuvwxyz", id="overlapping"),
        pytest.param([(0, 10), (2, 5)], "01********abcdefghijklmnopqrstuvwxyz", id="nested"),
        pytest.param([(2, 5), (0, 10)], "01********abcdefghijklmnopqrstuvwxyz", id="nested-given-inner-first"),
        pytest.param([(10, 15), (0, 5)], "0********56789a********fghijklmnopqrstuvwxyz", id="unsorted"),
        pytest.param(
            [(0, 5), (10, 15), (20, 25)], "0********56789a********fghijk********pqrstuvwxyz", id="three-apart"
        ),
        pytest.param([(0, 5), (4, 6), (6, 8)], "0****************89abcdefghijklmnopqrstuvwxyz", id="chain"),
        pytest.param([(31, 36)], "0123456789abcdefghijklmnopqrstuv********", id="at-the-end"),
        pytest.param([(0, 36)], "0123********", id="everything"),
        pytest.param([], ALPHABET, id="nothing"),
    ],
)
def test_mask_merges_overlaps_but_not_neighbours(spans: list[tuple[int, int]], expected: str) -> None:
    assert hide(ALPHABET, [span(s, e) for s, e in spans]) == expected


@pytest.mark.parametrize(
    ("length", "expected"),
    [
        (1, "********"),
        (4, "********"),
        (5, "0********"),
        (9, "0********"),
        (10, "01********"),
        (15, "012********"),
        (19, "012********"),
        (20, "0123********"),
        (36, "0123********"),
    ],
)
def test_a_masked_value_keeps_a_fifth_of_its_start_up_to_four(length: int, expected: str) -> None:
    assert hide(ALPHABET, [span(0, length)]) == expected + ALPHABET[length:]


def test_masking_findings_of_two_rules_on_one_line() -> None:
    key = aws_id()
    text = "id " + key + " url https://deploy:" + "q7z" + "W9x" + "@db"
    assert rules(text) == ["aws-access-key-id", "url-credentials"]
    assert masked(text) == "id AKIA******** url https://deploy:q********@db"


def test_adjacent_findings_are_masked_one_by_one() -> None:
    first, second = aws_id(), aws_id()
    text = first + "," + second
    assert masked(text) == "AKIA********,AKIA********"


def test_redact_masks_what_scan_finds_and_leaves_other_text_alone() -> None:
    key = aws_id()
    assert mask("deploy " + key + " now") == "deploy AKIA******** now"
    assert mask("deploy " + key) == "deploy AKIA********"
    assert mask("nothing here") == "nothing here"
    assert mask("") == ""


def test_previews_are_the_masked_values() -> None:
    text = "a " + aws_id() + "\nurl https://deploy:" + "q7zW9x" + "@db"
    assert [f.preview for f in scan(text)] == ["AKIA********", "q********"]


# --- line and column -----------------------------------------------------------------------


def place(text: str) -> list[tuple[str, int, int]]:
    return [(f.rule, f.line, f.column) for f in scan(text)]


def test_line_and_column_of_the_first_character() -> None:
    assert place(aws_id()) == [("aws-access-key-id", 1, 1)]


@pytest.mark.parametrize(
    ("before", "line", "column"),
    [
        pytest.param("ab\ncd ", 2, 4, id="LF"),
        pytest.param("ab\r\ncd ", 2, 4, id="CRLF"),
        pytest.param("\n\n\n", 4, 1, id="blank-lines"),
        pytest.param("ab\r\n\r\n", 3, 1, id="blank-CRLF-lines"),
        # Line numbers count LF only, as the files they are added to do: other characters
        # that some tools read as line breaks are columns on the same line.
        pytest.param("ab\rcd ", 1, 7, id="lone-CR"),
        pytest.param("ab\vcd ", 1, 7, id="VT"),
        pytest.param("ab\fcd ", 1, 7, id="FF"),
        pytest.param("ab\x1ccd ", 1, 7, id="FS"),
        pytest.param("ab\x85cd ", 1, 7, id="NEL"),
        pytest.param("ab\u2028cd ", 1, 7, id="LINE-SEPARATOR"),
        pytest.param("ab\u2029cd ", 1, 7, id="PARAGRAPH-SEPARATOR"),
        pytest.param("ab\n\rcd ", 2, 5, id="LF-CR"),
    ],
)
def test_lines_count_line_feeds(before: str, line: int, column: int) -> None:
    assert place(before + aws_id() + "\nend") == [("aws-access-key-id", line, column)]


@pytest.mark.parametrize(
    ("before", "column"),
    [
        pytest.param("é ", 3, id="latin"),
        pytest.param("€€ ", 4, id="three-byte"),
        pytest.param("😀 ", 3, id="astral"),
        pytest.param("e\u0301 ", 4, id="combining"),
        pytest.param("\u4e2d\u6587：", 4, id="cjk"),
    ],
)
def test_columns_count_characters_not_bytes(before: str, column: int) -> None:
    assert place("first\n" + before + aws_id()) == [("aws-access-key-id", 2, column)]


def test_positions_of_several_findings_on_several_lines() -> None:
    text = "\n".join(["x " + aws_id(), "", "yy " + aws_id() + " z " + aws_id(), "\r\n" + aws_id()])
    assert place(text) == [
        ("aws-access-key-id", 1, 3),
        ("aws-access-key-id", 3, 4),
        ("aws-access-key-id", 3, 27),
        ("aws-access-key-id", 5, 1),
    ]
    starts = [f.start for f in scan(text)]
    assert starts == [2, 27, 50, 73]
    assert [f.end - f.start for f in scan(text)] == [20, 20, 20, 20]


def test_findings_carry_their_rules_description() -> None:
    (finding,) = scan(aws_id())
    assert finding.description == "an AWS access key ID"


# --- the allow list ------------------------------------------------------------------------


def test_allow_drops_one_rule_and_keeps_the_others_positions() -> None:
    text = aws_id() + "\n\nurl https://deploy:" + "q7zW9x" + "@db"
    assert place(text) == [("aws-access-key-id", 1, 1), ("url-credentials", 3, 20)]
    assert [(f.rule, f.line, f.column) for f in scan(text, allow=("aws-access-key-id",))] == [
        ("url-credentials", 3, 20)
    ]
    assert scan(text, allow=iter(["url-credentials", "aws-access-key-id"])) == []
    assert rules(text, allow=("no-such-rule",)) == ["aws-access-key-id", "url-credentials"]


def test_allow_drops_every_finding_of_the_rule() -> None:
    text = aws_id() + " " + aws_id()
    assert rules(text) == ["aws-access-key-id", "aws-access-key-id"]
    assert rules(text, allow=("aws-access-key-id",)) == []


# --- non-ASCII text ------------------------------------------------------------------------


def test_a_letter_that_lowercases_longer_keeps_offsets() -> None:
    """`İ` lowercases to two characters; the lowercase view must keep every offset."""
    value = "1a2b" + "3c4d9x"
    text = "İ İ " + "PASS" + "WORD=" + value + " İ"
    assert rules(text) == ["keyword-assignment"]
    assert masked(text) == "İ İ PASSWORD=1a********" + " İ"


def test_upper_case_names_read_as_lower_case_next_to_such_a_letter() -> None:
    value = "1a2b" + "3c4d9x"
    for name in ("TOKEN", "Token", "tOkEn"):
        text = "İ " + name + "=" + value
        assert masked(text) == "İ " + name + "=1a********"


def test_brackets_stay_brackets_next_to_such_a_letter() -> None:
    """Only A-Z are lowered: `[` is not turned into `{` (which would read as a reference)."""
    value = "1a2b" + "3c4d9x"
    assert masked("İ token=[" + value + "]") == "İ token=[" + value + "]"
    assert masked("İ token=" + value + "@Z") == "İ token=1a********"


def test_a_kelvin_sign_reads_as_k() -> None:
    value = "1a2b" + "3c4d9x"
    assert rules("api_\u212aey=" + value) == ["keyword-assignment"]


def test_non_ascii_letters_do_not_continue_a_token() -> None:
    """A prefixed token starts after any non-ASCII character, even a letter."""
    key = aws_id()
    assert masked("é" + key) == "éAKIA********"
    assert masked("中" + key) == "中AKIA********"
    assert masked("x" + key) == "x" + key
    assert masked("9" + key) == "9" + key


# --- word boundaries before prefixed tokens ------------------------------------------------


@pytest.mark.parametrize(
    ("before", "reported"),
    [
        pytest.param("", True, id="start"),
        pytest.param(" ", True, id="space"),
        pytest.param("_", True, id="underscore"),
        pytest.param("x", False, id="letter"),
        pytest.param("7", False, id="digit"),
        pytest.param("\\n", True, id="escaped-LF"),
        pytest.param("\\r", True, id="escaped-CR"),
        pytest.param("\\t", True, id="escaped-tab"),
        pytest.param("\\x", False, id="escaped-other"),
        pytest.param("%3A", True, id="percent-upper"),
        pytest.param("%3a", True, id="percent-lower"),
        pytest.param("%2F", True, id="percent-slash"),
        pytest.param("%GA", False, id="percent-not-hex"),
        pytest.param("%0A", True, id="encoded-LF"),
        pytest.param("%0a", True, id="encoded-LF-lower"),
        pytest.param("%C2", True, id="encoded-high-byte"),
        pytest.param("%c2", True, id="encoded-high-byte-lower"),
        pytest.param("%XA", False, id="percent-X"),
        pytest.param("%0X", False, id="percent-digit-X"),
        pytest.param("x%0", False, id="percent-too-late"),
        pytest.param("%A", False, id="percent-one-digit"),
        pytest.param("x3A", False, id="no-percent"),
        pytest.param("%%3", False, id="percent-percent-digit"),
        pytest.param("ab%3Fx", False, id="percent-then-letter"),
    ],
)
def test_a_prefixed_token_starts_at_a_word_boundary(before: str, reported: bool) -> None:
    key = aws_id()
    assert rules("q " + before + key) == (["aws-access-key-id"] if reported else [])


def test_a_boundary_at_the_very_start_after_an_escape() -> None:
    key = aws_id()
    assert rules("\\n" + key) == ["aws-access-key-id"]
    assert rules("%3D" + key) == ["aws-access-key-id"]
    assert rules("n" + key) == []
    assert rules("3D" + key) == []


# --- the table's building blocks -----------------------------------------------------------


def test_prefixed_rules_are_bounded_provider_rules() -> None:
    def check(value: str) -> bool:
        return value == "ok"

    rule = secret_scan._prefixed("demo", "a demo format", "dm_[a-z]{4}", keys=("dm_",), validate=check)
    assert (rule.id, rule.description, rule.pattern, rule.keywords, rule.validate, rule.rank, rule.bounded) == (
        "demo", "a demo format", "dm_[a-z]{4}" + secret_scan._E, ("dm_",), check, secret_scan.PROVIDER, True
    )  # fmt: skip
    plain = secret_scan._prefixed("demo", "a demo format", "Dm\\.x[a-z]", end="")
    assert (plain.pattern, plain.keywords, plain.validate, plain.bounded) == (
        "Dm\\.x[a-z]",
        ("dm.x",),  # the literal every match starts with, lowercased: the rule's gate
        secret_scan._plausible,
        True,
    )
    assert secret_scan._prefixed("demo", "a demo format", "[a-z]{4}").keywords == ()  # no literal: no gate


@pytest.mark.parametrize(
    ("text", "value"),
    [
        pytest.param('"ab cd"', "ab cd", id="double-quoted"),
        pytest.param("'ab cd'", "ab cd", id="single-quoted"),
        pytest.param('\\"ab cd\\"', "ab cd", id="escaped-quotes"),
        pytest.param("abc%2Fdef", "abc%2Fdef", id="encoded-slash"),
        pytest.param("abc%2fdef", "abc%2fdef", id="encoded-slash-lower"),
        pytest.param("abc%2Cdef", "abc", id="encoded-comma-ends"),
        pytest.param("abc%2cdef", "abc", id="encoded-comma-lower-ends"),
        pytest.param("abc%3Bdef", "abc", id="encoded-semicolon-ends"),
        pytest.param("abc%0Adef", "abc", id="encoded-newline-ends"),
        pytest.param("abc%zzdef", "abc%zzdef", id="lone-percent"),
        pytest.param("abc%4", "abc%4", id="percent-and-one-digit"),
        pytest.param("%27abc", "abc", id="encoded-quote-before"),
        pytest.param("abc def", "abc", id="space-ends"),
        pytest.param("abc,def", "abc", id="comma-ends"),
    ],
)
def test_a_value_is_quoted_escaped_or_bare(text: str, value: str) -> None:
    match = re.match(secret_scan._value("t", 3), text)
    assert match is not None
    assert next(group for group in match.groups() if group is not None) == value


def test_a_value_has_its_minimum_length() -> None:
    assert re.fullmatch(secret_scan._value("t", 3), "ab") is None
    assert re.fullmatch(secret_scan._value("t", 3), '"ab"') is None
    assert re.fullmatch(secret_scan._value("t"), "a") is not None


# --- provider checks at their thresholds ---------------------------------------------------


def bearer(value: str) -> str:
    return "curl -H 'Authorization: Bearer " + value + "'"


@pytest.mark.parametrize(
    ("value", "reported"),
    [
        pytest.param("a1b2c3d4" * 2, True, id="entropy-exactly-3.0"),
        pytest.param("a1b2c3d4" + "a1b2c3dd", False, id="entropy-below-3.0"),
        pytest.param("abcdefgh" + "ijklmnop", False, id="no-digit"),
        pytest.param("12345670" + "98765432", False, id="no-letter"),
        pytest.param("a1b2c3d4" + "e5f6g7h8", True, id="entropy-4.0"),
    ],
)
def test_bearer_token_wants_letters_digits_and_entropy(value: str, reported: bool) -> None:
    assert rules(bearer(value)) == (["bearer-token"] if reported else [])


def pem(body: str) -> str:
    label = "RSA PRIVATE " + "KEY"
    return "-----BEGIN " + label + "-----\n" + body + "\n-----END " + label + "-----\n"


SIXTEEN = "0123456789abcdef"
TWENTY = SIXTEEN + "ghij"


@pytest.mark.parametrize(
    ("body", "reported"),
    [
        pytest.param(SIXTEEN * 3, True, id="48-chars-entropy-exactly-4.0"),
        pytest.param(TWENTY * 2, True, id="40-chars"),
        pytest.param((TWENTY * 2)[:39], False, id="39-chars"),
        pytest.param(SIXTEEN[:15] * 3 + "000", False, id="entropy-below-4.0"),
        pytest.param((SIXTEEN * 3)[:24] + "\n" + (SIXTEEN * 3)[24:], True, id="two-lines"),
        pytest.param((SIXTEEN * 3)[:24] + "\\n" + (SIXTEEN * 3)[24:], True, id="escaped-newline"),
        pytest.param((SIXTEEN * 3)[:24] + "\\r\\n" + (SIXTEEN * 3)[24:], True, id="escaped-CRLF"),
    ],
)
def test_private_key_body_wants_forty_characters_of_key_material(body: str, reported: bool) -> None:
    assert rules(pem(body)) == (["private-key"] if reported else [])


def test_a_lowercase_only_hugging_face_token_is_a_word() -> None:
    assert rules("hf" + "_" + rnd(34, string.ascii_lowercase)) == []
    assert rules("hf" + "_" + rnd(34, string.ascii_lowercase) + "Q") == ["huggingface-token"]


def basic(user: bytes, password: bytes) -> str:
    return "Authorization: Basic " + base64.b64encode(user + b":" + password).decode()


def test_basic_credentials_need_a_user_and_a_password() -> None:
    password = b"q7zW" + b"9xLm"
    assert rules(basic(b"deploy", password)) == ["basic-auth"]
    assert rules(basic(b"", password)) == []
    assert rules(basic(b"deploy", b"")) == []
    assert rules("Authorization: Basic " + base64.b64encode(b"deploy" + password).decode()) == []
    assert rules(basic(b"deploy", b"hunter2")) == []
    assert rules(basic(b"deploy", b"q7zW:9xLm")) == ["basic-auth"]
    # The user name ends at the first colon; the password may hold more.
    assert rules(basic(b"deploy", b"q7zW9xLm:hunter2")) == ["basic-auth"]


def aws_secret(value: str) -> str:
    return "aws secret (rotated) " + value


def test_aws_secret_key_wants_mixed_case_few_slashes_and_high_entropy() -> None:
    mixed = rnd(36) + "Ab9q"
    assert rules(aws_secret(mixed)) == ["aws-secret-key"]
    lower = rnd(36, string.ascii_lowercase + string.digits) + "ab9q"
    assert rules(aws_secret(lower)) == []
    upper = rnd(36, UPPER) + "AB9Q"
    assert rules(aws_secret(upper)) == []
    three = mixed[:10] + "/" + mixed[11:20] + "/" + mixed[21:30] + "/" + mixed[31:]
    assert rules(aws_secret(three)) == ["aws-secret-key"]
    four = three[:5] + "/" + three[6:]
    assert rules(aws_secret(four)) == []


def test_aws_secret_key_entropy_threshold_is_3_8() -> None:
    kinds = "Ab1Cd2Ef3Gh4Ij5Kl6Mn7"
    assert rules(aws_secret((kinds[:14] * 3)[:40])) == []  # entropy 3.795
    assert rules(aws_secret((kinds[:15] * 3)[:40])) == ["aws-secret-key"]  # entropy 3.883


def jwt(header: str, payload: str) -> str:
    def enc(text: str) -> str:
        return base64.urlsafe_b64encode(text.encode()).rstrip(b"=").decode()

    return enc(header) + "." + enc(payload) + "." + rnd(43, string.ascii_letters + string.digits + "-_")


def test_a_jwt_has_json_header_and_payload() -> None:
    header = '{"alg":"HS256","typ":"JWT"}'
    assert rules("cookie " + jwt(header, '{"sub":"' + rnd(10) + '"}')) == ["jwt"]
    assert rules("cookie " + jwt(header, ' {"sub":"' + rnd(10) + '"}')) == ["jwt"]
    assert rules("cookie " + jwt(header, '"sub":"' + rnd(10) + '"} ')) == []
    assert rules("cookie " + jwt("[1,2,3,4,5,6,7]", '{"sub":"' + rnd(10) + '"}')) == []


def encoded(text: bytes) -> str:
    return "the pass" + "word printed " + base64.b64encode(text).decode()


def test_an_encoded_secret_decodes_to_a_literal() -> None:
    assert rules(encoded(b"q7zW" + b"9xLm!2")) == ["encoded-secret"]
    assert rules(encoded(b"q7zW" + b"9xLm!2\n")) == ["encoded-secret"]
    assert rules(encoded(b"\nq7zW" + b"9xLm!2")) == []
    assert rules(encoded(b"q7zW" + b"9xLm!2\t")) == []
    assert rules(encoded(b"hunter2")) == []
    assert rules(encoded(b"Zq8wLm3v" + b"XXXXXX")) == []  # a stand-in once decoded
    assert rules(encoded(b"q7zW" + b"9xLm!2\x01")) == []  # not text
    assert rules(encoded(b"q7zW" + b"9xLm!2a\x17")) == []  # not text, and its base64 ends in X


def test_encoded_key_material_at_its_thresholds() -> None:
    """Base64 of bytes that are not text: 16 bytes or more, at an entropy of 4.0 or more."""
    fifteen = "gHiJkLmNoPqRsTuVwXyZ"  # 20 kinds: entropy 4.32, 15 bytes
    assert rules("the pass" + "word printed " + fifteen) == []
    at_four = "gHiJkLmNoPqRsTuV" * 2  # 16 kinds twice: entropy exactly 4.0, 24 bytes
    assert rules("the pass" + "word printed " + at_four) == ["encoded-secret"]
    below = "gHiJkLmNoPqRsTuu" * 2  # 15 kinds
    assert rules("the pass" + "word printed " + below) == []


def test_encoded_key_material_needs_sixteen_bytes_and_entropy_four() -> None:
    sixteen = bytes(range(0x80, 0x90))
    assert rules(encoded(sixteen)) == ["encoded-secret"]
    assert rules(encoded(sixteen[:15])) == []


def storage(value: str) -> str:
    return "the storage account " + "key is " + value


def test_storage_account_key_wants_entropy_five_and_three_kinds() -> None:
    alphabet = string.ascii_letters + string.digits
    value = rnd(86, alphabet) + "=="
    assert rules(storage(value)) == ["storage-account-key"]
    assert rules(storage(rnd(86, string.ascii_lowercase + string.digits) + "==")) == []
    low = (alphabet[:30] * 3)[:86] + "=="
    assert rules(storage(low)) == []


def test_encoded_values_in_a_url_are_read_decoded() -> None:
    value = "1a2b" + "3c4d" + "9x!q"
    encoded_value = value.replace("!", "%21")
    text = "https://h/cb?x=1&pass" + "word%3D" + encoded_value + "&y=2"
    assert masked(text) == "https://h/cb?x=1&password%3D1a********&y=2"


@pytest.mark.parametrize(
    "name",
    ["DB_PASS" + "WORD", "PASS" + "WORD", "TOK" + "EN", "SEC" + "RET", "API_" + "KEY", "APIKEY", "export TOK" + "EN"],
)
def test_a_dotenv_name_may_be_the_secret_word_alone(name: str) -> None:
    """A twelve-letter word is a .env value, whether or not the name has a prefix."""
    text = "DEBUG=1\n" + name + "=" + "qwzrtypsdfgh" + "\n"
    assert rules(text) == ["env-assignment"]
    assert masked(text) == "DEBUG=1\n" + name + "=qw********\n"


# --- URL-encoded lines ---------------------------------------------------------------------

VALUE = "1a2b" + "3c4d" + "9x"  # keyword-assignment reports it as `1a********`


def test_a_line_that_starts_with_an_escape_is_read_decoded() -> None:
    text = "%70ass" + "word%3D" + VALUE
    assert masked(text) == "%70ass" + "word%3D1a********"


@pytest.mark.parametrize("escape", ["%6f", "%6F", "%4f"])
def test_escapes_are_decoded_in_either_case(escape: str) -> None:
    text = "a passw" + escape + "rd%3d" + VALUE
    assert place(text) == [("keyword-assignment", 1, 16)]


def test_every_encoded_line_is_read_decoded_where_it_is() -> None:
    lines = ["x=1", "pass%77" + "ord%3D" + VALUE + "&y", "tok%65" + "n%3D" + VALUE, "s%65" + "cret%3D" + VALUE, "end"]
    text = "\n".join(lines)
    assert place(text) == [("keyword-assignment", 2, 14), ("keyword-assignment", 3, 11), ("keyword-assignment", 4, 12)]
    assert masked(text) == ("x=1\npass%77ord%3D1a********&y\ntok%65n%3D1a********\ns%65cret%3D1a********\nend")


def test_an_encoded_line_before_other_lines() -> None:
    text = "pass%77" + "ord%3D" + VALUE + "\nnext\n"
    assert masked(text) == "pass%77ord%3D1a********\nnext\n"


def test_an_encoded_line_that_starts_after_a_line_break() -> None:
    text = "first\n%70ass" + "word%3D" + VALUE + "\nlast"
    assert place(text) == [("keyword-assignment", 2, 14)]


# --- values cut in two: adjacent string literals and wrapped lines -------------------------

LETTERS = string.ascii_uppercase


def cut_key() -> tuple[str, str]:
    """An access key id in two parts that each mix letters and digits (14 + 6 characters)."""
    return "AK" + "IA" + rnd(9, LETTERS) + "7", "3" + rnd(5, LETTERS)


@pytest.mark.parametrize(
    ("glue", "quote"),
    [
        pytest.param('" "', '"', id="double-quotes"),
        pytest.param("' '", "'", id="single-quotes"),
        pytest.param('" + "', '"', id="plus"),
        pytest.param('" .\n  "', '"', id="dot-across-lines"),
    ],
)
def test_adjacent_literals_are_read_joined(glue: str, quote: str) -> None:
    first, second = cut_key()
    text = "x = " + quote + first + glue + second + quote + ";"
    assert rules(text) == ["aws-access-key-id"]
    assert masked(text) == "x = " + quote + "AKIA********" + quote + ";"


def test_a_value_cut_into_three_literals() -> None:
    first, second = cut_key()
    text = 'x = "' + first[:8] + '" "' + first[8:] + '" "' + second + '"'
    assert masked(text) == 'x = "AKIA********"'


def test_a_value_cut_into_three_literals_far_into_the_text() -> None:
    first, second = cut_key()
    text = "# " + "padding " * 60 + '\nx = "' + first[:8] + '" "' + first[8:] + '" "' + second + '"'
    assert place(text) == [("aws-access-key-id", 2, 6)]


def test_two_cut_values_far_apart() -> None:
    one, two = cut_key(), cut_key()
    text = (
        'a = "' + one[0] + '" "' + one[1] + '"\n' + "# " + "padding " * 60 + '\nb = "' + two[0] + '" "' + two[1] + '"'
    )
    assert place(text) == [("aws-access-key-id", 1, 6), ("aws-access-key-id", 3, 6)]


@pytest.mark.parametrize("line_break", ["\n", "\r\n", "\\\n"], ids=["LF", "CRLF", "backslash"])
def test_a_token_wrapped_at_a_line_end(line_break: str) -> None:
    first, second = cut_key()
    text = "key " + first + line_break + second + " end"
    assert place(text) == [("aws-access-key-id", 1, 5)]
    assert masked(text) == "key AKIA******** end"


def test_a_wrapped_token_on_a_later_line() -> None:
    first, second = cut_key()
    text = "one\ntwo\nkey " + first + "\n" + second + " end\nlast"
    assert masked(text) == "one\ntwo\nkey AKIA******** end\nlast"


def test_a_wrap_needs_twelve_characters_before_and_four_after() -> None:
    whole = "AK" + "IA" + "7" + rnd(10, LETTERS) + "3" + rnd(2, LETTERS) + "9Q"  # digits at 4, 15, 18
    twelve, eight = whole[:12], whole[12:]
    assert masked(twelve + "\n" + eight + " end") == "AKIA******** end"
    assert masked("x " + twelve + "\n" + eight + " end") == "x AKIA******** end"
    sixteen, four = whole[:16], whole[16:]
    assert masked("x " + sixteen + "\n" + four + " end") == "x AKIA******** end"


def test_a_short_run_before_a_line_break_is_prose() -> None:
    """`AKIA` ends a line of prose that holds a digit; the next line is not its tail."""
    text = "id 7 is AK" + "IA\n" + "Q7" + rnd(13, LETTERS) + "3 x"
    assert rules(text) == []


def test_a_mixed_head_shorter_than_twelve_is_not_wrapped() -> None:
    whole = "AK" + "IA" + "7" + rnd(7, LETTERS) + "3" + rnd(7, LETTERS)
    assert rules("x " + whole[:6] + "\n" + whole[6:] + " y") == []


def test_a_wrapped_tail_of_letters_only_is_prose() -> None:
    first = "AK" + "IA" + rnd(9, LETTERS) + "7Q7"
    assert rules("key " + first + "\n" + rnd(4, LETTERS) + " end 7") == []


def test_a_wrapped_head_of_letters_only_is_prose() -> None:
    first = "AK" + "IA" + rnd(12, LETTERS)
    assert rules("key " + first + "\n" + "3Q7Z" + rnd(2, LETTERS) + " end") == []


# --- overlapping candidates ----------------------------------------------------------------


def by_id(rule_id: str) -> secret_scan.Rule:
    return next(rule for rule in secret_scan.RULES if rule.id == rule_id)


def best(*candidates: tuple[int, int, str]) -> list[tuple[int, int, str]]:
    rows = [(start, end, by_id(rule).rank, by_id(rule)) for start, end, rule in candidates]
    return [(start, end, rule.id) for start, end, rule in secret_scan._best(rows)]


def test_the_best_ranked_candidate_wins_then_the_longest_then_the_first_listed() -> None:
    assert best((0, 10, "named-secret"), (2, 8, "github-pat")) == [(2, 8, "github-pat")]
    assert best((3, 12, "named-secret"), (5, 15, "keyword-assignment")) == [(5, 15, "keyword-assignment")]
    assert best((5, 15, "named-secret"), (3, 12, "keyword-assignment")) == [(5, 15, "named-secret")]
    assert best((5, 15, "named-secret"), (5, 15, "keyword-assignment")) == [(5, 15, "keyword-assignment")]
    assert best((5, 15, "keyword-assignment"), (5, 15, "named-secret")) == [(5, 15, "keyword-assignment")]


def test_candidates_that_only_touch_are_both_kept() -> None:
    assert best((0, 5, "github-pat"), (5, 10, "named-secret")) == [(0, 5, "github-pat"), (5, 10, "named-secret")]
    assert best((5, 10, "github-pat"), (0, 5, "named-secret")) == [(0, 5, "named-secret"), (5, 10, "github-pat")]


def test_a_candidate_overlapping_a_kept_neighbour_is_dropped() -> None:
    kept = [(0, 5, "github-pat"), (10, 15, "github-pat")]
    assert best(*kept, (12, 20, "named-secret")) == kept
    assert best(*kept, (3, 8, "named-secret"), (20, 30, "named-secret")) == [*kept, (20, 30, "named-secret")]
    assert best(*kept, (3, 8, "named-secret"), (20, 23, "named-secret")) == [*kept, (20, 23, "named-secret")]
    assert best(*kept, (6, 9, "named-secret")) == [(0, 5, "github-pat"), (6, 9, "named-secret"), (10, 15, "github-pat")]


def test_a_finding_right_after_a_leading_line_break() -> None:
    assert place("\n" + aws_id()) == [("aws-access-key-id", 2, 1)]


def test_a_valid_checksum_padded_with_zeros_proves_a_token() -> None:
    """A checksum of five base62 digits is padded with a leading zero to six."""
    body = "e" * 30
    number, digits = zlib.crc32(body.encode()), ""
    while number:
        number, rest = divmod(number, 62)
        digits = (string.digits + string.ascii_uppercase + string.ascii_lowercase)[rest] + digits
    assert len(digits) == 5
    assert rules("gh" + "p_" + body + "0" + digits) == ["github-pat"]
    assert rules("gh" + "p_" + body + digits + "0") == []


def test_a_wrong_checksum_leaves_the_entropy_check() -> None:
    """Without a valid checksum a token needs letters, digits and an entropy of 3.0."""
    assert rules("gh" + "p_" + ("a1b2c3d4e5" * 4)[:36]) == ["github-pat"]
    assert rules("gh" + "p_" + ("a1b2" * 9)) == []


def test_a_jwt_whose_payload_encodes_to_url_safe_characters() -> None:
    header = '{"alg":"HS256","typ":"JWT"}'
    token = jwt(header, '{"a":">>>???","sub":"' + rnd(10) + '"}')
    middle = token.split(".")[1]
    assert "-" in middle
    assert "_" in middle
    assert rules("cookie " + token) == ["jwt"]


def test_the_jwt_io_sample_is_found_whatever_the_payload_encodes_to() -> None:
    """The sample's payload names John Doe; URL-safe characters before it must decode too."""
    header = '{"alg":"HS256","typ":"JWT"}'
    payload = '{"a":">>>???","b":"?>?>?>","name":"John Doe"}'
    token = jwt(header, payload)
    middle = token.split(".")[1]
    assert "-" in middle
    assert "_" in middle
    assert rules("cookie " + token) == []


def test_storage_key_of_lowercase_and_digits_spread_evenly() -> None:
    """Three kinds (lowercase, digits, the padding) and entropy 5.18: a key."""
    counts = [3] * 14 + [2] * 22
    chars = [c for c, k in zip(string.ascii_lowercase + string.digits, counts, strict=True) for _ in range(k)]
    R.shuffle(chars)
    value = "".join(chars) + "=="
    assert rules(storage(value)) == ["storage-account-key"]


def test_storage_key_below_entropy_five_is_not_a_key() -> None:
    alphabet = "qwertzuiopasdfghjklyxcvbnmQWER"  # 30 kinds: entropy under 5
    value = "".join(R.choice(alphabet) for _ in range(86)) + "=="
    assert rules(storage(value)) == []


def test_private_key_material_of_39_characters_across_lines_is_too_short() -> None:
    """Escaped line breaks (JSON's `\\n`, `\\r\\n`) and real ones are not key material."""
    body = (TWENTY * 2)[:39]
    assert rules(pem(body[:20] + "\\n" + body[20:])) == []
    assert rules(pem(body[:20] + "\\n" + body[20:] + "0")) == ["private-key"]
    assert rules(pem(body[:20] + "\\n" + body[20:30] + "\\r\\n" + body[30:])) == []
    assert rules(pem(body[:20] + "\n" + body[20:30] + "\n" + body[30:])) == []


@pytest.mark.parametrize("start", ["aaaaa", "bcdef", "56789"])
def test_a_run_of_five_at_the_start_is_no_stand_in(start: str) -> None:
    assert rules(url(start + "7q9Z")) == ["url-credentials"]


def test_a_keyword_value_cut_across_literals() -> None:
    text = "pass" + 'word = "1a2b3c" "4d9xQz";'
    assert rules(text) == ["keyword-assignment"]
    assert masked(text) == 'password = "1a2********";'  # the span holds the glue: 15 characters


def test_a_wrapped_token_whose_first_part_ends_in_x() -> None:
    first = "AK" + "IA" + rnd(8, LETTERS) + "7X"
    assert masked("key " + first + "\n" + "3" + rnd(5, LETTERS) + " end") == "key AKIA******** end"
