"""`lh init`: creates what is missing, keeps everything that is there, twice changes nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lean_harness.cli import main
from lean_harness.init import BLOCK_END, BLOCK_START
from support import lh, snapshot

SHARDS = ("seed", "failures", "corrections", "insights", "conventions", "quirks")


def test_init_creates_config_memory_index_and_gitignore_block(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["init"]) == 0
    out = capsys.readouterr().out
    assert "created .agents/lh.toml\n" in out
    for name in SHARDS:
        assert (tmp_path / f".agents/memory/{name}.md").is_file()
    assert (tmp_path / ".agents/memory/INDEX.md").read_text("utf-8").startswith("# Project memory index\n")
    assert (tmp_path / ".gitignore").read_text("utf-8") == (
        f"{BLOCK_START}\n.cache/\nevents.ndjson\nboard.md\n.agents/memory.local/\n{BLOCK_END}\n"
    )


def test_init_twice_changes_nothing(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = snapshot(project)
    capsys.readouterr()
    assert main(["init"]) == 0
    assert capsys.readouterr().out == "lean-harness is already set up here; nothing changed\n"
    assert snapshot(project) == before


def test_init_keeps_the_users_gitignore_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".gitignore").write_text("node_modules/\n# mine\n*.log\n", encoding="utf-8")
    assert main(["init"]) == 0
    text = (tmp_path / ".gitignore").read_text("utf-8")
    assert text.startswith("node_modules/\n# mine\n*.log\n\n" + BLOCK_START + "\n")
    assert main(["config", "set", "artifacts.ignored", '["board.md"]']) == 0
    assert main(["init"]) == 0
    assert (tmp_path / ".gitignore").read_text("utf-8") == (
        f"node_modules/\n# mine\n*.log\n\n{BLOCK_START}\nboard.md\n.agents/memory.local/\n{BLOCK_END}\n"
    )


def test_init_keeps_existing_shards_and_recreates_missing_ones(project: Path) -> None:
    failures = project / ".agents/memory/failures.md"
    failures.write_text("# failures\n\nmy own words\n", encoding="utf-8")
    (project / ".agents/memory/quirks.md").unlink()
    assert main(["init"]) == 0
    assert failures.read_text("utf-8") == "# failures\n\nmy own words\n"
    assert (project / ".agents/memory/quirks.md").is_file()


def test_init_refuses_to_adopt_an_existing_memory_dir_unless_forced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    memory = tmp_path / ".agents/memory"
    memory.mkdir(parents=True)
    (memory / "failures.md").write_text("# failures\n\nkept\n", encoding="utf-8")
    assert main(["init"]) == 2
    assert capsys.readouterr().err == (
        '.agents/memory already holds files but there is no config; run "lh init --force" to adopt it'
        " (no file in it is changed)\n"
    )
    assert not (tmp_path / ".agents/lh.toml").exists()
    assert main(["init", "--force"]) == 0
    assert (memory / "failures.md").read_text("utf-8") == "# failures\n\nkept\n"


def test_init_force_replaces_a_broken_config_and_keeps_a_backup(project: Path) -> None:
    config = project / ".agents/lh.toml"
    config.write_text("[memory\n", encoding="utf-8")
    assert main(["init"]) == 2
    assert main(["init", "--force"]) == 0
    assert (project / ".agents/lh.toml.bak").read_text("utf-8") == "[memory\n"
    assert main(["memory", "status"]) == 0


def test_init_refuses_a_symlinked_memory_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / ".agents").mkdir()
    (tmp_path / ".agents/memory").symlink_to(elsewhere, target_is_directory=True)
    assert main(["init", "--force"]) == 2
    assert capsys.readouterr().err == (
        ".agents/memory is a symbolic link; lean-harness only manages real files."
        " Replace the link with the file or folder itself\n"
    )
    assert list(elsewhere.iterdir()) == []


def test_init_agents_md_adds_a_pointer_block_once(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "AGENTS.md").write_text("# Our agents\n\nBe kind.\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["init", "--agents-md"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "updated AGENTS.md"
    text = (project / "AGENTS.md").read_text("utf-8")
    assert text.startswith("# Our agents\n\nBe kind.\n")
    assert "`.agents/memory/INDEX.md`" in text
    before = snapshot(project)
    assert main(["init", "--agents-md"]) == 0
    assert capsys.readouterr().out == "lean-harness is already set up here; nothing changed\n"
    assert snapshot(project) == before


def test_init_agents_md_refuses_a_symlinked_agents_md_before_writing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "elsewhere.md").write_text("x\n", encoding="utf-8")
    (tmp_path / "AGENTS.md").symlink_to(tmp_path / "elsewhere.md")
    assert main(["init", "--agents-md"]) == 2
    assert capsys.readouterr().err == (
        "AGENTS.md is a symbolic link; lean-harness only manages real files. Replace the link with the file or"
        " folder itself\n"
    )
    assert not (tmp_path / ".agents").exists()


@pytest.mark.skipif(os.name == "nt", reason="symbolic links need privileges on Windows")
def test_init_in_a_clone_with_a_linked_cache_writes_nothing(tmp_path: Path) -> None:
    project, outside = tmp_path / "project", tmp_path / "outside"
    (project / ".agents").mkdir(parents=True)
    outside.mkdir()
    (project / ".agents" / ".cache").symlink_to(outside, target_is_directory=True)
    done = lh("init", cwd=project)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        ".agents/.cache is a symbolic link; lean-harness only manages real files."
        " Replace the link with the file or folder itself\n"
    )
    assert sorted(p.name for p in (project / ".agents").iterdir()) == [".cache"]
    assert not (project / ".gitignore").exists()
    assert list(outside.iterdir()) == []
