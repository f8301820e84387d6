"""schema.py: shipped schemas, validation with and without jsonschema."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lean_harness import schema
from lean_harness.config import DEFAULTS

SHIPPED = sorted(
    p.stem.removesuffix(".schema") for p in (Path(schema.__file__).parent / "schemas").glob("*.schema.json")
)


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_schema_passes_the_metaschema(name: str) -> None:
    from jsonschema import Draft202012Validator

    Draft202012Validator.check_schema(schema.load(name))


def test_defaults_validate_against_the_schema() -> None:
    assert schema.validate(DEFAULTS, "config") == []


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers(-5, 200_000_000) | st.floats(allow_nan=False) | st.text(max_size=8),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
        max_leaves=8,
    ),
    st.sampled_from(["memory", "artifacts", "other"]),
    st.sampled_from([*DEFAULTS["memory"], "committed", "ignored", "other"]),
)
def test_the_check_without_jsonschema_never_passes_what_jsonschema_refuses(value: object, table: str, key: str) -> None:
    """The check each run makes without jsonschema may refuse a valid config (jsonschema then lets
    it pass), never let an invalid one through."""
    from lean_harness import config

    user = json.loads(json.dumps(DEFAULTS))
    user.setdefault(table, {})[key] = value
    if config._plainly_valid(user, schema.load("config")):
        assert schema.validate(user, "config") == []


@pytest.mark.parametrize(
    "user",
    [
        pytest.param(DEFAULTS, id="defaults"),
        pytest.param({}, id="empty"),
        pytest.param({"memory": {"encoding": "estimate", "keepNewest": 0}}, id="estimate"),
        pytest.param({"artifacts": {"committed": ["a/", "b/"], "ignored": []}}, id="artifacts"),
    ],
)
def test_the_check_without_jsonschema_passes_valid_configs(user: dict[str, object]) -> None:
    from lean_harness import config

    assert schema.validate(user, "config") == []
    assert config._plainly_valid(user, schema.load("config"))


@pytest.mark.parametrize(
    "line",
    ["<<<<<<< HEAD", "|||||||", ">>>>>>> topic", "<<<<<<<<", "<<<<<<<x", "=======", "<<<<<< six", "a <<<<<<<", "x"],
)
def test_a_shard_description_is_refused_exactly_when_the_parser_reads_a_conflict_marker(line: str) -> None:
    from lean_harness.memory.shard import marker_kind

    user = {"memory": {"shards": {"notes": line}}}
    refused = schema.validate(user, "config") != []
    assert refused == (marker_kind(line) == "conflict")
