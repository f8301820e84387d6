"""lh config schema: prints the shipped config schema."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lean_harness import schema
from lean_harness.cli import main


def test_schema_command_prints_the_shipped_schema(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["config", "schema"]) == 0
    assert json.loads(capsys.readouterr().out) == schema.load("config")
