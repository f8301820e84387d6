"""lh config set: one key, validated before anything is written."""

from __future__ import annotations

from pathlib import Path

import pytest

from lean_harness.cli import main
from lean_harness.config import load
from support import lh, snapshot

CONFIG = ".agents/lh.toml"


def write_config(root: Path, text: str) -> None:
    (root / CONFIG).write_text(text, encoding="utf-8")


def test_set_writes_a_valid_value(project: Path) -> None:
    assert main(["config", "set", "memory.tokenBudget", "30000"]) == 0
    assert main(["config", "set", "memory.encoding", "estimate"]) == 0
    assert main(["config", "set", "memory.shards.deploys", "How we deploy."]) == 0
    cfg = load(project)
    assert cfg.token_budget == 30000
    assert cfg.encoding == "estimate"
    assert ("deploys", "How we deploy.") in cfg.shards


def test_set_leaves_the_file_untouched_when_the_value_is_invalid(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = (project / CONFIG).read_bytes()
    capsys.readouterr()
    assert main(["config", "set", "memory.tokenBudget", "lots"]) == 2
    assert capsys.readouterr().err == (
        ".agents/lh.toml: at memory.tokenBudget: 'lots' is not an integer; file not changed\n"
    )
    assert (project / CONFIG).read_bytes() == before


def test_set_refuses_to_drop_comments(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_config(project, "# our settings\n[memory]\ntokenBudget = 9000\n")
    capsys.readouterr()
    assert main(["config", "set", "memory.keepNewest", "4"]) == 2
    assert capsys.readouterr().err == (
        ".agents/lh.toml has comments, which rewriting it would drop; edit the file by hand, or pass --drop-comments\n"
    )
    assert main(["config", "set", "memory.keepNewest", "4", "--drop-comments"]) == 0
    assert load(project).keep_newest == 4


def test_a_config_value_that_looks_like_a_credential_is_refused_unprinted(project: Path) -> None:
    token = "gh" + "p_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    before = snapshot(project)
    result = lh("config", "set", "memory.shards.deploys", f"deploy token {token}", cwd=project)
    assert result.returncode == 1
    assert token not in result.stdout + result.stderr
    assert result.stderr.startswith("refused: .agents/lh.toml: the value looks like ")
    assert snapshot(project) == before


def test_moving_the_memory_dir_moves_the_managed_gitignore_and_gitattributes_lines(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("dist/\n", encoding="utf-8")
    assert lh("init", cwd=tmp_path).returncode == 0
    done = lh("config", "set", "memory.dir", "notes", cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (
        0,
        "set memory.dir in .agents/lh.toml\nupdated .gitignore\nupdated .gitattributes\n",
        "",
    )
    assert (tmp_path / ".gitignore").read_text("utf-8") == (
        "dist/\n\n"
        "# >>> lean-harness >>> (managed by lh init from artifacts.ignored in .agents/lh.toml)\n"
        ".cache/\nevents.ndjson\nboard.md\nnotes.local/\n"
        "# <<< lean-harness <<<\n"
    )
    assert (tmp_path / ".gitattributes").read_text("utf-8") == (
        "# >>> lean-harness >>> (managed by lh init from memory.dir in .agents/lh.toml)\n"
        "notes/*.md merge=union text eol=lf\nnotes/archive/*.md merge=union text eol=lf\n"
        "# <<< lean-harness <<<\n"
    )
    again = lh("config", "set", "memory.dir", "notes", cwd=tmp_path)
    assert (again.returncode, again.stdout) == (0, "set memory.dir in .agents/lh.toml\n")
