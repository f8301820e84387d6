"""SHA-256 and HMAC-SHA256 as lh computes them give the standard library's answers at every size."""

from __future__ import annotations

import hashlib
import hmac
import random
import sys
from collections.abc import Callable

import pytest

from lean_harness import digests

SIZES = [0, 1, 55, 56, 63, 64, 65, 1000, digests.LARGE - 1, digests.LARGE, digests.LARGE + 1, 3 * digests.LARGE]


@pytest.mark.parametrize("size", SIZES)
def test_sha256_is_hashlibs_at_every_size(size: int) -> None:
    data = random.Random(size).randbytes(size)
    assert digests.sha256(data) == hashlib.sha256(data).hexdigest()
    assert digests.sha256(memoryview(data)) == hashlib.sha256(data).hexdigest()
    assert digests.sha256(bytearray(data)) == hashlib.sha256(data).hexdigest()


def test_sha256_of_the_empty_input_is_the_published_value() -> None:
    assert digests.sha256(b"") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


@pytest.mark.parametrize("key_size", [0, 1, 32, 63, 64, 65, 200])
@pytest.mark.parametrize("size", [0, 1, 64, 1000, digests.LARGE])
def test_hmac_is_the_standard_librarys(key_size: int, size: int) -> None:
    chance = random.Random(key_size * 7919 + size)
    key, data = chance.randbytes(key_size), chance.randbytes(size)
    assert digests.hmac_sha256(key, data) == hmac.new(key, data, "sha256").hexdigest()


def test_hmac_matches_rfc_4231_test_case_2() -> None:
    # RFC 4231, section 4.3: key "Jefe", data "what do ya want for nothing?"
    expected = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    assert digests.hmac_sha256(b"Jefe", b"what do ya want for nothing?") == expected


@pytest.mark.parametrize(
    ("left", "right", "equal"),
    [
        ("ab12", "ab12", True),
        ("ab12", "ab13", False),
        ("ab12", "ab1", False),
        ("", "", True),
        ("é", "?", False),
        ("é", "é", True),
    ],
)
def test_same_compares_whole_strings(left: str, right: str, equal: bool) -> None:
    assert digests.same(left, right) is equal


@pytest.mark.parametrize(
    ("digest", "uses_hashlib"),
    [
        (lambda: digests.sha256(bytes(digests.LARGE - 1)), False),
        (lambda: digests.sha256(bytes(digests.LARGE)), True),
        (lambda: digests.hmac_sha256(bytes(32), bytes(digests.LARGE - 65)), False),
        (lambda: digests.hmac_sha256(bytes(32), bytes(digests.LARGE - 64)), True),
    ],
)
def test_hashlib_is_imported_only_for_large_inputs(
    digest: Callable[[], str], uses_hashlib: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delitem(sys.modules, "hashlib")  # put back after the test
    digest()
    assert ("hashlib" in sys.modules) is uses_hashlib
