"""schema.py: the shipped schemas pass the metaschema, the defaults validate, a description agrees with the parser."""

from __future__ import annotations

from pathlib import Path

import pytest

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


@pytest.mark.parametrize(
    "line",
    ["<<<<<<< HEAD", "|||||||", ">>>>>>> topic", "<<<<<<<<", "<<<<<<<x", "=======", "<<<<<< six", "a <<<<<<<", "x"],
)
def test_a_shard_description_is_refused_exactly_when_the_parser_reads_a_conflict_marker(line: str) -> None:
    from lean_harness.memory.shard import marker_kind

    user = {"memory": {"shards": {"notes": line}}}
    refused = schema.validate(user, "config") != []
    assert refused == (marker_kind(line) == "conflict")
