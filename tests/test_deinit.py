"""lh deinit: every block lh wrote goes, every line of the user's stays, byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

from lean_harness.cli import main
from support import lh, snapshot

USER = {
    ".gitignore": b"node_modules/\n*.log\n",
    ".gitattributes": b"*.png binary\r\n",
    "AGENTS.md": b"# Agents\n\nRun the tests first.\n",
    "CLAUDE.md": b"# Claude\n\nno trailing newline",
}


def test_deinit_leaves_the_users_files_as_they_were_before_init(tmp_path: Path) -> None:
    for name, data in USER.items():
        (tmp_path / name).write_bytes(data)
    assert lh("init", "--agents-md", cwd=tmp_path).returncode == 0
    assert all((tmp_path / name).read_bytes() != data for name, data in USER.items())
    done = lh("deinit", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == (
        "removed the lean-harness block from .gitignore\n"
        "removed the lean-harness block from .gitattributes\n"
        "removed the lean-harness block from AGENTS.md\n"
        "removed the lean-harness block from CLAUDE.md\n"
        'kept .agents/ (config and memory); "lh deinit --purge" deletes it\n'
    )
    for name, data in USER.items():
        if name == "CLAUDE.md":  # lh gave the last line its newline; the block's blank line goes
            assert (tmp_path / name).read_bytes() == data + b"\n"
        else:
            assert (tmp_path / name).read_bytes() == data
    assert (tmp_path / ".agents" / "lh.toml").is_file()


def test_user_lines_after_a_block_are_kept_where_they_are(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("a\n", encoding="utf-8")
    assert lh("init", cwd=tmp_path).returncode == 0
    path = tmp_path / ".gitignore"
    path.write_text(path.read_text("utf-8") + "b\n", encoding="utf-8")
    assert lh("deinit", cwd=tmp_path).returncode == 0
    assert path.read_text("utf-8") == "a\n\nb\n"


def test_files_lh_created_are_deleted_and_a_rerun_changes_nothing(tmp_path: Path) -> None:
    assert lh("init", "--agents-md", cwd=tmp_path).returncode == 0
    first = lh("deinit", "--json", cwd=tmp_path)
    assert json.loads(first.stdout) == {
        "version": 1,
        "command": "deinit",
        "root": tmp_path.resolve().as_posix(),
        "cleaned": [],
        "deleted": [".gitignore", ".gitattributes", "AGENTS.md"],
        "kept": [".agents/"],
        "problems": [],
    }
    before = snapshot(tmp_path)
    again = lh("deinit", cwd=tmp_path)
    assert again.stdout == (
        "no lean-harness block here; nothing changed\n"
        'kept .agents/ (config and memory); "lh deinit --purge" deletes it\n'
    )
    assert snapshot(tmp_path) == before


def test_purge_needs_yes_without_a_terminal_and_then_deletes_the_memory_wherever_it_is(project: Path) -> None:
    assert main(["config", "set", "memory.dir", "notes/memory"]) == 0
    (project / "notes").mkdir()
    (project / ".agents" / "memory").rename(project / "notes" / "memory")
    before = snapshot(project)
    refused = lh("deinit", "--purge", cwd=project)
    assert (refused.returncode, refused.stdout) == (2, "")
    assert refused.stderr == (
        "--purge deletes .agents/, notes/memory/ and every memory entry in it; add --yes to confirm\n"
    )
    assert snapshot(project) == before
    done = lh("deinit", "--purge", "--yes", cwd=project)
    assert done.stdout == "deleted .gitignore\ndeleted .gitattributes\ndeleted .agents/\ndeleted notes/memory/\n"
    assert sorted(p.name for p in project.iterdir()) == ["notes"]
    assert lh("deinit", "--purge", "--yes", cwd=project).stdout == "no lean-harness block here; nothing changed\n"


def test_a_symlinked_file_is_refused_and_nothing_changes(project: Path) -> None:
    (project / "AGENTS.md").write_text("# Rules\n", encoding="utf-8")
    (project / "CLAUDE.md").symlink_to("AGENTS.md")
    before = snapshot(project)
    done = lh("deinit", cwd=project)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "CLAUDE.md is a symbolic link; lean-harness only manages real files. Replace the link with the file or"
        " folder itself\n"
    )
    assert snapshot(project) == before
