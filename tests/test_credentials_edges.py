"""Edges of the credential scanner: every threshold of the value checks exactly at and one off,
stand-in values, masking of adjacent, overlapping and nested findings, line and column under
every kind of line break and in non-ASCII text, the allow list.

Each check is reached through a context that only one rule reads, so a row of the table of
verdicts (`REPORTED`, one family of rows a rule) says which rule reports the value or that none
does; `MASKED` and `PLACED` hold the masked text and the line and column of findings. Values
are made of fragments joined at run time, and are patterned (`1a2b3c4d`) rather than random
where an entropy must be exact; expected masks are written out by hand. Nothing here prints a
value: assertions compare rule names, positions and masked text.
"""

from __future__ import annotations

import base64
import random
import re
import string
import zlib
from collections.abc import Callable, Sequence

import pytest
from _pytest.mark.structures import ParameterSet

from lean_harness.scanning import credentials as secret_scan
from lean_harness.scanning.credentials import hide, scan
from lean_harness.scanning.finding import Finding
from lean_harness.scanning.masking import mask

pytestmark = pytest.mark.usefixtures("cold_scanner")  # tests/conftest.py


R = random.Random(20261201)
UPPER = string.ascii_uppercase + string.digits
LETTERS = string.ascii_uppercase


def rnd(n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    return "".join(R.choice(alphabet) for _ in range(n))


def aws_id() -> str:
    """An access key id shape: reported as `AKIA********`."""
    return "AK" + "IA" + rnd(16, UPPER)


def rules(text: str, allow: tuple[str, ...] = ()) -> list[str]:
    return [f.rule for f in scan(text, allow=allow)]


def masked(text: str) -> str:
    return hide(text, scan(text))


def place(text: str) -> list[tuple[str, int, int]]:
    return [(f.rule, f.line, f.column) for f in scan(text)]


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


def bearer(value: str) -> str:  # bearer-token: letters, digits and entropy
    return "curl -H 'Authorization: Bearer " + value + "'"


def pem(body: str) -> str:  # private-key: enough key material
    label = "RSA PRIVATE " + "KEY"
    return "-----BEGIN " + label + "-----\n" + body + "\n-----END " + label + "-----\n"


def basic(user: bytes, password: bytes) -> str:  # basic-auth: user:password, base64
    return "Authorization: Basic " + base64.b64encode(user + b":" + password).decode()


def aws_secret(value: str) -> str:  # aws-secret-key: 40 characters after "secret"
    return "aws secret (rotated) " + value


def jwt(header: str, payload: str) -> str:
    def enc(text: str) -> str:
        return base64.urlsafe_b64encode(text.encode()).rstrip(b"=").decode()

    return enc(header) + "." + enc(payload) + "." + rnd(43, string.ascii_letters + string.digits + "-_")


def encoded(text: bytes) -> str:  # encoded-secret: base64 printed after a secret's name
    return "the pass" + "word printed " + base64.b64encode(text).decode()


def storage(value: str) -> str:  # storage-account-key: a bare 64-byte base64 key
    return "the storage account " + "key is " + value


def crc_token(body: str, pad: Callable[[str], str]) -> str:
    """A classic GitHub token of `body`, its base62 CRC32 checksum padded to six by `pad`."""
    number, digits = zlib.crc32(body.encode()), ""
    while number:
        number, rest = divmod(number, 62)
        digits = (string.digits + string.ascii_uppercase + string.ascii_lowercase)[rest] + digits
    assert len(digits) == 5  # the bodies below are chosen for a five-digit checksum
    return "gh" + "p_" + body + pad(digits)


def cut_key() -> tuple[str, str]:
    """An access key id in two parts that each mix letters and digits (14 + 6 characters)."""
    return "AK" + "IA" + rnd(9, LETTERS) + "7", "3" + rnd(5, LETTERS)


def family(rule: str, context: Callable[[str], str], rows: Sequence[tuple[str, bool, str]]) -> list[ParameterSet]:
    """A row a value: the text `context` puts it in, and `rule` if the value is reported, else nothing."""
    return [pytest.param(context(value), [rule] if found else [], id=f"{rule}/{name}") for value, found, name in rows]


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


# --- the verdicts: one family of rows a rule ----------------------------------------------

LEFT, RIGHT = rnd(30).replace("y", "q").replace("Y", "Q"), rnd(30)  # no "your" across the two
SIXTEEN = "0123456789abcdef"
TWENTY = SIXTEEN + "ghij"
JWT_HEADER = '{"alg":"HS256","typ":"JWT"}'
MIXED_40 = rnd(36) + "Ab9q"
SLASHED_40 = MIXED_40[:10] + "/" + MIXED_40[11:20] + "/" + MIXED_40[21:30] + "/" + MIXED_40[31:]
SPREAD = [c for c, k in zip(string.ascii_lowercase + string.digits, [3] * 14 + [2] * 22, strict=True) for _ in range(k)]
R.shuffle(SPREAD)  # lowercase and digits, 3 kinds with the padding, entropy 5.18
WHOLE = "AK" + "IA" + "7" + rnd(7, LETTERS) + "3" + rnd(7, LETTERS)
PASSWORD = b"q7zW" + b"9xLm"
LOWER_86 = "".join(random.Random(0).choices(string.ascii_lowercase + string.digits, k=86))  # fewer than 5 bits

REPORTED = [
    # A stand-in's near twin, one character away, is a password; fewer distinct characters than a
    # third of the length (at least 2, at most 6 needed) is a stand-in; a run of five at the start is not.
    *family("url-credentials", url, [
        ("Ab3-Xy9k", True, "twin-dash-for-mark"),
        ("q7aaaaa9z", True, "twin-five-equal"),
        ("q7bcdef9z", True, "twin-five-consecutive"),
        ("q73456z8", True, "twin-five-consecutive-digits"),
        ("abababa", True, "twin-two-kinds-in-seven"),
        ("hunter22", True, "twin-not-the-word"),
        ("Qz-12345-Wv", True, "twin-digit-run-of-five"),
        *(((kinds * size)[:size], found, f"{size}-chars-{distinct}-kinds") for kinds, size, distinct, found in (
            ("q8w3e", 18, 5, False), ("q8w3e5", 18, 6, True), ("q8w3e5", 21, 6, True), ("q8", 8, 2, True),
            ("q8", 9, 2, False), ("q8w", 9, 3, True), ("q", 3, 1, False), ("q8", 3, 2, True),
        )),
        *((start + "7q9Z", True, f"run-of-five-{start}") for start in ("aaaaa", "bcdef", "56789")),
        ("q7z", True, "3-chars"),
        ("q7", False, "2-chars"),
        (".q7zw", True, "leading-dot"),
        ("~q7zw", True, "leading-tilde"),
        ("$q7zw", False, "reference"),
        ("hunter2", False, "stand-in-word"),
    ]),
    # Up to 64 characters any stand-in word counts; beyond, only whole words and x-runs.
    *family("keyword-assignment", escaped_json, [
        (LEFT + "your" + RIGHT, False, "64-chars-with-a-word"),
        (LEFT + "your" + RIGHT + "Z", True, "65-chars-with-a-word"),
        (LEFT + "-example-" + RIGHT + "Z", False, "whole-word"),
        (LEFT + "Zexamplez" + RIGHT + "Z", True, "word-inside"),
        (LEFT + "xxxxxxxx" + RIGHT + "Z", False, "x-run-of-8"),
        (LEFT + "xxxxxxx" + RIGHT + "Z", True, "x-run-of-7"),
        # lengths 7/8, entropy exactly 2.5 and below at 8 characters, exactly 3.0 at 8 and 16,
        # the 12 and 20 character steps; identifiers: a variable unless long, mixed and with digits, or hex with digits
        ("1a2b3c4", False, "7-chars"),
        ("1a2b3c4d", True, "8-chars-entropy-3.0"),
        ("1a1ab2cd", True, "8-chars-entropy-2.5"),
        ("1a1ab2cc", False, "8-chars-entropy-2.25"),
        ("1a1ab2b2c3d", True, "11-chars-entropy-2.73"),
        ("1a1ab2b2c3dx", False, "12-chars-entropy-2.92"),
        ("1a2b1a2b3c3c4d4d", True, "16-chars-entropy-3.0"),
        ("1a2b1a2b3c3c4d4d11", False, "18-chars-entropy-2.95"),
        ("1a2b1a2b3c3c4d4d1e1", True, "19-chars-entropy-3.09"),
        ("1a2b1a2b3c3c4d4d1e1e", False, "20-chars-entropy-3.12"),
        ("1a2b1a2b3c3c4d4d5e5e", True, "20-chars-entropy-3.32"),
        ("Zq8wLm3v", False, "short-identifier"),
        ("Zq8wLm3vR2k", False, "11-char-identifier"),
        ("Zq8wLm3vR2kP", True, "12-char-mixed-identifier"),
        ("zq8wlm3vr2kp", False, "12-char-lowercase-identifier"),
        ("a1b2c3d4e5f6", True, "12-char-hex-identifier"),
        ("A1B2C3D4E5F6", True, "12-char-uppercase-hex-identifier"),
        ("ZQWLMRKPTVXN", False, "12-letter-uppercase"),
        ("qwzrtypsdfgh", False, "12-letter-lowercase"),
        ("qwzRTypsdfgh", True, "12-letters-two-capitals-in-a-row"),
        ("qwzRtypSdfgh", False, "12-letters-capitals-apart"),
        ("qwzRTypsdfg", False, "11-letters-two-capitals"),
        ("Qwzrtypsdfgh", False, "12-letters-one-capital"),
        ("my.Conf1g.K3y9x", False, "dotted-identifier"),
        ("Zq8w(Lm3vR2kP", False, "parenthesis"),
        ("!#%&*+?~^", False, "symbols-only"),
        ("some-name-here", False, "slug"),
        ("SOME-NAME-TAGS", False, "upper-slug"),
        ("9837465.2", False, "number"),
        ("abc-defghijk", False, "slug-lowercase"),
        ("zq-wl-mv-rk-pt", False, "slug-of-pairs"),
        ("zq-wl-m3-rk-pt", True, "dashed-with-digit"),
    ]),
    *family("named-secret", define, [
        ("Zq8wL3", True, "6-chars"),
        ("Zq8wL", False, "5-chars"),
        ("1a2b3c4d", True, "two-kinds-entropy-3.0"),
        ("1a1ab2cd", True, "entropy-2.5"),
        ("1a1ab2cc", False, "entropy-2.25"),
        ("1a1ab2b2c3d", True, "11-chars-entropy-2.73"),
        ("1a1ab2b2c3dx", False, "12-chars-entropy-2.92"),
        ("1a2b1a2b3c3c4d4d", True, "16-chars-entropy-3.0"),
        ("Zq8wLm3v", True, "identifier-with-digits"),
        ("mvKeRTbnWQjsLpCx", True, "16-letters-generated"),
        ("mvKeRTbnWQjsLpC", False, "15-letters-generated"),
        ("mvKeRtbnWqjsLpCx", False, "16-letters-capitals-apart"),
        ("qw-Er-TY-ui", True, "letters-and-dashes"),
        ("app.db2.Pw9x", False, "dotted-identifier"),
        ("app.db2.Pw9xQz7Lm4Rt", False, "long-dotted-identifier"),
        ("load7Kx2Qm(b4)", False, "call"),
        ("Load7Kx2Qm(b4)", False, "call-capital"),
        ("_load7Kx2Qm(b4)", False, "call-underscore"),
        ("(Zq8wLm3v)", True, "parentheses"),
        ("(12345678)", False, "number-in-parentheses"),
        ("Zq8(wLm3)v", False, "looks-like-a-call"),
        (".Zq8wLm3v", True, "leading-dot"),
        ("/Zq8wLm3v", False, "leading-slash"),
        ("~Zq8wLm3v", False, "leading-tilde"),
        ("Z/q8wLm3v", True, "second-slash"),
        ("Xq8wLm3v", True, "leading-capital-x"),
        ("C:\\q8wLm3v", False, "windows-path"),
        ("Cq:\\8wLm3v", True, "colon-backslash-later"),
        ("zq8w://lm3v", False, "url"),
        ("zq8w:/lm3v", True, "colon-slash"),
        ("Zq8w Lm3v", False, "space"),
        ("9zPass" + "word7", False, "keyword-inside"),
        ("ZQW_LM3V", False, "constant-name"),
        ("ZQ8W-LM3V", True, "upper-with-dash"),
        ("some-name-here", False, "slug"),
        ("build.", False, "word-ending-a-sentence"),
        ("deploy!", False, "word-ending-an-exclamation"),
        ("Zq8wLm3v.", True, "literal-ending-a-sentence"),
    ]),
    *family("spoken-password", spoken, [
        ("Zq8wLm", True, "6-chars-with-digit"),
        ("Zq8wLX", True, "ends-in-capital-x"),
        ("Zq8wLm.", True, "trailing-period-dropped"),
        ("Zq8wL.", False, "5-chars-and-a-period"),
        ("mvkeRTbnwqjslpCx", True, "lower-upper-twice"),
        ("mvkertbnwqjslpCX", False, "lower-upper-once"),
        ("mvKeRTbnWQjsLpCx", True, "lower-upper-five-times"),
        ("qwErTyuIop", False, "camel-case-word"),
        ("qw-Er-Ty", True, "dashes"),
        ("qw-er-ty", False, "slug"),
        ("wonderful", False, "a-word"),
        (".Zq8wLm", True, "leading-period-kept"),
        ("Zq8wLm3v!?", True, "trailing-marks-dropped"),
    ]),
    *family("env-assignment", dotenv, [
        ("qwzrtypsdfgh", True, "12-letter-word"),
        ("qwzrtypsdfg", False, "11-letter-word"),
        ("qwz7ty", True, "6-chars-with-digit"),
        ("qwz7t", False, "5-chars"),
        ("https://h/x", False, "url"),
        ("~/qwz7ty", False, "path"),
        ("~qwz7tyz", False, "leading-tilde"),
        ("Xqwz7tyz", True, "leading-capital-x"),
        ("q~wz7tyz", True, "inner-tilde"),
        ("12345678", False, "number"),
    ]),
    # A twelve-letter word is a .env value, whether or not the name has a prefix.
    *family("env-assignment", str, [
        ("DEBUG=1\n" + name + "=qwzrtypsdfgh\n", True, "name-" + name.replace(" ", "-"))
        for name in ("DB_PASS" + "WORD", "PASS" + "WORD", "TOK" + "EN", "SEC" + "RET", "API_" + "KEY", "APIKEY",
                     "export TOK" + "EN")
    ]),
    *family("bearer-token", bearer, [
        ("a1b2c3d4" * 2, True, "entropy-exactly-3.0"),
        ("a1b2c3d4" + "a1b2c3dd", False, "entropy-below-3.0"),
        ("abcdefgh" + "ijklmnop", False, "no-digit"),
        ("12345670" + "98765432", False, "no-letter"),
        ("a1b2c3d4" + "e5f6g7h8", True, "entropy-4.0"),
    ]),
    # Forty characters of key material; escaped line breaks (JSON's `\\n`, `\\r\\n`) and real ones are none.
    *family("private-key", pem, [
        (SIXTEEN * 3, True, "48-chars-entropy-exactly-4.0"),
        (TWENTY * 2, True, "40-chars"),
        ((TWENTY * 2)[:39], False, "39-chars"),
        (SIXTEEN[:15] * 3 + "000", False, "entropy-below-4.0"),
        ((SIXTEEN * 3)[:24] + "\n" + (SIXTEEN * 3)[24:], True, "two-lines"),
        ((SIXTEEN * 3)[:24] + "\\n" + (SIXTEEN * 3)[24:], True, "escaped-newline"),
        ((SIXTEEN * 3)[:24] + "\\r\\n" + (SIXTEEN * 3)[24:], True, "escaped-CRLF"),
        (TWENTY[:20] + "\\n" + (TWENTY * 2)[20:39], False, "39-chars-across-an-escaped-LF"),
        (TWENTY[:20] + "\\n" + (TWENTY * 2)[20:39] + "0", True, "40-chars-across-an-escaped-LF"),
        (TWENTY[:20] + "\\n" + TWENTY[:10] + "\\r\\n" + (TWENTY * 2)[30:39], False, "39-chars-across-escaped-CRLF"),
        (TWENTY[:20] + "\n" + TWENTY[:10] + "\n" + (TWENTY * 2)[30:39], False, "39-chars-across-lines"),
    ]),
    *family("huggingface-token", str, [
        ("hf" + "_" + rnd(34, string.ascii_lowercase), False, "lowercase-only"),
        ("hf" + "_" + rnd(34, string.ascii_lowercase) + "Q", True, "one-capital"),
    ]),
    # The user name ends at the first colon; the password may hold more.
    *family("basic-auth", str, [
        (basic(b"deploy", PASSWORD), True, "user-and-password"),
        (basic(b"", PASSWORD), False, "no-user"),
        (basic(b"deploy", b""), False, "no-password"),
        ("Authorization: Basic " + base64.b64encode(b"deploy" + PASSWORD).decode(), False, "no-colon"),
        (basic(b"deploy", b"hunter2"), False, "stand-in-password"),
        (basic(b"deploy", b"q7zW:9xLm"), True, "colon-in-password"),
        (basic(b"deploy", b"q7zW9xLm:hunter2"), True, "stand-in-after-a-colon"),
    ]),
    *family("aws-secret-key", aws_secret, [
        (MIXED_40, True, "mixed-case"),
        (rnd(36, string.ascii_lowercase + string.digits) + "ab9q", False, "lowercase"),
        (rnd(36, UPPER) + "AB9Q", False, "uppercase"),
        (SLASHED_40, True, "three-slashes"),
        (SLASHED_40[:5] + "/" + SLASHED_40[6:], False, "four-slashes"),
        (("Ab1Cd2Ef3Gh4Ij5Kl6Mn7"[:14] * 3)[:40], False, "entropy-3.795"),
        (("Ab1Cd2Ef3Gh4Ij5Kl6Mn7"[:15] * 3)[:40], True, "entropy-3.883"),
    ]),
    *family("jwt", lambda token: "cookie " + token, [
        (jwt(JWT_HEADER, '{"sub":"' + rnd(10) + '"}'), True, "json-header-and-payload"),
        (jwt(JWT_HEADER, ' {"sub":"' + rnd(10) + '"}'), True, "payload-after-a-space"),
        (jwt(JWT_HEADER, '"sub":"' + rnd(10) + '"} '), False, "payload-not-an-object"),
        (jwt("[1,2,3,4,5,6,7]", '{"sub":"' + rnd(10) + '"}'), False, "header-not-an-object"),
    ]),
    # Base64 of a literal that passes once decoded; of bytes that are not text, 16 or more at an entropy of 4.0.
    *family("encoded-secret", encoded, [
        (b"q7zW" + b"9xLm!2", True, "literal"),
        (b"q7zW" + b"9xLm!2\n", True, "trailing-newline"),
        (b"\nq7zW" + b"9xLm!2", False, "leading-newline"),
        (b"q7zW" + b"9xLm!2\t", False, "trailing-tab"),
        (b"hunter2", False, "stand-in"),
        (b"Zq8wLm3v" + b"XXXXXX", False, "stand-in-once-decoded"),
        (b"q7zW" + b"9xLm!2\x01", False, "not-text"),
        (b"q7zW" + b"9xLm!2a\x17", False, "not-text-base64-ending-in-x"),
        (bytes(range(0x80, 0x90)), True, "sixteen-bytes-of-key-material"),
        (bytes(range(0x80, 0x8F)), False, "fifteen-bytes-of-key-material"),
    ]),
    *family("encoded-secret", lambda value: "the pass" + "word printed " + value, [
        ("gHiJkLmNoPqRsTuVwXyZ", False, "15-bytes-entropy-4.32"),
        ("gHiJkLmNoPqRsTuV" * 2, True, "24-bytes-entropy-exactly-4.0"),
        ("gHiJkLmNoPqRsTuu" * 2, False, "24-bytes-15-kinds"),
    ]),
    *family("storage-account-key", storage, [
        (rnd(86, string.ascii_letters + string.digits) + "==", True, "random"),
        (LOWER_86 + "==", False, "lowercase-and-digits-entropy-4.86"),
        (((string.ascii_letters + string.digits)[:30] * 3)[:86] + "==", False, "30-kinds-repeated"),
        ("".join(SPREAD) + "==", True, "lowercase-and-digits-spread-evenly"),
        ("".join(R.choice("qwertzuiopasdfghjklyxcvbnmQWER") for _ in range(86)) + "==", False, "entropy-below-5"),
    ]),
    # A prefixed token starts at a word boundary: the start, a non-alphanumeric, an escape.
    *family("aws-access-key-id", lambda before: "q " + before + aws_id(), [
        ("", True, "start"),
        (" ", True, "space"),
        ("_", True, "underscore"),
        ("x", False, "letter"),
        ("7", False, "digit"),
        ("\\n", True, "escaped-LF"),
        ("\\r", True, "escaped-CR"),
        ("\\t", True, "escaped-tab"),
        ("\\x", False, "escaped-other"),
        ("%3A", True, "percent-upper"),
        ("%3a", True, "percent-lower"),
        ("%2F", True, "percent-slash"),
        ("%GA", False, "percent-not-hex"),
        ("%0A", True, "encoded-LF"),
        ("%0a", True, "encoded-LF-lower"),
        ("%C2", True, "encoded-high-byte"),
        ("%c2", True, "encoded-high-byte-lower"),
        ("%XA", False, "percent-X"),
        ("%0X", False, "percent-digit-X"),
        ("x%0", False, "percent-too-late"),
        ("%A", False, "percent-one-digit"),
        ("x3A", False, "no-percent"),
        ("%%3", False, "percent-percent-digit"),
        ("ab%3Fx", False, "percent-then-letter"),
    ]),
    *family("aws-access-key-id", lambda before: before + aws_id(), [
        ("\\n", True, "escape-at-the-very-start"),
        ("%3D", True, "percent-escape-at-the-very-start"),
        ("n", False, "letter-at-the-very-start"),
        ("3D", False, "digit-at-the-very-start"),
    ]),
    # A checksum of five base62 digits is padded with a leading zero to six; without a valid
    # checksum a token needs letters, digits and an entropy of 3.0.
    *family("github-pat", str, [
        (crc_token("e" * 30, lambda digits: "0" + digits), True, "checksum-padded-with-a-zero"),
        (crc_token("e" * 30, lambda digits: digits + "0"), False, "checksum-padded-at-the-end"),
        ("gh" + "p_" + ("a1b2c3d4e5" * 4)[:36], True, "no-checksum-entropy-3.3"),
        ("gh" + "p_" + ("a1b2" * 9), False, "no-checksum-entropy-3.0-four-kinds"),
    ]),
    # A line break cuts a token in two only between a mixed run of twelve and one of four.
    *family("aws-access-key-id", str, [
        ("id 7 is AK" + "IA\n" + "Q7" + rnd(13, LETTERS) + "3 x", False, "short-run-before-a-break-is-prose"),
        ("x " + WHOLE[:6] + "\n" + WHOLE[6:] + " y", False, "mixed-head-shorter-than-twelve"),
        ("key " + "AK" + "IA" + rnd(9, LETTERS) + "7Q7" + "\n" + rnd(4, LETTERS) + " end 7", False, "tail-of-letters"),
        ("key " + "AK" + "IA" + rnd(12, LETTERS) + "\n" + "3Q7Z" + rnd(2, LETTERS) + " end", False, "head-of-letters"),
        *(("x = " + q + first + glue + second + q + ";", True, name) for glue, q, name, (first, second) in (
            ('" "', '"', "double-quotes", cut_key()), ("' '", "'", "single-quotes", cut_key()),
            ('" + "', '"', "plus", cut_key()), ('" .\n  "', '"', "dot-across-lines", cut_key()),
        )),
    ]),
    *family("keyword-assignment", str, [
        ("pass" + 'word = "1a2b3c" "4d9xQz";', True, "cut-across-literals"),
        ("api_\u212aey=" + "1a2b" + "3c4d9x", True, "kelvin-sign-reads-as-k"),
        ("İ İ " + "PASS" + "WORD=" + "1a2b" + "3c4d9x" + " İ", True, "letter-that-lowercases-longer"),
    ]),
    pytest.param("id " + aws_id() + " url https://deploy:" + "q7z" + "W9x" + "@db",
                 ["aws-access-key-id", "url-credentials"], id="two-rules-on-one-line"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), REPORTED)
def test_a_value_is_reported_by_the_rule_its_context_names_or_none(text: str, expected: list[str]) -> None:
    assert rules(text) == expected


VALUE = "1a2b" + "3c4d" + "9x"  # keyword-assignment reports it as `1a********`
KEY = aws_id()
ENCODED_LINES = [
    "x=1", "pass%77" + "ord%3D" + VALUE + "&y", "tok%65" + "n%3D" + VALUE, "s%65" + "cret%3D" + VALUE, "end"
]  # fmt: skip
TWELVE = "AK" + "IA" + "7" + rnd(10, LETTERS) + "3" + rnd(2, LETTERS) + "9Q"  # digits at 4, 15, 18

MASKED = [
    # Punctuation that ends the sentence is not part of the checked value, but it is masked with
    # it: the password may end in the same marks.
    pytest.param(spoken("Zq8w" + "Lm3vR2kPa7!."), "The staging password is Zq8******** until Friday.",
                 id="spoken-password-runs-to-the-next-space"),
    *(pytest.param("DEBUG=1\n" + name + "=qwzrtypsdfgh\n", "DEBUG=1\n" + name + "=qw********\n",
                   id="env-assignment-name-" + name.replace(" ", "-"))
      for name in ("DB_PASS" + "WORD", "PASS" + "WORD", "TOK" + "EN", "SEC" + "RET", "API_" + "KEY", "APIKEY",
                   "export TOK" + "EN")),
    # URL-encoded lines are read decoded, each where it is
    pytest.param("https://h/cb?x=1&pass" + "word%3D" + "1a2b" + "3c4d" + "9x%21q" + "&y=2",
                 "https://h/cb?x=1&password%3D1a********&y=2", id="encoded-value-in-a-url"),
    pytest.param("%70ass" + "word%3D" + VALUE, "%70ass" + "word%3D1a********", id="line-starting-with-an-escape"),
    pytest.param("\n".join(ENCODED_LINES),
                 "x=1\npass%77ord%3D1a********&y\ntok%65n%3D1a********\ns%65cret%3D1a********\nend",
                 id="every-encoded-line"),
    pytest.param("pass%77" + "ord%3D" + VALUE + "\nnext\n", "pass%77ord%3D1a********\nnext\n",
                 id="encoded-line-before-other-lines"),
    # values cut in two: adjacent string literals and wrapped lines
    *(pytest.param("x = " + q + first + glue + second + q + ";", "x = " + q + "AKIA********" + q + ";", id=name)
      for glue, q, name, (first, second) in (
          ('" "', '"', "double-quotes", cut_key()), ("' '", "'", "single-quotes", cut_key()),
          ('" + "', '"', "plus", cut_key()), ('" .\n  "', '"', "dot-across-lines", cut_key()))),
    *(pytest.param('x = "' + first[:8] + '" "' + first[8:] + '" "' + second + '"', 'x = "AKIA********"',
                   id="cut-into-three-literals") for first, second in [cut_key()]),
    *(pytest.param("key " + first + brk + second + " end", "key AKIA******** end", id=f"wrapped-at-{name}")
      for (first, second), brk, name in ((cut_key(), "\n", "LF"), (cut_key(), "\r\n", "CRLF"),
                                         (cut_key(), "\\\n", "backslash"))),
    *(pytest.param("one\ntwo\nkey " + first + "\n" + second + " end\nlast", "one\ntwo\nkey AKIA******** end\nlast",
                   id="wrapped-on-a-later-line") for first, second in [cut_key()]),
    pytest.param(TWELVE[:12] + "\n" + TWELVE[12:] + " end", "AKIA******** end", id="wrap-after-twelve-at-the-start"),
    pytest.param("x " + TWELVE[:12] + "\n" + TWELVE[12:] + " end", "x AKIA******** end", id="wrap-after-twelve"),
    pytest.param("x " + TWELVE[:16] + "\n" + TWELVE[16:] + " end", "x AKIA******** end", id="wrap-before-four"),
    pytest.param("key " + "AK" + "IA" + rnd(8, LETTERS) + "7X" + "\n" + "3" + rnd(5, LETTERS) + " end",
                 "key AKIA******** end", id="wrapped-first-part-ending-in-x"),
    pytest.param("pass" + 'word = "1a2b3c" "4d9xQz";', 'password = "1a2********";',  # the span holds the glue
                 id="keyword-value-cut-across-literals"),
    # masking findings next to each other
    pytest.param("id " + KEY + " url https://deploy:" + "q7z" + "W9x" + "@db",
                 "id AKIA******** url https://deploy:q********@db", id="two-rules-on-one-line"),
    pytest.param(aws_id() + "," + aws_id(), "AKIA********,AKIA********", id="adjacent-findings-one-by-one"),
    # non-ASCII text: `İ` lowercases to two characters; only A-Z are lowered (`[` is not turned into
    # `{`, which would read as a reference); a prefixed token starts after any non-ASCII character
    pytest.param("İ İ " + "PASS" + "WORD=" + VALUE + " İ", "İ İ PASSWORD=1a******** İ",
                 id="letter-that-lowercases-longer"),
    *(pytest.param("İ " + name + "=" + VALUE, "İ " + name + "=1a********", id=f"upper-case-name-{name}")
      for name in ("TOKEN", "Token", "tOkEn")),
    pytest.param("İ token=[" + VALUE + "]", "İ token=[" + VALUE + "]", id="brackets-stay-brackets"),
    pytest.param("İ token=" + VALUE + "@Z", "İ token=1a********", id="value-before-an-at-sign"),
    pytest.param("é" + KEY, "éAKIA********", id="after-a-latin-letter"),
    pytest.param("中" + KEY, "中AKIA********", id="after-a-cjk-letter"),
    pytest.param("x" + KEY, "x" + KEY, id="after-an-ascii-letter"),
    pytest.param("9" + KEY, "9" + KEY, id="after-a-digit"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), MASKED)
def test_the_masked_text(text: str, expected: str) -> None:
    assert masked(text) == expected


TWO = cut_key(), cut_key()
PLACED = [
    pytest.param(aws_id(), [("aws-access-key-id", 1, 1)], id="first-character"),
    pytest.param("\n" + aws_id(), [("aws-access-key-id", 2, 1)], id="after-a-leading-line-break"),
    *(pytest.param("a passw" + escape + "rd%3d" + VALUE, [("keyword-assignment", 1, 16)], id=f"escape-{escape}")
      for escape in ("%6f", "%6F", "%4f")),
    pytest.param("\n".join(ENCODED_LINES),
                 [("keyword-assignment", 2, 14), ("keyword-assignment", 3, 11), ("keyword-assignment", 4, 12)],
                 id="every-encoded-line"),
    pytest.param("first\n%70ass" + "word%3D" + VALUE + "\nlast", [("keyword-assignment", 2, 14)],
                 id="encoded-line-after-a-line-break"),
    *(pytest.param("# " + "padding " * 60 + '\nx = "' + first[:8] + '" "' + first[8:] + '" "' + second + '"',
                   [("aws-access-key-id", 2, 6)], id="cut-into-three-literals-far-into-the-text")
      for first, second in [cut_key()]),
    pytest.param('a = "' + TWO[0][0] + '" "' + TWO[0][1] + '"\n' + "# " + "padding " * 60 + '\nb = "' + TWO[1][0]
                 + '" "' + TWO[1][1] + '"', [("aws-access-key-id", 1, 6), ("aws-access-key-id", 3, 6)],
                 id="two-cut-values-far-apart"),
    *(pytest.param("key " + first + brk + second + " end", [("aws-access-key-id", 1, 5)], id=f"wrapped-at-{name}")
      for (first, second), brk, name in ((cut_key(), "\n", "LF"), (cut_key(), "\r\n", "CRLF"),
                                         (cut_key(), "\\\n", "backslash"))),
]  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), PLACED)
def test_the_line_and_column_of_each_finding(text: str, expected: list[tuple[str, int, int]]) -> None:
    assert place(text) == expected


# --- masking spans -------------------------------------------------------------------------------

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
    match = re.match(secret_scan._VALUE, text)
    assert match is not None
    assert next(group for group in match.groups() if group is not None) == value


def test_a_value_has_its_minimum_length() -> None:
    assert re.fullmatch(secret_scan._VALUE, "") is None
    assert re.fullmatch(secret_scan._VALUE, '""') is None
    assert re.fullmatch(secret_scan._VALUE, "a") is not None


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
