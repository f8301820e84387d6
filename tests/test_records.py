"""memory/intake/formats/records.py: the ids, tags and times every format reader makes from what it reads."""

from __future__ import annotations

import hashlib

import pytest

from lean_harness.memory.intake.formats.records import key_from, tag_from, utc_time


def digest(name: str) -> str:
    return hashlib.sha256(name.encode("utf-8")).hexdigest()[:12]


@pytest.mark.parametrize(
    ("name", "plain", "hashed"),
    [
        pytest.param("deploy notes", "deploy-notes", "deploy-notes", id="space"),
        pytest.param("ci/flaky tests.md", "ci-flaky-tests.md", "ci-flaky-tests.md", id="path"),
        pytest.param("--x--", "x", "x", id="edges-stripped"),
        pytest.param("café", f"caf-{digest('café')}", f"caf-{digest('café')}", id="not-ascii-gets-a-hash"),
        pytest.param("кафе", None, digest("кафе"), id="no-ascii-left"),
        pytest.param(" ", None, None, id="blank"),
        pytest.param("a" * 70, "a" * 51 + "-" + digest("a" * 70), "a" * 51 + "-" + digest("a" * 70), id="long"),
    ],
)
def test_an_id_is_made_from_a_name(name: str, plain: str | None, hashed: str | None) -> None:
    assert (key_from(name), key_from(name, hashed=True)) == (plain, hashed)


@pytest.mark.parametrize(
    ("name", "tag"),
    [
        pytest.param("CI Pipelines", "ci-pipelines", id="lowercased"),
        pytest.param("a b/c", "a-b/c", id="slash-kept"),
        pytest.param("!!!", None, id="nothing-fits"),
        pytest.param("x" * 60, "x" * 48, id="cut-to-48"),
    ],
)
def test_a_tag_is_made_from_a_folder_name(name: str, tag: str | None) -> None:
    assert tag_from(name) == tag


@pytest.mark.parametrize(
    ("value", "time"),
    [
        pytest.param("2026-01-31T10:00:00+01:00", "2026-01-31T09:00:00Z", id="offset"),
        pytest.param("2026-01-31T09:00:00Z", "2026-01-31T09:00:00Z", id="utc"),
        pytest.param("2026-01-31T09:00:00", None, id="no-zone"),
        pytest.param("soon", None, id="not-a-time"),
        pytest.param(5, None, id="not-text"),
    ],
)
def test_a_time_with_a_zone_is_given_in_utc(value: object, time: str | None) -> None:
    assert utc_time(value) == time
