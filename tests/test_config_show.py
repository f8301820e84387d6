"""lh config show: the effective config, defaults included, as JSON or TOML."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from lean_harness.cli import main
from lean_harness.config import DEFAULTS

CONFIG = ".agents/lh.toml"


def write_config(root: Path, text: str) -> None:
    (root / CONFIG).write_text(text, encoding="utf-8")


def test_show_prints_effective_config_as_json(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_config(project, "[memory]\nkeepNewest = 3\n")
    capsys.readouterr()
    assert main(["config", "show", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["version"] == 1
    assert data["command"] == "config show"
    assert data["config"]["memory"]["keepNewest"] == 3
    assert data["config"]["memory"]["tokenBudget"] == DEFAULTS["memory"]["tokenBudget"]
    assert data["problems"] == []


def test_show_prints_toml(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["config", "show"]) == 0
    out = capsys.readouterr().out
    assert tomllib.loads(out) == DEFAULTS
